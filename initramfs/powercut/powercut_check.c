// SPDX-License-Identifier: GPL-2.0
/*
 * Power-cut torn-write checker on pcblk (initramfs/modules/powercut), a RAM
 * disk with a volatile write cache whose power can be cut mid-stream.
 *
 * Per configuration, each cut is one round:
 *   1. every unit (one atomic write unit: 16 KiB on the raw device, one fs
 *      block on XFS) gets a baseline generation, made durable by fsync;
 *   2. cut_after is armed at a random point of the stream and writer
 *      threads (disjoint units each, so per unit the order is known)
 *      write units stamped with (offset, generation) in every 512-byte
 *      sector (lib/atomic_io.c), logging what each call returned and
 *      which writes were acknowledged durable: RWF_DSYNC returned, or an
 *      fdatasync by the same thread returned 0 after the write returned;
 *   3. after the cut (or at the end of the stream if it never came) the
 *      power is restored, XFS is remounted (log recovery) or the raw
 *      device re-read, and every unit must be wholly one generation that
 *      was written to it, no older than its last acknowledged write.
 * The stamps cover every byte of a sector, so a unit is compared in full
 * against the generation its first sector names: stronger than a checksum.
 *
 * A configuration is one table entry (write flags, O_DIRECT or buffered,
 * sync method, expectation, what the kernel must advertise). Those the
 * kernel does not advertise (statx) or the uapi cannot express are
 * skipped with the reason. "device" checks the pcblk model itself.
 *
 * usage: powercut_check [-n CUTS] [-w WRITES] [-t THREADS] [-k SYNC_EVERY]
 *                       [-S SEED] [-d DEV] [-m MNT] [-v] CONFIG...
 *   CONFIG: device, raw-*, xfs-* (see -h), or "raw" / "xfs" for all of them
 *   -n CUTS per configuration (default 4; the full run uses 200)
 * Prints per configuration:
 *   # powercut: config=NAME ... cuts=N torn=N lost=N bad=N ...
 *     expect=untorn|torn|info result=pass|fail|skip
 */
#include "lib/atomic_io.h"
#include "lib/pcblk.h"
#include "lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define RAW_BASE (1 << 20)	/* raw units start 1 MiB into the device */
#define RAW_UNIT 16384		/* preferred raw unit, clamped to statx */
#define NR_UNITS 64
#define XFS_SUPER_MAGIC 0x58465342
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifdef RWF_WRITETHROUGH
#define PC_RWF_WT RWF_WRITETHROUGH
#else
#define PC_RWF_WT 0
#endif

enum pc_target { T_DEVICE, T_RAW, T_XFS };
enum pc_sync {
	S_NONE,
	S_DSYNC,	/* RWF_DSYNC: acknowledged when the call returns */
	S_FDATASYNC,	/* fdatasync every -k writes acknowledges them */
	S_WRITEBACK,	/* no sync: sync_file_range(WRITE) every -k writes
			 * starts writeback (the flusher's part); nothing is
			 * acknowledged */
};
/*
 * Mixed cases: besides the atomic writes of whole units, an overwriter
 * thread changes the tail of units (their last quarter) with plain
 * stamped data: the unit a writer is writing
 * right now (during) or the one it wrote last (after). The tail may hold
 * anything written to it; the head, which only atomic writes touch, must
 * be wholly one atomic write.
 */
enum pc_mix {
	X_NONE,
	X_OVERWRITE,	/* plain buffered pwrite of the tail */
	X_MMAP,		/* store into a MAP_SHARED mapping of the tail */
};
enum pc_expect {
	E_UNTORN,	/* atomic: no torn unit */
	E_TORN,		/* negative control: the checker must see tears */
	E_INFO,		/* tears reported, not judged */
};
#define N_DIO_ATOMIC	0x1	/* statx DIO atomic limits cover the unit */
#define N_BUF_ATOMIC	0x2	/* statx buffered atomic limits cover it */
#define N_WRITETHROUGH	0x4	/* the uapi defines RWF_WRITETHROUGH */

struct pc_config {
	const char *name;
	const char *what;
	enum pc_target target;
	int rwf;
	bool direct;
	enum pc_sync sync;
	enum pc_expect expect;
	unsigned int needs;
	enum pc_mix mix;
};

static const struct pc_config configs[] = {
	{ "device", "pcblk's cache, cut and rejection model", T_DEVICE,
	  0, true, S_NONE, E_INFO, 0, X_NONE },
	{ "raw-atomic", "raw device, O_DIRECT RWF_ATOMIC, fdatasync", T_RAW,
	  RWF_ATOMIC, true, S_FDATASYNC, E_UNTORN, N_DIO_ATOMIC, X_NONE },
	{ "raw-atomic-dsync", "raw device, O_DIRECT RWF_ATOMIC|RWF_DSYNC", T_RAW,
	  RWF_ATOMIC, true, S_DSYNC, E_UNTORN, N_DIO_ATOMIC, X_NONE },
	{ "raw-plain", "negative control: raw device, plain O_DIRECT, fdatasync",
	  T_RAW, 0, true, S_FDATASYNC, E_TORN, 0, X_NONE },
	{ "xfs-atomic", "XFS, O_DIRECT RWF_ATOMIC of one block, fdatasync", T_XFS,
	  RWF_ATOMIC, true, S_FDATASYNC, E_UNTORN, N_DIO_ATOMIC, X_NONE },
	{ "xfs-atomic-dsync", "XFS, O_DIRECT RWF_ATOMIC|RWF_DSYNC of one block",
	  T_XFS, RWF_ATOMIC, true, S_DSYNC, E_UNTORN, N_DIO_ATOMIC, X_NONE },
	{ "xfs-plain-dsync", "XFS, plain O_DIRECT RWF_DSYNC of one block", T_XFS,
	  0, true, S_DSYNC, E_INFO, 0, X_NONE },
	{ "xfs-wt-atomic", "XFS, buffered RWF_ATOMIC|RWF_WRITETHROUGH, fdatasync",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_FDATASYNC, E_UNTORN,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_NONE },
	{ "xfs-wt-atomic-dsync", "XFS, buffered RWF_ATOMIC|RWF_WRITETHROUGH|RWF_DSYNC",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_DSYNC, E_UNTORN,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_NONE },
	/*
	 * Mixed cases. Not judged without RWF_DSYNC on either design: a
	 * plain change of part of a block whose atomic write is not yet
	 * durable is written back as a plain write of the whole block,
	 * carrying the atomic data, and a cut can tear that write (the
	 * same mechanism would expose an O_DIRECT atomic write followed by
	 * a buffered overwrite; not measured). With RWF_DSYNC the atomic
	 * data is on the media before anything else can carry it.
	 */
	{ "xfs-wt-overwrite", "XFS, RWF_ATOMIC|RWF_WRITETHROUGH + plain overwrites of the tail",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_FDATASYNC, E_INFO,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_OVERWRITE },
	{ "xfs-wt-overwrite-dsync", "XFS, RWF_ATOMIC|RWF_WRITETHROUGH|RWF_DSYNC + plain overwrites",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_DSYNC, E_UNTORN,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_OVERWRITE },
	{ "xfs-wt-mmap", "XFS, RWF_ATOMIC|RWF_WRITETHROUGH + mmap stores into the tail",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_FDATASYNC, E_INFO,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_MMAP },
	{ "xfs-buf-atomic", "XFS, buffered RWF_ATOMIC (writeback-time), fdatasync",
	  T_XFS, RWF_ATOMIC, false, S_FDATASYNC, E_UNTORN, N_BUF_ATOMIC, X_NONE },
	{ "xfs-buf-atomic-nosync", "XFS, buffered RWF_ATOMIC, no sync (writeback kicked)",
	  T_XFS, RWF_ATOMIC, false, S_WRITEBACK, E_UNTORN, N_BUF_ATOMIC, X_NONE },
	/* The writeback-time design also drops atomicity on these by design. */
	{ "xfs-buf-overwrite", "XFS, buffered RWF_ATOMIC + plain overwrites of the tail",
	  T_XFS, RWF_ATOMIC, false, S_FDATASYNC, E_INFO, N_BUF_ATOMIC, X_OVERWRITE },
	{ "xfs-buf-overwrite-dsync", "XFS, buffered RWF_ATOMIC|RWF_DSYNC + plain overwrites",
	  T_XFS, RWF_ATOMIC, false, S_DSYNC, E_INFO, N_BUF_ATOMIC, X_OVERWRITE },
	{ "xfs-buf-mmap", "XFS, buffered RWF_ATOMIC + mmap stores into the tail",
	  T_XFS, RWF_ATOMIC, false, S_FDATASYNC, E_INFO, N_BUF_ATOMIC, X_MMAP },
	{ "xfs-buf-plain", "negative control: XFS, plain buffered, fdatasync",
	  T_XFS, 0, false, S_FDATASYNC, E_TORN, 0, X_NONE },
};

