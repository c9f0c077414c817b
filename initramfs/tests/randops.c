// SPDX-License-Identifier: GPL-2.0
/*
 * randops: random file operations checked against an in-memory model.
 *
 * A seeded sequence of operations on two files in DIR (the XFS of the
 * guest), each applied to an in-memory model of the files' contents and
 * sizes (issue 15): buffered writes, RWF_WRITETHROUGH (+RWF_DSYNC),
 * RWF_ATOMIC|RWF_WRITETHROUGH, O_DIRECT (+RWF_ATOMIC), buffered RWF_ATOMIC,
 * mmap stores, reads through the cache, through mmap and with O_DIRECT,
 * truncate, fallocate (allocate, punch, zero, collapse, insert), clone,
 * dedupe and copy_file_range between and within the files, fsync,
 * fdatasync, sync_file_range, drop_caches, and batches of the write kinds
 * through io_uring and Linux AIO at queue depth (non-overlapping ranges, so
 * the model stays deterministic; a completion carries the full length or a
 * negative errno). Every read is compared with the model and every file's
 * size after every operation. Only what the kernel offers is drawn: each
 * kind is probed at start (uapi, a trial call, statx), never chosen by the
 * variant's name; the others are SKIP lines with the reason.
 *
 * Atomic writes take their sizes from statx (DIO limits for O_DIRECT, the
 * buffered limits for RWF_ATOMIC|RWF_WRITETHROUGH and buffered RWF_ATOMIC);
 * one in ten is malformed (misaligned, not a power of two, above the max)
 * and must fail with EINVAL, leaving the range as it was.
 *
 * Fault operations (kind "fault", weight 0 unless given) fail the device
 * write of one call with scsi_debug error injection (lib/wt_common.h): the
 * blocks are allocated and unshared first and the error armed after a
 * sync, so that it hits the call's own command; sometimes a neighbouring
 * block is dirtied right before the call. A failed write-through (plain or
 * atomic) or direct write must leave the range reading the old data through
 * the cache, from the device and after drop_caches, and the size as it
 * was; a short write is taken into the model as its prefix, and the cache
 * must agree with the device.
 *
 * Background threads (each optional): readers (-R N, buffered reads of both
 * files, checked against the model outside the ranges that the foreground
 * operations running meanwhile may change, see reader_thread(); no
 * O_DIRECT, which meets mmap stores' delalloc with EIO);
 * mmap stores (-M) into the first RESERVE bytes of file 0, which the
 * foreground never touches (every foreground offset, truncate size and
 * collapse/insert point is at or above RESERVE), checked by the thread
 * against its own model; a remapper (-X) that keeps re-mapping pages of the
 * writers' source buffer with MAP_FIXED over themselves (the buffer is a
 * shared memfd mapping, so a remapped page has identical content but is not
 * present: a write's copy from it stops short, and a correct kernel still
 * writes the same bytes); drop_caches every -D MS milliseconds. Fault
 * operations pause the background threads except the readers.
 *
 * Reproducible: -s SEED -n OPS replays the same sequence on the same kernel
 * and file system. On a mismatch the run prints the last operations, the
 * offset and the expected and found bytes, writes the operation log (to -l
 * PATH, else the results directory), and fails; -r LOG re-executes a log.
 * A watchdog reports an operation that has not returned in -H seconds.
 *
 * Power cuts (-C N, DIR an XFS on pcblk): each seed runs N rounds of at
 * most -K operations (default 200) with the power cut after a seeded random
 * number of device writes (or after the last operation), then XFS is
 * unmounted with the power off, restored and mounted again (log recovery),
 * and both files are checked against what the device may hold: see
 * "power cuts" below. Data writes, reads and syncs only; no background
 * threads. The operations replay with -s SEED, where the cut lands does
 * not exactly (it counts device writes).
 *
 * Two rules keep randops to what the kernel promises; each has an option
 * that lifts it and reproduces a known finding on Debian's unpatched 6.12
 * (and on every variant), not a bug of the series:
 *
 *   O_DIRECT reads stop at EOF rounded up to the sector. Past the block
 *   holding EOF, XFS's read mapping (xfs_read_iomap_begin) reports the
 *   data fork's speculative post-EOF delalloc as IOMAP_DELALLOC and
 *   iomap_dio_iter fails the read with EIO ("Direct I/O collision with
 *   buffered writes!"), nothing concurrent. -E reads the drawn length past
 *   EOF as before; reproducer (16 KiB blocks):
 *     ATW_NO_BUILD=1 scripts/boot vanilla --mkfs 16384 -- /tmp/ro/replay-16k-plain.sh
 *   with -E added to its randops line (op #519 dio_read of f1, size
 *   462181, reads [364544, +118784)).
 *
 *   The sub-writes of an O_DIRECT batch (io_uring, AIO) never share a page
 *   (or a folio of the minimum order, i.e. max(page, block)): slots are
 *   multiples of it, and a logged slot that is not keeps each sub-write to
 *   the pages wholly inside its slot. XFS falls back to a buffered write
 *   for a sub-block direct write to a reflinked file (-ENOTBLK in
 *   xfs_file_dio_write_unaligned), so a batch member dirties the page
 *   cache while another member's direct write to the same page is in
 *   flight; that one's completion (a kworker) fails to invalidate the page
 *   ("Page cache invalidation failure on direct I/O") and sets EIO in the
 *   mapping, returned by the next fsync or msync: the documented outcome of
 *   mixing direct and buffered I/O on one page. -P keeps the logged or
 *   drawn slots as they are; reproducer (1 KiB blocks, 512-byte sectors):
 *     ATW_NO_BUILD=1 scripts/boot vanilla --sector 512 --mkfs 1024 -- /tmp/ro/replay-van1k.sh
 *   with -P added (op #72 aio of dio in 13312-byte slots, found by #76).
 *
 * usage: randops [-s SEEDS] [-n OPS] [-t SECS] [-w K=N,...] [-q QD]
 *                [-m MAXSIZE] [-R N] [-M] [-X] [-D MS] [-H SECS]
 *                [-l LOG] [-r LOG] [-E] [-P] [-C CUTS [-K OPS]] [-v] DIR
 */
#include "lib/pcblk.h"
#include "lib/wt_common.h"


#include <liburing.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH
#define RWF_WT RWF_WRITETHROUGH
#else
#define RWF_WT 0
#endif
#ifndef FALLOC_FL_UNSHARE_RANGE
#define FALLOC_FL_UNSHARE_RANGE 0x40
#endif

#define NFILES 2
#define RESERVE (256u << 10)	/* file 0's head, owned by the mmap thread */
#define MAXW (128u << 10)	/* longest write */
#define MAXQD 16
#define NLAST 20

enum kind {
	K_BUF, K_WT, K_WT_DSYNC, K_WT_ATOMIC, K_DIO, K_DIO_ATOMIC, K_BUF_ATOMIC,
	K_MMAP_W, K_READ, K_MMAP_R, K_DIO_R, K_TRUNC, K_FALLOC, K_PUNCH, K_ZERO,
	K_COLLAPSE, K_INSERT, K_CLONE, K_DEDUPE, K_COPY, K_FSYNC, K_FDATASYNC,
	K_SFR, K_DROP, K_URING, K_AIO, K_FAULT, K_VERIFY, NKINDS
};
#define NWRITEKINDS (K_BUF_ATOMIC + 1)

struct kinfo {
	const char *name;
	int weight;
	bool avail;
	char why[96];		/* why not available */
	unsigned long drawn, refused, failed;
};

static struct kinfo kinds[NKINDS] = {
	[K_BUF] = { "buf", 10 }, [K_WT] = { "wt", 10 }, [K_WT_DSYNC] = { "wt_dsync", 3 },
	[K_WT_ATOMIC] = { "wt_atomic", 6 }, [K_DIO] = { "dio", 5 },
	[K_DIO_ATOMIC] = { "dio_atomic", 4 }, [K_BUF_ATOMIC] = { "buf_atomic", 6 },
	[K_MMAP_W] = { "mmap_write", 4 }, [K_READ] = { "read", 10 },
	[K_MMAP_R] = { "mmap_read", 3 }, [K_DIO_R] = { "dio_read", 3 },
	[K_TRUNC] = { "truncate", 4 }, [K_FALLOC] = { "falloc", 2 }, [K_PUNCH] = { "punch", 3 },
	[K_ZERO] = { "zero", 3 }, [K_COLLAPSE] = { "collapse", 2 }, [K_INSERT] = { "insert", 2 },
	[K_CLONE] = { "clone", 4 }, [K_DEDUPE] = { "dedupe", 2 }, [K_COPY] = { "copy", 3 },
	[K_FSYNC] = { "fsync", 2 }, [K_FDATASYNC] = { "fdatasync", 2 }, [K_SFR] = { "sfr", 2 },
	[K_DROP] = { "drop", 1 }, [K_URING] = { "uring", 3 }, [K_AIO] = { "aio", 3 },
	[K_FAULT] = { "fault", 0 }, [K_VERIFY] = { "verify", 1 },
};

/* One operation, everything needed to re-execute it (one log line). */
struct op {
	uint32_t seq;
	uint8_t kind, file, file2, sub;	/* sub: kind-specific variant */
	uint32_t n;			/* batch: depth; fault: dirty neighbour */
	uint64_t gen;			/* data generation */
	uint64_t off, len, off2;	/* off2: source / slot size */
	uint32_t bufoff;		/* source buffer misalignment */
};

struct rfile {
	int fd, dfd;
	unsigned char *data;	/* model, maxf bytes; zero past size */
	uint64_t size;
	bool shared;		/* has been cloned, deduped or copied from/to */
};

/* --- configuration and state --- */
static uint64_t maxf = 2u << 20, lo;
static unsigned int qd = 4, nreaders, drop_ms, hang_secs = 150;
static bool bg_mmap, bg_remap, verbose;
static bool dio_past_eof, dio_share_pages;	/* -E, -P: see the header */
static const char *logpath, *replay;
static unsigned int bs, lbs, ps;
static uint32_t dio_min, dio_max, buf_min, buf_max;
static struct rfile files[NFILES];
static unsigned char *src, *rdbuf, *tmpbuf;
static size_t slot, srclen;
static int memfd = -1;
static struct io_uring ring;
static bool ring_ok;
static aio_context_t aio_ctx;
static uint8_t write_opcode = 0x8a;
/* Atomic kinds this kernel refuses (EOPNOTSUPP) on shared extents. */
static bool shared_refused[NWRITEKINDS];
static unsigned long missed_faults;

static struct op *ops;
static size_t nops, capops;
static char failmsg[512];
static bool failed;
static unsigned int ncuts, cut_ops = 200;	/* -C, -K: see the header */
static bool cutting, cut_seen;
static uint64_t cur_seed;

static atomic_ulong progress;	/* ops done, for the watchdog */
static struct op *volatile cur_op;	/* the one in flight, for the watchdog */
static atomic_int bg_stop;
static pthread_rwlock_t quiesce;
static atomic_ulong bg_reads, bg_stores, bg_remaps, bg_drops;
static char bg_fail[256];
static atomic_int bg_failed;

/* --- random numbers (splitmix64) --- */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

