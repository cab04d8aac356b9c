// SPDX-License-Identifier: MIT
/*
 * Numbers traded with the peer over the pair's TCP connection: what the
 * path check found, what the ports' counters moved. A file of its own,
 * so that the pair's checks and the path check both call it and not each
 * other.
 */
#include <errno.h>

#include "check_priv.h"
#include "common/wire.h"
#include "sock.h"

int check_trade(const struct pair *p, const uint64_t *mine, uint64_t *theirs,
		size_t n, int timeout_ms)
{
	uint8_t out[CHECK_TRADE_MAX * 8] = {0}, in[CHECK_TRADE_MAX * 8];
	size_t i;
	int ret;

	if (n > CHECK_TRADE_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		put_u64(out + 8 * i, mine[i]);
	ret = sock_sync_data(p->sock, out, in, 8 * n, timeout_ms);
	for (i = 0; !ret && i < n; i++)
		theirs[i] = get_u64(in + 8 * i);
	return ret;
}
