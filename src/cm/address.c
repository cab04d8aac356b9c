// SPDX-License-Identifier: MIT
/*
 * -R, the way to the peer: the server binds and listens on the port, for
 * IPv6 and IPv4 clients; the client resolves the server's addresses in
 * turn until one gives a route. Every event is waited for with a timeout:
 * poll() on the event channel's file descriptor.
 */
#include <err.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "cm/cm.h"
#include "extras/cm_event.h"
#include "cm_internal.h"
#include "sock.h"
#include "common/cq_wait.h"
#include "common/device_caps.h"
#include "common/interrupt.h"
#include "common/trace.h"

/*
 * A server that refuses a client of another program rejects it with its
 * own private data: "the peer runs X, this side Y: ..." for the client's
 * line, or NULL when the rejection says nothing of the kind.
 */
static const char *rejected_by_program(const struct cm *cm,
				       const struct rdma_cm_event *event)
{
	struct qp_info peer;
	const char *why;

	if (event->event != RDMA_CM_EVENT_REJECTED ||
	    cm_priv_decode(event->param.conn.private_data,
			   event->param.conn.private_data_len, &peer, &why) ||
	    peer.program == cm->program)
		return NULL;
	return program_mismatch(cm->program, peer.program);
}

/*
 * The IB CM's answers when the server's port has no listener of our port
 * space (the spec's SIDR status 1, "no such service", and REJ reason 8,
 * "invalid service ID"): its server runs the other transport.
 */
#define SIDR_NO_SERVICE	  1
#define REJ_NO_SERVICE_ID 8

static const char *other_port_space(const struct cm *cm,
				    const struct rdma_cm_event *event)
{
	if (cm_is_ud(cm) && event->event == RDMA_CM_EVENT_UNREACHABLE &&
	    event->status == SIDR_NO_SERVICE)
		return "the server's port resolves no UD request: a server run without -c ud connects RC only";
	if (!cm_is_ud(cm) && event->event == RDMA_CM_EVENT_REJECTED &&
	    event->status == REJ_NO_SERVICE_ID)
		return "the server's port takes no RC connection: a server run with -c ud resolves UD only";
	return NULL;
}

int cm_take_event(struct cm *cm, long long deadline,
		  enum rdma_cm_event_type expected,
		  struct rdma_cm_event **event, char *why, size_t why_len)
{
	/* POLLRDHUP: the peer's FIN, even behind data it sent first */
	struct pollfd pfd[2] = {{.fd = cm->channel->fd, .events = POLLIN},
				{.fd = cm->peer_sock, .events = POLLRDHUP}};
	int ret, event_err, waited_ms = ms_left(deadline);
	const char *hint;

	do
		ret = interruptible_poll(pfd, cm->watch_peer ? 2 : 1,
					 ms_left(deadline));
	while (ret == -EINTR && !interrupted());
	/*
	 * The peer closed its connection. A peer that refused us
	 * (rdma_reject) closes it at once, and the CM's event that says so
	 * may come just behind: wait a CQ's grace for it.
	 */
	if (ret > 0 && !(pfd[0].revents & POLLIN) &&
	    interruptible_poll(pfd, 1, CQ_PEER_GONE_GRACE_MS) <= 0) {
		snprintf(
			why, why_len,
			"%s; the peer closed its connection: it ended or failed, and its own output says why",
			strerror(ECONNRESET));
		return -ECONNRESET;
	}
	if (ret == 0) {
		snprintf(why, why_len, "no %s within %d ms: %s",
			 rdma_event_str(expected), waited_ms,
			 strerror(ETIMEDOUT));
		return -ETIMEDOUT;
	}
	if (ret < 0) {
		snprintf(why, why_len, "%s", strerror(-ret));
		return ret;
	}
	ret = cm_event_get(cm->channel, event, &event_err);
	if (ret) {
		snprintf(why, why_len, "%s", strerror(-ret));
		return ret;
	}
	trace_step(&cm->trace, "RDMA_CM event %s, status %d",
		   rdma_event_str((*event)->event), (*event)->status);
	if ((*event)->event == expected)
		return 0;
	/* A failed step has its own event; a rejection carries no errno. */
	ret = cm_event_error(*event, event_err, -ECONNREFUSED);
	hint = rejected_by_program(cm, *event);
	if (!hint)
		hint = other_port_space(cm, *event);
	snprintf(why, why_len, "got %s, status %d (%s)%s%s",
		 rdma_event_str((*event)->event), (*event)->status,
		 strerror(-ret), hint ? "; " : "", hint ? hint : "");
	rdma_ack_cm_event(*event);
	*event = NULL;
	return ret;
}

