// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic direct writes of more than one file system block, on the XFS mounted
 * at DIR. For each power-of-two unit from two blocks up to the statx DIO unit
 * maximum, over each layout a database file can have under the range:
 *
 *   hole, hole at EOF (the write extends the file), unwritten (fallocate),
 *   written, unwritten and written at a device address aligned to the unit,
 *   fragmented (one extent per block), shared (reflinked)
 *
 * the write succeeds, reads back whole (also after a remount), and reaches
 * the device in one of the two ways the design documents, chosen by the
 * layout the range had (docs/design.md, "Units above one block"):
 *
 *   hardware:     one written or unwritten extent, not shared, at a device
 *                 address aligned to the unit, unit <= the device's maximum:
 *                 exactly one WRITE ATOMIC(16) of exactly the range, at the
 *                 address the range had, and no other write to it;
 *   out of place: anything else: no atomic command, the range now maps to
 *                 blocks it did not map before (the old ones stay in place
 *                 until one transaction remaps the whole range), and the
 *                 data was written there; a clone keeps the old data.
 *
 * Also: RWF_NOWAIT fails with EAGAIN where the write has to go out of place
 * (it allocates), a misaligned offset, a length that is not a power of two
 * and a length above the maximum fail with EINVAL, so does an O_APPEND write
 * at a size that is not a multiple of the unit (the file unchanged), and
 * each of the two ways
 * was taken at least once for each unit (the aligned layouts are made for
 * that; SKIP if the allocator gave none in 32 attempts). Without a
 * multi-block unit advertised: SKIP, with the limits seen.
 *
 * -w: the same for buffered RWF_ATOMIC | RWF_WRITETHROUGH writes, units up to
 * the statx STATX_WRITE_ATOMIC_BUF maximum, the same two ways and errors
 * (docs/design.md, "Atomic write-throughs"). The layouts are made as above,
 * with O_DIRECT and fsync (nothing dirty is left for the trace to see); the
 * writes go through a second fd without O_DIRECT, after a read of the range
 * through the page cache (the write must replace the old data there). At
 * return the unit reads back whole through the page cache and from the
 * device (read at the FIEMAP addresses, before any sync: an O_DIRECT read of
 * the file would write dirty pages back first). Also: the block before and
 * the block after the unit dirty in the page cache from plain buffered
 * writes made just before the write-through: the unit is written as any
 * other, the neighbours keep their data (page cache; on the device after
 * fsync and a remount). SKIP if the uapi has no RWF_WRITETHROUGH or statx
 * advertises no buffered unit above one block.
 *
 * usage: file_atomic_units [-w] DIR   (the disk is $ATW_DISK, DIR its mount point)
 */
#include "lib/atomic_io.h"
#include "lib/devcount.h"
#include "lib/tap.h"
#include "lib/test_env.h"
#include "lib/wt_common.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

enum layout {
	HOLE, EOF_HOLE, UNWRITTEN, WRITTEN, ALIGNED_UNWRITTEN, ALIGNED_WRITTEN,
	FRAGMENTED, SHARED, NLAYOUTS
};
static const char *const layout_name[NLAYOUTS] = {
	"hole", "hole at EOF", "unwritten", "written", "aligned unwritten",
	"aligned written", "fragmented", "shared",
};

#define MAXEXT 256

#ifdef RWF_WRITETHROUGH
#define FAU_WT RWF_WRITETHROUGH
#else
#define FAU_WT 0	/* -w is one SKIP (WT_UAPI_SKIP) */
#endif

static struct atw_env *env;
static unsigned int dev_max;	/* the device's atomic write unit max */
static bool aligned_failed;	/* an aligned layout could not be made */
static bool wt;			/* -w: buffered RWF_ATOMIC | RWF_WRITETHROUGH */
static size_t umax;		/* the largest unit: statx DIO or buffered max */

/* The flags of the atomic writes under test. */
static int atomic_flags(void)
{
	return wt ? RWF_ATOMIC | FAU_WT : RWF_ATOMIC;
}

