// SPDX-License-Identifier: MIT
/* The QP-info message: encode, decode and validate; no I/O here. */
#include <errno.h>
#include <string.h>

#include "device.h"
#include "exchange.h"
#include "common/wire.h"

/* Offsets in the message (see the layout in exchange.h). */
enum qp_info_offset {
	OFF_MAGIC = 0,
	OFF_VERSION = 4,
	OFF_BODY_LEN = 6,
	OFF_ADDR = 8,
	OFF_LEN = 16,
	OFF_RKEY = 20,
	OFF_QP_NUM = 24,
	OFF_PSN = 28,
	OFF_LID = 32,
	OFF_GID = 34,
	OFF_TRANSPORT = 50,
	OFF_FLAGS = 51,
	OFF_MTU = 52,
	OFF_MAX_DEST_RD_ATOMIC = 53,
	OFF_GID_TYPE = 54,
	OFF_SL = 55,
	OFF_TRAFFIC_CLASS = 56,
	OFF_END = 57,
};

_Static_assert(OFF_END == QP_INFO_WIRE_SIZE, "QP-info layout and size agree");

void qp_info_encode(const struct qp_info *info, uint8_t out[QP_INFO_WIRE_SIZE])
{
	memset(out, 0, QP_INFO_WIRE_SIZE);
	put_u32(out + OFF_MAGIC, program_magic((enum program_id)info->program));
	put_u16(out + OFF_VERSION, QP_INFO_VERSION);
	put_u16(out + OFF_BODY_LEN, QP_INFO_BODY_SIZE);
	put_u64(out + OFF_ADDR, info->addr);
	put_u32(out + OFF_LEN, info->len);
	put_u32(out + OFF_RKEY, info->rkey);
	put_u32(out + OFF_QP_NUM, info->qp_num);
	put_u32(out + OFF_PSN, info->psn);
	put_u16(out + OFF_LID, info->lid);
	memcpy(out + OFF_GID, info->gid, sizeof(info->gid));
	out[OFF_TRANSPORT] = info->transport;
	out[OFF_FLAGS] = info->flags;
	out[OFF_MTU] = info->mtu;
	out[OFF_MAX_DEST_RD_ATOMIC] = info->max_dest_rd_atomic;
	out[OFF_GID_TYPE] = info->gid_type;
	out[OFF_SL] = info->sl;
	out[OFF_TRAFFIC_CLASS] = info->traffic_class;
}

int qp_info_decode_header(const uint8_t *buf, size_t len, const char **why)
{
	uint8_t program;

	if (len < QP_INFO_HEADER_SIZE) {
		*why = "message shorter than its header";
		return -ENODATA;
	}
	if (program_of_magic(get_u32(buf + OFF_MAGIC), &program)) {
		*why = "wrong magic number (the peer runs none of this project's programs)";
		return -EPROTO;
	}
	if (get_u16(buf + OFF_VERSION) != QP_INFO_VERSION) {
		*why = "unsupported message version";
		return -EPROTONOSUPPORT;
	}
	if (get_u16(buf + OFF_BODY_LEN) != QP_INFO_BODY_SIZE) {
		*why = "body length is not the one of this version";
		return -EBADMSG;
	}
	return 0;
}

/* The fields every way of exchange carries: buffer, QP, transport, flags. */
static int check_common_fields(const struct qp_info *info, const char **why)
{
	if (info->qp_num & ~QP_INFO_24BIT_MASK || info->qp_num == 0) {
		*why = "QP number is not a valid 24-bit QP number";
		return -EINVAL;
	}
	if (info->len == 0) {
		*why = "buffer length is zero";
		return -EINVAL;
	}
	if (info->transport > TRANSPORT_UD) {
		*why = "unknown transport";
		return -EINVAL;
	}
	if (info->flags & ~QP_INFO_KNOWN_FLAGS) {
		*why = "unknown flags";
		return -EINVAL;
	}
	return 0;
}

static bool gid_bytes_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return memcmp(gid, zero, sizeof(zero)) == 0;
}

/* The fields of the path, which only the TCP message carries. */
static int check_path_fields(const struct qp_info *info, const char **why)
{
	if (info->psn & ~QP_INFO_24BIT_MASK) {
		*why = "PSN does not fit in 24 bits";
		return -EINVAL;
	}
	/* IBV_MTU_256 .. IBV_MTU_4096, spelled out: the wire fixes them */
	if (info->mtu < 1 || info->mtu > 5) {
		*why = "MTU is not one of 256 to 4096 bytes (1 to 5)";
		return -EINVAL;
	}
	if (info->max_dest_rd_atomic == 0) {
		*why = "max dest rd atomic is zero (no RDMA READ would ever be answered)";
		return -EINVAL;
	}
	/* IBV_GID_TYPE_IB .. IBV_GID_TYPE_ROCE_V2, spelled out as well */
	if (info->gid_type > 2) {
		*why = "GID type is not one of IB, RoCE v1, RoCE v2 (0 to 2)";
		return -EINVAL;
	}
	if (!(info->flags & QP_INFO_HAS_GID) && info->gid_type != 0) {
		*why = "a GID type without the flag that says a GID is sent";
		return -EINVAL;
	}
	if ((info->flags & QP_INFO_HAS_GID) && gid_bytes_zero(info->gid)) {
		*why = "the flag says a GID is sent, and the GID is all zeros";
		return -EINVAL;
	}
	if (info->sl > 15) {
		*why = "SL is not one of 0 to 15";
		return -EINVAL;
	}
	return 0;
}

