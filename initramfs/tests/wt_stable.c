// SPDX-License-Identifier: GPL-2.0
/*
 * Stable pages under write-through (docs/design.md, "Stable pages") on the
 * XFS mounted at DIR, with device latency (scsi_debug ndelay) and the disk's
 * queue depth set to 1 while a reader thread keeps it busy, so that a
 * write-through's command waits between the copy and the dispatch. Evidence
 * is the order of events in the kernel trace (dispatch, completion,
 * markers), never time.
 *  1. Same thread: an AIO write-through is submitted, then an mmap store, a
 *     buffered write, or a second write-through of the same range: each must
 *     not finish before the first write's I/O has completed, and the device
 *     must hold exactly the first write's data afterwards (the later data
 *     never rides along in its command).
 *  2. Threads (device latency only, no busy reader): synchronous
 *     write-throughs of a range in a loop against a
 *     thread doing mmap stores, buffered writes or write-throughs of it: an
 *     operation that starts while a write to the range is in flight ends
 *     after that write completes; no two writes to the range are ever in
 *     flight together; with full-range writers the device always holds one
 *     whole version of the range. An atomic write-through beside mmap
 *     stores writes their data back first and may give up with EAGAIN when
 *     they keep dirtying the range (docs/design.md, "Atomic write-throughs
 *     over dirty data"); not every one of them may.
 *  3. Stable writes required by the device (queue/stable_writes=1 at mount)
 *     stay required after write-throughs finished: an mmap store during a
 *     plain writeback still waits.
 * Both for plain and (if statx advertises it) atomic write-through.
 *
 * usage: wt_stable DIR [ITERATIONS]   (needs scsi_debug ndelay > 0)
 */
#include "lib/wt_common.h"

#include <linux/aio_abi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifdef RWF_WRITETHROUGH

enum bmode { B_MMAP, B_BUFWRITE, B_WT };
static const char *const bname[] = { "mmap store", "buffered write", "second write-through" };

static unsigned int iters = 24;
#define MAX_B_OPS 1000
static atomic_int busy_stop;
static char qd_path[256];
static char qd_old[32];

/* --- the busy reader: keeps the single queue slot occupied --- */

static void *busy_reader(void *arg)
{
	uint64_t at = *(uint64_t *)arg;
	void *buf = atw_alloc(4096);
	int fd = open(atw_env()->disk, O_RDONLY | O_DIRECT);

	while (fd >= 0 && !atomic_load(&busy_stop))
		if (pread(fd, buf, 4096, at) < 0)
			break;
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static pthread_t busy_thread;
static uint64_t busy_at;

static void busy_start(void)
{
	atomic_store(&busy_stop, 0);
	pthread_create(&busy_thread, NULL, busy_reader, &busy_at);
}

static void busy_end(void)
{
	atomic_store(&busy_stop, 1);
	pthread_join(busy_thread, NULL);
}

static void queue_depth_one(void)
{
	char hctl[64];

	if (wt_disk_hctl(hctl, sizeof(hctl)))
		return;
	snprintf(qd_path, sizeof(qd_path), "/sys/class/scsi_device/%s/device/queue_depth", hctl);
	if (kf_read(qd_path, qd_old, sizeof(qd_old)) || kf_write(qd_path, "1", 0)) {
		diag("cannot set %s: the copy-to-dispatch window stays short", qd_path);
		qd_path[0] = 0;
		return;
	}
	diag("queue depth %s -> 1 while testing", qd_old);
}

static void queue_depth_restore(void)
{
	if (qd_path[0])
		kf_write(qd_path, qd_old, 0);
}

/* --- one range of one file --- */

struct range {
	int fd;
	off_t off;
	size_t len;
	uint64_t phys;
	unsigned char *map;
	int flags;	/* RWF_WRITETHROUGH [| RWF_ATOMIC] */
};

static void range_open(struct range *r, const char *name, size_t len, int flags)
{
	unsigned char *buf = atw_alloc(len);

	r->fd = atw_env_open(name, O_TRUNC);
	r->off = 4 * (off_t)len;
	r->len = len;
	r->flags = flags;
	atw_fill(buf, len, r->off, 1);
	if (atw_pwrite(r->fd, buf, len, r->off, 0) != (ssize_t)len || fsync(r->fd))
		tap_bail("pre-write %s", name);
	if (wt_phys(r->fd, r->off, &r->phys))
		tap_bail("FIEMAP %s", name);
	r->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, r->off);
	if (r->map == MAP_FAILED)
		tap_bail("mmap %s: %s", name, strerror(errno));
	free(buf);
}

