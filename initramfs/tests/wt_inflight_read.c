// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered reads beside an atomic write whose device I/O is in flight
 * (docs/design.md, "Readers"), on the XFS mounted at DIR:
 *
 *   The file is cached; its unit at UNIT_OFF lies on one extent at a device
 *   address aligned to the unit, so the write goes in place as one command.
 *   The device takes SLOW_NS a command (scsi_debug's ndelay, set here and put
 *   back). A thread writes the unit; once a write is in flight at the device
 *   (/sys/block/DISK/inflight), this thread reads, between two trace markers.
 *   The device trace (lib/wt_trace.h) orders the read against the unit's
 *   command, with no timing threshold:
 *
 *   elsewhere: a read of cached data far from the unit must end while the
 *     unit's command is still in flight: it needs nothing of the unit. Done
 *     for an atomic direct write of two blocks (the control), a one-block
 *     atomic write-through and a two-block one. (Before readers were kept off
 *     the unit rather than off the file, the two-block write-through held the
 *     iolock across its I/O, and the read waited for the device.)
 *   unit: a read of the unit itself while its command is in flight must end
 *     after the command completed and return the whole new unit: a read never
 *     returns an atomic unit whose write may still fail.
 *   unit, RWF_NOWAIT: the same read with RWF_NOWAIT fails with EAGAIN while
 *     the command is in flight.
 *   unit, io_uring: the same read as an io_uring read (no IOSQE_ASYNC): the
 *     submitting thread does not sleep in io_uring_submit() (voluntary
 *     context switches, getrusage(RUSAGE_THREAD)), and the completion
 *     comes after the command's, whole new.
 *   queued: a reader of the unit waits for it (seen asleep in the kernel,
 *     /proc/self/task/TID/stack), then a buffered write of another range waits for the
 *     iolock or is done, then a read of cached data elsewhere must end while
 *     the unit's command is still in flight: a reader that waited for a unit
 *     with the iolock held shared would keep the queued writer, and every
 *     reader behind it, waiting for the device.
 *
 *   neighbour: the unit and the next one share a large folio (the region was
 *     written in one 64 KiB buffered write after a dropped cache); while the
 *     first unit's command is in flight, an atomic write-through of the next
 *     unit waits for the folio's writeback (seen asleep in a folio wait),
 *     and a read of cached data elsewhere must end while the first unit's
 *     command is still in flight: the second writer must not wait for the
 *     writeback with the iolock held.
 *
 *   out of place: a second file whose two-block units lie one block off an
 *     aligned device address, so that each goes out of place (into CoW
 *     staging blocks, remapped at completion; checked: the unit's blocks
 *     move), a new unit each round:
 *     elsewhere, unit and unit RWF_NOWAIT as above. (Before, a unit written
 *     out of place held the iolock across its I/O.)
 *     same block: while the unit's command is in flight, a plain
 *     RWF_WRITETHROUGH of the unit's first block; both writes return their
 *     lengths, and after a dropped cache the block reads the second write,
 *     the next block the unit. A write-through that mapped the block before
 *     the unit's remap would write the block the remap frees, and its data
 *     would be lost. The same with an O_DIRECT write of the block (which
 *     waits for the range's writeback before it maps).
 *
 *   A round counts when the read (or second write) began after the unit's
 *   command reached the device (a write that was in flight first may have
 *   been another one) and before it completed; up to TRIES rounds for one
 *   that counts.
 *
 * SKIP where atomic write-throughs (or two-block units) are not advertised,
 * or scsi_debug's delay cannot be set.
 *
 * usage: wt_inflight_read DIR
 */
#include "lib/wt_common.h"

#include <liburing.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#ifdef RWF_WRITETHROUGH

#define SLOW_NS		400000000	/* 400 ms a command */
#define UNIT_OFF	(1 << 20)	/* aligned to every unit tested */
#define TRIES		4
#define G_OLD		1

enum what { R_ELSEWHERE, R_UNIT, R_UNIT_NOWAIT, R_UNIT_URING, R_QUEUED, R_NEIGHBOUR,
	    R_SAME_BLOCK, R_SAME_BLOCK_DIO };
static const char *const what_name[] = {
	"a read of cached data elsewhere", "a read of the unit",
	"an RWF_NOWAIT read of the unit", "an io_uring read of the unit",
	"a read of cached data elsewhere, behind a waiting reader and writer,",
	"a read of cached data elsewhere, while the next unit waits for the folio,",
	"a write-through of the unit's first block",
	"a direct write of the unit's first block",
};

#define REGION (64 << 10)	/* the unit's region: one large folio */
#define OOP_BLOCKS 32		/* the out-of-place file's region, in blocks */

static struct atw_env *env;
static uint64_t gen = G_OLD;

/* the file of the rounds: its unit, its length, whether units go out of place */
static off_t unit_off = UNIT_OFF;
static size_t file_len = UNIT_OFF + REGION;
static bool oop;

struct round {
	int fd;
	size_t unit;
	int wflags;
	uint64_t gen;
	atomic_int wstarted;
	ssize_t wret;
};

/* --- queued: a reader of the unit and a writer elsewhere, both waiting --- */

struct waiter {
	int fd;
	off_t off;
	size_t len;
	bool write;
	int flags;		/* pwritev2's, for a write */
	uint64_t gen;		/* the pattern a write writes, 0: G_OLD */
	ssize_t ret;
	atomic_int tid, done;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	void *buf = atw_alloc(w->len);
	ssize_t n;

	atomic_store(&w->tid, (int)syscall(SYS_gettid));
	if (w->write) {
		wt_pattern(buf, w->len, w->off, w->gen ? w->gen : G_OLD);
		n = pwritev2(w->fd, &(struct iovec){ buf, w->len }, 1, w->off, w->flags);
	} else {
		n = pread(w->fd, buf, w->len, w->off);
	}
	w->ret = n < 0 ? -errno : n;
	if (n != (ssize_t)w->len)
		diag("%s: %s", w->write ? "queued writer" : "waiting reader", strerror(errno));
	atomic_store(&w->done, 1);
	free(buf);
	return NULL;
}

/* Waits up to 5 s for w to be done or in the kernel in a function starting with fn. */
static bool parked(struct waiter *w, const char *fn)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (atomic_load(&w->done))
			return true;
		if (atomic_load(&w->tid) && wt_thread_in(atomic_load(&w->tid), fn))
			return true;
		usleep(5000);
	}
	diag("%s: not parked in %s", w->write ? "writer" : "reader", fn);
	return false;
}

