// SPDX-License-Identifier: MIT
/*
 * The receiver: COUNT completions, each checked (status, opcode, length),
 * its message printed with who sent it, its buffer posted again at once.
 */
#include <err.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "mc/mc_trace.h"
#include "extras/cq_events.h"
#include "mc/mc_xfer.h"

/* Longest message text printed; the rest of a larger payload is zeros. */
#define MC_PRINT_MAX 256

static int check_recv_completion(const struct ibv_wc *wc, unsigned int seq)
{
	if (wc->status != IBV_WC_SUCCESS) {
		warnx("failed receive of message %u: completion status %s (%d), wr_id %llu, vendor_err 0x%x",
		      seq, ibv_wc_status_str(wc->status), wc->status,
		      (unsigned long long)wc->wr_id, wc->vendor_err);
		return -EIO;
	}
	if (wc->opcode != IBV_WC_RECV) {
		warnx("failed receive of message %u: completion opcode %s, expected %s",
		      seq, wc_opcode_str(wc->opcode),
		      wc_opcode_str(IBV_WC_RECV));
		return -EPROTO;
	}
	if (wc->byte_len < MC_GRH_SIZE) {
		warnx("failed receive of message %u: %u bytes, shorter than the %d-byte GRH",
		      seq, wc->byte_len, MC_GRH_SIZE);
		return -EPROTO;
	}
	return 0;
}

/* The payload as printable text: up to its NUL, anything else as '.'. */
static void payload_text(const char *p, size_t len, char *out, size_t size)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size && p[i]; i++)
		out[i] = isprint((unsigned char)p[i]) ? p[i] : '.';
	out[i] = '\0';
}

static void print_message(const struct mc_resources *res,
			  const struct ibv_wc *wc)
{
	const char *slot = mc_slot(res, (unsigned int)wc->wr_id);
	char text[MC_PRINT_MAX + 1];
	char source[INET6_ADDRSTRLEN] = "(no GRH)";

	if (wc->wc_flags & IBV_WC_GRH)
		mc_grh_source(slot, source, sizeof(source));
	payload_text(slot + MC_GRH_SIZE, wc->byte_len - MC_GRH_SIZE, text,
		     sizeof(text));
	mc_step("received '%s' (%u bytes from %s, QPN 0x%x)", text,
		wc->byte_len - MC_GRH_SIZE, source, wc->src_qp);
}

static void report_timeout(const struct mc_config *cfg, unsigned int got)
{
	warnx("timed out after %u s waiting for message %u of %u on group %s: %u of %u messages arrived",
	      cfg->timeout_s, got + 1, cfg->count, cfg->group_str, got,
	      cfg->count);
}

int mc_receive_messages(struct mc_resources *res, const struct mc_config *cfg)
{
	unsigned int got;
	struct ibv_wc wc;
	int ret;

	mc_step("waiting for %u messages on group %s (at most %u s each)",
		cfg->count, cfg->group_str, cfg->timeout_s);
	for (got = 0; got < cfg->count; got++) {
		ret = cq_wait(res->cq, &cq_events, mc_timeout_ms(cfg), -1, &wc,
			      NULL);
		if (ret == -ETIMEDOUT)
			report_timeout(cfg, got);
		if (ret)
			return ret;
		ret = check_recv_completion(&wc, got + 1);
		if (ret)
			return ret;
		print_message(res, &wc);
		ret = mc_post_receive(res, (unsigned int)wc.wr_id);
		if (ret)
			return ret;
	}
	mc_step("received all %u messages on group %s", cfg->count,
		cfg->group_str);
	return 0;
}
