/* SPDX-License-Identifier: MIT */
/* The one JSON helper the modes' --json files share. */
#ifndef JSON_H
#define JSON_H

#include <stdio.h>

/* @s on @out as a JSON string: quotes, backslashes, control bytes escaped. */
void json_write_string(FILE *out, const char *s);

#endif