static struct {
	unsigned int cuts, writes, threads, sync_every;
	unsigned long long seed;
	const char *dev, *mnt;
	bool verbose;
} opt = { 4, 256, 2, 32, 0x5eedc0de, "/dev/pcblk0", NULL, false };

/* ---- small helpers ------------------------------------------------- */

static uint64_t mix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The stamp lib/atomic_io.c writes at the start of every 512-byte sector. */
struct stamp {
	uint64_t off;
	uint64_t gen;
	uint64_t magic;
};
#define STAMP_MAGIC 0x61747773746d7031ULL

static bool sector_stamp(const void *p, uint64_t off, uint64_t *gen)
{
	struct stamp s;

	memcpy(&s, p, sizeof(s));
	if (s.magic != STAMP_MAGIC || s.off != off ||
	    !atw_verify(p, 512, off, s.gen))
		return false;
	*gen = s.gen;
	return true;
}

/* ---- one configuration --------------------------------------------- */

struct run {
	const struct pc_config *cfg;
	int cfg_idx;
	int fd;
	char path[256];
	size_t unit;
	unsigned int lbs;
	unsigned int nunits;
	off_t base;		/* byte offset of unit 0 */
	uint64_t next_gen;	/* generation counter, atomically bumped */
	uint64_t base_gen;	/* this round's baseline */
	uint64_t *ack_gen;	/* per unit: last acknowledged durable gen */
	int *gen_unit;		/* per gen - base_gen: the unit written */
	unsigned int ngen;
	/* per round, summed */
	unsigned long ok, acked, failed_eio, failed_other, midstream, notcut;
	unsigned long torn, lost, bad, checked, atomic_ok, dev_atomic;
	unsigned long dev_torn, dev_inflight, sync_eio;
	unsigned long mixed;		/* torn units with a sector of mixed gens */
	unsigned long stream_est;	/* device writes of a stream not cut */
	unsigned int rounds;		/* cuts done */
	bool broken;
	uint64_t round_seed;
	/* mixed cases */
	size_t tail;			/* bytes at the end of a unit, 0: none */
	char *map;			/* X_MMAP: the file, this round */
	int *busy;			/* per writer: unit in flight, or -1 */
	int *last;			/* per writer: unit last written, or -1 */
	bool stop;			/* the writers are done */
	unsigned long tail_writes, tail_during, tail_failed, tail_sigbus;
};

struct writer {
	struct run *r;
	unsigned int id;
	unsigned int nwrites;
	int first_err;
	unsigned long ok, acked, eio, other, atomic_ok, sync_eio;
};

static uint64_t new_gen(struct run *r)
{
	return __atomic_fetch_add(&r->next_gen, 1, __ATOMIC_RELAXED);
}

