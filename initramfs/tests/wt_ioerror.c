// SPDX-License-Identifier: GPL-2.0
/*
 * A write-through that the device fails leaves the file as a failed direct
 * write would (docs/design.md, "Errors and partly failed writes", "Atomic
 * write-throughs"), on the XFS mounted at DIR, with scsi_debug failing the
 * call's write command (lib/wt_common.h wt_inject):
 *  - over a folio that has another dirty block (a buffered write to block
 *    0 just before; one folio holds both blocks where a page holds several
 *    blocks, or the page cache made a large folio), and over a wholly
 *    clean one: the call returns
 *    -EIO, and the written block reads the old data through the cache,
 *    through a shared mapping and from the device, then again after fsync
 *    and dropping the cache; the other dirty block is not lost (it reads
 *    its new data after fsync and a dropped cache);
 *  - into an empty file, past EOF of a file, and a sub-block append: the
 *    call returns -EIO and i_size is what it was, before and after a
 *    remount, and a read past it returns nothing;
 *  - each of these also as RWF_ATOMIC|RWF_WRITETHROUGH where statx
 *    advertises buffered atomic writes of one block: the unit reads wholly
 *    old.
 *
 * usage: wt_ioerror DIR
 */
#include "lib/wt_common.h"

#include <linux/falloc.h>
#include <sys/mman.h>

#ifdef RWF_WRITETHROUGH

#define NBLK 16			/* blocks in the test file */
#define G_OLD 1
#define G_DIRTY 2
#define G_NEW 3

static uint8_t write_opcode;	/* plain writes; found by a trace */
static bool have_atomic;

/*
 * One attempt at a write of len bytes at off with flags, with the device
 * failing its write command. phys/plen: the device range the call writes.
 * With dirty0, block 0 gets a buffered write of generation G_DIRTY right
 * before the call: arming the error syncs the file system, so it must come
 * after. Returns 1 when the attempt decides (*ret: the call's result, or the
 * arming error), 0 when other commands took some of the failures and the
 * call may have reached the device: the caller then sets the file up anew
 * and tries again.
 */
static int failed_write(int fd, const void *buf, size_t len, off_t off, int flags,
			uint64_t phys, uint64_t plen, bool dirty0, struct wt_injected *inj,
			ssize_t *ret)
{
	size_t bs = atw_env()->bs;
	unsigned char *dirty = atw_alloc(bs);
	int armed, done = 1;

	wt_pattern(dirty, bs, 0, G_DIRTY);
	inj->opcode = (flags & RWF_ATOMIC) ? 0x9c : write_opcode;
	armed = wt_inject_arm(inj);
	if (armed) {
		*ret = armed;
	} else {
		if (dirty0 && atw_pwrite(fd, dirty, bs, 0, 0) != (ssize_t)bs)
			tap_bail("buffered write of block 0");
		*ret = atw_pwrite(fd, buf, len, off, flags);
		done = wt_inject_done(inj, phys, plen);
	}
	free(dirty);
	return done;
}

static const char *kind(int flags)
{
	return (flags & RWF_ATOMIC) ? "atomic write-through" : "write-through";
}

/* Block blk of the file reads generation gen (or zeros for gen 0) in buf. */
static bool block_is(const unsigned char *b, unsigned int blk, uint64_t gen)
{
	size_t bs = atw_env()->bs;

	if (!gen)
		return wt_nonzero(b, bs) < 0;
	return wt_pattern_bad(b, bs, (uint64_t)blk * bs, gen) < 0;
}

static const char *gen_name(const unsigned char *b, unsigned int blk)
{
	if (block_is(b, blk, G_OLD))
		return "old";
	if (block_is(b, blk, G_NEW))
		return "new";
	if (block_is(b, blk, G_DIRTY))
		return "dirty";
	if (block_is(b, blk, 0))
		return "zeros";
	return "mixed";
}