/* An io_uring read; *slept: whether the submitter slept in io_uring_submit(). */
static ssize_t uring_read(int fd, void *buf, size_t len, off_t off, bool *slept)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	ssize_t ret;
	long before;

	if (io_uring_queue_init(4, &ring, 0))
		tap_bail("io_uring_queue_init");
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, buf, len, off);
	before = wt_thread_nvcsw();
	if (io_uring_submit(&ring) != 1)
		tap_bail("io_uring_submit");
	*slept = wt_thread_nvcsw() != before;
	if (io_uring_wait_cqe(&ring, &cqe))
		tap_bail("io_uring_wait_cqe");
	ret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	return ret;
}

static void *writer(void *arg)
{
	struct round *r = arg;
	void *buf = atw_alloc(r->unit);

	wt_pattern(buf, r->unit, unit_off, r->gen);
	atomic_store(&r->wstarted, 1);
	r->wret = atw_pwrite(r->fd, buf, r->unit, unit_off, r->wflags);
	free(buf);
	return NULL;
}

/* Reads the whole file into the page cache. */
static void cache_file(int fd, size_t len)
{
	void *buf = atw_alloc(len);

	if (pread(fd, buf, len, 0) != (ssize_t)len)
		tap_bail("caching the file: %s", strerror(errno));
	free(buf);
}

/*
 * The unit's commands in the trace: those that wrote any of the extents
 * ext[0..n); *s the index of the first to start, *d the last to end.
 */