static uint64_t max_gen(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct run *r = w->r;
	const struct pc_config *c = r->cfg;
	uint64_t rng = r->round_seed ^ ((uint64_t)w->id << 48);
	unsigned int own = (r->nunits + opt.threads - 1 - w->id) / opt.threads;
	unsigned int *pend_u = calloc(opt.sync_every + 1, sizeof(*pend_u));
	uint64_t *pend_g = calloc(opt.sync_every + 1, sizeof(*pend_g));
	int rwf = c->rwf | (c->sync == S_DSYNC ? RWF_DSYNC : 0);
	void *buf = atw_alloc(r->unit);
	unsigned int i, npend = 0;

	for (i = 0; i < w->nwrites && own; i++) {
		unsigned int u = w->id + opt.threads * (mix64(&rng) % own);
		off_t off = r->base + (off_t)u * r->unit;
		uint64_t gen = new_gen(r);
		ssize_t ret;

		if (gen - r->base_gen < r->ngen)
			r->gen_unit[gen - r->base_gen] = u;
		atw_fill(buf, r->unit, off, gen);
		__atomic_store_n(&r->busy[w->id], (int)u, __ATOMIC_SEQ_CST);
		ret = atw_pwrite(r->fd, buf, r->unit, off, rwf);
		__atomic_store_n(&r->busy[w->id], -1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r->last[w->id], (int)u, __ATOMIC_SEQ_CST);
		if (ret != (ssize_t)r->unit) {
			w->first_err = ret < 0 ? (int)-ret : EIO;
			if (ret == -EIO)
				w->eio++;
			else
				w->other++;
			break;
		}
		w->ok++;
		if (c->rwf & RWF_ATOMIC)
			w->atomic_ok++;
		if (c->sync == S_DSYNC) {
			r->ack_gen[u] = gen;
			w->acked++;
		} else if (c->sync == S_FDATASYNC) {
			pend_u[npend] = u;
			pend_g[npend++] = gen;
			if (npend == opt.sync_every) {
				if (fdatasync(r->fd)) {
					w->first_err = errno;
					if (errno == EIO)
						w->sync_eio++;
					else
						w->other++;
					break;
				}
				/* Per unit, later writes carry higher gens. */
				for (; npend; npend--)
					r->ack_gen[pend_u[npend - 1]] =
						max_gen(r->ack_gen[pend_u[npend - 1]],
							pend_g[npend - 1]);
				w->acked += opt.sync_every;
			}
		} else if (c->sync == S_WRITEBACK && (i + 1) % opt.sync_every == 0) {
			/* Starts writeback, waits for nothing, flushes nothing. */
			sync_file_range(r->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		}
	}
	free(buf);
	free(pend_u);
	free(pend_g);
	return NULL;
}

static __thread sigjmp_buf store_fault;
static __thread volatile sig_atomic_t storing;

/* An mmap store into a file whose filesystem shut down at the cut. */
static void on_sigbus(int sig)
{
	if (!storing) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	siglongjmp(store_fault, 1);
}

/* One plain tail write of unit u with a new generation; false: no gens left. */
static bool tail_write(struct run *r, unsigned int u, void *buf)
{
	off_t off = r->base + (off_t)u * r->unit + (r->unit - r->tail);
	uint64_t gen = new_gen(r);

	if (gen - r->base_gen >= r->ngen)
		return false;
	r->gen_unit[gen - r->base_gen] = u;
	atw_fill(buf, r->tail, off, gen);
	if (r->cfg->mix == X_MMAP) {
		if (sigsetjmp(store_fault, 1)) {
			storing = 0;
			r->tail_sigbus++;
			return true;
		}
		storing = 1;
		memcpy(r->map + off, buf, r->tail);
		storing = 0;
	} else if (atw_pwrite(r->fd, buf, r->tail, off, 0) != (ssize_t)r->tail) {
		r->tail_failed++;
	}
	r->tail_writes++;
	return true;
}

/*
 * Overwrites tails while the writers run, paced by a short sleep and
 * bounded by the round's generations: alternately the unit a writer has
 * in flight (during; counted when that write was still in flight after
 * the overwrite) and the unit it wrote last (after).
 */
static void *overwriter_main(void *arg)
{
	struct run *r = arg;
	uint64_t rng = r->round_seed ^ 0x6f766572ULL;
	void *buf = atw_alloc(r->tail);
	unsigned long n, done = 0;

	/* Two tail writes per atomic write at most: run_config sized ngen so. */
	for (n = 0; !__atomic_load_n(&r->stop, __ATOMIC_SEQ_CST) &&
	     done < 2 * opt.writes; n++) {
		unsigned int t = mix64(&rng) % opt.threads;
		int u = __atomic_load_n(n & 1 ? &r->last[t] : &r->busy[t], __ATOMIC_SEQ_CST);

		if (u < 0) {
			usleep(50);
			continue;
		}
		if (!tail_write(r, u, buf))
			break;
		done++;
		if (!(n & 1) && __atomic_load_n(&r->busy[t], __ATOMIC_SEQ_CST) == u)
			r->tail_during++;
		usleep(200);
	}
	free(buf);
	return NULL;
}

static int open_target(struct run *r)
{
	int flags = O_RDWR | (r->cfg->direct ? O_DIRECT : 0);

	if (r->cfg->target == T_XFS)
		flags |= O_CREAT;
	r->fd = open(r->path, flags, 0644);
	return r->fd < 0 ? -errno : 0;
}

static int write_baseline(struct run *r)
{
	void *buf = atw_alloc(r->unit);
	unsigned int u;
	int ret = 0;

	r->base_gen = new_gen(r);
	for (u = 0; u < r->nunits && !ret; u++) {
		off_t off = r->base + (off_t)u * r->unit;

		atw_fill(buf, r->unit, off, r->base_gen);
		if (atw_pwrite(r->fd, buf, r->unit, off, 0) != (ssize_t)r->unit)
			ret = -EIO;
		r->ack_gen[u] = r->base_gen;
	}
	if (!ret && fsync(r->fd))
		ret = -errno;
	free(buf);
	return ret;
}

/* Power back, and the target reopened as a fresh boot would see it. */
static int recover(struct run *r)
{
	int i, ret;

	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->cfg->target == T_XFS) {
		/* Unmount with the power still off: nothing may reach the media. */
		for (i = 0; i < 50 && umount2(opt.mnt, 0); i++)
			usleep(100000);
		if (i == 50)
			return -errno;
	}
	ret = pcblk_set("restore", "1");
	if (ret)
		return ret;
	if (r->cfg->target == T_XFS) {
		if (mount(opt.dev, opt.mnt, "xfs", 0, NULL))
			return -errno;
	} else {
		int fd = open(opt.dev, O_RDONLY);

		if (fd >= 0) {
			ioctl(fd, BLKFLSBUF, 0);
			close(fd);
		}
	}
	return open_target(r);
}

static bool gen_of_unit(struct run *r, unsigned int u, uint64_t gen)
{
	if (gen == r->base_gen)
		return true;
	return gen > r->base_gen && gen - r->base_gen < r->ngen &&
	       r->gen_unit[gen - r->base_gen] == (int)u;
}

#define SECTOR_MIXED	((uint64_t)-1)	/* runs of bytes of several generations */
#define SECTOR_GARBAGE	((uint64_t)-2)	/* bytes no write to this unit carried */
#define MAX_RUNS	4

/*
 * A sector whose stamp does not verify may still consist of a few runs of
 * bytes each from one generation written to the unit: a buffered write
 * that changed the page while writeback was copying it (the disk does not
 * ask for stable pages). That is a tear inside the sector; anything else
 * is garbage. Greedy: at each byte take the generation matching longest.
 */
static uint64_t sector_mixed(struct run *r, unsigned int u, const unsigned char *p,
			     uint64_t off, uint64_t *oldest)
{
	unsigned char want[512];
	size_t i = 0, best, len;
	unsigned int k, runs = 0;
	uint64_t best_gen = 0;

	*oldest = UINT64_MAX;
	while (i < 512 && runs < MAX_RUNS) {
		best = 0;
		for (k = 0; k < r->ngen; k++) {
			if (k && r->gen_unit[k] != (int)u)
				continue;
			atw_fill(want, 512, off, r->base_gen + k);
			for (len = 0; i + len < 512 && want[i + len] == p[i + len]; len++)
				;
			if (len > best) {
				best = len;
				best_gen = r->base_gen + k;
			}
		}
		if (!best)
			break;
		*oldest = best_gen < *oldest ? best_gen : *oldest;
		i += best;
		runs++;
	}
	return i == 512 ? SECTOR_MIXED : SECTOR_GARBAGE;
}

/* The generation of one sector, SECTOR_MIXED or SECTOR_GARBAGE. */
static uint64_t sector_gen(struct run *r, unsigned int u, const unsigned char *p,
			   uint64_t off, uint64_t *oldest)
{
	uint64_t g;

	if (sector_stamp(p, off, &g) && gen_of_unit(r, u, g)) {
		*oldest = g;
		return g;
	}
	return sector_mixed(r, u, p, off, oldest);
}

