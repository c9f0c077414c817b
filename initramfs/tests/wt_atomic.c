// SPDX-License-Identifier: GPL-2.0
/*
 * RWF_ATOMIC | RWF_WRITETHROUGH buffered writes (docs/design.md, "Atomic
 * write-throughs") on the XFS mounted at DIR, expectations from what statx
 * advertises:
 *  - RWF_ATOMIC on a buffered write without RWF_WRITETHROUGH: EOPNOTSUPP;
 *  - statx STATX_WRITE_ATOMIC_BUF: powers of two, one segment, from the
 *    block size up to the DIO maximum (XFS wiring: the same units as
 *    atomic direct writes, docs/design.md "Units above one block");
 *  - not advertised: RWF_ATOMIC | RWF_WRITETHROUGH refused (EOPNOTSUPP);
 *  - advertised: each power-of-two unit into a hole, an unwritten extent, a
 *    written extent, over clean and over dirty cached data, returns the
 *    length and reaches the device the way the layout before it allows
 *    (over dirty data: the layout once the write has written that data
 *    back, which it does first, docs/design.md "Atomic write-throughs
 *    over dirty data"): a
 *    unit of one block, and one of several over one written or unwritten
 *    extent at a device address aligned to it (within the size and the
 *    device's maximum), as exactly one WRITE ATOMIC(16) of exactly the
 *    range (and no other write to it), in place; any other unit of several
 *    blocks out of place, with no atomic command, to blocks the range did
 *    not map before; the range is allocated and written at return (no
 *    delalloc); the device holds the data; the folios are clean; an
 *    unaligned user buffer works (one block and the largest unit);
 *  - EINVAL for a misaligned offset (also one aligned to blocks but not to
 *    the unit), a length above max, below min, not a power of two, two
 *    iovecs -- and nothing dirtied by the refused call;
 *  - a device error on the atomic command (scsi_debug injection) of a
 *    one-block unit returns -EIO, and the range reads back wholly old or
 *    wholly new (cache, device, after fdatasync and after a remount), never
 *    written non-atomically;
 *  - everything reads back after a remount.
 *
 * usage: wt_atomic DIR   (the disk is $ATW_DISK)
 */
#include "lib/wt_common.h"

#ifdef RWF_WRITETHROUGH

#define AWT (RWF_ATOMIC | RWF_WRITETHROUGH)
#define MAX_UNIT (1u << 20)
#define MAXEXT 256

static unsigned int dev_max;	/* the device's atomic write unit max */

enum prep { HOLE, UNWRITTEN, WRITTEN, CLEAN_CACHE, DIRTY };
static const char *const prep_name[] = {
	"hole", "unwritten extent", "written extent", "clean cached data", "dirty cached data",
};

static void prepare(int fd, enum prep p, size_t len, off_t off)
{
	unsigned char *buf = atw_alloc(len);

	if (p == UNWRITTEN && fallocate(fd, 0, off, len))
		check(0, "fallocate %zu at %lld: %s", len, (long long)off, strerror(errno));
	if (p == WRITTEN) {
		/* Written with O_DIRECT: on disk, not in the page cache. */
		char path[64];
		int dfd;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		dfd = open(path, O_RDWR | O_DIRECT);
		atw_fill(buf, len, off, 1);
		if (dfd < 0 || atw_pwrite(dfd, buf, len, off, 0) != (ssize_t)len)
			check(0, "O_DIRECT pre-write %zu at %lld", len, (long long)off);
		if (dfd >= 0)
			close(dfd);
		fdatasync(fd);
	} else if (p >= CLEAN_CACHE) {
		atw_fill(buf, len, off, 1);
		if (atw_pwrite(fd, buf, len, off, 0) != (ssize_t)len)
			check(0, "pre-write %zu at %lld", len, (long long)off);
		if (p != DIRTY)
			fdatasync(fd);
	} else {
		fdatasync(fd);
	}
	free(buf);
}

/*
 * The extents of [off, off + len) without FIEMAP_FLAG_SYNC (which would write
 * dirty data back); bails on a FIEMAP error.
 */
static int extents(int fd, off_t off, size_t len, struct atw_extent *x)
{
	int n = atw_file_extents_nosync(fd, off, len, x, MAXEXT);

	if (n < 0)
		tap_bail("FIEMAP of %zu at %lld: %s", len, (long long)off, strerror(-n));
	return n;
}

static bool no_address(const struct atw_extent *x)
{
	return x->flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN);
}