static void range_close(struct range *r)
{
	munmap(r->map, r->len);
	close(r->fd);
}

/* One B operation with generation gen; marks "B i s" and "B i d" around it. */
static ssize_t b_op(struct range *r, enum bmode m, unsigned int i, uint64_t gen, void *buf)
{
	ssize_t ret = 0;

	wt_mark("B %u s", i);
	switch (m) {
	case B_MMAP:
		atw_fill(buf, 512, r->off, gen);
		memcpy(r->map, buf, 512);
		break;
	case B_BUFWRITE:
		atw_fill(buf, r->len, r->off, gen);
		ret = atw_pwrite(r->fd, buf, r->len, r->off, 0);
		break;
	case B_WT:
		atw_fill(buf, r->len, r->off, gen);
		ret = atw_pwrite(r->fd, buf, r->len, r->off, r->flags);
		break;
	}
	wt_mark("B %u d", i);
	return ret;
}

static int in_range(const struct range *r, const struct wt_ev *e)
{
	return wt_tr_is_write(e) && e->off < r->phys + r->len && r->phys < e->off + e->bytes;
}

/*
 * For every B operation i < n: every write to the range that was in flight
 * when it started must have completed before it ended. In flight: dispatched
 * before B started and not completed (threads), or -- aio -- submitted
 * between markers "A i s" and "A i r" and not completed when B started
 * (a command still queued when B started counts: its folios were already
 * under writeback). Returns the violations; *exercised counts the B
 * operations that had such a write.
 */
static int order_violations(const struct range *r, unsigned int n, int aio,
			    unsigned int *exercised)
{
	struct wt_trace *t = wt_tr();
	unsigned int i;
	int bad = 0;
	char m[32];

	*exercised = 0;
	for (i = 0; i < n; i++) {
		int s, d, w, as = -1, ar = t->n, hit = 0;

		snprintf(m, sizeof(m), "B %u s", i);
		s = wt_tr_find_mark(0, m);
		snprintf(m, sizeof(m), "B %u d", i);
		d = wt_tr_find_mark(s, m);
		if (s < 0 || d < 0)
			continue;
		if (aio) {
			snprintf(m, sizeof(m), "A %u s", i);
			as = wt_tr_find_mark(0, m);
			snprintf(m, sizeof(m), "A %u r", i);
			ar = wt_tr_find_mark(as, m);
			if (as < 0)
				continue;
			if (ar < 0)
				ar = t->n;
		}
		for (w = 0; w < t->n; w++) {
			const struct wt_ev *e = &t->ev[w];
			int done = wt_tr_end(w);

			if (!in_range(r, e) || done < s)
				continue;
			if (aio ? (w <= as || w >= ar) : w >= s)
				continue;
			hit = 1;
			if (done > d && bad++ < 3)
				diag("B op %u (events %d..%d) ended before the write %llu+%llu (events %d..%d) completed",
				     i, s, d, (unsigned long long)e->off,
				     (unsigned long long)e->bytes, w, done);
		}
		*exercised += hit;
	}
	return bad;
}

/* --- part 1: AIO write-through, then B in the same thread --- */

static long sys_io_setup(unsigned int n, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, n, ctx);
}

static long sys_io_submit(aio_context_t ctx, long n, struct iocb **iocbs)
{
	return syscall(SYS_io_submit, ctx, n, iocbs);
}

