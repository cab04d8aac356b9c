// SPDX-License-Identifier: MIT
/* --srq: one shared receive queue for the QPs (see srq.h). */
#include "extras/device_lessons.h"
#include "variants/srq.h"

void resources_share_receives(struct resources_sizes *sizes, const char *why)
{
	sizes->srq_wr = RESOURCES_SRQ_WR;
	device_needs_lesson(&sizes->needs, sizes->needs.srq, why);
	sizes->needs.srq_wr = RESOURCES_SRQ_WR;
}
