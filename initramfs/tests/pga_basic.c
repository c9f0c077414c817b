// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered RWF_ATOMIC on the XFS mounted at DIR (the PG_atomic series):
 *  - statx STATX_WRITE_ATOMIC_BUF limits are sane; a kernel that does not
 *    advertise them refuses buffered RWF_ATOMIC;
 *  - a buffered atomic write within the limits is accepted, one outside
 *    them (too long, too short, misaligned, two iovecs) fails with EINVAL
 *    and dirties nothing;
 *  - after write + fdatasync the device received exactly one WRITE
 *    ATOMIC(16) of exactly the range per atomic write, and no plain write
 *    into it; RWF_ATOMIC|RWF_DSYNC sends it before the call returns.
 *
 * usage: pga_basic DIR
 */
#include "lib/pga_common.h"

#include <sys/uio.h>

#ifdef RWF_ATOMIC

/* Without support, a buffered RWF_ATOMIC (no RWF_WRITETHROUGH) is refused. */
static void refused(const char *why)
{
	unsigned int len = atw_env()->bs;
	void *buf = atw_alloc(len);
	int fd = atw_env_open("pga_refused", O_TRUNC);
	ssize_t ret = atw_pwrite(fd, buf, len, 0, RWF_ATOMIC);

	check(ret == -EOPNOTSUPP || ret == -EINVAL,
	      "%s: a buffered RWF_ATOMIC write of one block is refused (%zd %s)",
	      why, ret, atw_err(ret));
	close(fd);
	free(buf);
}

/* One accepted atomic write of len at off, then a counted fdatasync. */
static void accepted(int fd, unsigned int len, off_t off, uint64_t gen)
{
	void *buf = atw_alloc(len);
	struct devcount dc;
	struct pga_range r;
	ssize_t ret;

	atw_fill(buf, len, off, gen);
	ret = atw_pwrite(fd, buf, len, off, RWF_ATOMIC);
	if (!check(ret == (ssize_t)len, "buffered RWF_ATOMIC of %u bytes at %lld accepted (%zd %s)",
		   len, (long long)off, ret, atw_err(ret)))
		goto out;
	pga_sync_counted(fd, &dc);
	r = pga_file_range(&dc, fd, off, len);
	if (!check(r.atomic == 1 && r.atomic_exact == 1 && r.plain == 0,
		   "%u-byte atomic write + fdatasync: exactly one WRITE ATOMIC of the range (%u exact, %u atomic, %u plain)",
		   len, r.atomic_exact, r.atomic, r.plain))
		devcount_print(&dc);
	check(pga_dev_equals(fd, buf, off, len), "%u-byte atomic write: the device holds it", len);
out:
	free(buf);
}

/* A write that must fail with EINVAL and leave nothing dirty behind. */
static void rejected(int fd, unsigned int len, off_t off, const char *what)
{
	void *buf = atw_alloc(len + atw_env()->ps);
	struct devcount dc;
	ssize_t ret;

	atw_fill(buf, len, off, 99);
	ret = atw_pwrite(fd, buf, len, off, RWF_ATOMIC);
	check(ret == -EINVAL, "%s: %u bytes at %lld fails with EINVAL (%zd %s)", what, len,
	      (long long)off, ret, atw_err(ret));
	pga_sync_counted(fd, &dc);
	check(dc.atomics == 0 && dc.write_bytes <= 2 * 65536,
	      "%s: nothing of it reaches the device (%u atomic, %llu plain bytes incl. log)", what,
	      dc.atomics, (unsigned long long)dc.write_bytes);
	free(buf);
}

static void two_iovecs(int fd, unsigned int len)
{
	char *buf = atw_alloc(len);
	struct iovec iov[2] = { { buf, len / 2 }, { buf + len / 2, len / 2 } };
	ssize_t ret = pwritev2(fd, iov, 2, 0, RWF_ATOMIC);

	ret = ret < 0 ? -errno : ret;
	check(ret == -EINVAL, "two iovecs of %u bytes in all: EINVAL (%zd %s)", len, ret,
	      atw_err(ret));
	free(buf);
}

static void dsync(int fd, unsigned int len, off_t off)
{
	void *buf = atw_alloc(len);
	struct devcount dc;
	struct pga_range r;
	ssize_t ret;
	int err;

	atw_fill(buf, len, off, 7);
	err = devcount_start();
	if (err)
		tap_bail("devcount_start: %s", strerror(-err));
	ret = atw_pwrite(fd, buf, len, off, RWF_ATOMIC | RWF_DSYNC);
	err = devcount_stop(&dc, atw_env()->lbs);
	if (err)
		tap_bail("devcount_stop: %s", strerror(-err));
	if (!check(ret == (ssize_t)len, "RWF_ATOMIC|RWF_DSYNC of %u bytes accepted (%zd %s)", len, ret,
		   atw_err(ret)))
		goto out;
	r = pga_file_range(&dc, fd, off, len);
	check(r.atomic == 1 && r.atomic_exact == 1 && r.plain == 0,
	      "RWF_ATOMIC|RWF_DSYNC: one WRITE ATOMIC of the range before the call returns (%u exact, %u plain)",
	      r.atomic_exact, r.plain);
out:
	free(buf);
}