static uint64_t rup(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static uint64_t rdown(uint64_t v, uint64_t a)
{
	return v / a * a;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- the operation log --- */
static void op_str(const struct op *o, char *s, size_t n)
{
	snprintf(s, n, "#%u %s f%u f%u sub=%u n=%u gen=%llu off=%llu len=%llu off2=%llu bufoff=%u",
		 o->seq, kinds[o->kind].name, o->file, o->file2, o->sub, o->n,
		 (unsigned long long)o->gen, (unsigned long long)o->off,
		 (unsigned long long)o->len, (unsigned long long)o->off2, o->bufoff);
}

static void log_op(const struct op *o)
{
	if (nops == capops) {
		capops = capops ? 2 * capops : 4096;
		ops = realloc(ops, capops * sizeof(*ops));
		if (!ops)
			tap_bail("out of memory for the operation log");
	}
	ops[nops++] = *o;
}

static void print_last(void)
{
	size_t i = nops > NLAST ? nops - NLAST : 0;
	char s[256];

	diag("last %zu operations:", nops - i);
	for (; i < nops; i++) {
		op_str(&ops[i], s, sizeof(s));
		diag("  %s", s);
	}
}

static void write_log(const char *why)
{
	char path[512];
	size_t i;
	FILE *f;

	if (logpath)
		snprintf(path, sizeof(path), "%s", logpath);
	else
		snprintf(path, sizeof(path), "%s/randops-s%llu-bs%u-sd%u.log",
			 access("/results", W_OK) ? "." : "/results",
			 (unsigned long long)cur_seed, bs, lbs);
	f = fopen(path, "w");
	if (!f) {
		diag("cannot write the log %s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "# randops log: seed %llu, %zu ops, fs block %u, sector %u: %s\n",
		(unsigned long long)cur_seed, nops, bs, lbs, why);
	fprintf(f, "# params lo=%llu maxf=%llu\n", (unsigned long long)lo,
		(unsigned long long)maxf);
	for (i = 0; i < nops; i++) {
		const struct op *o = &ops[i];

		fprintf(f, "%u %s %u %u %u %u %llu %llu %llu %llu %u\n", o->seq,
			kinds[o->kind].name, o->file, o->file2, o->sub, o->n,
			(unsigned long long)o->gen, (unsigned long long)o->off,
			(unsigned long long)o->len, (unsigned long long)o->off2, o->bufoff);
	}
	fclose(f);
	diag("operation log: %s (replay: randops -r %s DIR)", path, path);
}

/* Records the first failure of the current sequence; returns -1. */
static int bad(const struct op *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad(const struct op *o, const char *fmt, ...)
{
	char s[256], m[384];
	va_list ap;

	/* in a power-cut round, what fails once the power is off is the cut's */
	if (cutting && !pcblk_powered()) {
		cut_seen = true;
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	op_str(o, s, sizeof(s));
	diag("MISMATCH in %s: %s", s, m);
	if (!failed)
		snprintf(failmsg, sizeof(failmsg), "op #%u %s: %s", o->seq, kinds[o->kind].name, m);
	failed = true;
	kinds[o->kind].failed++;
	return -1;
}

/* --- data and model --- */
static void fill(unsigned char *b, uint64_t off, uint64_t len, uint64_t gen)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		b[i] = wt_byte(off + i, gen);
}

static void model_write(struct rfile *f, uint64_t off, const unsigned char *b, uint64_t len)
{
	memmove(f->data + off, b, len);
	if (off + len > f->size)
		f->size = off + len;
}

static void model_zero(struct rfile *f, uint64_t off, uint64_t len)
{
	if (off >= f->size)
		return;
	memset(f->data + off, 0, min64(len, f->size - off));
}

static void model_truncate(struct rfile *f, uint64_t size)
{
	if (size < f->size)
		memset(f->data + size, 0, f->size - size);
	f->size = size;
}

static void hex(char *s, const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(s + 3 * i, "%02x ", b[i]);
	if (n)
		s[3 * n - 1] = 0;
	else
		s[0] = 0;
}

/* Compares got (file range [off, off + n) of file fi) with the model. */
static int cmp_model(const struct op *o, int fi, uint64_t off, const unsigned char *got,
		     uint64_t n, const char *how)
{
	const unsigned char *want = files[fi].data + off;
	char w[64], g[64];
	uint64_t i, k;

	if (!memcmp(want, got, n))
		return 0;
	for (i = 0; want[i] == got[i]; i++)
		;
	k = min64(n - i, 16);
	hex(w, want + i, k);
	hex(g, got + i, k);
	return bad(o, "%s: file %d byte %llu (of [%llu, +%llu)): expected %s, found %s", how, fi,
		   (unsigned long long)(off + i), (unsigned long long)off, (unsigned long long)n,
		   w, g);
}

/* pread [off, off + len) of file fi through the cache and compare. */
static int check_read(const struct op *o, int fi, uint64_t off, uint64_t len, const char *how)
{
	struct rfile *f = &files[fi];
	uint64_t want = off >= f->size ? 0 : min64(len, f->size - off);
	ssize_t ret = pread(f->fd, rdbuf, len, off);

	if (ret < 0)
		return bad(o, "%s: read %llu at %llu: %s", how, (unsigned long long)len,
			   (unsigned long long)off, strerror(errno));
	if ((uint64_t)ret != want)
		return bad(o, "%s: read %llu at %llu returned %zd, size %llu says %llu", how,
			   (unsigned long long)len, (unsigned long long)off, ret,
			   (unsigned long long)f->size, (unsigned long long)want);
	return cmp_model(o, fi, off, rdbuf, want, how);
}

static int check_sizes(const struct op *o)
{
	struct stat st;
	int i;

	for (i = 0; i < NFILES; i++) {
		if (fstat(files[i].fd, &st))
			return bad(o, "fstat file %d: %s", i, strerror(errno));
		if ((uint64_t)st.st_size != files[i].size)
			return bad(o, "file %d size is %lld, model says %llu", i,
				   (long long)st.st_size, (unsigned long long)files[i].size);
	}
	return 0;
}

static int verify_file(const struct op *o, int fi, const char *how)
{
	uint64_t off;

	for (off = lo; off < files[fi].size; off += MAXW)
		if (check_read(o, fi, off, MAXW, how))
			return -1;
	return 0;
}

/* --- write kinds --- */
static bool is_atomic(int k)
{
	return k == K_WT_ATOMIC || k == K_DIO_ATOMIC || k == K_BUF_ATOMIC;
}

static bool is_dio(int k)
{
	return k == K_DIO || k == K_DIO_ATOMIC;
}

static int wflags(int k)
{
	switch (k) {
	case K_WT: return RWF_WT;
	case K_WT_DSYNC: return RWF_WT | RWF_DSYNC;
	case K_WT_ATOMIC: return RWF_WT | RWF_ATOMIC;
	case K_DIO_ATOMIC:
	case K_BUF_ATOMIC: return RWF_ATOMIC;
	default: return 0;
	}
}

static void atomic_limits(int k, uint32_t *mn, uint32_t *mx)
{
	*mn = k == K_DIO_ATOMIC ? dio_min : buf_min;
	*mx = k == K_DIO_ATOMIC ? dio_max : buf_max;
}

static ssize_t do_pwrite(int k, int fi, const unsigned char *b, uint64_t len, uint64_t off)
{
	struct iovec iov = { (void *)b, len };
	int fd = is_dio(k) ? files[fi].dfd : files[fi].fd;
	ssize_t ret = pwritev2(fd, &iov, 1, off, wflags(k));

	return ret < 0 ? -errno : ret;
}

static int exec_write(struct op *o)
{
	struct rfile *f = &files[o->file];
	unsigned char *b = src + o->bufoff;
	ssize_t ret;

	fill(b, o->off, o->len, o->gen);
	ret = do_pwrite(o->kind, o->file, b, o->len, o->off);
	if (o->sub) {	/* a malformed atomic write */
		if (ret != -EINVAL)
			return bad(o, "malformed atomic write: expected EINVAL, got %zd (%s)", ret,
				   atw_err(ret));
		kinds[o->kind].refused++;
		return check_read(o, o->file, o->off, o->len, "range after a refused atomic write");
	}
	if (ret == -EOPNOTSUPP && shared_refused[o->kind] && f->shared) {
		kinds[o->kind].refused++;
		return check_read(o, o->file, o->off, o->len, "range after a refused atomic write");
	}
	if (ret >= 0)
		model_write(f, o->off, b, ret);
	if (ret != (ssize_t)o->len)
		return bad(o, "write of %llu returned %zd (%s)", (unsigned long long)o->len, ret,
			   atw_err(ret));
	if (is_atomic(o->kind) && (o->seq & 7) == 0)
		return check_read(o, o->file, o->off, o->len, "atomic write read back");
	return 0;
}

/* --- mmap --- */
static int exec_mmap(struct op *o, bool store)
{
	struct rfile *f = &files[o->file];
	uint64_t pg = rdown(o->off, ps), mlen = o->off + o->len - pg;
	unsigned char *p;
	int ret = 0;

	p = mmap(NULL, mlen, store ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, f->fd, pg);
	if (p == MAP_FAILED)
		return bad(o, "mmap: %s", strerror(errno));
	if (store) {
		fill(src, o->off, o->len, o->gen);
		memcpy(p + (o->off - pg), src, o->len);
		model_write(f, o->off, src, o->len);
		if (o->sub && msync(p, mlen, MS_SYNC))
			ret = bad(o, "msync: %s", strerror(errno));
	} else {
		ret = cmp_model(o, o->file, o->off, p + (o->off - pg), o->len, "read through mmap");
	}
	munmap(p, mlen);
	return ret;
}

static int exec_dio_read(struct op *o)
{
	struct rfile *f = &files[o->file];
	uint64_t want = o->off >= f->size ? 0 : min64(o->len, f->size - o->off);
	uint64_t len = o->len;
	ssize_t ret;

	/* not into post-EOF delalloc past the EOF block (header, -E) */
	if (!dio_past_eof && o->off < f->size)
		len = min64(len, rup(f->size, lbs) - o->off);
	ret = pread(f->dfd, rdbuf, len, o->off);

	if (ret < 0)
		return bad(o, "O_DIRECT read of file %d (size %llu): %s", o->file,
			   (unsigned long long)f->size, strerror(errno));
	if ((uint64_t)ret != want)
		return bad(o, "O_DIRECT read returned %zd, size %llu says %llu", ret,
			   (unsigned long long)f->size, (unsigned long long)want);
	return cmp_model(o, o->file, o->off, rdbuf, want, "O_DIRECT read");
}

/* --- fallocate, truncate --- */
static int exec_falloc(struct op *o)
{
	struct rfile *f = &files[o->file];
	uint64_t end = o->off + o->len;
	int mode = 0;

	switch (o->kind) {
	case K_FALLOC: mode = o->sub ? FALLOC_FL_KEEP_SIZE : 0; break;
	case K_PUNCH: mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE; break;
	case K_ZERO: mode = FALLOC_FL_ZERO_RANGE | (o->sub ? FALLOC_FL_KEEP_SIZE : 0); break;
	case K_COLLAPSE: mode = FALLOC_FL_COLLAPSE_RANGE; break;
	case K_INSERT: mode = FALLOC_FL_INSERT_RANGE; break;
	}
	if (fallocate(f->fd, mode, o->off, o->len))
		return bad(o, "fallocate mode 0x%x: %s", mode, strerror(errno));
	switch (o->kind) {
	case K_FALLOC:
		if (!o->sub && end > f->size)
			f->size = end;
		break;
	case K_PUNCH:
		model_zero(f, o->off, o->len);
		break;
	case K_ZERO:
		model_zero(f, o->off, o->len);
		if (!o->sub && end > f->size)
			f->size = end;
		break;
	case K_COLLAPSE:
		memmove(f->data + o->off, f->data + end, f->size - end);
		memset(f->data + f->size - o->len, 0, o->len);
		f->size -= o->len;
		break;
	case K_INSERT:
		memmove(f->data + end, f->data + o->off, f->size - o->off);
		memset(f->data + o->off, 0, o->len);
		f->size += o->len;
		break;
	}
	return 0;
}

/* --- sharing: clone, dedupe, copy_file_range --- */
static int exec_clone(struct op *o)
{
	struct file_clone_range r = {
		.src_fd = files[o->file2].fd, .src_offset = o->off2,
		.src_length = o->len, .dest_offset = o->off,
	};

	files[o->file].shared = files[o->file2].shared = true;
	if (ioctl(files[o->file].fd, FICLONERANGE, &r))
		return bad(o, "FICLONERANGE: %s", strerror(errno));
	memcpy(tmpbuf, files[o->file2].data + o->off2, o->len);
	model_write(&files[o->file], o->off, tmpbuf, o->len);
	return 0;
}

static int exec_dedupe(struct op *o)
{
	struct {
		struct file_dedupe_range r;
		struct file_dedupe_range_info i;
	} d;
	bool same = !memcmp(files[o->file2].data + o->off2, files[o->file].data + o->off, o->len);

	files[o->file].shared = files[o->file2].shared = true;
	memset(&d, 0, sizeof(d));
	d.r.src_offset = o->off2;
	d.r.src_length = o->len;
	d.r.dest_count = 1;
	d.r.info[0].dest_fd = files[o->file].fd;
	d.r.info[0].dest_offset = o->off;
	if (ioctl(files[o->file2].fd, FIDEDUPERANGE, &d.r))
		return bad(o, "FIDEDUPERANGE: %s", strerror(errno));
	if (d.r.info[0].status < 0)
		return bad(o, "FIDEDUPERANGE status %d (%s)", d.r.info[0].status,
			   strerror(-d.r.info[0].status));
	if (same && (d.r.info[0].status != FILE_DEDUPE_RANGE_SAME ||
		     d.r.info[0].bytes_deduped != o->len))
		return bad(o, "model ranges are equal, dedupe says status %d, %llu bytes",
			   d.r.info[0].status, (unsigned long long)d.r.info[0].bytes_deduped);
	if (!same && d.r.info[0].status != FILE_DEDUPE_RANGE_DIFFERS)
		return bad(o, "model ranges differ, dedupe says status %d", d.r.info[0].status);
	if (!same)
		kinds[o->kind].refused++;
	return 0;
}

static int exec_copy(struct op *o)
{
	struct rfile *s = &files[o->file2];
	loff_t soff = o->off2, doff = o->off;
	uint64_t want = soff >= (loff_t)s->size ? 0 : min64(o->len, s->size - soff), done = 0;
	ssize_t n;

	s->shared = files[o->file].shared = true;
	memcpy(tmpbuf, s->data + o->off2, want);
	while (done < o->len) {
		n = copy_file_range(s->fd, &soff, files[o->file].fd, &doff, o->len - done, 0);
		if (n < 0)
			return bad(o, "copy_file_range: %s", strerror(errno));
		if (!n)
			break;
		done += n;
	}
	if (done)
		model_write(&files[o->file], o->off, tmpbuf, min64(done, want));
	if (done != want)
		return bad(o, "copy_file_range copied %llu, expected %llu", (unsigned long long)done,
			   (unsigned long long)want);
	return 0;
}

/* --- batches through io_uring and AIO --- */
struct sub {
	uint64_t off, len;
	unsigned char *buf;
};

/*
 * Sub-write i of a batch: in slot i of o->off2 bytes from o->off, drawn
 * from a generator seeded by the op's generation, so a replay gets the same.
 */
static void batch_subs(const struct op *o, struct sub *s)
{
	int k = o->sub;
	uint64_t r = o->gen * 0x2545f4914f6cdd1dULL, i;
	uint32_t mn, mx;

	for (i = 0; i < o->n; i++) {
		uint64_t base = o->off + i * o->off2, in = 0, len, room = o->off2, b = 0;

		/*
		 * Direct sub-writes keep to the pages wholly inside their slot
		 * (header, -P): a no-op for slots drawn now (multiples of the
		 * folio), it matters for logs of older runs. Atomic ones are
		 * block-aligned and never fall back to buffered writes.
		 */
		if (is_dio(k) && !is_atomic(k) && !dio_share_pages) {
			uint64_t fp = max64(ps, bs);
			uint64_t wb = i ? rup(base, fp) : base;
			uint64_t we = i + 1 < o->n ? rdown(base + o->off2, fp) : base + o->off2;

			b = wb - base;
			room = we > wb ? we - wb : 0;
		}
		s[i].buf = src + i * slot;
		if (room < lbs) {
			s[i].off = base;	/* no room: an empty write */
			s[i].len = 0;
			continue;
		}
		if (is_atomic(k)) {
			atomic_limits(k, &mn, &mx);
			len = mn;
			while (len * 2 <= min64(mx, room) && rnd(&r, 2))
				len *= 2;
			in = b;
		} else if (is_dio(k)) {
			in = rnd(&r, room / lbs) * lbs;
			len = (1 + rnd(&r, (room - in) / lbs)) * lbs;
			in += b;
		} else {
			in = rnd(&r, o->off2);
			len = 1 + rnd(&r, o->off2 - in);
		}
		s[i].off = base + in;
		s[i].len = len;
	}
}

static int batch_result(struct op *o, struct sub *s, int i, long long res, const char *via)
{
	if (res == (long long)s[i].len) {
		model_write(&files[o->file], s[i].off, s[i].buf, s[i].len);
		return 0;
	}
	if (res == -EOPNOTSUPP && is_atomic(o->sub) && shared_refused[o->sub] &&
	    files[o->file].shared) {
		kinds[o->sub].refused++;
		return 0;
	}
	if (res > 0)
		model_write(&files[o->file], s[i].off, s[i].buf, res);
	return bad(o, "%s %s write %d of %llu at %llu completed with %lld", via,
		   kinds[o->sub].name, i, (unsigned long long)s[i].len,
		   (unsigned long long)s[i].off, res);
}

static int exec_uring(struct op *o)
{
	struct sub s[MAXQD];
	struct io_uring_cqe *cqe;
	int fd = is_dio(o->sub) ? files[o->file].dfd : files[o->file].fd;
	long long res[MAXQD];
	unsigned int i;
	int ret, err = 0;

	batch_subs(o, s);
	for (i = 0; i < o->n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		fill(s[i].buf, s[i].off, s[i].len, o->gen * MAXQD + i);
		io_uring_prep_write(sqe, fd, s[i].buf, s[i].len, s[i].off);
		sqe->rw_flags = wflags(o->sub);
		sqe->user_data = i;
		res[i] = -ENODATA;
	}
	ret = io_uring_submit(&ring);
	if (ret != (int)o->n)
		return bad(o, "io_uring_submit: %d", ret);
	for (i = 0; i < o->n; i++) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret)
			return bad(o, "io_uring_wait_cqe: %d", ret);
		if (cqe->user_data < o->n)
			res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	for (i = 0; i < o->n; i++)
		err |= batch_result(o, s, i, res[i], "io_uring");
	return err;
}

static int exec_aio(struct op *o)
{
	struct sub s[MAXQD];
	struct iocb cb[MAXQD], *cbs[MAXQD];
	struct io_event ev[MAXQD];
	long long res[MAXQD];
	long ret, got = 0;
	unsigned int i;
	int err = 0;

	batch_subs(o, s);
	for (i = 0; i < o->n; i++) {
		fill(s[i].buf, s[i].off, s[i].len, o->gen * MAXQD + i);
		memset(&cb[i], 0, sizeof(cb[i]));
		cb[i].aio_lio_opcode = IOCB_CMD_PWRITE;
		cb[i].aio_fildes = is_dio(o->sub) ? files[o->file].dfd : files[o->file].fd;
		cb[i].aio_buf = (uintptr_t)s[i].buf;
		cb[i].aio_nbytes = s[i].len;
		cb[i].aio_offset = s[i].off;
		cb[i].aio_rw_flags = wflags(o->sub);
		cb[i].aio_data = i;
		cbs[i] = &cb[i];
		res[i] = -ENODATA;
	}
	ret = syscall(SYS_io_submit, aio_ctx, (long)o->n, cbs);
	if (ret != (long)o->n)
		return bad(o, "io_submit: %ld (%s)", ret, ret < 0 ? strerror(errno) : "short");
	while (got < (long)o->n) {
		ret = syscall(SYS_io_getevents, aio_ctx, 1L, (long)o->n - got, ev, NULL);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return bad(o, "io_getevents: %s", strerror(errno));
		for (i = 0; i < ret; i++)
			if (ev[i].data < o->n)
				res[ev[i].data] = ev[i].res;
		got += ret;
	}
	for (i = 0; i < o->n; i++)
		err |= batch_result(o, s, i, res[i], "AIO");
	return err;
}

/* --- fault: a device write error under one write --- */
static void bg_pause(void)
{
	pthread_rwlock_wrlock(&quiesce);
}

static void bg_resume(void)
{
	pthread_rwlock_unlock(&quiesce);
}

/* The device holds the model for [off, off + len) of file fi, within EOF. */
static int check_device(const struct op *o, int fi, uint64_t off, uint64_t len, const char *how)
{
	struct rfile *f = &files[fi];
	uint64_t rb = rdown(off, bs), re = min64(rup(off + len, bs), rup(f->size, bs));
	unsigned char *dev;
	int m, ret;

	if (re <= rb)
		return 0;
	dev = atw_alloc(re - rb);
	m = wt_dev_read_range(f->fd, dev, rb, re - rb);
	if (m & (WT_MAP_ERROR | WT_MAP_DELALLOC)) {
		free(dev);
		return bad(o, "%s: cannot read the device under [%llu, %llu) (map 0x%x)", how,
			   (unsigned long long)rb, (unsigned long long)re, m);
	}
	ret = cmp_model(o, fi, rb, dev, min64(re, f->size) - rb, how);
	free(dev);
	return ret;
}

/* Most failed completions of one device command inside [phys, +len). */
static int max_failed_in(uint64_t phys, uint64_t len)
{
	int i, j, n, best = 0;

	for (i = 0; i < wt_tr()->n; i++) {
		const struct wt_ev *x = &wt_tr()->ev[i];

		if (x->kind != WT_EV_DONE || !x->failed || !x->cdblen ||
		    x->off >= phys + len || x->off + x->bytes <= phys)
			continue;
		for (n = 0, j = 0; j < wt_tr()->n; j++) {
			const struct wt_ev *y = &wt_tr()->ev[j];

			n += y->kind == WT_EV_DONE && y->failed && y->off == x->off &&
			     y->bytes == x->bytes;
		}
		if (n > best)
			best = n;
	}
	return best;
}

static int exec_fault(struct op *o)
{
	struct rfile *f = &files[o->file];
	int k = o->sub;
	unsigned char *b = src + o->bufoff, *nb = src + slot;
	uint64_t rb = rdown(o->off, bs), re = rup(o->off + o->len, bs);
	uint64_t nbr = 0, phys = 0, avail = 0, plen;
	struct wt_injected inj = { .opcode = is_atomic(k) ? 0x9c : write_opcode };
	ssize_t ret = 0;
	int armed, m, err = 0;
	char what[64];

	snprintf(what, sizeof(what), "failed %s", kinds[k].name);
	/* Allocate, unshare: the call then writes in place, its own command. */
	if (fallocate(f->fd, FALLOC_FL_KEEP_SIZE, rb, re - rb))
		return bad(o, "fault: fallocate: %s", strerror(errno));
	if (kinds[K_CLONE].avail && rb < f->size &&
	    fallocate(f->fd, FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE, rb,
		      min64(re, rup(f->size, bs)) - rb))
		return bad(o, "fault: unshare: %s", strerror(errno));
	/*
	 * The dirty neighbour (write-throughs only: a direct write flushes the
	 * folio, neighbour included, into the injected error): the block
	 * before the range, or after it.
	 */
	if (o->n && k != K_WT && k != K_WT_ATOMIC)
		o->n = 0;
	if (o->n) {
		if (rb >= lo + bs && rb - bs < f->size)
			nbr = rb - bs;
		else if (re + bs <= f->size)
			nbr = re;
		else
			o->n = 0;
	}
	fill(b, o->off, o->len, o->gen);
	fill(nb, nbr, bs, o->gen + 1);
	bg_pause();
	while (!(armed = wt_inject_arm(&inj))) {
		m = wt_map(f->fd, rb, &phys, &avail);
		plen = re - rb;
		if ((m && m != WT_MAP_UNWRITTEN) || avail < plen) {
			phys = 0;
			plen = ~0ULL;
		}
		if (o->n && pwrite(f->fd, nb, bs, nbr) != (ssize_t)bs) {
			wt_inject_clear(inj.opcode);
			wt_tr_stop(lbs);
			bg_resume();
			return bad(o, "fault: buffered write of the neighbour: %s", strerror(errno));
		}
		ret = do_pwrite(k, o->file, b, o->len, o->off);
		if (o->n)
			model_write(f, nbr, nb, bs);
		if (ret > 0)
			model_write(f, o->off, b, ret);
		if (wt_inject_done(&inj, phys, plen))
			break;
	}
	bg_resume();
	if (armed)
		return bad(o, "fault: cannot arm the injected error: %s", strerror(-armed));
	/* whatever failed, no other data may have been lost: fsync is clean */
	for (m = 0; m < NFILES; m++)
		if (fsync(files[m].fd))
			return bad(o, "%s: fsync of file %d after the call: %s (data other than the call's lost)",
				   what, m, strerror(errno));
	if (ret == (ssize_t)o->len) {
		if (plen != ~0ULL && max_failed_in(phys, plen) >= WT_INJECT_TIMES)
			return bad(o, "%s: the call returned its length though its command at device [%llu, +%llu) failed %d times",
				   what, (unsigned long long)phys, (unsigned long long)plen,
				   max_failed_in(phys, plen));
		if (verbose)
			diag("fault op #%u: the error did not fail the call's command (%d failures in its range, %d elsewhere); the call succeeded",
			     o->seq, inj.mine, inj.others);
		missed_faults++;
		return check_read(o, o->file, o->off, o->len, "write after a missed fault");
	}
	if (ret == -EOPNOTSUPP && shared_refused[k] && f->shared) {
		kinds[k].refused++;
		return check_read(o, o->file, o->off, o->len, "range after a refused atomic write");
	}
	kinds[K_FAULT].refused++;
	if (ret > 0 && !is_atomic(k)) {
		/* a short write: the prefix is in the model; cache == device */
		err |= check_read(o, o->file, o->off, o->len, "short write, through the cache");
		err |= check_device(o, o->file, o->off, o->len, "short write, on the device");
		return err;
	}
	if (ret >= 0)
		return bad(o, "%s returned %zd of %llu", what, ret, (unsigned long long)o->len);
	if (ret != -EIO)
		err |= bad(o, "%s returned %zd (%s), expected EIO", what, ret, atw_err(ret));
	if (check_sizes(o))
		return -1;
	if (is_atomic(k)) {
		ssize_t r = pread(f->fd, rdbuf, o->len, o->off);
		bool old = r >= 0 && !memcmp(rdbuf, f->data + o->off,
					     min64(o->len, f->size > o->off ? f->size - o->off : 0));
		bool new_ = r == (ssize_t)o->len && !memcmp(rdbuf, b, o->len);

		if (!old)
			return bad(o, "%s: the unit reads %s through the cache, not wholly old", what,
				   new_ ? "wholly new" : "mixed");
	}
	err |= check_read(o, o->file, rb, re - rb, "failed write, through the cache");
	if (!err)
		err |= check_device(o, o->file, o->off, o->len, "failed write, on the device");
	if (!err) {
		wt_drop_caches();
		err |= check_read(o, o->file, rb, re - rb, "failed write, after drop_caches");
	}
	return err;
}

/* --- one operation --- */
static int exec_op(struct op *o)
{
	struct rfile *f = &files[o->file];
	int ret = 0;

	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		ret = exec_write(o);
		break;
	case K_MMAP_W: ret = exec_mmap(o, true); break;
	case K_MMAP_R: ret = exec_mmap(o, false); break;
	case K_READ: ret = check_read(o, o->file, o->off, o->len, "read"); break;
	case K_DIO_R: ret = exec_dio_read(o); break;
	case K_TRUNC:
		if (ftruncate(f->fd, o->off))
			return bad(o, "ftruncate: %s", strerror(errno));
		model_truncate(f, o->off);
		break;
	case K_FALLOC: case K_PUNCH: case K_ZERO: case K_COLLAPSE: case K_INSERT:
		ret = exec_falloc(o);
		break;
	case K_CLONE: ret = exec_clone(o); break;
	case K_DEDUPE: ret = exec_dedupe(o); break;
	case K_COPY: ret = exec_copy(o); break;
	case K_FSYNC:
		if (fsync(f->fd))
			ret = bad(o, "fsync: %s", strerror(errno));
		break;
	case K_FDATASYNC:
		if (fdatasync(f->fd))
			ret = bad(o, "fdatasync: %s", strerror(errno));
		break;
	case K_SFR:
		if (sync_file_range(f->fd, o->off, o->len, o->sub))
			ret = bad(o, "sync_file_range: %s", strerror(errno));
		break;
	case K_DROP: wt_drop_caches(); break;
	case K_URING: ret = exec_uring(o); break;
	case K_AIO: ret = exec_aio(o); break;
	case K_FAULT: ret = exec_fault(o); break;
	case K_VERIFY: ret = verify_file(o, o->file, "whole-file read"); break;
	}
	if (!ret)
		ret = check_sizes(o);
	return ret;
}

/* --- drawing operations --- */
static uint64_t draw_len(uint64_t *r, uint64_t maxlen, uint64_t align)
{
	uint64_t len;

	switch (rnd(r, 4)) {
	case 0: len = 1 + rnd(r, 2 * lbs); break;
	case 1: len = 1 + rnd(r, 2 * bs); break;
	case 2: len = 1 + rnd(r, 64u << 10); break;
	default: len = 1 + rnd(r, MAXW); break;
	}
	len = rup(min64(len, maxlen), align);
	return len ? len : align;
}

/* An offset aligned to align for len bytes in [lo, size + slack), or ~0. */
static uint64_t draw_off(uint64_t *r, const struct rfile *f, uint64_t len, uint64_t align)
{
	uint64_t base = rup(lo, align);
	uint64_t top = min64(max64(f->size, lo) + 2 * max64(bs, 16384), maxf);

	if (len > maxf || top < len || top - len < base)
		return base + len <= maxf ? base : ~0ULL;
	top -= len;
	if (rnd(r, 4) == 0 && f->size > base + len)	/* near EOF */
		top = f->size;
	if (top > f->size && rnd(r, 2))
		top = max64(f->size, base);
	return base + rnd(r, (top - base) / align + 1) * align;
}

static uint64_t draw_align(uint64_t *r)
{
	switch (rnd(r, 3)) {
	case 0: return 1;
	case 1: return lbs;
	default: return bs;
	}
}

static void draw_write(uint64_t *r, struct op *o, int k)
{
	const struct rfile *f = &files[o->file];
	uint32_t mn, mx;

	if (is_atomic(k)) {
		atomic_limits(k, &mn, &mx);
		mx = min64(mx, MAXW);
		o->len = mn;
		while (o->len * 2 <= mx && rnd(r, 3))
			o->len *= 2;
		o->off = draw_off(r, f, o->len, o->len);
		if (rnd(r, 10) == 0) {	/* malformed: must fail with EINVAL */
			o->sub = 1 + rnd(r, 3);
			if (o->sub == 1 && o->len <= lbs)
				o->sub = 2;
			if (o->sub == 3 && 2 * (uint64_t)mx > slot - 64)
				o->sub = 2;
			if (o->sub == 1)
				o->off += lbs;
			else if (o->sub == 2)
				o->len *= 3;
			else
				o->len = 2 * (uint64_t)mx;
			if (o->off + o->len > maxf)
				o->off = ~0ULL;
		}
		return;
	}
	if (is_dio(k)) {
		o->len = draw_len(r, MAXW, lbs);
		o->off = draw_off(r, f, o->len, rnd(r, 2) ? lbs : bs);
		return;
	}
	o->len = draw_len(r, MAXW, 1);
	o->off = draw_off(r, f, o->len, draw_align(r));
	o->bufoff = rnd(r, 4) ? 0 : rnd(r, 64);
}

static int pick_kind(uint64_t *r, const int *w, int n)
{
	long total = 0, x;
	int k;

	for (k = 0; k < n; k++)
		total += w[k];
	if (!total)
		return -1;
	x = rnd(r, total);
	for (k = 0; k < n; k++)
		if ((x -= w[k]) < 0)
			return k;
	return -1;
}

static struct op last_clone;

/* Fills o's parameters for kind k; false when the state does not allow it. */
static bool draw_params(uint64_t *r, struct op *o, int k)
{
	struct rfile *f, *s;
	uint64_t a;

	o->kind = k;
	o->file = rnd(r, NFILES);
	o->file2 = rnd(r, NFILES);
	f = &files[o->file];
	s = &files[o->file2];
	switch (k) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		draw_write(r, o, k);
		return o->off != ~0ULL;
	case K_MMAP_W: case K_MMAP_R:
		if (f->size <= lo + 1)
			return false;
		o->off = lo + rnd(r, f->size - lo);
		o->len = 1 + rnd(r, min64(f->size - o->off, 64u << 10));
		o->sub = k == K_MMAP_W && rnd(r, 4) == 0;
		return true;
	case K_READ:
		o->len = draw_len(r, MAXW, 1);
		o->off = lo + rnd(r, max64(f->size, lo) + bs - lo);
		return true;
	case K_DIO_R:
		o->len = draw_len(r, MAXW, lbs);
		o->off = rup(lo, lbs) + rnd(r, (max64(f->size, lo) + bs - lo) / lbs) * lbs;
		return true;
	case K_VERIFY:
		return true;
	case K_TRUNC:
		a = rnd(r, 3) ? 1 : bs;
		if (rnd(r, 2))
			o->off = f->size + rnd(r, 64u << 10) - min64(f->size - lo, 32u << 10);
		else
			o->off = lo + rnd(r, maxf - lo);
		o->off = max64(rdown(o->off, a), lo);
		return o->off <= maxf;
	case K_FALLOC: case K_PUNCH: case K_ZERO:
		o->sub = rnd(r, 2);
		o->len = draw_len(r, MAXW, draw_align(r));
		o->off = draw_off(r, f, o->len, draw_align(r));
		return o->off != ~0ULL;
	case K_COLLAPSE:
		o->len = bs * (1 + rnd(r, 4));
		a = rup(lo, bs);
		if (f->size < a + o->len + 1)
			return false;
		o->off = a + rnd(r, (f->size - 1 - o->len - a) / bs + 1) * bs;
		return o->off + o->len < f->size;
	case K_INSERT:
		o->len = bs * (1 + rnd(r, 4));
		a = rup(lo, bs);
		if (f->size <= a || f->size + o->len > maxf)
			return false;
		o->off = a + rnd(r, (f->size - 1 - a) / bs + 1) * bs;
		return o->off < f->size;
	case K_CLONE: case K_DEDUPE: {
		uint64_t stop = rdown(s->size, bs), dtop;

		a = rup(lo, bs);
		if (stop <= a)
			return false;
		o->len = bs * (1 + rnd(r, min64((stop - a) / bs, 16)));
		o->off2 = a + rnd(r, (stop - a - o->len) / bs + 1) * bs;
		dtop = k == K_CLONE ? min64(rup(f->size, bs) + 2 * bs, maxf) : rdown(f->size, bs);
		if (dtop < a + o->len)
			return false;
		o->off = a + rnd(r, (dtop - a - o->len) / bs + 1) * bs;
		if (k == K_DEDUPE && last_clone.len && rnd(r, 2) == 0) {
			/* the last clone's ranges: equal unless written since */
			o->file = last_clone.file;
			o->file2 = last_clone.file2;
			o->off = last_clone.off;
			o->off2 = last_clone.off2;
			o->len = last_clone.len;
			o->sub = 1;
			if (max64(o->off, o->off2) + o->len > rdown(min64(files[o->file].size,
						files[o->file2].size), bs))
				return false;
		}
		if (o->file == o->file2 && o->off != o->off2 &&
		    o->off < o->off2 + o->len && o->off2 < o->off + o->len)
			return false;
		if (o->file == o->file2 && o->off == o->off2)
			return false;
		if (k == K_CLONE)
			last_clone = *o;
		return true;
	}
	case K_COPY:
		if (s->size <= lo + 1)
			return false;
		o->off2 = lo + rnd(r, s->size - lo);
		o->len = draw_len(r, MAXW, 1);
		if (rnd(r, 8))
			o->len = min64(o->len, s->size - o->off2);
		o->off = draw_off(r, f, o->len, rnd(r, 2) ? 1 : bs);
		if (o->off == ~0ULL)
			return false;
		if (o->file == o->file2 && o->off < o->off2 + o->len && o->off2 < o->off + o->len)
			return false;
		return true;
	case K_FSYNC: case K_FDATASYNC: case K_DROP:
		return true;
	case K_SFR:
		o->off = lo + rnd(r, maxf - lo);
		o->len = rnd(r, 4) ? 1 + rnd(r, MAXW) : 0;
		o->sub = SYNC_FILE_RANGE_WRITE |
			 (rnd(r, 2) ? SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER : 0);
		return true;
	case K_URING: case K_AIO: {
		int w[NWRITEKINDS], i;
		uint32_t mn, mx;

		for (i = 0; i < NWRITEKINDS; i++)
			w[i] = kinds[i].avail ? kinds[i].weight : 0;
		o->sub = pick_kind(r, w, NWRITEKINDS);
		o->n = 1 + rnd(r, qd);
		if (is_atomic(o->sub)) {
			atomic_limits(o->sub, &mn, &mx);
			o->off2 = rup(min64(mx, 32u << 10), bs);
			o->off2 = max64(o->off2, mn);
		} else {
			o->off2 = rup(1 + rnd(r, 32u << 10), bs);
		}
		/* direct sub-writes share no page (header, -P) */
		if (is_dio(o->sub) && !dio_share_pages)
			o->off2 = rup(o->off2, max64(ps, bs));
		o->len = o->n * o->off2;
		o->off = draw_off(r, f, o->len, o->off2);
		return o->off != ~0ULL && o->off % o->off2 == 0;
	}
	case K_FAULT: {
		int w[NWRITEKINDS] = { 0 };
		uint32_t mn, mx;

		w[K_WT] = kinds[K_WT].avail * 3;
		w[K_WT_ATOMIC] = kinds[K_WT_ATOMIC].avail * 2;
		w[K_DIO] = kinds[K_DIO].avail;
		w[K_DIO_ATOMIC] = kinds[K_DIO_ATOMIC].avail;
		o->sub = pick_kind(r, w, NWRITEKINDS);
		o->n = rnd(r, 2);
		if (is_atomic(o->sub)) {
			atomic_limits(o->sub, &mn, &mx);
			o->len = mn;
			while (o->len * 2 <= min64(mx, 64u << 10) && rnd(r, 3) == 0)
				o->len *= 2;
			a = o->len;
		} else if (is_dio(o->sub)) {
			o->len = bs * (1 + rnd(r, 4));
			a = bs;
		} else {
			o->len = 1 + rnd(r, 4 * bs);
			a = draw_align(r);
			if (o->len > 64u << 10)
				o->len = 64u << 10;
		}
		o->off = draw_off(r, f, o->len, a);
		return o->off != ~0ULL;
	}
	}
	return false;
}

static void draw_op(uint64_t *r, struct op *o, uint32_t seq)
{
	int w[NKINDS], k, tries;

	for (k = 0; k < NKINDS; k++)
		w[k] = kinds[k].avail ? kinds[k].weight : 0;
	for (tries = 0; tries < 100; tries++) {
		memset(o, 0, sizeof(*o));
		o->seq = seq;
		o->gen = (cur_seed << 24) + seq;
		k = pick_kind(r, w, NKINDS);
		if (k >= 0 && draw_params(r, o, k))
			return;
	}
	memset(o, 0, sizeof(*o));
	o->seq = seq;
	o->kind = K_FSYNC;
}

/* --- files --- */
static void open_files(void)
{
	char path[512];
	int i;

	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/randops.%d", atw_env()->dir, i);
		unlink(path);
		files[i].fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		files[i].dfd = open(path, O_RDWR | O_DIRECT);
		if (files[i].fd < 0 || files[i].dfd < 0)
			tap_bail("open %s: %s", path, strerror(errno));
		if (!files[i].data)
			files[i].data = malloc(maxf + MAXW);
		if (!files[i].data)
			tap_bail("out of memory");
		memset(files[i].data, 0, maxf + MAXW);
		files[i].size = 0;
		files[i].shared = false;
	}
	if (lo) {	/* file 0's head: the mmap thread's */
		if (ftruncate(files[0].fd, lo))
			tap_bail("ftruncate: %s", strerror(errno));
		files[0].size = lo;
		if (files[1].size < lo && ftruncate(files[1].fd, lo) == 0)
			files[1].size = lo;
	}
}