int cm_wait_event(struct cm *cm, int timeout_sec,
		  enum rdma_cm_event_type expected,
		  struct rdma_cm_event **event)
{
	char why[CM_WHY_LEN];
	int ret;

	ret = cm_take_event(cm, now_ms() + (long long)timeout_sec * MS_PER_SEC,
			    expected, event, why, sizeof(why));
	if (ret)
		warnx("failed to get RDMA_CM event %s: %s",
		      rdma_event_str(expected), why);
	return ret;
}

/*
 * Bind @id to the wildcard address of @family on @port, for that family
 * alone (AFONLY): each family has its listener, so that both can share
 * the port.
 */
static int bind_wildcard(struct rdma_cm_id *id, int family, uint16_t port)
{
	struct sockaddr_in6 any6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_in any4 = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int afonly = 1;

	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &afonly,
			    sizeof(afonly)))
		return -errno;
	if (rdma_bind_addr(id, family == AF_INET6 ? (struct sockaddr *)&any6
						  : (struct sockaddr *)&any4))
		return -errno;
	return 0;
}

/*
 * -T: the type of service of @id's packets, before its route is resolved.
 * On RoCE the CM puts it in the GRH's traffic class (the IP DS field) and
 * maps it to the SL; a listener gives it to the connections it accepts.
 * 0 or -errno.
 */
static int set_tos(struct cm *cm, struct rdma_cm_id *id)
{
	uint8_t tos = (uint8_t)cm->tos;

	if (cm->tos < 0)
		return 0;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos,
			    sizeof(tos)))
		return -errno;
	trace_step(&cm->trace, "RDMA_CM id's type of service %u", tos);
	return 0;
}

static int create_id(struct cm *cm, struct rdma_cm_id **id)
{
	int ret;

	if (rdma_create_id(cm->channel, id, NULL, cm->port_space)) {
		ret = -errno;
		warnx("failed to create RDMA_CM id: %s", strerror(-ret));
		return ret;
	}
	ret = set_tos(cm, *id);
	if (ret) {
		warnx("failed to set the RDMA_CM id's type of service to %d: %s",
		      cm->tos, strerror(-ret));
		rdma_destroy_id(*id);
		*id = NULL;
	}
	return ret;
}

/* A listening id on the wildcard address of @family, in *@id. */
static int listen_family(struct cm *cm, struct rdma_cm_id **id, int family,
			 const struct config *cfg)
{
	uint16_t port = cfg->tcp_port;
	const char *any = family == AF_INET6 ? "[::]" : "0.0.0.0";
	int ret;

	ret = create_id(cm, id);
	if (ret)
		return ret;
	ret = bind_wildcard(*id, family, port);
	/*
	 * As many requests may wait as the server takes clients: iWARP's CM
	 * drops a request beyond the backlog while an earlier one is being
	 * accepted, and that client hears nothing.
	 */
	if (!ret && rdma_listen(*id, cm->backlog))
		ret = -errno;
	if (ret) {
		rdma_destroy_id(*id);
		*id = NULL;
	}
	/* No IPv6 in this kernel: IPv4 alone, said in the trace. */
	if (family == AF_INET6 &&
	    (ret == -EAFNOSUPPORT || ret == -EADDRNOTAVAIL)) {
		trace_step(&cm->trace,
			   "cannot listen on %s port %u: %s; IPv4 only", any,
			   port, strerror(-ret));
		return 0;
	}
	if (ret)
		warnx("failed to listen on RDMA_CM %s port %u: %s", any, port,
		      strerror(-ret));
	return ret;
}

/*
 * Server: any local address on the port, IPv6 and IPv4 alike, then listen.
 * One listener per family, not an IPv6 one that takes IPv4 clients too:
 * iWARP devices (siw) listen on the addresses of the listener's own
 * family, so an IPv6 wildcard alone would refuse every IPv4 client. A
 * kernel without IPv6 gets the IPv4 listener alone; any other failure, a
 * port in use say, is one.
 */