/*
 * The device's record of the writes that touched a unit (the last 1024
 * writes of PCBLK_DIR/log), for a tear where none may be.
 */
static void dump_unit_log(struct run *r, off_t off)
{
	static char buf[1 << 17];
	uint64_t phys, first, last;
	char *line, *save;

	if (r->cfg->target == T_XFS) {
		if (atw_file_phys(r->fd, off, &phys))
			return;
	} else {
		phys = off;
	}
	first = phys / 512;
	last = (phys + r->unit) / 512;
	if (pcblk_get("log", buf, sizeof(buf)))
		return;
	diag("  device writes over sectors %llu..%llu (seq power op sector+bytes flags state):",
	     (unsigned long long)first, (unsigned long long)last - 1);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long seq, sec;
		unsigned int pw, len;

		if (sscanf(line, "%llu p%u WRITE %llu+%u", &seq, &pw, &sec, &len) == 4 &&
		    sec < last && sec + len / 512 > first)
			diag("  %s", line);
	}
}

/*
 * Classifies every unit: whole (one generation), torn (sectors of several
 * generations, or sectors mixing them), or bad (unreadable, or bytes no
 * write to this unit carried); and lost if any sector is older than the
 * unit's last acknowledged write. In a mixed case only the head (the
 * sectors before the tail) is judged whole or torn, and lost; the tail
 * must only hold what was written to it. Returns the torn units of this
 * round.
 */
static unsigned long verify_units(struct run *r, unsigned int round)
{
	unsigned char *buf = atw_alloc(r->unit);
	unsigned long torn = 0;
	unsigned int u, shown = 0;

	for (u = 0; u < r->nunits; u++) {
		off_t off = r->base + (off_t)u * r->unit;
		ssize_t ret = atw_pread(r->fd, buf, r->unit, off);
		uint64_t first = 0, prev = 0, g, oldest, unit_oldest = UINT64_MAX;
		bool whole = true, garbage = false;
		unsigned int mixed = 0;
		char gens[256] = "";
		size_t i, n = 0;

		r->checked++;
		if (ret != (ssize_t)r->unit) {
			r->bad++;
			diag("%s cut %u: unit %u at %lld: read returned %zd", r->cfg->name,
			     round, u, (long long)off, ret);
			continue;
		}
		for (i = 0; i < r->unit; i += 512) {
			g = sector_gen(r, u, buf + i, off + i, &oldest);
			if (g == SECTOR_GARBAGE) {
				garbage = true;
				break;
			}
			/* A mixed case's tail: anything written to it. */
			if (i >= r->unit - r->tail)
				continue;
			mixed += g == SECTOR_MIXED;
			if (i == 0)
				first = g;
			if (g != first || g == SECTOR_MIXED)
				whole = false;
			unit_oldest = oldest < unit_oldest ? oldest : unit_oldest;
			/* "sector:gen" at each change, for the diagnostics. */
			if ((i == 0 || g != prev || g == SECTOR_MIXED) && n < sizeof(gens) - 24) {
				if (g == SECTOR_MIXED)
					n += snprintf(gens + n, sizeof(gens) - n, " %zu:mixed", i / 512);
				else
					n += snprintf(gens + n, sizeof(gens) - n, " %zu:+%llu", i / 512,
						      (unsigned long long)(g - r->base_gen));
			}
			prev = g;
		}
		if (garbage) {
			struct stamp st;

			memcpy(&st, buf + i, sizeof(st));
			r->bad++;
			diag("%s cut %u: unit %u at %lld: sector %zu holds no write to this unit (stamp off %llu gen %llu magic %#llx)",
			     r->cfg->name, round, u, (long long)off, i / 512,
			     (unsigned long long)st.off, (unsigned long long)st.gen,
			     (unsigned long long)st.magic);
			continue;
		}
		if (unit_oldest < r->ack_gen[u]) {
			r->lost++;
			diag("%s cut %u: unit %u holds gen +%llu, older than acknowledged gen +%llu",
			     r->cfg->name, round, u,
			     (unsigned long long)(unit_oldest - r->base_gen),
			     (unsigned long long)(r->ack_gen[u] - r->base_gen));
		}
		if (whole)
			continue;
		torn++;
		r->mixed += mixed > 0;
		/* Every tear where none may be, a sample otherwise. */
		if (r->cfg->expect == E_UNTORN || opt.verbose ||
		    (opt.cuts <= 8 && shown++ < 2))
			diag("%s cut %u: unit %u torn: sector:generation (baseline +0)%s",
			     r->cfg->name, round, u, gens);
		if (r->cfg->expect == E_UNTORN)
			dump_unit_log(r, off);
	}
	free(buf);
	r->torn += torn;
	return torn;
}

static void parse_last_cut(unsigned long *torn, unsigned long *inflight,
			   char *line, size_t size)
{
	char *p;

	*torn = *inflight = 0;
	if (pcblk_get("last_cut", line, size))
		return;
	p = strstr(line, " torn=");
	if (p)
		*torn = strtoul(p + 6, NULL, 10);
	p = strstr(line, " inflight=");
	if (p)
		*inflight = strtoul(p + 10, NULL, 10);
}

