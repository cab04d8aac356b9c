// SPDX-License-Identifier: MIT
/*
 * The sender: COUNT messages to the group, each naming its sequence
 * number and its sender, each send's completion awaited and checked.
 */
#include <err.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "mc/mc_trace.h"
#include "extras/cq_events.h"
#include "mc/mc_xfer.h"

/*
 * Pause between two messages. UD has no flow control: a message that
 * finds no receive posted is dropped. The pause lets slow receivers (a
 * software-emulated guest) read and post their buffers again.
 */
#define MC_SEND_GAP_MS 10
#define NS_PER_MS      1000000L

int mc_message_format(char *buf, size_t len, unsigned int seq,
		      unsigned int count, const char *from)
{
	int n;

	memset(buf, 0, len);
	n = snprintf(buf, len, "message %u of %u from %s", seq, count, from);
	return n < 0 || (size_t)n >= len ? -EMSGSIZE : 0;
}

static void pause_between_messages(void)
{
	const struct timespec gap = {.tv_nsec = MC_SEND_GAP_MS * NS_PER_MS};

	nanosleep(&gap, NULL);
}

static int check_send_completion(const struct ibv_wc *wc, unsigned int seq)
{
	if (wc->status != IBV_WC_SUCCESS) {
		warnx("failed send of message %u: completion status %s (%d), wr_id %llu, vendor_err 0x%x",
		      seq, ibv_wc_status_str(wc->status), wc->status,
		      (unsigned long long)wc->wr_id, wc->vendor_err);
		return -EIO;
	}
	if (wc->opcode != IBV_WC_SEND) {
		warnx("failed send of message %u: completion opcode %s, expected %s",
		      seq, wc_opcode_str(wc->opcode),
		      wc_opcode_str(IBV_WC_SEND));
		return -EPROTO;
	}
	return 0;
}

static int send_one(struct mc_resources *res, const struct mc_group *group,
		    const struct mc_cm *cm, const struct mc_config *cfg,
		    unsigned int seq)
{
	char *payload = mc_slot(res, 0) + MC_GRH_SIZE;
	struct ibv_wc wc;
	int ret;

	ret = mc_message_format(payload, cfg->size, seq, cfg->count,
				cm->local_str);
	if (ret) {
		warnx("failed to format message %u: %s", seq, strerror(-ret));
		return ret;
	}
	ret = mc_post_send(res, group, cfg);
	if (ret)
		return ret;
	ret = cq_wait(res->cq, &cq_events, mc_timeout_ms(cfg), -1, &wc, NULL);
	if (ret == -ETIMEDOUT)
		warnx("failed to complete send of message %u to group %s within %u s: %s",
		      seq, cfg->group_str, cfg->timeout_s, strerror(-ret));
	if (ret)
		return ret;
	ret = check_send_completion(&wc, seq);
	if (ret)
		return ret;
	mc_step("sent '%s' (%u bytes)", payload, cfg->size);
	return 0;
}

int mc_send_messages(struct mc_resources *res, const struct mc_group *group,
		     const struct mc_cm *cm, const struct mc_config *cfg)
{
	unsigned int seq;
	int ret;

	for (seq = 1; seq <= cfg->count; seq++) {
		if (seq > 1)
			pause_between_messages();
		ret = send_one(res, group, cm, cfg, seq);
		if (ret) {
			warnx("sent %u of %u messages to group %s", seq - 1,
			      cfg->count, cfg->group_str);
			return ret;
		}
	}
	mc_step("sent all %u messages to group %s", cfg->count, cfg->group_str);
	return 0;
}