/* Write-through files are named w..., direct ones u... */
static void name_of(char *path, size_t n, size_t unit, int layout, const char *tag)
{
	snprintf(path, n, "%c%zu_%d%s", wt ? 'w' : 'u', unit, layout, tag);
}

/* How checks name a case: "8192 hole", with -w "8192 hole (write-through)". */
static void case_label(char *s, size_t n, size_t unit, int layout, const char *what)
{
	snprintf(s, n, "%zu %s%s%s", unit, layout_name[layout], what,
		 wt ? " (write-through)" : "");
}

/* Where a case writes: at unit, in a file of 4 units (EOF_HOLE: at 0). */
static off_t case_off(size_t unit, int layout)
{
	return layout == EOF_HOLE ? 0 : (off_t)unit;
}

static void plain_write(int fd, size_t len, off_t off, uint64_t gen)
{
	void *buf = atw_alloc(len);

	atw_fill(buf, len, off, gen);
	if (atw_pwrite(fd, buf, len, off, 0) != (ssize_t)len)
		tap_bail("plain write of %zu at %lld: %s", len, (long long)off,
			 strerror(errno));
	free(buf);
}

/* A new, empty file of 4 units under name (its inode, so its first blocks, new). */
static int new_file(const char *name, size_t unit)
{
	int fd;

	atw_env_unlink(name);
	fd = atw_env_open(name, O_DIRECT | O_TRUNC);
	if (ftruncate(fd, 4 * (off_t)unit))
		tap_bail("ftruncate: %s", strerror(errno));
	return fd;
}

/* A new file of 4 units whose [off, off + unit) is aligned (wt_aligned_file()). */
static int make_aligned(const char *name, off_t off, size_t unit)
{
	bool aligned;
	int fd = wt_aligned_file(name, O_DIRECT, off, unit, &aligned);

	if (!aligned)
		aligned_failed = true;
	if (ftruncate(fd, 4 * (off_t)unit))
		tap_bail("ftruncate: %s", strerror(errno));
	return fd;
}

/*
 * Sets up the layout under [off, off + unit) of a new file (named with tag);
 * returns its fd, opened with O_DIRECT. Nothing of it is left dirty.
 */
static int prepare(size_t unit, int layout, off_t off, int *clone_src, const char *tag)
{
	char name[64], pad[80];
	int fd = -1, pfd, i;

	name_of(name, sizeof(name), unit, layout, tag);
	*clone_src = -1;

	switch (layout) {
	case HOLE:
		fd = new_file(name, unit);
		break;
	case EOF_HOLE:
		atw_env_unlink(name);
		fd = atw_env_open(name, O_DIRECT | O_TRUNC);
		break;
	case UNWRITTEN:
		fd = new_file(name, unit);
		if (fallocate(fd, 0, off, unit))
			tap_bail("fallocate: %s", strerror(errno));
		break;
	case WRITTEN:
		fd = new_file(name, unit);
		plain_write(fd, unit, off, 1);
		break;
	case ALIGNED_UNWRITTEN:
	case ALIGNED_WRITTEN:
		fd = make_aligned(name, off, unit);
		if (layout == ALIGNED_WRITTEN)
			plain_write(fd, unit, off, 1);
		break;
	case FRAGMENTED:
		/*
		 * One extent per block: a new pad file takes a block after
		 * each block of the file, so the next block cannot follow on.
		 */
		fd = new_file(name, unit);
		snprintf(pad, sizeof(pad), "%s_pad", name);
		atw_env_unlink(pad);
		pfd = atw_env_open(pad, O_TRUNC);
		for (i = 0; (size_t)i * env->bs < unit; i++) {
			void *buf = atw_alloc(env->bs);
			off_t o = off + (off_t)i * env->bs;

			atw_fill(buf, env->bs, o, 1);
			if (atw_pwrite(fd, buf, env->bs, o, 0) != (ssize_t)env->bs)
				tap_bail("fragment write: %s", strerror(errno));
			free(buf);
			if (fallocate(pfd, 0, (off_t)i * env->bs, env->bs))
				tap_bail("fallocate pad: %s", strerror(errno));
		}
		close(pfd);
		break;
	case SHARED: {
		char src[80];

		fd = new_file(name, unit);
		snprintf(src, sizeof(src), "%s_src", name);
		*clone_src = new_file(src, unit);
		plain_write(*clone_src, unit, off, 1);
		if (ioctl(fd, FICLONE, *clone_src))
			tap_bail("FICLONE: %s", strerror(errno));
		break;
	}
	}
	fsync(fd);
	return fd;
}

