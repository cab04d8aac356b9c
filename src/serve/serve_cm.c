// SPDX-License-Identifier: MIT
/*
 * -R with --clients: RDMA_CM listens once, and each client's connect
 * request gets its QP, made on the device the first request came on. The
 * TCP connection for the syncs is the program's own, apart from RDMA_CM:
 * clients that start at once may reach the two listeners in different
 * orders, so each client names its TCP connection (its port) in the
 * request's private data, and the server pairs them by that.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "serve_priv.h"
#include "common/interrupt.h"
#include "sock.h"
#include "variants/sock_peer.h"

/* An early connection that is @c's: taken out of the list. */
static int early_sock_of(struct serve *s, const struct serve_client *c)
{
	const struct sockaddr *addr =
		(const struct sockaddr *)&c->conn.peer_addr;
	unsigned int i;
	int fd;

	for (i = 0; i < s->early_count; i++) {
		if (!sock_peer_is(s->early_socks[i], addr,
				  c->conn.remote.sync_port))
			continue;
		fd = s->early_socks[i];
		s->early_socks[i] = s->early_socks[--s->early_count];
		return fd;
	}
	return -1;
}

/*
 * Client @c's TCP connection: one accepted already, or the next ones
 * until it comes, keeping the others for their own requests.
 */
static int sock_of(struct serve *s, int listener, struct serve_client *c)
{
	long long deadline = now_ms() + config_accept_timeout_ms(s->cfg);
	int fd, ret;

	for (;;) {
		c->sock = early_sock_of(s, c);
		if (c->sock >= 0)
			return 0;
		ret = sock_accept(s->cfg, listener, deadline, &fd);
		if (ret)
			return ret;
		if (s->early_count == OPS_CLIENTS_MAX) {
			warnx("failed to keep a TCP connection for a later request: %u wait already (%s)",
			      s->early_count, strerror(EMFILE));
			close(fd);
			continue;
		}
		s->early_socks[s->early_count++] = fd;
	}
}

int serve_cm_take_client(struct serve *s, int listener, struct serve_client *c)
{
	int ret;

	ret = cm_next_client(&s->cm, s->cfg, &c->cm, &c->conn);
	if (ret == -ETIMEDOUT || ret == -EINTR) {
		/* no request came: no client */
		cm_close(&c->cm);
		return ret;
	}
	s->count++;
	if (!ret)
		ret = sock_of(s, listener, c);
	if (ret) {
		serve_drop(c, ret, "its connect request could not be taken");
		return ret == -EINTR || ret == -ETIMEDOUT ? ret : 0;
	}
	printf("client %u of %u: RDMA_CM connect request, and its TCP connection was established\n",
	       c->number, s->lessons->clients);
	/* The first client's QP is res->qp, made with the resources. */
	if (s->res.ctx)
		ret = resources_create_qp(&s->res, &c->qp);
	if (!ret)
		ret = cm_connect_client(&c->cm, &s->res, c->qp, s->cfg,
					s->sizes, c->sock, &c->conn);
	if (!c->qp && s->res.ctx)
		c->qp = s->res.qp;
	if (ret)
		serve_drop(c, ret, "its QP could not be connected");
	return 0;
}

void serve_cm_close(struct serve *s)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		cm_close(&s->clients[i].cm);
	for (i = 0; i < s->early_count; i++)
		close(s->early_socks[i]);
	s->early_count = 0;
	cm_close(&s->cm);
}