static void close_files(void)
{
	int i;

	for (i = 0; i < NFILES; i++) {
		close(files[i].fd);
		close(files[i].dfd);
	}
}

/* Reopens the files as they are (after a power cut and a remount). */
static void reopen_files(void)
{
	char path[512];
	int i;

	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/randops.%d", atw_env()->dir, i);
		files[i].fd = open(path, O_RDWR);
		files[i].dfd = open(path, O_RDWR | O_DIRECT);
		if (files[i].fd < 0 || files[i].dfd < 0)
			tap_bail("reopen %s after the power cut: %s", path, strerror(errno));
	}
}

/*
 * --- power cuts (-C N, on pcblk) ---
 *
 * What the device may hold after a cut, per file: dur[] is what was
 * durable at the last fsync or fdatasync (or was found after the last
 * cut), as of the operations before lastdur[b] (a RWF_DSYNC write-through,
 * acknowledged, makes its range durable); hist[] lists every
 * data write since, with the generation its bytes come from, atomic or
 * not, noted before it is issued. After the cut and the remount (XFS log
 * recovery), for each file:
 *   - the size is at least the durable size and at most the largest the
 *     file had or was being given;
 *   - every byte below the size is its durable value, or the value of a
 *     write noted after the byte became durable (never anything else:
 *     not zero where data was durable, not another offset's data);
 *   - every atomic write that no later write overlaps reads wholly new or
 *     wholly as before it (each byte a value it could have had before),
 *     over the part below the size.
 * What was found then becomes the model and the durable content, and the
 * sequence goes on. The kinds are data writes, reads and syncs only (the
 * others move or free data, which this model does not follow).
 */
