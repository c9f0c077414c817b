// SPDX-License-Identifier: GPL-2.0
/*
 * pcblk - a RAM-backed blk-mq disk with a volatile write cache, hardware
 * atomic write limits and a power-cut switch, for checking that atomic
 * (untorn) writes survive a power failure whole or not at all.
 *
 * Model
 * -----
 * The disk has two stores: the "cache" (what reads see while the power is
 * on: every completed write) and the "media" (what survives a power cut).
 * Between them sits the volatile write log: every completed write that is
 * not yet durable, in completion order, with a copy of its data.
 *
 *  - REQ_OP_FLUSH and REQ_PREFLUSH make every write completed before them
 *    durable (the log is applied to the media in order and emptied).
 *  - A REQ_FUA write is durable when it completes; it stays in the log in
 *    its place (marked durable) when older unflushed writes precede it, so
 *    that replaying the log keeps the order of overlapping writes.
 *  - When the log holds more than cache_mb MiB the oldest writes are
 *    destaged to the media, as a drive's cache does on its own.
 *  - A power cut ("cut" or "cut_after" in debugfs) resolves the log into
 *    the media in order: durable writes land whole; each other write
 *    independently lands whole (survive_pct), or, if it is not REQ_ATOMIC
 *    and spans more than one logical block, torn (tear_pct of the rest:
 *    a random prefix or a random proper subset of its logical blocks), or
 *    not at all. A REQ_ATOMIC write lands whole or not at all, and so does
 *    a REQ_META one unless meta_tear is set: XFS assumes a metadata block
 *    reaches the disk whole -- log recovery skips a block whose header
 *    (first sector) carries a newer LSN than the log item, then fails on
 *    the block's CRC (EFSCORRUPTED, "log mount failed"); the harness
 *    checks data, not that assumption (docs/findings.md). The choices
 *    come from a splitmix64 stream seeded with "seed", so the resolution of
 *    a given log is replayable; the seed then advances for the next cut.
 *  - A cut armed with cut_after lands mid-stream: after N more writes
 *    complete the power goes, and the next cut_inflight write requests are
 *    treated as caught in flight: they fail, but their data may have
 *    reached the media by the same rule (whole/torn/none; atomic: whole or
 *    none).
 *  - While the power is off every request fails with BLK_STS_IOERR
 *    (quietly). "restore" powers the disk back on: the media is the
 *    content and I/O works again.
 *
 * REQ_ATOMIC writes that are misaligned, not a power of two, outside
 * [unit min, unit max] or crossing the atomic boundary are rejected with
 * BLK_STS_INVAL, as hardware would, and counted. Requests are handled
 * synchronously in ->queue_rq (a blocking hctx) under one mutex; memory is
 * allocated in a NOIO scope so that no lock of ours nests inside reclaim.
 *
 * Performance model (off by default: every request then completes in
 * ->queue_rq). With lat_us, mbps, flush_us or flush_mbps set, a request's
 * effect on the stores is still immediate, but its completion is held back
 * (an hrtimer per request) until the time the model gives, as a drive with
 * a volatile cache behaves:
 *  - reads and writes: a fixed command latency (lat_us) after their
 *    transfer, which shares one channel of mbps MB/s (transfers queue
 *    behind each other; the latencies overlap, up to the queue depth);
 *  - a flush that finds unflushed (not FUA) data costs flush_us plus that
 *    data at flush_mbps MB/s (the media's program rate), after the last
 *    write before it completes; one that finds none costs only lat_us
 *    (the block layer turns a write's PREFLUSH into a flush of its own, so
 *    pcblk sees flushes only as REQ_OP_FLUSH);
 *  - a FUA write pays the same for its own data on top of its write.
 * A held completion whose timer fires after a cut, or after a cut and a
 * restore, fails (BLK_STS_IOERR): the power cycle is one generation word,
 * bumped by both. A completion that fires just before a cut succeeds, as
 * a real drive's would; the writes it reports were durable (FUA, flush)
 * or were allowed to be lost anyway. With the model on, the write that
 * arms a cut_after cut is one of these: handled, then failed.
 *
 * Control: /sys/kernel/debug/pcblk/{cut,cut_after,restore,seed,log,stats,
 * last_cut,inject_atomic,survive_pct,tear_pct,cut_inflight,meta_tear}.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

static unsigned int lbs = 4096;
module_param(lbs, uint, 0444);
MODULE_PARM_DESC(lbs, "Logical block size: 512 or 4096 (default 4096)");

static unsigned int size_mb = 320;
module_param(size_mb, uint, 0444);
MODULE_PARM_DESC(size_mb, "Capacity in MiB (default 320; memory is allocated on first write)");

static unsigned int atomic_unit_min;
module_param(atomic_unit_min, uint, 0444);
MODULE_PARM_DESC(atomic_unit_min, "Atomic write unit min in bytes (default: one logical block)");

static unsigned int atomic_unit_max = 65536;
module_param(atomic_unit_max, uint, 0444);
MODULE_PARM_DESC(atomic_unit_max, "Atomic write unit max in bytes (default 65536, at most 512 KiB)");

static unsigned int atomic_boundary;
module_param(atomic_boundary, uint, 0444);
MODULE_PARM_DESC(atomic_boundary, "Atomic write boundary in bytes, 0 for none (default 0)");

static unsigned long long seed = 1;
module_param(seed, ullong, 0444);
MODULE_PARM_DESC(seed, "Seed of the first power cut (debugfs 'seed' changes it)");

static unsigned int survive_pct = 50;
module_param(survive_pct, uint, 0444);
MODULE_PARM_DESC(survive_pct, "Percent of unflushed writes that land whole at a cut (default 50)");

static unsigned int tear_pct = 50;
module_param(tear_pct, uint, 0444);
MODULE_PARM_DESC(tear_pct, "Percent of the other non-atomic multi-block writes that land torn (default 50)");

static bool meta_tear;
module_param(meta_tear, bool, 0444);
MODULE_PARM_DESC(meta_tear, "Let REQ_META writes tear like data (default off: whole or not at all)");

static unsigned int cut_inflight = 1;
module_param(cut_inflight, uint, 0444);
MODULE_PARM_DESC(cut_inflight, "Writes caught in flight by a cut_after cut (default 1)");

static unsigned int cache_mb = 64;
module_param(cache_mb, uint, 0444);
MODULE_PARM_DESC(cache_mb, "Unflushed data the cache holds before destaging the oldest (MiB, default 64)");

static bool nomerges = true;
module_param(nomerges, bool, 0444);
MODULE_PARM_DESC(nomerges, "Disable request merging, so the log shows each bio (default on)");

static unsigned int lat_us;
module_param(lat_us, uint, 0444);
MODULE_PARM_DESC(lat_us, "Model: latency of each read and write command, us (default 0)");

static unsigned int mbps;
module_param(mbps, uint, 0444);
MODULE_PARM_DESC(mbps, "Model: transfer bandwidth shared by all commands, MB/s (default 0: no limit)");

static unsigned int flush_us;
module_param(flush_us, uint, 0444);
MODULE_PARM_DESC(flush_us, "Model: fixed cost of a flush or FUA write that finds data to make durable, us (default 0)");

static unsigned int flush_mbps;
module_param(flush_mbps, uint, 0444);
MODULE_PARM_DESC(flush_mbps, "Model: rate at which a flush makes unflushed data durable, MB/s (default 0: no limit)");

#define PC_MAX_IO	SZ_1M		/* max_hw_sectors in bytes */
#define PC_RING		1024		/* write records kept for "log" */