/*
 * Failed write of one block at block 2 of a file on disk, cached after one
 * write of the whole file; with other_dirty, block 0 has just been written
 * (dirty), in the same folio where a folio holds several blocks.
 */
static void failed_overwrite(int flags, bool other_dirty)
{
	const struct atw_env *e = atw_env();
	size_t bs = e->bs, flen = NBLK * bs;
	unsigned char *buf = atw_alloc(flen), *rd = atw_alloc(flen);
	const char *what = other_dirty ? "folio with another dirty block" : "clean folio";
	struct wt_injected inj = { 0 };
	unsigned char *map;
	uint64_t phys;
	ssize_t ret;
	int fd;

	for (;;) {
		/* the whole file in one write: the cache makes a large folio */
		fd = atw_env_open("wt_ioerror", O_TRUNC);
		wt_pattern(buf, flen, 0, G_OLD);
		if (atw_pwrite(fd, buf, flen, 0, 0) != (ssize_t)flen || fsync(fd))
			tap_bail("pre-write: %s", strerror(errno));
		map = mmap(NULL, flen, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			tap_bail("mmap: %s", strerror(errno));
		if (map[2 * bs] != buf[2 * bs])	/* maps the page before the write */
			tap_bail("mmap reads something else");
		if (wt_phys(fd, 2 * bs, &phys))
			tap_bail("no device address for block 2");

		wt_pattern(buf, bs, 2 * bs, G_NEW);
		if (failed_write(fd, buf, bs, 2 * bs, flags, phys, bs, other_dirty, &inj, &ret))
			break;
		/* the write may have reached the device: a new file */
		munmap(map, flen);
		close(fd);
	}
	check(ret == -EIO && (inj.mine || !inj.traced),
	      "%s failed by the device over a %s: -EIO (got %zd %s)", kind(flags), what, ret,
	      atw_err(ret));

	ret = atw_pread(fd, rd, bs, 2 * bs);
	check(ret == (ssize_t)bs && block_is(rd, 2, G_OLD),
	      "%s failed over a %s: the block reads the old data through the cache (%s)",
	      kind(flags), what, gen_name(rd, 2));
	check(block_is(map + 2 * bs, 2, G_OLD),
	      "%s failed over a %s: the block reads the old data through a shared mapping (%s)",
	      kind(flags), what, gen_name(map + 2 * bs, 2));
	check(wt_dev_read_range(fd, rd, 2 * bs, bs) == 0 && block_is(rd, 2, G_OLD),
	      "%s failed over a %s: the device holds the old data (%s)", kind(flags), what,
	      gen_name(rd, 2));
	munmap(map, flen);

	ret = fsync(fd) ? -errno : 0;
	if (other_dirty)
		check(ret == 0, "%s failed over a %s: fsync writes the other block (%s)", kind(flags),
		      what, atw_err(ret));
	wt_drop_caches();
	ret = atw_pread(fd, rd, flen, 0);
	check(ret == (ssize_t)flen && block_is(rd + 2 * bs, 2, G_OLD),
	      "%s failed over a %s: after fsync and a dropped cache the block reads old (%s)",
	      kind(flags), what, gen_name(rd + 2 * bs, 2));
	if (other_dirty)
		check(ret == (ssize_t)flen && block_is(rd, 0, G_DIRTY),
		      "%s failed over a %s: the other dirty block was written, not lost (%s)",
		      kind(flags), what, gen_name(rd, 0));
	close(fd);
	atw_env_unlink("wt_ioerror");
	free(buf);
	free(rd);
}

static off_t file_size(const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", atw_env()->dir, name);
	return stat(path, &st) ? -1 : st.st_size;
}

/*
 * A failed write at off (len bytes) into a file of size bytes on disk, its
 * blocks reserved past EOF.
 */
static void failed_extend(int flags, off_t size, off_t off, size_t len, const char *what)
{
	size_t bs = atw_env()->bs;
	unsigned char *buf = atw_alloc(len + bs);
	struct wt_injected inj = { 0 };
	uint64_t phys = 0, avail = 0;
	off_t got, rb, rlen;
	ssize_t ret;
	int fd, m;

	for (;;) {
		fd = atw_env_open("wt_ioerror_size", O_TRUNC);
		if (size) {
			unsigned char *old = atw_alloc(size);

			wt_pattern(old, size, 0, G_OLD);
			if (atw_pwrite(fd, old, size, 0, 0) != (ssize_t)size || fsync(fd))
				tap_bail("pre-write: %s", strerror(errno));
			free(old);
		}
		/*
		 * Blocks reserved past EOF (KEEP_SIZE: i_size stays), so
		 * that the call's device range is known and the injected
		 * error is judged only when it hit the call's own command,
		 * not a metadata write.
		 */
		rb = off / bs * bs;
		rlen = (off + len + bs - 1) / bs * bs - rb;
		if (fallocate(fd, FALLOC_FL_KEEP_SIZE, rb, rlen))
			tap_bail("%s: fallocate: %s", what, strerror(errno));
		m = wt_map(fd, rb, &phys, &avail);
		if ((m && m != WT_MAP_UNWRITTEN) || avail < (uint64_t)rlen)
			tap_bail("%s: no single extent under the range (map flags 0x%x)", what, m);
		wt_pattern(buf, len, off, G_NEW);
		if (failed_write(fd, buf, len, off, flags, phys, rlen, false, &inj, &ret))
			break;
		close(fd);	/* the write may have reached the device: a new file */
	}
	check(ret == -EIO && (inj.mine || !inj.traced),
	      "%s %s failed by the device: -EIO (got %zd %s)", kind(flags), what, ret, atw_err(ret));
	got = file_size("wt_ioerror_size");
	check(got == size, "%s %s failed: i_size stays %lld (got %lld)", kind(flags), what,
	      (long long)size, (long long)got);
	ret = atw_pread(fd, buf, len + bs, size);
	check(ret == 0, "%s %s failed: a read at the old EOF returns nothing (got %zd)", kind(flags),
	      what, ret);
	close(fd);
	wt_remount();
	got = file_size("wt_ioerror_size");
	check(got == size, "%s %s failed: i_size is %lld after a remount (got %lld)", kind(flags), what,
	      (long long)size, (long long)got);
	atw_env_unlink("wt_ioerror_size");
	free(buf);
}

static void run(int flags)
{
	size_t bs = atw_env()->bs;

	failed_overwrite(flags, true);
	failed_overwrite(flags, false);
	failed_extend(flags, 0, 0, bs, "into an empty file");
	failed_extend(flags, 2 * bs, 2 * bs, bs, "of a block past EOF");
	if (!(flags & RWF_ATOMIC) && bs >= 1024)
		failed_extend(flags, 2 * bs + 100, 2 * bs + 100, 300, "appending 300 bytes mid-block");
}

int main(int argc, char **argv)
{
	char path[256];
	const struct atw_env *e;

	tap_start("wt_ioerror");
	e = atw_env_setup(argc, argv, "wt_ioerror DIR");
	if (wt_inject_path(path, sizeof(path))) {
		skip("no scsi_debug error injection in debugfs", "wt_ioerror");
		return tap_done();
	}
	have_atomic = e->lim.buf && e->lim.buf_min <= e->bs && e->lim.buf_max >= e->bs;
	write_opcode = wt_find_write_opcode();
	run(RWF_WRITETHROUGH);
	if (have_atomic)
		run(RWF_ATOMIC | RWF_WRITETHROUGH);
	else
		skip("statx advertises no buffered atomic unit of one block",
		     "atomic write-through failed by the device");
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_ioerror");
	skip(WT_UAPI_SKIP, "wt_ioerror");
	return tap_done();
}

#endif
