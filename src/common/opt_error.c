// SPDX-License-Identifier: MIT
/*
 * Naming a rejected option as it was typed. getopt_long says little: for
 * a long option optopt is 0 (unknown or ambiguous) or the option's val (a
 * value given to an option that takes none), and a long option's element
 * is always argv[optind - 1]. For a short option optopt is the letter, and
 * argv[optind - 1] is not its element when more letters follow (-xv).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/opt_error.h"

/* optopt values at or above this are no character: never print as %c. */
#define OPT_CHAR_LIMIT 256

static bool is_long_element(const char *arg)
{
	return strncmp(arg, "--", 2) == 0 && arg[2] != '\0';
}

/* Length of the name typed after "--", up to its '=value' if any. */
static size_t typed_name_len(const char *name)
{
	return strcspn(name, "=");
}

static bool name_starts_with(const struct option *o, const char *name, size_t n)
{
	return strncmp(o->name, name, n) == 0;
}

/* The option given "=value" that takes none, or NULL if that is not it. */
static const struct option *valued_flag(const char *arg, int val,
					const struct option *longopts)
{
	const char *name = arg + 2;
	size_t n = typed_name_len(name);
	const struct option *o;

	if (name[n] != '=')
		return NULL;
	for (o = longopts; o->name; o++)
		if (o->val == val && o->has_arg == no_argument &&
		    name_starts_with(o, name, n))
			return o;
	return NULL;
}

/* How many long options the typed name is the start of. */
static unsigned int count_matches(const char *name, size_t n,
				  const struct option *longopts)
{
	const struct option *o;
	unsigned int count = 0;

	for (o = longopts; o->name; o++)
		if (name_starts_with(o, name, n))
			count++;
	return count;
}

/* "--s" matches --send and --size: list them after the message. */
static void ambiguous_text(char *buf, size_t len, const char *arg,
			   const struct option *longopts)
{
	const char *name = arg + 2;
	size_t n = typed_name_len(name);
	const struct option *o;
	const char *sep = ": ";
	size_t used;

	snprintf(buf, len, "option '%s' is ambiguous", arg);
	for (o = longopts; o->name; o++) {
		if (!name_starts_with(o, name, n))
			continue;
		used = strlen(buf); /* < len: snprintf cuts, never overflows */
		snprintf(buf + used, len - used, "%s--%s", sep, o->name);
		sep = ", ";
	}
}

static void short_text(char *buf, size_t len, int opt, int letter)
{
	if (letter >= OPT_CHAR_LIMIT)
		snprintf(buf, len, "unknown option");
	else if (letter <= 0 || !isgraph(letter)) /* glibc: a signed char */
		snprintf(buf, len, "unknown option byte 0x%02x",
			 (unsigned int)letter & 0xffU);
	else if (opt == ':')
		snprintf(buf, len, "option '-%c' needs a value", letter);
	else
		snprintf(buf, len, "unknown option '-%c'", letter);
}

void opt_error_text(char *buf, size_t len, int opt, char *const argv[],
		    const struct option *longopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const struct option *o;

	if (!is_long_element(arg)) {
		short_text(buf, len, opt, optopt);
		return;
	}
	if (opt == ':') {
		snprintf(buf, len, "option '%s' needs a value", arg);
		return;
	}
	if (optopt == 0) {
		if (count_matches(arg + 2, typed_name_len(arg + 2), longopts) >
		    1)
			ambiguous_text(buf, len, arg, longopts);
		else
			snprintf(buf, len, "unknown option '%s'", arg);
		return;
	}
	o = valued_flag(arg, optopt, longopts);
	if (o)
		snprintf(buf, len, "option '%s': --%s takes no value", arg,
			 o->name);
	else /* a short option after a long one: -x in "--verbose -xv" */
		short_text(buf, len, opt, optopt);
}
