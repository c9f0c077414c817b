// SPDX-License-Identifier: GPL-2.0
/*
 * conc.c: the concurrent phase (-c K): groups of K operations issued at
 * the same time, judged against every serial order of them.
 *
 * A group: K operations drawn from the seed (the first at random, the
 * others aimed at its range: overlapping it, truncating or extending at its
 * end, cloning over it, reading it; see focus in draw.c), each given a
 * delay of 0 to 4 ms. K worker threads wait at a barrier; each then waits
 * its delay and makes its call, recording what the call returned (bytes
 * written or read and their contents, the size an O_APPEND write found,
 * errnos, a dedupe's status, each completion of an io_uring or AIO batch)
 * and when. A read repeats while another call of its group is still
 * running, keeping each distinct result it saw (program order). Then the
 * files are read back over the bytes the group may have changed, and with
 * a seeded one chance in two also with O_DIRECT, which must agree with the
 * cache (the device under it, after the flush the read does).
 *
 * The judgement: the calls that change the files (a batch contributes each
 * of its writes) are permuted, at most MAXU of them (24 orders). For each
 * order the model of both files before the group is copied (over the
 * union of the ranges the group touches, to the largest size it can give)
 * and the calls applied one after the other; each call's result must be
 * the one it has in that order (a dedupe's SAME or DIFFERS, a write's
 * length, an O_APPEND write's data at the size of that moment), the
 * files' sizes and bytes afterwards what was read back, and each read's
 * results, in the order it saw them, states of that order at the same or
 * a later point (a read is a sequence of calls, in program order). A
 * group whose results fit no order fails: the K operations are printed
 * with their timings and results, and the closest order (fewest failed
 * checks) with its first failed checks. Otherwise the model becomes the
 * first fitting order's final state, and the sequence goes on.
 *
 * What is judged that way is what the kernel promises; the rest is
 * judged more weakly or not drawn together:
 *  - XFS takes the iolock exclusively for buffered writes (write-through
 *    copies included), truncate, fallocate, clone and dedupe, and shared
 *    for buffered reads: those are all-or-nothing to one another, and a
 *    buffered read is held to one state of an order, whole (an atomic
 *    write-through's unit whole old or whole new: docs/design.md, "Readers").
 *    Write-throughs and direct writes keep that for every other call
 *    (§3.13: an extending write-through is an extending direct write; a
 *    synchronous direct write holds the iolock, shared, across its I/O,
 *    and waits for write-through I/O under writeback before it writes;
 *    truncate, fallocate and reflink wait for direct I/O).
 *  - O_DIRECT reads, reads through a mapping, and a buffered read that a
 *    direct write of its range runs beside (both under the shared iolock,
 *    or none once an asynchronous direct write is in flight) promise
 *    nothing about concurrent writes: each byte read must be a value that
 *    byte has in some state of some order (zero past that state's EOF
 *    included: a direct write that extends the file moves the size at its
 *    completion before it drops the cached EOF folio, so a buffered read
 *    in between gets the new length and the old EOF block's zeros), and
 *    the length one that some state gives.
 *  - Not drawn together (nothing is promised, or the model cannot tell):
 *    an mmap store with anything else on its folios (the store is a
 *    memcpy, unlocked); copy_file_range with anything that writes its
 *    source or destination or reads its destination (it is a series of
 *    spliced chunks, each a write of its own); two direct writes of one
 *    folio (both under the shared iolock, split into bios as the extents
 *    fall); an asynchronous direct write (io_uring, AIO) with a buffered
 *    write or store on one of its folios (the direct write's completion
 *    cannot invalidate a page dirtied under it: the documented hazard of
 *    mixing the two); a truncate or collapse with an operation that needs
 *    the size not to shrink under it (mmap, clone and dedupe sources,
 *    collapse, insert, O_DIRECT reads, copy: a mapping past the new EOF
 *    faults SIGBUS, the remap calls fail with EINVAL in the orders where
 *    their range is gone, a direct read past EOF meets post-EOF
 *    preallocation); two batches in one group (one ring, one AIO context);
 *    fault and verify operations; an asynchronous direct write with a
 *    truncate of its file, unless -T, and a remap (an unaligned hole punch
 *    or zero range counts) with an mmap read of its file, unless -I
 *    (main.c's header: upstream races).
 *    Such draws are redrawn.
 *  - Calls whose results do not depend on the order (a malformed atomic
 *    write, which must fail with EINVAL; fsync, fdatasync,
 *    sync_file_range; drop_caches; an mmap store and a copy, which nothing
 *    else in the group touches) are checked on their own, outside the
 *    permutation.
 */
#include "randops.h"

#define MAXOBS 16	/* distinct results kept of one repeated read */
#define MAXREP 256	/* calls of one repeated read */
#define MAXMSG 4	/* failed checks kept per order */
#define MAXORD 24	/* MAXU! */

enum role { R_FIXED, R_MUT, R_STRICT, R_RELAXED };

/* What one call of a group did. */
struct res {
	long long ret;		/* bytes, or -errno */
	int status;		/* dedupe */
	long long deduped;
	double t0, t1;		/* issued, returned: ms from the group's start */
	unsigned char *buf;	/* a write's data */
	struct sub subs[MAXQD];	/* a batch's writes */
	long long sres[MAXQD];	/* and their completions */
	char err[128];		/* an interface failed (io_uring, mmap) */
	uint64_t rlen;		/* a read: the length asked for */
	unsigned int nobs, nreads;
	long long oret[MAXOBS];	/* each distinct result: length */
	unsigned char *obuf;	/* and bytes, MAXW apart */
	unsigned char *okmap;	/* relaxed: per byte, some state has it */
	bool lenok[MAXOBS];	/* relaxed: some state gives that length */
	bool allok[MAXOBS];	/* relaxed: every byte has been found */
	/* strict, per order being simulated: */
	uint32_t omask[MAXOBS];	/* the points of the order it fits */
	long long ndiff[MAXOBS][MAXU + 1];	/* bytes differing, -1: length */
	uint64_t fdiff[MAXOBS][MAXU + 1];	/* the first differing byte */
};

struct unit {
	uint8_t op, sub;	/* operation of the group, write of its batch */
};

/* One order's verdict. */
struct verdict {
	int nbad;
	char msg[MAXMSG][400];
};

