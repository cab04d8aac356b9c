// SPDX-License-Identifier: MIT
/* The perftest-style table on stdout, and the same figures as JSON. */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_config.h"
#include "extras/port_counters.h"
#include "bench_report.h"
#include "bench_run.h"
#include "bench_stats.h"
#include "bench_wait.h"
#include "extras/json.h"

#define BYTES_PER_MIB	1048576.0
#define BYTES_PER_GBIT	125000000.0 /* 10^9 bits */
#define SEPARATOR_WIDTH 100

static double bw_in_unit(const struct bench_config *bc, double bytes_per_sec)
{
	return bytes_per_sec / (bc->gbps ? BYTES_PER_GBIT : BYTES_PER_MIB);
}

static const char *bw_unit(const struct bench_config *bc)
{
	return bc->gbps ? "Gb/sec" : "MiB/sec";
}

static void print_separator(FILE *out)
{
	int i;

	for (i = 0; i < SEPARATOR_WIDTH; i++)
		fputc('-', out);
	fputc('\n', out);
}

void bench_print_header(const struct bench_config *bc, FILE *out)
{
	if (bc->output != BENCH_OUTPUT_TABLE)
		return;
	print_separator(out);
	if (bc->mode == BENCH_LAT && bc->duration) /* -D: as perftest's */
		fputs(" #bytes #iterations t_avg[usec]", out);
	else if (bc->mode == BENCH_LAT)
		fprintf(out,
			" #bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99%% percentile[usec] 99.9%% percentile[usec]");
	else
		fprintf(out,
			" #bytes #iterations BW peak[%s] BW average[%s] MsgRate[Mpps]",
			bw_unit(bc), bw_unit(bc));
	if (bc->cpu_util)
		fputs(" CPU_client[%] CPU_server[%]", out);
	fputc('\n', out);
}

/* A CPU share for the table: "-" where it is not known. */
static void print_cpu(double share, FILE *out)
{
	if (isfinite(share))
		fprintf(out, " %-13.1f", share);
	else
		fprintf(out, " %-13s", "-");
}

/* -H: the buckets, from the smallest sample's to the largest's, and bars. */
#define HIST_BAR_WIDTH 40

static void print_histogram(const struct lat_histogram *h, FILE *out)
{
	uint64_t most = 0;
	unsigned int i;

	for (i = 0; i < h->count; i++)
		if (h->counts[i] > most)
			most = h->counts[i];
	fprintf(out, " histogram of the %llu samples [usec, from..to]: count\n",
		(unsigned long long)h->samples);
	for (i = 0; i < h->count; i++) {
		unsigned int k = h->first + i;
		int bar = most ? (int)((h->counts[i] * HIST_BAR_WIDTH + most -
					1) /
				       most)
			       : 0;

		fprintf(out, "   %10.3f .. %-10.3f %9llu %.*s\n",
			lat_bucket_start_us(k), lat_bucket_start_us(k + 1),
			(unsigned long long)h->counts[i], bar,
			"########################################");
	}
}

/* -b: both directions together, as perftest's -b reports them. */
static struct bw_stats both_ways(const struct bench_result *r)
{
	return (struct bw_stats){
		.peak_bytes_per_sec = r->bw.peak_bytes_per_sec +
				      r->bw_back.peak_bytes_per_sec,
		.avg_bytes_per_sec =
			r->bw.avg_bytes_per_sec + r->bw_back.avg_bytes_per_sec,
		.msg_rate_mpps = r->bw.msg_rate_mpps + r->bw_back.msg_rate_mpps,
	};
}

/* The figures of the row: -b's sum, or the one direction measured. */
static struct bw_stats row_bw(const struct bench_config *bc,
			      const struct bench_result *r)
{
	return bc->bidir ? both_ways(r) : r->bw;
}

/*
 * -q: a line for each QP, this side's direction. Over -n each QP's
 * bandwidth is over its own time, from its first post to its last
 * completion, so they add up to at least the row's; over -D they share
 * the row's window and add up to it.
 */
static void print_per_qp(const struct bench_config *bc,
			 const struct bench_result *r, FILE *out)
{
	unsigned int k;

	for (k = 0; k < r->qps; k++) {
		const struct bench_qp_result *q = &r->per_qp[k];

		fprintf(out,
			"   QP 0x%06x: %" PRIu64
			" messages, BW average %.2f %s, MsgRate %.6f Mpps\n",
			q->qp_num, q->messages,
			bw_in_unit(bc, q->bw.avg_bytes_per_sec), bw_unit(bc),
			q->bw.msg_rate_mpps);
	}
}

