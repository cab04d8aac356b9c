// SPDX-License-Identifier: MIT
/*
 * What a port's counters moved over a run: rdma_bench's --report-counters
 * (as perftest's shows them), and the resends rdma_check --pair judges.
 * The kernel keeps them in sysfs,
 * under /sys/class/infiniband/DEV/ports/N/: counters (the InfiniBand
 * port counters, where the driver has them) and hw_counters (the
 * driver's own: rxe counts packets, retries and NAKs there; mlx5 its
 * congestion and error events). Every file there is one number.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extras/port_counters.h"

/* The subfolders of a port that hold counters. */
static const char *const counter_dirs[] = {"counters", "hw_counters"};

/*
 * What the counters that matter to a run mean, by the names the drivers
 * give them (rxe's in drivers/infiniband/sw/rxe/rxe_hw_counters.c, mlx5's
 * and the InfiniBand port counters as rdma-core's docs name them).
 */
/* What a counter tells of loss (struct port_counters_loss). */
enum counter_kind {
	COUNTER_OTHER,
	COUNTER_RESENT,	    /* this side sent packets again */
	COUNTER_OUT_OF_SEQ, /* a packet came after a gap */
	COUNTER_DUPLICATE,  /* a packet came twice */
	COUNTER_SENT,	    /* RoCE packets sent (soft-RoCE's own count) */
	COUNTER_RECEIVED,   /* RoCE packets received (soft-RoCE's) */
};

static const struct {
	const char *name;
	const char *meaning;
	enum counter_kind kind;
} known[] = {
	{"port_xmit_packets", "packets sent", COUNTER_OTHER},
	{"port_rcv_packets", "packets received", COUNTER_OTHER},
	{"sent_pkts", "packets sent", COUNTER_SENT},
	{"rcvd_pkts", "packets received", COUNTER_RECEIVED},
	{"completer_retry_err",
	 "times this side went back and sent again (ack timeout or NAK)",
	 COUNTER_RESENT},
	{"local_ack_timeout_err",
	 "ack timeouts: this side sent again after waiting", COUNTER_RESENT},
	{"packet_seq_err", "sequence NAKs received: this side sent again",
	 COUNTER_RESENT},
	{"roce_adp_retrans", "adaptive retransmissions", COUNTER_RESENT},
	{"rcvd_seq_err", "sequence NAKs received (a packet of ours was lost)",
	 COUNTER_OTHER},
	{"out_of_seq_request",
	 "requests received out of sequence (one before was lost)",
	 COUNTER_OUT_OF_SEQ},
	{"out_of_sequence",
	 "packets received out of sequence (one before was lost)",
	 COUNTER_OUT_OF_SEQ},
	{"duplicate_request", "requests received twice (the peer sent again)",
	 COUNTER_DUPLICATE},
	{"rcvd_rnr_err", "RNR NAKs received (the peer had no receive posted)",
	 COUNTER_OTHER},
	{"send_rnr_err", "RNR NAKs sent (no receive posted here)",
	 COUNTER_OTHER},
	{"rnr_nak_retry_err", "RNR retries exceeded", COUNTER_OTHER},
	{"retry_exceeded_err", "transport retries exceeded", COUNTER_OTHER},
	{"retry_rnr_exceeded_err", "RNR retries exceeded", COUNTER_OTHER},
};

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct port_counter *)a)->name,
		      ((const struct port_counter *)b)->name);
}

/* The number in @path, if it holds one (and nothing else): 0, or -1. */
static int read_number(const char *path, uint64_t *value)
{
	char text[32], *end;
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(text, sizeof(text), f) && text[0] >= '0' && text[0] <= '9';
	fclose(f);
	if (!ok)
		return -1;
	errno = 0;
	*value = strtoull(text, &end, 10);
	return errno || (*end != '\n' && *end != '\0') ? -1 : 0;
}

/* Every number in @dir into @pc, up to PORT_COUNTERS_MAX in all. */
static void read_dir(const char *dir, struct port_counters *pc)
{
	char path[PATH_MAX];
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), i;

	if (n < 0)
		return;
	pc->folders++;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		struct port_counter *c = &pc->c[pc->count];

		if (pc->count < PORT_COUNTERS_MAX && name[0] != '.' &&
		    strlen(name) < sizeof(c->name) &&
		    snprintf(path, sizeof(path), "%s/%s", dir, name) <
			    (int)sizeof(path) &&
		    read_number(path, &c->value) == 0) {
			snprintf(c->name, sizeof(c->name), "%s", name);
			pc->count++;
		}
		free(names[i]);
	}
	free(names);
}

