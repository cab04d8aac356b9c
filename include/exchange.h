/* SPDX-License-Identifier: MIT */
#ifndef EXCHANGE_H
#define EXCHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/*
 * The QP-info message both sides send once, in network byte order:
 *
 *   header (8 bytes)    magic u32, version u16, body length u16
 *   body (49 bytes)     buffer address u64, buffer length u32, rkey u32,
 *                       QP number u32, PSN u32, LID u16, GID 16 bytes,
 *                       transport u8, flags u8, MTU u8,
 *                       max dest rd atomic u8, GID type u8, SL u8,
 *                       traffic class u8
 *
 * MTU is the sender's port's active MTU as enum ibv_mtu (1 = 256 bytes ...
 * 5 = 4096): the path MTU is the smaller of the two sides'. Version 2 added
 * it, in what version 1 had reserved.
 *
 * Max dest rd atomic is how many RDMA READs and atomics the sender's QP
 * takes in flight as the responder (at least 1): the peer may have no more
 * than that in flight towards it. The GID type is enum ibv_gid_type (0 IB,
 * 1 RoCE v1, 2 RoCE v2) of the sender's GID, which it sends only with the
 * flag QP_INFO_HAS_GID: both sides must use a GRH, or neither. Version 3
 * added both, in the two bytes version 2 had reserved. Version 4 dropped
 * the list of operations: what a program runs over the connected QP is the
 * program's own business, agreed on after the exchange (rdma_rc_example's
 * in ops_agree). Version 5 added the SL and the traffic class the sender's
 * address handle uses (--sl, --tclass): both sides must use the same.
 *
 * The magic number says which program sent the message (program_magic
 * in common/program.c): a peer running another of them is refused in one
 * line naming both, one that is none of them as not ours at all.
 */
#define QP_INFO_VERSION	    5
#define QP_INFO_HEADER_SIZE 8
#define QP_INFO_BODY_SIZE   49
#define QP_INFO_WIRE_SIZE   (QP_INFO_HEADER_SIZE + QP_INFO_BODY_SIZE)

/* QP numbers and PSNs are 24-bit quantities in the transport headers. */
#define QP_INFO_24BIT_MASK 0xffffffu

enum qp_info_flag {
	/* 1 << 0 is unused: how a side waits is its own business */
	QP_INFO_HAS_ATOMICS = 1 << 1, /* device supports remote atomics */
	QP_INFO_HAS_MW = 1 << 2,      /* device supports memory windows */
	/* 1 << 3 is unused: the program is in the magic number */
	QP_INFO_HAS_GID = 1 << 4, /* sends a GRH: the GID fields are set */
	QP_INFO_KNOWN_FLAGS =
		QP_INFO_HAS_ATOMICS | QP_INFO_HAS_MW | QP_INFO_HAS_GID,
};

/* What one side tells the other about its QP and buffer. */
struct qp_info {
	uint8_t program; /* enum program_id: the magic number it sent */
	uint64_t addr;
	uint32_t len;
	uint32_t rkey;
	uint32_t qp_num;
	uint32_t psn;
	uint16_t lid;
	uint8_t gid[16];
	uint8_t transport;
	uint8_t flags;
	uint8_t mtu;		    /* enum ibv_mtu of the sender's port */
	uint8_t max_dest_rd_atomic; /* READs and atomics it takes in flight */
	uint8_t gid_type;      /* enum ibv_gid_type, with QP_INFO_HAS_GID */
	uint8_t sl;	       /* the service level of its address (0 to 15) */
	uint8_t traffic_class; /* its address's (on RoCE v2, the DS field) */
	/* -R, client: the port of its end of the TCP sync connection, which
	 * a server of several clients pairs with this request (0: none) */
	uint16_t sync_port;
};

/* Write @info as QP_INFO_WIRE_SIZE bytes to @out. */
void qp_info_encode(const struct qp_info *info, uint8_t out[QP_INFO_WIRE_SIZE]);

/*
 * Check the header at @buf (@len >= QP_INFO_HEADER_SIZE bytes). Returns 0, or
 * a negative errno with a reason in *@why:
 * -ENODATA short, -EPROTO wrong magic, -EPROTONOSUPPORT wrong version,
 * -EBADMSG wrong body length.
 */
int qp_info_decode_header(const uint8_t *buf, size_t len, const char **why);

/*
 * Decode a whole message of exactly @len bytes into @info. Returns 0, or the
 * errors of qp_info_decode_header, -EMSGSIZE if @len is more than one
 * message, -EINVAL for a field out of range; a reason in *@why.
 */
int qp_info_decode(const uint8_t *buf, size_t len, struct qp_info *info,
		   const char **why);

/*
 * Where a decoded QP info came from, which says what fields it has: the
 * TCP message carries all of them; the -R private data (cm/cm.h) carries the
 * buffer, the QP number, the transport and the flags, and leaves the PSN,
 * LID, GID, MTU and READ depth to the CM.
 */
enum qp_info_source {
	QP_INFO_FROM_TCP,
	QP_INFO_FROM_CM,
};

/*
 * Check the fields of @info that @from carries, whose values came from the
 * network and are not trusted: 24-bit QP number (not 0) and PSN, a buffer
 * length, a known transport, known flags, and with the TCP message an MTU, a READ depth and a GID
 * type. The one check both decoders make. 0, or -EINVAL with a reason in
 * *@why.
 */
int qp_info_check(const struct qp_info *info, enum qp_info_source from,
		  const char **why);

/*
 * 0 if @remote runs the same program and transport as @local;
 * else -EPROTO with a reason in *@why (another program: both named).
 */
int qp_info_match(const struct qp_info *local, const struct qp_info *remote,
		  const char **why);

/*
 * For the TCP exchange, where each side builds the path to the other
 * itself: 0 if both use a GRH with GIDs of one type, or neither uses a
 * GRH, and both the same SL and traffic class; else -EPROTO with a reason
 * in *@why. (RDMA_CM resolves the path.)
 */
int qp_info_match_path(const struct qp_info *local,
		       const struct qp_info *remote, const char **why);

#endif
