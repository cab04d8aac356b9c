/* SPDX-License-Identifier: MIT */
/*
 * The UD QP: no connection, so every send names its destination (address
 * handle, remote QPN, Q_Key) and every receive starts with a GRH area.
 */
#ifndef UD_H
#define UD_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "exchange.h"
#include "qp.h"
#include "trace.h"

/*
 * The Q_Key both sides use. A receiving UD QP drops datagrams whose Q_Key
 * is not its own, so both must agree: it is fixed here, not exchanged,
 * because both ends are this program. The high bit is clear: Q_Keys with
 * it set are "controlled" and only privileged users may send them.
 */
#define UD_QKEY 0x11111111u

int ud_modify_qp_to_init(struct ibv_qp *qp, uint8_t port,
			 const struct trace *tr);
int ud_modify_qp_to_rtr(struct ibv_qp *qp, const struct trace *tr);

/* The address handle to the peer: its LID, and its GID with a GRH. */
int ud_create_ah(struct ibv_pd *pd, const struct qp_path *path,
		 const struct qp_info *remote, struct ibv_ah **ah,
		 const struct trace *tr);

/*
 * 0 if @len bytes fit one packet of @mtu; else one line and -EMSGSIZE: a
 * UD message is one packet, never segmented. Pure: unit tested.
 */
int ud_check_size(size_t len, enum ibv_mtu mtu);

/* Print "GRH source GID: ..." from the GRH area of a receive. */
void ud_print_grh_source(const void *grh);

#endif
