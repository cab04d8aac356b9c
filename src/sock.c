// SPDX-License-Identifier: MIT
/* The TCP side channel: connect, full-length I/O with timeouts, syncs. */
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/interrupt.h"
#include "sock.h"

/* Pause between connection attempts while the server is not up yet. */
#define CONNECT_RETRY_MS 200
/*
 * Longest one connect() to one address may take: an address that drops
 * SYNs (an IPv6 route that goes nowhere, say) must leave time for the
 * next one. 3 s lets a lost first SYN be sent again once.
 */
#define CONNECT_ATTEMPT_MS 3000

static int set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* Wait until @fd is ready for @events; -ETIMEDOUT at @deadline. */
static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	int n;

	do {
		n = interruptible_poll(&pfd, 1, ms_left(deadline));
	} while (n == -EINTR && !interrupted());
	if (n < 0)
		return n;
	return n == 0 ? -ETIMEDOUT : 0;
}

int sock_source_addr(const struct config *cfg, int family,
		     struct sockaddr_storage *addr, socklen_t *len)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)addr;
	struct sockaddr_in *in4 = (struct sockaddr_in *)addr;

	if (!cfg->source_ip)
		return 1;
	*addr = (struct sockaddr_storage){.ss_family = (sa_family_t)family};
	if (family == AF_INET &&
	    inet_pton(AF_INET, cfg->source_ip, &in4->sin_addr) == 1) {
		*len = sizeof(*in4);
		return 0;
	}
	if (family == AF_INET6 &&
	    inet_pton(AF_INET6, cfg->source_ip, &in6->sin6_addr) == 1) {
		*len = sizeof(*in6);
		return 0;
	}
	return -EAFNOSUPPORT;
}

/*
 * --source_ip: the connection leaves from that address. 0; -EAFNOSUPPORT
 * for an address of the server's in the other family (the caller tries
 * the next); another -errno after one line: the address is not this
 * host's, which no retry mends.
 */
static int bind_source(const struct config *cfg, int s, int family)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int ret = sock_source_addr(cfg, family, &addr, &len);

	if (ret)
		return ret > 0 ? 0 : ret;
	if (bind(s, (struct sockaddr *)&addr, len) == 0)
		return 0;
	ret = -errno;
	warnx("failed to bind the connection to --source_ip %s: %s",
	      cfg->source_ip, strerror(-ret));
	return ret == -EAFNOSUPPORT ? -EADDRNOTAVAIL : ret;
}

/* One non-blocking connect attempt to @ai, bounded by @deadline. */
static int try_connect(const struct config *cfg, const struct addrinfo *ai,
		       long long deadline, int *fd)
{
	socklen_t len = sizeof(int);
	int s, ret, so_error = 0;

	s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		   ai->ai_protocol);
	if (s < 0)
		return -errno;
	ret = set_nonblocking(s);
	if (!ret)
		ret = bind_source(cfg, s, ai->ai_family);
	if (ret)
		goto close_socket;
	if (connect(s, ai->ai_addr, ai->ai_addrlen) < 0) {
		ret = -errno;
		if (ret != -EINPROGRESS)
			goto close_socket;
		ret = wait_fd(s, POLLOUT, deadline);
		if (ret)
			goto close_socket;
		if (getsockopt(s, SOL_SOCKET, SO_ERROR, &so_error, &len) < 0)
			so_error = errno;
		ret = -so_error;
		if (ret)
			goto close_socket;
	}
	*fd = s;
	return 0;
close_socket:
	close(s);
	return ret;
}