static int one_round(struct run *r, unsigned int round)
{
	struct writer *w = calloc(opt.threads, sizeof(*w));
	pthread_t *tid = calloc(opt.threads, sizeof(*tid));
	pthread_t otid;
	unsigned long ok = 0, eio = 0, torn, dtorn, dinfl;
	long long a0, a1, w0, w1;
	uint64_t s = opt.seed ^ ((uint64_t)r->cfg_idx << 40) ^ round;
	unsigned int t, cut_at;
	char last[256];
	int ret;

	ret = write_baseline(r);
	if (ret) {
		check(0, "%s cut %u: baseline written and synced (%s)", r->cfg->name,
		      round, strerror(-ret));
		return ret;
	}
	r->round_seed = mix64(&s);
	/*
	 * Anywhere in the stream of device writes: as many as write calls
	 * at first, then as many as a stream that ended uncut produced
	 * (buffered writes reach the device merged, at writeback).
	 */
	cut_at = 1 + r->round_seed % r->stream_est;
	if (pcblk_set("seed", "%llu", (unsigned long long)r->round_seed) ||
	    pcblk_set("cut_after", "%u", cut_at))
		tap_bail("cannot arm the cut in " PCBLK_DIR);
	a0 = pcblk_stat("atomic_writes");
	w0 = pcblk_writes();

	for (t = 0; t < opt.threads; t++)
		r->busy[t] = r->last[t] = -1;
	r->stop = false;
	if (r->cfg->mix == X_MMAP) {
		r->map = mmap(NULL, (size_t)r->nunits * r->unit, PROT_READ | PROT_WRITE,
			      MAP_SHARED, r->fd, 0);
		if (r->map == MAP_FAILED)
			tap_bail("%s: mmap of %s: %s", r->cfg->name, r->path, strerror(errno));
	}
	for (t = 0; t < opt.threads; t++) {
		w[t] = (struct writer){ .r = r, .id = t,
					.nwrites = opt.writes / opt.threads };
		pthread_create(&tid[t], NULL, writer_main, &w[t]);
	}
	if (r->cfg->mix != X_NONE)
		pthread_create(&otid, NULL, overwriter_main, r);
	for (t = 0; t < opt.threads; t++) {
		pthread_join(tid[t], NULL);
		ok += w[t].ok;
		eio += w[t].eio;
		r->ok += w[t].ok;
		r->acked += w[t].acked;
		r->failed_eio += w[t].eio;
		r->failed_other += w[t].other;
		r->atomic_ok += w[t].atomic_ok;
		r->sync_eio += w[t].sync_eio;
		if (w[t].other)
			diag("%s cut %u: writer %u failed with %s", r->cfg->name, round,
			     t, strerror(w[t].first_err));
	}
	if (r->cfg->mix != X_NONE) {
		__atomic_store_n(&r->stop, true, __ATOMIC_SEQ_CST);
		pthread_join(otid, NULL);
	}
	if (r->map) {
		munmap(r->map, (size_t)r->nunits * r->unit);
		r->map = NULL;
	}
	w1 = pcblk_writes();
	if (pcblk_powered()) {
		r->notcut++;
		if (w1 > w0)
			r->stream_est = w1 - w0;
		pcblk_set("cut", "now");
	} else {
		r->midstream++;
	}
	a1 = pcblk_stat("atomic_writes");
	if (a0 >= 0 && a1 >= a0)
		r->dev_atomic += a1 - a0;
	parse_last_cut(&dtorn, &dinfl, last, sizeof(last));
	r->dev_torn += dtorn;
	r->dev_inflight += dinfl;

	ret = recover(r);
	if (ret) {
		check(0, "%s cut %u: power restored and %s reopened (%s)", r->cfg->name,
		      round, r->cfg->target == T_XFS ? "XFS remounted," : "the device",
		      strerror(-ret));
		free(w);
		free(tid);
		return ret;
	}
	torn = verify_units(r, round);
	if (opt.verbose || opt.cuts <= 8 || (torn && r->cfg->expect == E_UNTORN))
		diag("%s cut %u: seed %#llx cut_after %u: %lu ok, %lu EIO; device: %s; torn units %lu",
		     r->cfg->name, round, (unsigned long long)r->round_seed, cut_at,
		     ok, eio, last, torn);
	free(w);
	free(tid);
	return 0;
}

/* Why the configuration cannot run here, or NULL. Sets unit. */
static const char *config_skip(struct run *r, char *why, size_t size)
{
	const struct pc_config *c = r->cfg;
	struct atw_limits l;
	struct statfs sfs;
	int ret;

	if (c->target == T_XFS) {
		if (!opt.mnt)
			return "no XFS mount given (-m)";
		if (statfs(opt.mnt, &sfs) || sfs.f_type != XFS_SUPER_MAGIC)
			return "the -m directory is not an XFS mount";
		r->unit = sfs.f_bsize;
	}
	if ((c->needs & N_WRITETHROUGH) && !PC_RWF_WT)
		return "the uapi headers define no RWF_WRITETHROUGH";
	ret = atw_statx_limits(-1, c->target == T_XFS ? r->path : opt.dev, &l);
	if (ret) {
		snprintf(why, size, "statx: %s", strerror(-ret));
		return why;
	}
	if (c->target == T_RAW) {
		r->unit = RAW_UNIT;
		if (l.dio && r->unit < l.dio_min)
			r->unit = l.dio_min;
		if (l.dio && r->unit > l.dio_max)
			r->unit = l.dio_max;
	}
	if ((c->needs & N_DIO_ATOMIC) &&
	    (!l.dio || r->unit < l.dio_min || r->unit > l.dio_max)) {
		snprintf(why, size, "statx advertises no DIO atomic write of %zu bytes (%s [%u..%u])",
			 r->unit, l.dio ? "limits" : "none", l.dio_min, l.dio_max);
		return why;
	}
	if ((c->needs & N_BUF_ATOMIC) &&
	    (!l.buf || r->unit < l.buf_min || r->unit > l.buf_max)) {
		snprintf(why, size, "statx advertises no buffered atomic write of %zu bytes (%s)",
			 r->unit, !l.buf_known ? "uapi has no STATX_WRITE_ATOMIC_BUF" :
			 l.buf ? "outside its limits" : "none");
		return why;
	}
	if (c->expect == E_TORN && r->unit <= r->lbs)
		return "a one-block unit cannot tear at block boundaries on this disk";
	return NULL;
}

/*
 * One write of the configuration's kind before the rounds. Buffered
 * RWF_ATOMIC without RWF_WRITETHROUGH is refused on the write-through
 * design (EOPNOTSUPP) even though statx advertises buffered atomic limits:
 * that is the design's rule, so it is a skip. Any other failure of an
 * advertised write is a failure.
 */
static int probe_write(struct run *r, char *why, size_t size)
{
	const struct pc_config *c = r->cfg;
	void *buf = atw_alloc(r->unit);
	ssize_t ret;

	atw_fill(buf, r->unit, r->base, 0);
	ret = atw_pwrite(r->fd, buf, r->unit, r->base, c->rwf);
	free(buf);
	if (ret == (ssize_t)r->unit)
		return 0;
	if (ret == -EOPNOTSUPP && PC_RWF_WT && !c->direct &&
	    (c->rwf & RWF_ATOMIC) && !(c->rwf & PC_RWF_WT)) {
		snprintf(why, size, "buffered RWF_ATOMIC without RWF_WRITETHROUGH is refused here (EOPNOTSUPP)");
		return 1;
	}
	check(0, "%s: a first %zu-byte write with flags %#x succeeds (%s)", c->name,
	      r->unit, c->rwf, strerror(ret < 0 ? (int)-ret : EIO));
	return -1;
}

static void summary(struct run *r, const char *result, const char *why)
{
	printf("# powercut: config=%s dev=%s lbs=%u unit=%zu cuts=%u midstream=%lu writes=%lu acked=%lu eio=%lu torn=%lu mixed=%lu lost=%lu bad=%lu tailw=%lu during=%lu expect=%s result=%s%s%s%s\n",
	       r->cfg->name, opt.dev, r->lbs, r->unit, r->rounds,
	       r->midstream, r->ok, r->acked, r->failed_eio + r->sync_eio,
	       r->torn, r->mixed, r->lost, r->bad, r->tail_writes, r->tail_during,
	       r->cfg->expect == E_UNTORN ? "untorn" : r->cfg->expect == E_TORN ? "torn" : "info",
	       result, why ? " reason=\"" : "", why ? why : "",
	       why ? "\"" : "");
}