/*
 * n atomic writes at scattered offsets (several in one page when blocks are
 * smaller), one fdatasync: one command each, counted from the first write.
 */
static void scattered(int fd, unsigned int len, unsigned int n)
{
	void *buf = atw_alloc(len);
	unsigned int i, good = 0;
	struct devcount dc;
	off_t base = 256 * (off_t)len;
	int err;

	/*
	 * Extend the file first: writes beyond EOF make XFS zero the gap from
	 * the old EOF, which with blocks smaller than a page flushes the folio
	 * of the previous write early. Count from the first write anyway.
	 */
	if (ftruncate(fd, base + 3 * (off_t)n * len))
		tap_bail("ftruncate: %s", strerror(errno));
	err = devcount_start();
	if (err)
		tap_bail("devcount_start: %s", strerror(-err));
	for (i = 0; i < n; i++) {
		atw_fill(buf, len, base + 3 * i * (off_t)len, 20 + i);
		pga_write_or_bail(fd, buf, len, base + 3 * i * (off_t)len, RWF_ATOMIC);
	}
	if (fdatasync(fd))
		tap_bail("fdatasync: %s", strerror(errno));
	err = devcount_stop(&dc, atw_env()->lbs);
	if (err)
		tap_bail("devcount_stop: %s", strerror(-err));
	for (i = 0; i < n; i++) {
		struct pga_range r = pga_file_range(&dc, fd, base + 3 * i * (off_t)len, len);

		if (r.atomic == 1 && r.atomic_exact == 1 && r.plain == 0)
			good++;
	}
	if (!check(good == n && dc.atomics == n,
		   "%u scattered atomic writes + one fdatasync: one exact WRITE ATOMIC each (%u of %u, %u in all)",
		   n, good, n, dc.atomics))
		devcount_print(&dc);
	free(buf);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	const struct atw_limits *l = &e->lim;
	unsigned int len, sizes = 0;
	uint64_t gen = 1;
	int fd;

	if (!l->buf_known) {
		skip(PGA_NO_UAPI, "pga_basic");
		return;
	}
	if (!l->buf) {
		refused("statx advertises no buffered atomic writes");
		skip(PGA_NO_BUF, "pga_basic: accepted and rejected atomic writes");
		return;
	}
	if (pga_wt_only) {
		refused("buffered atomics need RWF_WRITETHROUGH");
		skip(PGA_WT_ONLY, "pga_basic: accepted and rejected atomic writes");
		return;
	}
	check(l->buf_min && atw_is_pow2(l->buf_min) && atw_is_pow2(l->buf_max) &&
	      l->buf_min <= l->buf_max,
	      "statx buffered atomic unit min %u max %u: powers of two, min <= max", l->buf_min,
	      l->buf_max);
	check(l->buf_segs == 1, "statx buffered atomic segments max is 1 (%u)", l->buf_segs);
	check(l->buf_min >= e->lbs, "buffered unit min %u >= the sector size %u", l->buf_min,
	      e->lbs);

	fd = atw_env_open("pga_basic", O_TRUNC);
	/* every size within the limits, into a hole and over written data */
	for (len = l->buf_min; len <= l->buf_max && sizes < 6; len *= 2, sizes++) {
		accepted(fd, len, 4 * (off_t)len, gen++);
		accepted(fd, len, 4 * (off_t)len, gen++);
	}
	scattered(fd, l->buf_min, 16);
	dsync(fd, l->buf_max, 2 * (off_t)l->buf_max);

	if (l->buf_max <= (1U << 30))
		rejected(fd, 2 * l->buf_max, 8 * (off_t)l->buf_max, "longer than unit max");
	if (l->buf_min / 2 >= e->lbs)
		rejected(fd, l->buf_min / 2, 8 * (off_t)l->buf_min, "shorter than unit min");
	else
		skip("unit min is one sector", "shorter than unit min");
	rejected(fd, l->buf_min, 8 * (off_t)l->buf_min + l->buf_min / 2, "offset not aligned to the length");
	if (3 * l->buf_min <= l->buf_max)
		rejected(fd, 3 * l->buf_min, 0, "length not a power of two");
	two_iovecs(fd, l->buf_min);
	close(fd);
}
#endif

int main(int argc, char **argv)
{
	tap_start("pga_basic");
	pga_setup(argc, argv);
#ifdef RWF_ATOMIC
	run();
#else
	skip("uapi has no RWF_ATOMIC", "pga_basic");
#endif
	return tap_done();
}