/* Record flags. */
#define PCF_ATOMIC	BIT(0)
#define PCF_FUA		BIT(1)
#define PCF_PREFLUSH	BIT(2)
#define PCF_FLUSH	BIT(3)	/* REQ_OP_FLUSH */
#define PCF_INFLIGHT	BIT(4)	/* caught in flight by the cut */
#define PCF_META	BIT(5)	/* REQ_META */

enum pc_state {
	PCS_VOLATILE,	/* completed, in the volatile cache */
	PCS_DURABLE,	/* FUA, or made durable by a flush */
	PCS_DESTAGED,	/* written back by the cache on its own */
	PCS_SURVIVED,	/* landed whole at a cut */
	PCS_TORN,	/* landed in part at a cut */
	PCS_LOST,	/* did not land at a cut */
	PCS_REJECTED,	/* invalid atomic write, BLK_STS_INVAL */
	PCS_IOERR,	/* power was off */
	PCS_DONE,	/* a flush that completed */
	PCS_NOMEM,	/* could not allocate, BLK_STS_RESOURCE */
};

static const char * const pc_state_name[] = {
	[PCS_VOLATILE]	= "volatile",
	[PCS_DURABLE]	= "durable",
	[PCS_DESTAGED]	= "destaged",
	[PCS_SURVIVED]	= "survived",
	[PCS_TORN]	= "torn",
	[PCS_LOST]	= "lost",
	[PCS_REJECTED]	= "rejected",
	[PCS_IOERR]	= "ioerr",
	[PCS_DONE]	= "done",
	[PCS_NOMEM]	= "nomem",
};

/* One line of the "log" ring. */
struct pc_rec {
	u64 seq;
	u64 sector;
	u32 len;
	u32 kept;	/* torn: logical blocks that reached the media */
	u32 power;	/* power cycle in which it was issued */
	u16 flags;
	u8 state;
	u8 prefix;	/* torn: 1 if the kept blocks are a prefix */
};

/* A completed write that is not yet on the media. */
struct pc_entry {
	struct list_head node;
	u64 seq;
	u64 pos;
	u32 len;
	u16 flags;
	u8 data[];
};

struct pc_stats {
	u64 reads;
	u64 atomic_writes;
	u64 plain_writes;
	u64 fua_writes;
	u64 flushes;
	u64 preflushes;
	u64 rejected_atomic;
	u64 rej_misaligned;
	u64 rej_not_pow2;
	u64 rej_size;
	u64 rej_boundary;
	u64 ioerr;
	u64 nomem;
	u64 destaged;
	u64 cuts;
	u64 restores;
	u64 survived;
	u64 torn;
	u64 lost;
	u64 inflight;
	u64 delayed;	/* completions the model held back */
};

struct pc_cut_report {
	u64 seed;
	u64 at_seq;
	u32 unflushed;
	u32 durable;
	u32 survived;
	u32 torn;
	u32 lost;
	u32 inflight;
	const char *how;
};

struct pcblk {
	struct mutex lock;		/* everything below */
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	struct xarray cache;		/* struct page per PAGE_SIZE, reads */
	struct xarray media;		/* what survives a power cut */
	struct list_head log;		/* struct pc_entry, completion order */
	u64 log_bytes;
	u32 log_entries;
	bool powered;
	u64 cut_after;			/* writes until the cut; 0: disarmed */
	u32 inflight_left;		/* writes still to catch in flight */
	u64 seed;			/* seed of the next cut */
	u64 rng;			/* stream of the current cut */
	u64 seq;
	u32 power;			/* power cycle number */
	u32 survive_pct, tear_pct, cut_inflight;
	bool meta_tear;
	u64 cache_max;
	struct pc_stats st;
	struct pc_cut_report last;
	struct pc_rec ring[PC_RING];
	struct dentry *dbg;
	/* The performance model (all 0: off). */
	bool model;
	u64 chan_free;			/* ns: the transfer channel is busy until */
	u64 last_write_done;		/* ns: the latest write completion given */
	u64 fua_log_bytes;		/* of log_bytes, FUA writes (durable) */
	u32 gen;			/* bumped by every cut and restore */
};

/* Per request: its held-back completion. */
struct pc_cmd {
	struct hrtimer timer;
	u32 gen;			/* pc->gen when it was handled */
};

static struct pcblk *pcb;
static int pc_major;

/*
 * All of our state is used from ->queue_rq, which may run below a
 * filesystem's reclaim: never let an allocation under the lock recurse into
 * I/O or filesystem reclaim.
 */
static unsigned int pc_lock(struct pcblk *pc)
{
	unsigned int noio = memalloc_noio_save();

	mutex_lock(&pc->lock);
	return noio;
}

static void pc_unlock(struct pcblk *pc, unsigned int noio)
{
	mutex_unlock(&pc->lock);
	memalloc_noio_restore(noio);
}

