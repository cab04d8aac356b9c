/* SPDX-License-Identifier: MIT */
/*
 * Verbs resources of rdma_mc_example, made on the device the rdma_cm_id
 * was bound to: PD, completion channel, CQ, UD QP, buffers and their MR.
 */
#ifndef MC_RESOURCES_H
#define MC_RESOURCES_H

#include <stddef.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "mc_config.h"

/*
 * A UD receive buffer starts with room for the Global Routing Header:
 * on RoCE every packet carries one, and it is always written there.
 */
#define MC_GRH_SIZE 40

struct mc_resources {
	struct ibv_pd *pd;
	struct ibv_comp_channel *comp_channel;
	struct ibv_cq *cq;
	struct ibv_qp *qp; /* owned by the rdma_cm_id (rdma_create_qp) */
	char *buf;	   /* slots slots of slot_size bytes */
	size_t slot_size;  /* MC_GRH_SIZE + cfg->size */
	unsigned int slots;
	struct ibv_mr *mr;
};

/*
 * Refuse a message size larger than the port's active MTU: a UD message
 * is one packet. Returns -EMSGSIZE (a usage error) after one line.
 */
int mc_check_size(struct rdma_cm_id *id, const struct mc_config *cfg);

int mc_resources_create(struct mc_resources *res, struct rdma_cm_id *id,
			const struct mc_config *cfg);
void mc_resources_destroy(struct mc_resources *res, struct rdma_cm_id *id,
			  const struct mc_config *cfg);

/* Address of slot @i, the GRH area first for a receive. */
char *mc_slot(const struct mc_resources *res, unsigned int i);

#endif /* MC_RESOURCES_H */
