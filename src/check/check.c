// SPDX-License-Identifier: MIT
/*
 * check_run: the host's checks, then with a peer the pair's, then the
 * verdict. The report has stdout to itself: the lines the steps and the
 * operations print for the manual's run (the remote address, the messages)
 * are not the check's, and go to /dev/null unless -v asks for the trace.
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_priv.h"
#include "extras/cq_events.h"
#include "extras/report.h"
#include "ops/ops.h"

/* What the pair round runs: the manual's three operations and an atomic. */
static const struct ops_list check_ops = {
	.ids = {OP_SEND, OP_READ, OP_WRITE, OP_FETCH_ADD},
	.count = 4,
};

/* The sizes a run of the check's operations needs, on RC. */
static void plan_check(const struct config *cfg, struct resources_sizes *sizes)
{
	resources_default_sizes(sizes, cfg);
	sizes->events = cfg->use_events ? &cq_events : NULL; /* -e */
	sizes->early_receives = ops_receives_before_rtr(&check_ops);
}

int check_run(const struct config *cfg, const struct check_config *cc,
	      bool *passed)
{
	struct check_report *r = malloc(sizeof(*r));
	bool with_peer = cfg->server_name || cc->pair;
	const char *scope = with_peer ? "these two hosts" : "this host";
	struct resources_sizes sizes;
	struct check_host host;
	FILE *out;
	int saved, ret;

	if (!r) {
		warnx("failed to allocate the check report: %s",
		      strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = report_open(!cfg->verbose, &out, &saved);
	if (ret)
		goto free_report;
	check_report_init(r, out);
	plan_check(cfg, &sizes);
	check_local(r, cfg, &sizes, &host);
	/* A host that failed has nothing to offer a peer: no wait for one. */
	if (with_peer && check_passed(r) && host.usable)
		check_pair(r, cfg, &sizes, cc->max_lost);
	check_print_verdict(r, scope, out);
	*passed = check_passed(r);
	if (cc->json_path)
		ret = check_save_json(r, scope, cc->json_path);
	report_close(out, saved);
free_report:
	free(r);
	return ret;
}
