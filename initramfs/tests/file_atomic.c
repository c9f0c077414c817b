// SPDX-License-Identifier: GPL-2.0
/*
 * File-level atomic writes on the filesystem mounted at DIR, with
 * expectations taken from what statx advertises:
 *  - advertised DIO limits: one O_DIRECT RWF_ATOMIC write of the smallest
 *    unit (one file system block) into a hole, an unwritten extent and a
 *    written extent succeeds, reaches the device as exactly one WRITE
 *    ATOMIC(16) of exactly that range, and reads back after a remount;
 *    invalid requests fail with EINVAL; a plain write of the same size sends
 *    no atomic command (units above one block, which may be written out of
 *    place: file_atomic_units);
 *  - not advertised: O_DIRECT RWF_ATOMIC fails with EOPNOTSUPP;
 *  - buffered RWF_ATOMIC without advertised buffered limits: EOPNOTSUPP.
 *
 * usage: file_atomic DIR   (the disk is $ATW_DISK, DIR its mount point)
 */
#include "lib/atomic_io.h"
#include "lib/devcount.h"
#include "lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static const char *dir, *disk;
static unsigned int lbs;

static int open_file(const char *name, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | flags, 0644);
	if (fd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	return fd;
}

enum extent_kind { HOLE, UNWRITTEN, WRITTEN };
static const char *const extent_name[] = { "hole", "unwritten extent", "written extent" };

/* One atomic write of len at off over the given kind of extent. */
static void atomic_over(int fd, enum extent_kind kind, size_t len, off_t off)
{
	void *buf = atw_alloc(len);
	struct devcount dc;
	uint64_t phys = 0;
	ssize_t ret;
	int err;

	if (kind == UNWRITTEN && fallocate(fd, 0, off, len))
		check(0, "fallocate %zu at %lld: %s", len, (long long)off, strerror(errno));
	if (kind == WRITTEN) {
		atw_fill(buf, len, off, 1);
		if (atw_pwrite(fd, buf, len, off, 0) != (ssize_t)len)
			check(0, "pre-write %zu at %lld", len, (long long)off);
	}
	atw_fill(buf, len, off, 2);
	err = devcount_start();
	ret = atw_pwrite(fd, buf, len, off, RWF_ATOMIC);
	err = err ? err : devcount_stop(&dc, lbs);
	check(ret == (ssize_t)len, "%s: atomic O_DIRECT write of %zu at %lld (got %zd)",
	      extent_name[kind], len, (long long)off, ret);
	if (atw_file_phys(fd, off, &phys))
		check(0, "%s: FIEMAP of %lld", extent_name[kind], (long long)off);
	if (check(!err, "%s: device trace complete (%d)", extent_name[kind], err)) {
		unsigned int i, atomics_here = 0;

		for (i = 0; i < dc.ncmd; i++)
			if (dc.cmd[i].kind == DEVCMD_ATOMIC && dc.cmd[i].offset == phys &&
			    dc.cmd[i].bytes == len)
				atomics_here++;
		check(dc.atomics == 1 && atomics_here == 1 &&
		      devcount_writes_in(&dc, phys, len) == 1,
		      "%s: exactly one WRITE ATOMIC(16) of exactly the range at the device",
		      extent_name[kind]);
		if (dc.atomics != 1 || atomics_here != 1)
			devcount_print(&dc);
	}
	free(buf);
}

static void expect_atomic_errno(int fd, size_t len, off_t off, int flags, int want,
				const char *what)
{
	void *buf = atw_alloc(len);
	ssize_t ret = atw_pwrite(fd, buf, len, off, RWF_ATOMIC | flags);

	check(ret == -want, "%s: %zu bytes at %lld fails with %s (got %zd%s%s)", what, len,
	      (long long)off, strerror(want), ret, ret < 0 ? ", " : "",
	      ret < 0 ? strerror(-ret) : "");
	free(buf);
}

static void plain_same_size(int fd, size_t len)
{
	void *buf = atw_alloc(len);
	struct devcount dc;
	ssize_t ret;
	int err;

	atw_fill(buf, len, 0, 3);
	err = devcount_start();
	ret = atw_pwrite(fd, buf, len, 0, 0);
	err = err ? err : devcount_stop(&dc, lbs);
	check(ret == (ssize_t)len && !err && dc.atomics == 0 && dc.writes >= 1,
	      "plain O_DIRECT write of %zu sends no atomic command (%u atomic, %u write)",
	      len, err ? 0 : dc.atomics, err ? 0 : dc.writes);
	free(buf);
}

static void remount(void)
{
	if (umount(dir))
		tap_bail("umount %s: %s", dir, strerror(errno));
	if (mount(disk, dir, "xfs", 0, NULL))
		tap_bail("mount %s on %s: %s", disk, dir, strerror(errno));
}