/*
 * --output: the one figure asked for, alone on its line, as perftest's
 * --output prints it: the average bandwidth (in --report_gbits' unit),
 * the message rate in Mpps, or the average latency in usec.
 */
static void print_number(const struct bench_config *bc,
			 const struct bench_result *r, FILE *out)
{
	struct bw_stats bw = row_bw(bc, r);

	if (bc->output == BENCH_OUTPUT_LATENCY)
		fprintf(out, "%.2f\n", r->lat.t_avg);
	else if (bc->output == BENCH_OUTPUT_MESSAGE_RATE)
		fprintf(out, "%.6f\n", bw.msg_rate_mpps);
	else
		fprintf(out, "%.2f\n", bw_in_unit(bc, bw.avg_bytes_per_sec));
	fflush(out);
}

void bench_print_result(const struct bench_config *bc,
			const struct bench_result *r, FILE *out)
{
	struct bw_stats bw = row_bw(bc, r);

	if (bc->output != BENCH_OUTPUT_TABLE) {
		print_number(bc, r, out);
		return;
	}

	if (bc->mode == BENCH_LAT && bc->duration)
		fprintf(out, " %-7u %-11" PRIu64 " %.2f", r->size, r->iters,
			r->lat.t_avg);
	else if (bc->mode == BENCH_LAT)
		fprintf(out,
			" %-7u %-11" PRIu64
			" %-11.2f %-11.2f %-15.2f %-11.2f %-13.2f %-20.2f %.2f",
			r->size, r->iters, r->lat.t_min, r->lat.t_max,
			r->lat.t_typical, r->lat.t_avg, r->lat.t_stdev,
			r->lat.p99, r->lat.p99_9);
	else if (isfinite(bw.peak_bytes_per_sec))
		fprintf(out, " %-7u %-11" PRIu64 " %-16.2f %-19.2f %.6f",
			r->size, r->iters,
			bw_in_unit(bc, bw.peak_bytes_per_sec),
			bw_in_unit(bc, bw.avg_bytes_per_sec), bw.msg_rate_mpps);
	else /* -D: no peak, as perftest's */
		fprintf(out, " %-7u %-11" PRIu64 " %-16s %-19.2f %.6f", r->size,
			r->iters, "-", bw_in_unit(bc, bw.avg_bytes_per_sec),
			bw.msg_rate_mpps);
	if (bc->cpu_util) {
		print_cpu(r->cpu_client, out);
		print_cpu(r->cpu_server, out);
	}
	fputc('\n', out);
	if (bc->bidir)
		fprintf(out,
			" each way: client to server %.2f, server to client %.2f %s (average; the row is their sum)\n",
			bw_in_unit(bc, r->bw.avg_bytes_per_sec),
			bw_in_unit(bc, r->bw_back.avg_bytes_per_sec),
			bw_unit(bc));
	print_per_qp(bc, r, out);
	if (bc->mode == BENCH_LAT && bc->histogram)
		print_histogram(&r->hist, out);
	fflush(out);
}

int bench_report_period(struct bench_run *run, uint64_t ns, uint64_t messages,
			FILE *out)
{
	struct bench_period *grown, *p;
	struct bench_result r = {
		.size = run->size,
		.iters = messages,
		.cpu_client = NAN,
		.cpu_server = NAN,
	};

	grown = realloc(run->periods,
			(run->period_count + 1) * sizeof(*run->periods));
	if (!grown) {
		warnx("failed to keep the report of period %zu: %s",
		      run->period_count + 1, strerror(ENOMEM));
		return -ENOMEM;
	}
	run->periods = grown;
	p = &run->periods[run->period_count++];
	*p = (struct bench_period){.seconds = (double)ns / 1e9,
				   .messages = messages};
	/* A period without a completion has its row, with 0 in it. */
	if (bw_timed_stats_compute(messages, ns, run->size, &p->bw))
		p->bw = (struct bw_stats){.peak_bytes_per_sec = NAN};
	r.seconds = p->seconds;
	r.bw = p->bw;
	bench_print_result(run->bc, &r, out);
	return 0;
}

/*
 * "key": value, with @decimals digits after the point; JSON has no NaN or
 * infinity, so a figure that is not finite is written as null.
 */
static void write_number(FILE *f, const char *key, double v, int decimals)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.*f", key, decimals, v);
	else
		fprintf(f, "\"%s\": null", key);
}

/*
 * ", "histogram": the samples, the buckets to a doubling, and each bucket
 * kept as [start_usec, end_usec, count].
 */