static void print_layout(const char *what, const struct atw_extent *e, int n)
{
	int i;

	for (i = 0; i < n; i++)
		diag("  %s: file %llu+%llu at device %llu flags 0x%x", what,
		     (unsigned long long)e[i].logical, (unsigned long long)e[i].length,
		     (unsigned long long)e[i].physical, e[i].flags);
}

/* Does any extent of a overlap, on the device, any extent of b? */
static bool phys_overlap(const struct atw_extent *a, int na,
			 const struct atw_extent *b, int nb)
{
	int i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i].physical < b[j].physical + b[j].length &&
			    b[j].physical < a[i].physical + a[i].length)
				return true;
	return false;
}

static bool read_verify(int fd, size_t len, off_t off, uint64_t gen)
{
	void *buf = atw_alloc(len);
	bool ok = atw_pread(fd, buf, len, off) == (ssize_t)len &&
		  atw_verify(buf, len, off, gen);

	free(buf);
	return ok;
}

/*
 * Can the write go in place? One extent, not shared, maps the whole range at
 * a device address aligned to the unit, and the device takes that length
 * (the files are 4 units long: only the EOF case extends, and there nothing
 * maps the range).
 */
static bool in_place(size_t unit, int layout, const struct atw_extent *before, int nb)
{
	bool mapped = nb == 1 && before[0].length == unit;

	return unit <= dev_max && mapped &&
	       !(before[0].flags & FIEMAP_EXTENT_SHARED) &&
	       before[0].physical % unit == 0 && layout != SHARED;
}

/*
 * The device trace of one atomic write against the way its layout chose: in
 * place, exactly one WRITE ATOMIC(16) of the range at the address it had and
 * no other write to it; out of place, no atomic command, and the range now
 * maps to blocks it did not map before, each of them written.
 */
static void check_way(const char *L, size_t unit, bool hw,
		      const struct atw_extent *before, int nb,
		      const struct atw_extent *after, int na, const struct devcount *dc)
{
	bool mapped = nb == 1 && before[0].length == unit;
	unsigned int atomics_here = 0;
	int i;

	for (i = 0; i < (int)dc->ncmd; i++)
		if (dc->cmd[i].kind == DEVCMD_ATOMIC && mapped &&
		    dc->cmd[i].offset == before[0].physical && dc->cmd[i].bytes == unit)
			atomics_here++;
	if (hw) {
		if (!check(dc->atomics == 1 && atomics_here == 1 &&
			   devcount_writes_in(dc, before[0].physical, unit) == 1 &&
			   na == 1 && after[0].physical == before[0].physical,
			   "%s: hardware: one WRITE ATOMIC(16) of the range, in place", L)) {
			print_layout("before", before, nb);
			print_layout("after", after, na);
			devcount_print(dc);
		}
	} else {
		bool landed = na >= 1;

		for (i = 0; i < na; i++)
			if (devcount_writes_in(dc, after[i].physical, after[i].length) < 1)
				landed = false;
		if (!check(dc->atomics == 0 && landed && !phys_overlap(before, nb, after, na),
			   "%s: out of place: no atomic command, written to new blocks", L)) {
			print_layout("before", before, nb);
			print_layout("after", after, na);
			devcount_print(dc);
		}
	}
}

/*
 * Reads [off, off + unit) through fd; true if it is what the layout put
 * there: nothing at EOF, zeros over holes and unwritten extents, else
 * generation 1.
 */
/*
 * The atomic write of generation 2 of [off, off + unit) under the device
 * trace; *err: the trace's error (0: dc holds every command).
 */