static int listen_on_port(struct cm *cm, const struct config *cfg)
{
	int ret;

	ret = listen_family(cm, &cm->listen_id, AF_INET6, cfg);
	if (!ret)
		ret = listen_family(cm, &cm->listen_id4, AF_INET, cfg);
	if (ret)
		return ret;
	printf("waiting on port %u for RDMA_CM connection\n", cfg->tcp_port);
	return 0;
}

/*
 * How long one rdma_resolve_addr waits for the neighbour's answer (ARP,
 * IPv6 neighbour discovery) before it is asked again. The kernel finishes
 * a request when the neighbour entry becomes valid, or else at the
 * request's timeout (drivers/infiniband/core/addr.c): an answer that came
 * before the request was queued, or one that was lost, leaves it waiting
 * for all of it. Each new ask sends a new probe, or finds the entry valid.
 */
#define CM_RESOLVE_ASK_MS 1000

/* @dest to a device and a local address on cm->id, asked anew each
 * CM_RESOLVE_ASK_MS until @deadline. */
static int resolve_ip(struct cm *cm, struct sockaddr *source,
		      struct sockaddr *dest, long long deadline, char *why,
		      size_t why_len)
{
	long long start = now_ms();
	struct rdma_cm_event *event;
	int ret, asks = 0;

	do {
		long long ask_end =
			deadline_within(deadline, CM_RESOLVE_ASK_MS);

		if (asks++)
			trace_step(
				&cm->trace,
				"RDMA_CM: no address within %d ms; asking again",
				CM_RESOLVE_ASK_MS);
		if (rdma_resolve_addr(cm->id, source, dest, ms_left(ask_end))) {
			ret = -errno;
			snprintf(why, why_len, "rdma_resolve_addr: %s",
				 strerror(-ret));
			return ret;
		}
		ret = cm_take_event(cm, deadline, RDMA_CM_EVENT_ADDR_RESOLVED,
				    &event, why, why_len);
		/* -ETIMEDOUT with time left: the ask's own timeout. */
	} while (ret == -ETIMEDOUT && ms_left(deadline) > 0 && !interrupted());
	if (ret == -ETIMEDOUT)
		snprintf(
			why, why_len,
			"no RDMA_CM_EVENT_ADDR_RESOLVED within %lld ms (rdma_resolve_addr asked %d times: its neighbour did not answer): %s",
			now_ms() - start, asks, strerror(ETIMEDOUT));
	if (!ret)
		rdma_ack_cm_event(event);
	return ret;
}

/*
 * Client: one of the server's addresses to a device, then a route, by
 * @deadline, on a new cm->id. On failure @why says which step failed.
 */
static int resolve_address(struct cm *cm, const struct config *cfg,
			   const struct addrinfo *ai, long long deadline,
			   char *why, size_t why_len)
{
	struct sockaddr_storage source;
	struct rdma_cm_event *event;
	socklen_t source_len;
	int ret, no_source;

	/* --source_ip: the address the CM binds to, of the server's family */
	no_source = sock_source_addr(cfg, ai->ai_family, &source, &source_len);
	if (no_source < 0) {
		snprintf(why, why_len, "--source_ip %s is not of its family",
			 cfg->source_ip);
		return no_source;
	}

	if (rdma_create_id(cm->channel, &cm->id, NULL, cm->port_space)) {
		ret = -errno;
		snprintf(why, why_len, "rdma_create_id: %s", strerror(-ret));
		return ret;
	}
	ret = set_tos(cm, cm->id);
	if (ret) {
		snprintf(why, why_len,
			 "rdma_set_option(RDMA_OPTION_ID_TOS): %s",
			 strerror(-ret));
		return ret;
	}
	ret = resolve_ip(cm, no_source ? NULL : (struct sockaddr *)&source,
			 ai->ai_addr, deadline, why, why_len);
	if (ret)
		return ret;
	if (rdma_resolve_route(cm->id, ms_left(deadline))) {
		ret = -errno;
		snprintf(why, why_len, "rdma_resolve_route: %s",
			 strerror(-ret));
		return ret;
	}
	ret = cm_take_event(cm, deadline, RDMA_CM_EVENT_ROUTE_RESOLVED, &event,
			    why, why_len);
	if (ret)
		return ret;
	rdma_ack_cm_event(event);
	return 0;
}