static int unit_cmds(const struct atw_extent *ext, int n, int *s, int *d)
{
	struct wt_trace *t = wt_tr();
	int i, k, cmds = 0;

	*s = -1;
	*d = -1;
	for (i = 0; i < t->n; i++) {
		const struct wt_ev *e = &t->ev[i];

		if (e->kind != WT_EV_START || !wt_tr_is_write(e))
			continue;
		for (k = 0; k < n; k++)
			if (e->off < ext[k].physical + ext[k].length &&
			    ext[k].physical < e->off + e->bytes)
				break;
		if (k == n)
			continue;
		cmds++;
		if (*s < 0)
			*s = i;
		if (wt_tr_end(i) > *d)
			*d = wt_tr_end(i);
	}
	return cmds;
}

/*
 * One round: 1 counted (*ok set), 0 not counted (the read began before the
 * unit's command reached the device). phys: where the unit is before the
 * write (out of place, it must move).
 */
static int round_once(int fd, int dio_fd, size_t unit, bool direct, enum what what,
		      uint64_t phys, bool *ok)
{
	bool elsewhere = what == R_ELSEWHERE || what == R_QUEUED || what == R_NEIGHBOUR;
	size_t len = elsewhere ? env->ps : unit;
	off_t roff = elsewhere ? 0 : unit_off;
	struct waiter wr = { .fd = fd, .off = unit_off, .len = unit };
	struct waiter ww = { .fd = fd, .off = unit_off / 2, .len = env->ps, .write = true };
	struct waiter wn = { .fd = fd, .off = unit_off + unit, .len = unit, .write = true,
			     .flags = RWF_ATOMIC | RWF_WRITETHROUGH };
	bool same = what == R_SAME_BLOCK || what == R_SAME_BLOCK_DIO;
	struct waiter wb = { .fd = what == R_SAME_BLOCK_DIO ? dio_fd : fd, .off = unit_off,
			     .len = env->bs, .write = true,
			     .flags = what == R_SAME_BLOCK_DIO ? 0 : RWF_WRITETHROUGH };
	pthread_t wn_th, wr_th, ww_th, wb_th;
	bool slept = false, valid = true;
	unsigned char *rbuf = atw_alloc(len);
	struct round r = {
		.fd = direct ? dio_fd : fd, .unit = unit, .gen = ++gen,
		.wflags = direct ? RWF_ATOMIC : RWF_ATOMIC | RWF_WRITETHROUGH,
	};
	struct atw_extent ext[4];
	int rs, re, s, d, i, err, n_ext, n_cmds;
	uint64_t now = phys;
	pthread_t th;
	ssize_t rret = 0;
	long w;

	if (what == R_NEIGHBOUR) {
		/* the region anew, as one large folio */
		unsigned char *reg = atw_alloc(REGION);

		wt_pattern(reg, REGION, unit_off, G_OLD);
		wt_drop_caches();
		if (pwrite(fd, reg, REGION, unit_off) != REGION || fsync(fd))
			tap_bail("rewriting the region: %s", strerror(errno));
		free(reg);
	}
	if (same)
		wb.gen = ++gen;
	cache_file(fd, file_len);
	err = wt_tr_start();
	if (err)
		tap_bail("device trace: %s", strerror(-err));
	if (pthread_create(&th, NULL, writer, &r))
		tap_bail("pthread_create");
	while (!atomic_load(&r.wstarted))
		;
	for (i = 0; i < 10000 && (w = wt_inflight_writes()) < 1; i++)
		usleep(500);
	if (what == R_QUEUED) {
		/* the reader first, then the writer, each parked before the next */
		pthread_create(&wr_th, NULL, waiter_fn, &wr);
		valid = parked(&wr, "iomap_writethrough_read_wait+");
		pthread_create(&ww_th, NULL, waiter_fn, &ww);
		valid = parked(&ww, "rwsem_down_write_slowpath+") && valid;
	}
	if (what == R_NEIGHBOUR) {
		pthread_create(&wn_th, NULL, waiter_fn, &wn);
		valid = parked(&wn, "folio_wait") && !atomic_load(&wn.done);
		if (!valid)
			diag("the next unit's write did not wait for the folio: no shared folio?");
	}
	wt_mark("R s");
	if (same) {
		pthread_create(&wb_th, NULL, waiter_fn, &wb);
		pthread_join(wb_th, NULL);
	} else if (what == R_UNIT_NOWAIT) {
		rret = preadv2(fd, &(struct iovec){ rbuf, len }, 1, roff, RWF_NOWAIT);
	} else if (what == R_UNIT_URING) {
		rret = uring_read(fd, rbuf, len, roff, &slept);
	} else {
		rret = pread(fd, rbuf, len, roff);
	}
	if (rret < 0 && what != R_UNIT_URING)
		rret = -errno;
	wt_mark("R e");
	pthread_join(th, NULL);
	if (what == R_QUEUED) {
		pthread_join(wr_th, NULL);
		pthread_join(ww_th, NULL);
	}
	if (what == R_NEIGHBOUR)
		pthread_join(wn_th, NULL);
	err = wt_tr_stop(env->lbs);
	if (err)
		tap_bail("device trace: %s", strerror(-err));

	rs = wt_tr_find_mark(0, "R s");
	re = wt_tr_find_mark(rs, "R e");
	/* where the unit is now: where it was in place, its staging blocks out of place */
	n_ext = atw_file_extents(fd, unit_off, unit, ext, 4);
	if (n_ext > 0)
		now = ext[0].physical;
	if (n_ext <= 0 || (oop ? now == phys : now != phys)) {
		diag("the unit %s (device address %llu before, %llu after, %d extents)",
		     oop ? "did not move: not written out of place" : "moved: not written in place",
		     (unsigned long long)phys, (unsigned long long)now, n_ext);
		*ok = false;
		free(rbuf);
		return 1;
	}
	n_cmds = unit_cmds(ext, n_ext, &s, &d);
	if (r.wret != (ssize_t)unit || s < 0 || rs < 0 || re < 0 ||
	    (oop ? n_cmds < 1 : n_cmds != 1) || d >= wt_tr()->n) {
		diag("%s write: %s; commands at the unit's address %d (want %s); markers %d %d",
		     direct ? "direct" : "write-through", atw_err(r.wret), n_cmds,
		     oop ? "1 or more, out of place" : "1, in place", rs, re);
		*ok = false;
		free(rbuf);
		return 1;
	}
	if (rs < s || rs > d || !valid) {
		if (valid)
			diag("round not counted: the read began %s the unit's command (%ld "
			     "writes were in flight)", rs < s ? "before" : "after", w);
		free(rbuf);
		return 0;
	}
	switch (what) {
	case R_ELSEWHERE:
	case R_QUEUED:
	case R_NEIGHBOUR:
		*ok = rret == (ssize_t)len && re < d && wt_pattern_bad(rbuf, len, 0, G_OLD) < 0;
		if (!*ok)
			diag("read %s, ended %s the unit's command completed", atw_err(rret),
			     re < d ? "before" : "after");
		break;
	case R_UNIT_URING:
		if (slept)
			diag("the submitting thread slept in io_uring_submit()");
		/* fall through */
	case R_UNIT:
		*ok = !slept && rret == (ssize_t)len && re > d &&
		      wt_pattern_bad(rbuf, len, unit_off, r.gen) < 0;
		if (!*ok)
			diag("read %s, ended %s the unit's command completed, data %s",
			     atw_err(rret), re > d ? "after" : "before",
			     rret == (ssize_t)len && wt_pattern_bad(rbuf, len, unit_off, r.gen) < 0 ?
			     "whole new" : "not the new unit");
		break;
	case R_UNIT_NOWAIT:
		if (re > d) {
			diag("round not counted: the RWF_NOWAIT read ended after the command");
			free(rbuf);
			return 0;
		}
		*ok = rret == -EAGAIN;
		if (!*ok)
			diag("RWF_NOWAIT read during the unit's I/O: %s (want EAGAIN)", atw_err(rret));
		break;
	case R_SAME_BLOCK:
	case R_SAME_BLOCK_DIO:
		wt_drop_caches();
		rret = pread(fd, rbuf, len, unit_off);
		*ok = wb.ret == (ssize_t)env->bs && rret == (ssize_t)len &&
		      wt_pattern_bad(rbuf, env->bs, unit_off, wb.gen) < 0 &&
		      wt_pattern_bad(rbuf + env->bs, len - env->bs, unit_off + env->bs,
				     r.gen) < 0;
		if (!*ok)
			diag("second write %s, read %s; first block %s, the rest %s",
			     atw_err(wb.ret), atw_err(rret),
			     wt_pattern_bad(rbuf, env->bs, unit_off, wb.gen) < 0 ?
			     "the second write's" :
			     wt_pattern_bad(rbuf, env->bs, unit_off, r.gen) < 0 ?
			     "the unit's (the second write is lost)" : "neither write's",
			     wt_pattern_bad(rbuf + env->bs, len - env->bs, unit_off + env->bs,
					    r.gen) < 0 ? "the unit's" : "not the unit's");
		break;
	}
	free(rbuf);
	return 1;
}