static void write_histogram(FILE *f, const struct lat_histogram *h)
{
	unsigned int i;

	fprintf(f,
		", \"histogram\": {\"samples\": %llu, \"buckets_per_octave\": %d, \"buckets\": [",
		(unsigned long long)h->samples, BENCH_HIST_PER_OCTAVE);
	for (i = 0; i < h->count; i++)
		fprintf(f, "%s[%.4f, %.4f, %llu]", i ? ", " : "",
			lat_bucket_start_us(h->first + i),
			lat_bucket_start_us(h->first + i + 1),
			(unsigned long long)h->counts[i]);
	fputs("]}", f);
}

/* The three bandwidth figures, after ", " unless @first. */
static void write_bw(FILE *f, const struct bench_config *bc, struct bw_stats bw,
		     bool first)
{
	fputs(first ? "" : ", ", f);
	write_number(f, "bw_peak", bw_in_unit(bc, bw.peak_bytes_per_sec), 3);
	fputs(", ", f);
	write_number(f, "bw_avg", bw_in_unit(bc, bw.avg_bytes_per_sec), 3);
	fputs(", ", f);
	write_number(f, "msg_rate", bw.msg_rate_mpps, 6);
}

/* -q: ", "per_qp": [{"qp_num": N, "messages": N, bw_*, msg_rate}, ...]. */
static void write_per_qp(FILE *f, const struct bench_config *bc,
			 const struct bench_result *r)
{
	unsigned int k;

	if (!r->qps)
		return;
	fputs(", \"per_qp\": [", f);
	for (k = 0; k < r->qps; k++) {
		fprintf(f, "%s{\"qp_num\": %u, \"messages\": %" PRIu64 ", ",
			k ? ", " : "", r->per_qp[k].qp_num,
			r->per_qp[k].messages);
		write_bw(f, bc, r->per_qp[k].bw, true);
		fputc('}', f);
	}
	fputc(']', f);
}

/* --run_infinitely: ", "periods": [{"seconds": S, "iterations": N, ...}]". */
static void write_periods(FILE *f, const struct bench_config *bc,
			  const struct bench_result *r)
{
	size_t i;

	if (!bc->infinite)
		return;
	fputs(", \"periods\": [", f);
	for (i = 0; i < r->period_count; i++) {
		const struct bench_period *p = &r->periods[i];

		fputs(i ? ", {" : "{", f);
		write_number(f, "seconds", p->seconds, 3);
		fprintf(f, ", \"iterations\": %" PRIu64, p->messages);
		write_bw(f, bc, p->bw, false);
		fputc('}', f);
	}
	fputc(']', f);
}

static void write_result(FILE *f, const struct bench_config *bc,
			 const struct bench_result *r)
{
	fprintf(f, "{\"bytes\": %u, \"iterations\": %" PRIu64, r->size,
		r->iters);
	if (bc->duration) {
		fputs(", ", f);
		write_number(f, "seconds", r->seconds, 3);
	}
	if (bc->mode == BENCH_LAT) {
		const struct lat_stats *l = &r->lat;
		const char *keys[] = {"t_min",	 "t_max", "t_typical", "t_avg",
				      "t_stdev", "p99",	  "p99_9"};
		const double values[] = {l->t_min, l->t_max,   l->t_typical,
					 l->t_avg, l->t_stdev, l->p99,
					 l->p99_9};
		size_t i;

		for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
			fputs(", ", f);
			write_number(f, keys[i], values[i], 3);
		}
	} else {
		write_bw(f, bc, row_bw(bc, r), false);
		if (bc->bidir) {
			fputs(", \"directions\": {\"client_to_server\": {", f);
			write_bw(f, bc, r->bw, true);
			fputs("}, \"server_to_client\": {", f);
			write_bw(f, bc, r->bw_back, true);
			fputs("}}", f);
		}
	}
	write_per_qp(f, bc, r);
	write_periods(f, bc, r);
	fputs(", ", f);
	write_number(f, "cpu_client_percent", r->cpu_client, 1);
	fputs(", ", f);
	write_number(f, "cpu_server_percent", r->cpu_server, 1);
	if (bc->mode == BENCH_LAT && !bc->duration)
		write_histogram(f, &r->hist);
	fputc('}', f);
}

/* "key": "text", escaped. */
static void write_text(FILE *f, const char *key, const char *text)
{
	fprintf(f, "\"%s\": ", key);
	json_write_string(f, text);
}

