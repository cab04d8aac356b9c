/* SPDX-License-Identifier: MIT */
/*
 * Command-line options of rdma_mc_example: getopt_long into one
 * struct mc_config, validated, read-only afterwards.
 */
#ifndef MC_CONFIG_H
#define MC_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "common/trace.h" /* the RC example's -v trace, shared */

/* Used when -m is not given: an administratively scoped IPv4 group. */
#define MC_DEFAULT_GROUP "239.1.1.1"
#define MC_DEFAULT_COUNT 10
#define MC_DEFAULT_SIZE	 128
/* Seconds allowed for each wait: one CM event, or one completion. */
#define MC_DEFAULT_TIMEOUT 10

/* A UD message fits in one packet, and no RDMA MTU exceeds 4096 bytes. */
#define MC_UD_MAX_SIZE 4096
/*
 * Every message carries "message N of COUNT from ADDR" and its NUL: 32
 * characters of text and numbers (COUNT <= MC_MAX_COUNT), 45 for the
 * longest IPv6 address, 1 for the NUL, rounded up.
 */
#define MC_MSG_MIN_SIZE 80
/* Seven digits, so that the text above always fits MC_MSG_MIN_SIZE. */
#define MC_MAX_COUNT 1000000
/* An hour: longer than any wait this program makes has a reason to be. */
#define MC_MAX_TIMEOUT 3600

struct mc_config {
	struct sockaddr_storage group;	   /* -m */
	char group_str[INET6_ADDRSTRLEN];  /* -m, as given, for messages */
	struct sockaddr_storage bind_addr; /* -b, when has_bind_addr */
	char bind_str[INET6_ADDRSTRLEN];
	bool has_bind_addr;
	bool send;		/* -s: send; receive otherwise */
	unsigned int count;	/* -C */
	unsigned int size;	/* -S: payload bytes of each message sent */
	unsigned int timeout_s; /* -t */
	struct trace trace;	/* -v: trace.on */
	bool show_help;		/* -h */
	bool show_version;	/* -V */
};

/*
 * Fill @cfg from argv. On bad input, writes one line naming the option and
 * the value to @err and returns -EINVAL.
 */
int mc_config_parse(int argc, char **argv, struct mc_config *cfg, FILE *err);
void mc_config_usage(FILE *out, const char *prog);
const char *mc_config_version(void);

#endif /* MC_CONFIG_H */
