// SPDX-License-Identifier: GPL-2.0
/*
 * Sub-block write-throughs into holes of a reflinked file take the rest of
 * the block from the file's data, never from newly allocated COW blocks
 * (docs/design.md, "Reflinked files"), on the XFS mounted at DIR.
 *
 * F holds a stale pattern over NBLK blocks, written, synced and punched out
 * again except for block 0; F is cloned into G (FICLONE), which shares block
 * 0 and makes F a reflink (COW) inode with a COW extent size hint of
 * COWEXT blocks. A full-block write at offset 0 of F then COW-allocates,
 * and the COW fork keeps an unwritten preallocation over blocks [1, COWEXT)
 * while the data fork has holes there; the allocator puts it on the blocks
 * just freed by the punch (or on those of a deleted scratch file, also full
 * of the stale pattern), which still hold old data. Then sub-block writes
 * into those holes (100 B at +100 in several blocks, a few bytes near the
 * end of a block, one sector at +512, one byte, across a block boundary):
 *  - through the page cache, after drop_caches and after a remount, every
 *    block reads zeros except exactly the bytes written;
 *  - G still reads what was cloned (the stale pattern at block 0, zeros
 *    after it, the same size).
 * This is done once with plain buffered writes (a control: buffered COW
 * writes map the preallocation as unwritten and zero the rest of the block)
 * and once with RWF_WRITETHROUGH, on separate file pairs.
 *
 * Last, an O_DIRECT|RWF_WRITETHROUGH write of one sector inside a block of a
 * reflinked file, which XFS sends back to buffered I/O, is on the device
 * when the call returns (where the sector is smaller than the block).
 *
 * usage: wt_reflink DIR
 */
#include "lib/wt_common.h"

#include <linux/falloc.h>
#include <stdarg.h>

#ifdef RWF_WRITETHROUGH

#define STALE_GEN 0x5ca1eULL
#define NBLK 64		/* blocks of F (and of the planted stale data) */
#define COWEXT 32	/* COW extent size hint, blocks (XFS's default) */
#define SCRATCH 256	/* blocks of the deleted stale file */
#define MAXOPS 16
#define MAXRANGES 64

/* Device byte ranges that hold the stale pattern (freed, so reusable). */
static struct {
	uint64_t phys, len;
} planted[MAXRANGES];
static unsigned int nplanted;

struct op {
	off_t off;
	size_t len;
	char what[64];
};

struct pair {
	const char *mode;	/* "write-through" or "buffered" */
	int rwf;		/* RWF_WRITETHROUGH or 0 */
	const char *f, *g;
	unsigned char *shadow;	/* F as it must read, NBLK blocks */
	struct op ops[MAXOPS];
	unsigned int nops;
};

static unsigned int bs;

/* Stale pattern: block j of the planted data is file offset j * bs. */
static void stale_block(unsigned char *buf, unsigned int j)
{
	wt_pattern(buf, bs, (uint64_t)j * bs, STALE_GEN);
}

/*
 * The planted block j whose bytes buf (block k of F) has wherever want
 * (what block k must read) has zeros, or -1.
 */
static long stale_source(const unsigned char *buf, const unsigned char *want)
{
	unsigned int i, j;
	bool any;

	for (j = 0; j < NBLK; j++) {
		any = false;
		for (i = 0; i < bs; i++) {
			if (want[i])
				continue;
			if (buf[i] != wt_byte((uint64_t)j * bs + i, STALE_GEN))
				break;
			any = true;
		}
		if (i == bs && any)
			return j;
	}
	return -1;
}

/* Records where [off, end) of fd (written extents) lies on the device. */
static void record_planted(int fd, off_t off, off_t end)
{
	uint64_t phys, avail;

	while (off < end) {
		if (wt_map(fd, off, &phys, &avail)) {
			off += bs;
			continue;
		}
		if (avail > (uint64_t)(end - off))
			avail = end - off;
		if (nplanted < MAXRANGES) {
			planted[nplanted].phys = phys;
			planted[nplanted++].len = avail;
		}
		off += avail;
	}
}

static bool is_planted(uint64_t phys)
{
	unsigned int i;

	for (i = 0; i < nplanted; i++)
		if (phys >= planted[i].phys && phys < planted[i].phys + planted[i].len)
			return true;
	return false;
}