/* splitmix64: small, fast, and the same sequence on every run. */
static u64 pc_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u32 pc_rand_below(struct pcblk *pc, u32 n)
{
	return n ? (u32)(pc_rand(&pc->rng) % n) : 0;
}

/* ---- page stores --------------------------------------------------- */

static int pc_store_prepare(struct xarray *xa, u64 pos, u32 len)
{
	pgoff_t idx = pos >> PAGE_SHIFT;
	pgoff_t last = (pos + len - 1) >> PAGE_SHIFT;

	if (!len)
		return 0;
	for (; idx <= last; idx++) {
		struct page *page;
		void *old;

		if (xa_load(xa, idx))
			continue;
		page = alloc_page(GFP_NOIO | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		old = xa_store(xa, idx, page, GFP_NOIO);
		if (xa_is_err(old)) {
			__free_page(page);
			return xa_err(old);
		}
	}
	return 0;
}

/* Copies into pages that pc_store_prepare() made present. */
static void pc_store_put(struct xarray *xa, u64 pos, const u8 *src, u32 len)
{
	while (len) {
		u32 off = offset_in_page(pos);
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		struct page *page = xa_load(xa, pos >> PAGE_SHIFT);

		if (page)
			memcpy_to_page(page, off, src, n);
		pos += n;
		src += n;
		len -= n;
	}
}

static void pc_store_get(struct xarray *xa, u64 pos, u8 *dst, u32 len)
{
	while (len) {
		u32 off = offset_in_page(pos);
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		struct page *page = xa_load(xa, pos >> PAGE_SHIFT);

		if (page)
			memcpy_from_page(dst, page, off, n);
		else
			memset(dst, 0, n);
		pos += n;
		dst += n;
		len -= n;
	}
}

/* dst := src over [pos, pos + len), page by page. */
static void pc_store_sync(struct xarray *dst, struct xarray *src, u64 pos, u32 len)
{
	while (len) {
		u32 off = offset_in_page(pos);
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		struct page *d = xa_load(dst, pos >> PAGE_SHIFT);
		struct page *s = xa_load(src, pos >> PAGE_SHIFT);

		if (d) {
			u8 *p = kmap_local_page(d);

			if (s)
				memcpy_from_page(p + off, s, off, n);
			else
				memset(p + off, 0, n);
			kunmap_local(p);
		}
		pos += n;
		len -= n;
	}
}

static void pc_store_free(struct xarray *xa)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(xa, idx, page)
		__free_page(page);
	xa_destroy(xa);
}

/* ---- the write log ------------------------------------------------- */

static struct pc_rec *pc_rec_new(struct pcblk *pc, u64 sector, u32 len,
				 u16 flags, u8 state)
{
	u64 seq = ++pc->seq;
	struct pc_rec *r = &pc->ring[seq % PC_RING];

	*r = (struct pc_rec){ .seq = seq, .sector = sector, .len = len,
			      .power = pc->power, .flags = flags,
			      .state = state };
	return r;
}

static struct pc_rec *pc_rec_find(struct pcblk *pc, u64 seq)
{
	struct pc_rec *r = &pc->ring[seq % PC_RING];

	return r->seq == seq ? r : NULL;
}

static void pc_rec_state(struct pcblk *pc, u64 seq, u8 state)
{
	struct pc_rec *r = pc_rec_find(pc, seq);

	if (r)
		r->state = state;
}

static void pc_entry_free(struct pcblk *pc, struct pc_entry *e)
{
	list_del(&e->node);
	pc->log_bytes -= e->len;
	if (e->flags & PCF_FUA)
		pc->fua_log_bytes -= e->len;
	pc->log_entries--;
	kvfree(e);
}

/* Makes the oldest log entry durable. */
static void pc_destage_one(struct pcblk *pc, u8 state)
{
	struct pc_entry *e = list_first_entry(&pc->log, struct pc_entry, node);

	pc_store_put(&pc->media, e->pos, e->data, e->len);
	if (!(e->flags & PCF_FUA))
		pc_rec_state(pc, e->seq, state);
	pc_entry_free(pc, e);
}

static void pc_flush(struct pcblk *pc)
{
	while (!list_empty(&pc->log))
		pc_destage_one(pc, PCS_DURABLE);
}

/* Does bit b of a torn write's random subset keep its block? */
static bool pc_subset_keeps(u64 h, u32 b)
{
	u64 s = h ^ ((u64)b << 32);

	return pc_rand(&s) & 1;
}

/*
 * Lands one write that was not durable at the power cut onto the media by
 * the seeded rule. data covers [pos, pos + len).
 */
static u8 pc_land(struct pcblk *pc, u64 pos, u32 len, const u8 *data,
		  u16 flags, struct pc_rec *r)
{
	u32 nblk = len / lbs, b, k = 0, fix = U32_MAX, kept = 0;
	bool whole = (flags & PCF_ATOMIC) ||
		     ((flags & PCF_META) && !pc->meta_tear);
	bool prefix;
	u64 h;

	if (pc_rand_below(pc, 100) < pc->survive_pct) {
		pc_store_put(&pc->media, pos, data, len);
		return PCS_SURVIVED;
	}
	if (whole || nblk < 2 || pc_rand_below(pc, 100) >= pc->tear_pct)
		return PCS_LOST;

	h = pc_rand(&pc->rng);
	prefix = h & 1;
	if (prefix) {
		k = 1 + pc_rand_below(pc, nblk - 1);
	} else {
		for (b = 0; b < nblk; b++)
			kept += pc_subset_keeps(h, b);
		/* A tear keeps some blocks and drops some: flip one if not. */
		if (kept == 0 || kept == nblk)
			fix = pc_rand_below(pc, nblk);
	}
	kept = 0;
	for (b = 0; b < nblk; b++) {
		bool keep = prefix ? b < k : pc_subset_keeps(h, b) ^ (b == fix);

		if (!keep)
			continue;
		pc_store_put(&pc->media, pos + (u64)b * lbs, data + (size_t)b * lbs, lbs);
		kept++;
	}
	if (r) {
		r->kept = kept;
		r->prefix = prefix;
	}
	return PCS_TORN;
}

static void pc_count_fate(struct pcblk *pc, u8 state)
{
	switch (state) {
	case PCS_SURVIVED:
		pc->st.survived++;
		pc->last.survived++;
		break;
	case PCS_TORN:
		pc->st.torn++;
		pc->last.torn++;
		break;
	case PCS_LOST:
		pc->st.lost++;
		pc->last.lost++;
		break;
	}
}