static struct {
	struct op *o;
	int n;
	double t0;
	atomic_int running;
	struct res res[MAXK];
	enum role role[MAXK];
	bool refuse_ok[MAXK];
	struct unit u[MAXU];
	int nu;
	bool touched[NFILES];
	uint64_t size0[NFILES], gmin[NFILES], wlo[NFILES], whi[NFILES];
	uint64_t asize[NFILES];		/* found after the group */
	unsigned char *act[NFILES];	/* found after the group, by offset */
	struct rfile st[NFILES];	/* the order being simulated */
	struct verdict v[MAXORD];
	uint8_t perm[MAXORD][MAXU];
	int nperm;
	char common[MAXMSG][400];	/* failed checks of no order in particular */
	int ncommon;
} cg;

static pthread_barrier_t b_start, b_end;
static bool ready;
static unsigned char *dio_buf;
static unsigned long g_groups, g_calls, g_overlap, g_differ, g_seen, g_reread, g_single;
static unsigned long g_orders;

/* --- footprints: what a call may read and write, for the exclusions --- */
struct range {
	uint8_t file;
	bool w;
	uint64_t lo, hi;
};

struct fp {
	int n;
	struct range r[2];
	bool shrink[NFILES], need[NFILES], trunc[NFILES];
	bool mmap_w, copy, dio_w, async_dio, buf_w, batch;
	bool remap, mmap_r;	/* remap: insert range, clone/dedupe into file,
				 * a punch or zero range not page-aligned */
	uint8_t file;
};

static bool malformed(const struct op *o)
{
	return o->kind < NWRITEKINDS && o->sub;
}

static bool is_batch(const struct op *o)
{
	return o->kind == K_URING || o->kind == K_AIO;
}

/* A write from off to end also makes [size, off) part of the file. */
static uint64_t ext(int fi, uint64_t off, uint64_t end)
{
	return end > cg.gmin[fi] ? min64(off, cg.gmin[fi]) : off;
}

static void fp_add(struct fp *p, int fi, bool w, uint64_t lo_, uint64_t hi)
{
	p->r[p->n++] = (struct range){ fi, w, lo_, hi };
}

static void op_fp(const struct op *o, struct fp *p)
{
	int f = o->file, f2 = o->file2;
	uint64_t end = o->off + o->len;

	memset(p, 0, sizeof(*p));
	p->file = f;
	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		if (malformed(o))
			break;
		fp_add(p, f, true, ext(f, o->off, end), end);
		p->dio_w = is_dio(o->kind);
		p->buf_w = !p->dio_w;
		break;
	case K_APPEND:
		fp_add(p, f, true, cg.gmin[f], ~0ULL);
		p->buf_w = true;
		break;
	case K_MMAP_W:
		fp_add(p, f, true, o->off, end);
		p->need[f] = p->mmap_w = true;
		break;
	case K_MMAP_R:
		fp_add(p, f, false, o->off, end);
		p->need[f] = p->mmap_r = true;
		break;
	case K_READ:
		fp_add(p, f, false, o->off, end);
		break;
	case K_DIO_R:
		fp_add(p, f, false, o->off, end);
		p->need[f] = true;
		break;
	case K_TRUNC:
		fp_add(p, f, true, min64(o->off, cg.gmin[f]), ~0ULL);
		p->shrink[f] = p->trunc[f] = true;
		break;
	case K_FALLOC: case K_PUNCH: case K_ZERO:
		fp_add(p, f, true, ext(f, o->off, end), end);
		/*
		 * A hole punch or zero range drops the cache over its range
		 * rounded out to pages (xfs_flush_unmap_range()): unaligned,
		 * it zeroes bytes it keeps in a straddling large folio, the
		 * remaps' upstream defect (main.c, -I).
		 */
		if (o->kind != K_FALLOC &&
		    (o->off % max64(ps, bs) || end % max64(ps, bs)))
			p->remap = true;
		break;
	case K_COLLAPSE:
		fp_add(p, f, true, o->off, ~0ULL);
		p->shrink[f] = p->need[f] = true;
		break;
	case K_INSERT:
		fp_add(p, f, true, o->off, ~0ULL);
		p->need[f] = p->remap = true;
		break;
	case K_CLONE: case K_DEDUPE:
		fp_add(p, f, true, ext(f, o->off, end), end);
		fp_add(p, f2, false, o->off2, o->off2 + o->len);
		p->need[f2] = p->remap = true;
		if (o->kind == K_DEDUPE)
			p->need[f] = true;
		break;
	case K_COPY:
		fp_add(p, f, true, ext(f, o->off, end), end);
		fp_add(p, f2, false, o->off2, o->off2 + o->len);
		p->need[f] = p->need[f2] = p->copy = p->buf_w = true;
		break;
	case K_URING: case K_AIO:
		end = o->off + o->n * o->off2;
		fp_add(p, f, true, ext(f, o->off, end), end);
		p->batch = true;
		p->dio_w = p->async_dio = is_dio(o->sub);
		p->buf_w = !p->dio_w;
		break;
	}
}

static bool meet(const struct range *a, const struct range *b, uint64_t grain)
{
	uint64_t alo = rdown(a->lo, grain), ahi = a->hi == ~0ULL ? ~0ULL : rup(a->hi, grain);
	uint64_t blo = rdown(b->lo, grain), bhi = b->hi == ~0ULL ? ~0ULL : rup(b->hi, grain);

	return a->file == b->file && alo < bhi && blo < ahi;
}

/* Whether a and b may not run together (see the header); a's side. */
static bool excludes(const struct fp *a, const struct fp *b)
{
	uint64_t folio = max64(ps, bs);
	int i, j, f;

	for (f = 0; f < NFILES; f++)
		if (a->need[f] && b->shrink[f])
			return true;
	if (a->batch && b->batch)
		return true;
	if (a->async_dio && b->trunc[a->file] && !dio_aio_trunc)
		return true;
	if (a->remap && b->mmap_r && a->file == b->file && !remap_mmap)
		return true;
	for (i = 0; i < a->n; i++) {
		for (j = 0; j < b->n; j++) {
			const struct range *x = &a->r[i], *y = &b->r[j];

			if (a->mmap_w && x->w && meet(x, y, folio))
				return true;
			if (a->copy && (x->w || y->w) && meet(x, y, 1))
				return true;
			if (a->dio_w && b->dio_w && x->w && y->w && meet(x, y, folio))
				return true;
			if (a->async_dio && (b->buf_w || b->mmap_w) && x->w && y->w &&
			    meet(x, y, folio))
				return true;
		}
	}
	return false;
}

static enum role role_of(const struct op *g, int n, int i)
{
	const struct op *o = &g[i];
	struct fp a, b;
	int j;

