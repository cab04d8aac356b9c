/* SPDX-License-Identifier: MIT */
/*
 * What getopt_long rejected, as one line naming the option the way the
 * user typed it. Shared by the command lines of both programs.
 */
#ifndef OPT_ERROR_H
#define OPT_ERROR_H

#include <getopt.h>
#include <stddef.h>

/* Room for one line of text, the option as typed included (cut if longer). */
#define OPT_ERROR_MAX 256

/*
 * Call right after getopt_long() returned '?' or ':' (@opt), before it is
 * called again: the text comes from optind and optopt. The short options
 * must start with ':' (a missing value gives ':') and opterr be 0. Writes
 * into @buf, with no newline and no program name, one of:
 *   option '--count' needs a value          (or '-C')
 *   option '--send=1': --send takes no value
 *   option '--s' is ambiguous: --send, --size
 *   unknown option '--foo'                  (or '-x')
 */
void opt_error_text(char *buf, size_t len, int opt, char *const argv[],
		    const struct option *longopts);

#endif /* OPT_ERROR_H */
