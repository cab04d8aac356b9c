// SPDX-License-Identifier: MIT
/* Reading one RDMA_CM event and the error it stands for: see cm_event.h. */
#include <errno.h>

#include "cm_event.h"

int cm_event_get(struct rdma_event_channel *channel,
		 struct rdma_cm_event **event, int *saved_errno)
{
	int ret;

	errno = 0; /* so that a stale errno is not taken for the event's */
	ret = rdma_get_cm_event(channel, event);
	*saved_errno = errno; /* before any printf can change it */
	if (ret)
		return *saved_errno ? -*saved_errno : -EIO;
	return 0;
}

int cm_event_error(const struct rdma_cm_event *event, int saved_errno,
		   int fallback)
{
	if (event->status == -1 && saved_errno)
		return -saved_errno;
	return event->status < 0 ? event->status : fallback;
}