	switch (o->kind) {
	case K_MMAP_R: case K_DIO_R:
		return R_RELAXED;
	case K_READ:
		op_fp(o, &a);
		for (j = 0; j < n; j++) {
			op_fp(&g[j], &b);
			if (j != i && b.dio_w && meet(&a.r[0], &b.r[0], max64(ps, bs)))
				return R_RELAXED;
		}
		return R_STRICT;
	case K_FSYNC: case K_FDATASYNC: case K_SFR: case K_DROP: case K_MMAP_W: case K_COPY:
		return R_FIXED;
	default:
		return malformed(o) ? R_FIXED : R_MUT;
	}
}

/* The size each file may have at least, and the most, in some order. */
static void sizes(const struct op *g, int n, uint64_t *bound)
{
	int i, f;

	for (f = 0; f < NFILES; f++) {
		cg.size0[f] = cg.gmin[f] = bound[f] = files[f].size;
	}
	for (i = 0; i < n; i++) {
		const struct op *o = &g[i];
		uint64_t end = o->off + (is_batch(o) ? o->n * o->off2 : o->len);

		f = o->file;
		switch (o->kind) {
		case K_TRUNC:
			cg.gmin[f] = min64(cg.gmin[f], o->off);
			bound[f] = max64(bound[f], o->off);
			break;
		case K_COLLAPSE:
			cg.gmin[f] = min64(cg.gmin[f], cg.size0[f] - o->len);
			break;
		case K_INSERT: case K_APPEND:
			break;
		case K_READ: case K_MMAP_R: case K_DIO_R: case K_DEDUPE: case K_FSYNC:
		case K_FDATASYNC: case K_SFR: case K_DROP: case K_MMAP_W:
			break;
		default:
			if (!malformed(o))
				bound[f] = max64(bound[f], end);
		}
	}
	for (i = 0; i < n; i++)
		if (g[i].kind == K_INSERT || g[i].kind == K_APPEND)
			bound[g[i].file] += g[i].len;
}

static int units_of(const struct op *g, int n)
{
	int i, u = 0;

	for (i = 0; i < n; i++)
		if (role_of(g, n, i) == R_MUT)
			u += is_batch(&g[i]) ? (int)g[i].n : 1;
	return u;
}

/* Whether g[n - 1] may join g[0 .. n - 2]. */
static bool group_ok(struct op *g, int n)
{
	struct op *o = &g[n - 1];
	uint64_t bound[NFILES];
	struct fp a, b;
	int i, f;

	if (is_batch(o)) {	/* as deep as the permutations allow */
		int room = MAXU - units_of(g, n - 1);

		if (room < 1)
			return false;
		if (o->n > (uint32_t)room) {
			o->n = room;
			o->len = o->n * o->off2;
		}
	}
	if (units_of(g, n) > MAXU)
		return false;
	/* a direct read stays below EOF: past it, post-EOF preallocation */
	if (o->kind == K_DIO_R && o->off >= files[o->file].size)
		return false;
	sizes(g, n, bound);
	for (f = 0; f < NFILES; f++)
		if (bound[f] > maxf + MAXW - MAXW / 2)
			return false;
	op_fp(o, &a);
	for (i = 0; i < n - 1; i++) {
		op_fp(&g[i], &b);
		if (excludes(&a, &b) || excludes(&b, &a))
			return false;
	}
	return true;
}

/* --- the calls --- */
static unsigned char *tbuf(int j)
{
	return src + (MAXQD - j) * slot;
}

static void spin_until(double t)
{
	double d = t - now();

	if (d > 300e-6)
		usleep((d - 200e-6) * 1e6);
	while (now() < t)
		;
}

/* One read of a repeated read, into the next observation slot. */
static long long read_once(const struct op *o, struct res *x, unsigned char *p,
			   const unsigned char *map)
{
	ssize_t ret;

	switch (o->kind) {
	case K_MMAP_R:
		memcpy(p, map, o->len);
		return o->len;
	case K_DIO_R:
		ret = pread(files[o->file].dfd, p, x->rlen, o->off);
		break;
	default:
		ret = pread(files[o->file].fd, p, x->rlen, o->off);
		break;
	}
	return ret < 0 ? -errno : ret;
}

static void observe(const struct op *o, struct res *x)
{
	struct rfile *f = &files[o->file];
	unsigned char *map = NULL, *m = NULL;
	uint64_t pg = rdown(o->off, ps), mlen = o->off + o->len - pg;

	if (o->kind == K_MMAP_R) {
		m = mmap(NULL, mlen, PROT_READ, MAP_SHARED, f->fd, pg);
		if (m == MAP_FAILED) {
			snprintf(x->err, sizeof(x->err), "mmap: %s", strerror(errno));
			return;
		}
		map = m + (o->off - pg);
	}
	do {
		unsigned char *p = x->obuf + (size_t)x->nobs * MAXW;
		long long ret = read_once(o, x, p, map);

		x->nreads++;
		if (x->nobs && ret == x->oret[x->nobs - 1] &&
		    (ret <= 0 || !memcmp(p, p - MAXW, ret)))
			continue;
		x->oret[x->nobs++] = ret;
	} while (atomic_load(&cg.running) > 1 && x->nreads < MAXREP && x->nobs < MAXOBS);
	if (m)
		munmap(m, mlen);
}

static long long call_mmap_w(const struct op *o, struct res *x)
{
	uint64_t pg = rdown(o->off, ps), mlen = o->off + o->len - pg;
	unsigned char *p = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED,
				files[o->file].fd, pg);
	long long ret = 0;

	if (p == MAP_FAILED)
		return -errno;
	memcpy(p + (o->off - pg), x->buf, o->len);
	if (o->sub && msync(p, mlen, MS_SYNC))
		ret = -errno;
	munmap(p, mlen);
	return ret;
}

static long long call_dedupe(const struct op *o, struct res *x)
{
	unsigned long long deduped;
	int status, err = dedupe_call(o, &status, &deduped);

	if (err)
		return err;
	x->status = status;
	x->deduped = deduped;
	return 0;
}

static long long call_copy(const struct op *o)
{
	loff_t soff = o->off2, doff = o->off;
	uint64_t done = 0;
	ssize_t n;

	while (done < o->len) {
		n = copy_file_range(files[o->file2].fd, &soff, files[o->file].fd, &doff,
				    o->len - done, 0);
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += n;
	}
	return done;
}