/* Client: try every address of @server until one answers or time is up. */
static int connect_to_server(const struct config *cfg, int *fd)
{
	const struct addrinfo hints = {.ai_family = AF_UNSPEC,
				       .ai_socktype = SOCK_STREAM};
	long long deadline = now_ms() + config_connect_timeout_ms(cfg);
	uint16_t port = config_sock_port(cfg);
	char service[8];
	int ret = -ETIMEDOUT;
	bool refused = false;

	snprintf(service, sizeof(service), "%u", port);
	do {
		struct addrinfo *list, *ai;
		int gai = getaddrinfo(cfg->server_name, service, &hints, &list);

		if (gai) {
			warnx("failed to resolve server %s: %s",
			      cfg->server_name, gai_strerror(gai));
			return -EHOSTUNREACH;
		}
		for (ai = list; ai; ai = ai->ai_next) {
			ret = try_connect(
				cfg, ai,
				deadline_within(deadline, CONNECT_ATTEMPT_MS),
				fd);
			if (!ret || ret == -EADDRNOTAVAIL)
				break;
			refused = refused || ret == -ECONNREFUSED;
		}
		freeaddrinfo(list);
		if (!ret)
			return 0;
		/* --source_ip is not this host's, or no address matches it */
		if (ret == -EADDRNOTAVAIL)
			return ret;
		if (ret == -EAFNOSUPPORT) {
			warnx("failed to connect to %s from --source_ip %s: the server has no address of its family",
			      cfg->server_name, cfg->source_ip);
			return ret;
		}
		if (ret == -EINTR)
			break;
		if (ms_left(deadline) > 0)
			interruptible_poll(NULL, 0, CONNECT_RETRY_MS);
	} while (ms_left(deadline) > 0 && !interrupted());
	if (interrupted())
		ret = -EINTR;
	/*
	 * What every attempt saw decides, not the last one alone: that one
	 * may be cut short by the deadline (ETIMEDOUT) on a slow machine,
	 * after earlier ones were refused. A refusal is an answer: the host
	 * is there and nothing listens on the port.
	 */
	if (ret == -ETIMEDOUT && refused)
		ret = -ECONNREFUSED;
	if (ret == -EINTR)
		warnx("failed to connect to %s port %u: %s", cfg->server_name,
		      port, strerror(EINTR));
	else
		warnx("failed to connect to %s port %u within %d s: %s",
		      cfg->server_name, port, cfg->connect_timeout_sec,
		      strerror(-ret));
	return ret;
}

/* Server: a listening socket on @ai; IPv6 sockets also take IPv4 clients. */
static int listen_on(const struct addrinfo *ai, int backlog, int *fd)
{
	int on = 1, off = 0, s, ret;

	s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		   ai->ai_protocol);
	if (s < 0)
		return -errno;
	/* SO_REUSEADDR: a rerun may bind while the last one is in TIME_WAIT */
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
	    (ai->ai_family == AF_INET6 &&
	     setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0) ||
	    bind(s, ai->ai_addr, ai->ai_addrlen) < 0 ||
	    listen(s, backlog) < 0 || set_nonblocking(s) < 0) {
		ret = -errno;
		close(s);
		return ret;
	}
	*fd = s;
	return 0;
}

/* Prefer one dual-stack IPv6 socket; fall back to IPv4 only. */
static int open_listener(const struct config *cfg, int backlog, int *fd)
{
	const struct addrinfo hints = {.ai_family = AF_UNSPEC,
				       .ai_socktype = SOCK_STREAM,
				       .ai_flags = AI_PASSIVE};
	static const int families[] = {AF_INET6, AF_INET};
	uint16_t port = config_sock_port(cfg);
	struct addrinfo *list, *ai;
	char service[8];
	int gai, ret = -EAFNOSUPPORT;
	size_t i;

	snprintf(service, sizeof(service), "%u", port);
	gai = getaddrinfo(NULL, service, &hints, &list);
	if (gai) {
		warnx("failed to resolve local port %u: %s", port,
		      gai_strerror(gai));
		return -EADDRNOTAVAIL;
	}
	/*
	 * IPv6 first (dual stack: it takes IPv4 clients too), IPv4 only if
	 * this host has no IPv6. A port another program holds is that, in
	 * either family: falling back would listen where no client comes.
	 */
	for (i = 0; i < 2 && ret && ret != -EADDRINUSE; i++)
		for (ai = list; ai && ret && ret != -EADDRINUSE;
		     ai = ai->ai_next)
			if (ai->ai_family == families[i])
				ret = listen_on(ai, backlog, fd);
	freeaddrinfo(list);
	if (ret == -EADDRINUSE)
		warnx("failed to listen on TCP port %u: %s: another program holds it (ss -ltnp 'sport = :%u' names it)",
		      port, strerror(-ret), port);
	else if (ret)
		warnx("failed to listen on TCP port %u: %s", port,
		      strerror(-ret));
	return ret;
}

