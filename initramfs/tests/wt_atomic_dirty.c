// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic write-throughs (RWF_ATOMIC|RWF_WRITETHROUGH) over dirty data of
 * earlier buffered writes and mmap stores (docs/design.md, "Atomic
 * write-throughs over dirty data"), on the XFS mounted at DIR:
 *
 *  failed over dirty data: the unit holds A on the device and B in the
 *     page cache, not written back (a buffered write, or stores through a
 *     shared mapping); an atomic write-through of C fails at the device
 *     (its WRITE ATOMIC(16): the injection is checked to have hit the
 *     unit's own command). The file must read B afterwards, through the
 *     cache and from the device once the cache is dropped, and fsync must
 *     not fail: the failed call may not change what the file reads, as a
 *     failed atomic direct write (which writes the cache back first) does
 *     not. One block, and two blocks in place where the unit reaches it.
 *
 *  stores while an atomic write-through runs: one thread stores into the
 *     unit through a shared mapping without pause; the write must return
 *     while the stores go on (completed, or refused with EAGAIN as an
 *     atomic direct write is when the cache stays busy), not when they
 *     stop. The storer stops when the write has returned, or after
 *     STORE_SECS: a write that returned only then waited for it. Out of
 *     place (a cloned file) and in place.
 *
 *  dirty data under a failed out-of-place unit: a plain buffered write
 *     leaves two blocks dirty (delalloc) where an atomic write-through of
 *     two blocks goes out of place, and the device fails the next plain
 *     WRITE, which is the writeback of that dirty data, done before
 *     anything is copied (the trace must show all six failures at WRITEs
 *     of the unit's length without FUA: the blocks are allocated by that
 *     writeback, and freed again when it fails, so their address is not
 *     known before or after). The write fails with EIO, no delalloc
 *     extent is left in the range, the range reads the plain write's data
 *     (writeback failed, so it stays in the cache), and after a remount
 *     never the failed write's.
 *
 * SKIP where buffered atomic writes are not advertised, and the two-block
 * cases where the unit does not reach two blocks.
 *
 * usage: wt_atomic_dirty DIR
 */
#include "lib/wt_common.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define G_OLD 1
#define G_DIRTY 2
#define G_NEW 3
#define WRITE_ATOMIC_16 0x9c
#define STORE_SECS 8

static struct atw_env *env;

enum dirty_how { BY_WRITE, BY_STORE };

static const char *how_name(enum dirty_how how)
{
	return how == BY_WRITE ? "buffered write" : "mmap stores";
}

/* A file whose [0, unit) is written with G_OLD, on the device, in place. */
static int old_file(const char *name, size_t unit)
{
	void *buf = atw_alloc(unit);
	bool aligned = true;
	int fd;

	if (unit > env->bs) {
		fd = wt_aligned_file(name, 0, 0, unit, &aligned);
	} else {
		atw_env_unlink(name);
		fd = atw_env_open(name, O_TRUNC);
	}
	wt_pattern(buf, unit, 0, G_OLD);
	if (pwrite(fd, buf, unit, 0) != (ssize_t)unit || fsync(fd))
		tap_bail("write %s: %s", name, strerror(errno));
	free(buf);
	if (!aligned) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *gen_of(const void *buf, size_t len)
{
	if (wt_pattern_bad(buf, len, 0, G_DIRTY) < 0)
		return "the earlier dirty data";
	if (wt_pattern_bad(buf, len, 0, G_OLD) < 0)
		return "the data before it (lost)";
	if (wt_pattern_bad(buf, len, 0, G_NEW) < 0)
		return "the failed write's";
	if (wt_nonzero(buf, len) < 0)
		return "zeros";
	return "mixed";
}

static void failed_over_dirty(size_t unit, enum dirty_how how)
{
	unsigned char *dirty = atw_alloc(unit), *buf = atw_alloc(unit), *rd = atw_alloc(unit);
	struct wt_injected inj = { .opcode = WRITE_ATOMIC_16 };
	char what[96];
	unsigned char *map = NULL;
	uint64_t phys;
	ssize_t ret = 0, rret;
	int fd, armed, serr;
	bool mine;

	snprintf(what, sizeof(what), "failed over dirty data (%zu bytes, %s)", unit, how_name(how));
	fd = old_file("wt_dirty", unit);
	if (fd < 0) {
		skip("the allocator gave no extent aligned to the unit", "%s: in place", what);
		goto out;
	}
	if (wt_phys(fd, 0, &phys))
		tap_bail("%s: no extent", what);
	if (how == BY_STORE) {
		map = mmap(NULL, unit, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			tap_bail("mmap: %s", strerror(errno));
	}
	wt_pattern(dirty, unit, 0, G_DIRTY);
	wt_pattern(buf, unit, 0, G_NEW);
	/* arming syncs the file system: dirty the range after it */
	while (!(armed = wt_inject_arm(&inj))) {
		if (how == BY_WRITE) {
			if (pwrite(fd, dirty, unit, 0) != (ssize_t)unit)
				tap_bail("buffered write: %s", strerror(errno));
		} else {
			memcpy(map, dirty, unit);
		}
		ret = atw_pwrite(fd, buf, unit, 0, RWF_ATOMIC | RWF_WRITETHROUGH);
		if (wt_inject_done(&inj, phys, unit))
			break;
	}
	if (armed)
		tap_bail("%s: inject: %s", what, strerror(-armed));
	mine = inj.traced && inj.mine > 0;
	check(ret == -EIO && mine,
	      "%s: the write fails with EIO at its own command (%s; %d injected failures hit it, %d others)",
	      what, atw_err(ret), inj.mine, inj.others);
	rret = atw_pread(fd, rd, unit, 0);
	check(rret == (ssize_t)unit && wt_pattern_bad(rd, unit, 0, G_DIRTY) < 0,
	      "%s: the range reads the earlier dirty data through the cache (%s)", what,
	      rret == (ssize_t)unit ? gen_of(rd, unit) : atw_err(rret));
	serr = fsync(fd) ? errno : 0;
	check(!serr, "%s: the next fsync does not fail (%s)", what, serr ? strerror(serr) : "ok");
	if (map)
		munmap(map, unit);
	map = NULL;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	rret = atw_pread(fd, rd, unit, 0);
	check(rret == (ssize_t)unit && wt_pattern_bad(rd, unit, 0, G_DIRTY) < 0,
	      "%s: with the cache dropped the range reads the earlier dirty data (%s)", what,
	      rret == (ssize_t)unit ? gen_of(rd, unit) : atw_err(rret));
	close(fd);
out:
	free(dirty);
	free(buf);
	free(rd);
}

/* --- stores while an atomic write-through runs --- */

struct storer {
	unsigned char *map;
	size_t unit;
	atomic_int stop;
	atomic_ulong stores;
	int timed_out;		/* stopped by STORE_SECS, not by the writer */
};

static void *store_loop(void *arg)
{
	struct storer *s = arg;
	time_t end = time(NULL) + STORE_SECS;
	unsigned long n = 0;
	size_t p;

	while (!atomic_load(&s->stop)) {
		for (p = 0; p < s->unit; p += env->ps)
			s->map[p + (n & 63)] = (unsigned char)(n | 1);
		atomic_store(&s->stores, ++n);
		if (!(n & 1023) && time(NULL) >= end) {
			s->timed_out = 1;
			break;
		}
	}
	return NULL;
}

static void stores_during_write(size_t unit, bool cloned)
{
	struct storer s = { .unit = unit };
	unsigned char *buf = atw_alloc(unit);
	const char *layout = cloned ? "out of place, cloned file" : "in place";
	unsigned long before, after;
	pthread_t t;
	ssize_t ret;
	int fd, src = -1;

	if (cloned) {
		src = old_file("wt_dirty_src", unit);
		atw_env_unlink("wt_dirty");
		fd = atw_env_open("wt_dirty", O_TRUNC);
		if (src < 0 || ioctl(fd, FICLONE, src)) {
			skip("no reflink", "stores during an atomic write-through (%zu, %s): %s",
			     unit, layout, strerror(errno));
			goto out;
		}
	} else {
		fd = old_file("wt_dirty", unit);
		if (fd < 0) {
			skip("the allocator gave no extent aligned to the unit",
			     "stores during an atomic write-through (%zu, in place)", unit);
			goto out;
		}
	}
	s.map = mmap(NULL, unit, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s.map == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	wt_pattern(buf, unit, 0, G_NEW);
	pthread_create(&t, NULL, store_loop, &s);
	while (atomic_load(&s.stores) < 1000 && !s.timed_out)
		usleep(1000);
	before = atomic_load(&s.stores);
	ret = atw_pwrite(fd, buf, unit, 0, RWF_ATOMIC | RWF_WRITETHROUGH);
	after = atomic_load(&s.stores);
	atomic_store(&s.stop, 1);
	if (wt_join_by(t, wt_deadline(60)))
		tap_bail("the storer is stuck");
	diag("stores during an atomic write-through (%zu, %s): %s, %lu stores during the call",
	     unit, layout, atw_err(ret), after - before);
	check(!s.timed_out,
	      "stores during an atomic write-through (%zu, %s): the write returns while the stores go on (it returned %s%s)",
	      unit, layout, atw_err(ret), s.timed_out ? " only after they stopped" : "");
	check(ret == (ssize_t)unit || ret == -EAGAIN,
	      "stores during an atomic write-through (%zu, %s): it completes or is refused with EAGAIN (%s)",
	      unit, layout, atw_err(ret));
	munmap(s.map, unit);
	close(fd);
out:
	if (src >= 0)
		close(src);
	free(buf);
}

/* --- dirty data under a failed out-of-place unit --- */

static void dirty_under_failed(void)
{
	size_t unit = 2 * env->bs;
	off_t off = 16 * (off_t)unit;
	const char *what = "dirty data under a failed unit";
	struct wt_injected inj = { 0 };
	void *buf, *rd;
	uint64_t phys, avail;
	int fd, m = 0, armed;
	ssize_t ret = 0;
	bool plain, zeros;

	/* the plain write command sd uses here (WRITE(10) or WRITE(16)) */
	inj.opcode = wt_find_write_opcode();
	inj.bytes = unit;
	buf = atw_alloc(unit);
	rd = atw_alloc(unit);
	fd = -1;
	while (!(armed = wt_inject_arm(&inj))) {
		/* a new file each attempt: the range is delalloc, not written */
		if (fd >= 0)
			close(fd);
		atw_env_unlink("unit_dirty");
		fd = atw_env_open("unit_dirty", O_TRUNC);
		if (ftruncate(fd, 64 * (off_t)unit))
			tap_bail("ftruncate: %s", strerror(errno));
		wt_pattern(buf, unit, off, 1);
		if (pwrite(fd, buf, unit, off) != (ssize_t)unit)
			tap_bail("plain write: %s", strerror(errno));
		m = wt_map(fd, off, &phys, &avail);
		wt_pattern(buf, unit, off, 2);
		ret = atw_pwrite(fd, buf, unit, off, RWF_ATOMIC | RWF_WRITETHROUGH);
		if (wt_inject_done(&inj, 0, 0))
			break;
	}
	if (armed)
		tap_bail("%s: inject: %s", what, strerror(-armed));
	if (!(m & WT_MAP_DELALLOC)) {
		skip("the plain write was not left delalloc", "%s: map 0x%x", what, m);
		goto out;
	}
	check(inj.traced && inj.mine == WT_INJECT_TIMES,
	      "%s: the injected failure hit the writeback of the dirty data (%d failures there, %d at other commands)",
	      what, inj.mine, inj.others);
	check(ret == -EIO, "%s: the write fails with EIO (%s)", what, atw_err(ret));
	m = wt_map(fd, off, &phys, &avail);
	m |= wt_map(fd, off + env->bs, &phys, &avail);
	check(!(m & WT_MAP_DELALLOC),
	      "%s: no delalloc extent is left in the range (map 0x%x)", what, m);
	ret = atw_pread(fd, rd, unit, off);
	plain = ret == (ssize_t)unit && wt_pattern_bad(rd, unit, off, 1) < 0;
	zeros = ret == (ssize_t)unit && wt_nonzero(rd, unit) < 0;
	check(plain, "%s: the range reads the plain write's data (%s)", what,
	      plain ? "plain" : zeros ? "zeros" : "other");
	fsync(fd);
	close(fd);
	fd = -1;
	wt_remount();
	fd = atw_env_open("unit_dirty", 0);
	ret = atw_pread(fd, rd, unit, off);
	check(ret == (ssize_t)unit && wt_pattern_bad(rd, unit, off, 2) >= 0,
	      "%s: after a remount the failed write's data is not there", what);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(rd);
}

int main(int argc, char **argv)
{
	bool two;

	tap_start("wt_atomic_dirty");
	env = atw_env_setup(argc, argv, "usage: wt_atomic_dirty DIR");
	if (!env->lim.buf || env->lim.buf_min > env->bs) {
		skip("no buffered atomic write of one block advertised",
		     "statx buffered unit %u..%u, block size %u", env->lim.buf_min,
		     env->lim.buf_max, env->bs);
		return tap_done();
	}
	two = env->lim.buf_max >= 2 * env->bs;
	failed_over_dirty(env->bs, BY_WRITE);
	failed_over_dirty(env->bs, BY_STORE);
	if (two) {
		failed_over_dirty(2 * env->bs, BY_WRITE);
		failed_over_dirty(2 * env->bs, BY_STORE);
	}
	stores_during_write(env->bs, false);
	if (two) {
		stores_during_write(2 * env->bs, true);
		dirty_under_failed();
	} else {
		skip("no buffered atomic unit of two blocks", "out-of-place cases: max %u",
		     env->lim.buf_max);
	}
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_atomic_dirty");
	skip(WT_UAPI_SKIP, "atomic write-throughs over dirty data");
	return tap_done();
}

#endif
