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

#include "mc/mc_config.h"

/*
 * Every UD receive, on every link layer, needs 40 bytes at the start of
 * its buffer for the Global Routing Header: the payload always lands at
 * offset 40, and the completion's byte_len counts the 40 too. What they
 * hold depends on the packet. On InfiniBand, the GRH when the packet had
 * one (IBV_WC_GRH set in the completion), else nothing defined (IBV_WC_GRH
 * clear). On RoCE v1 the GRH; on RoCE v2 over IPv6 the IPv6 header, laid
 * out as a GRH; on RoCE v2 over IPv4 the IPv4 header, in the last 20
 * bytes, with nothing defined in the first 20.
 */
#define MC_GRH_SIZE 40

struct mc_resources {
	struct ibv_pd *pd;
	struct ibv_comp_channel *comp_channel;
	struct ibv_cq *cq;
	struct ibv_qp *qp; /* owned by the rdma_cm_id (rdma_create_qp) */
	char *buf;	   /* slots slots of slot_size bytes */
	size_t slot_size;  /* MC_GRH_SIZE + the sender's -S or the port MTU */
	unsigned int slots;
	struct ibv_mr *mr;
};

/*
 * Query the port's active MTU into *@port_mtu, in bytes, and refuse a
 * sender's -S larger than it (a UD message is one packet) with -EMSGSIZE,
 * a usage error, after one line. Passing this check is not a promise: the
 * receivers' ports (and on InfiniBand the group) may allow less.
 */
int mc_check_size(struct rdma_cm_id *id, const struct mc_config *cfg,
		  unsigned int *port_mtu);

/* Receive slots hold @port_mtu bytes of payload, whatever a sender sends. */
int mc_resources_create(struct mc_resources *res, struct rdma_cm_id *id,
			const struct mc_config *cfg, unsigned int port_mtu);
void mc_resources_destroy(struct mc_resources *res, struct rdma_cm_id *id,
			  const struct mc_config *cfg);

/* Address of slot @i, the GRH area first for a receive. */
char *mc_slot(const struct mc_resources *res, unsigned int i);

#endif /* MC_RESOURCES_H */
