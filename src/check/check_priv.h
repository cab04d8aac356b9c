/* SPDX-License-Identifier: MIT */
/* Private to src/check: the report the checks fill, and the two halves. */
#ifndef CHECK_PRIV_H
#define CHECK_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check/check.h"
#include "config.h"
#include "extras/port_counters.h"
#include "qp.h"
#include "resources.h"

enum check_status {
	CHECK_PASS = 0,
	CHECK_WARN = 1, /* works, but rules something out or costs speed */
	CHECK_FAIL = 2, /* RDMA with these options will not work */
};

#define CHECK_NAME_MAX	16
#define CHECK_VALUE_MAX 320
#define CHECK_FIX_MAX	240
/* More checks than a run makes: about 18 on the host, 13 for the pair. */
#define CHECK_ITEMS_MAX 40

/* One check: its name, what it found, and for WARN or FAIL the fix. */
struct check_item {
	char name[CHECK_NAME_MAX];
	enum check_status status;
	char value[CHECK_VALUE_MAX];
	char fix[CHECK_FIX_MAX]; /* "" for none */
};

/* Every check of a run, in order; each line goes to @out as it is added. */
/*
 * What a device adds beyond what the lessons need (check_features.c):
 * present or not, neither a pass nor a failure, so not a check.
 */
#define CHECK_FEATURES_MAX 8 /* the 7 of check_features, and room */
struct check_feature {
	char name[CHECK_NAME_MAX];
	bool present;
	char value[CHECK_VALUE_MAX];
};

struct check_report {
	struct check_item items[CHECK_ITEMS_MAX];
	size_t count;
	struct check_feature features[CHECK_FEATURES_MAX];
	size_t feature_count;
	FILE *out; /* NULL: print nothing */
};

void check_report_init(struct check_report *r, FILE *out);

/*
 * Add one check and print its line: status, name, the value from @fmt,
 * and "fix: @fix" when @fix is not NULL. A check past CHECK_ITEMS_MAX is
 * printed but not kept.
 */
void check_add(struct check_report *r, const char *name,
	       enum check_status status, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * Add one feature and print its line, "HAS " or "NONE", the name and the
 * value from @fmt.
 */
void check_add_feature(struct check_report *r, const char *name, bool present,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The feature lines of a device from its ibv_query_device_ex answer
 * @attr: XRC, on-demand paging, completion timestamps and the clock,
 * device memory, tag matching; and dma-buf, from @dmabuf_err, the errno
 * ibv_reg_dmabuf_mr gave for no file at all (EOPNOTSUPP: the provider
 * has none; another: it has, and refused the file); and DC, from @mlx5,
 * whether mlx5's direct verbs serve the device (mlx5dv_is_supported).
 */
void check_features(struct check_report *r,
		    const struct ibv_device_attr_ex *attr, int dmabuf_err,
		    bool mlx5);

/* "PASS", "WARN", "FAIL". */
const char *check_status_name(enum check_status status);

/* The line of one check, as check_add prints it. */
void check_print_item(const struct check_item *item, FILE *out);

/*
 * A port's active rate in words from ibv_port_attr's active_width and
 * active_speed codes: "100 Gb/s (4X 25 Gb/s)", or "rate unknown (...)"
 * for a code not in the table. Returns what snprintf returns.
 */
int check_port_rate(uint8_t width, uint8_t speed, char *text, size_t len);

/* True when no check failed. */
bool check_passed(const struct check_report *r);

/*
 * The last line: PASS or FAIL, whether @scope ("this host", "these two
 * hosts") can do RDMA with these options, and the failed checks' names.
 */
void check_print_verdict(const struct check_report *r, const char *scope,
			 FILE *out);

/* Every check as a JSON object (name, status, value, fix), and the verdict. */
void check_write_json(const struct check_report *r, const char *scope,
		      FILE *out);

/* The same into the file at @path; 0, or -errno after one line. */
int check_save_json(const struct check_report *r, const char *scope,
		    const char *path);

/*
 * What an operation's failure @err (a negative errno, as poll_completion
 * and sock_sync return them) means to a user, and in *@fix what to do
 * about it (NULL when there is nothing to suggest). Pure.
 */
const char *check_op_failure(int err, const char **fix);

/* What the local checks found that the pair checks need. */
struct check_host {
	bool usable; /* the resources of a run could be created */
	bool is_roce;
};

/*
 * The host's checks for @cfg, each one line in @r; @sizes are what the
 * pair round (or a run with these options) creates.
 */
void check_local(struct check_report *r, const struct config *cfg,
		 const struct resources_sizes *sizes, struct check_host *host);

/* What the pair round shares between its checks. */
struct pair {
	const struct config *cfg;
	struct resources res;
	struct connection conn;
	int sock;
	bool client;
	/* the port's counters once TCP connected, before any RDMA */
	struct port_counters before;
};

/*
 * Trade @n numbers with the peer over the pair's TCP connection, in
 * network byte order (common/wire.h), within @timeout_ms: 0, or -errno.
 */
#define CHECK_TRADE_MAX 8
int check_trade(const struct pair *p, const uint64_t *mine, uint64_t *theirs,
		size_t n, int timeout_ms);

/*
 * The registered buffer of a pair check: the operations' buffer, then
 * the path check's area, where the client WRITEs and READs messages of
 * every frame size up to the path MTU, and one of several frames.
 */
#define CHECK_PATH_AREA_OFFSET	4096
#define CHECK_PATH_BURST_FRAMES 4
#define CHECK_PATH_AREA_SIZE	(CHECK_PATH_BURST_FRAMES * 4096)
#define CHECK_PAIR_BUF_SIZE	(CHECK_PATH_AREA_OFFSET + CHECK_PATH_AREA_SIZE)

/*
 * The path check (check_path.c): frames of each size from 256 bytes to
 * the path MTU, one at a time, then several back to back, each way; a
 * size that never arrives names the way and the largest size that did.
 * True if every size crossed.
 */
bool check_path(struct check_report *r, struct pair *p);

/*
 * The pair's checks, with the peer that @cfg names (the client) or the
 * one that connects to us (the server): @cfg runs the check's operations,
 * and more than @max_lost packets lost over them (both sides' port
 * counters) fail the loss check.
 */
void check_pair(struct check_report *r, const struct config *cfg,
		const struct resources_sizes *sizes, unsigned long max_lost);

#endif