static long long call(struct op *o, struct res *x)
{
	struct rfile *f = &files[o->file];
	struct iovec iov = { x->buf, o->len };
	struct file_clone_range cr;
	ssize_t ret = 0;

	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		return do_pwrite(o->kind, o->file, x->buf, o->len, o->off);
	case K_APPEND:
		ret = pwritev2(f->afd, &iov, 1, -1, append_flags(o));
		break;
	case K_MMAP_W:
		return call_mmap_w(o, x);
	case K_READ: case K_MMAP_R: case K_DIO_R:
		observe(o, x);
		return 0;
	case K_TRUNC:
		ret = ftruncate(f->fd, o->off);
		break;
	case K_FALLOC: case K_PUNCH: case K_ZERO: case K_COLLAPSE: case K_INSERT:
		ret = fallocate(f->fd, falloc_mode(o), o->off, o->len);
		break;
	case K_CLONE:
		cr = (struct file_clone_range){ .src_fd = files[o->file2].fd,
						.src_offset = o->off2, .src_length = o->len,
						.dest_offset = o->off };
		ret = ioctl(f->fd, FICLONERANGE, &cr);
		break;
	case K_DEDUPE:
		return call_dedupe(o, x);
	case K_COPY:
		return call_copy(o);
	case K_FSYNC:
		ret = fsync(f->fd);
		break;
	case K_FDATASYNC:
		ret = fdatasync(f->fd);
		break;
	case K_SFR:
		ret = sync_file_range(f->fd, o->off, o->len, o->sub);
		break;
	case K_DROP:
		wt_drop_caches();
		return 0;
	case K_URING: case K_AIO:
		return batch_io(o, x->subs, x->sres, x->err, sizeof(x->err)) ? -EIO : 0;
	}
	return ret < 0 ? -errno : ret;
}

static void *worker(void *arg)
{
	int j = (intptr_t)arg;

	for (;;) {
		pthread_barrier_wait(&b_start);
		if (j < cg.n) {
			struct op *o = &cg.o[j];
			struct res *x = &cg.res[j];

			if (o->delay)
				spin_until(cg.t0 + o->delay / 1e6);
			x->t0 = (now() - cg.t0) * 1e3;
			x->ret = call(o, x);
			x->t1 = (now() - cg.t0) * 1e3;
			atomic_fetch_sub(&cg.running, 1);
		}
		pthread_barrier_wait(&b_end);
	}
	return NULL;
}

/* --- the model of the orders --- */
static void vbad(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vbad(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->nbad < MAXMSG) {
		va_start(ap, fmt);
		vsnprintf(v->msg[v->nbad], sizeof(v->msg[0]), fmt, ap);
		va_end(ap);
	}
	v->nbad++;
}

static void common_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void common_bad(const char *fmt, ...)
{
	va_list ap;

	if (cg.ncommon < MAXMSG) {
		va_start(ap, fmt);
		vsnprintf(cg.common[cg.ncommon], sizeof(cg.common[0]), fmt, ap);
		va_end(ap);
	}
	cg.ncommon++;
}

static void hexs(char *s, const unsigned char *b, size_t n)
{
	size_t i;

	s[0] = 0;
	for (i = 0; i < n; i++)
		sprintf(s + 3 * i, i ? " %02x" : "%02x", b[i]);
}

/* The first byte where got differs from want, or n. */
static uint64_t first_diff(const unsigned char *want, const unsigned char *got, uint64_t n)
{
	uint64_t i;

	if (!memcmp(want, got, n))
		return n;
	for (i = 0; want[i] == got[i]; i++)
		;
	return i;
}

static char name_of(int i)
{
	return 'A' + i;
}

static void unit_str(const struct unit *u, char *s, size_t n)
{
	if (is_batch(&cg.o[u->op]))
		snprintf(s, n, "%c%u", name_of(u->op), u->sub);
	else
		snprintf(s, n, "%c", name_of(u->op));
}

static void order_str(const uint8_t *p, char *s, size_t n)
{
	size_t k = 0;
	int i;

	s[0] = 0;
	for (i = 0; i < cg.nu && k < n; i++) {
		char u[8];

		unit_str(&cg.u[p[i]], u, sizeof(u));
		k += snprintf(s + k, n - k, "%s%s", i ? " " : "", u);
	}
	if (!cg.nu)
		snprintf(s, n, "(no call changes the files)");
}

/*
 * Applies unit u to state st; with v, checks the call's result against
 * the one it has here.
 */
static void apply(struct rfile *st, const struct unit *u, struct verdict *v)
{
	const struct op *o = &cg.o[u->op];
	const struct res *x = &cg.res[u->op];
	struct rfile *f = &st[o->file];
	char un[8];
	bool same;

	unit_str(u, un, sizeof(un));
	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		if (x->ret == -EOPNOTSUPP && cg.refuse_ok[u->op])
			return;
		if (x->ret > 0)
			model_write(f, o->off, x->buf, min64(x->ret, o->len));
		if (v && x->ret != (long long)o->len)
			vbad(v, "%s: the write returned %lld (%s), not its length %llu", un, x->ret,
			     atw_err(x->ret), (unsigned long long)o->len);
		return;
	case K_APPEND:
		if (x->ret > 0)
			model_write(f, f->size, x->buf, min64(x->ret, o->len));
		if (v && x->ret != (long long)o->len)
			vbad(v, "%s: the O_APPEND write returned %lld (%s), not its length %llu", un,
			     x->ret, atw_err(x->ret), (unsigned long long)o->len);
		return;
	case K_TRUNC:
		if (!x->ret)
			model_truncate(f, o->off);
		break;
	case K_FALLOC: case K_PUNCH: case K_ZERO: case K_COLLAPSE: case K_INSERT:
		if (!x->ret)
			model_falloc(f, o);
		break;
	case K_CLONE:
		if (!x->ret)
			model_write(f, o->off, st[o->file2].data + o->off2, o->len);
		break;
	case K_DEDUPE:
		same = !memcmp(st[o->file2].data + o->off2, f->data + o->off, o->len);
		if (v && !x->ret && same &&
		    (x->status != FILE_DEDUPE_RANGE_SAME || x->deduped != (long long)o->len))
			vbad(v, "%s: the ranges are equal here, dedupe says status %d, %lld bytes", un,
			     x->status, x->deduped);
		if (v && !x->ret && !same && x->status != FILE_DEDUPE_RANGE_DIFFERS)
			vbad(v, "%s: the ranges differ here, dedupe says status %d, %lld bytes", un,
			     x->status, x->deduped);
		break;
	case K_URING: case K_AIO: {
		const struct sub *s = &x->subs[u->sub];
		long long r = x->sres[u->sub];

		if (r == -EOPNOTSUPP && cg.refuse_ok[u->op])
			return;
		if (r > 0)
			model_write(f, s->off, s->buf, min64(r, s->len));
		if (v && r != (long long)s->len)
			vbad(v, "%s: %s write of %llu at %llu completed with %lld (%s)", un,
			     kinds[o->sub].name, (unsigned long long)s->len,
			     (unsigned long long)s->off, r, atw_err(r));
		return;
	}
	}
	if (v && x->ret)
		vbad(v, "%s: %s failed: %s", un, kinds[o->kind].name, strerror(-x->ret));
}

