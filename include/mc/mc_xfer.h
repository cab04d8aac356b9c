/* SPDX-License-Identifier: MIT */
/*
 * Moving the messages: post_receive / post_send on the UD QP,
 * waiting for their completions (cq_wait), and the sender's and receiver's
 * loops.
 */
#ifndef MC_XFER_H
#define MC_XFER_H

#include <stddef.h>
#include <infiniband/verbs.h>

#include "common/cq_wait.h"
#include "mc/mc_cm.h"
#include "mc/mc_config.h"
#include "mc/mc_resources.h"

int mc_post_receive(struct mc_resources *res, unsigned int slot);
/* Post a receive into every slot: before joining, so nothing is missed. */
int mc_post_receives(struct mc_resources *res, const struct mc_config *cfg);
int mc_post_send(struct mc_resources *res, const struct mc_group *group,
		 const struct mc_config *cfg);

/*
 * cfg->timeout_s in milliseconds: how long one wait for a completion
 * (cq_wait, as in the RC example) may take before it gives up.
 */
static inline int mc_timeout_ms(const struct mc_config *cfg)
{
	return (int)(cfg->timeout_s * 1000);
}

int mc_send_messages(struct mc_resources *res, const struct mc_group *group,
		     const struct mc_cm *cm, const struct mc_config *cfg);
int mc_receive_messages(struct mc_resources *res, const struct mc_config *cfg);

/*
 * The sender's address from the 40 bytes in front of a UD receive whose
 * completion has IBV_WC_GRH (grh_source_gid): the plain IPv4 address for
 * RoCE v2 over IPv4, else the source GID of the GRH or IPv6 header, else
 * "(unknown header)". Pure: unit tested.
 */
void mc_grh_source(const void *grh, char *out, size_t len);

/* "message N of COUNT from ADDR" into @buf, zero-padded to @len. */
int mc_message_format(char *buf, size_t len, unsigned int seq,
		      unsigned int count, const char *from);

#endif /* MC_XFER_H */
