// SPDX-License-Identifier: MIT
/*
 * RDMA_CM for rdma_mc_example: the event channel, the rdma_cm_id on the
 * UDP port space, address resolution, and waiting for one event with a
 * timeout (poll() on the channel's file descriptor).
 */
#include <err.h>
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "extras/cm_event.h"
#include "mc/mc_cm.h"
#include "mc/mc_trace.h"
#include "mc/mc_wait.h"

#define MS_PER_S 1000

int mc_cm_create(struct mc_cm *cm, const struct mc_config *cfg)
{
	int ret;

	*cm = (struct mc_cm){0};
	ret = cm_event_channel_create(&cm->channel);
	if (ret)
		return ret;
	trace_step(&cfg->trace, "rdma_create_event_channel: fd %d",
		   cm->channel->fd);

	/* RDMA_PS_UDP: unreliable datagrams (a UD QP), as multicast needs. */
	if (rdma_create_id(cm->channel, &cm->id, NULL, RDMA_PS_UDP)) {
		ret = -errno;
		warnx("failed to create RDMA_CM id (RDMA_PS_UDP): %s",
		      strerror(-ret));
		goto destroy_channel;
	}
	trace_step(&cfg->trace, "rdma_create_id: port space RDMA_PS_UDP");
	return 0;

destroy_channel:
	rdma_destroy_event_channel(cm->channel);
	cm->channel = NULL;
	return ret;
}

void mc_cm_destroy(struct mc_cm *cm, const struct mc_config *cfg)
{
	if (cm->id && rdma_destroy_id(cm->id))
		warnx("failed to destroy RDMA_CM id: %s", strerror(errno));
	trace_step(&cfg->trace, "rdma_destroy_id");
	rdma_destroy_event_channel(cm->channel);
	trace_step(&cfg->trace, "rdma_destroy_event_channel");
	*cm = (struct mc_cm){0};
}

int mc_cm_wait_event(struct mc_cm *cm, const struct mc_config *cfg,
		     enum rdma_cm_event_type expected,
		     struct rdma_cm_event **event)
{
	int event_err, ret;

	ret = mc_wait_readable(cm->channel->fd,
			       (int64_t)cfg->timeout_s * MS_PER_S);
	if (ret) {
		warnx("failed to get RDMA_CM event %s within %u s: %s",
		      rdma_event_str(expected), cfg->timeout_s, strerror(-ret));
		return ret;
	}
	ret = cm_event_get(cm->channel, event, &event_err);
	if (ret) {
		warnx("failed to get RDMA_CM event %s: %s",
		      rdma_event_str(expected), strerror(-ret));
		return ret;
	}
	trace_step(&cfg->trace, "rdma_get_cm_event: %s, status %d",
		   rdma_event_str((*event)->event), (*event)->status);
	if ((*event)->event != expected) {
		/* A failed step has an event of its own: ADDR_ERROR, ... */
		ret = cm_event_error(*event, event_err, -EPROTO);
		warnx("failed to get RDMA_CM event %s: got %s instead, status %d (%s)",
		      rdma_event_str(expected), rdma_event_str((*event)->event),
		      (*event)->status, strerror(-ret));
		rdma_ack_cm_event(*event);
		*event = NULL;
		return ret;
	}
	return 0;
}

static void addr_to_str(const struct sockaddr *sa, char *out, size_t len)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;
	const void *addr;

	if (sa->sa_family == AF_INET6)
		addr = &sin6->sin6_addr;
	else
		addr = &sin->sin_addr;
	if (!inet_ntop(sa->sa_family, addr, out, (socklen_t)len))
		snprintf(out, len, "?");
}

int mc_resolve_addr(struct mc_cm *cm, const struct mc_config *cfg)
{
	struct sockaddr *src =
		cfg->has_bind_addr ? (struct sockaddr *)&cfg->bind_addr : NULL;
	struct rdma_cm_event *event;
	int ret;

	if (rdma_resolve_addr(cm->id, src, (struct sockaddr *)&cfg->group,
			      (int)(cfg->timeout_s * MS_PER_S))) {
		ret = -errno;
		warnx("failed to resolve address of group %s from %s: %s",
		      cfg->group_str,
		      cfg->has_bind_addr ? cfg->bind_str : "any address",
		      strerror(-ret));
		return ret;
	}
	trace_step(&cfg->trace, "rdma_resolve_addr: %s -> %s",
		   cfg->has_bind_addr ? cfg->bind_str : "(routing table)",
		   cfg->group_str);
	ret = mc_cm_wait_event(cm, cfg, RDMA_CM_EVENT_ADDR_RESOLVED, &event);
	if (ret)
		return ret;
	rdma_ack_cm_event(event);

	addr_to_str(rdma_get_local_addr(cm->id), cm->local_str,
		    sizeof(cm->local_str));
	mc_step("address resolved: %s on device %s port %u", cm->local_str,
		ibv_get_device_name(cm->id->verbs->device), cm->id->port_num);
	return 0;
}