static long sys_io_getevents(aio_context_t ctx, long min, long max, struct io_event *ev)
{
	return syscall(SYS_io_getevents, ctx, min, max, ev, NULL);
}

static void part_aio(enum bmode m, int flags, const char *what)
{
	const struct atw_env *e = atw_env();
	size_t len = flags & RWF_ATOMIC ? (e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min) : 2 * e->bs;
	unsigned char *abuf = atw_alloc(len), *bbuf = atw_alloc(len), *dev = atw_alloc(len);
	unsigned int i, exercised, held = 0, n = iters / 2;
	aio_context_t ctx = 0;
	struct range r;
	int err, bad, submitted = 0;

	if (m == B_WT) {
		free(abuf);
		free(bbuf);
		free(dev);
		return;	/* a later write-through's own I/O is covered in part 2 */
	}
	if (sys_io_setup(4, &ctx)) {
		skip("no AIO", "%s: AIO write-through then %s", what, bname[m]);
		goto out_free;
	}
	range_open(&r, "wt_stable_aio", len, flags);
	busy_start();
	err = wt_tr_start();
	for (i = 0; i < n; i++) {
		struct iocb cb = { 0 }, *cbs[1] = { &cb };
		struct io_event ev;
		uint64_t gen;

		atw_fill(abuf, len, r.off, 100 + i);
		cb.aio_lio_opcode = IOCB_CMD_PWRITE;
		cb.aio_fildes = r.fd;
		cb.aio_buf = (uintptr_t)abuf;
		cb.aio_nbytes = len;
		cb.aio_offset = r.off;
		cb.aio_rw_flags = flags;
		wt_mark("A %u s", i);
		if (sys_io_submit(ctx, 1, cbs) != 1) {
			check(0, "%s: io_submit of the write-through: %s", what, strerror(errno));
			break;
		}
		submitted++;
		b_op(&r, m, i, 1000 + i, bbuf);
		if (sys_io_getevents(ctx, 1, 1, &ev) != 1 || ev.res != (long long)len) {
			check(0, "%s: AIO write-through completes with the length (%lld)", what,
			      (long long)ev.res);
			break;
		}
		wt_mark("A %u r", i);
		/* What the device got from A's command: A's data, nothing of B. */
		if (wt_dev_pread(dev, len, r.phys) == (ssize_t)len &&
		    wt_version_of(dev, len, r.off, &gen) == WT_V_ONE && gen == 100 + i)
			held++;
		else if (held == i)
			diag("%s, %s: round %u: the device does not hold exactly the AIO write's data",
			     what, bname[m], i);
		/* Put the range back to A's data before the next round. */
		fsync(r.fd);
	}
	err = err ? err : wt_tr_stop(e->lbs);
	busy_end();
	if (!check(!err, "%s: trace complete (%d)", what, err))
		goto out;
	bad = order_violations(&r, submitted, 1, &exercised);
	diag("%s, AIO then %s: %u of %d rounds had the write in flight when the %s started",
	     what, bname[m], exercised, submitted, bname[m]);
	if (exercised)
		check(bad == 0, "%s: a %s after an AIO write-through waits for its I/O (%d did not)",
		      what, bname[m], bad);
	else
		skip("every AIO write-through had completed before io_submit returned",
		     "%s: a %s after an AIO write-through waits", what, bname[m]);
	check(held == (unsigned int)submitted,
	      "%s: the device got exactly the AIO write's data every time (%u of %d), never the later %s's",
	      what, held, submitted, bname[m]);
	check(wt_tr_concurrent_overlaps(r.phys, r.phys + len) == 0,
	      "%s, AIO then %s: never two writes to the range in flight together", what, bname[m]);
out:
	range_close(&r);
	syscall(SYS_io_destroy, ctx);
out_free:
	free(abuf);
	free(bbuf);
	free(dev);
}

/* --- part 2: threads --- */

struct race {
	struct range *r;
	enum bmode m;
	atomic_int stop;
	unsigned int nb;
	unsigned int mixed, samples, errors;
};

