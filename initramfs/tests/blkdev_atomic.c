// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic writes on the raw block device: the disk advertises its limits in
 * sysfs and statx, O_DIRECT RWF_ATOMIC writes of every power-of-two size from
 * unit min to unit max succeed, read back, and reach the device as exactly one
 * WRITE ATOMIC(16) of that range; invalid requests fail with EINVAL.
 *
 * usage: blkdev_atomic [DEVICE]   (default: $ATW_DISK)
 */
#include "lib/atomic_io.h"
#include "lib/devcount.h"
#include "lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *dev;
static unsigned int lbs;

static void one_size(int fd, size_t len, uint64_t gen)
{
	off_t off = (off_t)len * 4;	/* naturally aligned, away from LBA 0 */
	void *buf = atw_alloc(len), *rd = atw_alloc(len);
	struct devcount dc;
	ssize_t ret;
	int err;

	atw_fill(buf, len, off, gen);
	err = devcount_start();
	ret = atw_pwrite(fd, buf, len, off, RWF_ATOMIC);
	err = err ? err : devcount_stop(&dc, lbs);
	check(ret == (ssize_t)len, "atomic write of %zu bytes at %lld returns %zu (got %zd)",
	      len, (long long)off, len, ret);
	if (check(!err, "device trace of the %zu-byte write is complete (%d)", len, err)) {
		check(dc.atomics == 1 && dc.writes == 0 && dc.cmd[0].kind == DEVCMD_ATOMIC &&
		      dc.cmd[0].offset == (uint64_t)off && dc.cmd[0].bytes == len,
		      "%zu bytes: exactly one WRITE ATOMIC(16) of that range at the device", len);
		if (dc.atomics != 1 || dc.writes)
			devcount_print(&dc);
	}
	ret = atw_pread(fd, rd, len, off);
	check(ret == (ssize_t)len && atw_verify(rd, len, off, gen),
	      "%zu bytes read back from the device", len);
	free(buf);
	free(rd);
}

static void plain_write(int fd, size_t len)
{
	void *buf = atw_alloc(len);
	struct devcount dc;
	ssize_t ret;
	int err;

	atw_fill(buf, len, 0, 99);
	err = devcount_start();
	ret = atw_pwrite(fd, buf, len, 0, 0);
	err = err ? err : devcount_stop(&dc, lbs);
	check(ret == (ssize_t)len, "plain O_DIRECT write of %zu bytes", len);
	check(!err && dc.atomics == 0 && dc.writes >= 1,
	      "plain write sends no atomic command (%u atomic, %u write)",
	      err ? 0 : dc.atomics, err ? 0 : dc.writes);
	free(buf);
}

static void expect_errno(int fd, size_t len, off_t off, int want, const char *what)
{
	void *buf = atw_alloc(len);
	ssize_t ret = atw_pwrite(fd, buf, len, off, RWF_ATOMIC);

	check(ret == -want, "%s: %zu bytes at %lld fails with %s (got %zd)",
	      what, len, (long long)off, strerror(want), ret);
	free(buf);
}

static void two_iovecs(int fd, size_t unit)
{
	void *buf = atw_alloc(2 * unit);
	struct iovec iov[2] = { { buf, unit }, { (char *)buf + unit, unit } };
	ssize_t ret = pwritev2(fd, iov, 2, 0, RWF_ATOMIC);

	check(ret < 0 && errno == EINVAL,
	      "two iovecs of %zu bytes fail with EINVAL (got %zd, %s)", unit, ret,
	      ret < 0 ? strerror(errno) : "no error");
	free(buf);
}

int main(int argc, char **argv)
{
	long long umin, umax, amax;
	struct atw_limits l;
	size_t len;
	int fd, bfd;

	tap_start("blkdev_atomic");
	dev = argc > 1 ? argv[1] : atw_disk();
	if (!dev)
		tap_bail("no device given and $ATW_DISK unset");
	lbs = atw_disk_queue_attr(dev, "logical_block_size");
	umin = atw_disk_queue_attr(dev, "atomic_write_unit_min_bytes");
	umax = atw_disk_queue_attr(dev, "atomic_write_unit_max_bytes");
	amax = atw_disk_queue_attr(dev, "atomic_write_max_bytes");
	diag("%s: logical block %u, atomic unit [%lld..%lld], max %lld", dev, lbs,
	     umin, umax, amax);
	if (umin < 0) {
		skip("no atomic_write_* in sysfs", "disk advertises atomic limits");
		return tap_done();
	}
	if (!check(umin > 0 && umax >= umin && atw_is_pow2(umin) && atw_is_pow2(umax),
		   "disk advertises atomic unit min/max as powers of two"))
		return tap_done();
	check(umin == lbs, "unit min is one logical block (%lld)", umin);
	check(umax >= 65536, "unit max >= 64 KiB as the harness configured it (%lld)", umax);

	if (atw_statx_limits(-1, dev, &l) == 0) {
		atw_print_limits(dev, &l);
		check(l.dio && l.dio_min == umin && l.dio_max == umax,
		      "statx(STATX_WRITE_ATOMIC) on the device matches sysfs");
	} else {
		check(0, "statx on %s", dev);
	}

	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0)
		tap_bail("open %s O_DIRECT: %s", dev, strerror(errno));

	for (len = umin; len <= (size_t)umax; len *= 2)
		one_size(fd, len, len);

	plain_write(fd, umax);
	if (umax >= 2 * umin)
		expect_errno(fd, 2 * umin, umin, EINVAL, "misaligned offset");
	expect_errno(fd, 3 * umin, 0, EINVAL, "non-power-of-two length");
	expect_errno(fd, 2 * umax, 0, EINVAL, "length above unit max");
	expect_errno(fd, umin / 2, 0, EINVAL, "length below unit min");
	two_iovecs(fd, umin);
	close(fd);

	bfd = open(dev, O_RDWR);
	if (bfd < 0)
		tap_bail("open %s: %s", dev, strerror(errno));
	expect_errno(bfd, umin, 0, EOPNOTSUPP, "buffered RWF_ATOMIC on the device");
	close(bfd);
	return tap_done();
}