/* One line for a server none of whose @tried addresses gave a route. */
static void report_unresolved(const struct config *cfg, int tried,
			      const char *last, const char *why)
{
	if (tried > 1)
		warnx("failed to resolve an RDMA route to %s port %u (%d addresses tried; the last, %s): %s",
		      cfg->server_name, cfg->tcp_port, tried, last, why);
	else if (tried == 1 && strcmp(last, cfg->server_name) != 0)
		warnx("failed to resolve an RDMA route to %s port %u (%s): %s",
		      cfg->server_name, cfg->tcp_port, last, why);
	else
		warnx("failed to resolve an RDMA route to %s port %u: %s",
		      cfg->server_name, cfg->tcp_port, why);
}

/*
 * How long one of the server's addresses may take to resolve: one that
 * gets no answer (an IPv6 neighbour that never replies, say) must leave
 * time for the next. On a working network both steps take milliseconds.
 */
#define CM_ATTEMPT_MS 3000

/* Client: try the server's addresses in turn, all within -t. */
static int resolve_server(struct cm *cm, const struct config *cfg)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV,
	};
	long long deadline = now_ms() + config_timeout_ms(cfg);
	char port[8], why[CM_WHY_LEN] = "", host[INET6_ADDRSTRLEN] = "?";
	struct addrinfo *list, *ai;
	int ret, tried = 0;

	snprintf(port, sizeof(port), "%u", cfg->tcp_port);
	ret = getaddrinfo(cfg->server_name, port, &hints, &list);
	if (ret) {
		warnx("failed to resolve %s: %s", cfg->server_name,
		      gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	ret = -ETIMEDOUT;
	for (ai = list; ai && ms_left(deadline) > 0 && !interrupted();
	     ai = ai->ai_next) {
		getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof(host),
			    NULL, 0, NI_NUMERICHOST);
		trace_step(&cm->trace, "RDMA_CM resolving %s port %s", host,
			   port);
		tried++;
		/* the last address may take all the time that is left */
		ret = resolve_address(
			cm, cfg, ai,
			ai->ai_next ? deadline_within(deadline, CM_ATTEMPT_MS)
				    : deadline,
			why, sizeof(why));
		if (!ret)
			break;
		trace_step(&cm->trace, "RDMA_CM gave up on %s: %s", host, why);
		if (cm->id)
			rdma_destroy_id(cm->id);
		cm->id = NULL;
	}
	freeaddrinfo(list);
	if (ret && interrupted()) {
		ret = -EINTR;
		snprintf(why, sizeof(why), "%s", strerror(EINTR));
	}
	if (ret)
		report_unresolved(cfg, tried, host,
				  tried ? why : strerror(-ret));
	return ret;
}

int cm_check_device(struct cm *cm, const struct config *cfg)
{
	const char *found = ibv_get_device_name(cm->id->verbs->device);

	if (!cfg->ib_devname || strcmp(found, cfg->ib_devname) == 0)
		return 0;
	if (cfg->server_name) {
		warnx("failed to use device %s with -R: RDMA_CM resolved %s to device %s port %u (%s); give -d %s, or leave -d out",
		      cfg->ib_devname, cfg->server_name, found,
		      cm->id->port_num, strerror(ENODEV), found);
		return -ENODEV;
	}
	warnx("failed to use device %s with -R: the client's request came on device %s port %u (%s); give -d %s, or leave -d out",
	      cfg->ib_devname, found, cm->id->port_num, strerror(ENODEV),
	      found);
	rdma_reject(cm->id, NULL, 0);
	return -ENODEV;
}