/*
 * accept(2) errors that concern one connection, not the listener: the
 * client gave up between poll() and accept() (ECONNABORTED, or EAGAIN once
 * it is gone), or the network failed under it. Linux passes these on from
 * accept(), and its man page asks callers to retry.
 */
static bool accept_error_is_transient(int err)
{
	switch (err) {
	case EAGAIN:
	case ECONNABORTED:
	case EPROTO:
	case ENETDOWN:
	case ENETUNREACH:
	case EHOSTDOWN:
	case EHOSTUNREACH:
	case ENONET:
	case ENOPROTOOPT:
	case EOPNOTSUPP:
		return true;
	default:
		return false;
	}
}

/* Accept one client on the non-blocking @listener before @deadline. */
static int accept_until(int listener, long long deadline, int *fd)
{
	int s, ret;

	for (;;) {
		ret = wait_fd(listener, POLLIN, deadline);
		if (ret)
			return ret;
		s = accept(listener, NULL, NULL);
		if (s < 0) {
			if (accept_error_is_transient(errno))
				continue; /* that client is gone: wait on */
			return -errno;
		}
		/* accept() gives neither flag to the new socket */
		if (fcntl(s, F_SETFD, FD_CLOEXEC) < 0 ||
		    set_nonblocking(s) < 0) {
			ret = -errno;
			close(s);
			return ret;
		}
		*fd = s;
		return 0;
	}
}

int sock_listen(const struct config *cfg, int backlog, int *listener)
{
	int ret = open_listener(cfg, backlog, listener);

	if (ret)
		return ret;
	printf("waiting on port %u for TCP connection\n",
	       config_sock_port(cfg));
	fflush(stdout);
	return 0;
}

int sock_accept(const struct config *cfg, int listener, long long deadline,
		int *fd)
{
	uint16_t port = config_sock_port(cfg);
	int ret = accept_until(listener, deadline, fd);

	if (ret == -EINTR)
		warnx("failed to accept a client on port %u: %s", port,
		      strerror(EINTR));
	else if (ret)
		warnx("failed to accept a client on port %u within %d s: %s",
		      port, cfg->accept_timeout_sec, strerror(-ret));
	return ret;
}

static int accept_client(const struct config *cfg, int *fd)
{
	long long deadline = now_ms() + config_accept_timeout_ms(cfg);
	int listener = -1, ret;

	ret = sock_listen(cfg, 1, &listener);
	if (ret)
		return ret;
	ret = sock_accept(cfg, listener, deadline, fd);
	close(listener);
	return ret;
}

int sock_connect(const struct config *cfg, int *fd)
{
	int ret;

	if (cfg->server_name)
		ret = connect_to_server(cfg, fd);
	else
		ret = accept_client(cfg, fd);
	if (!ret)
		printf("TCP connection was established\n");
	return ret;
}

