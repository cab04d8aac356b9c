// SPDX-License-Identifier: MIT
/* The RDMA_CM event channel, and reading one event: see cm_event.h. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "extras/cm_event.h"

int cm_event_channel_create(struct rdma_event_channel **channel)
{
	int ret;

	*channel = rdma_create_event_channel();
	if (!*channel) {
		ret = -errno;
		/*
		 * librdmacm opens /dev/infiniband/rdma_cm, rdma_ucm's node:
		 * ENOENT without it (ENODEV from some librdmacm versions).
		 */
		warnx("failed to create RDMA_CM event channel: %s%s",
		      strerror(-ret),
		      ret == -ENOENT || ret == -ENODEV
			      ? "; the kernel module rdma_ucm is not loaded (modprobe rdma_ucm), or there is no RDMA device (ibv_devices)"
			      : "");
		return ret;
	}
	return 0;
}

int cm_event_get(struct rdma_event_channel *channel,
		 struct rdma_cm_event **event, int *event_err)
{
	int ret;

	errno = 0; /* so that a stale errno is not taken for the event's */
	ret = rdma_get_cm_event(channel, event);
	*event_err = -errno; /* before any printf can change it */
	if (ret)
		return *event_err < 0 ? *event_err : -EIO;
	return 0;
}
