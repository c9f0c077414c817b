// SPDX-License-Identifier: GPL-2.0
/*
 * Write-throughs of one file (DIR an XFS, also on a slow disk) keep readers
 * out of their copy and stay correct beside each other.
 *
 * Part 1, the lock mode. A thread holds the iolock shared inside an O_DIRECT
 * read (XFS holds it across the read) whose buffer is a userfaultfd
 * "missing" page: the read parks on that fault until this thread supplies
 * the page, which it does only once it has judged one blocking write-through
 * issued meanwhile by a third thread. The writer either finishes beside the
 * parked read (it took the iolock shared) or is seen asleep in xfs_ilock()
 * (/proc/PID/stack: it waits for the iolock exclusively). Every kind waits:
 * an extending write-through, and an overwrite of written blocks inside
 * EOF, plain and (where statx advertises it) RWF_ATOMIC. Buffered reads hold
 * the iolock shared, so a write-through that copied beside one (a shared-lock
 * overwrite mode did) lets it see the copy half done: a torn atomic unit
 * (wt_readers shows that from the reader's side).
 * Part 2, overwrites beside each other and beside the exclusive path: 4
 * threads write-through unaligned ranges of one region (some with RWF_DSYNC),
 * one thread atomic write-throughs of whole units of another (or plain ones
 * of whole blocks), and one thread punches units of that region (the next
 * write there allocates, under the exclusive iolock) and extends the file by
 * a write-through and truncates it back:
 *  - no thread hangs (joined with a deadline), every write returns its
 *    length;
 *  - the page cache and the device hold the same bytes in both regions
 *    (two write-throughs of one folio never reach the device out of the
 *    order in which they changed the cache);
 *  - every unit of the second region is zeros or one whole write of it, in
 *    the cache and on the device.
 *
 * usage: wt_shared DIR [WRITES]
 */
#include "lib/wt_common.h"

#include <linux/falloc.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define PLAIN_LEN	(256u << 10)	/* region of the unaligned overwrites */
#define NUNITS		32		/* units of the atomic region */
#define NPLAIN		4
#define TRIALS		4
#define STEP_MS		30000		/* a hang or a missed event, not a time */
#define DEADLINE	600		/* seconds: a hang, not a measurement */

enum kind { K_EXTEND, K_PLAIN, K_ATOMIC, NKINDS };
static const char *const kind_name[] = {
	"extending write-through",
	"plain write-through overwrite",
	"RWF_ATOMIC write-through overwrite",
};

static int fd, dio_fd, uffd;
static size_t bs, ps, unit;
static off_t plain_off, unit_off, file_end;
static bool atomic_ok;

static unsigned char *rbuf;		/* the parked read's buffer */
static atomic_int r_done, w_done;
static atomic_int w_tid;
static ssize_t w_ret;
static struct { off_t off; size_t len; int flags; unsigned char *buf; } w;

/* The direct read: parks on rbuf's missing page with the iolock held. */
static void *reader(void *arg)
{
	(void)arg;
	if (pread(dio_fd, rbuf, ps, 0) != (ssize_t)ps)
		diag("direct read: %s", strerror(errno));
	atomic_store(&r_done, 1);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	atomic_store(&w_tid, gettid());
	w_ret = atw_pwrite(fd, w.buf, w.len, w.off, w.flags);
	atomic_store(&w_done, 1);
	return NULL;
}

enum outcome { O_BESIDE, O_WAITED, O_UNDECIDED, O_NOFAULT };

/* One trial of kind k: the read parked, the write judged, the read let go. */
static enum outcome trial(enum kind k, unsigned char *buf, unsigned int i)
{
	struct uffdio_register reg = { 0 };
	struct uffdio_zeropage zero = { 0 };
	struct timespec ms = { 0, 1000 * 1000 };
	enum outcome o = O_UNDECIDED;
	struct uffd_msg msg;
	struct pollfd pf = { .events = POLLIN };
	pthread_t tr, tw;
	int waited;

	rbuf = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rbuf == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	reg.range.start = (unsigned long)rbuf;
	reg.range.len = ps;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		tap_bail("UFFDIO_REGISTER: %s", strerror(errno));

	atomic_store(&r_done, 0);
	atomic_store(&w_done, 0);
	atomic_store(&w_tid, 0);
	if (pthread_create(&tr, NULL, reader, NULL))
		tap_bail("pthread_create");
	pf.fd = uffd;
	if (poll(&pf, 1, STEP_MS) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		o = O_NOFAULT;
	} else {
		w.off = k == K_EXTEND ? file_end : k == K_PLAIN ? plain_off : unit_off;
		w.len = k == K_ATOMIC ? unit : bs;
		w.flags = RWF_WRITETHROUGH | (k == K_ATOMIC ? RWF_ATOMIC : 0);
		w.buf = buf;
		atw_fill(buf, w.len, w.off, 100 + i);
		if (pthread_create(&tw, NULL, writer, NULL))
			tap_bail("pthread_create");
		while (!atomic_load(&w_tid))
			nanosleep(&ms, NULL);
		for (waited = 0; waited < STEP_MS; waited++) {
			if (atomic_load(&w_done)) {
				o = O_BESIDE;
				break;
			}
			if (wt_thread_in(atomic_load(&w_tid), "xfs_ilock+")) {
				o = O_WAITED;
				break;
			}
			nanosleep(&ms, NULL);
		}
		if (atomic_load(&r_done))	/* never: the read is parked */
			o = O_UNDECIDED;
	}