void port_counters_read(const char *port_dir, struct port_counters *pc)
{
	char dir[PATH_MAX];
	size_t i;

	*pc = (struct port_counters){0};
	snprintf(pc->port_dir, sizeof(pc->port_dir), "%s", port_dir);
	for (i = 0; i < sizeof(counter_dirs) / sizeof(counter_dirs[0]); i++)
		if (snprintf(dir, sizeof(dir), "%s/%s", port_dir,
			     counter_dirs[i]) < (int)sizeof(dir))
			read_dir(dir, pc);
	qsort(pc->c, pc->count, sizeof(pc->c[0]), compare_names);
}

void port_counters_path(const char *device, unsigned int port, char *out,
			size_t len)
{
	snprintf(out, len, "/sys/class/infiniband/%s/ports/%u", device, port);
}

static const char *meaning_of(const char *name, enum counter_kind *kind)
{
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(known[i].name, name) == 0) {
			*kind = known[i].kind;
			return known[i].meaning;
		}
	*kind = COUNTER_OTHER;
	return "";
}

size_t port_counters_moved(const struct port_counters *before,
			   const struct port_counters *after,
			   struct port_counter *moved,
			   struct port_counters_loss *loss)
{
	size_t i, j, n = 0;
	enum counter_kind kind;

	*loss = (struct port_counters_loss){0};
	for (i = 0; i < after->count; i++) {
		const struct port_counter *a = &after->c[i];

		for (j = 0; j < before->count; j++)
			if (strcmp(before->c[j].name, a->name) == 0)
				break;
		/* New since, or reset (the port went down): no difference. */
		if (j == before->count || a->value <= before->c[j].value)
			continue;
		moved[n] = *a;
		moved[n].value = a->value - before->c[j].value;
		meaning_of(a->name, &kind);
		if (kind == COUNTER_RESENT)
			loss->resent += moved[n].value;
		else if (kind == COUNTER_OUT_OF_SEQ)
			loss->out_of_seq += moved[n].value;
		else if (kind == COUNTER_DUPLICATE)
			loss->duplicate += moved[n].value;
		else if (kind == COUNTER_SENT)
			loss->sent += moved[n].value;
		else if (kind == COUNTER_RECEIVED)
			loss->received += moved[n].value;
		n++;
	}
	return n;
}

/* "LABEL: BEFORE N AFTER", or "LABEL: none" for 0. */
static void print_count(FILE *out, const char *label, const char *before,
			uint64_t n, const char *after)
{
	if (n)
		fprintf(out, "%s: %s%" PRIu64 "%s\n", label, before, n, after);
	else
		fprintf(out, "%s: none\n", label);
}

void port_counters_print(const struct port_counters *before,
			 const struct port_counters *after, FILE *out)
{
	struct port_counter moved[PORT_COUNTERS_MAX];
	struct port_counters_loss loss;
	enum counter_kind kind;
	size_t i, n;

	if (!before->folders) {
		fprintf(out,
			"port counters: none (no counters or hw_counters in %s)\n",
			before->port_dir);
		return;
	}
	n = port_counters_moved(before, after, moved, &loss);
	fprintf(out, "port counters of this side (%s), moved over the run:\n",
		before->port_dir);
	for (i = 0; i < n; i++)
		fprintf(out, "  %-24s %+12" PRId64 "  %s\n", moved[i].name,
			(int64_t)moved[i].value,
			meaning_of(moved[i].name, &kind));
	if (!n)
		fprintf(out, "  (none moved)\n");
	print_count(out, "resent", "this side sent packets again ", loss.resent,
		    " time(s) (after an ack timeout or a sequence NAK)");
	print_count(
		out, "out of sequence", "", loss.out_of_seq,
		" packet(s) came after a gap: one before them was lost on the way here");
	print_count(
		out, "twice", "", loss.duplicate,
		" packet(s) came twice: the peer sent again what had arrived (its ack came late, or was lost)");
	fflush(out);
}
