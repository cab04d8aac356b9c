// SPDX-License-Identifier: MIT
/*
 * poll_completion with a timeout, on the completion channel: the RC
 * example's wait (cq_wait), which reads the CQ first, arms it, reads it
 * once more for what came in before the arming, and only then sleeps on
 * the channel's file descriptor, never past the deadline.
 */
#include "common/cq_wait.h"
#include "mc/mc_xfer.h"

#define MS_PER_S 1000

int mc_poll_completion(struct mc_resources *res, unsigned int timeout_s,
		       struct ibv_wc *wc)
{
	return cq_wait(res->cq, (int)(timeout_s * MS_PER_S), wc, NULL);
}
