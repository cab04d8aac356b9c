// SPDX-License-Identifier: MIT
/* Whether a device can do what a run asks, decided before connecting. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/device_caps.h"

void device_caps_of(struct ibv_context *ctx, const struct ibv_device_attr *attr,
		    struct device_caps *caps)
{
	*caps = (struct device_caps){
		.name = ibv_get_device_name(ctx->device),
		.transport = ctx->device->transport_type,
		.atomic_cap = attr->atomic_cap,
		.max_mw = attr->max_mw,
		.device_cap_flags = attr->device_cap_flags,
		.max_mcast_grp = attr->max_mcast_grp,
		.max_sge = attr->max_sge,
		.max_qp_rd_atom = attr->max_qp_rd_atom,
		.max_qp_init_rd_atom = attr->max_qp_init_rd_atom,
		.max_srq = attr->max_srq,
		.max_srq_wr = attr->max_srq_wr,
	};
}

void device_needs_add(char field[DEVICE_LESSON_MAX], const char *lesson)
{
	if (!field[0])
		snprintf(field, DEVICE_LESSON_MAX, "%s", lesson);
}

static const char *qp_type_name(enum ibv_qp_type type)
{
	return type == IBV_QPT_UC ? "UC" : type == IBV_QPT_UD ? "UD" : "RC";
}

int device_refusal(const struct device_caps *caps,
		   const struct device_needs *needs, char *line, size_t len)
{
	int ret;

	line[0] = '\0';
	/* First what a lesson asks: adding -R would not help with it. */
	if (needs->refuse) {
		ret = needs->refuse(caps, needs, line, len);
		if (ret)
			return ret;
	}
	if (caps->transport == IBV_TRANSPORT_IWARP &&
	    needs->qp_type != IBV_QPT_RC) {
		snprintf(
			line, len,
			"failed to create a %s QP on device %s: transport_type IBV_TRANSPORT_IWARP, which connects RC QPs only (%s)",
			qp_type_name(needs->qp_type), caps->name,
			strerror(EOPNOTSUPP));
		return -EOPNOTSUPP;
	}
	if (caps->transport == IBV_TRANSPORT_IWARP && !needs->through_cm) {
		snprintf(
			line, len,
			"failed to use device %s without -R: transport_type IBV_TRANSPORT_IWARP, and iWARP connects QPs only through RDMA_CM: %s",
			caps->name,
			needs->without_cm_fix ? needs->without_cm_fix
					      : "add -R");
		return -EPROTONOSUPPORT;
	}
	if (needs->rd_atomic[0] &&
	    (caps->max_qp_rd_atom < 1 || caps->max_qp_init_rd_atom < 1)) {
		snprintf(
			line, len,
			"failed to run %s on device %s: %s %d, no RDMA READ or atomic in flight (%s)",
			needs->rd_atomic, caps->name,
			caps->max_qp_rd_atom < 1 ? "max_qp_rd_atom"
						 : "max_qp_init_rd_atom",
			caps->max_qp_rd_atom < 1 ? caps->max_qp_rd_atom
						 : caps->max_qp_init_rd_atom,
			strerror(EOPNOTSUPP));
		return -EOPNOTSUPP;
	}
	return 0;
}

int device_check_needs(struct ibv_context *ctx,
		       const struct device_needs *needs)
{
	char line[DEVICE_REFUSAL_MAX];
	struct ibv_device_attr attr;
	struct device_caps caps;
	int ret;

	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		warnx("failed to query device %s: %s",
		      ibv_get_device_name(ctx->device), strerror(ret));
		return -ret;
	}
	device_caps_of(ctx, &attr, &caps);
	ret = device_refusal(&caps, needs, line, sizeof(line));
	if (ret)
		warnx("%s", line);
	return ret;
}
