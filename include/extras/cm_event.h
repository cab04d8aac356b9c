/* SPDX-License-Identifier: MIT */
/*
 * Reading one RDMA_CM event and the error it stands for. Shared by the -R
 * path of rdma_rc_example and by rdma_mc_example.
 */
#ifndef CM_EVENT_H
#define CM_EVENT_H

#include <rdma/rdma_cma.h>

/* rdma_create_event_channel into *@channel: 0, or -errno after one line. */
int cm_event_channel_create(struct rdma_event_channel **channel);

/*
 * rdma_get_cm_event on @channel, once poll() said an event is waiting: 0,
 * or -errno (-EIO if librdmacm left errno unset). Either way *@event_err
 * is -errno as the call left it (0 if it set none), for cm_event_error.
 */
int cm_event_get(struct rdma_event_channel *channel,
		 struct rdma_cm_event **event, int *event_err);

/*
 * The -errno of an event that is not the one awaited. The kernel's events
 * carry -errno in their status; the ones librdmacm makes itself while
 * reading an event (an ADDR_ERROR or ROUTE_ERROR when the result cannot be
 * queried, a MULTICAST_ERROR when the QP cannot join the group) carry -1,
 * with the reason in errno (@event_err of cm_event_get). An event with
 * no error status (a rejection, an unexpected one) gives @fallback, a
 * negative errno value.
 */
static inline int cm_event_error(const struct rdma_cm_event *event,
				 int event_err, int fallback)
{
	if (event->status == -1 && event_err < 0)
		return event_err;
	return event->status < 0 ? event->status : fallback;
}

#endif /* CM_EVENT_H */
