// SPDX-License-Identifier: MIT
/* The -v trace and the names of verbs values: one place for their format. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/trace.h"

void trace_step(const struct trace *tr, const char *fmt, ...)
{
	va_list ap;

	if (!tr || !tr->on)
		return;
	fputs("[verbs] ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

const char *gid_type_str(enum ibv_gid_type type)
{
	switch (type) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	}
	return "unknown";
}

const char *qp_state_str(enum ibv_qp_state state)
{
	switch (state) {
	case IBV_QPS_RESET:
		return "RESET";
	case IBV_QPS_INIT:
		return "INIT";
	case IBV_QPS_RTR:
		return "RTR";
	case IBV_QPS_RTS:
		return "RTS";
	case IBV_QPS_SQD:
		return "SQD";
	case IBV_QPS_SQE:
		return "SQE";
	case IBV_QPS_ERR:
		return "ERR";
	default:
		return "unknown";
	}
}

const char *wr_opcode_str(enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_SEND:
		return "SEND";
	case IBV_WR_SEND_WITH_IMM:
		return "SEND_WITH_IMM";
	case IBV_WR_RDMA_WRITE:
		return "RDMA_WRITE";
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return "RDMA_WRITE_WITH_IMM";
	case IBV_WR_RDMA_READ:
		return "RDMA_READ";
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return "ATOMIC_CMP_AND_SWP";
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return "ATOMIC_FETCH_AND_ADD";
	case IBV_WR_BIND_MW:
		return "BIND_MW";
	case IBV_WR_LOCAL_INV:
		return "LOCAL_INV";
	default:
		return "other";
	}
}

const char *wc_opcode_str(enum ibv_wc_opcode opcode)
{
	switch (opcode) {
	case IBV_WC_SEND:
		return "SEND";
	case IBV_WC_RDMA_WRITE:
		return "RDMA_WRITE";
	case IBV_WC_RDMA_READ:
		return "RDMA_READ";
	case IBV_WC_COMP_SWAP:
		return "COMP_SWAP";
	case IBV_WC_FETCH_ADD:
		return "FETCH_ADD";
	case IBV_WC_BIND_MW:
		return "BIND_MW";
	case IBV_WC_LOCAL_INV:
		return "LOCAL_INV";
	case IBV_WC_RECV:
		return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return "RECV_RDMA_WITH_IMM";
	default:
		return "other";
	}
}

int mtu_to_bytes(enum ibv_mtu mtu)
{
	switch (mtu) {
	case IBV_MTU_256:
		return 256;
	case IBV_MTU_512:
		return 512;
	case IBV_MTU_1024:
		return 1024;
	case IBV_MTU_2048:
		return 2048;
	case IBV_MTU_4096:
		return 4096;
	}
	return 0;
}

const char *gid_to_str(const union ibv_gid *gid, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

const char *access_flags_str(unsigned int flags, char *buf, size_t len)
{
	static const struct {
		unsigned int flag;
		const char *name;
	} names[] = {
		{IBV_ACCESS_LOCAL_WRITE, "LOCAL_WRITE"},
		{IBV_ACCESS_REMOTE_WRITE, "REMOTE_WRITE"},
		{IBV_ACCESS_REMOTE_READ, "REMOTE_READ"},
		{IBV_ACCESS_REMOTE_ATOMIC, "REMOTE_ATOMIC"},
		{IBV_ACCESS_MW_BIND, "MW_BIND"},
	};
	size_t used = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int n;

		if (!(flags & names[i].flag))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
			     names[i].name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}
