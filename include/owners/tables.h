/* SPDX-License-Identifier: MIT */
/*
 * Every program's option table, as its main hands it to config_parse: for
 * the build step that makes the table of option owners, and for the
 * tests that hold the programs' command lines to their tables.
 */
#ifndef OWNERS_TABLES_H
#define OWNERS_TABLES_H

#include "config.h"

/* The rows of @program's table, up to its row of zeros. */
const struct config_option *owners_table_of(enum program_id program);

#endif