static void *b_thread(void *arg)
{
	struct race *x = arg;
	unsigned char *buf = atw_alloc(x->r->len);

	while (!atomic_load(&x->stop) && x->nb < MAX_B_OPS) {
		ssize_t ret = b_op(x->r, x->m, x->nb, 1000 + x->nb, buf);

		if (x->m != B_MMAP && ret != (ssize_t)x->r->len)
			x->errors++;
		x->nb++;
		usleep(200);	/* spread the operations over A's loop */
	}
	free(buf);
	return NULL;
}

static void part_threads(enum bmode m, int flags, const char *what)
{
	const struct atw_env *e = atw_env();
	size_t len = flags & RWF_ATOMIC ? (e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min) : 2 * e->bs;
	unsigned char *abuf = atw_alloc(len), *dev = atw_alloc(len);
	struct race x = { 0 };
	unsigned int i, exercised = 0, aerr = 0, again = 0, attempt;
	struct range r;
	pthread_t th;
	uint64_t gen;
	int err = 0, bad = 0, ov = 0;

	range_open(&r, "wt_stable_race", len, flags);
	x.r = &r;
	x.m = m;
	/*
	 * Whether B ever starts while A's I/O is in flight depends on the
	 * scheduling of two threads on a loaded host (usually 5-15 % of B's
	 * operations, once 0 in about 50 runs): up to three attempts, each
	 * judged on its own trace, until one exercised the race.
	 */
	for (attempt = 1; attempt <= 3 && !exercised && !err; attempt++) {
		x.nb = 0;
		atomic_store(&x.stop, 0);
		err = wt_tr_start();
		pthread_create(&th, NULL, b_thread, &x);
		for (i = 0; i < iters; i++) {
			ssize_t ret;

			atw_fill(abuf, len, r.off, 100 + i);
			ret = atw_pwrite(r.fd, abuf, len, r.off, flags);
			/*
			 * An atomic write-through writes back what the stores
			 * dirtied first, and gives up with EAGAIN when they
			 * keep dirtying it (as an atomic direct write does).
			 */
			if (ret == -EAGAIN && (flags & RWF_ATOMIC) && m == B_MMAP)
				again++;
			else if (ret != (ssize_t)len)
				aerr++;
			if (m != B_MMAP) {
				x.samples++;
				if (wt_dev_pread(dev, len, r.phys) != (ssize_t)len ||
				    wt_version_of(dev, len, r.off, &gen) != WT_V_ONE)
					x.mixed++;
			}
		}
		atomic_store(&x.stop, 1);
		pthread_join(th, NULL);
		err = err ? err : wt_tr_stop(e->lbs);
		if (err)
			break;
		bad = order_violations(&r, x.nb, 0, &exercised);
		ov += wt_tr_concurrent_overlaps(r.phys, r.phys + len);
		diag("%s vs %s: attempt %u: %u of %u operations started while a write to the range was in flight",
		     what, bname[m], attempt, exercised, x.nb);
		if (bad || ov)
			break;
	}
	if (again)
		diag("%s vs %s: %u of %u writes gave up with EAGAIN beside the stores", what,
		     bname[m], again, iters * (attempt - 1));
	check(aerr == 0 && x.errors == 0, "%s vs %s: every write returned its length%s (%u, %u failed)",
	      what, bname[m], (flags & RWF_ATOMIC) && m == B_MMAP ? " or EAGAIN" : "",
	      aerr, x.errors);
	if (again && again == iters * (attempt - 1))
		skip("every atomic write-through gave up with EAGAIN beside the stores",
		     "%s vs %s: stable pages under the write's own I/O", what, bname[m]);
	if (!check(!err, "%s vs %s: trace complete (%d)", what, bname[m], err))
		goto out;
	check(exercised > 0, "%s vs %s: the race was exercised", what, bname[m]);
	check(bad == 0, "%s vs %s: an operation started during a write's I/O waits for it (%d did not)",
	      what, bname[m], bad);
	check(ov == 0, "%s vs %s: never two writes to the range in flight together (%d pairs)",
	      what, bname[m], ov);
	if (m != B_MMAP) {
		check(x.mixed == 0, "%s vs %s: the device always held one whole version (%u of %u samples mixed)",
		      what, bname[m], x.mixed, x.samples);
		fsync(r.fd);
		check(wt_dev_pread(dev, len, r.phys) == (ssize_t)len &&
		      wt_version_of(dev, len, r.off, &gen) == WT_V_ONE,
		      "%s vs %s: after fsync the device holds one whole version", what, bname[m]);
	}
out:
	range_close(&r);
	free(abuf);
	free(dev);
}