/* The refusal of @dev for @needs into @line; 0 if it fits. */
static int device_fits(struct ibv_device *dev, const struct device_needs *needs,
		       char *line, size_t len)
{
	struct ibv_device_attr attr;
	struct device_caps caps;
	struct ibv_context *ctx = ibv_open_device(dev);
	int ret;

	if (!ctx) {
		ret = -errno;
		snprintf(line, len, "failed to open device %s: %s",
			 ibv_get_device_name(dev), strerror(-ret));
		return ret;
	}
	ret = -ibv_query_device(ctx, &attr);
	if (ret) {
		snprintf(line, len, "failed to query device %s: %s",
			 ibv_get_device_name(dev), strerror(-ret));
	} else {
		device_caps_of(ctx, &attr, &caps);
		ret = device_refusal(&caps, needs, line, len);
	}
	ibv_close_device(ctx);
	return ret;
}

/*
 * Server: the request names its device only once it comes; refuse now
 * what no device here could serve (-d's, or every one), so that both
 * sides say it before anything connects. A device that fits but is not
 * the one the request comes on is checked again then.
 */
static int check_local_devices(const struct config *cfg,
			       const struct device_needs *needs)
{
	char first_line[DEVICE_REFUSAL_MAX] = "", line[DEVICE_REFUSAL_MAX];
	struct ibv_device **list;
	int count, i, ret, first = 0, refused = 0;

	list = ibv_get_device_list(&count);
	if (!list)
		return 0; /* the connect request's device says it then */
	for (i = 0; i < count; i++) {
		if (cfg->ib_devname &&
		    strcmp(ibv_get_device_name(list[i]), cfg->ib_devname) != 0)
			continue;
		ret = device_fits(list[i], needs, line, sizeof(line));
		if (!ret) {
			first = 0;
			break;
		}
		if (!refused++) {
			first = ret;
			snprintf(first_line, sizeof(first_line), "%s", line);
		}
	}
	ibv_free_device_list(list);
	if (first)
		warnx("%s%s", first_line,
		      refused > 1 ? "; no other device here can either" : "");
	return first;
}

int cm_open(struct cm *cm, const struct config *cfg,
	    const struct device_needs *needs, int backlog)
{
	int ret;

	*cm = (struct cm){.program = cfg->program,
			  .port_space = needs->qp_type == IBV_QPT_UD
						? RDMA_PS_UDP
						: RDMA_PS_TCP,
			  .backlog = backlog,
			  .tos = cfg->tos,
			  .path_mtu = cfg->path_mtu,
			  .ack_timeout = qp_ack_timeout(cfg),
			  .rnr_retry = qp_rnr_retry(cfg),
			  .trace = {.on = cfg->verbose}};
	if (!cfg->server_name) {
		ret = check_local_devices(cfg, needs);
		if (ret)
			return ret;
	}
	ret = cm_event_channel_create(&cm->channel);
	if (ret)
		return ret;
	ret = cfg->server_name ? resolve_server(cm, cfg)
			       : listen_on_port(cm, cfg);
	/*
	 * The client knows its device now; the server learns it from the
	 * request (cm_connect_qp), and checks it there.
	 */
	if (!ret && cfg->server_name)
		ret = cm_check_device(cm, cfg);
	if (!ret && cfg->server_name)
		ret = device_check_needs(cm->id->verbs, needs);
	if (ret)
		cm_close(cm);
	return ret;
}

int cm_open_lane(struct cm *lane, const struct cm *first,
		 const struct config *cfg)
{
	int ret;

	*lane = (struct cm){.program = first->program,
			    .port_space = first->port_space,
			    .tos = first->tos,
			    .path_mtu = first->path_mtu,
			    .ack_timeout = first->ack_timeout,
			    .rnr_retry = first->rnr_retry,
			    .lane = true,
			    .trace = first->trace};
	ret = cm_event_channel_create(&lane->channel);
	if (!ret)
		ret = resolve_server(lane, cfg);
	if (ret)
		cm_close(lane);
	return ret;
}

void cm_close(struct cm *cm)
{
	if (cm->id && rdma_destroy_id(cm->id))
		warnx("failed to destroy RDMA_CM id: %s", strerror(errno));
	if (cm->listen_id && rdma_destroy_id(cm->listen_id))
		warnx("failed to destroy RDMA_CM listening id: %s",
		      strerror(errno));
	if (cm->listen_id4 && rdma_destroy_id(cm->listen_id4))
		warnx("failed to destroy RDMA_CM listening id: %s",
		      strerror(errno));
	if (cm->channel)
		rdma_destroy_event_channel(cm->channel);
	*cm = (struct cm){0};
}