/*
 * Data writes into the device blocks that [off, off + len) maps now (a range
 * of several blocks may lie in several extents), only plain ones if
 * plain_only.
 */
static unsigned int range_writes(int fd, const struct devcount *dc, off_t off, size_t len,
				 bool plain_only)
{
	struct atw_extent x[MAXEXT];
	int n = extents(fd, off, len, x), i;
	unsigned int j, w = 0;

	for (i = 0; i < n; i++) {
		if (no_address(&x[i]))
			continue;
		for (j = 0; j < dc->ncmd; j++) {
			const struct devcmd *c = &dc->cmd[j];

			if ((c->kind == DEVCMD_WRITE || (!plain_only && c->kind == DEVCMD_ATOMIC)) &&
			    c->offset < x[i].physical + x[i].length &&
			    x[i].physical < c->offset + c->bytes)
				w++;
		}
	}
	return w;
}

static unsigned int writes_after_call(int fd, const struct devcount *dc, off_t off, size_t len)
{
	return range_writes(fd, dc, off, len, false);
}

/* Non-atomic data writes into the device blocks of [off, off + len). */
static unsigned int plain_writes_in(int fd, const struct devcount *dc, off_t off, size_t len)
{
	return range_writes(fd, dc, off, len, true);
}

/* WT_MAP_* of extents x over len bytes: 0 if all of it is allocated and written. */
static int map_of(const struct atw_extent *x, int n, size_t len)
{
	uint64_t covered = 0;
	int i, m = 0;

	for (i = 0; i < n; i++) {
		covered += x[i].length;
		if (no_address(&x[i]))
			m |= WT_MAP_DELALLOC;
		else if (x[i].flags & FIEMAP_EXTENT_UNWRITTEN)
			m |= WT_MAP_UNWRITTEN;
	}
	return covered == len ? m : m | WT_MAP_HOLE;
}

/*
 * Must an atomic write-through of [off, off + len) go in place, as one
 * WRITE ATOMIC(16) to the blocks the range has (x, n: its extents now)?
 * One block always does. Several blocks (docs/design.md, "Units above one
 * block") only where one written or unwritten extent, not shared, maps the
 * whole range at a device address aligned to len, the device takes that
 * length and the write does not extend the file; otherwise the write goes
 * out of place.
 */
static bool in_place(int fd, size_t len, off_t off, const struct atw_extent *x, int n)
{
	struct stat st;

	if (len <= atw_env()->bs)
		return true;
	if (fstat(fd, &st))
		tap_bail("fstat: %s", strerror(errno));
	return len <= dev_max && off + (off_t)len <= st.st_size && n == 1 &&
	       x[0].length == len && !no_address(&x[0]) &&
	       !(x[0].flags & FIEMAP_EXTENT_SHARED) && x[0].physical % len == 0;
}

/* Does an extent of a overlap, on the device, an extent of b? */
static bool phys_overlap(const struct atw_extent *a, int na, const struct atw_extent *b, int nb)
{
	int i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (!no_address(&a[i]) && !no_address(&b[j]) &&
			    a[i].physical < b[j].physical + b[j].length &&
			    b[j].physical < a[i].physical + a[i].length)
				return true;
	return false;
}