/* The wait of the run: its name, spin and nap (null: none), and why. */
static void write_wait(FILE *f, const struct bench_run *run)
{
	char words[96];

	bench_wait_describe(run, words, sizeof(words));
	fputs("\"wait\": {", f);
	write_text(f, "name", bench_wait_name(run->wait_why));
	if (run->spin_ns == UINT64_MAX)
		fputs(", \"spin_us\": null", f);
	else
		fprintf(f, ", \"spin_us\": %llu",
			(unsigned long long)(run->spin_ns / 1000));
	if (run->nap_ns)
		fprintf(f, ", \"nap_us\": %llu",
			(unsigned long long)(run->nap_ns / 1000));
	else
		fputs(", \"nap_us\": null", f);
	fprintf(f, ", \"peer_on_this_host\": %s, ",
		run->peer_here ? "true" : "false");
	write_text(f, "peer_told_by", bench_peer_rule_name(run->peer_rule));
	fputs(", ", f);
	write_text(f, "words", words);
	fputs(", ", f);
	write_text(f, "reason", bench_wait_reason(run));
	fputc('}', f);
}

/* The "test_info" object: what ran, where, and how it waited. */
static void write_test_info(FILE *f, const struct bench_config *bc,
			    const struct bench_run *run,
			    const struct bench_test_info *info)
{
	char stamp[32] = "";
	struct tm tm;

	if (gmtime_r(&info->started, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fputs("\"test_info\": {", f);
	write_text(f, "program", BENCH_PROGRAM);
	fputs(", ", f);
	write_text(f, "version", BENCH_PROGRAM_VERSION);
	fputs(", ", f);
	write_text(f, "device", info->device);
	fprintf(f, ", \"port\": %u, ", info->port);
	write_text(f, "link_layer", info->link_layer);
	fprintf(f, ", \"path_mtu\": %u", info->path_mtu);
	if (info->gid_index >= 0)
		fprintf(f, ", \"gid_index\": %d, ", info->gid_index);
	else
		fputs(", \"gid_index\": null, ", f);
	write_text(f, "gid_type", info->gid_type);
	fputs(", ", f);
	write_text(f, "transport", info->transport);
	fprintf(f, ", \"tx_depth\": %u, \"cq_mod\": %u, \"max_inline\": %u, ",
		bc->tx_depth, run->signal_every, run->max_inline);
	write_wait(f, run);
	fputs(", ", f);
	write_text(f, "timestamp", stamp);
	fputc('}', f);
}

/*
 * ", "counters": the port's folder, each counter that moved and by how
 * much, and how often this side sent again (null: the port has none).
 */
static void write_counters(FILE *f, const struct bench_test_info *info)
{
	struct port_counter moved[PORT_COUNTERS_MAX];
	struct port_counters_loss loss;
	size_t i, n;

	fputs(", \"counters\": {", f);
	write_text(f, "port_dir", info->counters_before->port_dir);
	if (!info->counters_before->folders) {
		fputs(", \"moved\": null, \"resent\": null}", f);
		return;
	}
	n = port_counters_moved(info->counters_before, info->counters_after,
				moved, &loss);
	fputs(", \"moved\": {", f);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		json_write_string(f, moved[i].name);
		fprintf(f, ": %llu", (unsigned long long)moved[i].value);
	}
	fprintf(f, "}, \"resent\": %llu}", (unsigned long long)loss.resent);
}

int bench_write_json(const struct bench_config *bc, const char *path,
		     const struct bench_run *run,
		     const struct bench_test_info *info,
		     const struct bench_result *results, size_t count,
		     bool complete)
{
	FILE *f;
	size_t i;
	int ret = json_file_open(path, &f);

	if (ret)
		return ret;
	fprintf(f, "{\"schema_version\": %d, ", BENCH_JSON_SCHEMA_VERSION);
	fprintf(f, "\"mode\": \"%s\", \"op\": \"%s\", ",
		bench_mode_name(bc->mode), bench_op_name(bc->op));
	write_text(f, "device", info->device);
	fputs(", ", f);
	write_text(f, "unit", bc->mode == BENCH_LAT ? "usec" : bw_unit(bc));
	/* the signalling the loops used: READ and atomic latency, every one */
	fprintf(f, ", \"tx_depth\": %u, \"cq_mod\": %u, \"qps\": %u, ",
		bc->tx_depth, run->signal_every, run->qps);
	write_test_info(f, bc, run, info);
	if (info->counters_before && info->counters_after)
		write_counters(f, info);
	/* false: a size failed, and results holds the ones before it */
	fprintf(f, ", \"complete\": %s, \"results\": [",
		complete ? "true" : "false");
	for (i = 0; i < count; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		write_result(f, bc, &results[i]);
	}
	fputs("\n]}\n", f);
	return json_file_close(f, path);
}
