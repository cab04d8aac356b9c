// SPDX-License-Identifier: MIT
/*
 * -R from start to end for a program of one peer (rdma_lessons's -R,
 * rdma_bench -R): RDMA_CM finds the device, the resources are made on it
 * and the QP connected, the TCP connection kept for the syncs; then the
 * teardown in the reverse order.
 */
#include <unistd.h>

#include "cm/cm.h"
#include "sock.h"

int cm_connect_run(struct cm *cm, struct resources *res,
		   const struct config *cfg,
		   const struct resources_sizes *sizes, int *sock,
		   struct connection *conn)
{
	int ret;

	*sock = -1;
	ret = cm_open(cm, cfg, &sizes->needs, 1);
	if (ret)
		return ret;
	ret = sock_connect(cfg, sock);
	if (ret)
		goto close_cm;
	ret = cm_connect_qp(cm, res, cfg, sizes, *sock, conn);
	if (!ret)
		return 0;
	close(*sock);
	*sock = -1;
close_cm:
	cm_close(cm);
	return ret;
}

int cm_close_run(struct cm *cm, struct resources *res, int sock, int ret)
{
	int destroy_ret;

	cm_disconnect(cm);
	destroy_ret = resources_destroy(res);
	close(sock);
	cm_close(cm);
	return ret ? ret : destroy_ret;
}
