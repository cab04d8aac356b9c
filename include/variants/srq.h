/* SPDX-License-Identifier: MIT */
/*
 * --srq (rdma_lessons's server for several clients): the QPs take their
 * receives from one shared receive queue, which resources_create makes
 * when resources_sizes.srq_wr asks for it.
 */
#ifndef VARIANTS_SRQ_H
#define VARIANTS_SRQ_H

#include "resources.h"

/*
 * Give the QPs one shared receive queue (an SRQ) of RESOURCES_SRQ_WR
 * receives instead of a receive queue each; @why ("option --srq") names
 * the need in the line that refuses a device without SRQs.
 */
void resources_share_receives(struct resources_sizes *sizes, const char *why);

#endif
