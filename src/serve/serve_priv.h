/* SPDX-License-Identifier: MIT */
/* Private to src/serve: the server for several clients, its receives. */
#ifndef SERVE_PRIV_H
#define SERVE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "cm/cm.h"
#include "config.h"
#include "ops/ops.h"
#include "ops/options.h"
#include "qp.h"
#include "resources.h"

/* One client: its TCP socket, the QP made for it, how it is doing. */
struct serve_client {
	unsigned int number; /* 1 to N, in the order they connected */
	int sock;
	struct ibv_qp *qp; /* the first client's is res->qp */
	struct connection conn;
	struct op_ctx ctx; /* what its operations see */
	struct cm cm;	   /* -R: its id, on an event channel of its own */
	int failed;	   /* 0, or how it ended early (-errno) */
};

/*
 * The receives hello's messages land in: slots of RC_MSG_SIZE bytes in
 * one registered region. With an SRQ, a fixed number of slots whatever the
 * clients; without, HELLO_MESSAGES slots for each client's QP.
 */
struct recv_pool {
	char *bytes;
	struct ibv_mr *mr;
	uint32_t slots;
	uint32_t posted; /* receives posted and not yet completed */
	uint32_t *done;	 /* slots whose receive completed, to post again */
	uint32_t done_count;
};

struct serve {
	const struct config *cfg;
	const struct lessons *lessons; /* the operations, --clients, --srq */
	const struct resources_sizes *sizes;
	struct resources res;
	struct cm cm; /* -R: the listening ids */
	/* -R: TCP connections accepted before their client's request came */
	int early_socks[OPS_CLIENTS_MAX];
	unsigned int early_count;
	struct serve_client clients[OPS_CLIENTS_MAX];
	unsigned int count; /* clients accepted */
	int ctx_timeout_ms; /* -t */
	struct recv_pool pool;
};

/*
 * The SRQ's limit: an event when fewer receives are left in it (of
 * RESOURCES_SRQ_WR). hello posts nothing again until then, and a round
 * takes one receive a client: a queue refilled at the limit never runs
 * dry.
 */
#define SERVE_SRQ_LIMIT ((unsigned int)OPS_CLIENTS_MAX)

/* hello: how often the round's wait looks for clients that closed. */
#define SERVE_LOOK_MS 100

/* The client whose QP has number @qp_num, or NULL. */
struct serve_client *serve_client_of(struct serve *s, uint32_t qp_num);

/*
 * True if client @c closed its TCP connection (it ended, or was killed):
 * a peek finds the end of the stream, or a reset. Bytes it sent ahead
 * stay unread.
 */
bool serve_client_closed(const struct serve_client *c);

/* Client @c ended early with @err: say so once, and leave it out. */
void serve_drop(struct serve_client *c, int err, const char *why);

/* The clients still being served. */
unsigned int serve_live(const struct serve *s);

/*
 * The receive pool for hello: register it, post every slot (to the SRQ,
 * or HELLO_MESSAGES to each client's QP), say what it costs, and with an
 * SRQ arm its limit. recv_pool_free undoes it.
 */
int recv_pool_create(struct serve *s);
int recv_pool_free(struct serve *s);

/*
 * After a round of hello: if the SRQ holds fewer receives than its limit,
 * wait for the device's IBV_EVENT_SRQ_LIMIT_REACHED, post the completed
 * slots again and arm the limit anew. Nothing to do without an SRQ.
 */
int recv_pool_refill(struct serve *s);

/*
 * -R: step 8 for client @c: its connect request, the TCP connection its
 * private data names, then its QP (the first client's on new resources,
 * on the request's device). 0 once it is in, connected or left out; or
 * why no client came. serve_cm_close closes every id and the listener.
 */
int serve_cm_take_client(struct serve *s, int listener, struct serve_client *c);
void serve_cm_close(struct serve *s);

/* hello, the server's half: HELLO_MESSAGES rounds, all clients at once. */
int serve_hello(struct serve *s);

#endif