	zero.range.start = (unsigned long)rbuf;
	zero.range.len = ps;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zero) && errno != EEXIST)
		tap_bail("UFFDIO_ZEROPAGE: %s", strerror(errno));
	pthread_join(tr, NULL);
	if (o != O_NOFAULT) {
		pthread_join(tw, NULL);
		if (w_ret != (ssize_t)w.len)
			diag("%s: the write returned %s", kind_name[k], atw_err(w_ret));
		if (k == K_EXTEND && ftruncate(fd, file_end))
			tap_bail("truncate back: %s", strerror(errno));
	}
	munmap(rbuf, ps);
	return o;
}

static void lock_mode(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	unsigned char *buf = atw_alloc(unit > bs ? unit : bs);
	unsigned int n[NKINDS][4] = { { 0 } };
	unsigned int i, k;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		skip("userfaultfd unavailable", "the iolock mode of write-throughs (%s)",
		     strerror(errno));
		free(buf);
		return;
	}
	for (i = 0; i < TRIALS; i++)
		for (k = 0; k < NKINDS; k++)
			if (k != K_ATOMIC || atomic_ok)
				n[k][trial(k, buf, i)]++;
	close(uffd);

	for (k = 0; k < NKINDS; k++) {
		if (k == K_ATOMIC && !atomic_ok) {
			skip("statx advertises no buffered atomic unit of one block",
			     "%s beside a direct read", kind_name[k]);
			continue;
		}
		diag("%s, %u trials: %u finished beside the parked direct read, %u waited in xfs_ilock, %u undecided, %u without the fault",
		     kind_name[k], TRIALS, n[k][O_BESIDE], n[k][O_WAITED], n[k][O_UNDECIDED],
		     n[k][O_NOFAULT]);
		check(n[k][O_WAITED] == TRIALS,
		      "%s waits for the iolock while a direct read holds it shared: no reader sees its copy half done (%u of %u)",
		      kind_name[k], n[k][O_WAITED], TRIALS);
	}
	free(buf);
}

/* --- part 2 --- */

static atomic_uint bad_writes, writes;
static atomic_long first_bad;
static atomic_int stop_mixer;

static void note(ssize_t ret, size_t len)
{
	atomic_fetch_add(&writes, 1);
	if (ret != (ssize_t)len && !atomic_fetch_add(&bad_writes, 1))
		atomic_store(&first_bad, (long)ret);
}

static void *plain_writer(void *arg)
{
	unsigned int seed = (uintptr_t)arg * 7919 + 3, n = (uintptr_t)arg >> 8;
	unsigned int id = (uintptr_t)arg & 0xff, i;
	unsigned char *buf = atw_alloc(32 << 10);

	for (i = 0; i < n; i++) {
		size_t len = 1 + wt_rnd(&seed, 32 << 10);
		off_t off = wt_rnd(&seed, PLAIN_LEN);
		int flags = RWF_WRITETHROUGH | (wt_rnd(&seed, 8) ? 0 : RWF_DSYNC);

		if (off + len > PLAIN_LEN)
			len = PLAIN_LEN - off;
		atw_fill(buf, len, plain_off + off, ((uint64_t)id << 32) | i);
		note(atw_pwrite(fd, buf, len, plain_off + off, flags), len);
	}
	free(buf);
	return NULL;
}

static void *unit_writer(void *arg)
{
	unsigned int seed = 17, n = (uintptr_t)arg, i;
	int flags = RWF_WRITETHROUGH | (atomic_ok ? RWF_ATOMIC : 0);
	unsigned char *buf = atw_alloc(unit);

	for (i = 0; i < n; i++) {
		off_t off = unit_off + (off_t)wt_rnd(&seed, NUNITS) * unit;

		atw_fill(buf, unit, off, (9ULL << 32) | i);
		note(atw_pwrite(fd, buf, unit, off, flags), unit);
	}
	free(buf);
	return NULL;
}

/* Punches units and extends and truncates back: the exclusive path. */
static void *mixer(void *arg)
{
	unsigned int seed = 29, i = 0;
	unsigned char *buf = atw_alloc(bs);

	(void)arg;
	while (!atomic_load(&stop_mixer)) {
		off_t off = unit_off + (off_t)wt_rnd(&seed, NUNITS) * unit;

		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, unit))
			note(-errno, 0);
		atw_fill(buf, bs, file_end, (8ULL << 32) | i++);
		note(atw_pwrite(fd, buf, bs, file_end, RWF_WRITETHROUGH), bs);
		if (ftruncate(fd, file_end))
			note(-errno, 0);
	}
	free(buf);
	return NULL;
}