/* The reads' results against the state after point i of an order. */
static void observe_state(int i)
{
	int k;
	unsigned int t;

	for (k = 0; k < cg.n; k++) {
		const struct op *o = &cg.o[k];
		struct res *x = &cg.res[k];
		const struct rfile *f = &cg.st[o->file];
		uint64_t want = o->off >= f->size ? 0 : min64(x->rlen, f->size - o->off), b;

		if (cg.role[k] != R_STRICT && cg.role[k] != R_RELAXED)
			continue;
		if (o->kind == K_MMAP_R)
			want = o->len;
		for (t = 0; t < x->nobs; t++) {
			const unsigned char *got = x->obuf + (size_t)t * MAXW;
			long long r = x->oret[t];
			unsigned char *ok = x->okmap + (size_t)t * MAXW;

			if (cg.role[k] == R_RELAXED) {
				/* a byte's value includes its zero past EOF */
				uint64_t m = r > 0 && o->off < cg.whi[o->file] ?
					     min64(r, cg.whi[o->file] - o->off) : 0;

				if (r == (long long)want)
					x->lenok[t] = true;
				if (x->allok[t] || !m)
					continue;
				if (!memcmp(got, f->data + o->off, m)) {
					memset(ok, 1, m);
				} else {
					for (b = 0; b < m; b++)
						ok[b] |= got[b] == f->data[o->off + b];
				}
				x->allok[t] = !memchr(ok, 0, m);
				continue;
			}
			if (r != (long long)want) {
				x->ndiff[t][i] = -1;
				continue;
			}
			b = first_diff(f->data + o->off, got, want);
			x->fdiff[t][i] = b;
			if (b == want) {
				x->ndiff[t][i] = 0;
				x->omask[t] |= 1u << i;
				continue;
			}
			for (x->ndiff[t][i] = 0; b < want; b++)
				x->ndiff[t][i] += got[b] != f->data[o->off + b];
		}
	}
}

/*
 * For a read result t of group operation k that fits no state: the atomic
 * writes of the group it overlaps, each with how many of the bytes it
 * changes the read found new and how many old; both non-zero is a unit
 * read torn.
 */
static void torn_units(int k, unsigned int t, char *s, size_t n)
{
	const struct op *ro = &cg.o[k];
	const struct res *rx = &cg.res[k];
	const unsigned char *got = rx->obuf + (size_t)t * MAXW;
	size_t l = 0;
	int i;

	s[0] = 0;
	for (i = 0; i < cg.nu && l < n; i++) {
		const struct op *o = &cg.o[cg.u[i].op];
		const struct res *x = &cg.res[cg.u[i].op];
		uint64_t off = o->off, len = o->len, a, e, b, nn = 0, no = 0;
		const unsigned char *nb = x->buf;
		char un[8];

		if (is_batch(o)) {
			if (!is_atomic(o->sub))
				continue;
			off = x->subs[cg.u[i].sub].off;
			len = x->subs[cg.u[i].sub].len;
			nb = x->subs[cg.u[i].sub].buf;
		} else if (!is_atomic(o->kind)) {
			continue;
		}
		if (o->file != ro->file || rx->oret[t] <= 0)
			continue;
		a = max64(off, ro->off);
		e = min64(off + len, ro->off + rx->oret[t]);
		for (b = a; b < e; b++) {
			unsigned char old = files[o->file].data[b], new_ = nb[b - off];

			if (old == new_)
				continue;
			nn += got[b - ro->off] == new_;
			no += got[b - ro->off] == old;
		}
		unit_str(&cg.u[i], un, sizeof(un));
		if (nn && no)
			l += snprintf(s + l, n - l, "; %s's atomic unit [%llu, +%llu) read torn: %llu of its changed bytes new, %llu old",
				      un, (unsigned long long)off, (unsigned long long)len,
				      (unsigned long long)nn, (unsigned long long)no);
		else if (nn && e < off + len && ro->off + rx->rlen > e)
			l += snprintf(s + l, n - l, "; %s's atomic unit [%llu, +%llu) read torn: new bytes, but the read stops at %llu inside it (the size before the write)",
				      un, (unsigned long long)off, (unsigned long long)len,
				      (unsigned long long)e);
	}
}

/* A strict read's results must be states of the order, in program order. */
static void judge_strict(struct verdict *v)
{
	int k, i, cur;
	unsigned int t;

	for (k = 0; k < cg.n; k++) {
		const struct op *o = &cg.o[k];
		struct res *x = &cg.res[k];

		if (cg.role[k] != R_STRICT)
			continue;
		for (cur = 0, t = 0; t < x->nobs; t++) {
			uint32_t m = x->omask[t] >> cur << cur;
			char d[64] = "", tu[200];
			size_t n = 0;

			if (m) {
				cur = __builtin_ctz(m);
				continue;
			}
			for (i = cur; i <= cg.nu && n < sizeof(d); i++) {
				const char *sep = i > cur ? "," : "";

				if (x->ndiff[t][i] < 0)
					n += snprintf(d + n, sizeof(d) - n, "%slen", sep);
				else
					n += snprintf(d + n, sizeof(d) - n, "%s%lld", sep,
						      x->ndiff[t][i]);
			}
			torn_units(k, t, tu, sizeof(tu));
			vbad(v, "%c: read result %u of %u (%lld bytes at %llu) is no state at or after point %d; bytes differing from the states after %d..%d calls: %s (first: %llu)%s",
			     name_of(k), t + 1, x->nobs, x->oret[t], (unsigned long long)o->off, cur,
			     cur, cg.nu, d,
			     (unsigned long long)(o->off +
						  (x->ndiff[t][cur] > 0 ? x->fdiff[t][cur] : 0)),
			     tu);
			break;
		}
	}
}

/* The state after the last call against what was read back. */
static void judge_final(struct verdict *v, const char *how)
{
	char w[64], g[64];
	int f;

	for (f = 0; f < NFILES; f++) {
		const struct rfile *s = &cg.st[f];
		uint64_t end, b;

		if (s->size != cg.asize[f]) {
			vbad(v, "%s: file %d has size %llu, this order gives %llu", how, f,
			     (unsigned long long)cg.asize[f], (unsigned long long)s->size);
			continue;
		}
		if (!cg.touched[f])
			continue;
		end = min64(cg.whi[f], s->size);
		if (end <= cg.wlo[f])
			continue;
		b = cg.wlo[f] + first_diff(s->data + cg.wlo[f], cg.act[f] + cg.wlo[f],
					   end - cg.wlo[f]);
		if (b == end)
			continue;
		hexs(w, s->data + b, min64(end - b, 8));
		hexs(g, cg.act[f] + b, min64(end - b, 8));
		vbad(v, "%s: file %d byte %llu (size %llu): this order gives %s, found %s", how, f,
		     (unsigned long long)b, (unsigned long long)s->size, w, g);
	}
}

