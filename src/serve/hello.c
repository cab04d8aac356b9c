// SPDX-License-Identifier: MIT
/*
 * hello, the server's half: HELLO_MESSAGES rounds. In each, the server
 * gives every client its go (a sync), then takes one message from each
 * off the one CQ all their QPs complete into. A receive completion does
 * not say which client sent it, only on which QP it arrived (wc.qp_num):
 * with an SRQ the receive itself belongs to no QP at all. The server
 * polls the CQ itself, busy (also with -e).
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "serve_priv.h"
#include "completion.h"
#include "common/interrupt.h"
#include "sock.h"

/* The round's go to every client still served; how many got it. */
static unsigned int give_go(struct serve *s, bool heard[])
{
	unsigned int i, sent = 0;
	int ret;

	for (i = 0; i < s->count; i++) {
		struct serve_client *c = &s->clients[i];

		heard[i] = false;
		if (c->failed)
			continue;
		ret = sock_sync(c->sock, s->ctx_timeout_ms);
		if (ret)
			serve_drop(c, ret, "its go for the next message");
		else
			sent++;
	}
	return sent;
}

/* One message: whose QP it came on, and what it says. */
static int take_message(struct serve *s, const struct ibv_wc *wc, bool heard[])
{
	struct serve_client *c = serve_client_of(s, wc->qp_num);
	const char *text;

	if (wc->wr_id >= s->pool.slots) {
		warnx("failed to take a completion of wr_id %" PRIu64
		      ": no receive of ours has it",
		      wc->wr_id);
		return -EPROTO;
	}
	text = s->pool.bytes + (size_t)wc->wr_id * RC_MSG_SIZE;
	s->pool.posted--;
	s->pool.done[s->pool.done_count++] = (uint32_t)wc->wr_id;
	if (!c) {
		warnx("failed to tell whose message this is: QP 0x%06x is no client's",
		      wc->qp_num);
		return -EPROTO;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		char line[COMPLETION_LINE_MAX];

		completion_failure_line(line, sizeof(line), wc, NULL,
					IBV_WC_RECV);
		serve_drop(c, -EIO, line);
		return 0;
	}
	if (wc->opcode != IBV_WC_RECV) {
		warnx("failed to get a RECV completion: got %s wr_id %" PRIu64
		      ": %s",
		      wc_opcode_str(wc->opcode), wc->wr_id, strerror(EPROTO));
		return -EPROTO;
	}
	completion_trace(&s->res.trace, wc);
	heard[c->number - 1] = true;
	printf("client %u (QP 0x%06x): '%.*s'\n", c->number, wc->qp_num,
	       (int)strnlen(text, RC_MSG_SIZE), text);
	return 0;
}

/* Every client that had its go and sent nothing within -t is left out. */
static void drop_silent(struct serve *s, const bool heard[])
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (!s->clients[i].failed && !heard[i])
			serve_drop(&s->clients[i], -ETIMEDOUT,
				   "no message came from it");
}

/*
 * Mark in @closed every client that had its go, sent nothing yet and
 * closed its TCP connection. How many.
 */
static unsigned int find_closed(const struct serve *s, const bool heard[],
				bool closed[])
{
	unsigned int i, found = 0;

	for (i = 0; i < s->count; i++) {
		closed[i] = !s->clients[i].failed && !heard[i] &&
			    serve_client_closed(&s->clients[i]);
		found += closed[i];
	}
	return found;
}

/* Leave out the clients marked in @closed: the round waits no longer. */
static void drop_closed(struct serve *s, const bool closed[])
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (closed[i])
			serve_drop(
				&s->clients[i], -ECONNRESET,
				"it closed its TCP connection before its message came: it ended or was killed");
}

/*
 * The next completion, polled for until @until (ms): 0, -EAGAIN when
 * none came by then, -EINTR. Unlike the other waits it leaves the async
 * events queued, unread: the SRQ's limit event comes while these
 * completions do, and recv_pool_refill reads it.
 */
static int next_completion(struct serve *s, struct ibv_wc *wc, long long until)
{
	int n;

	while ((n = ibv_poll_cq(s->res.cq, 1, wc)) == 0) {
		if (interrupted())
			return -EINTR;
		if (now_ms() >= until)
			return -EAGAIN;
	}
	return n < 0 ? cq_poll_failed(n) : 0;
}

/*
 * One message from each client that had its go, within -t of the last
 * one. Every SERVE_LOOK_MS without a completion the sockets of those
 * still to send are looked at: a client that closed is left out at once,
 * not after -t. Its message, if it sent one, completed here before its
 * SEND completed there and so before it could close: the CQ is polled
 * once more after a close is seen, and only if it is empty are the
 * clients seen closed before that poll left out (one that closes after
 * it may have a message there, which the next poll takes).
 */
static int one_round(struct serve *s)
{
	bool heard[OPS_CLIENTS_MAX] = {false};
	unsigned int expected = give_go(s, heard), got = 0;
	long long deadline = now_ms() + s->ctx_timeout_ms;
	struct ibv_wc wc;
	int ret;

	while (got < expected) {
		long long look = now_ms() + SERVE_LOOK_MS;
		bool closed[OPS_CLIENTS_MAX] = {false};
		unsigned int gone = 0;

		ret = next_completion(s, &wc,
				      look < deadline ? look : deadline);
		if (ret == -EAGAIN) {
			gone = find_closed(s, heard, closed);
			if (gone)
				ret = next_completion(s, &wc, 0);
		}
		if (ret == -EAGAIN) {
			if (now_ms() >= deadline) {
				drop_silent(s, heard);
				return 0;
			}
			drop_closed(s, closed);
			expected -= gone;
			continue;
		}
		if (ret)
			return completion_wait_failed(ret, s->ctx_timeout_ms);
		ret = take_message(s, &wc, heard);
		if (ret)
			return ret;
		got++;
		deadline = now_ms() + s->ctx_timeout_ms;
	}
	return recv_pool_refill(s);
}

int serve_hello(struct serve *s)
{
	unsigned int round;
	int ret;

	for (round = 1; round <= HELLO_MESSAGES && serve_live(s); round++) {
		ret = one_round(s);
		if (ret)
			return ret;
	}
	return 0;
}