static ssize_t traced_write(int wfd, size_t unit, off_t off, struct devcount *dc, int *err)
{
	void *buf = atw_alloc(unit);
	ssize_t ret;

	atw_fill(buf, unit, off, 2);
	*err = devcount_start();
	ret = atw_pwrite(wfd, buf, unit, off, atomic_flags());
	*err = *err ? *err : devcount_stop(dc, env->lbs);
	free(buf);
	return ret;
}

static bool reads_old(int fd, size_t unit, int layout, off_t off)
{
	void *buf = atw_alloc(unit);
	ssize_t ret = atw_pread(fd, buf, unit, off);
	bool ok;

	switch (layout) {
	case EOF_HOLE:
		ok = ret == 0;
		break;
	case HOLE:
	case UNWRITTEN:
	case ALIGNED_UNWRITTEN:
		ok = ret == (ssize_t)unit && wt_nonzero(buf, unit) < 0;
		break;
	default:
		ok = ret == (ssize_t)unit && atw_verify(buf, unit, off, 1);
	}
	free(buf);
	return ok;
}

/*
 * -w: what the device holds for [off, off + unit) of fd, read at the FIEMAP
 * addresses without FIEMAP_FLAG_SYNC and not through the file (an O_DIRECT
 * read of the file would write its dirty pages back first): generation gen,
 * all written.
 */
static void check_device(const char *L, int fd, size_t unit, off_t off, uint64_t gen)
{
	void *dev = atw_alloc(unit);
	int m = wt_dev_read_range(fd, dev, off, unit);

	check(m == 0 && atw_verify(dev, unit, off, gen),
	      "%s: the device holds the unit at return, before any sync (map 0x%x)", L, m);
	free(dev);
}

/* -w: a second fd of a case's file, without O_DIRECT. */
static int open_buffered(size_t unit, int layout, const char *tag)
{
	char name[64];

	name_of(name, sizeof(name), unit, layout, tag);
	return atw_env_open(name, 0);
}

/* One atomic write of unit over layout; records the way it took. */
static void one_case(size_t unit, int layout, bool *seen_hw, bool *seen_sw)
{
	struct atw_extent before[MAXEXT], after[MAXEXT];
	off_t off = case_off(unit, layout);
	int fd, wfd, src, nb, na;
	bool hw;
	struct devcount dc;
	char L[128];
	void *buf;
	ssize_t ret;
	int err;

	case_label(L, sizeof(L), unit, layout, "");
	fd = prepare(unit, layout, off, &src, "");
	nb = atw_file_extents(fd, off, unit, before, MAXEXT);
	if (nb < 0)
		tap_bail("FIEMAP: %s", strerror(-nb));
	hw = in_place(unit, layout, before, nb);
	if (layout == FRAGMENTED && nb < 2)
		diag("%s: only %d extent(s)", L, nb);

	/* -w: written through the page cache, which holds the old data */
	wfd = fd;
	if (wt) {
		wfd = open_buffered(unit, layout, "");
		reads_old(wfd, unit, layout, off);
	}

	/* NOWAIT cannot allocate: where the write goes out of place, EAGAIN */
	if (!hw) {
		buf = atw_alloc(unit);
		atw_fill(buf, unit, off, 9);
		ret = atw_pwrite(wfd, buf, unit, off, atomic_flags() | RWF_NOWAIT);
		check(ret == -EAGAIN, "%s: RWF_NOWAIT out of place fails with EAGAIN (%s)",
		      L, atw_err(ret));
		free(buf);
	}
	if (wt)
		check(reads_old(wfd, unit, layout, off),
		      "%s: the page cache holds the old data before the write", L);

	ret = traced_write(wfd, unit, off, &dc, &err);
	check(ret == (ssize_t)unit, "%s: atomic %s at %lld (%s)", L,
	      wt ? "write-through" : "O_DIRECT write", (long long)off, atw_err(ret));
	if (wt)
		check_device(L, wfd, unit, off, 2);
	na = atw_file_extents(fd, off, unit, after, MAXEXT);
	if (na < 0)
		tap_bail("FIEMAP: %s", strerror(-na));
	check(read_verify(wfd, unit, off, 2), "%s: reads back whole%s", L,
	      wt ? " through the page cache" : "");
	if (layout == EOF_HOLE) {
		/* fstat first: check()'s arguments are evaluated in no set order */
		struct stat st;
		bool got = !fstat(fd, &st);

		check(got && st.st_size == (off_t)unit,
		      "%s: the size is the end of the write (%lld)", L,
		      got ? (long long)st.st_size : -1LL);
	}
	if (src >= 0) {
		check(read_verify(src, unit, off, 1), "%s: the clone keeps the old data", L);
		close(src);
	}
	if (check(!err, "%s: device trace complete (%d)", L, err)) {
		if (hw)
			*seen_hw = true;
		else
			*seen_sw = true;
		check_way(L, unit, hw, before, nb, after, na, &dc);
	}
	if (wfd != fd)
		close(wfd);
	close(fd);
}