int qp_info_check(const struct qp_info *info, enum qp_info_source from,
		  const char **why)
{
	int ret;

	ret = check_common_fields(info, why);
	if (ret || from == QP_INFO_FROM_CM)
		return ret;
	return check_path_fields(info, why);
}

int qp_info_decode(const uint8_t *buf, size_t len, struct qp_info *info,
		   const char **why)
{
	int ret;

	ret = qp_info_decode_header(buf, len, why);
	if (ret)
		return ret;
	if (len < QP_INFO_WIRE_SIZE) {
		*why = "message shorter than its body";
		return -ENODATA;
	}
	if (len > QP_INFO_WIRE_SIZE) {
		*why = "more bytes than one message";
		return -EMSGSIZE;
	}
	*info = (struct qp_info){
		.addr = get_u64(buf + OFF_ADDR),
		.len = get_u32(buf + OFF_LEN),
		.rkey = get_u32(buf + OFF_RKEY),
		.qp_num = get_u32(buf + OFF_QP_NUM),
		.psn = get_u32(buf + OFF_PSN),
		.lid = get_u16(buf + OFF_LID),
		.transport = buf[OFF_TRANSPORT],
		.flags = buf[OFF_FLAGS],
		.mtu = buf[OFF_MTU],
		.max_dest_rd_atomic = buf[OFF_MAX_DEST_RD_ATOMIC],
		.gid_type = buf[OFF_GID_TYPE],
		.sl = buf[OFF_SL],
		.traffic_class = buf[OFF_TRAFFIC_CLASS],
	};
	memcpy(info->gid, buf + OFF_GID, sizeof(info->gid));
	/* The header was checked: the magic is one of ours. */
	program_of_magic(get_u32(buf + OFF_MAGIC), &info->program);
	return qp_info_check(info, QP_INFO_FROM_TCP, why);
}

int qp_info_match(const struct qp_info *local, const struct qp_info *remote,
		  const char **why)
{
	if (local->program != remote->program) {
		*why = program_mismatch(local->program, remote->program);
		return -EPROTO;
	}
	if (local->transport != remote->transport) {
		*why = "the peer uses another transport";
		return -EPROTO;
	}
	return 0;
}

/* A GID in the wire's byte form, ::ffff:a.b.c.d or not (device.c). */
static bool gid_bytes_ipv4_mapped(const uint8_t gid[16])
{
	union ibv_gid g;

	memcpy(g.raw, gid, sizeof(g.raw));
	return gid_is_ipv4_mapped(&g);
}

int qp_info_match_path(const struct qp_info *local,
		       const struct qp_info *remote, const char **why)
{
	bool local_grh = local->flags & QP_INFO_HAS_GID;
	bool remote_grh = remote->flags & QP_INFO_HAS_GID;

	/* Both sides' packets in one class of the fabric, or neither's. */
	if (local->sl != remote->sl ||
	    local->traffic_class != remote->traffic_class) {
		*why = "the peer uses another SL or traffic class: give both sides the same --sl and --tclass";
		return -EPROTO;
	}
	/* With a GRH on one side only, the other's packets never arrive. */
	if (remote_grh && !local_grh) {
		*why = "the peer uses a GID (-g) and we do not: give -g on both sides";
		return -EPROTO;
	}
	if (local_grh && !remote_grh) {
		*why = "we use a GID (-g) and the peer does not: give -g on both sides";
		return -EPROTO;
	}
	/* RoCE v1 and v2 packets differ (Ethernet frame, UDP datagram). */
	if (local_grh && local->gid_type != remote->gid_type) {
		*why = "the peer's GID is of another type than ours (IB, RoCE v1 or v2): choose GIDs of one type with -g";
		return -EPROTO;
	}
	/* RoCE v2 rides on IP: an IPv4 GID cannot reach an IPv6 one. */
	if (local_grh && local->gid_type == IBV_GID_TYPE_ROCE_V2 &&
	    gid_bytes_ipv4_mapped(local->gid) !=
		    gid_bytes_ipv4_mapped(remote->gid)) {
		*why = "one GID is IPv4 and the other IPv6, and RoCE v2 does not route between them: choose GIDs of one IP version with -g";
		return -EPROTO;
	}
	return 0;
}
