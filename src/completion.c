// SPDX-License-Identifier: MIT
/* Step 9 of the manual, second half: poll the CQ for a completion (poll_completion). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "completion.h"
#include "cq_wait.h"

/*
 * The errno a failed completion returns, for the statuses a user can act
 * on: the peer never acknowledged (no path), it had no receive posted, it
 * refused the access. Any other status is -EIO.
 */
static int status_errno(enum ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_RETRY_EXC_ERR:
		return -EHOSTUNREACH;
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return -EAGAIN;
	case IBV_WC_REM_ACCESS_ERR:
		return -EACCES;
	default:
		return -EIO;
	}
}

static int report_timeout(int timeout_ms)
{
	fprintf(stderr, "failed to get a completion within %d ms: %s\n",
		timeout_ms, strerror(ETIMEDOUT));
	return -ETIMEDOUT;
}

/* SIGINT or SIGTERM came in while waiting: stop, the caller unwinds. */
static int report_interrupted(void)
{
	fprintf(stderr, "failed to get a completion: %s\n", strerror(EINTR));
	return -EINTR;
}

int wait_completion(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc,
		    const struct trace *tr)
{
	int ret = cq_wait(cq, timeout_ms, wc, tr);

	if (ret == -ETIMEDOUT)
		return report_timeout(timeout_ms);
	if (ret == -EINTR)
		return report_interrupted();
	return ret;
}

int poll_completion(struct ibv_cq *cq, int timeout_ms,
		    enum ibv_wc_opcode expected, struct ibv_wc *wc,
		    const struct trace *tr)
{
	struct ibv_wc local;
	int ret;

	if (!wc)
		wc = &local;
	ret = wait_completion(cq, timeout_ms, wc, tr);
	if (ret)
		return ret;
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr,
			"failed completion of wr_id %" PRIu64
			" (opcode %s, undefined on error) on QP 0x%06x: %s (vendor error 0x%x)\n",
			wc->wr_id, wc_opcode_str(wc->opcode), wc->qp_num,
			ibv_wc_status_str(wc->status), wc->vendor_err);
		return status_errno(wc->status);
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