/* A deleted file whose freed blocks hold the stale pattern. */
static void plant_freed(void)
{
	size_t len = (size_t)SCRATCH * bs;
	unsigned char *junk = atw_alloc(len);
	unsigned int m;
	int fd = atw_env_open("wt_reflink_scratch", O_TRUNC);

	for (m = 0; m < SCRATCH; m++)
		stale_block(junk + (size_t)m * bs, m % NBLK);
	if (atw_pwrite(fd, junk, len, 0, 0) != (ssize_t)len || fsync(fd))
		tap_bail("writing the stale scratch file");
	record_planted(fd, 0, len);
	close(fd);
	atw_env_unlink("wt_reflink_scratch");
	free(junk);
}

/* 1 and 2: F with a stale pattern punched out but for block 0, cloned to G. */
static bool setup_pair(struct pair *p)
{
	size_t len = (size_t)NBLK * bs;
	unsigned char *buf = atw_alloc(len);
	struct fsxattr fa;
	int f, g, ret;

	wt_pattern(buf, len, 0, STALE_GEN);
	f = atw_env_open(p->f, O_TRUNC);
	if (atw_pwrite(f, buf, len, 0, 0) != (ssize_t)len || fsync(f))
		tap_bail("%s: writing the stale pattern", p->f);
	nplanted = 0;
	record_planted(f, bs, len);
	plant_freed();
	if (fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, bs, len - bs))
		tap_bail("%s: punching [%u, %zu): %s", p->f, bs, len, strerror(errno));
	sync();

	g = atw_env_open(p->g, O_TRUNC);
	if (ioctl(g, FICLONE, f) < 0) {
		ret = errno;
		close(f);
		close(g);
		free(buf);
		if (ret == EOPNOTSUPP || ret == EINVAL || ret == EXDEV || ret == ENOTTY) {
			skip(strerror(ret), "%s: FICLONE (no reflink on this filesystem)", p->mode);
			return false;
		}
		tap_bail("%s: FICLONE into %s: %s", p->f, p->g, strerror(ret));
	}
	close(g);

	ret = ioctl(f, FS_IOC_FSGETXATTR, &fa);
	if (!ret) {
		fa.fsx_xflags |= FS_XFLAG_COWEXTSIZE;
		fa.fsx_cowextsize = COWEXT * bs;
		ret = ioctl(f, FS_IOC_FSSETXATTR, &fa);
	}
	check(!ret, "%s: COW extent size hint of %u blocks set on %s (%s)", p->mode, COWEXT,
	      p->f, ret ? strerror(errno) : "ok");
	close(f);

	memset(p->shadow, 0, len);
	memcpy(p->shadow, buf, bs);	/* block 0, shared with G */
	free(buf);
	return true;
}

static void __attribute__((format(printf, 4, 5)))
add_op(struct pair *p, off_t off, size_t len, const char *fmt, ...)
{
	struct op *o = &p->ops[p->nops++];
	va_list ap;

	o->off = off;
	o->len = len;
	va_start(ap, fmt);
	vsnprintf(o->what, sizeof(o->what), fmt, ap);
	va_end(ap);
}

static void plan_ops(struct pair *p)
{
	unsigned int k;

	p->nops = 0;
	for (k = 2; k <= 8; k++)
		add_op(p, (off_t)k * bs + 100, 100, "100 B at +100");
	add_op(p, (off_t)9 * bs + bs - 70, 60, "60 B at +%u (10 B before the block end)",
	       bs - 70);
	if (bs > 512)
		add_op(p, (off_t)10 * bs + 512, 512, "512 B (a sector) at +512");
	add_op(p, (off_t)11 * bs + bs / 2 + 3, 1, "1 B at +%u", bs / 2 + 3);
	add_op(p, (off_t)13 * bs - 100, 200, "200 B at +%u across the block boundary", bs - 100);
}

/*
 * 3: the full-block write at 0 that COW-allocates and leaves an unwritten
 * preallocation over [1, COWEXT) in the COW fork (for buffered writes once
 * the delalloc reservation is written back by the fsync).
 */
static void cow_write(struct pair *p, int f)
{
	unsigned char *buf = atw_alloc(bs);
	ssize_t ret;

	wt_pattern(buf, bs, 0, 1);
	ret = atw_pwrite(f, buf, bs, 0, p->rwf);
	if (check(ret == (ssize_t)bs, "%s: full-block COW write at 0 of %s returns the length (%zd %s)",
		  p->mode, p->f, ret, atw_err(ret)))
		memcpy(p->shadow, buf, bs);
	if (!p->rwf && fsync(f))
		diag("%s: fsync: %s", p->f, strerror(errno));
	free(buf);
}

