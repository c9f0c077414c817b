// SPDX-License-Identifier: GPL-2.0
/* pcblk.c: pcblk's control files (pcblk.h). */
#include "kfile.h"
#include "pcblk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pcblk_set(const char *file, const char *fmt, ...)
{
	char path[128], buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), PCBLK_DIR "/%s", file);
	return kf_write(path, buf, 0);
}

int pcblk_get(const char *file, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), PCBLK_DIR "/%s", file);
	return kf_read(path, buf, size);
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
