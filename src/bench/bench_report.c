// SPDX-License-Identifier: MIT
/* The perftest-style table on stdout, and the same figures as JSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench_priv.h"
#include "json.h"

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

static void write_result(FILE *f, const struct bench_config *bc,
			 const struct bench_result *r)
{
	if (bc->mode == BENCH_LAT)
		fprintf(f,
			"{\"bytes\": %u, \"iterations\": %u, \"t_min\": %.3f, \"t_max\": %.3f, \"t_typical\": %.3f, \"t_avg\": %.3f, \"t_stdev\": %.3f, \"p99\": %.3f, \"p99_9\": %.3f}",
			r->size, r->iters, r->lat.t_min, r->lat.t_max,
			r->lat.t_typical, r->lat.t_avg, r->lat.t_stdev,
			r->lat.p99, r->lat.p99_9);
	else
		fprintf(f,
			"{\"bytes\": %u, \"iterations\": %u, \"bw_peak\": %.3f, \"bw_avg\": %.3f, \"msg_rate\": %.6f}",
			r->size, r->iters,
			bw_in_unit(bc, r->bw.peak_bytes_per_sec),
			bw_in_unit(bc, r->bw.avg_bytes_per_sec),
			r->bw.msg_rate_mpps);
}

int bench_write_json(const struct bench_config *bc, const char *path,
		     const struct bench_run *run, const char *device,
		     const struct bench_result *results, size_t count)
{
	FILE *f = fopen(path, "w");
	size_t i;
	int ret;

	if (!f) {
		ret = -errno;
		fprintf(stderr, "failed to open JSON file %s: %s\n", path,
			strerror(-ret));
		return ret;
	}
	fprintf(f, "{\"mode\": \"%s\", \"op\": \"%s\", \"device\": ",
		bench_mode_name(bc->mode), bench_op_name(bc->op));
	json_write_string(f, device);
	if (bc->mode == BENCH_LAT)
		fprintf(f, ", \"unit\": \"usec\"");
	else
		fprintf(f, ", \"unit\": \"%s\"", bw_unit(bc));
	/* the signalling the loops used: READ and atomic latency, every one */
	fprintf(f, ", \"tx_depth\": %u, \"cq_mod\": %u, \"results\": [",
		bc->tx_depth, run->signal_every);
	for (i = 0; i < count; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		write_result(f, bc, &results[i]);
	}
	fputs("\n]}\n", f);
	ret = ferror(f) ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "failed to write JSON file %s: %s\n", path,
			strerror(-ret));
	return ret;
}