/* -w: the layouts of the dirty neighbours case (in place, out of place). */
static const int nb_layouts[] = { ALIGNED_WRITTEN, FRAGMENTED };
#define NB_TAG "_nb"
#define NB_WHAT ", dirty neighbours"

/*
 * -w only: the block before and the block after the unit are dirty in the
 * page cache, from plain buffered writes made just before the atomic
 * write-through, with no sync between (on 1 KiB blocks and 4 KiB pages the
 * block before shares a folio with a 2 KiB unit). The unit is written as any
 * other, the way its layout chooses; the neighbours keep their data: in the
 * page cache at once, on the device after fsync (read after the remount).
 */
static void dirty_neighbours(size_t unit, int layout)
{
	struct atw_extent before[MAXEXT], after[MAXEXT];
	off_t off = case_off(unit, layout);
	off_t prev = off - env->bs, next = off + unit;
	int fd, wfd, src, nb, na, err;
	uint64_t phys, avail;
	struct devcount dc;
	char L[128];
	bool hw, old;
	ssize_t ret;

	case_label(L, sizeof(L), unit, layout, NB_WHAT);
	fd = prepare(unit, layout, off, &src, NB_TAG);
	if (src >= 0)
		close(src);
	nb = atw_file_extents(fd, off, unit, before, MAXEXT);
	if (nb < 0)
		tap_bail("FIEMAP: %s", strerror(-nb));
	hw = in_place(unit, layout, before, nb);
	wfd = open_buffered(unit, layout, NB_TAG);
	old = reads_old(wfd, unit, layout, off);
	plain_write(wfd, env->bs, prev, 3);
	plain_write(wfd, env->bs, next, 3);
	if (wt_map(wfd, prev, &phys, &avail) != WT_MAP_DELALLOC ||
	    wt_map(wfd, next, &phys, &avail) != WT_MAP_DELALLOC)
		diag("%s: a neighbour is not delalloc: written back already?", L);
	check(old, "%s: the page cache holds the old data before the write", L);

	ret = traced_write(wfd, unit, off, &dc, &err);
	check(ret == (ssize_t)unit, "%s: atomic write-through at %lld (%s)", L,
	      (long long)off, atw_err(ret));
	check_device(L, wfd, unit, off, 2);
	check(read_verify(wfd, unit, off, 2), "%s: reads back whole through the page cache", L);
	check(read_verify(wfd, env->bs, prev, 3) && read_verify(wfd, env->bs, next, 3),
	      "%s: the neighbours keep their data in the page cache", L);
	/* FIEMAP_FLAG_SYNC writes the neighbours back: the trace is over */
	na = atw_file_extents(fd, off, unit, after, MAXEXT);
	if (na < 0)
		tap_bail("FIEMAP: %s", strerror(-na));
	if (check(!err, "%s: device trace complete (%d)", L, err))
		check_way(L, unit, hw, before, nb, after, na, &dc);
	if (fsync(wfd))
		check(0, "%s: fsync: %s", L, strerror(errno));
	close(wfd);
	close(fd);
}

