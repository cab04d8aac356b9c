/* SPDX-License-Identifier: MIT */
#ifndef TRACE_H
#define TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include <infiniband/verbs.h>

/* The -v step trace: one line per verbs step, on stdout, prefixed "[verbs] ". */
struct trace {
	bool on;
};

void trace_step(const struct trace *tr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Names for printing verbs values, shared by the trace and the normal output. */
const char *gid_type_str(enum ibv_gid_type type);
const char *qp_state_str(enum ibv_qp_state state);
const char *wr_opcode_str(enum ibv_wr_opcode opcode);
const char *wc_opcode_str(enum ibv_wc_opcode opcode);
int mtu_to_bytes(enum ibv_mtu mtu);
/* "fe80::1" style text of @gid into @buf; returns @buf. */
const char *gid_to_str(const union ibv_gid *gid, char *buf, size_t len);
/* "LOCAL_WRITE|REMOTE_READ" style text of IBV_ACCESS_* @flags; returns @buf. */
const char *access_flags_str(unsigned int flags, char *buf, size_t len);

#endif
