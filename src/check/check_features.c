// SPDX-License-Identifier: MIT
/*
 * What a device adds beyond the lessons: the features of real NICs that
 * soft-RoCE and soft-iWARP lack, so that a learner with one can see what
 * it could do that the rig cannot. Pure, from ibv_query_device_ex's answer:
 * unit tested on answers of real NICs (tests/unit/test_check.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "check_priv.h"

/* "send, recv, write" of the operations @caps names; "none" for none. */
static const char *odp_ops(uint32_t caps, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} ops[] = {
		{IBV_ODP_SUPPORT_SEND, "send"},
		{IBV_ODP_SUPPORT_RECV, "recv"},
		{IBV_ODP_SUPPORT_WRITE, "write"},
		{IBV_ODP_SUPPORT_READ, "read"},
		{IBV_ODP_SUPPORT_ATOMIC, "atomic"},
		{IBV_ODP_SUPPORT_SRQ_RECV, "srq"},
	};
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && used < len; i++)
		if (caps & ops[i].bit)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? ", " : "", ops[i].name);
	return used ? buf : "none";
}

static void feature_xrc(struct check_report *r,
			const struct ibv_device_attr_ex *attr)
{
	if (attr->orig_attr.device_cap_flags & IBV_DEVICE_XRC)
		check_add_feature(
			r, "xrc", true,
			"XRC (ibv_open_xrcd): one receive queue serves the QPs of several processes");
	else
		check_add_feature(
			r, "xrc", false,
			"no XRC: each QP receives on its own queue or an SRQ");
}

/*
 * DC, the dynamically connected transport: mlx5's own, made with
 * mlx5dv_create_qp; @mlx5 is mlx5dv_is_supported's answer for the device.
 */
static void feature_dc(struct check_report *r, bool mlx5)
{
	if (mlx5)
		check_add_feature(
			r, "dc", true,
			"DC (mlx5dv_create_qp: DCI and DCT): one QP sends to many peers, each named by its DCT number, instead of a connected QP per peer");
	else
		check_add_feature(
			r, "dc", false,
			"no DC (mlx5's dynamically connected transport): a connected QP per peer, or UD");
}

static void feature_odp(struct check_report *r,
			const struct ibv_device_attr_ex *attr)
{
	const struct ibv_odp_caps *odp = &attr->odp_caps;
	char rc[64], ud[64];

	if (!(odp->general_caps & IBV_ODP_SUPPORT)) {
		check_add_feature(
			r, "odp", false,
			"no on-demand paging: a registration pins all its pages");
		return;
	}
	check_add_feature(
		r, "odp", true,
		"on-demand paging (IBV_ACCESS_ON_DEMAND%s): memory registered unpinned, paged in as the device touches it; RC: %s; UD: %s",
		odp->general_caps & IBV_ODP_SUPPORT_IMPLICIT
			? ", and implicit: the whole address space"
			: "",
		odp_ops(odp->per_transport_caps.rc_odp_caps, rc, sizeof(rc)),
		odp_ops(odp->per_transport_caps.ud_odp_caps, ud, sizeof(ud)));
}

/* The bits a completion timestamp counts: the mask's highest bit, + 1. */
static unsigned int mask_bits(uint64_t mask)
{
	unsigned int bits = 0;

	while (mask) {
		bits++;
		mask >>= 1;
	}
	return bits;
}

static void feature_timestamps(struct check_report *r,
			       const struct ibv_device_attr_ex *attr)
{
	char clock[64] = "no clock rate: raw counts, not times";

	if (!attr->completion_timestamp_mask) {
		check_add_feature(
			r, "timestamps", false,
			"no completion timestamps: a completion is timed on the host, when it is polled");
		return;
	}
	if (attr->hca_core_clock)
		snprintf(clock, sizeof(clock), "its clock %" PRIu64 " kHz",
			 attr->hca_core_clock);
	check_add_feature(
		r, "timestamps", true,
		"completion timestamps (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP): when the device completed each request, %u bits, %s",
		mask_bits(attr->completion_timestamp_mask), clock);
}

static void feature_device_memory(struct check_report *r,
				  const struct ibv_device_attr_ex *attr)
{
	if (attr->max_dm_size)
		check_add_feature(
			r, "device-mem", true,
			"device memory (ibv_alloc_dm): %" PRIu64
			" KiB on the device itself, registered and used as any buffer",
			attr->max_dm_size / 1024);
	else
		check_add_feature(
			r, "device-mem", false,
			"no device memory: every buffer is the host's");
}

static void feature_tag_matching(struct check_report *r,
				 const struct ibv_device_attr_ex *attr)
{
	const struct ibv_tm_caps *tm = &attr->tm_caps;

	if (tm->max_num_tags)
		check_add_feature(
			r, "tag-match", true,
			"tag matching (ibv_post_srq_ops): the device matches up to %u MPI tags to receives%s",
			tm->max_num_tags,
			tm->flags & IBV_TM_CAP_RC ? ", on RC" : "");
	else
		check_add_feature(
			r, "tag-match", false,
			"no tag matching: an MPI library matches its tags on the host");
}

static void feature_dmabuf(struct check_report *r, int dmabuf_err)
{
	if (dmabuf_err == EOPNOTSUPP)
		check_add_feature(
			r, "dma-buf", false,
			"no dma-buf (ibv_reg_dmabuf_mr: %s): only the host's memory is registered",
			strerror(dmabuf_err));
	else
		check_add_feature(
			r, "dma-buf", true,
			"dma-buf (ibv_reg_dmabuf_mr): another driver's memory, a GPU's, registered by its file descriptor");
}

void check_features(struct check_report *r,
		    const struct ibv_device_attr_ex *attr, int dmabuf_err,
		    bool mlx5)
{
	feature_xrc(r, attr);
	feature_dc(r, mlx5);
	feature_odp(r, attr);
	feature_timestamps(r, attr);
	feature_device_memory(r, attr);
	feature_tag_matching(r, attr);
	feature_dmabuf(r, dmabuf_err);
}
