// SPDX-License-Identifier: GPL-2.0
/* kfile.c: the kernel's small control files (kfile.h). */
#include "kfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kf_write(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

int kf_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	n = n < 0 ? -errno : n;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

long long kf_meminfo_kb(const char *key)
{
	char line[256];
	long long v = -1;
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

uint64_t kf_u64_at(int fd, uint64_t i)
{
	uint64_t e = 0;

	if (pread(fd, &e, sizeof(e), (off_t)(i * sizeof(e))) != sizeof(e))
		e = 0;
	return e;
}