static bool elsewhere_kind(enum what what)
{
	return what == R_ELSEWHERE || what == R_QUEUED || what == R_NEIGHBOUR;
}

static void rounds(int fd, int dio_fd, size_t unit, bool direct, enum what what,
		   uint64_t phys)
{
	static int oop_next;	/* the out-of-place file's next unused unit */
	const char *how = oop ? " written out of place" : "";
	bool ok = false;
	int k;

	for (k = 0; k < TRIES; k++) {
		if (oop) {
			/* a unit that has not moved yet */
			if ((oop_next + 1) * unit > OOP_BLOCKS * env->bs - env->bs)
				tap_bail("the out-of-place file has no unit left");
			unit_off = UNIT_OFF + oop_next++ * (off_t)unit;
			if (wt_phys(fd, unit_off, &phys))
				tap_bail("FIEMAP: %s", strerror(errno));
		}
		if (round_once(fd, dio_fd, unit, direct, what, phys, &ok))
			break;
	}
	if (k == TRIES && what == R_NEIGHBOUR) {
		skip("the two units never shared a large folio", "%s", what_name[what]);
		return;
	}
	if (k == TRIES) {
		check(false, "%s beside %s %zu-byte unit%s: no round counted in %d",
		      what_name[what], direct ? "an atomic direct write of a" :
		      "an atomic write-through of a", unit, how, TRIES);
		return;
	}
	if (elsewhere_kind(what))
		check(ok, "%s beside %s %zu-byte unit%s ends while its command is in flight",
		      what_name[what], direct ? "an atomic direct write of a" :
		      "an atomic write-through of a", unit, how);
	else if (what == R_UNIT)
		check(ok, "%s%s in flight (%zu bytes) waits for its completion and is whole new",
		      what_name[what], how, unit);
	else if (what == R_UNIT_URING)
		check(ok, "%s in flight (%zu bytes) completes after it, whole new, and its "
		      "submitter does not sleep", what_name[what], unit);
	else if (what == R_SAME_BLOCK || what == R_SAME_BLOCK_DIO)
		check(ok, "%s while the unit%s (%zu bytes) is in flight is not lost when the "
		      "unit completes", what_name[what], how, unit);
	else
		check(ok, "%s%s in flight (%zu bytes) fails with EAGAIN", what_name[what], how,
		      unit);
}