static void st_load(void)
{
	int f;

	for (f = 0; f < NFILES; f++) {
		cg.st[f].size = files[f].size;
		if (cg.touched[f])
			memcpy(cg.st[f].data + cg.wlo[f], files[f].data + cg.wlo[f],
			       cg.whi[f] - cg.wlo[f]);
	}
}

/* Every order of the units, lexicographic. */
static void permutations(void)
{
	uint8_t p[MAXU];
	int i, j, n = cg.nu;

	for (i = 0; i < n; i++)
		p[i] = i;
	cg.nperm = 0;
	for (;;) {
		memcpy(cg.perm[cg.nperm++], p, n);
		for (i = n - 2; i >= 0 && p[i] > p[i + 1]; i--)
			;
		if (i < 0)
			break;
		for (j = n - 1; p[j] < p[i]; j--)
			;
		p[i] ^= p[j], p[j] ^= p[i], p[i] ^= p[j];
		for (i++, j = n - 1; i < j; i++, j--)
			p[i] ^= p[j], p[j] ^= p[i], p[i] ^= p[j];
	}
}

/* Simulates order p into cg.st and judges it into v. */
static void run_order(int p, struct verdict *v)
{
	int i, k;

	memset(v, 0, sizeof(*v));
	for (k = 0; k < cg.n; k++)
		memset(cg.res[k].omask, 0, sizeof(cg.res[k].omask));
	st_load();
	for (i = 0; i <= cg.nu; i++) {
		observe_state(i);
		if (i < cg.nu)
			apply(cg.st, &cg.u[cg.perm[p][i]], v);
	}
	judge_final(v, "after the group");
	judge_strict(v);
}

/* The relaxed reads: every byte some state's, the length some state's. */
static void judge_relaxed(void)
{
	char hx[8];
	int k;
	unsigned int t;

	for (k = 0; k < cg.n; k++) {
		const struct op *o = &cg.o[k];
		struct res *x = &cg.res[k];

		if (cg.role[k] != R_RELAXED)
			continue;
		for (t = 0; t < x->nobs; t++) {
			const unsigned char *ok = x->okmap + (size_t)t * MAXW;
			uint64_t b;

			if (x->oret[t] < 0) {
				common_bad("%c: %s failed: %s", name_of(k), kinds[o->kind].name,
					   strerror(-x->oret[t]));
				break;
			}
			if (!x->lenok[t]) {
				common_bad("%c: %s result %u returned %lld bytes, a length no state of any order gives",
					   name_of(k), kinds[o->kind].name, t + 1, x->oret[t]);
				break;
			}
			for (b = 0; b < (uint64_t)x->oret[t] && ok[b]; b++)
				;
			if (b < (uint64_t)x->oret[t]) {
				hexs(hx, x->obuf + (size_t)t * MAXW + b, 1);
				common_bad("%c: %s result %u: byte %llu is %s, which no state of any order has there",
					   name_of(k), kinds[o->kind].name, t + 1,
					   (unsigned long long)(o->off + b), hx);
				break;
			}
		}
	}
}

/* --- one group --- */
static void res_str(int k, char *s, size_t n)
{
	const struct op *o = &cg.o[k];
	const struct res *x = &cg.res[k];
	size_t l;
	unsigned int i;

	if (x->err[0]) {
		snprintf(s, n, "%s", x->err);
		return;
	}
	switch (o->kind) {
	case K_READ: case K_MMAP_R: case K_DIO_R:
		l = snprintf(s, n, "%u calls, %u distinct results:", x->nreads, x->nobs);
		for (i = 0; i < x->nobs && l < n; i++)
			l += snprintf(s + l, n - l, " %lld", x->oret[i]);
		return;
	case K_DEDUPE:
		snprintf(s, n, "returned %lld, status %d, %lld bytes", x->ret, x->status,
			 x->deduped);
		return;
	case K_URING: case K_AIO:
		l = snprintf(s, n, "completions:");
		for (i = 0; i < o->n && l < n; i++)
			l += snprintf(s + l, n - l, " %llu@%llu=%lld",
				      (unsigned long long)x->subs[i].len,
				      (unsigned long long)x->subs[i].off, x->sres[i]);
		return;
	default:
		snprintf(s, n, "returned %lld%s%s", x->ret, x->ret < 0 ? " " : "",
			 x->ret < 0 ? atw_err(x->ret) : "");
	}
}

/* The calls that nothing else in the group touches, each on its own. */
static void judge_fixed(void)
{
	int k;

	for (k = 0; k < cg.n; k++) {
		const struct op *o = &cg.o[k];
		const struct res *x = &cg.res[k];
		struct rfile *s = &files[o->file2];
		uint64_t want;

		if (cg.role[k] != R_FIXED)
			continue;
		switch (o->kind) {
		case K_MMAP_W:
			if (x->ret)
				common_bad("%c: mmap store: %s", name_of(k), strerror(-x->ret));
			model_write(&files[o->file], o->off, x->buf, o->len);
			break;
		case K_COPY:
			want = o->off2 >= s->size ? 0 : min64(o->len, s->size - o->off2);
			if (x->ret != (long long)want)
				common_bad("%c: copy_file_range copied %lld (%s), expected %llu", name_of(k),
					   x->ret, x->ret < 0 ? strerror(-x->ret) : "bytes",
					   (unsigned long long)want);
			if (x->ret > 0)
				model_write(&files[o->file], o->off, s->data + o->off2,
					    min64(x->ret, want));
			break;
		case K_DROP:
			break;
		default:	/* syncs; a malformed atomic write */
			if (malformed(o) && x->ret != -EINVAL)
				common_bad("%c: malformed atomic write: expected EINVAL, got %lld (%s)",
					   name_of(k), x->ret, atw_err(x->ret));
			else if (!malformed(o) && x->ret)
				common_bad("%c: %s: %s", name_of(k), kinds[o->kind].name,
					   strerror(-x->ret));
		}
	}
}

