/* SPDX-License-Identifier: MIT */
/* The one JSON helper the modes' --json files share. */
#ifndef JSON_H
#define JSON_H

#include <stdio.h>

/* @s on @out as a JSON string: quotes, backslashes, control bytes escaped. */
void json_write_string(FILE *out, const char *s);

/*
 * Whether the JSON file at @path could be written once a run ends, asked
 * before it starts: 0; or the errno (positive) that says why not. Nothing
 * is created or truncated: an existing file must be writable, a new one's
 * folder writable.
 */
int json_path_writable(const char *path);

/*
 * Open the JSON file at @path for writing, into *@f: 0, or -errno after a
 * line naming the file.
 */
int json_file_open(const char *path, FILE **f);

/*
 * Close @f, the JSON file at @path: 0, or after a line naming the file
 * -EIO if a write to it failed, -errno if closing it did.
 */
int json_file_close(FILE *f, const char *path);

#endif