/* Power cut: resolve the volatile log into the media, fail all later I/O. */
static void pc_cut(struct pcblk *pc, const char *how)
{
	struct pc_entry *e, *tmp;
	u64 s;

	pc->last = (struct pc_cut_report){ .seed = pc->seed, .at_seq = pc->seq,
					   .unflushed = pc->log_entries,
					   .how = how };
	pc->rng = pc->seed;
	list_for_each_entry(e, &pc->log, node) {
		struct pc_rec *r = pc_rec_find(pc, e->seq);
		u8 state;

		if (e->flags & PCF_FUA) {
			pc_store_put(&pc->media, e->pos, e->data, e->len);
			pc->last.durable++;
			continue;
		}
		state = pc_land(pc, e->pos, e->len, e->data, e->flags, r);
		if (r)
			r->state = state;
		pc_count_fate(pc, state);
	}
	/* Reads after the restore see the media. */
	list_for_each_entry_safe(e, tmp, &pc->log, node) {
		pc_store_sync(&pc->cache, &pc->media, e->pos, e->len);
		pc_entry_free(pc, e);
	}
	pc->powered = false;
	WRITE_ONCE(pc->gen, pc->gen + 1);
	pc->chan_free = 0;
	pc->last_write_done = 0;
	pc->cut_after = 0;
	pc->inflight_left = strcmp(how, "after") ? 0 : pc->cut_inflight;
	s = pc->seed;
	pc->seed = pc_rand(&s);
	pc->st.cuts++;
	pr_info("power cut (%s) at write %llu, seed %#llx: %u unflushed: %u survived, %u torn, %u lost, %u FUA\n",
		how, pc->last.at_seq, pc->last.seed, pc->last.unflushed,
		pc->last.survived, pc->last.torn, pc->last.lost,
		pc->last.durable);
}

static void pc_restore(struct pcblk *pc)
{
	if (pc->powered)
		return;
	pc->powered = true;
	pc->power++;
	WRITE_ONCE(pc->gen, pc->gen + 1);
	pc->inflight_left = 0;
	pc->st.restores++;
	pr_info("power restored (cycle %u)\n", pc->power);
}

/* ---- request handling ---------------------------------------------- */

enum pc_reject { PCR_OK, PCR_NOT_POW2, PCR_SIZE, PCR_MISALIGNED, PCR_BOUNDARY };

static const char * const pc_reject_name[] = {
	[PCR_NOT_POW2]		= "not a power of two",
	[PCR_SIZE]		= "outside the atomic unit",
	[PCR_MISALIGNED]	= "misaligned",
	[PCR_BOUNDARY]		= "crosses the atomic boundary",
};

/* Would hardware accept this atomic write? */
static enum pc_reject pc_atomic_check(struct pcblk *pc, u64 pos, u32 len)
{
	struct queue_limits *lim = &pc->disk->queue->limits;
	u32 bnd = lim->atomic_write_hw_boundary;

	if (!is_power_of_2(len))
		return PCR_NOT_POW2;
	if (len < lim->atomic_write_hw_unit_min ||
	    len > lim->atomic_write_hw_unit_max)
		return PCR_SIZE;
	if (pos & (len - 1))
		return PCR_MISALIGNED;
	if (bnd && div64_u64(pos, bnd) != div64_u64(pos + len - 1, bnd))
		return PCR_BOUNDARY;
	return PCR_OK;
}

static void pc_count_reject(struct pcblk *pc, enum pc_reject why)
{
	pc->st.rejected_atomic++;
	switch (why) {
	case PCR_NOT_POW2:
		pc->st.rej_not_pow2++;
		break;
	case PCR_SIZE:
		pc->st.rej_size++;
		break;
	case PCR_MISALIGNED:
		pc->st.rej_misaligned++;
		break;
	case PCR_BOUNDARY:
		pc->st.rej_boundary++;
		break;
	case PCR_OK:
		break;
	}
}

static int pc_bio_prepare(struct pcblk *pc, u64 pos, u32 len)
{
	int ret = pc_store_prepare(&pc->cache, pos, len);

	return ret ? ret : pc_store_prepare(&pc->media, pos, len);
}

static struct pc_entry *pc_bio_copy(struct bio *bio, u64 pos, u32 len, u16 flags)
{
	struct pc_entry *e = kvmalloc(struct_size(e, data, len), GFP_NOIO);
	struct bvec_iter iter;
	struct bio_vec bv;
	u32 done = 0;

	if (!e)
		return NULL;
	e->pos = pos;
	e->len = len;
	e->flags = flags;
	bio_for_each_segment(bv, bio, iter) {
		memcpy_from_bvec((char *)e->data + done, &bv);
		done += bv.bv_len;
	}
	return e;
}

/* A write the cut caught in flight: it fails, but may have landed. */
static void pc_write_inflight(struct pcblk *pc, struct bio *bio, u16 flags)
{
	u64 pos = bio->bi_iter.bi_sector << SECTOR_SHIFT;
	u32 len = bio->bi_iter.bi_size;
	struct pc_entry *e;
	struct pc_rec *r;
	u8 state = PCS_LOST;

	if (!len)
		return;
	r = pc_rec_new(pc, bio->bi_iter.bi_sector, len, flags | PCF_INFLIGHT,
		       PCS_LOST);
	pc->st.inflight++;
	pc->last.inflight++;
	if ((flags & PCF_ATOMIC) && pc_atomic_check(pc, pos, len) != PCR_OK)
		goto out;
	if (pc_bio_prepare(pc, pos, len))
		goto out;
	e = pc_bio_copy(bio, pos, len, flags);
	if (!e)
		goto out;
	state = pc_land(pc, pos, len, e->data, flags, r);
	pc_store_sync(&pc->cache, &pc->media, pos, len);
	kvfree(e);
out:
	r->state = state;
	pc_count_fate(pc, state);
}

