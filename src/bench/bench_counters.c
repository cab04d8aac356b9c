// SPDX-License-Identifier: MIT
/*
 * --report-counters: what the port's counters moved over the run, as
 * perftest's --report-counters shows. The kernel keeps them in sysfs,
 * under /sys/class/infiniband/DEV/ports/N/: counters (the InfiniBand
 * port counters, where the driver has them) and hw_counters (the
 * driver's own: rxe counts packets, retries and NAKs there; mlx5 its
 * congestion and error events). Every file there is one number.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_counters.h"

/* The subfolders of a port that hold counters. */
static const char *const counter_dirs[] = {"counters", "hw_counters"};

/*
 * What the counters that matter to a run mean, by the names the drivers
 * give them (rxe's in drivers/infiniband/sw/rxe/rxe_hw_counters.c, mlx5's
 * and the InfiniBand port counters as rdma-core's docs name them).
 */
static const struct {
	const char *name;
	const char *meaning;
	bool resent; /* this side sent packets again */
} known[] = {
	{"port_xmit_packets", "packets sent", false},
	{"port_rcv_packets", "packets received", false},
	{"sent_pkts", "packets sent", false},
	{"rcvd_pkts", "packets received", false},
	{"completer_retry_err",
	 "times this side went back and sent again (ack timeout or NAK)", true},
	{"local_ack_timeout_err",
	 "ack timeouts: this side sent again after waiting", true},
	{"packet_seq_err", "sequence NAKs received: this side sent again",
	 true},
	{"roce_adp_retrans", "adaptive retransmissions", true},
	{"rcvd_seq_err", "sequence NAKs received (a packet of ours was lost)",
	 false},
	{"out_of_seq_request",
	 "requests received out of sequence (one before was lost)", false},
	{"out_of_sequence",
	 "packets received out of sequence (one before was lost)", false},
	{"duplicate_request", "requests received twice (the peer sent again)",
	 false},
	{"rcvd_rnr_err", "RNR NAKs received (the peer had no receive posted)",
	 false},
	{"send_rnr_err", "RNR NAKs sent (no receive posted here)", false},
	{"rnr_nak_retry_err", "RNR retries exceeded", false},
	{"retry_exceeded_err", "transport retries exceeded", false},
	{"retry_rnr_exceeded_err", "RNR retries exceeded", false},
};

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct port_counter *)a)->name,
		      ((const struct port_counter *)b)->name);
}

/* The number in @path, if it holds one (and nothing else): 0, or -1. */
static int read_number(const char *path, uint64_t *value)
{
	char text[32], *end;
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(text, sizeof(text), f) && text[0] >= '0' && text[0] <= '9';
	fclose(f);
	if (!ok)
		return -1;
	errno = 0;
	*value = strtoull(text, &end, 10);
	return errno || (*end != '\n' && *end != '\0') ? -1 : 0;
}

/* Every number in @dir into @pc, up to BENCH_COUNTERS_MAX in all. */
static void read_dir(const char *dir, struct port_counters *pc)
{
	char path[PATH_MAX];
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), i;

	if (n < 0)
		return;
	pc->folders++;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		struct port_counter *c = &pc->c[pc->count];

		if (pc->count < BENCH_COUNTERS_MAX && name[0] != '.' &&
		    strlen(name) < sizeof(c->name) &&
		    snprintf(path, sizeof(path), "%s/%s", dir, name) <
			    (int)sizeof(path) &&
		    read_number(path, &c->value) == 0) {
			snprintf(c->name, sizeof(c->name), "%s", name);
			pc->count++;
		}
		free(names[i]);
	}
	free(names);
}

void port_counters_read(const char *port_dir, struct port_counters *pc)
{
	char dir[PATH_MAX];
	size_t i;

	*pc = (struct port_counters){0};
	snprintf(pc->port_dir, sizeof(pc->port_dir), "%s", port_dir);
	for (i = 0; i < sizeof(counter_dirs) / sizeof(counter_dirs[0]); i++)
		if (snprintf(dir, sizeof(dir), "%s/%s", port_dir,
			     counter_dirs[i]) < (int)sizeof(dir))
			read_dir(dir, pc);
	qsort(pc->c, pc->count, sizeof(pc->c[0]), compare_names);
}

void port_counters_path(const char *device, unsigned int port, char *out,
			size_t len)
{
	snprintf(out, len, "/sys/class/infiniband/%s/ports/%u", device, port);
}

static const char *meaning_of(const char *name, bool *resent)
{
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(known[i].name, name) == 0) {
			*resent = known[i].resent;
			return known[i].meaning;
		}
	*resent = false;
	return "";
}

size_t port_counters_moved(const struct port_counters *before,
			   const struct port_counters *after,
			   struct port_counter *moved, uint64_t *resent)
{
	size_t i, j, n = 0;
	bool again;

	*resent = 0;
	for (i = 0; i < after->count; i++) {
		const struct port_counter *a = &after->c[i];

		for (j = 0; j < before->count; j++)
			if (strcmp(before->c[j].name, a->name) == 0)
				break;
		/* New since, or reset (the port went down): no difference. */
		if (j == before->count || a->value <= before->c[j].value)
			continue;
		moved[n] = *a;
		moved[n].value = a->value - before->c[j].value;
		meaning_of(a->name, &again);
		if (again)
			*resent += moved[n].value;
		n++;
	}
	return n;
}

void port_counters_print(const struct port_counters *before,
			 const struct port_counters *after, FILE *out)
{
	struct port_counter moved[BENCH_COUNTERS_MAX];
	uint64_t resent;
	size_t i, n;
	bool again;

	if (!before->folders) {
		fprintf(out,
			"port counters: none (no counters or hw_counters in %s)\n",
			before->port_dir);
		return;
	}
	n = port_counters_moved(before, after, moved, &resent);
	fprintf(out, "port counters of this side (%s), moved over the run:\n",
		before->port_dir);
	for (i = 0; i < n; i++)
		fprintf(out, "  %-24s %+12" PRId64 "  %s\n", moved[i].name,
			(int64_t)moved[i].value,
			meaning_of(moved[i].name, &again));
	if (!n)
		fprintf(out, "  (none moved)\n");
	if (resent)
		fprintf(out,
			"resent: this side sent packets again %" PRIu64
			" time(s): packets were lost on the way\n",
			resent);
	else
		fprintf(out, "resent: none\n");
	fflush(out);
}