struct hent {
	uint32_t seq;
	uint8_t file;
	bool atomic;
	uint64_t off, len, gen;
};

static struct hent *hist;
static size_t nhist, caphist;
static unsigned char *dur[NFILES], *okb;
static uint32_t *lastdur[NFILES];
static uint64_t dsize[NFILES], hisize[NFILES], cut_est = 100;
static unsigned long cut_rounds, cut_mid, cut_units, cut_units_new, cut_bytes;

static bool cut_kind(int k)
{
	switch (k) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC: case K_DIO:
	case K_DIO_ATOMIC: case K_BUF_ATOMIC: case K_MMAP_W: case K_READ: case K_MMAP_R:
	case K_DIO_R: case K_FSYNC: case K_FDATASYNC: case K_SFR: case K_DROP:
	case K_URING: case K_AIO: case K_VERIFY:
		return true;
	}
	return false;
}

static void hist_add(const struct op *o, uint64_t off, uint64_t len, uint64_t gen, bool atomic)
{
	if (!len)
		return;
	if (nhist == caphist) {
		caphist = caphist ? 2 * caphist : 1024;
		hist = realloc(hist, caphist * sizeof(*hist));
		if (!hist)
			tap_bail("out of memory for the write history");
	}
	hist[nhist++] = (struct hent){ o->seq, o->file, atomic, off, len, gen };
	hisize[o->file] = max64(hisize[o->file], off + len);
}

