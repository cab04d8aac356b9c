// SPDX-License-Identifier: MIT
/* Step 9 of the manual, second half: poll the CQ for a completion. */
#include <err.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "completion.h"
#include "common/cq_wait.h"

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

const char *wc_status_hint(enum ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_REM_ACCESS_ERR:
		return "the rkey or address range the peer sent does not grant this access";
	case IBV_WC_RETRY_EXC_ERR:
		return "no acknowledgement came back: no path to the peer's GID (check -g and the route; on RoCE, UDP port 4791 must be open), or the peer is gone";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return "the peer had no receive posted for it";
	case IBV_WC_WR_FLUSH_ERR:
		return "flushed: an earlier failure moved the QP to the error state";
	case IBV_WC_LOC_LEN_ERR:
		return "the message is longer than the buffer posted for it";
	case IBV_WC_REM_INV_REQ_ERR:
		return "the peer refused the request: longer than its receive buffer, or not allowed on its QP";
	case IBV_WC_LOC_PROT_ERR:
		return "the local buffer is not in a memory region of that lkey";
	default:
		return NULL;
	}
}

/* The operations whose work request names remote memory. */
static bool names_remote_memory(enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_RDMA_READ:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return true;
	default:
		return false;
	}
}

/* "RDMA_READ (wr_id 2, remote address 0x..., rkey 0x...)", from our record. */
static void name_work_request(char *buf, size_t len, const struct ibv_wc *wc,
			      const struct send_request *posted,
			      enum ibv_wc_opcode expected)
{
	if (posted && posted->wr_id != wc->wr_id)
		snprintf(
			buf, len,
			"wr_id %" PRIu64 " (not the %s wr_id %" PRIu64
			" just posted; the opcode of a failed completion is undefined)",
			wc->wr_id, wr_opcode_str(posted->opcode),
			posted->wr_id);
	else if (posted && names_remote_memory(posted->opcode))
		snprintf(buf, len,
			 "%s (wr_id %" PRIu64 ", remote address 0x%" PRIx64
			 ", rkey 0x%x)",
			 wr_opcode_str(posted->opcode), wc->wr_id,
			 posted->remote_addr, posted->rkey);
	else if (posted)
		snprintf(buf, len, "%s (wr_id %" PRIu64 ")",
			 wr_opcode_str(posted->opcode), wc->wr_id);
	else
		/* A receive, whichever operation of the peer's it was for. */
		snprintf(buf, len, "%s (wr_id %" PRIu64 ")",
			 expected == IBV_WC_RECV_RDMA_WITH_IMM
				 ? "RECV"
				 : wc_opcode_str(expected),
			 wc->wr_id);
}

void completion_failure_line(char *buf, size_t len, const struct ibv_wc *wc,
			     const struct send_request *posted,
			     enum ibv_wc_opcode expected)
{
	const char *hint = wc_status_hint(wc->status);
	char what[COMPLETION_LINE_MAX / 2];

	name_work_request(what, sizeof(what), wc, posted, expected);
	snprintf(
		buf, len,
		"failed completion of %s on QP 0x%06x: %s (vendor error 0x%x)%s%s",
		what, wc->qp_num, ibv_wc_status_str(wc->status), wc->vendor_err,
		hint ? "; " : "", hint ? hint : "");
}

int completion_wait_failed(int ret, int timeout_ms)
{
	if (ret == -ETIMEDOUT)
		warnx("failed to get a completion within %d ms: %s; %s",
		      timeout_ms, strerror(ETIMEDOUT), COMPLETION_TIMEOUT_HINT);
	if (ret == -ECONNRESET)
		warnx("failed to get a completion: %s; the peer closed its connection: it ended or failed, and its own output says why",
		      strerror(ECONNRESET));
	/* SIGINT or SIGTERM came in while waiting: the caller unwinds. */
	if (ret == -EINTR)
		warnx("failed to get a completion: %s", strerror(EINTR));
	return ret;
}

void completion_trace(const struct trace *tr, const struct ibv_wc *wc)
{
	trace_step(tr,
		   "polled completion: %s, wr_id %" PRIu64
		   ", status %s, %u bytes, QP 0x%06x",
		   wc_opcode_str(wc->opcode), wc->wr_id,
		   ibv_wc_status_str(wc->status), wc->byte_len, wc->qp_num);
}

/* Judge the completion that arrived: see poll_completion. */
static int check_completion(const struct ibv_wc *wc,
			    const struct send_request *posted,
			    enum ibv_wc_opcode expected, const struct trace *tr)
{
	char line[COMPLETION_LINE_MAX];

