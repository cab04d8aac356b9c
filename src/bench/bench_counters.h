/* SPDX-License-Identifier: MIT */
/* --report-counters (bench_counters.c). */
#ifndef BENCH_COUNTERS_H
#define BENCH_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_COUNTERS_MAX 160
struct port_counter {
	char name[48];
	uint64_t value;
};

/* The numbers in a port's counters and hw_counters folders, by name. */
struct port_counters {
	char port_dir[256];   /* /sys/class/infiniband/DEV/ports/N */
	unsigned int folders; /* how many of the two folders exist */
	size_t count;
	struct port_counter c[BENCH_COUNTERS_MAX];
};

/* The sysfs folder of @device's @port into @out. */
void port_counters_path(const char *device, unsigned int port, char *out,
			size_t len);
/* Every counter under @port_dir, sorted by name; none if it has none. */
void port_counters_read(const char *port_dir, struct port_counters *pc);
/*
 * The counters that went up from @before to @after, by how much, into
 * @moved (room for BENCH_COUNTERS_MAX); *@resent: the sum of those that
 * count this side sending again. Returns how many moved.
 */
size_t port_counters_moved(const struct port_counters *before,
			   const struct port_counters *after,
			   struct port_counter *moved, uint64_t *resent);
/* The lines of --report-counters: each counter that moved, then resent. */
void port_counters_print(const struct port_counters *before,
			 const struct port_counters *after, FILE *out);

#endif