/* Before o is issued: the data it may leave on the device. */
static void cut_note(const struct op *o)
{
	struct sub sb[MAXQD];
	unsigned int i;

	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC: case K_DIO:
	case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		if (!o->sub)	/* a malformed atomic write writes nothing */
			hist_add(o, o->off, o->len, o->gen, is_atomic(o->kind));
		break;
	case K_MMAP_W:
		hist_add(o, o->off, o->len, o->gen, false);
		break;
	case K_URING: case K_AIO:
		batch_subs(o, sb);
		for (i = 0; i < o->n; i++)
			hist_add(o, sb[i].off, sb[i].len, o->gen * MAXQD + i, is_atomic(o->sub));
		break;
	}
}

/*
 * Bytes [off, off + len) of file fi are durable as the model has them,
 * which is what the operations before seq made them.
 */
static void cut_durable(int fi, uint64_t off, uint64_t len, uint32_t seq)
{
	uint64_t b;

	memcpy(dur[fi] + off, files[fi].data + off, len);
	for (b = off; b < off + len; b++)
		lastdur[fi][b] = seq;
}

/* The whole of file fi is durable as the model has it (ops before seq). */
static void cut_sync(int fi, uint32_t seq)
{
	size_t i, j;

	cut_durable(fi, 0, maxf, seq);
	dsize[fi] = hisize[fi] = files[fi].size;
	for (i = j = 0; i < nhist; i++)
		if (hist[i].file != fi)
			hist[j++] = hist[i];
	nhist = j;
}

/* After o returned, with the power on: what it made durable. */
static void cut_acked(const struct op *o)
{
	struct rfile *f = &files[o->file];

	switch (o->kind) {
	case K_FSYNC: case K_FDATASYNC:
		cut_sync(o->file, o->seq + 1);
		break;
	case K_WT_DSYNC:	/* returned its length, or randops failed */
		cut_durable(o->file, o->off, o->len, o->seq + 1);
		dsize[o->file] = max64(dsize[o->file], min64(o->off + o->len, f->size));
		break;
	}
	hisize[o->file] = max64(hisize[o->file], f->size);
}

/* Byte b of file fi: could it have been v before operation seq (or ever)? */
static bool could_be(int fi, uint64_t b, unsigned char v, uint32_t before)
{
	size_t i;

	if (v == dur[fi][b] && lastdur[fi][b] <= before)
		return true;
	for (i = 0; i < nhist && hist[i].seq < before; i++) {
		const struct hent *e = &hist[i];

		if (e->file == fi && b >= e->off && b < e->off + e->len &&
		    e->seq >= lastdur[fi][b] && v == wt_byte(b, e->gen))
			return true;
	}
	return false;
}

/* Whether a write after hist[i] overlaps it. */
static bool overwritten(size_t i)
{
	const struct hent *a = &hist[i];
	size_t j;

	for (j = i + 1; j < nhist; j++)
		if (hist[j].file == a->file && hist[j].off < a->off + a->len &&
		    a->off < hist[j].off + hist[j].len)
			return true;
	return false;
}

static int cut_check_file(const struct op *o, int fi, unsigned int cut)
{
	struct rfile *f = &files[fi];
	unsigned char *found = tmpbuf;
	uint64_t size, b, done;
	struct stat st;
	size_t i;

	if (fstat(f->fd, &st))
		return bad(o, "cut %u: fstat of file %d: %s", cut, fi, strerror(errno));
	size = st.st_size;
	if (size < dsize[fi] || size > hisize[fi])
		return bad(o, "cut %u: file %d has size %llu after recovery, durable was %llu, the largest %llu",
			   cut, fi, (unsigned long long)size, (unsigned long long)dsize[fi],
			   (unsigned long long)hisize[fi]);
	for (done = 0; done < size;) {
		ssize_t n = pread(f->fd, found + done, size - done, done);

		if (n <= 0)
			return bad(o, "cut %u: read of file %d at %llu after recovery: %s", cut, fi,
				   (unsigned long long)done, n ? strerror(errno) : "EOF");
		done += n;
	}
	/* each byte: durable, or written since it became durable */
	memset(okb, 0, size);
	for (i = 0; i < nhist; i++) {
		const struct hent *e = &hist[i];
		uint64_t end = min64(e->off + e->len, size);

		if (e->file != fi)
			continue;
		for (b = e->off; b < end; b++)
			if (e->seq >= lastdur[fi][b] && found[b] == wt_byte(b, e->gen))
				okb[b] = 1;
	}
	for (b = 0; b < size; b++) {
		if (okb[b] || found[b] == dur[fi][b])
			continue;
		return bad(o, "cut %u: file %d byte %llu (size %llu) is 0x%02x after recovery: not its durable value 0x%02x (as of the ops before #%u) nor any write's since",
			   cut, fi, (unsigned long long)b, (unsigned long long)size, found[b],
			   dur[fi][b], lastdur[fi][b]);
	}
	cut_bytes += size;
	/* each atomic write no later write overlaps: wholly new or wholly old */
	for (i = 0; i < nhist; i++) {
		const struct hent *a = &hist[i];
		uint64_t end = min64(a->off + a->len, size), nnew = 0, bold = ~0ULL;

		if (a->file != fi || !a->atomic || end <= a->off || overwritten(i))
			continue;
		for (b = a->off; b < end; b++) {
			if (found[b] == wt_byte(b, a->gen))
				nnew++;
			else if (bold == ~0ULL)
				bold = b;
		}
		cut_units++;
		if (nnew == end - a->off) {
			cut_units_new++;
			continue;
		}
		for (b = a->off; b < end; b++)
			if (!could_be(fi, b, found[b], a->seq))
				return bad(o, "cut %u: atomic write #%u of file %d [%llu, +%llu) is torn after recovery: %llu of its bytes are new; the first that is not: %llu (0x%02x); the first that is not old either: %llu (0x%02x)",
					   cut, a->seq, fi, (unsigned long long)a->off,
					   (unsigned long long)a->len, (unsigned long long)nnew,
					   (unsigned long long)bold, found[bold],
					   (unsigned long long)b, found[b]);
	}
	/* what was found is the new durable content */
	memcpy(f->data, found, size);
	memset(f->data + size, 0, maxf + MAXW - size);
	f->size = size;
	return 0;
}