	if (wc->status != IBV_WC_SUCCESS) {
		completion_failure_line(line, sizeof(line), wc, posted,
					expected);
		warnx("%s", line);
		return status_errno(wc->status);
	}
	if (wc->opcode != expected) {
		warnx("failed to get a %s completion: got %s wr_id %" PRIu64
		      ": %s",
		      wc_opcode_str(expected), wc_opcode_str(wc->opcode),
		      wc->wr_id, strerror(EPROTO));
		return -EPROTO;
	}
	completion_trace(tr, wc);
	return 0;
}

bool completion_is_wanted(const struct ibv_wc *wc,
			  const struct send_request *posted,
			  enum ibv_wc_opcode expected)
{
	/* Receives carry the index of their slot as wr_id, sends their
	 * operation's number: the two may share a number. */
	bool received = wc->opcode & IBV_WC_RECV;

	if (posted)
		return !received && wc->wr_id == posted->wr_id;
	if (expected & IBV_WC_RECV)
		return received;
	return wc->opcode == expected;
}

bool completion_take(struct completion_shelf *shelf,
		     const struct send_request *posted,
		     enum ibv_wc_opcode expected, struct ibv_wc *wc)
{
	size_t i;

	for (i = 0; i < shelf->count; i++) {
		if (!completion_is_wanted(&shelf->wc[i], posted, expected))
			continue;
		*wc = shelf->wc[i];
		shelf->count--;
		memmove(&shelf->wc[i], &shelf->wc[i + 1],
			(shelf->count - i) * sizeof(shelf->wc[0]));
		return true;
	}
	return false;
}

int completion_keep(struct completion_shelf *shelf, const struct ibv_wc *wc)
{
	if (shelf->count == COMPLETION_SHELF_MAX)
		return -ENOSPC;
	shelf->wc[shelf->count++] = *wc;
	return 0;
}

/*
 * A completion just polled: 0 if it is the one waited for, or failed
 * (either is judged now); 1 once kept on the shelf for another wait;
 * -ENOSPC after a line if the shelf is full.
 */
static int keep_for_later(struct resources *res, const struct ibv_wc *wc,
			  const struct send_request *posted,
			  enum ibv_wc_opcode expected)
{
	if (wc->status != IBV_WC_SUCCESS ||
	    completion_is_wanted(wc, posted, expected))
		return 0;
	if (completion_keep(&res->shelf, wc)) {
		warnx("failed to keep the completion of %s wr_id %" PRIu64
		      " for a later wait: %d are kept already: %s",
		      wc_opcode_str(wc->opcode), wc->wr_id,
		      COMPLETION_SHELF_MAX, strerror(ENOSPC));
		return -ENOSPC;
	}
	trace_step(&res->trace,
		   "kept completion: %s, wr_id %" PRIu64
		   ", for the wait that wants it",
		   wc_opcode_str(wc->opcode), wc->wr_id);
	return 1;
}

int poll_completion(struct resources *res, int timeout_ms, int peer_sock,
		    const struct send_request *posted,
		    enum ibv_wc_opcode expected, struct ibv_wc *wc)
{
	struct cq_waiter wait;
	struct ibv_wc local;
	int n, ret;

	if (!wc)
		wc = &local;
	/* It may have come while another was waited for. */
	if (completion_take(&res->shelf, posted, expected, wc)) {
		trace_step(&res->trace,
			   "completion of wr_id %" PRIu64
			   " taken from the shelf",
			   wc->wr_id);
		return check_completion(wc, posted, expected, &res->trace);
	}
	/* Look at the CQ; while it is empty, wait as cq_wait_next says. */
	cq_wait_start(&wait, res->cq, res->sizes.events, timeout_ms, peer_sock,
		      &res->trace);
	while (!(ret = cq_wait_next(&wait))) {
		if (res->sizes.extended) /* --new-api: ibv_start_poll */
			n = res->sizes.extended->poll(res, wc);
		else
			n = ibv_poll_cq(res->cq, 1, wc);
		if (n < 0)
			return cq_poll_failed(n);
		if (n == 0)
			continue;
		ret = keep_for_later(res, wc, posted, expected);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return check_completion(wc, posted, expected,
						&res->trace);
		/* Progress: look again at once, and the bound starts over. */
		cq_wait_start(&wait, res->cq, res->sizes.events, timeout_ms,
			      peer_sock, &res->trace);
	}
	return completion_wait_failed(ret, timeout_ms);
}