/* The files after the group: sizes, and the windows through the cache. */
static int read_back(uint64_t *r)
{
	struct stat st;
	int f;

	for (f = 0; f < NFILES; f++) {
		uint64_t end, done;

		if (fstat(files[f].fd, &st))
			return bad(&cg.o[0], "fstat file %d: %s", f, strerror(errno));
		cg.asize[f] = st.st_size;
		if (!cg.touched[f])
			continue;
		end = min64(cg.whi[f], min64(cg.asize[f], maxf + MAXW));
		for (done = cg.wlo[f]; done < end;) {
			ssize_t n = pread(files[f].fd, cg.act[f] + done, end - done, done);

			if (n <= 0)
				return bad(&cg.o[0], "read back file %d at %llu: %s", f,
					   (unsigned long long)done, n ? strerror(errno) : "EOF");
			done += n;
		}
	}
	/* one time in two: O_DIRECT must agree with the cache */
	if (!rnd(r, 2) || !kinds[K_DIO_R].avail)
		return 0;
	g_reread++;
	for (f = 0; f < NFILES; f++) {
		uint64_t a, e, end;
		ssize_t n;

		if (!cg.touched[f])
			continue;
		end = min64(cg.whi[f], cg.asize[f]);
		a = rdown(cg.wlo[f], lbs);
		e = min64(rup(end, lbs), rup(cg.asize[f], lbs));
		if (e <= a || end <= cg.wlo[f])
			continue;
		n = pread(files[f].dfd, dio_buf, e - a, a);
		if (n < (ssize_t)(end - a)) {
			common_bad("O_DIRECT read back of file %d [%llu, %llu) returned %zd (%s)", f,
				   (unsigned long long)a, (unsigned long long)e, n,
				   n < 0 ? strerror(errno) : "short");
			continue;
		}
		n = first_diff(cg.act[f] + cg.wlo[f], dio_buf + (cg.wlo[f] - a), end - cg.wlo[f]);
		if (n < (ssize_t)(end - cg.wlo[f])) {
			char c[64], d[64];

			hexs(c, cg.act[f] + cg.wlo[f] + n, min64(end - cg.wlo[f] - n, 8));
			hexs(d, dio_buf + (cg.wlo[f] - a) + n, min64(end - cg.wlo[f] - n, 8));
			common_bad("file %d byte %llu: the cache has %s, O_DIRECT reads %s", f,
				   (unsigned long long)(cg.wlo[f] + n), c, d);
		}
	}
	return 0;
}

/* The bytes each file may change or the group reads: the windows. */
static void windows(void)
{
	uint64_t bound[NFILES];
	struct fp p;
	int k, i, f;

	sizes(cg.o, cg.n, bound);
	for (f = 0; f < NFILES; f++) {
		cg.touched[f] = false;
		cg.wlo[f] = ~0ULL;
		cg.whi[f] = 0;
	}
	for (k = 0; k < cg.n; k++) {
		op_fp(&cg.o[k], &p);
		if (cg.o[k].kind == K_DIO_R || cg.o[k].kind == K_READ)	/* as asked */
			p.r[0].hi = cg.o[k].off + cg.res[k].rlen;
		for (i = 0; i < p.n; i++) {
			f = p.r[i].file;
			cg.touched[f] = true;
			cg.wlo[f] = min64(cg.wlo[f], p.r[i].lo);
			cg.whi[f] = max64(cg.whi[f], min64(p.r[i].hi, bound[f]));
		}
	}
	for (f = 0; f < NFILES; f++) {
		cg.whi[f] = min64(cg.whi[f], maxf + MAXW);
		if (cg.wlo[f] >= cg.whi[f])
			cg.touched[f] = false;
	}
}

static void print_group(const char *why)
{
	char s[256], r[256];
	int k;

	diag("concurrent group #%u..#%u: %s", cg.o[0].seq, cg.o[cg.n - 1].seq, why);
	for (k = 0; k < cg.n; k++) {
		op_str(&cg.o[k], s, sizeof(s));
		res_str(k, r, sizeof(r));
		diag("  %c: %s", name_of(k), s);
		diag("     issued +%.3f ms, returned +%.3f ms, %s", cg.res[k].t0, cg.res[k].t1, r);
	}
}