/*
 * The cut itself (if the stream did not reach cut_after), then the power
 * back as after a reboot: XFS unmounted with the power off, so that
 * nothing more reaches the media, restored, mounted (log recovery).
 */
static int cut_recover(const struct op *o, unsigned int cut)
{
	const struct atw_env *e = atw_env();
	int i;

	if (pcblk_powered()) {
		pcblk_set("cut", "now");
	} else {
		cut_mid++;
	}
	close_files();
	for (i = 0; i < 100 && umount2(e->dir, 0); i++)
		usleep(100000);
	if (i == 100)
		return bad(o, "cut %u: umount %s: %s", cut, e->dir, strerror(errno));
	if (pcblk_set("restore", "1"))
		return bad(o, "cut %u: pcblk restore failed", cut);
	if (mount(e->disk, e->dir, "xfs", 0, NULL))
		return bad(o, "cut %u: mount %s on %s after the cut (log recovery): %s", cut,
			   e->disk, e->dir, strerror(errno));
	reopen_files();
	return 0;
}

/* One round: operations until the power goes (or cut_ops), then the check. */
static uint64_t cut_round(uint64_t *r, uint64_t i, uint64_t nmax, unsigned int cut)
{
	struct op o, end = { .kind = K_VERIFY };
	long long w0 = pcblk_writes(), w1;
	unsigned int j;
	int fi;

	if (pcblk_set("seed", "%llu", (unsigned long long)rng_next(r)) ||
	    pcblk_set("cut_after", "%llu", (unsigned long long)(1 + rnd(r, cut_est))))
		tap_bail("cannot arm the cut in " PCBLK_DIR);
	cutting = true;
	cut_seen = false;
	for (j = 0; j < cut_ops && i < nmax && !failed && !cut_seen; j++, i++) {
		draw_op(r, &o, i);
		log_op(&o);
		cur_op = &o;
		cut_note(&o);
		exec_op(&o);
		ops[nops - 1] = o;
		if (!pcblk_powered())
			cut_seen = true;
		else if (!failed)
			cut_acked(&o);
		atomic_fetch_add(&progress, 1);
	}
	cur_op = NULL;
	w1 = pcblk_writes();
	if (!cut_seen && w1 > w0)	/* the stream was shorter: learn its length */
		cut_est = w1 - w0;
	cutting = false;
	if (failed)
		return i;
	end.seq = i;
	cut_rounds++;
	if (cut_recover(&end, cut))
		return i;
	for (fi = 0; fi < NFILES && !failed; fi++)
		cut_check_file(&end, fi, cut);
	for (fi = 0; fi < NFILES && !failed; fi++)
		cut_sync(fi, i);
	return i;
}

/* --- background threads --- */
static void bg_fail_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bg_fail_set(const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&bg_failed, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(bg_fail, sizeof(bg_fail), fmt, ap);
	va_end(ap);
}

/*
 * What a background reader checks. Before each foreground operation starts,
 * run_seed() publishes its window: the bytes of the one file it may change
 * (to EOF and beyond for truncate, collapse and insert) and whether it may
 * change the size; after the operation, the sizes. A reader snapshots the
 * model outside the window of the operation in flight, reads, and then
 * compares every byte outside the windows of the operations that ran
 * meanwhile with the snapshot, and the length read with the size. Bytes the
 * foreground changes lie in its window, so the snapshot needs no lock
 * against the foreground's model updates, only win_mu for the windows.
 */
#define NWIN 8
struct window {
	uint64_t lo, hi;	/* [lo, hi) of file */
	uint8_t file;
	bool size;		/* may change the file's size */
};

static pthread_mutex_t win_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t win_started, win_done;	/* operations */
static struct window wins[NWIN];	/* operation n's at n % NWIN */
static uint64_t pub_size[NFILES];
static atomic_ulong bg_checked, bg_overtaken;

static struct window op_window(const struct op *o)
{
	struct window w = { .file = o->file, .size = true };

	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		if (o->sub)	/* malformed: must change nothing */
			return (struct window){ .file = o->file };
		/* fallthrough */
	case K_MMAP_W: case K_CLONE: case K_COPY: case K_FALLOC: case K_PUNCH: case K_ZERO:
		w.lo = o->off;
		w.hi = o->off + o->len;
		break;
	case K_URING: case K_AIO:
		w.lo = o->off;
		w.hi = o->off + o->n * o->off2;
		break;
	case K_FAULT:	/* the call's blocks and the dirty neighbour's */
		w.lo = rdown(o->off, bs) >= bs ? rdown(o->off, bs) - bs : 0;
		w.hi = rup(o->off + o->len, bs) + bs;
		break;
	case K_TRUNC:
		w.lo = min64(o->off, files[o->file].size);
		w.hi = ~0ULL;
		break;
	case K_COLLAPSE: case K_INSERT:
		w.lo = o->off;
		w.hi = ~0ULL;
		break;
	default:	/* reads, syncs, drop_caches, dedupe: no change */
		w.size = false;
		break;
	}
	return w;
}

static void win_begin(const struct op *o)
{
	struct window w = op_window(o);

	pthread_mutex_lock(&win_mu);
	wins[win_started % NWIN] = w;
	win_started++;
	pthread_mutex_unlock(&win_mu);
}

static void win_end(void)
{
	int i;

	pthread_mutex_lock(&win_mu);
	for (i = 0; i < NFILES; i++)
		pub_size[i] = files[i].size;
	win_done = win_started;
	pthread_mutex_unlock(&win_mu);
}

static bool in_window(const struct window *w, int nw, int fi, uint64_t off)
{
	int i;

	for (i = 0; i < nw; i++)
		if (w[i].file == fi && off >= w[i].lo && off < w[i].hi)
			return true;
	return false;
}

/*
 * Buffered reads only: an O_DIRECT read that meets the delalloc extent a
 * racing mmap store made (the mmap thread, or a foreground mmap_write,
 * which takes no iolock) fails with EIO by design in 6.12
 * (iomap_dio_iter(): "Direct I/O collision with buffered writes").
 * Readers keep reading while a fault operation runs: reads issue no device
 * writes, so they cannot take the injected error.
 */
static void *reader_thread(void *arg)
{
	uint64_t r = (uintptr_t)arg * 7919 + 1;
	unsigned char *b = atw_alloc(MAXW), *snap = atw_alloc(MAXW);
	struct window w[NWIN + 1];

	while (!atomic_load(&bg_stop) && !atomic_load(&bg_failed)) {
		int fi = rnd(&r, NFILES), nw = 0, i;
		uint64_t len = 1 + rnd(&r, MAXW), off, size, stable, want, n1, n2, x;
		const unsigned char *model = files[fi].data;
		bool exact = true, busy;
		ssize_t ret;

		pthread_mutex_lock(&win_mu);
		size = pub_size[fi];
		off = rnd(&r, size + bs);
		len = min64(len, maxf + MAXW - off);	/* the model's length */
		n1 = win_started;
		busy = win_done < n1;
		if (busy)	/* in flight: its window is not copied */
			w[nw++] = wins[(n1 - 1) % NWIN];
		for (x = off; x < off + len; x++)
			if (!in_window(w, nw, fi, x))
				snap[x - off] = model[x];
		pthread_mutex_unlock(&win_mu);

		ret = pread(files[fi].fd, b, len, off);

		pthread_mutex_lock(&win_mu);
		n2 = win_started;
		if (n2 - n1 < NWIN)	/* else the ring has lost some */
			for (x = n1; x < n2; x++)
				w[nw++] = wins[x % NWIN];
		pthread_mutex_unlock(&win_mu);
		atomic_fetch_add(&bg_reads, 1);
		if (ret < 0) {
			bg_fail_set("reader: read of %llu at %llu of file %d: %s",
				    (unsigned long long)len, (unsigned long long)off, fi,
				    strerror(errno));
			break;
		}
		if (n2 - n1 >= NWIN) {
			atomic_fetch_add(&bg_overtaken, 1);
			continue;
		}
		stable = size;
		for (i = 0; i < nw; i++) {
			if (w[i].file != fi || !w[i].size)
				continue;
			exact = false;
			stable = min64(stable, w[i].lo);
		}
		want = off < stable ? min64(len, stable - off) : 0;
		if (exact ? (uint64_t)ret != want : (uint64_t)ret < want) {
			bg_fail_set("reader: read of %llu at %llu of file %d returned %zd, size %llu says %s%llu (operations #%llu to before #%llu ran meanwhile)",
				    (unsigned long long)len, (unsigned long long)off, fi, ret,
				    (unsigned long long)size, exact ? "" : "at least ",
				    (unsigned long long)want, (unsigned long long)(n1 - busy),
				    (unsigned long long)n2);
			break;
		}
		for (x = 0; x < (uint64_t)ret; x++) {
			if ((fi == 0 && off + x < lo) || in_window(w, nw, fi, off + x) ||
			    b[x] == snap[x])
				continue;
			bg_fail_set("reader: file %d byte %llu (read of %llu at %llu): expected 0x%02x, found 0x%02x; operations #%llu to before #%llu ran meanwhile",
				    fi, (unsigned long long)(off + x), (unsigned long long)len,
				    (unsigned long long)off, snap[x], b[x],
				    (unsigned long long)(n1 - busy), (unsigned long long)n2);
			break;
		}
		atomic_fetch_add(&bg_checked, 1);
	}
	free(b);
	free(snap);
	return NULL;
}

/* Stores into [0, lo) of file 0 through a shared mapping; checks them. */
static void *mmap_thread(void *arg)
{
	uint64_t r = (uintptr_t)arg, gen = 1, i;
	unsigned char *m = calloc(1, lo), *p, *b = atw_alloc(lo);

	p = mmap(NULL, lo, PROT_READ | PROT_WRITE, MAP_SHARED, files[0].fd, 0);
	if (p == MAP_FAILED || !m) {
		bg_fail_set("mmap thread: mmap: %s", strerror(errno));
		return NULL;
	}
	memcpy(m, p, lo);
	while (!atomic_load(&bg_stop) && !atomic_load(&bg_failed)) {
		uint64_t off = rnd(&r, lo), len = 1 + rnd(&r, min64(lo - off, 8192));

		pthread_rwlock_rdlock(&quiesce);
		for (i = 0; i < len; i++)
			m[off + i] = p[off + i] = wt_byte(off + i, gen ^ 0xbadc0de);
		gen++;
		if (rnd(&r, 16) == 0 && msync(p, lo, MS_SYNC))
			bg_fail_set("mmap thread: msync: %s", strerror(errno));
		if (rnd(&r, 8) == 0) {
			ssize_t ret = pread(files[0].fd, b, lo, 0);

			if (ret != (ssize_t)lo || memcmp(b, m, lo)) {
				for (i = 0; ret == (ssize_t)lo && b[i] == m[i]; i++)
					;
				bg_fail_set("mmap thread: pread of its range returned %zd, byte %llu is 0x%02x, stored 0x%02x",
					    ret, (unsigned long long)i, ret == (ssize_t)lo ? b[i] : 0,
					    m[i]);
			}
		}
		pthread_rwlock_unlock(&quiesce);
		atomic_fetch_add(&bg_stores, 1);
	}
	munmap(p, lo);
	free(m);
	free(b);
	return NULL;
}

/*
 * Re-maps pages of the source buffer over themselves (MAP_FIXED, the same
 * memfd page): the content stays, the page is no longer present, and a
 * copy from it in the kernel stops short until it is faulted in again.
 */
