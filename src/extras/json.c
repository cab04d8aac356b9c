// SPDX-License-Identifier: MIT
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extras/json.h"

void json_write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

int json_path_writable(const char *path)
{
	char folder[PATH_MAX];
	const char *slash;
	struct stat st;

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return EISDIR;
		return access(path, W_OK) ? errno : 0;
	}
	if (errno != ENOENT)
		return errno;
	/* A new file: its folder must take it. */
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(folder, sizeof(folder), ".");
	else if (slash == path)
		snprintf(folder, sizeof(folder), "/");
	else
		snprintf(folder, sizeof(folder), "%.*s", (int)(slash - path),
			 path);
	return access(folder, W_OK | X_OK) ? errno : 0;
}

int json_file_open(const char *path, FILE **f)
{
	int ret;

	*f = fopen(path, "w");
	if (*f)
		return 0;
	ret = -errno;
	warnx("failed to open JSON file %s: %s", path, strerror(-ret));
	return ret;
}

int json_file_close(FILE *f, const char *path)
{
	int ret = ferror(f) ? -EIO : 0;

	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		warnx("failed to write JSON file %s: %s", path, strerror(-ret));
	return ret;
}
