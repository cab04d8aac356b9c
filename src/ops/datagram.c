// SPDX-License-Identifier: MIT
/* UD's datagrams: the size limit of a send, the GRH in front of a receive. */
#include <err.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "datagram.h"
#include "common/grh.h"
#include "common/trace.h"

int ud_check_size(size_t len, enum ibv_mtu mtu)
{
	int limit = mtu_to_bytes(mtu);

	if (limit > 0 && len <= (size_t)limit)
		return 0;
	warnx("failed to send %zu bytes over UD: more than the path MTU of %d bytes: %s",
	      len, limit, strerror(EMSGSIZE));
	return -EMSGSIZE;
}

void ud_print_grh_source(const void *grh)
{
	union ibv_gid sgid;
	char text[INET6_ADDRSTRLEN];

	if (grh_source_gid(grh, &sgid) == GRH_HEADER_UNKNOWN) {
		printf("GRH source GID: unknown (no GRH, IPv6 or IPv4 header in the first 40 bytes)\n");
		return;
	}
	printf("GRH source GID: %s\n", gid_to_str(&sgid, text, sizeof(text)));
}