static void one_atomic(int fd, enum prep p, size_t len, off_t off)
{
	const struct atw_env *e = atw_env();
	unsigned char *buf = atw_alloc(len), *dev = atw_alloc(len);
	struct atw_extent before[MAXEXT], after[MAXEXT];
	struct devcount dc;
	int nb, na, err, m, i;
	bool hw;
	ssize_t ret;

	prepare(fd, p, len, off);
	/* without a sync: dirty cached data stays dirty (delalloc) */
	nb = extents(fd, off, len, before);
	hw = in_place(fd, len, off, before, nb);
	atw_fill(buf, len, off, 2);
	err = wt_trace_start();
	ret = atw_pwrite(fd, buf, len, off, AWT);
	err = err ? err : devcount_stop(&dc, e->lbs);
	if (!check(ret == (ssize_t)len, "%s: atomic write-through of %zu at %lld returns the length (got %zd %s)",
		   prep_name[p], len, (long long)off, ret, atw_err(ret)))
		goto out;
	na = extents(fd, off, len, after);
	m = map_of(after, na, len);
	/*
	 * Over dirty data the write writes that data back first, which
	 * allocates the delalloc range: the way it goes is the one the range
	 * has then, in place where one aligned extent maps it.
	 */
	if (p == DIRTY && !err)
		hw = dc.atomics == 1 && in_place(fd, len, off, after, na);
	check(m == 0, "%s, %zu: range allocated and written at return (map 0x%x: no delalloc, no unwritten)",
	      prep_name[p], len, m);
	if (check(!err, "%s, %zu: device trace complete (%d)", prep_name[p], len, err) && !m && hw) {
		unsigned int exact = wt_atomics_exact(&dc, after[0].physical, len);
		unsigned int in = wt_writes_in(&dc, after[0].physical, len);
		bool same = len <= e->bs || p == DIRTY ||
			    (na == 1 && after[0].physical == before[0].physical);

		if (!check(dc.atomics == 1 && exact == 1 && (p == DIRTY || in == 1) && same,
			   "%s, %zu: exactly one WRITE ATOMIC(16) of exactly the range%s (%u atomic, %u exact, %u writes to the range)",
			   prep_name[p], len, len > e->bs ? ", in place" : "", dc.atomics, exact, in))
			devcount_print(&dc);
	} else if (!err && !m) {
		bool landed = na >= 1;

		for (i = 0; i < na; i++)
			if (wt_writes_in(&dc, after[i].physical, after[i].length) < 1)
				landed = false;
		if (!check(dc.atomics == 0 && landed && !phys_overlap(before, nb, after, na),
			   "%s, %zu: out of place: no atomic command (%u), written to new blocks",
			   prep_name[p], len, dc.atomics))
			devcount_print(&dc);
	}
	m = wt_dev_read_range(fd, dev, off, len);
	check(m == 0 && atw_verify(dev, len, off, 2), "%s, %zu: the device holds the data at return",
	      prep_name[p], len);
	err = wt_trace_start();
	ret = fdatasync(fd);
	err = err ? err : devcount_stop(&dc, e->lbs);
	check(!ret && !err && writes_after_call(fd, &dc, off, len) == 0,
	      "%s, %zu: folios clean afterwards (fdatasync sent %u writes to the range)",
	      prep_name[p], len, err ? 0 : writes_after_call(fd, &dc, off, len));
out:
	free(buf);
	free(dev);
}

/* A refused call must leave the range as it was: old data, nothing dirty. */
static void expect_refused(int fd, size_t len, off_t off, const struct iovec *iov, int niov,
			   int flags, int want, const char *what)
{
	const struct atw_env *e = atw_env();
	size_t span = len < e->bs ? e->bs : len;
	off_t s0 = off / span * span;
	unsigned char *old = atw_alloc(2 * span), *rd = atw_alloc(2 * span);
	unsigned char *buf = atw_alloc(len + 1);
	struct iovec one = { buf, len };
	struct devcount dc;
	ssize_t ret;
	int err;

	atw_fill(old, 2 * span, s0, 7);
	if (atw_pwrite(fd, old, 2 * span, s0, 0) != (ssize_t)(2 * span) || fdatasync(fd))
		check(0, "%s: pre-write", what);
	memset(buf, 0xee, len);
	if (!iov) {
		iov = &one;
		niov = 1;
	}
	ret = pwritev2(fd, iov, niov, off, flags);
	ret = ret < 0 ? -errno : ret;
	check(ret == -want, "%s: %zu bytes at %lld fails with %s (got %zd %s)", what, len,
	      (long long)off, strerror(want), ret, atw_err(ret));
	err = wt_trace_start();
	ret = fdatasync(fd);
	err = err ? err : devcount_stop(&dc, e->lbs);
	check(atw_pread(fd, rd, 2 * span, s0) == (ssize_t)(2 * span) && !memcmp(rd, old, 2 * span),
	      "%s: the range still reads the old data", what);
	check(!err && writes_after_call(fd, &dc, s0, 2 * span) == 0,
	      "%s: nothing dirtied by the refused call (fdatasync sent %u writes to the range)",
	      what, err ? 0 : writes_after_call(fd, &dc, s0, 2 * span));
	free(old);
	free(rd);
	free(buf);
}

