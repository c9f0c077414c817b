/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test directory a file-level guest test runs in (argv[1], an XFS mount)
 * and what lies under it: the disk ($ATW_DISK), its sector size, the file
 * system block size, the page size and the statx atomic write limits of a
 * regular file there. Shared by the wt_* and pga_* tests.
 */
#ifndef ATW_TEST_ENV_H
#define ATW_TEST_ENV_H

#include "atomic_io.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

struct atw_env {
	const char *dir;
	const char *disk;
	unsigned int lbs;	/* device logical block size */
	unsigned int bs;	/* filesystem block size */
	unsigned int ps;	/* page size */
	struct atw_limits lim;	/* statx of a regular file in dir */
};

static inline struct atw_env *atw_env(void)
{
	static struct atw_env e;

	return &e;
}

/* Opens (creating) name in the test directory; bails on failure. */
static inline int atw_env_open(const char *name, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", atw_env()->dir, name);
	fd = open(path, O_RDWR | O_CREAT | flags, 0644);
	if (fd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	return fd;
}

static inline void atw_env_unlink(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", atw_env()->dir, name);
	unlink(path);
}

/* "ok" for a non-negative result, else the text of -ret. */
static inline const char *atw_err(ssize_t ret)
{
	return ret < 0 ? strerror(-ret) : "ok";
}

/*
 * argv[1] is DIR, $ATW_DISK the disk under it; bails if either is missing
 * (printing usage). Fills and prints atw_env().
 */
static inline struct atw_env *atw_env_setup(int argc, char **argv, const char *usage)
{
	struct atw_env *e = atw_env();
	struct statfs sfs;
	long long v;
	int fd;

	if (argc < 2)
		tap_bail("usage: %s", usage);
	e->dir = argv[1];
	e->disk = atw_disk();
	if (!e->disk)
		tap_bail("$ATW_DISK unset");
	v = atw_disk_queue_attr(e->disk, "logical_block_size");
	if (v <= 0)
		tap_bail("no logical_block_size for %s", e->disk);
	e->lbs = v;
	e->ps = sysconf(_SC_PAGESIZE);
	fd = atw_env_open("atw_probe", O_TRUNC);
	if (fstatfs(fd, &sfs))
		tap_bail("fstatfs: %s", strerror(errno));
	e->bs = sfs.f_bsize;
	if (atw_statx_limits(fd, NULL, &e->lim))
		tap_bail("statx: %s", strerror(errno));
	close(fd);
	atw_env_unlink("atw_probe");
	diag("dir %s disk %s: sector %u, fs block %u, page %u", e->dir, e->disk,
	     e->lbs, e->bs, e->ps);
	atw_print_limits(e->dir, &e->lim);
	return e;
}

#endif