static void dio_advertised(const struct atw_limits *l)
{
	size_t len, nsizes = 0;
	int fd, k;

	check(atw_is_pow2(l->dio_min) && atw_is_pow2(l->dio_max) &&
	      l->dio_min <= l->dio_max, "statx DIO unit min/max are powers of two");
	check(l->dio_min <= l->blksize && l->blksize <= l->dio_max,
	      "statx DIO unit range covers the block size %u", l->blksize);
	check(l->dio_segs == 1, "statx DIO segments max is 1 (%u)", l->dio_segs);

	fd = open_file("dio_atomic", O_DIRECT | O_TRUNC);
	for (len = l->dio_min; len <= l->dio_min; len *= 2, nsizes++)
		for (k = HOLE; k <= WRITTEN; k++)
			atomic_over(fd, k, len, (off_t)len * (16 + 4 * nsizes + k));
	fsync(fd);
	close(fd);

	remount();
	fd = open_file("dio_atomic", O_DIRECT);
	nsizes = 0;
	for (len = l->dio_min; len <= l->dio_min; len *= 2, nsizes++) {
		void *rd = atw_alloc(len);

		for (k = HOLE; k <= WRITTEN; k++) {
			off_t off = (off_t)len * (16 + 4 * nsizes + k);

			check(atw_pread(fd, rd, len, off) == (ssize_t)len &&
			      atw_verify(rd, len, off, 2),
			      "%s: %zu-byte atomic write reads back after remount",
			      extent_name[k], len);
		}
		free(rd);
	}

	plain_same_size(fd, l->dio_min);
	if (l->dio_max >= 2 * l->dio_min)
		expect_atomic_errno(fd, 2 * l->dio_min, l->dio_min, 0, EINVAL,
				    "misaligned offset");
	else
		expect_atomic_errno(fd, l->dio_min, l->dio_min / 2, 0, EINVAL,
				    "misaligned offset");
	expect_atomic_errno(fd, 2 * l->dio_max, 0, 0, EINVAL, "length above unit max");
	if (l->dio_min > lbs)
		expect_atomic_errno(fd, l->dio_min / 2, 0, 0, EINVAL, "length below unit min");
	if (l->dio_max >= 4 * l->dio_min)
		expect_atomic_errno(fd, 3 * l->dio_min, 0, 0, EINVAL, "non-power-of-two length");
	{
		void *buf = atw_alloc(2 * l->dio_min);
		struct iovec iov[2] = { { buf, l->dio_min },
					{ (char *)buf + l->dio_min, l->dio_min } };
		ssize_t ret = pwritev2(fd, iov, 2, 0, RWF_ATOMIC);

		check(ret < 0 && errno == EINVAL, "two iovecs fail with EINVAL (got %zd)", ret);
		free(buf);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	struct atw_limits l;
	int fd;

	tap_start("file_atomic");
	if (argc < 2)
		tap_bail("usage: file_atomic DIR");
	dir = argv[1];
	disk = atw_disk();
	if (!disk)
		tap_bail("$ATW_DISK unset");
	lbs = atw_disk_queue_attr(disk, "logical_block_size");

	fd = open_file("probe", O_TRUNC);
	if (atw_statx_limits(fd, NULL, &l))
		tap_bail("statx: %s", strerror(errno));
	atw_print_limits(dir, &l);
	close(fd);

	if (l.dio) {
		dio_advertised(&l);
	} else {
		fd = open_file("dio_refused", O_DIRECT | O_TRUNC);
		expect_atomic_errno(fd, l.blksize, 0, 0, EOPNOTSUPP,
				    "DIO atomic not advertised: O_DIRECT RWF_ATOMIC refused");
		close(fd);
	}

	if (!l.buf_known || !l.buf) {
		fd = open_file("buf_refused", O_TRUNC);
		expect_atomic_errno(fd, l.blksize, 0, 0, EOPNOTSUPP,
				    "buffered atomic not advertised: buffered RWF_ATOMIC refused");
		close(fd);
	} else {
		diag("buffered atomic advertised: covered by buffered_atomic");
	}
#ifdef STATX_WRITE_ATOMIC_BUF
	/* A uapi that names the buffered mask must be answered by the kernel. */
	check(l.buf_mask & STATX_WRITE_ATOMIC_BUF, "statx answers STATX_WRITE_ATOMIC_BUF");
	check(!(l.both_mask & (STATX_WRITE_ATOMIC_BUF | STATX_WRITE_ATOMIC_DIO)),
	      "statx with both atomic masks answers neither (mask 0x%llx)",
	      (unsigned long long)l.both_mask);
#endif
	return tap_done();
}
