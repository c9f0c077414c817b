// SPDX-License-Identifier: GPL-2.0
/* test_env.c: the test directory and what lies under it (test_env.h). */
#include "test_env.h"

struct atw_env *atw_env(void)
{
	static struct atw_env e;

	return &e;
}

int atw_env_open(const char *name, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", atw_env()->dir, name);
	fd = open(path, O_RDWR | O_CREAT | flags, 0644);
	if (fd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	return fd;
}

void atw_env_unlink(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", atw_env()->dir, name);
	unlink(path);
}

const char *atw_err(ssize_t ret)
{
	return ret < 0 ? strerror(-ret) : "ok";
}

struct atw_env *atw_env_setup(int argc, char **argv, const char *usage)
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