int exec_group(struct op *g, int n)
{
	uint64_t r = g[0].gen ^ 0x9e3779b97f4a7c15ULL;	/* the re-read: the seed's */
	uint64_t bound[NFILES];
	int k, i, p, best;
	bool differ = false;
	char s[128];

	if (!ready)	/* a replayed log's group */
		conc_init();
	memset(&cg.res, 0, sizeof(cg.res));
	cg.o = g;
	cg.n = n;
	cg.ncommon = 0;
	sizes(g, n, bound);	/* the footprints' sizes, before role_of() */
	for (k = 0; k < n; k++) {
		struct op *o = &g[k];

		log_op(o);
		cg.role[k] = role_of(g, n, k);
		if (is_batch(o) || o->kind < NWRITEKINDS) {
			int sk = is_batch(o) ? o->sub : o->kind;
			bool shared = files[o->file].shared;

			for (i = 0; i < n; i++)
				if ((g[i].kind == K_CLONE || g[i].kind == K_DEDUPE ||
				     g[i].kind == K_COPY) &&
				    (g[i].file == o->file || g[i].file2 == o->file))
					shared = true;
			cg.refuse_ok[k] = is_atomic(sk) && shared_refused[sk] && shared;
		} else {
			cg.refuse_ok[k] = false;
		}
	}
	/* the buffers: each thread its own slot; a batch uses slots 0.. */
	for (k = 0; k < n; k++) {
		struct op *o = &g[k];
		struct res *x = &cg.res[k];
		static unsigned char *obufs[MAXK], *okmaps[MAXK];

		if (!obufs[k]) {
			obufs[k] = atw_alloc((size_t)MAXOBS * MAXW);
			okmaps[k] = atw_alloc((size_t)MAXOBS * MAXW);
		}
		x->obuf = obufs[k];
		x->okmap = okmaps[k];
		x->buf = tbuf(k) + o->bufoff;
		x->rlen = o->len;
		switch (o->kind) {
		case K_APPEND:
			fill(x->buf, o->off, o->len, o->gen);
			break;
		case K_MMAP_W:
		case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
		case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
			fill(x->buf, o->off, o->len, o->gen);
			break;
		case K_DIO_R:	/* not into post-EOF delalloc (main.c, -E) */
			if (!dio_past_eof && o->off < files[o->file].size)
				x->rlen = min64(o->len, rup(files[o->file].size, lbs) - o->off);
			break;
		}
	}
	cg.nu = 0;
	for (k = 0; k < n; k++) {
		if (cg.role[k] != R_MUT)
			continue;
		for (i = 0; i < (is_batch(&g[k]) ? (int)g[k].n : 1); i++)
			cg.u[cg.nu++] = (struct unit){ k, i };
	}
	windows();
	cur_op = &g[0];
	win_begin_group(g, n);

	/* the calls */
	atomic_store(&cg.running, n);
	cg.t0 = now();
	pthread_barrier_wait(&b_start);
	pthread_barrier_wait(&b_end);

	g_groups++;
	g_calls += n;
	for (k = 0; k < n; k++)
		for (i = k + 1; i < n; i++)
			if (cg.res[k].t0 < cg.res[i].t1 && cg.res[i].t0 < cg.res[k].t1) {
				g_overlap++;
				k = i = n;
			}
	for (k = 0; k < n; k++)
		if (cg.res[k].nobs > 1) {
			g_seen++;
			break;
		}
	for (k = 0; k < n; k++) {
		if (cg.res[k].err[0])
			common_bad("%c: %s", name_of(k), cg.res[k].err);
		if (cg.role[k] == R_RELAXED)
			memset(cg.res[k].okmap, 0, (size_t)cg.res[k].nobs * MAXW);
	}
	judge_fixed();
	if (!read_back(&r)) {
		/* every order */
		permutations();
		g_orders += cg.nperm;
		for (p = 0; p < cg.nperm; p++)
			run_order(p, &cg.v[p]);
		judge_relaxed();
		best = -1;
		for (p = 0; p < cg.nperm; p++) {
			if (!cg.v[p].nbad && !cg.ncommon && best < 0)
				best = p;
			if (p && (!cg.v[p].nbad) != (!cg.v[0].nbad))
				differ = true;
		}
		if (differ)
			g_differ++;
		if (best >= 0) {
			for (i = 0; i < cg.nu; i++)
				apply(files, &cg.u[cg.perm[best][i]], NULL);
			if (verbose) {
				order_str(cg.perm[best], s, sizeof(s));
				print_group(s);
			}
		} else {
			best = 0;
			for (p = 1; p < cg.nperm; p++)
				if (cg.v[p].nbad < cg.v[best].nbad)
					best = p;
			order_str(cg.perm[best], s, sizeof(s));
			print_group("the results fit no serial order");
			for (i = 0; i < cg.ncommon && i < MAXMSG; i++)
				diag("  in every order: %s", cg.common[i]);
			diag("  closest order: %s (%d of its checks failed%s):", s, cg.v[best].nbad,
			     cg.nperm > 1 ? "; orders tried: all" : "");
			for (i = 0; i < cg.v[best].nbad && i < MAXMSG; i++)
				diag("    %s", cg.v[best].msg[i]);
			bad(&g[0], "concurrent group of %d (#%u..#%u): no serial order fits; closest %s: %s",
			    n, g[0].seq, g[n - 1].seq, s,
			    cg.ncommon ? cg.common[0] : cg.v[best].nbad ? cg.v[best].msg[0] : "?");
		}
	}
	for (k = 0; k < n; k++)
		if (g[k].kind == K_CLONE || g[k].kind == K_DEDUPE || g[k].kind == K_COPY)
			files[g[k].file].shared = files[g[k].file2].shared = true;
	win_end();
	atomic_fetch_add(&progress, n);
	return failed ? -1 : 0;
}

/* The group's first operation: what the others aim at. */
static void set_focus(const struct op *o)
{
	focus.on = true;
	focus.file = o->file;
	focus.off = o->off;
	focus.len = o->len;
	switch (o->kind) {
	case K_URING: case K_AIO:
		focus.len = o->n * o->off2;
		break;
	case K_TRUNC:
		focus.off = o->off - min64(o->off, 2 * bs);
		focus.len = 2 * bs;
		break;
	case K_APPEND:
		focus.off = files[o->file].size - min64(files[o->file].size, bs);
		focus.len = o->len + bs;
		break;
	case K_FSYNC: case K_FDATASYNC: case K_DROP:
		focus.on = false;
		break;
	}
	if (!focus.len)
		focus.on = false;
}

uint64_t run_group(uint64_t *r, uint32_t seq)
{
	struct op g[MAXK], o;
	int w[NKINDS], k, n, tries;

	for (k = 0; k < NKINDS; k++)
		w[k] = kinds[k].avail && k != K_FAULT && k != K_VERIFY ? kinds[k].weight : 0;
	focus.on = false;
	for (n = 0; n < (int)conc_k; n++) {
		bool got = false;

		for (tries = 0; tries < 20 && !got; tries++)
			got = draw_op_w(r, &g[n], seq + n, w) && group_ok(g, n + 1);
		if (!got)
			break;
		if (!n)
			set_focus(&g[0]);
		if (is_batch(&g[n]))
			w[K_URING] = w[K_AIO] = 0;
	}
	focus.on = false;
	if (n < 2) {	/* nothing fits beside it: one operation, serially */
		g_single++;
		o = n ? g[0] : (struct op){ .seq = seq, .kind = K_FSYNC };
		log_op(&o);
		cur_op = &o;
		win_begin(&o);
		exec_op(&o);
		win_end();
		ops[nops - 1] = o;
		atomic_fetch_add(&progress, 1);
		return 1;
	}
	for (k = 0; k < n; k++) {
		g[k].grp = seq + 1;
		switch (rnd(r, 4)) {
		case 0: case 1: g[k].delay = 0; break;
		case 2: g[k].delay = rnd(r, 300); break;
		default: g[k].delay = rnd(r, 4000); break;
		}
	}
	exec_group(g, n);
	return n;
}

void conc_init(void)
{
	int f;
	intptr_t j;

	for (f = 0; f < NFILES; f++) {
		cg.st[f].data = atw_alloc(maxf + MAXW);
		cg.act[f] = atw_alloc(maxf + MAXW);
	}
	ready = true;
	dio_buf = atw_alloc(maxf + 2 * MAXW);
	pthread_barrier_init(&b_start, NULL, MAXK + 1);
	pthread_barrier_init(&b_end, NULL, MAXK + 1);
	for (j = 0; j < MAXK; j++) {
		pthread_t t;

		pthread_create(&t, NULL, worker, (void *)j);
		pthread_detach(t);
	}
	if (conc_k)
		diag("concurrent phase: groups of %u operations issued together, judged against every serial order (at most %d calls permuted)",
		     conc_k, MAXU);
}

void conc_report(void)
{
	if (!g_groups && !conc_k)
		return;
	diag("concurrent phase: %lu groups (%lu calls, %lu serial orders simulated), %lu with calls overlapping in time, %lu whose orders differ in outcome, %lu with a read that saw the files change, %lu read back with O_DIRECT; %lu draws ran alone (nothing could join them)",
	     g_groups, g_calls, g_orders, g_overlap, g_differ, g_seen, g_reread, g_single);
}
