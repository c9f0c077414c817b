// SPDX-License-Identifier: GPL-2.0
/*
 * i_size never exposes stale data (docs/design.md, "Size updates and EOF")
 * on the XFS mounted at DIR. Stale bytes are planted on the device first:
 * under an unwritten extent preallocated past EOF (written to the disk at
 * its FIEMAP address), and in the blocks of a deleted file that new
 * allocations may reuse. Then sub-block RWF_WRITETHROUGH appends (1 byte ..
 * a few blocks, sector- and byte-unaligned), appends after a gap, truncates
 * up and, where statx advertises it, atomic appends:
 *  - i_size after each call is exactly the end of the user's range (the I/O
 *    is rounded, the size is not);
 *  - the file reads back as written with zeros in gaps, through the cache
 *    and after every remount (umount/mount of $ATW_DISK) -- no planted
 *    byte anywhere below i_size;
 *  - the tail of the last page past i_size reads zeros through mmap;
 *  - what a store through a shared mapping put past EOF in the last page
 *    does not reach the device with a write-through of the EOF block.
 *
 * usage: wt_eof DIR
 */
#include "lib/wt_common.h"

#include <sys/mman.h>

#ifdef RWF_WRITETHROUGH

#define STALE_GEN 0xdeadULL
#define SPAN (4u << 20)

struct eof_file {
	const char *name;
	unsigned char *shadow;	/* expected content, SPAN bytes */
	off_t size;
	unsigned int ops;
};

static void verify(struct eof_file *f, const char *when)
{
	unsigned char *rd = atw_alloc(f->size + 1);
	struct stat st;
	ssize_t ret;
	long bad = -1;
	int fd = atw_env_open(f->name, 0);

	if (fstat(fd, &st))
		st.st_size = -1;
	check(st.st_size == f->size, "%s %s: i_size %lld (expected %lld)",
	      f->name, when, (long long)st.st_size, (long long)f->size);
	ret = atw_pread(fd, rd, f->size + 1, 0);
	if (ret == f->size) {
		for (bad = 0; bad < f->size && rd[bad] == f->shadow[bad]; bad++)
			;
		if (bad == f->size)
			bad = -1;
	}
	if (!check(ret == f->size && bad < 0, "%s %s: content below i_size as written, zeros in gaps (read %zd)",
		   f->name, when, ret) && bad >= 0)
		diag("%s: byte %ld is 0x%02x, expected 0x%02x%s", f->name, bad, rd[bad],
		     f->shadow[bad], rd[bad] == wt_byte(bad, STALE_GEN) ? " (a planted stale byte)" : "");
	if (f->size % atw_env()->ps) {
		off_t pg = f->size / atw_env()->ps * atw_env()->ps;
		unsigned char *map = mmap(NULL, atw_env()->ps, PROT_READ, MAP_SHARED, fd, pg);
		long nz = -1;

		if (map != MAP_FAILED) {
			nz = wt_nonzero(map + (f->size - pg), atw_env()->ps - (f->size - pg));
			munmap(map, atw_env()->ps);
		}
		check(map != MAP_FAILED && nz < 0, "%s %s: the page tail past i_size reads zeros through mmap",
		      f->name, when);
	}
	close(fd);
	free(rd);
}

/* A write-through of len bytes at off (may leave a gap after EOF). */
static void wt_at(struct eof_file *f, off_t off, size_t len, int flags)
{
	unsigned char *buf = atw_alloc(len);
	int fd = atw_env_open(f->name, 0);
	ssize_t ret;

	if (flags & RWF_ATOMIC)
		atw_fill(buf, len, off, f->ops + 1);
	else
		wt_pattern(buf, len, off, f->ops + 1);
	ret = atw_pwrite(fd, buf, len, off, RWF_WRITETHROUGH | flags);
	if (check(ret == (ssize_t)len, "%s: %s%zu bytes at %lld (EOF %lld) returns the length (got %zd %s)",
		  f->name, flags & RWF_ATOMIC ? "atomic " : "", len, (long long)off,
		  (long long)f->size, ret, atw_err(ret))) {
		memcpy(f->shadow + off, buf, len);
		if (off + (off_t)len > f->size)
			f->size = off + len;
	}
	close(fd);
	free(buf);
	f->ops++;
	verify(f, "after the call");
	if (f->ops % 5 == 0) {
		wt_remount();
		verify(f, "after a remount");
	}
}

static void truncate_up(struct eof_file *f, off_t to)
{
	int fd = atw_env_open(f->name, 0);

	check(!ftruncate(fd, to), "%s: truncate up to %lld", f->name, (long long)to);
	f->size = to;
	close(fd);
}

/* Stale bytes on the device under an unwritten extent past EOF. */
static void plant_under_prealloc(const char *name)
{
	unsigned char *junk = atw_alloc(SPAN);
	uint64_t phys, avail;
	off_t off = 0;
	int fd = atw_env_open(name, O_TRUNC);

	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, SPAN))
		tap_bail("fallocate: %s", strerror(errno));
	fsync(fd);
	wt_pattern(junk, SPAN, 0, STALE_GEN);
	while (off < (off_t)SPAN) {
		int m = wt_map(fd, off, &phys, &avail);

		if (m != WT_MAP_UNWRITTEN)
			tap_bail("preallocation at %lld is not unwritten (0x%x)", (long long)off, m);
		if (avail > (uint64_t)(SPAN - off))
			avail = SPAN - off;
		if (wt_dev_pwrite(junk + off, avail, phys) != (ssize_t)avail)
			tap_bail("planting stale data on the device");
		off += avail;
	}
	close(fd);
	free(junk);
}

