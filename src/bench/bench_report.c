// SPDX-License-Identifier: MIT
/* The perftest-style table on stdout, and the same figures as JSON. */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_priv.h"
#include "common/json.h"

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
	print_separator(out);
	if (bc->mode == BENCH_LAT)
		fprintf(out,
			" #bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99%% percentile[usec] 99.9%% percentile[usec]\n");
	else
		fprintf(out,
			" #bytes #iterations BW peak[%s] BW average[%s] MsgRate[Mpps]\n",
			bw_unit(bc), bw_unit(bc));
}

void bench_print_result(const struct bench_config *bc,
			const struct bench_result *r, FILE *out)
{
	if (bc->mode == BENCH_LAT)
		fprintf(out,
			" %-7u %-11u %-11.2f %-11.2f %-15.2f %-11.2f %-13.2f %-20.2f %.2f\n",
			r->size, r->iters, r->lat.t_min, r->lat.t_max,
			r->lat.t_typical, r->lat.t_avg, r->lat.t_stdev,
			r->lat.p99, r->lat.p99_9);
	else
		fprintf(out, " %-7u %-11u %-16.2f %-19.2f %.6f\n", r->size,
			r->iters, bw_in_unit(bc, r->bw.peak_bytes_per_sec),
			bw_in_unit(bc, r->bw.avg_bytes_per_sec),
			r->bw.msg_rate_mpps);
	fflush(out);
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

static void write_result(FILE *f, const struct bench_config *bc,
			 const struct bench_result *r)
{
	fprintf(f, "{\"bytes\": %u, \"iterations\": %u", r->size, r->iters);
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
		fputs(", ", f);
		write_number(f, "bw_peak",
			     bw_in_unit(bc, r->bw.peak_bytes_per_sec), 3);
		fputs(", ", f);
		write_number(f, "bw_avg",
			     bw_in_unit(bc, r->bw.avg_bytes_per_sec), 3);
		fputs(", ", f);
		write_number(f, "msg_rate", r->bw.msg_rate_mpps, 6);
	}
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

int bench_write_json(const struct bench_config *bc, const char *path,
		     const struct bench_run *run,
		     const struct bench_test_info *info,
		     const struct bench_result *results, size_t count,
		     bool complete)
{
	FILE *f = fopen(path, "w");
	size_t i;
	int ret;

	if (!f) {
		ret = -errno;
		warnx("failed to open JSON file %s: %s", path, strerror(-ret));
		return ret;
	}
	fprintf(f, "{\"schema_version\": %d, ", BENCH_JSON_SCHEMA_VERSION);
	fprintf(f, "\"mode\": \"%s\", \"op\": \"%s\", ",
		bench_mode_name(bc->mode), bench_op_name(bc->op));
	write_text(f, "device", info->device);
	fputs(", ", f);
	write_text(f, "unit", bc->mode == BENCH_LAT ? "usec" : bw_unit(bc));
	/* the signalling the loops used: READ and atomic latency, every one */
	fprintf(f, ", \"tx_depth\": %u, \"cq_mod\": %u, ", bc->tx_depth,
		run->signal_every);
	write_test_info(f, bc, run, info);
	/* false: a size failed, and results holds the ones before it */
	fprintf(f, ", \"complete\": %s, \"results\": [",
		complete ? "true" : "false");
	for (i = 0; i < count; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		write_result(f, bc, &results[i]);
	}
	fputs("\n]}\n", f);
	ret = ferror(f) ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		warnx("failed to write JSON file %s: %s", path, strerror(-ret));
	return ret;
}
