/* SPDX-License-Identifier: MIT */
#ifndef SOCK_H
#define SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "exchange.h"

/*
 * Client (cfg->server_name set): connect, retrying until
 * cfg->connect_timeout_sec. Server: listen and accept one client within
 * cfg->accept_timeout_sec. The port is config_sock_port's: -p, or with -R
 * the one after it. The connected socket goes to *@fd.
 */
int sock_connect(const struct config *cfg, int *fd);

/*
 * cfg->source_ip (--source_ip) as a socket address of @family, port 0,
 * into *@addr: 0; 1 if none was given; -EAFNOSUPPORT if it is of the
 * other family.
 */
int sock_source_addr(const struct config *cfg, int family,
		     struct sockaddr_storage *addr, socklen_t *len);

/*
 * The server's two halves of sock_connect, for a server that takes
 * several clients: listen on the port, with room for @backlog clients
 * waiting to be accepted, saying so; then accept one client at a time
 * before @deadline (now_ms() + a timeout). 0, or -errno after one line.
 */
int sock_listen(const struct config *cfg, int backlog, int *listener);
int sock_accept(const struct config *cfg, int listener, long long deadline,
		int *fd);

/* Send @len bytes of @local and read @len bytes into @remote, within
 * @timeout_ms for the whole exchange. */
int sock_sync_data(int fd, const void *local, void *remote, size_t len,
		   int timeout_ms);

/*
 * A one-byte sync: returns when both sides have reached it. A peer that
 * sent sock_send_end's notice instead: its reason in one line, and
 * -ECANCELED.
 */
int sock_sync(int fd, int timeout_ms);

/*
 * sock_sync with the byte @token, which the peer must send too: the
 * manual's program syncs with 'Q', 'R' and 'W' (--manual-peer).
 */
int sock_sync_token(int fd, char token, int timeout_ms);

/*
 * End the run for the peer, whose next sock_sync says @why (at most 255
 * bytes of it): send the notice, then read what the peer still sends
 * until it closes its end, within @timeout_ms. 0, or -errno after one line
 * if the notice could not be sent.
 */
int sock_send_end(int fd, const char *why, int timeout_ms);

/* Send our QP info and read the peer's: header first, checked, then body. */
int sock_exchange_qp_info(int fd, const struct qp_info *local,
			  struct qp_info *remote, int timeout_ms);

#endif
