/* SPDX-License-Identifier: MIT */
/* The perftest-style table and the JSON file (bench_report.c). */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "bench/bench.h"
#include "bench_config.h"
#include "bench_stats.h"

struct bench_run;
struct port_counters;

/* --run_infinitely: one report, the seconds since the one before. */
struct bench_period {
	double seconds;
	uint64_t messages;
	struct bw_stats bw; /* no peak */
};

struct bench_result {
	uint32_t size;
	uint64_t iters; /* -D: the messages done in the seconds measured */
	double seconds; /* -D: the seconds measured */
	struct lat_stats lat;
	struct lat_histogram hist; /* lat only */
	struct bw_stats bw;	   /* -b: this side's direction */
	/* -b: the other side's direction, sent at the end of the size */
	struct bw_stats bw_back;
	/*
	 * The share of one CPU each side spent from the start of the size
	 * to its end (both syncs), in percent; NAN where it is not known.
	 */
	double cpu_client;
	double cpu_server;
	/*
	 * -q above 1: each QP's messages and figures (this side's direction).
	 * With -n, each over its own first post to its last completion; with
	 * -D, over the row's sample window, so that they add up to the row.
	 * 0 QPs: a run of one QP, no per-QP figures.
	 */
	/* --run_infinitely: the reports the row's whole run was made of */
	const struct bench_period *periods;
	size_t period_count;
	unsigned int qps;
	struct bench_qp_result {
		uint32_t qp_num;
		uint64_t messages;
		struct bw_stats bw;
	} per_qp[BENCH_QPS_MAX];
};

void bench_print_header(const struct bench_config *bc, FILE *out);
/*
 * --run_infinitely: the row of @messages done in the last @ns, printed
 * and kept in run->periods; 0, or -ENOMEM after a line.
 */
int bench_report_period(struct bench_run *run, uint64_t ns, uint64_t messages,
			FILE *out);
void bench_print_result(const struct bench_config *bc,
			const struct bench_result *r, FILE *out);
/*
 * The version of the JSON that --json writes: 2 added test_info, complete
 * and schema_version itself; 3 each result's CPU shares and latency
 * histogram, and the counters; 4 "qps" and each result's "per_qp".
 */
#define BENCH_JSON_SCHEMA_VERSION 4
#ifndef BENCH_PROGRAM_VERSION
#define BENCH_PROGRAM_VERSION "unknown" /* CMake defines it, from project() */
#endif

/* What the JSON's test_info says of the run beside @bc and the run. */
struct bench_test_info {
	const char *device;
	uint8_t port;
	const char *link_layer; /* "Ethernet", "InfiniBand" */
	uint32_t path_mtu;	/* bytes */
	int gid_index;		/* -1: none */
	const char *gid_type;	/* "RoCE v2", "IB", ... */
	const char *transport;
	time_t started; /* written in UTC */
	/* --report-counters: the port's counters before and after the run. */
	const struct port_counters *counters_before;
	const struct port_counters *counters_after;
};

/*
 * The figures of the @count sizes measured, as JSON, into the file at
 * @path (--json); @complete is false when a size after them failed.
 */
int bench_write_json(const struct bench_config *bc, const char *path,
		     const struct bench_run *run,
		     const struct bench_test_info *info,
		     const struct bench_result *results, size_t count,
		     bool complete);

#endif