static bool run_config(const struct pc_config *c, int idx)
{
	/* Generations are unique across rounds and configurations. */
	struct run r = { .cfg = c, .cfg_idx = idx, .fd = -1,
			 .next_gen = ((uint64_t)idx << 40) + 1 };
	const char *why;
	char whybuf[192];
	unsigned int round;
	bool pass = true;
	long long v;

	v = atw_disk_queue_attr(opt.dev, "logical_block_size");
	r.lbs = v > 0 ? v : 512;
	r.nunits = NR_UNITS;
	if (c->target == T_XFS)
		snprintf(r.path, sizeof(r.path), "%s/powercut-%s.dat",
			 opt.mnt ? opt.mnt : ".", c->name);
	else
		snprintf(r.path, sizeof(r.path), "%s", opt.dev);
	r.base = c->target == T_RAW ? RAW_BASE : 0;

	/* Files must exist for statx to describe them. */
	if (c->target == T_XFS && opt.mnt && open_target(&r) == 0) {
		close(r.fd);
		r.fd = -1;
	}
	why = config_skip(&r, whybuf, sizeof(whybuf));
	if (!why && open_target(&r))
		why = "cannot open the target";
	if (!why) {
		int ret = probe_write(&r, whybuf, sizeof(whybuf));

		if (ret < 0) {
			summary(&r, "fail", "the first write failed");
			close(r.fd);
			return false;
		}
		if (ret > 0)
			why = whybuf;
	}
	if (why) {
		skip(why, "%s: %s", c->name, c->what);
		summary(&r, "skip", why);
		if (r.fd >= 0)
			close(r.fd);
		return true;
	}
	if (!pcblk_powered())
		pcblk_set("restore", "1");

	r.ngen = opt.writes + 2 * opt.threads + 2;
	if (c->mix != X_NONE) {
		r.tail = r.unit / 4 < 512 ? 512 : r.unit / 4;
		r.ngen += 2 * opt.writes;	/* the tail writes' */
		signal(SIGBUS, on_sigbus);
	}
	r.stream_est = opt.writes;
	r.ack_gen = calloc(r.nunits, sizeof(*r.ack_gen));
	r.gen_unit = calloc(r.ngen, sizeof(*r.gen_unit));
	r.busy = calloc(opt.threads, sizeof(*r.busy));
	r.last = calloc(opt.threads, sizeof(*r.last));
	diag("%s: %s; %u units of %zu bytes on %s (lbs %u), %u writes x %u threads per cut, seed %#llx",
	     c->name, c->what, r.nunits, r.unit, r.path, r.lbs, opt.writes,
	     opt.threads, opt.seed);

	/*
	 * A negative control gets up to four times the cuts until it sees a
	 * tear: a few cuts can all land where no plain write was in the
	 * volatile cache, and a checker blind to tears sees none in any.
	 */
	for (round = 1; round <= opt.cuts ||
	     (c->expect == E_TORN && !r.torn && round <= 4 * opt.cuts); round++) {
		memset(r.gen_unit, 0xff, r.ngen * sizeof(*r.gen_unit));
		if (one_round(&r, round)) {
			r.broken = true;
			break;
		}
		r.rounds++;
	}
	if (r.fd >= 0)
		close(r.fd);

	pass &= check(!r.broken, "%s: %u of %u cuts, each followed by a restore and a full re-read",
		      c->name, r.rounds, opt.cuts);
	pass &= check(!r.failed_other, "%s: writes failed only with EIO after the cut (%lu other failures)",
		      c->name, r.failed_other);
	pass &= check(!r.bad, "%s: every unit holds a generation written to it (%lu bad)",
		      c->name, r.bad);
	pass &= check(!r.lost, "%s: no acknowledged-durable write lost (%lu acknowledged, %lu lost)",
		      c->name, r.acked, r.lost);
	if (c->expect == E_UNTORN)
		pass &= check(!r.torn, "%s: no torn unit (%lu units checked, %lu torn)",
			      c->name, r.checked, r.torn);
	else if (c->expect == E_TORN)
		pass &= check(r.torn > 0, "%s (negative control): the checker sees torn units (%lu of %lu; device tore %lu writes)",
			      c->name, r.torn, r.checked, r.dev_torn);
	else
		diag("%s: %lu torn units of %lu (not judged: plain writes)", c->name,
		     r.torn, r.checked);
	/*
	 * A write can complete at the device and still fail the call (the
	 * RWF_DSYNC flush after it meets the cut), so the device count lies
	 * between the calls that succeeded and those that were issued.
	 */
	if (c->direct && (c->rwf & RWF_ATOMIC))
		pass &= check(r.dev_atomic >= r.atomic_ok &&
			      r.dev_atomic <= r.atomic_ok + r.failed_eio,
			      "%s: one REQ_ATOMIC write at the device per RWF_ATOMIC call (%lu at the device, %lu calls succeeded, %lu failed)",
			      c->name, r.dev_atomic, r.atomic_ok, r.failed_eio);
	if (c->mix != X_NONE) {
		pass &= check(r.tail_writes > 0, "%s: the tails were overwritten (%lu %s of %zu bytes, %lu during an atomic write of the unit)",
			      c->name, r.tail_writes, c->mix == X_MMAP ? "mmap stores" : "plain writes",
			      r.tail, r.tail_during);
		if (r.tail_failed || r.tail_sigbus)
			diag("%s: %lu tail writes failed, %lu stores got SIGBUS (after the cut)",
			     c->name, r.tail_failed, r.tail_sigbus);
	}
	if (r.midstream < opt.cuts)
		diag("%s: %lu of %u cuts landed mid-stream (%lu at the end of the stream)",
		     c->name, r.midstream, opt.cuts, r.notcut);
	summary(&r, pass ? "pass" : "fail", NULL);
	free(r.ack_gen);
	free(r.gen_unit);
	free(r.busy);
	free(r.last);
	return pass;
}

/* ---- the device model itself --------------------------------------- */

static int dev_fd;
static unsigned int dev_lbs;

static void dev_put(off_t off, size_t len, uint64_t gen, int rwf)
{
	void *buf = atw_alloc(len);

	atw_fill(buf, len, off, gen);
	if (atw_pwrite(dev_fd, buf, len, off, rwf) != (ssize_t)len)
		tap_bail("write of %zu bytes at %lld (flags %#x)", len, (long long)off, rwf);
	free(buf);
}

/* The generation of every block of [off, off + len), -1 where unstamped. */
static int dev_gens(off_t off, size_t len, uint64_t *gens)
{
	void *buf = atw_alloc(len);
	ssize_t ret = atw_pread(dev_fd, buf, len, off);
	size_t b;

	for (b = 0; ret == (ssize_t)len && b < len / dev_lbs; b++) {
		const char *p = (const char *)buf + b * dev_lbs;
		uint64_t g;

		gens[b] = sector_stamp(p, off + b * dev_lbs, &g) &&
			  atw_verify(p, dev_lbs, off + b * dev_lbs, g) ? g : (uint64_t)-1;
	}
	free(buf);
	return ret == (ssize_t)len ? 0 : (int)ret;
}