/* Write all @len bytes, or say how far it got. */
static int write_full(int fd, const void *buf, size_t len, long long deadline)
{
	const char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, p + done, len - done, MSG_NOSIGNAL);
		int ret;

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			ret = wait_fd(fd, POLLOUT, deadline);
		} else if (n < 0) {
			ret = -errno;
		} else {
			done += (size_t)n;
			continue;
		}
		if (ret) {
			warnx("failed to send to the peer after %zu of %zu bytes: %s",
			      done, len, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * Read exactly @len bytes, or say how far it got and why it stopped. @before
 * and @total place these bytes in a larger message, for the report.
 */
static int read_part(int fd, void *buf, size_t len, size_t before, size_t total,
		     long long deadline)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = recv(fd, p + done, len - done, 0);
		int ret;

		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			warnx("failed to receive from the peer after %zu of %zu bytes: %s; the peer closed its connection: it ended or failed, and its own output says why",
			      before + done, total, strerror(ECONNRESET));
			return -ECONNRESET;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			ret = wait_fd(fd, POLLIN, deadline);
		} else if (n < 0) {
			ret = -errno;
		} else {
			done += (size_t)n;
			continue;
		}
		if (ret) {
			warnx("failed to receive from the peer after %zu of %zu bytes: %s",
			      before + done, total, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len, long long deadline)
{
	return read_part(fd, buf, len, 0, len, deadline);
}

int sock_sync_data(int fd, const void *local, void *remote, size_t len,
		   int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	int ret;

	ret = write_full(fd, local, len, deadline);
	if (ret)
		return ret;
	return read_full(fd, remote, len, deadline);
}

/*
 * The byte of sock_sync, and the one a peer sends in its place to end the
 * run: SOCK_END, then a length byte and that many bytes of why.
 */
#define SOCK_SYNC 'Q'
#define SOCK_END  'E'

/* The peer sent SOCK_END: read its reason and say it; -ECANCELED. */
static int heard_end(int fd, long long deadline)
{
	char why[UINT8_MAX + 1] = "";
	uint8_t len = 0;

	if (!read_full(fd, &len, 1, deadline) &&
	    !read_full(fd, why, len, deadline))
		why[len] = '\0';
	warnx("the peer ended the run: %s (%s)", why[0] ? why : "no reason",
	      strerror(ECANCELED));
	return -ECANCELED;
}

int sock_sync(int fd, int timeout_ms)
{
	return sock_sync_token(fd, SOCK_SYNC, timeout_ms);
}

int sock_sync_token(int fd, char mine, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	char theirs = 0;
	int ret;

	ret = sock_sync_data(fd, &mine, &theirs, 1, timeout_ms);
	if (!ret && theirs == SOCK_END)
		return heard_end(fd, deadline);
	if (!ret && theirs != mine) {
		warnx("failed to sync with the peer: %s (got 0x%02x)",
		      strerror(EPROTO), (unsigned char)theirs);
		ret = -EPROTO;
	}
	return ret;
}

int sock_send_end(int fd, const char *why, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	size_t len = strnlen(why, UINT8_MAX);
	char msg[2 + UINT8_MAX], byte;
	ssize_t n;
	int ret;

	msg[0] = SOCK_END;
	msg[1] = (char)len;
	memcpy(msg + 2, why, len);
	ret = write_full(fd, msg, 2 + len, deadline);
	if (ret)
		return ret;
	/*
	 * Nothing more from us; then read what the peer sends until it
	 * closes: a socket closed with bytes unread resets the connection,
	 * and the reset could reach the peer before it read why.
	 */
	shutdown(fd, SHUT_WR);
	for (;;) {
		n = recv(fd, &byte, 1, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return 0;
		if (n < 0 && wait_fd(fd, POLLIN, deadline))
			return 0; /* it did not close in time: no matter */
	}
}

int sock_exchange_qp_info(int fd, const struct qp_info *local,
			  struct qp_info *remote, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	uint8_t out[QP_INFO_WIRE_SIZE], in[QP_INFO_WIRE_SIZE];
	const char *why = NULL;
	int ret;

	qp_info_encode(local, out);
	ret = write_full(fd, out, sizeof(out), deadline);
	if (ret)
		return ret;
	/* The header first: a peer of another version is refused by it. */
	ret = read_part(fd, in, QP_INFO_HEADER_SIZE, 0, sizeof(in), deadline);
	if (ret)
		return ret;
	ret = qp_info_decode_header(in, QP_INFO_HEADER_SIZE, &why);
	if (!ret)
		ret = read_part(fd, in + QP_INFO_HEADER_SIZE, QP_INFO_BODY_SIZE,
				QP_INFO_HEADER_SIZE, sizeof(in), deadline);
	if (!ret)
		ret = qp_info_decode(in, sizeof(in), remote, &why);
	if (ret && why)
		warnx("failed to accept the peer's QP info: %s (%s)", why,
		      strerror(-ret));
	return ret;
}
