// SPDX-License-Identifier: GPL-2.0
/* pcblk.c: pcblk's control files (pcblk.h). */
#include "pcblk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pcblk_set(const char *file, const char *fmt, ...)
{
	char path[128], buf[128];
	va_list ap;
	int fd, n, ret = 0;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), PCBLK_DIR "/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

int pcblk_get(const char *file, char *buf, size_t size)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PCBLK_DIR "/%s", file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

long long pcblk_stat(const char *name)
{
	static char buf[4096];
	size_t len = strlen(name);
	char *p;

	if (pcblk_get("stats", buf, sizeof(buf)))
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ' ')
			return strtoll(p + len, NULL, 10);
	return -1;
}

long long pcblk_writes(void)
{
	return pcblk_stat("atomic_writes") + pcblk_stat("plain_writes");
}

bool pcblk_powered(void)
{
	char buf[16];

	return !pcblk_get("cut", buf, sizeof(buf)) && !strcmp(buf, "on");
}
