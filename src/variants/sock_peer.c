// SPDX-License-Identifier: MIT
/* Who is at the other end of a TCP connection (see sock_peer.h). */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "variants/sock_peer.h"

void sock_peer_name(int fd, char *buf, size_t len)
{
	static const char mapped[] = "::ffff:";
	struct sockaddr_storage peer;
	socklen_t peer_len = sizeof(peer);
	char host[NI_MAXHOST];

	if (getpeername(fd, (struct sockaddr *)&peer, &peer_len) ||
	    getnameinfo((struct sockaddr *)&peer, peer_len, host, sizeof(host),
			NULL, 0, NI_NUMERICHOST)) {
		snprintf(buf, len, "an unknown address");
		return;
	}
	/* An IPv4 client of a dual-stack listener, as people write it. */
	if (!strncmp(host, mapped, sizeof(mapped) - 1) &&
	    strchr(host + sizeof(mapped) - 1, '.'))
		snprintf(buf, len, "%s", host + sizeof(mapped) - 1);
	else
		snprintf(buf, len, "%s", host);
}

uint16_t sock_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

/*
 * @sa's address as 16 bytes of IPv6 (an IPv4 one IPv4-mapped) and its
 * port: false if it is neither family.
 */
static bool ip_of(const struct sockaddr *sa, struct in6_addr *ip,
		  uint16_t *port)
{
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 =
			(const struct sockaddr_in6 *)sa;

		*ip = in6->sin6_addr;
		*port = ntohs(in6->sin6_port);
		return true;
	}
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		memset(ip, 0, sizeof(*ip));
		ip->s6_addr[10] = 0xff;
		ip->s6_addr[11] = 0xff;
		memcpy(&ip->s6_addr[12], &in->sin_addr, 4);
		*port = ntohs(in->sin_port);
		return true;
	}
	return false;
}

bool sock_peer_is(int fd, const struct sockaddr *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct in6_addr peer_ip, want_ip;
	uint16_t peer_port, ignored;

	if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return false;
	if (!ip_of((struct sockaddr *)&ss, &peer_ip, &peer_port) ||
	    !ip_of(addr, &want_ip, &ignored))
		return false;
	return peer_port == port &&
	       memcmp(&peer_ip, &want_ip, sizeof(peer_ip)) == 0;
}