static blk_status_t pc_write_bio(struct pcblk *pc, struct bio *bio, u16 flags)
{
	u64 pos = bio->bi_iter.bi_sector << SECTOR_SHIFT;
	u32 len = bio->bi_iter.bi_size;
	struct pc_entry *e;

	if (!len)
		return BLK_STS_OK;
	if (pc_bio_prepare(pc, pos, len))
		goto nomem;
	e = pc_bio_copy(bio, pos, len, flags);
	if (!e)
		goto nomem;
	e->seq = pc_rec_new(pc, bio->bi_iter.bi_sector, len, flags,
			    (flags & PCF_FUA) ? PCS_DURABLE : PCS_VOLATILE)->seq;
	pc_store_put(&pc->cache, pos, e->data, len);
	if (flags & PCF_ATOMIC)
		pc->st.atomic_writes++;
	else
		pc->st.plain_writes++;
	if (flags & PCF_FUA)
		pc->st.fua_writes++;

	if ((flags & PCF_FUA) && list_empty(&pc->log)) {
		pc_store_put(&pc->media, pos, e->data, len);
		kvfree(e);
		return BLK_STS_OK;
	}
	list_add_tail(&e->node, &pc->log);
	pc->log_bytes += len;
	if (flags & PCF_FUA)
		pc->fua_log_bytes += len;
	pc->log_entries++;
	while (pc->log_bytes > pc->cache_max) {
		pc_destage_one(pc, PCS_DESTAGED);
		pc->st.destaged++;
	}
	return BLK_STS_OK;
nomem:
	pc_rec_new(pc, bio->bi_iter.bi_sector, len, flags, PCS_NOMEM);
	pc->st.nomem++;
	return BLK_STS_RESOURCE;
}

static blk_status_t pc_write(struct pcblk *pc, struct request *rq)
{
	u16 flags = 0;
	struct bio *bio;
	blk_status_t sts;

	if (rq->cmd_flags & REQ_ATOMIC)
		flags |= PCF_ATOMIC;
	if (rq->cmd_flags & REQ_FUA)
		flags |= PCF_FUA;
	if (rq->cmd_flags & REQ_PREFLUSH)
		flags |= PCF_PREFLUSH;
	if (rq->cmd_flags & REQ_META)
		flags |= PCF_META;

	if (!pc->powered) {
		__rq_for_each_bio(bio, rq) {
			if (pc->inflight_left) {
				pc_write_inflight(pc, bio, flags);
			} else {
				pc_rec_new(pc, bio->bi_iter.bi_sector,
					   bio->bi_iter.bi_size, flags, PCS_IOERR);
				pc->st.ioerr++;
			}
		}
		if (pc->inflight_left)
			pc->inflight_left--;
		rq->rq_flags |= RQF_QUIET;
		return BLK_STS_IOERR;
	}

	/* Validate every bio first: a rejected request changes nothing. */
	if (flags & PCF_ATOMIC) {
		__rq_for_each_bio(bio, rq) {
			u64 pos = bio->bi_iter.bi_sector << SECTOR_SHIFT;
			enum pc_reject why = pc_atomic_check(pc, pos,
							     bio->bi_iter.bi_size);

			if (why == PCR_OK)
				continue;
			pc_rec_new(pc, bio->bi_iter.bi_sector,
				   bio->bi_iter.bi_size, flags, PCS_REJECTED);
			pc_count_reject(pc, why);
			pr_info_ratelimited("rejected atomic write of %u bytes at %llu: %s\n",
					    bio->bi_iter.bi_size, pos,
					    pc_reject_name[why]);
			rq->rq_flags |= RQF_QUIET;
			return BLK_STS_INVAL;
		}
	}

	if (flags & PCF_PREFLUSH) {
		pc_flush(pc);
		pc->st.preflushes++;
	}
	__rq_for_each_bio(bio, rq) {
		sts = pc_write_bio(pc, bio, flags);
		if (sts)
			return sts;
	}
	/* Only writes that carry data count towards the cut. */
	if (blk_rq_bytes(rq) && pc->cut_after && --pc->cut_after == 0)
		pc_cut(pc, "after");
	return BLK_STS_OK;
}

static blk_status_t pc_read(struct pcblk *pc, struct request *rq)
{
	u64 pos = blk_rq_pos(rq) << SECTOR_SHIFT;
	struct req_iterator iter;
	struct bio_vec bv;

	if (!pc->powered) {
		pc->st.ioerr++;
		rq->rq_flags |= RQF_QUIET;
		return BLK_STS_IOERR;
	}
	rq_for_each_segment(bv, rq, iter) {
		u8 *p = bvec_kmap_local(&bv);

		pc_store_get(&pc->cache, pos, p, bv.bv_len);
		kunmap_local(p);
		pos += bv.bv_len;
	}
	pc->st.reads++;
	return BLK_STS_OK;
}

static blk_status_t pc_handle(struct pcblk *pc, struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return pc_read(pc, rq);
	case REQ_OP_WRITE:
		return pc_write(pc, rq);
	case REQ_OP_FLUSH:
		if (!pc->powered) {
			pc_rec_new(pc, 0, 0, PCF_FLUSH, PCS_IOERR);
			pc->st.ioerr++;
			rq->rq_flags |= RQF_QUIET;
			return BLK_STS_IOERR;
		}
		pc_flush(pc);
		pc_rec_new(pc, 0, 0, PCF_FLUSH, PCS_DONE);
		pc->st.flushes++;
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
}

/* ns to move bytes at rate MB/s (0: free). */
static u64 pc_ns_at(u64 bytes, unsigned int rate)
{
	return rate ? div_u64(bytes * NSEC_PER_USEC, rate) : 0;
}

/* ns for a flush that finds dirty bytes unflushed. */
static u64 pc_flush_ns(u64 dirty)
{
	if (!dirty)
		return 0;
	return (u64)flush_us * NSEC_PER_USEC + pc_ns_at(dirty, flush_mbps);
}

/*
 * The model's completion time (ktime ns) of a request just handled; dirty
 * is what was unflushed before it. Called under pc->lock.
 */
static u64 pc_model_done(struct pcblk *pc, struct request *rq, u64 dirty)
{
	u64 now = ktime_get_ns(), done;
	u32 bytes = blk_rq_bytes(rq);

	if (req_op(rq) == REQ_OP_FLUSH)
		return max(now, pc->last_write_done) + pc_flush_ns(dirty) +
		       (u64)lat_us * NSEC_PER_USEC;
	pc->chan_free = max(pc->chan_free, now) + pc_ns_at(bytes, mbps);
	done = pc->chan_free + (u64)lat_us * NSEC_PER_USEC;
	if (req_op(rq) == REQ_OP_WRITE) {
		if (rq->cmd_flags & REQ_FUA)
			done += pc_flush_ns(bytes);
		pc->last_write_done = max(pc->last_write_done, done);
	}
	return done;
}

