// SPDX-License-Identifier: MIT
/*
 * rdma_mc_example: the second example of the "RDMA Aware Networks
 * Programming User Manual", multicast over UD with the RDMA_CM API.
 * main() reads like the manual's list of steps.
 */
#include <err.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/device_caps.h"
#include "extras/device_lessons.h"
#include "common/interrupt.h"
#include "common/program.h"
#include "mc/mc_cm.h"
#include "mc/mc_config.h"
#include "mc/mc_resources.h"
#include "mc/mc_trace.h"
#include "mc/mc_xfer.h"

/* Steps after the join: send or receive, then leave the group. */
static int transfer(struct mc_cm *cm, struct mc_resources *res,
		    const struct mc_config *cfg)
{
	struct mc_group group;
	int ret, leave_ret;

	ret = mc_join(cm, cfg, res->pd, &group);
	if (ret)
		return ret;
	if (cfg->send)
		ret = mc_send_messages(res, &group, cm, cfg);
	else
		ret = mc_receive_messages(res, cfg);
	leave_ret = mc_leave(cm, cfg, &group);
	if (!leave_ret)
		mc_step("left group %s", cfg->group_str);
	return ret ? ret : leave_ret;
}

/* The device the address resolved to must do multicast (max_mcast_grp). */
static int mc_check_device(struct rdma_cm_id *id, const struct mc_config *cfg)
{
	struct device_needs needs = {.through_cm = true,
				     .qp_type = IBV_QPT_UD,
				     .refuse = device_lesson_refusal};
	char lesson[DEVICE_LESSON_MAX];

	snprintf(lesson, sizeof(lesson), "multicast group %s", cfg->group_str);
	device_needs_add(needs.multicast, lesson);
	return device_check_needs(id->verbs, &needs);
}

/* *@usage: the run was refused for an option's value (-S too large). */
static int run(const struct mc_config *cfg, bool *usage)
{
	struct mc_resources res;
	unsigned int port_mtu;
	struct mc_cm cm;
	int ret;

	ret = mc_cm_create(&cm, cfg);
	if (ret)
		return ret;
	ret = mc_resolve_addr(&cm, cfg);
	if (ret)
		goto destroy_cm;
	ret = mc_check_device(cm.id, cfg);
	if (!ret) {
		ret = mc_check_size(cm.id, cfg, &port_mtu);
		*usage = ret == -EMSGSIZE;
	}
	if (ret)
		goto destroy_cm;
	ret = mc_resources_create(&res, cm.id, cfg, port_mtu);
	if (ret)
		goto destroy_cm;
	/* Receives go up before the join: the group may send at once. */
	if (!cfg->send) {
		ret = mc_post_receives(&res, cfg);
		if (ret)
			goto destroy_resources;
	}
	ret = transfer(&cm, &res, cfg);

destroy_resources:
	mc_resources_destroy(&res, cm.id, cfg);
destroy_cm:
	mc_cm_destroy(&cm, cfg);
	return ret;
}

int main(int argc, char **argv)
{
	struct mc_config cfg;
	bool usage = false;
	int ret;

	/* One line at a time, even into a file: tests wait for "joined". */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Bad input: the one line naming the option is already printed. */
	if (mc_config_parse(argc, argv, &cfg, stderr))
		return EXIT_USAGE;
	if (cfg.show_help) {
		mc_config_usage(stdout, argv[0]);
		return EXIT_PASSED;
	}
	if (cfg.show_version) {
		printf("rdma_mc_example %s\n", mc_config_version());
		return EXIT_PASSED;
	}
	if (cfg.send)
		mc_step("sending %u messages of %u bytes, group %s, bind address %s",
			cfg.count, cfg.size, cfg.group_str,
			cfg.has_bind_addr ? cfg.bind_str : "(any)");
	else
		mc_step("receiving %u messages, group %s, bind address %s",
			cfg.count, cfg.group_str,
			cfg.has_bind_addr ? cfg.bind_str : "(any)");

	/* SIGINT and SIGTERM end the waits: teardown runs as usual. */
	ret = interrupt_install();
	if (!ret)
		ret = run(&cfg, &usage);
	if (ret && interrupted())
		warnx("stopped by %s, resources freed",
		      interrupt_signal_name());
	/* Only -S is a usage error: an EMSGSIZE from the network is not. */
	if (usage)
		return EXIT_USAGE;
	return ret ? EXIT_FAILED : EXIT_PASSED;
}