static bool dev_is(off_t off, size_t len, uint64_t gen)
{
	void *buf = atw_alloc(len);
	bool ok = atw_pread(dev_fd, buf, len, off) == (ssize_t)len &&
		  atw_verify(buf, len, off, gen);

	free(buf);
	return ok;
}

static void dev_cycle(void)
{
	if (pcblk_set("cut", "now"))
		tap_bail("cut now");
	if (pcblk_set("restore", "1"))
		tap_bail("restore");
}

static void dev_tunables(unsigned int survive, unsigned int tear)
{
	if (pcblk_set("survive_pct", "%u", survive) || pcblk_set("tear_pct", "%u", tear))
		tap_bail("cannot set survive_pct/tear_pct");
}

static void dev_limits(void)
{
	long long umin = atw_disk_queue_attr(opt.dev, "atomic_write_unit_min_bytes");
	long long umax = atw_disk_queue_attr(opt.dev, "atomic_write_unit_max_bytes");
	long long fua = atw_disk_queue_attr(opt.dev, "fua");
	char wc[32] = "", path[128];
	struct atw_limits l;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/write_cache",
		 strrchr(opt.dev, '/') + 1);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wc, sizeof(wc), f))
			wc[0] = '\0';
		fclose(f);
	}
	diag("%s: lbs %u, atomic unit [%lld..%lld], fua %lld, write_cache %s", opt.dev,
	     dev_lbs, umin, umax, fua, wc);
	check(umin >= dev_lbs && umax >= umin && atw_is_pow2(umin) && atw_is_pow2(umax),
	      "sysfs advertises atomic unit min/max as powers of two >= one block");
	check(!strncmp(wc, "write back", 10) && fua == 1,
	      "sysfs advertises a volatile write cache with FUA");
	check(!atw_statx_limits(-1, opt.dev, &l) && l.dio && l.dio_min == umin &&
	      l.dio_max == umax, "statx(STATX_WRITE_ATOMIC) on the device matches sysfs");
}

static void dev_cache_model(void)
{
	off_t a = 0, b = 4 * 16384;
	size_t unit = 4 * dev_lbs;
	uint64_t g[64];
	unsigned int i, old = 0, new = 0, other = 0;
	void *w = atw_alloc(dev_lbs);
	char buf[256];

	dev_tunables(0, 0);
	dev_put(a, dev_lbs, 1, 0);
	check(!fdatasync(dev_fd), "fdatasync after a write returns 0");
	dev_put(a, dev_lbs, 2, 0);
	check(dev_is(a, dev_lbs, 2), "before the cut, reads see the unflushed write");
	check(!pcblk_set("cut", "now") && !pcblk_powered(), "cut now: power off");
	check(atw_pread(dev_fd, w, dev_lbs, a) == -EIO, "a read after the cut fails with EIO");
	check(atw_pwrite(dev_fd, w, dev_lbs, a, 0) == -EIO, "a write after the cut fails with EIO");
	check(fdatasync(dev_fd) == -1 && errno == EIO, "a flush after the cut fails with EIO");
	check(!pcblk_set("restore", "1") && pcblk_powered(), "restore: power on");
	check(dev_is(a, dev_lbs, 1), "survive_pct=0: the unflushed write is gone, the flushed one stays");

	dev_put(a, dev_lbs, 3, RWF_DSYNC);
	dev_cycle();
	check(dev_is(a, dev_lbs, 3), "an RWF_DSYNC (FUA) write survives the cut");

	dev_tunables(100, 0);
	dev_put(a, dev_lbs, 4, 0);
	dev_cycle();
	check(dev_is(a, dev_lbs, 4), "survive_pct=100: the unflushed write survives whole");

	/* Tears: a plain multi-block write lands in part; an atomic one never. */
	dev_tunables(0, 100);
	dev_put(b, unit, 10, 0);
	fdatasync(dev_fd);
	dev_put(b, unit, 11, 0);
	dev_cycle();
	if (!dev_gens(b, unit, g))
		for (i = 0; i < unit / dev_lbs; i++) {
			old += g[i] == 10;
			new += g[i] == 11;
			other += g[i] != 10 && g[i] != 11;
		}
	check(old && new && !other, "tear_pct=100: a plain %zu-byte write lands torn at block boundaries (%u old, %u new blocks)",
	      unit, old, new);
	dev_put(b, unit, 12, RWF_ATOMIC);
	fdatasync(dev_fd);
	dev_put(b, unit, 13, RWF_ATOMIC);
	dev_cycle();
	check(dev_is(b, unit, 12), "tear_pct=100, survive_pct=0: an atomic write is lost whole, never torn");
	dev_tunables(100, 100);
	dev_put(b, unit, 14, RWF_ATOMIC);
	dev_cycle();
	check(dev_is(b, unit, 14), "survive_pct=100: an atomic write survives whole");

	/* An unflushed write followed by a FUA write to the same block. */
	dev_tunables(100, 0);
	dev_put(a, dev_lbs, 20, 0);
	dev_put(a, dev_lbs, 21, RWF_DSYNC);
	dev_cycle();
	check(dev_is(a, dev_lbs, 21), "an older unflushed write surviving does not overwrite a later FUA write");

	check(!pcblk_get("last_cut", buf, sizeof(buf)) && !strncmp(buf, "how=now", 7),
	      "last_cut reports the cut (%s)", buf);
	free(w);
}

/* The same log and the same seed resolve the same way. */
static void dev_replay(void)
{
	size_t unit = 4 * dev_lbs, span = 32 * unit;
	off_t base = 1 << 20;
	void *snap[2];
	unsigned int pass, i;

	dev_tunables(50, 50);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 32; i++)
			dev_put(base + i * unit, unit, 100, 0);
		fdatasync(dev_fd);
		for (i = 0; i < 64; i++)
			dev_put(base + (i * 7 % 32) * unit, unit, 101 + i, 0);
		pcblk_set("seed", "12345");
		dev_cycle();
		snap[pass] = atw_alloc(span);
		if (atw_pread(dev_fd, snap[pass], span, base) != (ssize_t)span)
			tap_bail("read back the replay area");
	}
	check(!memcmp(snap[0], snap[1], span), "the same writes cut with the same seed leave the same media");
	free(snap[0]);
	free(snap[1]);
}

