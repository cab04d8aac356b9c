/* SPDX-License-Identifier: MIT */
/*
 * The RDMA_CM side of rdma_mc_example: the event channel and the
 * rdma_cm_id, address resolution, waiting for one event with a timeout,
 * joining and leaving the multicast group.
 */
#ifndef MC_CM_H
#define MC_CM_H

#include <stdint.h>
#include <rdma/rdma_cma.h>

#include "mc/mc_config.h"

struct mc_cm {
	struct rdma_event_channel *channel;
	struct rdma_cm_id *id;
	char local_str[INET6_ADDRSTRLEN]; /* the address the id is bound to */
};

/* What the join gives a sender: where to send, and how. */
struct mc_group {
	struct ibv_ah *ah;
	uint32_t remote_qpn; /* the multicast QPN, 0xffffff */
	uint32_t remote_qkey;
};

int mc_cm_create(struct mc_cm *cm, const struct mc_config *cfg);
void mc_cm_destroy(struct mc_cm *cm, const struct mc_config *cfg);

/* rdma_resolve_addr(bind address, group), then wait ADDR_RESOLVED. */
int mc_resolve_addr(struct mc_cm *cm, const struct mc_config *cfg);

/*
 * Wait at most cfg->timeout_s for the next event on the channel; it must be
 * @expected. On success the caller owns *@event and acks it.
 */
int mc_cm_wait_event(struct mc_cm *cm, const struct mc_config *cfg,
		     enum rdma_cm_event_type expected,
		     struct rdma_cm_event **event);

/* rdma_join_multicast, wait MULTICAST_JOIN, create the address handle. */
int mc_join(struct mc_cm *cm, const struct mc_config *cfg, struct ibv_pd *pd,
	    struct mc_group *group);
/* Destroy the address handle, then rdma_leave_multicast. */
int mc_leave(struct mc_cm *cm, const struct mc_config *cfg,
	     struct mc_group *group);

#endif /* MC_CM_H */
