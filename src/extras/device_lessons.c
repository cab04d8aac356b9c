// SPDX-License-Identifier: MIT
/* What the lessons ask of a device, beyond the manual's flow. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "extras/device_lessons.h"

const char *device_transport_str(enum ibv_transport_type transport)
{
	switch (transport) {
	case IBV_TRANSPORT_IB:
		return "IBV_TRANSPORT_IB";
	case IBV_TRANSPORT_IWARP:
		return "IBV_TRANSPORT_IWARP";
	case IBV_TRANSPORT_USNIC:
		return "IBV_TRANSPORT_USNIC";
	case IBV_TRANSPORT_USNIC_UDP:
		return "IBV_TRANSPORT_USNIC_UDP";
	case IBV_TRANSPORT_UNSPECIFIED:
		return "IBV_TRANSPORT_UNSPECIFIED";
	case IBV_TRANSPORT_UNKNOWN:
		break;
	}
	return "IBV_TRANSPORT_UNKNOWN";
}

const char *device_atomic_cap_str(enum ibv_atomic_cap cap)
{
	switch (cap) {
	case IBV_ATOMIC_NONE:
		return "IBV_ATOMIC_NONE";
	case IBV_ATOMIC_HCA:
		return "IBV_ATOMIC_HCA";
	case IBV_ATOMIC_GLOB:
		return "IBV_ATOMIC_GLOB";
	}
	return "unknown";
}

/* A lesson @what the device lacks: "failed to run @what on device ...". */
static int refuse_lesson(const struct device_caps *caps, const char *what,
			 const char *lacks, char *line, size_t len)
{
	snprintf(line, len, "failed to run %s on device %s: %s (%s)", what,
		 caps->name, lacks, strerror(EOPNOTSUPP));
	return -EOPNOTSUPP;
}

/* What an iWARP device cannot carry: RDMAP (RFC 5040) has none of these. */
static int refuse_on_iwarp(const struct device_caps *caps,
			   const struct device_needs *needs, char *line,
			   size_t len)
{
	if (needs->immediate[0])
		return refuse_lesson(
			caps, needs->immediate,
			"transport_type IBV_TRANSPORT_IWARP, whose SEND and RDMA WRITE carry no immediate data",
			line, len);
	if (needs->access_nak[0])
		return refuse_lesson(
			caps, needs->access_nak,
			"transport_type IBV_TRANSPORT_IWARP, whose RDMA WRITE is never acknowledged: a refused one completes as sent",
			line, len);
	return 0;
}

/* An SRQ the device does not have, or one too small for the lesson's. */
static int refuse_srq(const struct device_caps *caps,
		      const struct device_needs *needs, char *line, size_t len)
{
	char lacks[96];

	if (caps->max_srq < 1)
		return refuse_lesson(caps, needs->srq,
				     "max_srq 0, no shared receive queue", line,
				     len);
	if ((uint32_t)caps->max_srq_wr >= needs->srq_wr)
		return 0;
	snprintf(lacks, sizeof(lacks),
		 "max_srq_wr %d, fewer than the %u receives of its queue",
		 caps->max_srq_wr, needs->srq_wr);
	return refuse_lesson(caps, needs->srq, lacks, line, len);
}

int device_lesson_refusal(const struct device_caps *caps,
			  const struct device_needs *needs, char *line,
			  size_t len)
{
	char lacks[96];
	int ret;

	/* First: on iWARP it is the lesson that is missing, not UD. */
	if (needs->multicast[0] && caps->max_mcast_grp == 0)
		return refuse_lesson(caps, needs->multicast,
				     "max_mcast_grp 0, no multicast groups",
				     line, len);
	if (caps->transport == IBV_TRANSPORT_IWARP) {
		ret = refuse_on_iwarp(caps, needs, line, len);
		if (ret)
			return ret;
	}
	if (needs->atomics[0] && caps->atomic_cap == IBV_ATOMIC_NONE)
		return refuse_lesson(
			caps, needs->atomics,
			"atomic_cap IBV_ATOMIC_NONE, no remote atomics", line,
			len);
	if (needs->mw[0] && (caps->max_mw == 0 || !(caps->device_cap_flags &
						    IBV_DEVICE_MEM_WINDOW))) {
		snprintf(
			lacks, sizeof(lacks), "%s, no memory windows",
			caps->max_mw == 0
				? "max_mw 0"
				: "device_cap_flags without IBV_DEVICE_MEM_WINDOW");
		return refuse_lesson(caps, needs->mw, lacks, line, len);
	}
	if (needs->sge_list[0] && caps->max_sge < needs->max_sge) {
		snprintf(
			lacks, sizeof(lacks),
			"max_sge %d, fewer than the %d SGEs of its work requests",
			caps->max_sge, needs->max_sge);
		return refuse_lesson(caps, needs->sge_list, lacks, line, len);
	}
	if (needs->srq[0]) {
		ret = refuse_srq(caps, needs, line, len);
		if (ret)
			return ret;
	}
	if (needs->rnr_nak[0] &&
	    !(caps->device_cap_flags & IBV_DEVICE_RC_RNR_NAK_GEN))
		return refuse_lesson(
			caps, needs->rnr_nak,
			"device_cap_flags without IBV_DEVICE_RC_RNR_NAK_GEN, no RNR NAK",
			line, len);
	return 0;
}

void device_needs_lesson(struct device_needs *needs,
			 char field[DEVICE_LESSON_MAX], const char *lesson)
{
	device_needs_add(field, lesson);
	needs->refuse = device_lesson_refusal;
}
