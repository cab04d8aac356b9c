// SPDX-License-Identifier: MIT
/*
 * perftest's options that rdma_bench does not offer, each with why: an
 * operator who types one from memory reads one line naming it as
 * perftest's, never "unknown option". docs/benchmark-mode.md has the whole
 * table, the offered ones too, and a test holds the two together.
 */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "bench_perftest.h"

static const struct {
	const char *name; /* the long name, without "--" */
	int letter;	  /* the short letter, 0: none */
	const char *why;
} not_offered[] = {
	{"report-cycles", 'C',
	 "latency is reported in microseconds, from the monotonic clock"},
	{"margin", 'f',
	 "-D's warm-up and drain are 2 s each, perftest's default"},
	{"mcg", 'g',
	 "multicast is rdma_mc_example's lesson (the GID index is -x, as in perftest)"},
	{"MGID", 'M',
	 "multicast is rdma_mc_example's lesson; rdma_bench measures RC"},
	{"hop_limit", 'L', "the GRH's hop limit is 64, perftest's default"},
	{"noPeak", 'N', "the peak comes from timestamps every run keeps"},
	{"dualport", 'O', "a run uses one port"},
	{"report-per-port", 0, "a run uses one port"},
	{"outs", 'o',
	 "READs and atomics in flight are as many as both devices allow"},
	{"report-unsorted", 'U',
	 "the samples are sorted for the percentiles, always"},
	{"limit_bw", 'w', "no pass/fail limits: bench.sh judges the figures"},
	{"limit_msgrate", 'y',
	 "no pass/fail limits: bench.sh judges the figures"},
	{"vector", 'X', "completions use vector 0"},
	{"com_rdma_cm", 'z',
	 "the QP info goes over TCP, or -R connects the QPs themselves"},
	{"report-counters", 'W',
	 "rdma_bench's --report-counters takes no list: it reports every counter that moved"},
	{"dlid", 0, "the LID comes from the QP-info exchange"},
	{"dont_xchg_versions", 0, "the QP-info exchange is always made"},
	{"force-link", 0, "the link layer is the port's"},
	{"inline_recv", 0, "no inline receive (an mlx5 feature)"},
	{"ipv6", 0,
	 "the GID is the one -x names, or the automatic choice (docs/options.md)"},
	{"latency_gap", 0, "latency iterations follow each other at once"},
	{"log_dci_streams", 0, "no DC transport (an mlx5 feature)"},
	{"log_active_dci_streams", 0, "no DC transport (an mlx5 feature)"},
	{"mmap", 0, "the buffer is ordinary memory"},
	{"mmap-offset", 0, "the buffer is ordinary memory"},
	{"mr_per_qp", 0, "-q's QPs share one memory region"},
	{"odp", 0, "no on-demand paging: the buffer is registered"},
	{"perform_warm_up", 0,
	 "-D has a warm-up of 2 s; -n runs measure every iteration, as perftest's default"},
	{"pkey_index", 0, "the P_Key index is 0"},
	{"recv_post_list", 0, "receives are posted in lists of up to 64"},
	{"retry_count", 0,
	 "the retry count is 6 (7 is 'for ever' on soft-RoCE; src/qp.c)"},
	{"use-srq", 0,
	 "the shared receive queue is rdma_lessons's lesson (--srq)"},
	{"use_hugepages", 0, "the buffer is ordinary memory"},
	{"wait_destroy", 0, "resources are destroyed as soon as the run ends"},
	{"disable_pcie_relaxed", 0, "relaxed ordering is never asked for"},
	{"aes_xts", 0, "no encryption (an mlx5 offload)"},
	{"encrypt_on_tx", 0, "no encryption (an mlx5 offload)"},
	{"sig_before", 0, "no encryption (an mlx5 offload)"},
	{"aes_block_size", 0, "no encryption (an mlx5 offload)"},
	{"data_enc_keys_number", 0, "no encryption (an mlx5 offload)"},
	{"kek_path", 0, "no encryption (an mlx5 offload)"},
	{"credentials_path", 0, "no encryption (an mlx5 offload)"},
	{"data_enc_key_app_path", 0, "no encryption (an mlx5 offload)"},
	{"burst_size", 0, "no rate limiter"},
	{"typical_pkt_size", 0, "no rate limiter"},
	{"rate_limit", 0, "no rate limiter"},
	{"rate_units", 0, "no rate limiter"},
	{"rate_limit_type", 0, "no rate limiter"},
};

int bench_refuse_perftest(const char *name, int letter, FILE *err)
{
	size_t i;

	for (i = 0; i < sizeof(not_offered) / sizeof(not_offered[0]); i++) {
		if (name[0] ? strcmp(name, not_offered[i].name) != 0
			    : letter != not_offered[i].letter)
			continue;
		if (not_offered[i].letter)
			fprintf(err,
				"%s: perftest's option -%c (--%s) is not offered: %s\n",
				BENCH_PROGRAM, not_offered[i].letter,
				not_offered[i].name, not_offered[i].why);
		else
			fprintf(err,
				"%s: perftest's option --%s is not offered: %s\n",
				BENCH_PROGRAM, not_offered[i].name,
				not_offered[i].why);
		return 1;
	}
	return 0;
}
