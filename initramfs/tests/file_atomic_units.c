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
 * usage: file_atomic_units DIR   (the disk is $ATW_DISK, DIR its mount point)
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

static struct atw_env *env;
static unsigned int dev_max;	/* the device's atomic write unit max */
static unsigned int nabandoned;	/* files left holding steering blocks */
static bool aligned_failed;	/* an aligned layout could not be made */

static void name_of(char *path, size_t n, size_t unit, int layout, const char *tag)
{
	snprintf(path, n, "u%zu_%d%s", unit, layout, tag);
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

/*
 * A new file under name whose [off, off + unit) is one unwritten extent at a
 * device address aligned to unit. The allocator promises no alignment, but
 * gives a new file's first blocks near its inode, at the end of what the
 * files before it took: when an attempt lands misaligned, keep its blocks
 * (the file is renamed away), extend them up to the next aligned address,
 * and try again with a new file. Returns the fd; sets aligned_failed after
 * 32 attempts.
 */
static int make_aligned(const char *name, off_t off, size_t unit)
{
	struct atw_extent ext[MAXEXT];
	int tries, n, fd = -1;

	for (tries = 0; tries < 32; tries++) {
		char from[512], to[512];
		uint64_t miss;

		fd = new_file(name, unit);
		if (fallocate(fd, 0, off, unit))
			tap_bail("fallocate %zu: %s", unit, strerror(errno));
		n = atw_file_extents(fd, off, unit, ext, MAXEXT);
		if (n == 1 && ext[0].length == unit && ext[0].physical % unit == 0)
			return fd;
		miss = n >= 1 ? (unit - (ext[n - 1].physical + ext[n - 1].length) % unit) % unit : 0;
		if (miss && fallocate(fd, 0, off + unit, miss))
			tap_bail("fallocate %llu: %s", (unsigned long long)miss, strerror(errno));
		fsync(fd);
		close(fd);
		snprintf(from, sizeof(from), "%s/%s", env->dir, name);
		snprintf(to, sizeof(to), "%s/abandoned_%u", env->dir, nabandoned++);
		if (rename(from, to))
			tap_bail("rename %s: %s", from, strerror(errno));
	}
	diag("%zu: no aligned extent in %d attempts", unit, tries);
	aligned_failed = true;
	fd = new_file(name, unit);
	if (fallocate(fd, 0, off, unit))
		tap_bail("fallocate %zu: %s", unit, strerror(errno));
	return fd;
}

/* Sets up the layout under [off, off + unit) of a new file; returns its fd. */
static int prepare(size_t unit, int layout, off_t off, int *clone_src)
{
	char name[64], pad[64];
	int fd = -1, pfd, i;

	name_of(name, sizeof(name), unit, layout, "");
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
		name_of(pad, sizeof(pad), unit, layout, "_pad");
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
		char src[64];

		fd = new_file(name, unit);
		name_of(src, sizeof(src), unit, layout, "_src");
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

/* One atomic write of unit over layout; records the way it took. */
static void one_case(size_t unit, int layout, bool *seen_hw, bool *seen_sw)
{
	struct atw_extent before[MAXEXT], after[MAXEXT];
	off_t off = case_off(unit, layout);
	int fd, src, nb, na, i;
	bool hw, mapped;
	struct devcount dc;
	unsigned int atomics_here = 0;
	void *buf;
	ssize_t ret;
	int err;

	fd = prepare(unit, layout, off, &src);
	nb = atw_file_extents(fd, off, unit, before, MAXEXT);
	if (nb < 0)
		tap_bail("FIEMAP: %s", strerror(-nb));
	mapped = nb == 1 && before[0].length == unit;
	hw = unit <= dev_max && mapped &&
	     !(before[0].flags & FIEMAP_EXTENT_SHARED) &&
	     before[0].physical % unit == 0 && layout != SHARED;
	if (layout == FRAGMENTED && nb < 2)
		diag("%zu %s: only %d extent(s)", unit, layout_name[layout], nb);

	/* NOWAIT cannot allocate: where the write goes out of place, EAGAIN */
	if (!hw) {
		buf = atw_alloc(unit);
		atw_fill(buf, unit, off, 9);
		ret = atw_pwrite(fd, buf, unit, off, RWF_ATOMIC | RWF_NOWAIT);
		check(ret == -EAGAIN, "%zu %s: RWF_NOWAIT out of place fails with EAGAIN (%s)",
		      unit, layout_name[layout], atw_err(ret));
		free(buf);
	}

	buf = atw_alloc(unit);
	atw_fill(buf, unit, off, 2);
	err = devcount_start();
	ret = atw_pwrite(fd, buf, unit, off, RWF_ATOMIC);
	err = err ? err : devcount_stop(&dc, env->lbs);
	free(buf);
	check(ret == (ssize_t)unit, "%zu %s: atomic O_DIRECT write at %lld (%s)",
	      unit, layout_name[layout], (long long)off, atw_err(ret));
	na = atw_file_extents(fd, off, unit, after, MAXEXT);
	if (na < 0)
		tap_bail("FIEMAP: %s", strerror(-na));
	check(read_verify(fd, unit, off, 2), "%zu %s: reads back whole",
	      unit, layout_name[layout]);
	if (layout == EOF_HOLE) {
		struct stat st;

		check(!fstat(fd, &st) && st.st_size == (off_t)unit,
		      "%zu %s: the size is the end of the write (%lld)", unit,
		      layout_name[layout], (long long)st.st_size);
	}
	if (src >= 0) {
		check(read_verify(src, unit, off, 1), "%zu %s: the clone keeps the old data",
		      unit, layout_name[layout]);
		close(src);
	}
	if (!check(!err, "%zu %s: device trace complete (%d)", unit,
		   layout_name[layout], err)) {
		close(fd);
		return;
	}

	for (i = 0; i < (int)dc.ncmd; i++)
		if (dc.cmd[i].kind == DEVCMD_ATOMIC && mapped &&
		    dc.cmd[i].offset == before[0].physical && dc.cmd[i].bytes == unit)
			atomics_here++;
	if (hw) {
		*seen_hw = true;
		if (!check(dc.atomics == 1 && atomics_here == 1 &&
			   devcount_writes_in(&dc, before[0].physical, unit) == 1 &&
			   na == 1 && after[0].physical == before[0].physical,
			   "%zu %s: hardware: one WRITE ATOMIC(16) of the range, in place",
			   unit, layout_name[layout])) {
			print_layout("before", before, nb);
			print_layout("after", after, na);
			devcount_print(&dc);
		}
	} else {
		bool landed = na >= 1;

		*seen_sw = true;
		for (i = 0; i < na; i++)
			if (devcount_writes_in(&dc, after[i].physical, after[i].length) < 1)
				landed = false;
		if (!check(dc.atomics == 0 && landed && !phys_overlap(before, nb, after, na),
			   "%zu %s: out of place: no atomic command, written to new blocks",
			   unit, layout_name[layout])) {
			print_layout("before", before, nb);
			print_layout("after", after, na);
			devcount_print(&dc);
		}
	}
	close(fd);
}

static void expect_einval(int fd, size_t len, off_t off, const char *what)
{
	void *buf = atw_alloc(len);
	ssize_t ret = atw_pwrite(fd, buf, len, off, RWF_ATOMIC);

	check(ret == -EINVAL, "%s: %zu bytes at %lld fails with EINVAL (%s)", what,
	      len, (long long)off, atw_err(ret));
	free(buf);
}

/*
 * O_APPEND moves an atomic write to the end of the file after the offset was
 * checked. At a size that is not a multiple of the unit the write must fail
 * with EINVAL and leave the file alone: written out of place, the unaligned
 * head of its first block would be taken from a fresh block (whatever the
 * disk held there) instead of the file's own bytes.
 */
static void append_unaligned(size_t unit, off_t size)
{
	int fd = atw_env_open("u_append", O_TRUNC);
	int dfd;
	void *buf = atw_alloc(size), *rd = atw_alloc(size);
	ssize_t ret;
	struct stat st;
	char path[512];

	if (size % unit == 0) {	/* 4096-byte sectors: no such size */
		diag("%zu O_APPEND at size %lld: aligned, not a case", unit,
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
	snprintf(path, sizeof(path), "%s/u_append", env->dir);
	dfd = open(path, O_RDWR | O_DIRECT | O_APPEND);
	if (dfd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	free(buf);
	buf = atw_alloc(unit);
	atw_fill(buf, unit, 0, 6);
	ret = atw_pwrite(dfd, buf, unit, 0, RWF_ATOMIC);
	check(ret == -EINVAL, "%zu O_APPEND at size %lld: fails with EINVAL (%s)", unit,
	      (long long)size, atw_err(ret));
	check(!fstat(dfd, &st) && st.st_size == size && atw_pread(dfd, rd, size, 0) == size &&
	      atw_verify(rd, size, 0, 5),
	      "%zu O_APPEND at size %lld: the file is unchanged", unit, (long long)size);
	close(dfd);
	free(buf);
	free(rd);
}

int main(int argc, char **argv)
{
	size_t unit;
	int layout, fd;

	tap_start("file_atomic_units");
	env = atw_env_setup(argc, argv, "usage: file_atomic_units DIR");
	if (!env->lim.dio || env->lim.dio_max < 2 * env->bs) {
		skip("no atomic direct write unit above one block advertised",
		     "statx DIO unit max %u, block size %u", env->lim.dio_max, env->bs);
		return tap_done();
	}
	dev_max = atw_disk_queue_attr(env->disk, "atomic_write_unit_max_bytes");
	diag("block %u, statx DIO unit %u..%u, device atomic unit max %u", env->bs,
	     env->lim.dio_min, env->lim.dio_max, dev_max);
	check(env->lim.dio_min == env->bs, "statx DIO unit min is the block size");
	check(env->lim.dio_max <= dev_max,
	      "statx DIO unit max is within the device's (%u <= %u)",
	      env->lim.dio_max, dev_max);

	for (unit = 2 * env->bs; unit <= env->lim.dio_max; unit *= 2) {
		bool seen_hw = false, seen_sw = false;

		aligned_failed = false;
		for (layout = 0; layout < NLAYOUTS; layout++)
			one_case(unit, layout, &seen_hw, &seen_sw);
		if (!seen_hw && aligned_failed)
			skip("the allocator gave no aligned extent to write in place",
			     "%zu: both ways taken (out of place %d)", unit, seen_sw);
		else
			check(seen_hw && seen_sw,
			      "%zu: both ways taken (hardware %d, out of place %d)",
			      unit, seen_hw, seen_sw);
	}

	fd = atw_env_open("u_invalid", O_DIRECT | O_TRUNC);
	expect_einval(fd, 2 * env->bs, env->bs, "misaligned offset");
	expect_einval(fd, 3 * env->bs, 0, "length not a power of two");
	expect_einval(fd, 2 * (size_t)env->lim.dio_max, 0, "length above the maximum");
	close(fd);
	/* sizes that direct I/O can append at: sector aligned */
	append_unaligned(2 * env->bs, env->bs + env->lbs);
	append_unaligned(2 * env->bs, 3 * env->bs);
	append_unaligned(env->bs, env->bs + env->lbs);

	wt_remount();
	for (unit = 2 * env->bs; unit <= env->lim.dio_max; unit *= 2)
		for (layout = 0; layout < NLAYOUTS; layout++) {
			char name[64];

			name_of(name, sizeof(name), unit, layout, "");
			fd = atw_env_open(name, O_DIRECT);
			check(read_verify(fd, unit, case_off(unit, layout), 2),
			      "%zu %s: whole after a remount", unit, layout_name[layout]);
			close(fd);
		}
	return tap_done();
}