static void *remap_thread(void *arg)
{
	uint64_t r = (uintptr_t)arg;
	size_t npages = srclen / ps;

	while (!atomic_load(&bg_stop)) {
		size_t pg = rnd(&r, npages);

		pthread_rwlock_rdlock(&quiesce);
		if (mmap(src + pg * ps, ps, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_SHARED, memfd,
			 pg * ps) == MAP_FAILED)
			bg_fail_set("remapper: mmap MAP_FIXED: %s", strerror(errno));
		pthread_rwlock_unlock(&quiesce);
		atomic_fetch_add(&bg_remaps, 1);
	}
	return NULL;
}

static void *drop_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&bg_stop)) {
		usleep(drop_ms * 1000);
		pthread_rwlock_rdlock(&quiesce);
		kf_write("/proc/sys/vm/drop_caches", "3", 0);
		pthread_rwlock_unlock(&quiesce);
		atomic_fetch_add(&bg_drops, 1);
	}
	return NULL;
}

/*
 * For the diagnosis of a hang: where each thread of this process waits in
 * the kernel, and every blocked task of the system in the kernel log (sysrq
 * w also lists killable waits, which the hung-task detector passes over).
 */
static void dump_stacks(void)
{
	wt_diag_stacks(getpid());
	kf_write("/proc/sysrq-trigger", "w", 0);
}

/* Reports an operation that does not return (a hang), with the log. */
static void *watchdog_thread(void *arg)
{
	unsigned long last = ~0UL;
	double since = now();

	(void)arg;
	for (;;) {
		unsigned long p = atomic_load(&progress);
		struct op *o = cur_op;

		sleep(1);
		if (p != last) {
			last = p;
			since = now();
			continue;
		}
		if (now() - since < hang_secs || !o)
			continue;
		{
			char s[256];

			op_str(o, s, sizeof(s));
			printf("not ok - seed %llu: no progress for %u s: %s has not returned (a hang)\n",
			       (unsigned long long)cur_seed, hang_secs, s);
		}
		print_last();
		dump_stacks();
		write_log("hang");
		printf("1 passed, 1 failed, 0 skipped\n");
		fflush(stdout);
		_exit(1);
	}
	return NULL;
}

/* --- probes --- */
static void unavailable(int k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void unavailable(int k, const char *fmt, ...)
{
	va_list ap;

	kinds[k].avail = false;
	va_start(ap, fmt);
	vsnprintf(kinds[k].why, sizeof(kinds[k].why), fmt, ap);
	va_end(ap);
}

static int probe_write(int fd, int dfd, int flags, bool dio, uint64_t len)
{
	struct iovec iov = { src, len };
	ssize_t ret;

	memset(src, 0x5a, len);
	if (ftruncate(fd, 0))
		return -errno;
	ret = pwritev2(dio ? dfd : fd, &iov, 1, 0, flags);
	return ret == (ssize_t)len ? 0 : ret < 0 ? -errno : -EIO;
}

/*
 * Whether each advertised atomic kind accepts a write to a shared (cloned)
 * block. DESIGN.md §3.11 and series-base say it must (out of place, as
 * 6.13 does); a kernel that refuses with EOPNOTSUPP while statx
 * advertises is reported here, and then an EOPNOTSUPP on a file that has
 * shared extents counts as a refusal, not a mismatch.
 */
static void probe_shared_atomic(int fd, int dfd, int fd1)
{
	static const int ks[] = { K_WT_ATOMIC, K_DIO_ATOMIC, K_BUF_ATOMIC };
	unsigned int i;

	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		int k = ks[i];
		uint32_t mn, mx;
		struct file_clone_range cr = { .src_fd = fd1 };
		struct iovec iov;
		ssize_t ret;

		if (!kinds[k].avail)
			continue;
		atomic_limits(k, &mn, &mx);
		memset(src, 0x3c, mn);
		if (ftruncate(fd1, 0) || pwrite(fd1, src, mn, 0) != (ssize_t)mn || fsync(fd1) ||
		    ftruncate(fd, 0))
			continue;
		cr.src_length = mn;
		if (ioctl(fd, FICLONERANGE, &cr))
			continue;
		iov = (struct iovec){ src, mn };
		ret = pwritev2(is_dio(k) ? dfd : fd, &iov, 1, 0, wflags(k));
		if (ret < 0 && errno == EOPNOTSUPP) {
			shared_refused[k] = true;
			diag("%s: this kernel refuses an atomic write to a shared block with EOPNOTSUPP although statx advertises it; such refusals are counted, not failed",
			     kinds[k].name);
		}
	}
}

static void probe(void)
{
	const struct atw_env *e = atw_env();
	char p0[512], p1[512];
	int fd, dfd, fd1, k, ret;
	struct file_clone_range cr;
	struct io_uring_params up;

	for (k = 0; k < NKINDS; k++)
		kinds[k].avail = true;
	snprintf(p0, sizeof(p0), "%s/randops.probe0", e->dir);
	snprintf(p1, sizeof(p1), "%s/randops.probe1", e->dir);
	fd = open(p0, O_RDWR | O_CREAT | O_TRUNC, 0644);
	dfd = open(p0, O_RDWR | O_DIRECT);
	fd1 = open(p1, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dfd < 0 || fd1 < 0)
		tap_bail("probe files: %s", strerror(errno));
	if (!RWF_WT) {
		unavailable(K_WT, "uapi has no RWF_WRITETHROUGH");
		unavailable(K_WT_DSYNC, "uapi has no RWF_WRITETHROUGH");
		unavailable(K_WT_ATOMIC, "uapi has no RWF_WRITETHROUGH");
	} else {
		if ((ret = probe_write(fd, dfd, RWF_WT, false, bs)))
			unavailable(K_WT, "trial RWF_WRITETHROUGH write: %s", strerror(-ret));
		if ((ret = probe_write(fd, dfd, RWF_WT | RWF_DSYNC, false, bs)))
			unavailable(K_WT_DSYNC, "trial RWF_WRITETHROUGH|RWF_DSYNC write: %s",
				    strerror(-ret));
		if (!e->lim.buf)
			unavailable(K_WT_ATOMIC, "statx advertises no buffered atomic unit");
		else if ((ret = probe_write(fd, dfd, RWF_WT | RWF_ATOMIC, false, buf_min)))
			unavailable(K_WT_ATOMIC, "trial RWF_ATOMIC|RWF_WRITETHROUGH of %u: %s",
				    buf_min, strerror(-ret));
	}
	if ((ret = probe_write(fd, dfd, 0, true, lbs)))
		unavailable(K_DIO, "trial O_DIRECT write: %s", strerror(-ret));
	if (!e->lim.dio)
		unavailable(K_DIO_ATOMIC, "statx advertises no DIO atomic unit");
	else if ((ret = probe_write(fd, dfd, RWF_ATOMIC, true, dio_min)))
		unavailable(K_DIO_ATOMIC, "trial O_DIRECT RWF_ATOMIC of %u: %s", dio_min,
			    strerror(-ret));
	if (!e->lim.buf_known)
		unavailable(K_BUF_ATOMIC, "uapi has no STATX_WRITE_ATOMIC_BUF");
	else if (!e->lim.buf)
		unavailable(K_BUF_ATOMIC, "statx advertises no buffered atomic unit");
	else if ((ret = probe_write(fd, dfd, RWF_ATOMIC, false, buf_min)))
		unavailable(K_BUF_ATOMIC, "trial buffered RWF_ATOMIC of %u: %s", buf_min,
			    strerror(-ret));
	if (!kinds[K_DIO].avail)
		unavailable(K_DIO_R, "no O_DIRECT");

	/* fallocate modes on a 4-block file */
	memset(src, 1, 4 * bs);
	if (ftruncate(fd, 0) || pwrite(fd, src, 4 * bs, 0) != 4 * bs)
		tap_bail("probe write: %s", strerror(errno));
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, bs))
		unavailable(K_PUNCH, "punch hole: %s", strerror(errno));
	if (fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, bs))
		unavailable(K_ZERO, "zero range: %s", strerror(errno));
	if (fallocate(fd, FALLOC_FL_INSERT_RANGE, bs, bs))
		unavailable(K_INSERT, "insert range: %s", strerror(errno));
	if (fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, bs, bs))
		unavailable(K_COLLAPSE, "collapse range: %s", strerror(errno));
	if (fallocate(fd, 0, 8 * bs, bs))
		unavailable(K_FALLOC, "fallocate: %s", strerror(errno));
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE))
		unavailable(K_SFR, "sync_file_range: %s", strerror(errno));
	if (ftruncate(fd1, 0) || pwrite(fd1, src, 2 * bs, 0) != 2 * bs || fsync(fd1))
		tap_bail("probe write: %s", strerror(errno));
	cr = (struct file_clone_range){ .src_fd = fd1, .src_offset = 0, .src_length = bs,
					.dest_offset = 0 };
	if (ioctl(fd, FICLONERANGE, &cr)) {
		unavailable(K_CLONE, "FICLONERANGE: %s (no reflink)", strerror(errno));
		unavailable(K_DEDUPE, "FICLONERANGE: %s (no reflink)", strerror(errno));
	} else {
		probe_shared_atomic(fd, dfd, fd1);
	}
	if (kf_write("/proc/sys/vm/drop_caches", "1", 0))
		unavailable(K_DROP, "cannot write /proc/sys/vm/drop_caches");
	memset(&up, 0, sizeof(up));
	if ((ret = io_uring_queue_init(64, &ring, 0)))
		unavailable(K_URING, "io_uring_queue_init: %s", strerror(-ret));
	else
		ring_ok = true;
	if (syscall(SYS_io_setup, 64, &aio_ctx))
		unavailable(K_AIO, "io_setup: %s", strerror(errno));
	{
		char path[256];

		if (wt_inject_path(path, sizeof(path)))
			unavailable(K_FAULT, "no scsi_debug error injection in debugfs");
		else if (!kinds[K_WT].avail && !kinds[K_DIO].avail)
			unavailable(K_FAULT, "no write kind to fail");
	}
	/* the opcode of plain data writes, from a traced direct write */
	if (kinds[K_FAULT].avail && !devcount_start()) {
		struct devcount dc;

		probe_write(fd, dfd, 0, true, bs);
		if (!devcount_stop(&dc, lbs) && wt_first_write_opcode(&dc))
			write_opcode = wt_first_write_opcode(&dc);
	}
	close(fd);
	close(dfd);
	close(fd1);
	unlink(p0);
	unlink(p1);
}

/* --- one seed --- */
static void count_kinds(size_t from)
{
	size_t i;

	for (i = from; i < nops; i++)
		kinds[ops[i].kind].drawn++;
}

static void report_kinds(const char *what)
{
	char s[1024];
	size_t n = 0;
	int k;

	for (k = 0; k < NKINDS; k++) {
		if (!kinds[k].drawn)
			continue;
		n += snprintf(s + n, sizeof(s) - n, " %s=%lu", kinds[k].name, kinds[k].drawn);
		if (kinds[k].refused)
			n += snprintf(s + n, sizeof(s) - n, "(%lu calls refused as due)",
				      kinds[k].refused);
		if (n >= sizeof(s))
			break;
	}
	diag("%s drawn:%s", what, s);
}

/* For the summary line: sequences run, operations, the failing ones. */
static unsigned int seqs_run, seqs_failed, cuts_run;
static uint64_t ops_run;
static char failing[256];

static void finish_seq(const char *name, uint64_t count, double t0)
{
	struct op end = { .seq = count, .kind = K_VERIFY };
	int i;

	/* at the end: every file through the cache, then after drop_caches */
	for (i = 0; !failed && i < NFILES; i++) {
		end.file = i;
		verify_file(&end, i, "final read");
	}
	if (!failed) {
		wt_drop_caches();
		for (i = 0; !failed && i < NFILES; i++) {
			end.file = i;
			verify_file(&end, i, "final read after drop_caches");
		}
	}
	if (atomic_load(&bg_failed))
		bad(&end, "background: %s", bg_fail);
	seqs_run++;
	ops_run += count;
	if (failed) {
		size_t n = strlen(failing);

		seqs_failed++;
		if (n < sizeof(failing) - 24)
			snprintf(failing + n, sizeof(failing) - n, "%s%llu", n ? "," : "",
				 replay ? 0ULL : (unsigned long long)cur_seed);
		print_last();
		write_log(failmsg);
		check(false, "%s: mismatch after %llu ops: %s", name, (unsigned long long)count,
		      failmsg);
	} else {
		check(true, "%s: %llu ops, no mismatch (%.0f s)", name, (unsigned long long)count,
		      now() - t0);
		if (logpath)
			write_log("passed");
	}
}

