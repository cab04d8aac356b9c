// SPDX-License-Identifier: MIT
/* Step 9 of the manual, second half: poll the CQ for a completion (poll_completion). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "completion.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Busy-poll until one completion arrives or @timeout_ms passes. */
static int wait_one(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc)
{
	long long deadline = now_ms() + timeout_ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0) {
			/* ibv_poll_cq returns a negative number, not an errno */
			fprintf(stderr,
				"failed to poll CQ: %s (ibv_poll_cq returned %d)\n",
				strerror(EIO), n);
			return -EIO;
		}
		if (n == 1)
			return 0;
	} while (now_ms() < deadline);
	fprintf(stderr, "failed to get a completion within %d ms: %s\n",
		timeout_ms, strerror(ETIMEDOUT));
	return -ETIMEDOUT;
}

int poll_completion(struct ibv_cq *cq, int timeout_ms,
		    enum ibv_wc_opcode expected, struct ibv_wc *wc,
		    const struct trace *tr)
{
	struct ibv_wc local;
	int ret;

	if (!wc)
		wc = &local;
	ret = wait_one(cq, timeout_ms, wc);
	if (ret)
		return ret;
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr,
			"failed completion of wr_id %" PRIu64
			" (opcode %s, undefined on error) on QP 0x%06x: %s (vendor error 0x%x)\n",
			wc->wr_id, wc_opcode_str(wc->opcode), wc->qp_num,
			ibv_wc_status_str(wc->status), wc->vendor_err);
		return -EIO;
	}
	if (wc->opcode != expected) {
		fprintf(stderr,
			"failed to get a %s completion: got %s wr_id %" PRIu64
			": %s\n",
			wc_opcode_str(expected), wc_opcode_str(wc->opcode),
			wc->wr_id, strerror(EPROTO));
		return -EPROTO;
	}
	trace_step(tr,
		   "polled completion: %s, wr_id %" PRIu64
		   ", status %s, %u bytes, QP 0x%06x",
		   wc_opcode_str(wc->opcode), wc->wr_id,
		   ibv_wc_status_str(wc->status), wc->byte_len, wc->qp_num);
	return 0;
}
