// SPDX-License-Identifier: MIT
/* Asynchronous events: read, print, acknowledge (include/common/async.h). */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "common/async.h"

int async_events_init(struct ibv_context *ctx)
{
	int flags = fcntl(ctx->async_fd, F_GETFL);

	if (flags < 0 || fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK)) {
		int ret = -errno;

		warnx("failed to make the async event fd non-blocking: %s",
		      strerror(-ret));
		return ret;
	}
	return 0;
}

/* One line per event, naming the object it is about. */
static void print_event(const struct ibv_async_event *event)
{
	const char *name = ibv_event_type_str(event->event_type);

	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		printf("async event: %s on a CQ\n", name);
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		printf("async event: %s on QP 0x%06x\n", name,
		       event->element.qp->qp_num);
		break;
	case IBV_EVENT_SRQ_LIMIT_REACHED:
	case IBV_EVENT_SRQ_ERR:
		printf("async event: %s on the SRQ\n", name);
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		printf("async event: %s on port %d\n", name,
		       event->element.port_num);
		break;
	default:
		printf("async event: %s\n", name);
		break;
	}
	fflush(stdout);
}

int async_event_take(struct ibv_context *ctx, enum ibv_event_type *type)
{
	struct ibv_async_event event;

	if (ibv_get_async_event(ctx, &event)) {
		int ret = -errno;

		if (ret == -EAGAIN)
			return 0;
		warnx("failed to read an async event: %s", strerror(-ret));
		return ret;
	}
	print_event(&event);
	*type = event.event_type;
	ibv_ack_async_event(&event);
	return 1;
}

int async_events_drain(struct ibv_context *ctx)
{
	enum ibv_event_type type;
	int ret, count = 0;

	while ((ret = async_event_take(ctx, &type)) > 0)
		count++;
	return ret < 0 ? ret : count;
}