static void start_bg(pthread_t *th, int *nth)
{
	unsigned int i;

	atomic_store(&bg_stop, 0);
	for (i = 0; i < nreaders; i++)
		pthread_create(&th[(*nth)++], NULL, reader_thread, (void *)(uintptr_t)(cur_seed + i));
	if (bg_mmap)
		pthread_create(&th[(*nth)++], NULL, mmap_thread, (void *)(uintptr_t)(cur_seed * 3 + 1));
	if (bg_remap && memfd >= 0)
		pthread_create(&th[(*nth)++], NULL, remap_thread, (void *)(uintptr_t)(cur_seed * 5 + 1));
	if (drop_ms)
		pthread_create(&th[(*nth)++], NULL, drop_thread, NULL);
}

static void stop_bg(pthread_t *th, int nth)
{
	int i;

	atomic_store(&bg_stop, 1);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
}

static void run_seed(uint64_t seed, uint64_t nmax, double secs)
{
	uint64_t r = seed, i = 0;
	double t0 = now();
	pthread_t th[24];
	unsigned int c;
	int nth = 0;
	char name[64];
	struct op o;

	cur_seed = seed;
	r = rng_next(&r) ^ 0x5bd1e9955bd1e995ULL;	/* unrelated streams per seed */
	memset(&last_clone, 0, sizeof(last_clone));
	nops = 0;
	failed = false;
	atomic_store(&bg_failed, 0);
	open_files();
	if (ncuts) {
		for (i = 0; i < NFILES; i++)
			cut_sync(i, 0);
		for (i = 0, c = 0; c < ncuts && i < nmax && !failed; c++) {
			if (secs > 0 && now() - t0 > secs)
				break;
			i = cut_round(&r, i, nmax, c);
		}
		diag("seed %llu: %u power cuts (%lu mid-stream, the rest after %u operations), %lu atomic writes judged (%lu new, the rest old), %lu bytes checked",
		     (unsigned long long)seed, c, cut_mid, cut_ops, cut_units, cut_units_new,
		     cut_bytes);
		cuts_run += c;
		cut_mid = cut_units = cut_units_new = cut_bytes = 0;
		nmax = 0;	/* the loop below has nothing left to do */
	}
	win_started = 0;
	win_end();
	start_bg(th, &nth);
	for (; i < nmax && !failed && !atomic_load(&bg_failed); i++) {
		if (secs > 0 && now() - t0 > secs)
			break;
		draw_op(&r, &o, i);
		log_op(&o);
		cur_op = &o;
		win_begin(&o);
		exec_op(&o);
		win_end();
		ops[nops - 1] = o;	/* exec may adjust (fault neighbour) */
		atomic_fetch_add(&progress, 1);
	}
	cur_op = NULL;
	stop_bg(th, nth);
	count_kinds(0);
	snprintf(name, sizeof(name), "seed %llu", (unsigned long long)seed);
	finish_seq(name, i, t0);
	if (nreaders || bg_mmap || bg_remap || drop_ms)
		diag("seed %llu background: %lu reads (%lu checked against the model, %lu overtaken by %d operations), %lu mmap stores, %lu remaps, %lu drops",
		     (unsigned long long)seed, atomic_exchange(&bg_reads, 0),
		     atomic_exchange(&bg_checked, 0), atomic_exchange(&bg_overtaken, 0), NWIN,
		     atomic_exchange(&bg_stores, 0), atomic_exchange(&bg_remaps, 0),
		     atomic_exchange(&bg_drops, 0));
	close_files();
}

static int kind_by_name(const char *s)
{
	int k;

	for (k = 0; k < NKINDS; k++)
		if (!strcmp(kinds[k].name, s))
			return k;
	return -1;
}

static void run_replay(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], kname[32];
	unsigned int seq, fi, f2, sub, n, bo;
	unsigned long long gen, off, len, off2, v1, v2;
	double t0 = now();
	uint64_t count = 0;
	struct op o;

	if (!f)
		tap_bail("replay log %s: %s", path, strerror(errno));
	cur_seed = 0;
	nops = 0;
	failed = false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# randops log: seed %llu", &v1) == 1)
			cur_seed = v1;
		if (sscanf(line, "# params lo=%llu maxf=%llu", &v1, &v2) == 2) {
			lo = v1;
			maxf = v2;
		}
		if (line[0] == '#')
			continue;
		if (!count)
			open_files();
		if (sscanf(line, "%u %31s %u %u %u %u %llu %llu %llu %llu %u", &seq, kname, &fi, &f2,
			   &sub, &n, &gen, &off, &len, &off2, &bo) != 11 || kind_by_name(kname) < 0 ||
		    fi >= NFILES || f2 >= NFILES)
			tap_bail("replay log: bad line: %s", line);
		o = (struct op){ .seq = seq, .kind = kind_by_name(kname), .file = fi, .file2 = f2,
				 .sub = sub, .n = n, .gen = gen, .off = off, .len = len,
				 .off2 = off2, .bufoff = bo };
		log_op(&o);
		exec_op(&o);
		count++;
		if (failed)
			break;
	}
	fclose(f);
	if (!count)
		tap_bail("replay log %s has no operations", path);
	count_kinds(0);
	finish_seq("replay", count, t0);
	close_files();
}

/* --- command line --- */
static void parse_weights(char *s)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int k;

		if (!eq)
			tap_bail("-w: %s is not NAME=WEIGHT", tok);
		*eq = 0;
		if (!strcmp(tok, "all")) {
			for (k = 0; k < NKINDS; k++)
				kinds[k].weight = atoi(eq + 1);
			continue;
		}
		k = kind_by_name(tok);
		if (k < 0)
			tap_bail("-w: unknown kind %s", tok);
		kinds[k].weight = atoi(eq + 1);
	}
}

static void usage_bail(void)
{
	tap_bail("usage: randops [-s SEED[,SEED...]] [-n OPS] [-t SECS] [-w KIND=N,...] [-q QD] [-m MAXSIZE] [-R READERS] [-M] [-X] [-D MS] [-H SECS] [-l LOG] [-r LOG] [-E] [-P] [-C CUTS [-K OPS]] [-v] DIR");
}

int main(int argc, char **argv)
{
	uint64_t seeds[64], nmax = 1000;
	unsigned int nseeds = 0, i;
	double secs = 0;
	const struct atw_env *e;
	char *fake[2], *sv, *tok;
	int c, k;

	tap_start("randops");
	seeds[nseeds++] = 1;
	while ((c = getopt(argc, argv, "s:n:t:w:q:m:R:MXD:H:l:r:EPvC:K:")) != -1) {
		switch (c) {
		case 's':
			nseeds = 0;
			for (tok = strtok_r(optarg, ",", &sv); tok && nseeds < 64;
			     tok = strtok_r(NULL, ",", &sv))
				seeds[nseeds++] = strtoull(tok, NULL, 0);
			break;
		case 'n': nmax = strtoull(optarg, NULL, 0); break;
		case 't': secs = atof(optarg); break;
		case 'w': parse_weights(optarg); break;
		case 'q': qd = atoi(optarg); break;
		case 'm': maxf = strtoull(optarg, NULL, 0); break;
		case 'R': nreaders = atoi(optarg); break;
		case 'M': bg_mmap = true; break;
		case 'X': bg_remap = true; break;
		case 'D': drop_ms = atoi(optarg); break;
		case 'H': hang_secs = atoi(optarg); break;
		case 'l': logpath = optarg; break;
		case 'r': replay = optarg; break;
		case 'E': dio_past_eof = true; break;
		case 'P': dio_share_pages = true; break;
		case 'v': verbose = true; break;
		case 'C': ncuts = atoi(optarg); break;
		case 'K': cut_ops = atoi(optarg); break;
		default: usage_bail();
		}
	}
	if (optind != argc - 1 || !nseeds || qd < 1 || qd > MAXQD || nreaders > 16 || !cut_ops)
		usage_bail();
	if (ncuts && (nreaders || bg_mmap || bg_remap || drop_ms || replay))
		tap_bail("-C (power cuts) takes no background threads and no replay");
	fake[0] = argv[0];
	fake[1] = argv[optind];
	e = atw_env_setup(2, fake, "randops [options] DIR");
	bs = e->bs;
	lbs = e->lbs;
	ps = e->ps;
	dio_min = e->lim.dio_min;
	dio_max = e->lim.dio_max;
	buf_min = e->lim.buf_min;
	buf_max = e->lim.buf_max;
	if (maxf < 4 * RESERVE)
		maxf = 4 * RESERVE;
	maxf = rup(maxf, 1u << 20);
	lo = bg_mmap ? RESERVE : 0;

	/* the writers' source: a shared memfd mapping (see remap_thread) */
	slot = rup(2 * (size_t)MAXW + 4096, ps);
	srclen = (MAXQD + 1) * slot;
	memfd = syscall(SYS_memfd_create, "randops-src", 0);
	if (memfd >= 0 && ftruncate(memfd, srclen) == 0)
		src = mmap(NULL, srclen, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (!src || src == MAP_FAILED) {
		diag("no memfd source buffer (%s): anonymous memory, no remapper", strerror(errno));
		memfd = -1;
		src = atw_alloc(srclen);
	}
	rdbuf = atw_alloc(MAXW * 2 > maxf ? MAXW * 2 : maxf);
	tmpbuf = atw_alloc(maxf + MAXW);
	if (ncuts) {
		if (access(PCBLK_DIR "/cut", W_OK))
			tap_bail("-C: no pcblk control directory %s (%s); DIR must be on pcblk",
				 PCBLK_DIR, strerror(errno));
		okb = atw_alloc(maxf + MAXW);
		for (k = 0; k < NFILES; k++) {
			dur[k] = atw_alloc(maxf + MAXW);
			lastdur[k] = calloc(maxf + MAXW, sizeof(*lastdur[k]));
			if (!lastdur[k])
				tap_bail("out of memory");
		}
	}
	{
		pthread_rwlockattr_t a;
		pthread_t wd;

		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&quiesce, &a);
		pthread_create(&wd, NULL, watchdog_thread, NULL);
		pthread_detach(wd);
	}

	probe();
	if (ncuts) {	/* not an absence: the phase's design, one line */
		char left[256] = "";

		for (k = 0; k < NKINDS; k++) {
			if (cut_kind(k) || !kinds[k].weight)
				continue;
			kinds[k].weight = 0;
			snprintf(left + strlen(left), sizeof(left) - strlen(left), " %s",
				 kinds[k].name);
		}
		diag("power-cut phase: not drawn (its model follows data writes and syncs only):%s",
		     left);
	}
	for (k = 0; k < NKINDS; k++)
		if (!kinds[k].avail && kinds[k].weight)
			skip(kinds[k].why, "kind %s not drawn", kinds[k].name);
	if (bg_remap && memfd < 0)
		skip("no memfd source buffer", "background remapper");
	diag("files of up to %llu bytes, foreground from %llu, queue depth %u, data writes up to %u",
	     (unsigned long long)maxf, (unsigned long long)lo, qd, MAXW);
	if (replay) {
		run_replay(replay);
	} else {
		for (i = 0; i < nseeds; i++)
			run_seed(seeds[i], nmax, secs > 0 ? secs / nseeds : 0);
	}
	report_kinds(replay ? "replay" : "all seeds");
	if (kinds[K_FAULT].drawn)
		diag("fault: %lu calls failed by the injected error as due, %lu where it missed the call's command",
		     kinds[K_FAULT].refused, missed_faults);
	for (k = 0; k < NKINDS; k++)
		if (kinds[k].failed)
			diag("kind %s: %lu mismatches", kinds[k].name, kinds[k].failed);
	/* one line for scripts/compare (compare/read_randops.c) */
	diag("randops: sequences=%u ops=%llu failed=%u failing=%s faults=%lu cuts=%u bs=%u sector=%u",
	     seqs_run, (unsigned long long)ops_run, seqs_failed, failing[0] ? failing : "-",
	     kinds[K_FAULT].drawn, cuts_run, bs, lbs);
	if (ring_ok)
		io_uring_queue_exit(&ring);
	return tap_done();
}
