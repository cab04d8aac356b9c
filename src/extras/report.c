// SPDX-License-Identifier: MIT
/* A report with stdout to itself (extras/report.h). */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "extras/report.h"

int report_open(bool quiet, FILE **out, int *saved)
{
	int fd = dup(STDOUT_FILENO), null_fd;

	*saved = -1;
	*out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!*out) {
		int ret = errno ? -errno : -EIO;

		if (fd >= 0)
			close(fd);
		warnx("failed to open the report's stream on stdout: %s",
		      strerror(-ret));
		return ret;
	}
	setvbuf(*out, NULL, _IOLBF, 0);
	if (!quiet)
		return 0;
	fflush(stdout);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	*saved = dup(STDOUT_FILENO);
	if (null_fd >= 0 && *saved >= 0)
		dup2(null_fd, STDOUT_FILENO);
	if (null_fd >= 0)
		close(null_fd);
	return 0;
}

void report_close(FILE *out, int saved)
{
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	fclose(out);
}