static void refusals(const struct atw_limits *l)
{
	uint32_t min = l->buf_min, max = l->buf_max;
	int fd = atw_env_open("wt_atomic_einval", O_TRUNC);
	unsigned char *b = atw_alloc(2 * min);
	struct iovec iov[2] = { { b, min }, { b + min, min } };

	if (max >= 2 * min)
		expect_refused(fd, 2 * min, min, NULL, 0, AWT, EINVAL, "misaligned offset");
	else if (min > atw_env()->lbs)
		expect_refused(fd, min, min / 2, NULL, 0, AWT, EINVAL, "misaligned offset");
	else
		expect_refused(fd, min, 512, NULL, 0, AWT, EINVAL, "misaligned offset (sub-sector)");
	/* a unit of several blocks at an offset aligned to blocks, not to it */
	if (max >= 4 * min)
		expect_refused(fd, 4 * (size_t)min, 2 * (off_t)min, NULL, 0, AWT, EINVAL,
			       "offset aligned to blocks, not to the unit");
	expect_refused(fd, 2 * (size_t)max, 0, NULL, 0, AWT, EINVAL, "length above unit max");
	if (min >= 2)
		expect_refused(fd, min / 2, 0, NULL, 0, AWT, EINVAL, "length below unit min");
	expect_refused(fd, 3 * (size_t)min, 0, NULL, 0, AWT, EINVAL, "non-power-of-two length");
	expect_refused(fd, 2 * (size_t)min, 0, iov, 2, AWT, EINVAL, "two iovecs");
	close(fd);
	free(b);
}

static void unaligned_user_buffer(size_t len, const char *what)
{
	int fd = atw_env_open("wt_atomic_ubuf", O_TRUNC);
	unsigned char *raw = atw_alloc(len + 64), *dev = atw_alloc(len);
	unsigned char *buf = raw + 17;
	ssize_t ret;

	atw_fill(buf, len, 0, 3);
	ret = atw_pwrite(fd, buf, len, 0, AWT);
	check(ret == (ssize_t)len && wt_dev_read_range(fd, dev, 0, len) == 0 &&
	      atw_verify(dev, len, 0, 3),
	      "an unaligned user buffer (buffered copy) works%s: %zd %s", what, ret, atw_err(ret));
	close(fd);
	free(raw);
	free(dev);
}

static void injected_error(size_t len)
{
	const struct atw_env *e = atw_env();
	unsigned char *buf = atw_alloc(len), *rd = atw_alloc(len);
	off_t off = 8 * (off_t)len;
	enum wt_version v;
	struct devcount dc;
	char path[256];
	uint64_t gen = 0;
	ssize_t ret;
	int fd, err;

	if (wt_inject_path(path, sizeof(path))) {
		skip("no scsi_debug error injection in debugfs", "atomic write-through after a device error");
		goto out_free;
	}
	fd = atw_env_open("wt_atomic_eio", O_TRUNC);
	atw_fill(buf, len, off, 1);
	if (atw_pwrite(fd, buf, len, off, 0) != (ssize_t)len || fsync(fd))
		tap_bail("eio: pre-write");
	sync();
	atw_fill(buf, len, off, 5);
	if (wt_inject(0x9c, 6)) {
		check(0, "arming the injected error on WRITE ATOMIC(16)");
		close(fd);
		goto out_free;
	}
	ret = atw_pwrite(fd, buf, len, off, AWT);
	wt_inject_clear(0x9c);
	check(ret == -EIO, "device error on WRITE ATOMIC(16): the call returns -EIO (got %zd %s)",
	      ret, atw_err(ret));

	v = atw_pread(fd, rd, len, off) == (ssize_t)len ? wt_version_of(rd, len, off, &gen) : WT_V_MIXED;
	check(v == WT_V_ONE && (gen == 1 || gen == 5),
	      "after the error the cached range is wholly old or wholly new (%s, gen %llu)",
	      wt_version_name(v), (unsigned long long)gen);
	v = wt_dev_read_range(fd, rd, off, len) == 0 ? wt_version_of(rd, len, off, &gen) : WT_V_MIXED;
	check(v == WT_V_ONE && (gen == 1 || gen == 5),
	      "after the error the device range is wholly old or wholly new (%s, gen %llu)",
	      wt_version_name(v), (unsigned long long)gen);
	err = wt_trace_start();
	ret = fdatasync(fd);
	err = err ? err : devcount_stop(&dc, e->lbs);
	diag("fdatasync after the failed atomic write: %zd", ret);
	if (!check(!err && plain_writes_in(fd, &dc, off, len) == 0,
		   "after the error the range is never written non-atomically (fdatasync sent %u plain writes to it)",
		   err ? 0 : plain_writes_in(fd, &dc, off, len)))
		devcount_print(&dc);
	close(fd);
	wt_remount();
	fd = atw_env_open("wt_atomic_eio", 0);
	v = atw_pread(fd, rd, len, off) == (ssize_t)len ? wt_version_of(rd, len, off, &gen) : WT_V_MIXED;
	check(v == WT_V_ONE && (gen == 1 || gen == 5),
	      "after the error and a remount the range is wholly old or wholly new (%s, gen %llu)",
	      wt_version_name(v), (unsigned long long)gen);
	close(fd);
out_free:
	free(buf);
	free(rd);
}

