// SPDX-License-Identifier: MIT
/* The server's clients: which one a QP is, and leaving one out. */
#include <err.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "serve_priv.h"

struct serve_client *serve_client_of(struct serve *s, uint32_t qp_num)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (s->clients[i].qp && s->clients[i].qp->qp_num == qp_num)
			return &s->clients[i];
	return NULL;
}

bool serve_client_closed(const struct serve_client *c)
{
	char byte;
	ssize_t n = recv(c->sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT);

	/* A reset (it died with our bytes unread) is a close too. */
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			  errno != EINTR);
}

void serve_drop(struct serve_client *c, int err, const char *why)
{
	if (c->failed)
		return;
	c->failed = err ? err : -EIO;
	warnx("client %u left out: %s (%s)", c->number, why, strerror(-err));
}

unsigned int serve_live(const struct serve *s)
{
	unsigned int i, live = 0;

	for (i = 0; i < s->count; i++)
		live += !s->clients[i].failed;
	return live;
}