static enum hrtimer_restart pc_timer_done(struct hrtimer *t)
{
	struct pc_cmd *cmd = container_of(t, struct pc_cmd, timer);
	struct request *rq = blk_mq_rq_from_pdu(cmd);
	struct pcblk *pc = rq->q->queuedata;
	blk_status_t sts = BLK_STS_OK;

	if (READ_ONCE(pc->gen) != cmd->gen)
		sts = BLK_STS_IOERR;	/* RQF_QUIET set when it was held */
	blk_mq_end_request(rq, sts);
	return HRTIMER_NORESTART;
}

static int pc_init_request(struct blk_mq_tag_set *set, struct request *rq,
			   unsigned int hctx_idx, unsigned int numa_node)
{
	struct pc_cmd *cmd = blk_mq_rq_to_pdu(rq);

	hrtimer_init(&cmd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	cmd->timer.function = pc_timer_done;
	return 0;
}

static blk_status_t pc_queue_rq(struct blk_mq_hw_ctx *hctx,
				const struct blk_mq_queue_data *bd)
{
	struct pcblk *pc = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct pc_cmd *cmd = blk_mq_rq_to_pdu(rq);
	unsigned int noio;
	blk_status_t sts;
	u64 done = 0;

	might_sleep();
	blk_mq_start_request(rq);
	noio = pc_lock(pc);
	if (pc->model) {
		u64 dirty = pc->log_bytes - pc->fua_log_bytes;

		sts = pc_handle(pc, rq);
		if (sts == BLK_STS_OK) {
			done = pc_model_done(pc, rq, dirty);
			cmd->gen = pc->gen;
			/* its timer must not race the timeout work on rq_flags */
			rq->rq_flags |= RQF_QUIET;
			pc->st.delayed++;
		}
	} else {
		sts = pc_handle(pc, rq);
	}
	pc_unlock(pc, noio);
	if (done)
		hrtimer_start(&cmd->timer, ns_to_ktime(done), HRTIMER_MODE_ABS);
	else
		blk_mq_end_request(rq, sts);
	return BLK_STS_OK;
}

static const struct blk_mq_ops pc_mq_ops = {
	.queue_rq	= pc_queue_rq,
	.init_request	= pc_init_request,
};

static const struct block_device_operations pc_fops = {
	.owner		= THIS_MODULE,
};

/* ---- debugfs ------------------------------------------------------- */

static int pc_get_word(const char __user *ubuf, size_t count, char *buf,
		       size_t size)
{
	ssize_t n;

	if (count >= size)
		return -EINVAL;
	n = simple_write_to_buffer(buf, size - 1, &(loff_t){ 0 }, ubuf, count);
	if (n < 0)
		return n;
	buf[n] = '\0';
	strim(buf);
	return 0;
}

/* The device behind a debugfs file opened with single_open(). */
static struct pcblk *pc_seq_dev(struct file *f)
{
	return ((struct seq_file *)f->private_data)->private;
}

static ssize_t cut_write(struct file *f, const char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	struct pcblk *pc = pc_seq_dev(f);
	unsigned int noio;
	char buf[16];
	int ret;

	ret = pc_get_word(ubuf, count, buf, sizeof(buf));
	if (ret)
		return ret;
	if (strcmp(buf, "now") && strcmp(buf, "1"))
		return -EINVAL;
	noio = pc_lock(pc);
	if (pc->powered)
		pc_cut(pc, "now");
	else
		ret = -EALREADY;
	pc_unlock(pc, noio);
	return ret ? ret : count;
}

static int cut_show(struct seq_file *m, void *v)
{
	struct pcblk *pc = m->private;
	unsigned int noio = pc_lock(pc);

	seq_printf(m, "%s\n", pc->powered ? "on" : "off");
	pc_unlock(pc, noio);
	return 0;
}

static ssize_t cut_after_write(struct file *f, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pcblk *pc = pc_seq_dev(f);
	unsigned int noio;
	u64 n;
	int ret;

	ret = kstrtou64_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	noio = pc_lock(pc);
	if (pc->powered)
		pc->cut_after = n;
	else
		ret = -EIO;
	pc_unlock(pc, noio);
	return ret ? ret : count;
}

static int cut_after_show(struct seq_file *m, void *v)
{
	struct pcblk *pc = m->private;
	unsigned int noio = pc_lock(pc);

	seq_printf(m, "%llu\n", pc->cut_after);
	pc_unlock(pc, noio);
	return 0;
}

static ssize_t restore_write(struct file *f, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct pcblk *pc = f->private_data;
	unsigned int noio = pc_lock(pc);

	pc_restore(pc);
	pc_unlock(pc, noio);
	return count;
}

static ssize_t seed_write(struct file *f, const char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct pcblk *pc = pc_seq_dev(f);
	unsigned int noio;
	u64 s;
	int ret;

	ret = kstrtou64_from_user(ubuf, count, 0, &s);
	if (ret)
		return ret;
	noio = pc_lock(pc);
	pc->seed = s;
	pc_unlock(pc, noio);
	return count;
}

static int seed_show(struct seq_file *m, void *v)
{
	struct pcblk *pc = m->private;
	unsigned int noio = pc_lock(pc);

	seq_printf(m, "%#llx\n", pc->seed);
	pc_unlock(pc, noio);
	return 0;
}

static int last_cut_show(struct seq_file *m, void *v)
{
	struct pcblk *pc = m->private;
	unsigned int noio = pc_lock(pc);
	struct pc_cut_report *c = &pc->last;

	if (c->how)
		seq_printf(m, "how=%s seed=%#llx at_write=%llu unflushed=%u fua=%u survived=%u torn=%u lost=%u inflight=%u\n",
			   c->how, c->seed, c->at_seq, c->unflushed, c->durable,
			   c->survived, c->torn, c->lost, c->inflight);
	else
		seq_puts(m, "none\n");
	pc_unlock(pc, noio);
	return 0;
}

static int stats_show(struct seq_file *m, void *v)
{
	struct pcblk *pc = m->private;
	unsigned int noio = pc_lock(pc);
	struct pc_stats *s = &pc->st;

#define PC_STAT(name) seq_printf(m, "%-16s %llu\n", #name, s->name)
	PC_STAT(atomic_writes);
	PC_STAT(plain_writes);
	PC_STAT(fua_writes);
	PC_STAT(flushes);
	PC_STAT(preflushes);
	PC_STAT(reads);
	PC_STAT(rejected_atomic);
	PC_STAT(rej_misaligned);
	PC_STAT(rej_not_pow2);
	PC_STAT(rej_size);
	PC_STAT(rej_boundary);
	PC_STAT(ioerr);
	PC_STAT(nomem);
	PC_STAT(destaged);
	PC_STAT(cuts);
	PC_STAT(restores);
	PC_STAT(survived);
	PC_STAT(torn);
	PC_STAT(lost);
	PC_STAT(inflight);
	PC_STAT(delayed);
#undef PC_STAT
	seq_printf(m, "%-16s %u\n", "unflushed", pc->log_entries);
	seq_printf(m, "%-16s %llu\n", "unflushed_bytes", pc->log_bytes);
	seq_printf(m, "%-16s %d\n", "powered", pc->powered);
	pc_unlock(pc, noio);
	return 0;
}

/* Any write resets the counters. */
static ssize_t stats_write(struct file *f, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct pcblk *pc = pc_seq_dev(f);
	unsigned int noio = pc_lock(pc);

	memset(&pc->st, 0, sizeof(pc->st));
	pc_unlock(pc, noio);
	return count;
}

static int log_show(struct seq_file *m, void *v)
{
	struct pcblk *pc = m->private;
	unsigned int noio = pc_lock(pc);
	u64 seq = pc->seq > PC_RING ? pc->seq - PC_RING + 1 : 1;

	seq_puts(m, "# seq power op sector+bytes flags state\n");
	for (; seq <= pc->seq; seq++) {
		struct pc_rec *r = pc_rec_find(pc, seq);

		if (!r)
			continue;
		if (r->flags & PCF_FLUSH) {
			seq_printf(m, "%llu p%u FLUSH - FLUSH %s\n", r->seq,
				   r->power, pc_state_name[r->state]);
			continue;
		}
		seq_printf(m, "%llu p%u WRITE %llu+%u %s%s%s%s%s%s %s", r->seq,
			   r->power, r->sector, r->len,
			   r->flags & PCF_ATOMIC ? "ATOMIC," : "",
			   r->flags & PCF_FUA ? "FUA," : "",
			   r->flags & PCF_PREFLUSH ? "PREFLUSH," : "",
			   r->flags & PCF_INFLIGHT ? "INFLIGHT," : "",
			   r->flags & PCF_META ? "META," : "",
			   r->flags ? "" : "-", pc_state_name[r->state]);
		if (r->state == PCS_TORN)
			seq_printf(m, " %s %u/%u", r->prefix ? "prefix" : "subset",
				   r->kept, r->len / lbs);
		seq_putc(m, '\n');
	}
	pc_unlock(pc, noio);
	return 0;
}

/*
 * "OFFSET LEN": submits one REQ_ATOMIC write bio of that geometry to the
 * disk from the kernel, past the checks of the file interface, so that the
 * driver's own rejection of bad atomic writes can be tested. The write
 * returns LEN if the bio succeeded, else its error.
 */
static ssize_t inject_atomic_write(struct file *f, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pcblk *pc = f->private_data;
	struct file *bdev_file;
	struct page *page;
	struct bio *bio;
	char buf[48];
	u64 off;
	u32 len;
	int ret;

	ret = pc_get_word(ubuf, count, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%llu %u", &off, &len) != 2 || !len ||
	    len > PC_MAX_IO || off & (SECTOR_SIZE - 1) || len & (SECTOR_SIZE - 1) ||
	    off + len > get_capacity(pc->disk) << SECTOR_SHIFT)
		return -EINVAL;

	page = alloc_pages(GFP_KERNEL, get_order(len));
	if (!page)
		return -ENOMEM;
	memset(page_address(page), 0xa5, len);
	bdev_file = bdev_file_open_by_dev(disk_devt(pc->disk),
					  BLK_OPEN_READ | BLK_OPEN_WRITE, NULL, NULL);
	if (IS_ERR(bdev_file)) {
		ret = PTR_ERR(bdev_file);
		goto out_free;
	}
	bio = bio_alloc(file_bdev(bdev_file), 1,
			REQ_OP_WRITE | REQ_SYNC | REQ_ATOMIC, GFP_KERNEL);
	bio->bi_iter.bi_sector = off >> SECTOR_SHIFT;
	__bio_add_page(bio, page, len, 0);
	ret = submit_bio_wait(bio);
	bio_put(bio);
	fput(bdev_file);
out_free:
	__free_pages(page, get_order(len));
	return ret ? ret : count;
}

static int pc_open_private(struct inode *inode, struct file *f)
{
	f->private_data = inode->i_private;
	return nonseekable_open(inode, f);
}

#define PC_SHOW_FOPS(name, wr)						\
static int name##_open(struct inode *inode, struct file *f)		\
{									\
	return single_open(f, name##_show, inode->i_private);		\
}									\
static const struct file_operations name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = name##_open,						\
	.read = seq_read,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
	.write = wr,							\
}

PC_SHOW_FOPS(cut, cut_write);
PC_SHOW_FOPS(cut_after, cut_after_write);
PC_SHOW_FOPS(seed, seed_write);
PC_SHOW_FOPS(stats, stats_write);
PC_SHOW_FOPS(log, NULL);
PC_SHOW_FOPS(last_cut, NULL);

static const struct file_operations restore_fops = {
	.owner = THIS_MODULE,
	.open = pc_open_private,
	.write = restore_write,
};

static const struct file_operations inject_atomic_fops = {
	.owner = THIS_MODULE,
	.open = pc_open_private,
	.write = inject_atomic_write,
};

static void pc_debugfs_init(struct pcblk *pc)
{
	struct dentry *d = debugfs_create_dir("pcblk", NULL);

	pc->dbg = d;
	debugfs_create_file("cut", 0644, d, pc, &cut_fops);
	debugfs_create_file("cut_after", 0644, d, pc, &cut_after_fops);
	debugfs_create_file("restore", 0200, d, pc, &restore_fops);
	debugfs_create_file("seed", 0644, d, pc, &seed_fops);
	debugfs_create_file("stats", 0644, d, pc, &stats_fops);
	debugfs_create_file("log", 0444, d, pc, &log_fops);
	debugfs_create_file("last_cut", 0444, d, pc, &last_cut_fops);
	debugfs_create_file("inject_atomic", 0200, d, pc, &inject_atomic_fops);
	/* Tunables read under the lock at each cut; plain u32 stores. */
	debugfs_create_u32("survive_pct", 0644, d, &pc->survive_pct);
	debugfs_create_u32("tear_pct", 0644, d, &pc->tear_pct);
	debugfs_create_u32("cut_inflight", 0644, d, &pc->cut_inflight);
	debugfs_create_bool("meta_tear", 0644, d, &pc->meta_tear);
}

/* ---- module -------------------------------------------------------- */

static int pc_check_params(void)
{
	if (lbs != 512 && lbs != 4096)
		return -EINVAL;
	if (!atomic_unit_min)
		atomic_unit_min = lbs;
	if (!is_power_of_2(atomic_unit_min) || atomic_unit_min < lbs ||
	    !is_power_of_2(atomic_unit_max) || atomic_unit_max < atomic_unit_min ||
	    atomic_unit_max > PC_MAX_IO / 2)
		return -EINVAL;
	if (atomic_boundary && (!is_power_of_2(atomic_boundary) ||
				atomic_boundary < atomic_unit_max))
		return -EINVAL;
	if (!size_mb || survive_pct > 100 || tear_pct > 100 || !cache_mb)
		return -EINVAL;
	return 0;
}

static int __init pc_init(void)
{
	struct queue_limits lim = {
		.logical_block_size	= lbs,
		.physical_block_size	= lbs,
		.max_hw_sectors		= PC_MAX_IO >> SECTOR_SHIFT,
		.features		= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA,
	};
	struct pcblk *pc;
	struct gendisk *disk;
	int ret;

	ret = pc_check_params();
	if (ret) {
		pr_err("invalid parameters (lbs %u, atomic unit %u..%u, boundary %u)\n",
		       lbs, atomic_unit_min, atomic_unit_max, atomic_boundary);
		return ret;
	}
	lim.atomic_write_hw_max = atomic_unit_max;
	lim.atomic_write_hw_unit_min = atomic_unit_min;
	lim.atomic_write_hw_unit_max = atomic_unit_max;
	lim.atomic_write_hw_boundary = atomic_boundary;

	pc = kvzalloc(sizeof(*pc), GFP_KERNEL);
	if (!pc)
		return -ENOMEM;
	mutex_init(&pc->lock);
	xa_init(&pc->cache);
	xa_init(&pc->media);
	INIT_LIST_HEAD(&pc->log);
	pc->powered = true;
	pc->seed = seed;
	pc->survive_pct = survive_pct;
	pc->tear_pct = tear_pct;
	pc->cut_inflight = cut_inflight;
	pc->meta_tear = meta_tear;
	pc->cache_max = (u64)cache_mb << 20;

	ret = register_blkdev(0, "pcblk");
	if (ret < 0)
		goto out_free;
	pc_major = ret;

	pc->model = lat_us || mbps || flush_us || flush_mbps;
	pc->tag_set.ops = &pc_mq_ops;
	pc->tag_set.nr_hw_queues = 1;
	pc->tag_set.queue_depth = 64;
	pc->tag_set.numa_node = NUMA_NO_NODE;
	pc->tag_set.cmd_size = sizeof(struct pc_cmd);
	pc->tag_set.flags = BLK_MQ_F_BLOCKING | BLK_MQ_F_NO_SCHED_BY_DEFAULT;
	ret = blk_mq_alloc_tag_set(&pc->tag_set);
	if (ret)
		goto out_unregister;
	disk = blk_mq_alloc_disk(&pc->tag_set, &lim, pc);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_tags;
	}
	pc->disk = disk;
	disk->major = pc_major;
	disk->first_minor = 0;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &pc_fops;
	disk->private_data = pc;
	strscpy(disk->disk_name, "pcblk0", DISK_NAME_LEN);
	set_capacity(disk, (sector_t)size_mb << (20 - SECTOR_SHIFT));
	if (nomerges)
		blk_queue_flag_set(QUEUE_FLAG_NOMERGES, disk->queue);

	ret = add_disk(disk);
	if (ret)
		goto out_disk;
	pcb = pc;
	pc_debugfs_init(pc);
	pr_info("pcblk0: %u MiB, %u-byte blocks, atomic unit %u..%u boundary %u, seed %#llx\n",
		size_mb, lbs, atomic_unit_min, atomic_unit_max, atomic_boundary,
		seed);
	if (pc->model)
		pr_info("pcblk0: model: command %u us, %u MB/s, flush %u us + %u MB/s\n",
			lat_us, mbps, flush_us, flush_mbps);
	return 0;

out_disk:
	put_disk(disk);
out_tags:
	blk_mq_free_tag_set(&pc->tag_set);
out_unregister:
	unregister_blkdev(pc_major, "pcblk");
out_free:
	kvfree(pc);
	return ret;
}

static void __exit pc_exit(void)
{
	struct pcblk *pc = pcb;
	struct pc_entry *e, *tmp;

	debugfs_remove_recursive(pc->dbg);
	del_gendisk(pc->disk);
	put_disk(pc->disk);
	blk_mq_free_tag_set(&pc->tag_set);
	unregister_blkdev(pc_major, "pcblk");
	list_for_each_entry_safe(e, tmp, &pc->log, node)
		pc_entry_free(pc, e);
	pc_store_free(&pc->cache);
	pc_store_free(&pc->media);
	mutex_destroy(&pc->lock);
	kvfree(pc);
}

module_init(pc_init);
module_exit(pc_exit);
MODULE_DESCRIPTION("RAM disk with a volatile write cache, atomic writes and a power-cut switch");
MODULE_LICENSE("GPL");