/*
 * The file name holding old data from 0 to len, with [start, start + region)
 * on one extent at a device address aligned to region.
 */
static int old_data_file(const char *name, off_t start, size_t region, size_t len)
{
	void *buf = atw_alloc(len);
	bool aligned;
	int fd = wt_aligned_file(name, 0, start, region, &aligned);

	if (!aligned)
		tap_bail("%s: no aligned extent in 32 attempts", name);
	wt_pattern(buf, len, 0, G_OLD);
	if (pwrite(fd, buf, len, 0) != (ssize_t)len || fsync(fd))
		tap_bail("%s: write: %s", name, strerror(errno));
	free(buf);
	return fd;
}

/* A file of UNIT_OFF + REGION bytes of old data, the region on an aligned extent. */
static int make_file(size_t max_unit, int *dio_fd, uint64_t *phys)
{
	int fd = old_data_file("inflight_read", UNIT_OFF, REGION, UNIT_OFF + REGION);

	if (wt_phys(fd, UNIT_OFF, phys) || *phys % max_unit)
		tap_bail("the unit is not at an aligned device address");
	*dio_fd = atw_env_open("inflight_read", O_DIRECT);
	return fd;
}

/*
 * The out-of-place file: OOP_BLOCKS blocks from UNIT_OFF - one block on one
 * extent aligned to their length, so that every two-block unit from UNIT_OFF
 * on lies one block off an aligned device address; old data from 0.
 */