/* How many of the written blocks now lie on planted stale blocks. */
static void diag_landed(struct pair *p)
{
	unsigned int i, landed = 0, blocks = 0;
	uint64_t phys, avail;
	int f = atw_env_open(p->f, 0);
	off_t k;

	for (i = 0; i < p->nops; i++) {
		struct op *o = &p->ops[i];

		for (k = o->off / bs; k <= (o->off + (off_t)o->len - 1) / bs; k++) {
			blocks++;
			landed += !wt_map(f, k * bs, &phys, &avail) && is_planted(phys);
		}
	}
	diag("%s: %u of %u written blocks of %s were allocated on blocks that held planted stale data",
	     p->mode, landed, blocks, p->f);
	close(f);
}

/* 4: the sub-block writes into data fork holes under the preallocation. */
static void sub_writes(struct pair *p, int f)
{
	unsigned int i, holes = 0, nblocks = 0;
	uint64_t phys, avail;
	off_t b;

	for (i = 0; i < p->nops; i++) {
		struct op *o = &p->ops[i];
		unsigned char *buf = atw_alloc(o->len);
		ssize_t ret;

		for (b = o->off / bs; b <= (o->off + (off_t)o->len - 1) / bs; b++) {
			nblocks++;
			holes += wt_map(f, b * bs, &phys, &avail) == WT_MAP_HOLE;
		}
		wt_pattern(buf, o->len, o->off, 2 + i);
		ret = atw_pwrite(f, buf, o->len, o->off, p->rwf);
		if (check(ret == (ssize_t)o->len, "%s: %s in block %lld returns the length (%zd %s)",
			  p->mode, o->what, (long long)(o->off / bs), ret, atw_err(ret)))
			memcpy(p->shadow + o->off, buf, o->len);
		free(buf);
	}
	check(holes == nblocks, "%s: every block the sub-block writes hit was a hole in the data fork of %s before its write (%u of %u)",
	      p->mode, p->f, holes, nblocks);
}

/* Reports the first wrong byte of block k (buf) against want. */
static void diag_block(struct pair *p, off_t k, const unsigned char *buf,
		       const unsigned char *want)
{
	unsigned int i, n = 0, first = bs;
	uint64_t off;
	long j;

	for (i = 0; i < bs; i++) {
		if (buf[i] == want[i])
			continue;
		if (first == bs)
			first = i;
		n++;
	}
	if (first == bs)
		return;
	off = (uint64_t)k * bs + first;
	diag("%s: %s block %lld: byte %llu (+%u) is 0x%02x, expected 0x%02x%s; %u bytes wrong",
	     p->mode, p->f, (long long)k, (unsigned long long)off, first, buf[first], want[first],
	     buf[first] == wt_byte(off, STALE_GEN) ? " (the planted stale byte of this offset)" : "",
	     n);
	j = stale_source(buf, want);
	if (j >= 0)
		diag("%s: %s block %lld: every byte not written reads planted stale block %ld",
		     p->mode, p->f, (long long)k, j);
}

/* 5: each written block, all of F, and G, read back (at phase when). */
static void verify(struct pair *p, const char *when)
{
	size_t len = (size_t)NBLK * bs;
	unsigned char *rd = atw_alloc(len), *exp = atw_alloc(len);
	unsigned int i, stale = 0, blocks = 0;
	struct stat st;
	int f = atw_env_open(p->f, 0), g = atw_env_open(p->g, 0);
	ssize_t ret;
	long bad;
	off_t k;

	ret = atw_pread(f, rd, len, 0);
	if (ret != (ssize_t)len)
		memset(rd, 0xee, len);
	for (i = 0; i < p->nops; i++) {
		struct op *o = &p->ops[i];
		off_t k0 = o->off / bs, k1 = (o->off + (off_t)o->len - 1) / bs;
		bool ok = true;

		for (k = k0; k <= k1; k++) {
			blocks++;
			if (!memcmp(rd + k * bs, p->shadow + k * bs, bs))
				continue;
			ok = false;
			stale++;
			diag_block(p, k, rd + k * bs, p->shadow + k * bs);
		}
		if (k0 == k1)
			check(ok, "%s: reflink cow-prealloc hole, block %lld: %s of %s leaves zeros elsewhere in the block (%s)",
			      p->mode, (long long)k0, p->mode, o->what, when);
		else
			check(ok, "%s: reflink cow-prealloc hole, blocks %lld-%lld: %s of %s leaves zeros elsewhere in both blocks (%s)",
			      p->mode, (long long)k0, (long long)k1, p->mode, o->what, when);
	}
	diag("%s: %u of %u written blocks read bytes other than written data and zeros (%s)",
	     p->mode, stale, blocks, when);

	if (fstat(f, &st))
		st.st_size = -1;
	for (bad = -1, k = 0; bad < 0 && k < NBLK; k++)
		if (memcmp(rd + k * bs, p->shadow + k * bs, bs))
			bad = k;
	check(ret == (ssize_t)len && st.st_size == (off_t)len && bad < 0,
	      "%s: all of %s reads as written, zeros elsewhere, size %lld (%s; read %zd, first wrong block %ld)",
	      p->mode, p->f, (long long)st.st_size, when, ret, bad);

	memset(exp, 0, len);
	stale_block(exp, 0);
	if (fstat(g, &st))
		st.st_size = -1;
	ret = atw_pread(g, rd, len, 0);
	check(ret == (ssize_t)len && st.st_size == (off_t)len && !memcmp(rd, exp, len),
	      "%s: clone %s unchanged: the stale pattern at block 0, zeros after, size %lld (%s; read %zd)",
	      p->mode, p->g, (long long)st.st_size, when, ret);
	close(f);
	close(g);
	free(rd);
	free(exp);
}

