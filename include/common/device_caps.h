/* SPDX-License-Identifier: MIT */
/*
 * What a device can do, as libibverbs reports it (the transport type of
 * ibv_get_device_list, the attributes of ibv_query_device), against what a
 * run asks of it: one decision, made before anything is connected, for
 * both programs. The decision is pure and unit tested.
 */
#ifndef DEVICE_CAPS_H
#define DEVICE_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* The capabilities the lessons depend on. */
struct device_caps {
	const char *name;
	enum ibv_transport_type transport; /* ibv_device.transport_type */
	enum ibv_atomic_cap atomic_cap;
	int max_mw;
	unsigned int device_cap_flags; /* IBV_DEVICE_* */
	int max_mcast_grp;
	int max_sge; /* SGEs one send or receive work request may carry */
	int max_qp_rd_atom;	 /* READs and atomics a QP serves at once */
	int max_qp_init_rd_atom; /* READs and atomics a QP issues at once */
	int max_srq;		 /* shared receive queues */
	int max_srq_wr;		 /* receives one of them holds */
};

/* Room for the name of a lesson, "operation fetch_add", with its '\0'. */
#define DEVICE_LESSON_MAX 64

/*
 * What a run asks of the device. Each lesson field names the first lesson
 * that needs it, for the line that refuses it ("operation fetch_add"), or
 * is "" when none does.
 */
struct device_needs {
	bool through_cm; /* -R: RDMA_CM connects the QP */
	/* what to do on iWARP without -R; NULL: "add -R" (a program that
	 * has no -R names the one that has) */
	const char *without_cm_fix;
	enum ibv_qp_type qp_type; /* IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD */
	char atomics[DEVICE_LESSON_MAX];   /* remote atomics */
	char mw[DEVICE_LESSON_MAX];	   /* memory windows */
	char immediate[DEVICE_LESSON_MAX]; /* immediate data, SEND or WRITE */
	/* the responder NAKs a SEND it has no receive for; the sender retries */
	char rnr_nak[DEVICE_LESSON_MAX];
	char multicast[DEVICE_LESSON_MAX]; /* a UD multicast group */
	/* a WRITE the responder refuses fails in the writer's completion:
	 * the responder answers with a NAK (iWARP's RDMAP does not) */
	char access_nak[DEVICE_LESSON_MAX];
	/* work requests of more than one SGE: the lesson, and how many */
	char sge_list[DEVICE_LESSON_MAX];
	int max_sge;
	/* RDMA READs or atomics: at least one in flight, either way */
	char rd_atomic[DEVICE_LESSON_MAX];
	/* a shared receive queue: the lesson, and the receives it holds */
	char srq[DEVICE_LESSON_MAX];
	uint32_t srq_wr;
	/*
	 * The rule for the lessons' needs above beyond RDMA READ (atomics,
	 * memory windows and the rest: device_lesson_refusal, which
	 * device_needs_lesson sets), applied first; NULL: the manual's
	 * needs alone. Its result is device_refusal's.
	 */
	int (*refuse)(const struct device_caps *caps,
		      const struct device_needs *needs, char *line, size_t len);
};

/* Name @lesson in @field (one of @needs' lessons) unless one is already. */
void device_needs_add(char field[DEVICE_LESSON_MAX], const char *lesson);

/* The largest refusal line device_refusal writes, with its '\0'. */
#define DEVICE_REFUSAL_MAX 256

/* Fill @caps from an open device and the attributes it reported. */
void device_caps_of(struct ibv_context *ctx, const struct ibv_device_attr *attr,
		    struct device_caps *caps);

/*
 * 0 if @caps can do all of @needs. Otherwise the first thing it cannot do,
 * as one line without its newline in @line (@len bytes; naming the
 * capability as ibv_query_device or the device list reports it), and
 * -EPROTONOSUPPORT for an iWARP device without RDMA_CM, -EOPNOTSUPP for a
 * lesson or a transport it lacks. Pure.
 */
int device_refusal(const struct device_caps *caps,
		   const struct device_needs *needs, char *line, size_t len);

/*
 * device_refusal for the device behind @ctx, queried here: 0, or the
 * refusal (or -errno of the query) after one line on stderr.
 */
int device_check_needs(struct ibv_context *ctx,
		       const struct device_needs *needs);

#endif