/* Stale bytes in the blocks of a deleted file; returns its first block. */
static uint64_t plant_freed(void)
{
	unsigned char *junk = atw_alloc(SPAN);
	uint64_t phys = 0;
	int fd = atw_env_open("wt_eof_stale", O_TRUNC);

	wt_pattern(junk, SPAN, 0, STALE_GEN);
	if (atw_pwrite(fd, junk, SPAN, 0, 0) != SPAN || fsync(fd))
		tap_bail("writing the stale file");
	wt_phys(fd, 0, &phys);
	close(fd);
	atw_env_unlink("wt_eof_stale");
	sync();
	free(junk);
	return phys;
}

static void sequence(struct eof_file *f)
{
	const struct atw_env *e = atw_env();
	const size_t sizes[] = { 1, 100, 411, 511, 513, e->bs / 2 + 1, e->bs - 1,
				 e->bs + 7, 2 * e->bs + 300, 3 };
	unsigned int i;
	off_t unit;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		wt_at(f, f->size, sizes[i], 0);
	wt_at(f, f->size + 200, 77, 0);		/* a gap inside the EOF block */
	wt_at(f, f->size + e->bs + 50, 1000, 0);	/* a gap of more than a block */
	truncate_up(f, f->size + 300);
	wt_at(f, f->size, 5, 0);
	wt_at(f, f->size - 3, 9, 0);		/* straddles EOF */

	if (e->lim.buf_known && e->lim.buf) {
		unit = e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min;
		truncate_up(f, (f->size + unit - 1) / unit * unit);
		wt_at(f, f->size, unit, RWF_ATOMIC);
		wt_at(f, f->size + unit, unit, RWF_ATOMIC);	/* with a gap */
		wt_at(f, f->size, 100, 0);
	} else {
		skip("statx advertises no buffered atomic writes", "%s: atomic appends", f->name);
	}
	wt_remount();
	verify(f, "at the end, after a remount");
}

/*
 * A store through a shared mapping past EOF (in the last page, where it
 * does not fault) must not reach the disk with a write-through of the EOF
 * block: the device holds zeros past the new EOF, as writeback would write.
 */
static void mmap_past_eof(void)
{
	const struct atw_env *e = atw_env();
	size_t bs = e->bs, ps = e->ps;
	off_t size = 3 * (off_t)bs + 100, pg = size / ps * ps;
	unsigned char *buf = atw_alloc(size), *dev = atw_alloc(bs), *map;
	off_t blk = size / bs * bs;
	long nz;
	int fd;

	fd = atw_env_open("wt_eof_mmap", O_TRUNC);
	wt_pattern(buf, size, 0, 1);
	if (atw_pwrite(fd, buf, size, 0, 0) != size || fsync(fd))
		tap_bail("mmap past EOF: pre-write");
	map = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pg);
	if (map == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	/* past EOF, inside the last page */
	memset(map + (size - pg), 0xee, ps - (size - pg));
	munmap(map, ps);

	wt_pattern(buf, 50, size, 2);
	check(atw_pwrite(fd, buf, 50, size, RWF_WRITETHROUGH) == 50,
	      "mmap store past EOF, then a 50-byte write-through appending to the EOF block");
	check(wt_dev_read_range(fd, dev, blk, bs) == 0, "the EOF block is on the device");
	nz = wt_nonzero(dev + (size + 50 - blk), bs - (size + 50 - blk));
	if (!check(nz < 0, "the device holds zeros past the new EOF in that block, not what the mapping stored"))
		diag("byte %lld past EOF is 0x%02x", (long long)nz, dev[size + 50 - blk + nz]);
	close(fd);
	atw_env_unlink("wt_eof_mmap");
	free(buf);
	free(dev);
}

static void run(void)
{
	struct eof_file pre = { "wt_eof_prealloc", atw_alloc(SPAN), 0, 0 };
	struct eof_file fresh = { "wt_eof_fresh", atw_alloc(SPAN), 0, 0 };
	uint64_t stale, phys;
	int fd;

	plant_under_prealloc(pre.name);
	sequence(&pre);

	stale = plant_freed();
	fd = atw_env_open(fresh.name, O_TRUNC);
	close(fd);
	sequence(&fresh);
	fd = atw_env_open(fresh.name, 0);
	if (!wt_phys(fd, 0, &phys))
		diag("fresh file starts at device byte %llu; the deleted stale file started at %llu%s",
		     (unsigned long long)phys, (unsigned long long)stale,
		     phys >= stale && phys < stale + SPAN ? " (reused)" : "");
	close(fd);
	free(pre.shadow);
	free(fresh.shadow);
	mmap_past_eof();
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_eof");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_eof DIR");
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_eof");
#endif
	return tap_done();
}