/* --- part 3: a device that requires stable writes keeps them --- */

static void part_device_stable(void)
{
	const struct atw_env *e = atw_env();
	const char *name = strrchr(e->disk, '/') + 1;
	unsigned char *buf = atw_alloc(2 * e->bs);
	char path[256], old[16];
	unsigned int exercised;
	struct range r;
	int err, bad;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/stable_writes", name);
	if (kf_read(path, old, sizeof(old)) || kf_write(path, "1", 0)) {
		skip("queue/stable_writes not writable", "device stable-writes requirement survives write-through");
		free(buf);
		return;
	}
	wt_remount();	/* the superblock picks the requirement up at mount */
	range_open(&r, "wt_stable_dev", 2 * e->bs, RWF_WRITETHROUGH);
	atw_fill(buf, r.len, r.off, 2);
	check(atw_pwrite(r.fd, buf, r.len, r.off, RWF_WRITETHROUGH) == (ssize_t)r.len,
	      "stable device: a write-through completes");
	busy_start();
	err = wt_tr_start();
	/* Dirty through mmap, start writeback, store again at once. */
	memset(r.map + 600, 0x11, 16);
	wt_mark("A 0 s");
	sync_file_range(r.fd, r.off, r.len, SYNC_FILE_RANGE_WRITE);
	b_op(&r, B_MMAP, 0, 3000, buf);
	wt_mark("A 0 r");	/* the writes fsync sends next are not the writeback's */
	fsync(r.fd);
	err = err ? err : wt_tr_stop(e->lbs);
	busy_end();
	bad = err ? 1 : order_violations(&r, 1, 1, &exercised);
	if (!err && !exercised)
		skip("the writeback had completed before the store", "stable device: mmap store during writeback waits");
	else
		check(bad == 0, "stable device: after write-throughs, an mmap store during writeback still waits");
	range_close(&r);
	kf_write(path, old, 0);
	wt_remount();
	free(buf);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	long long ndelay = wt_sdebug_param("ndelay");
	long long sectors;
	char path[256];
	int atomic, m;

	snprintf(path, sizeof(path), "/sys/block/%s/size", strrchr(e->disk, '/') + 1);
	{
		char buf[32];

		sectors = kf_read(path, buf, sizeof(buf)) ? 0 : atoll(buf);
	}
	busy_at = (uint64_t)sectors * 512 - (1 << 20);
	diag("scsi_debug ndelay %lld ns, %u iterations", ndelay, iters);
	if (ndelay <= 0) {
		skip("needs device latency (scsi_debug ndelay > 0)", "wt_stable");
		return;
	}
	queue_depth_one();
	for (atomic = 0; atomic <= 1; atomic++) {
		const char *what = atomic ? "atomic write-through" : "write-through";
		int flags = RWF_WRITETHROUGH | (atomic ? RWF_ATOMIC : 0);

		if (atomic && !(e->lim.buf_known && e->lim.buf)) {
			skip("statx advertises no buffered atomic writes", "atomic write-through stable pages");
			continue;
		}
		for (m = B_MMAP; m <= B_WT; m++)
			part_aio(m, flags, what);
		for (m = B_MMAP; m <= B_WT; m++)
			part_threads(m, flags, what);
	}
	part_device_stable();
	queue_depth_restore();
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_stable");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_stable DIR [ITERATIONS]");
	if (argc > 2)
		iters = atoi(argv[2]);
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_stable");
#endif
	return tap_done();
}