static void side_by_side(unsigned int nwrites)
{
	pthread_t p[NPLAIN], u, m;
	size_t len = PLAIN_LEN + NUNITS * unit;
	unsigned char *cache = atw_alloc(len), *dev = atw_alloc(len);
	unsigned int i, hung = 0, mismatch = 0, torn_c = 0, torn_d = 0;
	off_t first_mismatch = -1;
	time_t deadline;
	uint64_t g;

	for (i = 0; i < NPLAIN; i++)
		if (pthread_create(&p[i], NULL, plain_writer,
				   (void *)(uintptr_t)(i | nwrites << 8)))
			tap_bail("pthread_create");
	if (pthread_create(&u, NULL, unit_writer, (void *)(uintptr_t)nwrites) ||
	    pthread_create(&m, NULL, mixer, NULL))
		tap_bail("pthread_create");
	deadline = wt_deadline(DEADLINE);
	for (i = 0; i < NPLAIN; i++)
		hung += wt_join_by(p[i], deadline) != 0;
	hung += wt_join_by(u, deadline) != 0;
	atomic_store(&stop_mixer, 1);
	hung += wt_join_by(m, deadline) != 0;
	if (!check(!hung, "%u plain overwriters, a unit writer and a punch/extend/truncate thread: none hangs (%u not done in %d s)",
		   NPLAIN, hung, DEADLINE))
		tap_bail("threads hung: the rest would read under them");

	diag("%u writes, %s units", atomic_load(&writes), atomic_ok ? "atomic" : "plain");
	check(!atomic_load(&bad_writes), "every write-through, punch and truncate succeeds in full (%u did not, first %s)",
	      atomic_load(&bad_writes), atw_err(atomic_load(&first_bad)));

	if (atw_pread(fd, cache, len, plain_off) != (ssize_t)len)
		tap_bail("buffered read: %s", strerror(errno));
	if (wt_dev_read_range(fd, dev, plain_off, len) & WT_MAP_ERROR)
		tap_bail("device read failed");
	for (i = 0; i < len; i++)
		if (cache[i] != dev[i] && !mismatch++)
			first_mismatch = plain_off + i;
	check(!mismatch, "the page cache and the device hold the same bytes (%u differ, first at %lld)",
	      mismatch, (long long)first_mismatch);
	for (i = 0; i < NUNITS; i++) {
		size_t o = PLAIN_LEN + (size_t)i * unit;

		torn_c += wt_version_of(cache + o, unit, plain_off + o, &g) == WT_V_MIXED;
		torn_d += wt_version_of(dev + o, unit, plain_off + o, &g) == WT_V_MIXED;
	}
	check(!torn_c && !torn_d, "every unit is zeros or one whole write (%u mixed in the cache, %u on the device)",
	      torn_c, torn_d);
	free(cache);
	free(dev);
}

int main(int argc, char **argv)
{
	unsigned int nwrites = argc > 2 ? strtoul(argv[2], NULL, 0) : 200;
	struct atw_env *e;
	unsigned char *buf;
	char path[512];
	off_t off;

	tap_start("wt_shared");
	e = atw_env_setup(argc, argv, "wt_shared DIR [WRITES]");
	bs = e->bs;
	ps = e->ps;
	atomic_ok = e->lim.buf_known && e->lim.buf;
	unit = atomic_ok && e->lim.buf_min > bs ? e->lim.buf_min : bs;
	plain_off = unit > ps ? unit : ps;	/* page 0: the parked read's */
	unit_off = plain_off + PLAIN_LEN;
	file_end = unit_off + NUNITS * unit;

	/* Every block written and on the device: overwrites of written blocks. */
	fd = atw_env_open("wt_shared", O_TRUNC);
	buf = atw_alloc(1 << 20);
	for (off = 0; off < file_end; off += 1 << 20) {
		size_t len = file_end - off < (1 << 20) ? file_end - off : 1 << 20;

		atw_fill(buf, len, off, 1);
		if (atw_pwrite(fd, buf, len, off, 0) != (ssize_t)len)
			tap_bail("pre-write: %s", strerror(errno));
	}
	free(buf);
	if (fsync(fd))
		tap_bail("fsync: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/wt_shared", e->dir);
	dio_fd = open(path, O_RDONLY | O_DIRECT);
	if (dio_fd < 0)
		tap_bail("open O_DIRECT: %s", strerror(errno));
	lock_mode();
	side_by_side(nwrites);

	close(dio_fd);
	close(fd);
	atw_env_unlink("wt_shared");
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_shared");
	skip(WT_UAPI_SKIP, "wt_shared");
	return tap_done();
}

#endif
