// SPDX-License-Identifier: MIT
/*
 * Run by the build: writes the C file of the table config_parse reads
 * to refuse another program's option in one line ("option -o (--ops) is
 * rdma_lessons's, not rdma_rc_example's"). It is made from the programs'
 * own option tables, so that no file lists another program's options.
 * A row without help (perftest's options rdma_bench takes and ignores)
 * is left out: it is perftest's, not ours.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "owners/tables.h"

/* This program is the one that refuses nothing: the table is empty here. */
const struct config_option_owner config_option_owners[1];
const size_t config_option_owners_count;

/*
 * The bit of each program that has a row named @name, with help; with
 * @letter >= 0, only those whose row has that letter.
 */
static unsigned int owners_of(const char *name, int letter)
{
	unsigned int owners = 0, p;
	const struct config_option *o;

	for (p = 0; p < PROGRAM_COUNT; p++)
		for (o = owners_table_of((enum program_id)p);
		     o->name || o->help; o++)
			if (o->name && o->help && strcmp(o->name, name) == 0 &&
			    (letter < 0 || o->letter == letter))
				owners |= 1u << p;
	return owners;
}

/*
 * The order rows are looked up in when an option is typed by its letter:
 * the lessons' first, as a learner of the manual's program looks there.
 */
static const enum program_id order[] = {
	PROGRAM_LESSONS,
	PROGRAM_CHECK,
	PROGRAM_BENCH,
	PROGRAM_RC_EXAMPLE,
};

/* True if a program before the @i-th of order printed @name with @letter. */
static int printed_before(size_t i, const char *name, int letter)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (owners_of(name, letter) & (1u << order[j]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const struct config_option *o;
	size_t count = 0, i;
	FILE *out;

	if (argc != 2 || !(out = fopen(argv[1], "w"))) {
		fprintf(stderr, "usage: option_owners_gen FILE.c (writable)\n");
		return 2;
	}
	fprintf(out,
		"/* Made by option_owners_gen from the programs' option tables. */\n"
		"#include \"config.h\"\n\n"
		"const struct config_option_owner config_option_owners[] = {\n");
	/* Each name and letter once, in the order of the first program
	 * that has them. */
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		for (o = owners_table_of(order[i]); o->name || o->help; o++) {
			if (!o->name || !o->help ||
			    printed_before(i, o->name, o->letter))
				continue;
			fprintf(out, "\t{\"%s\", %d, %d, 0x%xu, 0x%xu},\n",
				o->name, o->letter,
				o->id < CONFIG_OPT_PROGRAM ? o->id : 0,
				owners_of(o->name, -1),
				owners_of(o->name, o->letter));
			count++;
		}
	}
	fprintf(out, "};\n\nconst size_t config_option_owners_count = %zu;\n",
		count);
	return fclose(out) ? 1 : 0;
}