static void run_pair(struct pair *p)
{
	int f;

	if (!setup_pair(p))
		return;
	plan_ops(p);
	f = atw_env_open(p->f, 0);
	cow_write(p, f);
	sub_writes(p, f);
	verify(p, "through the cache");
	close(f);
	wt_drop_caches();
	diag_landed(p);
	verify(p, "after drop_caches");
	wt_remount();
	verify(p, "after a remount");
}

/*
 * XFS sends an O_DIRECT write to a reflinked file that is not block aligned
 * back to buffered I/O (-ENOTBLK); with RWF_WRITETHROUGH that buffered
 * write must be a write-through: on the device when the call returns.
 */
static void dio_fallback(void)
{
	const struct atw_env *e = atw_env();
	unsigned char *buf = atw_alloc(bs), *dev = atw_alloc(bs);
	char path[512];
	ssize_t ret;
	int f, g, d, m;

	if (e->lbs >= bs) {
		skip("needs a sector smaller than the block", "O_DIRECT|RWF_WRITETHROUGH falling back to buffered on a reflinked file");
		goto out;
	}
	f = atw_env_open("wt_reflink_df", O_TRUNC);
	g = atw_env_open("wt_reflink_dg", O_TRUNC);
	wt_pattern(buf, bs, 0, STALE_GEN);
	if (atw_pwrite(f, buf, bs, 0, 0) != (ssize_t)bs || fsync(f))
		tap_bail("dio fallback: pre-write");
	if (ioctl(g, FICLONE, f)) {
		skip("no reflink", "O_DIRECT|RWF_WRITETHROUGH falling back to buffered on a reflinked file");
		close(f);
		close(g);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/wt_reflink_df", e->dir);
	d = open(path, O_RDWR | O_DIRECT);
	if (d < 0)
		tap_bail("open O_DIRECT: %s", strerror(errno));
	wt_pattern(buf, e->lbs, e->lbs, 7);
	ret = atw_pwrite(d, buf, e->lbs, e->lbs, RWF_WRITETHROUGH);
	check(ret == (ssize_t)e->lbs, "O_DIRECT|RWF_WRITETHROUGH of one sector inside a block of a reflinked file returns the length (got %zd %s)",
	      ret, atw_err(ret));
	m = wt_dev_read_range(f, dev, 0, bs);
	check(m == 0 && wt_pattern_bad(dev + e->lbs, e->lbs, e->lbs, 7) < 0 &&
	      wt_pattern_bad(dev, e->lbs, 0, STALE_GEN) < 0,
	      "O_DIRECT|RWF_WRITETHROUGH that XFS sends back to buffered I/O is on the device when the call returns (map flags 0x%x)",
	      m);
	close(d);
	close(f);
	close(g);
	atw_env_unlink("wt_reflink_df");
	atw_env_unlink("wt_reflink_dg");
out:
	free(buf);
	free(dev);
}

static void run(void)
{
	struct pair control = {
		.mode = "buffered", .rwf = 0, .f = "wt_reflink_bf", .g = "wt_reflink_bg",
	};
	struct pair wt = {
		.mode = "write-through", .rwf = RWF_WRITETHROUGH, .f = "wt_reflink_wf",
		.g = "wt_reflink_wg",
	};

	bs = atw_env()->bs;
	control.shadow = atw_alloc((size_t)NBLK * bs);
	wt.shadow = atw_alloc((size_t)NBLK * bs);
	run_pair(&control);
	run_pair(&wt);
	free(control.shadow);
	free(wt.shadow);
	dio_fallback();
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_reflink");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_reflink DIR");
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_reflink");
#endif
	return tap_done();
}
