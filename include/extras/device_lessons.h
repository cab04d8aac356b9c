/* SPDX-License-Identifier: MIT */
/*
 * What the lessons and the tools ask of a device beyond the manual's flow
 * (atomics, memory windows, immediate data, RNR NAK, multicast, SGE
 * lists, an SRQ), decided with the manual's needs (device_refusal) before
 * anything is connected; and the names of its values, for the doctor.
 */
#ifndef EXTRAS_DEVICE_LESSONS_H
#define EXTRAS_DEVICE_LESSONS_H

#include <stddef.h>

#include <infiniband/verbs.h>

#include "common/device_caps.h"

/*
 * Pure, unit tested: 0 if @caps can do every lesson @needs names; else
 * -EOPNOTSUPP and the line "failed to run LESSON on device NAME: what it
 * lacks, as ibv_query_device names it". The rule device_refusal applies
 * first when a program names it in needs->refuse (device_needs_lessons).
 */
int device_lesson_refusal(const struct device_caps *caps,
			  const struct device_needs *needs, char *line,
			  size_t len);

/* Name @lesson in @field, one of @needs' lessons, and check it by the
 * lessons' rule: device_needs_add, and needs->refuse set. */
void device_needs_lesson(struct device_needs *needs,
			 char field[DEVICE_LESSON_MAX], const char *lesson);

/* "IBV_TRANSPORT_IWARP" for IBV_TRANSPORT_IWARP, and so on. */
const char *device_transport_str(enum ibv_transport_type transport);

/* "IBV_ATOMIC_NONE" for IBV_ATOMIC_NONE, and so on. */
const char *device_atomic_cap_str(enum ibv_atomic_cap cap);

#endif
