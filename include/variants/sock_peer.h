/* SPDX-License-Identifier: MIT */
/*
 * Who is at the other end of a TCP connection: for the server of several
 * clients (src/serve) and RDMA_CM's syncs (src/cm).
 */
#ifndef VARIANTS_SOCK_PEER_H
#define VARIANTS_SOCK_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* @fd's peer's IP address (getpeername) in words, into @buf. */
void sock_peer_name(int fd, char *buf, size_t len);

/* The TCP port of @fd's own end (getsockname), or 0 if unknown. */
uint16_t sock_local_port(int fd);

/*
 * True if @fd's peer (getpeername) is at IP address @addr (port aside),
 * an IPv4 address matching its IPv4-mapped IPv6 form, and at port @port.
 */
bool sock_peer_is(int fd, const struct sockaddr *addr, uint16_t port);

#endif