static int make_oop_file(void)
{
	size_t region = OOP_BLOCKS * (size_t)env->bs;
	off_t start = UNIT_OFF - env->bs;

	file_len = start + region;
	return old_data_file("inflight_oop", start, region, file_len);
}

int main(int argc, char **argv)
{
	long long ndelay, jdelay;
	size_t two;
	uint64_t phys;
	int fd, dio_fd, ret;

	tap_start("wt_inflight_read");
	env = atw_env_setup(argc, argv, "usage: wt_inflight_read DIR");
	if (!env->lim.buf || env->lim.buf_min > env->bs) {
		skip("no buffered atomic writes of one block advertised",
		     "reads beside atomic write-throughs in flight");
		return tap_done();
	}
	two = 2 * (size_t)env->bs;
	fd = make_file(two, &dio_fd, &phys);
	ndelay = wt_sdebug_slow(SLOW_NS, &jdelay);
	if (ndelay < 0) {
		skip("scsi_debug's delay cannot be set", "ndelay: %s", strerror((int)-ndelay));
		return tap_done();
	}

	if (env->lim.dio && env->lim.dio_max >= two)
		rounds(fd, dio_fd, two, true, R_ELSEWHERE, phys);
	else
		skip("no atomic direct writes of two blocks", "the control");
	rounds(fd, dio_fd, env->bs, false, R_ELSEWHERE, phys);
	rounds(fd, dio_fd, env->bs, false, R_UNIT, phys);
	rounds(fd, dio_fd, env->bs, false, R_UNIT_NOWAIT, phys);
	rounds(fd, dio_fd, env->bs, false, R_UNIT_URING, phys);
	if (env->lim.buf_max >= two) {
		rounds(fd, dio_fd, two, false, R_ELSEWHERE, phys);
		rounds(fd, dio_fd, two, false, R_UNIT, phys);
		rounds(fd, dio_fd, two, false, R_UNIT_NOWAIT, phys);
		rounds(fd, dio_fd, two, false, R_QUEUED, phys);
		rounds(fd, dio_fd, two, false, R_NEIGHBOUR, phys);
	} else {
		skip("no buffered atomic units of two blocks advertised",
		     "reads beside two-block atomic write-throughs");
	}

	if (env->lim.buf_max >= two) {
		int ofd = make_oop_file();
		int odio = atw_env_open("inflight_oop", O_DIRECT);

		oop = true;
		rounds(ofd, odio, two, false, R_ELSEWHERE, 0);
		rounds(ofd, odio, two, false, R_UNIT, 0);
		rounds(ofd, odio, two, false, R_UNIT_NOWAIT, 0);
		rounds(ofd, odio, two, false, R_SAME_BLOCK, 0);
		rounds(ofd, odio, two, false, R_SAME_BLOCK_DIO, 0);
		close(odio);
		close(ofd);
	}

	ret = wt_sdebug_restore_delay(ndelay, jdelay);
	if (ret)
		tap_bail("restoring scsi_debug's delay: %s", strerror(-ret));
	close(dio_fd);
	close(fd);
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_inflight_read");
	skip(WT_UAPI_SKIP, "reads beside atomic write-throughs in flight");
	return tap_done();
}

#endif