static void advertised(const struct atw_limits *l)
{
	const struct atw_env *e = atw_env();
	uint32_t max = l->buf_max > MAX_UNIT ? MAX_UNIT : l->buf_max;
	unsigned int nsizes = 0, k;
	size_t len;
	int fd;

	check(atw_is_pow2(l->buf_min) && atw_is_pow2(l->buf_max) && l->buf_min <= l->buf_max,
	      "statx buffered unit min/max are powers of two (%u..%u)", l->buf_min, l->buf_max);
	check(l->buf_min <= e->bs && e->bs <= l->buf_max,
	      "statx buffered unit range covers the fs block size %u", e->bs);
	check(l->buf_segs == 1, "statx buffered segments max is 1 (%u)", l->buf_segs);
	/* the units of atomic direct writes: one block up to the DIO max */
	check(l->buf_min == e->bs && l->buf_max == l->dio_max,
	      "statx buffered unit is the block size up to the DIO max (%u..%u, DIO max %u)",
	      l->buf_min, l->buf_max, l->dio_max);
	check(l->dio && l->dio_min == l->buf_min && l->dio_max >= l->buf_max,
	      "statx buffered limits lie within the DIO limits (dio %s %u..%u)",
	      l->dio ? "yes" : "no", l->dio_min, l->dio_max);
	if (!atw_is_pow2(l->buf_min) || !atw_is_pow2(max) || l->buf_min > max)
		return;
	dev_max = atw_disk_queue_attr(e->disk, "atomic_write_unit_max_bytes");

	fd = atw_env_open("wt_atomic", O_TRUNC);
	for (len = l->buf_min; len <= max; len *= 2, nsizes++)
		for (k = HOLE; k <= DIRTY; k++)
			one_atomic(fd, k, len, (off_t)len * (8 + 8 * nsizes + k));
	close(fd);

	unaligned_user_buffer(l->buf_min, "");
	if (max > l->buf_min)
		unaligned_user_buffer(max, ", largest unit");
	refusals(l);
	injected_error(l->buf_min >= e->bs ? l->buf_min : e->bs);

	wt_remount();
	fd = atw_env_open("wt_atomic", 0);
	nsizes = 0;
	for (len = l->buf_min; len <= max; len *= 2, nsizes++) {
		unsigned char *rd = atw_alloc(len);

		for (k = HOLE; k <= DIRTY; k++) {
			off_t off = (off_t)len * (8 + 8 * nsizes + k);

			check(atw_pread(fd, rd, len, off) == (ssize_t)len && atw_verify(rd, len, off, 2),
			      "%s: %zu-byte atomic write-through reads back after a remount",
			      prep_name[k], len);
		}
		free(rd);
	}
	close(fd);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	const struct atw_limits *l = &e->lim;
	unsigned char *buf = atw_alloc(e->bs);
	ssize_t ret;
	int fd;

	fd = atw_env_open("wt_atomic_noflag", O_TRUNC);
	ret = atw_pwrite(fd, buf, e->bs, 0, RWF_ATOMIC);
	check(ret == -EOPNOTSUPP, "buffered RWF_ATOMIC without RWF_WRITETHROUGH fails with EOPNOTSUPP (got %zd %s)",
	      ret, atw_err(ret));
	close(fd);
	free(buf);

	if (!l->buf_known) {
		skip("uapi has no STATX_WRITE_ATOMIC_BUF", "buffered atomic write-through");
		return;
	}
	if (!l->buf) {
		fd = atw_env_open("wt_atomic_refused", O_TRUNC);
		buf = atw_alloc(e->bs);
		ret = atw_pwrite(fd, buf, e->bs, 0, AWT);
		check(ret == -EOPNOTSUPP,
		      "buffered atomic not advertised: RWF_ATOMIC|RWF_WRITETHROUGH refused with EOPNOTSUPP (got %zd %s)",
		      ret, atw_err(ret));
		close(fd);
		free(buf);
		skip("statx advertises no buffered atomic writes", "atomic write-through units");
		return;
	}
	advertised(l);
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_atomic");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_atomic DIR");
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_atomic");
#endif
	return tap_done();
}