static void dev_cut_after(void)
{
	void *w = atw_alloc(dev_lbs);
	ssize_t ret[5];
	char buf[256];
	unsigned int i;

	dev_tunables(50, 50);
	check(!pcblk_set("cut_after", "3"), "cut_after 3 arms");
	for (i = 0; i < 5; i++) {
		atw_fill(w, dev_lbs, 2 << 20, 200 + i);
		ret[i] = atw_pwrite(dev_fd, w, dev_lbs, (2 << 20) + i * dev_lbs, 0);
	}
	check(ret[0] == dev_lbs && ret[1] == dev_lbs && ret[2] == dev_lbs &&
	      ret[3] == -EIO && ret[4] == -EIO,
	      "cut_after 3: three writes complete, the next ones fail with EIO (%zd %zd %zd %zd %zd)",
	      ret[0], ret[1], ret[2], ret[3], ret[4]);
	check(!pcblk_powered(), "cut_after: the power is off");
	check(!pcblk_get("last_cut", buf, sizeof(buf)) && strstr(buf, "how=after") &&
	      strstr(buf, "inflight=1"), "last_cut: a cut_after cut with one write caught in flight (%s)", buf);
	check(!pcblk_set("restore", "1") && pcblk_powered(), "restore after cut_after");
	free(w);
}

static void dev_reject(void)
{
	long long umin = atw_disk_queue_attr(opt.dev, "atomic_write_unit_min_bytes");
	long long umax = atw_disk_queue_attr(opt.dev, "atomic_write_unit_max_bytes");
	long long r0, m0, p0;
	char cmd[64];
	int ret;

	r0 = pcblk_stat("rejected_atomic");
	m0 = pcblk_stat("rej_misaligned");
	p0 = pcblk_stat("rej_not_pow2");
	ret = pcblk_set("inject_atomic", "0 %lld", umin);
	check(!ret, "a valid in-kernel REQ_ATOMIC bio of %lld bytes completes (%s)", umin,
	      strerror(-ret));
	ret = pcblk_set("inject_atomic", "%lld %lld", umin, 2 * umin);
	check(ret == -EINVAL && pcblk_stat("rej_misaligned") == m0 + 1,
	      "a misaligned REQ_ATOMIC bio reaches the driver and fails with EINVAL (%s)",
	      strerror(-ret));
	if (umax >= 4 * umin) {
		ret = pcblk_set("inject_atomic", "0 %lld", 3 * umin);
		check(ret == -EINVAL && pcblk_stat("rej_not_pow2") == p0 + 1,
		      "a non-power-of-two REQ_ATOMIC bio fails with EINVAL in the driver (%s)",
		      strerror(-ret));
	} else {
		skip("unit max < 4 x unit min", "non-power-of-two REQ_ATOMIC bio");
	}
	check(pcblk_stat("rejected_atomic") == r0 + 1 + (umax >= 4 * umin),
	      "the driver counts every rejected atomic write");
	snprintf(cmd, sizeof(cmd), "0 %lld", 2 * umax);
	ret = pcblk_set("inject_atomic", "%s", cmd);
	diag("a REQ_ATOMIC bio above unit max: %s, %s", strerror(-ret),
	     pcblk_stat("rejected_atomic") == r0 + 1 + (umax >= 4 * umin) ?
	     "stopped by the block layer before the driver" : "rejected by the driver");
	check(ret == -EINVAL, "a REQ_ATOMIC bio above unit max fails with EINVAL");
}

static void dev_log(void)
{
	static char buf[1 << 16];
	int fd = open(PCBLK_DIR "/log", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	check(n > 0 && strstr(buf, "ATOMIC") && strstr(buf, "FUA") && strstr(buf, "FLUSH") &&
	      strstr(buf, " durable") && strstr(buf, " rejected") && strstr(buf, " torn"),
	      "the log shows ATOMIC, FUA and FLUSH records, durable, torn and rejected writes");
}

static bool run_device(void)
{
	long long v = atw_disk_queue_attr(opt.dev, "logical_block_size");
	char seed[32] = "";

	dev_lbs = v > 0 ? v : 512;
	if (access(PCBLK_DIR "/cut", W_OK))
		tap_bail("%s: no pcblk control directory (%s)", PCBLK_DIR, strerror(errno));
	if (!pcblk_powered())
		pcblk_set("restore", "1");
	dev_fd = open(opt.dev, O_RDWR | O_DIRECT);
	if (dev_fd < 0)
		tap_bail("open %s: %s", opt.dev, strerror(errno));
	pcblk_get("seed", seed, sizeof(seed));
	dev_limits();
	dev_cache_model();
	dev_replay();
	dev_cut_after();
	dev_reject();
	dev_log();
	dev_tunables(50, 50);
	pcblk_set("seed", "%s", seed);
	close(dev_fd);
	return true;
}

/* ---- main ---------------------------------------------------------- */

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: powercut_check [-n CUTS] [-w WRITES] [-t THREADS] [-k SYNC_EVERY]\n"
		   "       [-S SEED] [-d DEV] [-m MNT] [-v] CONFIG...\n"
		   "  -n cuts per configuration (default %u; the full run uses 200)\n"
		   "  -w writes per cut (default %u), -t writer threads (default %u)\n"
		   "  -k fdatasync every k writes per thread (default %u)\n"
		   "  -S seed (default %#llx), -d device (default %s), -m XFS mount on it\n"
		   "  -v every round and every tear; a round's device seed is printed so that\n"
		   "     a cut can be replayed (-t 1 makes the write stream deterministic)\n"
		   "configurations (raw, xfs: all of that kind):\n",
		opt.cuts, opt.writes, opt.threads, opt.sync_every, opt.seed, opt.dev);
	for (i = 0; i < ARRAY_SIZE(configs); i++)
		fprintf(f, "  %-20s %s\n", configs[i].name, configs[i].what);
}

int main(int argc, char **argv)
{
	size_t i;
	int c, a;
	bool any;

	while ((c = getopt(argc, argv, "n:w:t:k:S:d:m:vh")) != -1) {
		switch (c) {
		case 'n':
			opt.cuts = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			opt.writes = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.threads = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			opt.sync_every = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			opt.dev = optarg;
			break;
		case 'm':
			opt.mnt = optarg;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || !opt.cuts || !opt.threads || !opt.sync_every ||
	    opt.writes < opt.threads) {
		usage(stderr);
		return 2;
	}
	tap_start("powercut_check");
	if (access(PCBLK_DIR "/cut", W_OK))
		tap_bail("%s: no pcblk control directory (%s)", PCBLK_DIR, strerror(errno));
	for (a = optind; a < argc; a++) {
		any = false;
		for (i = 0; i < ARRAY_SIZE(configs); i++) {
			const struct pc_config *cf = &configs[i];
			size_t n = strlen(argv[a]);

			/* "raw" and "xfs" name every configuration of that kind. */
			if (strcmp(argv[a], cf->name) &&
			    !(cf->target != T_DEVICE && n == 3 &&
			      !strncmp(argv[a], cf->name, n) && cf->name[n] == '-'))
				continue;
			any = true;
			if (cf->target == T_DEVICE)
				run_device();
			else
				run_config(cf, i);
		}
		if (!any)
			tap_bail("unknown configuration '%s' (-h lists them)", argv[a]);
	}
	return tap_done();
}