static void expect_einval(int fd, size_t len, off_t off, const char *what)
{
	void *buf = atw_alloc(len);
	ssize_t ret = atw_pwrite(fd, buf, len, off, atomic_flags());

	check(ret == -EINVAL, "%s%s: %zu bytes at %lld fails with EINVAL (%s)",
	      wt ? "write-through, " : "", what, len, (long long)off, atw_err(ret));
	free(buf);
}

/*
 * O_APPEND moves an atomic write to the end of the file after the offset was
 * checked. At a size that is not a multiple of the unit the write must fail
 * with EINVAL and leave the file alone: written out of place, the unaligned
 * head of its first block would be taken from a fresh block (whatever the
 * disk held there) instead of the file's own bytes. -w: the same through a
 * buffered fd.
 */
static void append_unaligned(size_t unit, off_t size)
{
	const char *name = wt ? "w_append" : "u_append";
	const char *M = wt ? " (write-through)" : "";
	int fd = atw_env_open(name, O_TRUNC);
	int dfd;
	void *buf = atw_alloc(size), *rd = atw_alloc(size);
	ssize_t ret;
	struct stat st;
	char path[512];

	if (size % unit == 0) {	/* 4096-byte sectors: no such size */
		diag("%zu%s O_APPEND at size %lld: aligned, not a case", unit, M,
		     (long long)size);
		free(buf);
		free(rd);
		close(fd);
		return;
	}
	atw_fill(buf, size, 0, 5);
	if (pwrite(fd, buf, size, 0) != size || fsync(fd))
		tap_bail("append setup: %s", strerror(errno));
	close(fd);
	snprintf(path, sizeof(path), "%s/%s", env->dir, name);
	dfd = open(path, O_RDWR | (wt ? 0 : O_DIRECT) | O_APPEND);
	if (dfd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	free(buf);
	buf = atw_alloc(unit);
	atw_fill(buf, unit, 0, 6);
	ret = atw_pwrite(dfd, buf, unit, 0, atomic_flags());
	check(ret == -EINVAL, "%zu%s O_APPEND at size %lld: fails with EINVAL (%s)", unit, M,
	      (long long)size, atw_err(ret));
	check(!fstat(dfd, &st) && st.st_size == size && atw_pread(dfd, rd, size, 0) == size &&
	      atw_verify(rd, size, 0, 5),
	      "%zu%s O_APPEND at size %lld: the file is unchanged", unit, M, (long long)size);
	close(dfd);
	free(buf);
	free(rd);
}

int main(int argc, char **argv)
{
	const char *M;
	unsigned int k, step;
	size_t unit;
	int layout, fd;
	char L[128];

	if (argc > 1 && !strcmp(argv[1], "-w")) {
		wt = true;
		argc--;
		argv++;
	}
	M = wt ? " (write-through)" : "";
	tap_start(wt ? "file_atomic_units -w" : "file_atomic_units");
	if (wt && !FAU_WT) {
		skip(WT_UAPI_SKIP, "atomic write-through units");
		return tap_done();
	}
	env = atw_env_setup(argc, argv, "usage: file_atomic_units [-w] DIR");
	if (!wt && (!env->lim.dio || env->lim.dio_max < 2 * env->bs)) {
		skip("no atomic direct write unit above one block advertised",
		     "statx DIO unit max %u, block size %u", env->lim.dio_max, env->bs);
		return tap_done();
	}
	if (wt && (!env->lim.buf || env->lim.buf_max < 2 * env->bs)) {
		skip(env->lim.buf_known ? "no atomic write-through unit above one block advertised" :
		     "uapi has no STATX_WRITE_ATOMIC_BUF",
		     "statx buffered unit %u..%u (%s), DIO unit %u..%u, block size %u",
		     env->lim.buf_min, env->lim.buf_max, env->lim.buf ? "advertised" : "not advertised",
		     env->lim.dio_min, env->lim.dio_max, env->bs);
		return tap_done();
	}
	umax = wt ? env->lim.buf_max : env->lim.dio_max;
	dev_max = atw_disk_queue_attr(env->disk, "atomic_write_unit_max_bytes");
	if (wt) {
		diag("block %u, statx buffered unit %u..%u (DIO %u..%u), device atomic unit max %u",
		     env->bs, env->lim.buf_min, env->lim.buf_max, env->lim.dio_min,
		     env->lim.dio_max, dev_max);
		check(env->lim.buf_min == env->bs, "statx buffered unit min is the block size");
		check(env->lim.buf_max <= dev_max,
		      "statx buffered unit max is within the device's (%u <= %u)",
		      env->lim.buf_max, dev_max);
	} else {
		diag("block %u, statx DIO unit %u..%u, device atomic unit max %u", env->bs,
		     env->lim.dio_min, env->lim.dio_max, dev_max);
		check(env->lim.dio_min == env->bs, "statx DIO unit min is the block size");
		check(env->lim.dio_max <= dev_max,
		      "statx DIO unit max is within the device's (%u <= %u)",
		      env->lim.dio_max, dev_max);
	}

	for (unit = 2 * env->bs; unit <= umax; unit *= 2) {
		bool seen_hw = false, seen_sw = false;

		aligned_failed = false;
		for (layout = 0; layout < NLAYOUTS; layout++)
			one_case(unit, layout, &seen_hw, &seen_sw);
		if (!seen_hw && aligned_failed)
			skip("the allocator gave no aligned extent to write in place",
			     "%zu%s: both ways taken (out of place %d)", unit, M, seen_sw);
		else
			check(seen_hw && seen_sw,
			      "%zu%s: both ways taken (hardware %d, out of place %d)",
			      unit, M, seen_hw, seen_sw);
		if (wt)
			for (k = 0; k < sizeof(nb_layouts) / sizeof(nb_layouts[0]); k++)
				dirty_neighbours(unit, nb_layouts[k]);
	}

	fd = atw_env_open(wt ? "w_invalid" : "u_invalid", wt ? O_TRUNC : O_DIRECT | O_TRUNC);
	expect_einval(fd, 2 * env->bs, env->bs, "misaligned offset");
	expect_einval(fd, 3 * env->bs, 0, "length not a power of two");
	expect_einval(fd, 2 * umax, 0, "length above the maximum");
	close(fd);
	/*
	 * Sizes that direct I/O can append at: sector aligned; a buffered
	 * write makes any (the stamps are per 512 bytes).
	 */
	step = wt ? 512 : env->lbs;
	append_unaligned(2 * env->bs, env->bs + step);
	append_unaligned(2 * env->bs, 3 * env->bs);
	append_unaligned(env->bs, env->bs + step);

	wt_remount();
	for (unit = 2 * env->bs; unit <= umax; unit *= 2)
		for (layout = 0; layout < NLAYOUTS; layout++) {
			char name[64];

			name_of(name, sizeof(name), unit, layout, "");
			fd = atw_env_open(name, O_DIRECT);
			case_label(L, sizeof(L), unit, layout, "");
			check(read_verify(fd, unit, case_off(unit, layout), 2),
			      "%s: whole after a remount", L);
			close(fd);
		}
	for (unit = 2 * env->bs; wt && unit <= umax; unit *= 2)
		for (k = 0; k < sizeof(nb_layouts) / sizeof(nb_layouts[0]); k++) {
			off_t off = case_off(unit, nb_layouts[k]);
			char name[64];

			name_of(name, sizeof(name), unit, nb_layouts[k], NB_TAG);
			fd = atw_env_open(name, O_DIRECT);
			case_label(L, sizeof(L), unit, nb_layouts[k], NB_WHAT);
			check(read_verify(fd, unit, off, 2), "%s: whole after a remount", L);
			check(read_verify(fd, env->bs, off - env->bs, 3) &&
			      read_verify(fd, env->bs, off + unit, 3),
			      "%s: the neighbours are on the device after fsync and a remount", L);
			close(fd);
		}
	return tap_done();
}
