// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic write-throughs of several blocks that fail at the device
 * (docs/design.md, "Units above one block"), on the XFS mounted at DIR
 * (dirty data under a failed unit: wt_atomic_dirty):
 *
 *  torn read: a unit of more than 31 pages (one read(2) batch of folios)
 *     written in place (one aligned written extent) as one WRITE ATOMIC(16)
 *     that the device fails, while a reader pread()s the unit. The reader's
 *     destination has a userfaultfd "missing" page, so the reader parks in
 *     its first batch of folios until the write has returned; the rest of
 *     its read comes after. Every write fails, so the read must be wholly
 *     the old data: not the new data of its first batch and the old of the
 *     second (as it was when the iolock was dropped before the failed
 *     write's completion dropped its data from the cache), nor wholly new.
 *     A round counts when the reader's fault came and was answered after
 *     the write returned; a round where the reader took the iolock first
 *     (its fault waited 10 s for a write that waited for it) does not.
 *     VALID rounds must count, in at most ROUNDS; the disk should be slow
 *     (plans/wt: ndelay=2000000) so that the I/O lasts.
 *
 * SKIP where buffered atomic units do not reach the size needed.
 *
 * usage: wt_unit_errors DIR
 */
#include "lib/wt_common.h"

#include <linux/userfaultfd.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define ROUNDS 12
#define VALID 3
#define BATCH 31		/* PAGEVEC_SIZE: folios per filemap_read() batch */
#define PARK_PAGE 1		/* the reader's missing page: in its first batch */
#define WRITE_ATOMIC_16 0x9c

static struct atw_env *env;
static size_t pagesz;

/* --- torn read --- */

struct round {
	int fd;
	size_t unit;
	off_t off;
	int uffd;
	unsigned char *dst;		/* the reader's destination */
	atomic_int wstarted, wdone, rstarted, rdone;
	int fault_seen, timed_out;	/* the reader's fault, see supplier() */
	uint64_t w_t0, w_t1, r_t0, f_t;	/* µs */
	ssize_t wret, rret;
};

static void *writer(void *arg)
{
	struct round *r = arg;
	void *buf = atw_alloc(r->unit);

	wt_pattern(buf, r->unit, r->off, 2);
	r->w_t0 = wt_now_us();
	atomic_store(&r->wstarted, 1);
	r->wret = atw_pwrite(r->fd, buf, r->unit, r->off, RWF_ATOMIC | RWF_WRITETHROUGH);
	r->w_t1 = wt_now_us();
	atomic_store(&r->wdone, 1);
	free(buf);
	return NULL;
}

static void *reader(void *arg)
{
	struct round *r = arg;

	while (!atomic_load(&r->wstarted))
		;
	usleep(1000);	/* past the copy, into the I/O (2 ms a command) */
	r->r_t0 = wt_now_us();
	atomic_store(&r->rstarted, 1);
	r->rret = atw_pread(r->fd, r->dst, r->unit, r->off);
	atomic_store(&r->rdone, 1);
	return NULL;
}

/*
 * The reader's fault on its missing page is answered only once the write has
 * returned (or after 10 s: a reader that went first holds the iolock shared
 * and the write waits for it; that round proves nothing).
 */
static void *supplier(void *arg)
{
	struct round *r = arg;
	struct uffdio_copy copy = { 0 };
	struct uffd_msg msg;
	struct pollfd pf = { .fd = r->uffd, .events = POLLIN };
	time_t deadline = time(NULL) + 20;
	void *page = atw_alloc(pagesz);

	memset(page, 0xee, pagesz);
	while (time(NULL) < deadline && !atomic_load(&r->rdone)) {
		if (poll(&pf, 1, 50) != 1)
			continue;
		if (read(r->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		r->f_t = wt_now_us();
		r->fault_seen = 1;
		deadline = time(NULL) + 10;
		while (!atomic_load(&r->wdone) && time(NULL) < deadline)
			usleep(1000);
		r->timed_out = !atomic_load(&r->wdone);
		copy.dst = msg.arg.pagefault.address & ~(uint64_t)(pagesz - 1);
		copy.src = (uintptr_t)page;
		copy.len = pagesz;
		ioctl(r->uffd, UFFDIO_COPY, &copy);
		break;
	}
	free(page);
	return NULL;
}

/* A new file whose [0, unit) is one written extent at a device address aligned to unit. */
static int aligned_file(size_t unit)
{
	void *buf = atw_alloc(unit);
	bool aligned;
	int fd = wt_aligned_file("unit_err", O_DIRECT, 0, unit, &aligned);

	wt_pattern(buf, unit, 0, 1);
	if (pwrite(fd, buf, unit, 0) != (ssize_t)unit || fsync(fd))
		tap_bail("write %zu: %s", unit, strerror(errno));
	free(buf);
	if (!aligned) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Page cache of [0, unit) as order-0 folios: dropped, then read a page at a time. */
static void small_folios(int fd, size_t unit)
{
	int bfd;
	char path[512];
	void *pg = atw_alloc(pagesz);
	size_t o;

	snprintf(path, sizeof(path), "%s/unit_err", env->dir);
	bfd = open(path, O_RDONLY);
	if (bfd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	(void)fd;
	posix_fadvise(bfd, 0, 0, POSIX_FADV_DONTNEED);
	posix_fadvise(bfd, 0, 0, POSIX_FADV_RANDOM);
	for (o = unit; o > 0; o -= pagesz)	/* backwards: no readahead window */
		if (pread(bfd, pg, pagesz, o - pagesz) != (ssize_t)pagesz)
			tap_bail("pread: %s", strerror(errno));
	close(bfd);
	free(pg);
}

static void torn_read(void)
{
	size_t unit = env->lim.buf_max;
	int fd, k, valid = 0, inside = 0, bad = 0, bad_write = 0;
	char path[512];

	if (unit > 64 * pagesz)
		unit = 64 * pagesz;
	if (unit / pagesz <= BATCH || unit < 2 * env->bs) {
		skip("the buffered atomic unit fits one read batch of folios",
		     "torn read: unit max %u, %d pages a batch", env->lim.buf_max, BATCH);
		return;
	}
	fd = aligned_file(unit);
	if (fd < 0) {
		skip("the allocator gave no extent aligned to the unit",
		     "torn read: in-place unit of %zu", unit);
		return;
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/unit_err", env->dir);
	fd = open(path, O_RDWR);
	if (fd < 0)
		tap_bail("open: %s", strerror(errno));

	for (k = 0; k < ROUNDS && valid < VALID; k++) {
		struct round r = { .fd = fd, .unit = unit, .off = 0 };
		struct uffdio_api api = { .api = UFFD_API };
		struct uffdio_register reg = { 0 };
		size_t p, judged = unit - (PARK_PAGE + 1) * pagesz;
		pthread_t tw, tr, ts;
		const char *what;
		int err;

		small_folios(fd, unit);
		r.dst = mmap(NULL, unit, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r.dst == MAP_FAILED)
			tap_bail("mmap: %s", strerror(errno));
		for (p = 0; p < unit / pagesz; p++)	/* all but the parked page */
			if (p != PARK_PAGE)
				r.dst[p * pagesz] = 0;
		r.uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
		if (r.uffd < 0 || ioctl(r.uffd, UFFDIO_API, &api)) {
			skip("userfaultfd unavailable", "torn read: %s", strerror(errno));
			munmap(r.dst, unit);
			close(fd);
			return;
		}
		reg.range.start = (uintptr_t)(r.dst + PARK_PAGE * pagesz);
		reg.range.len = pagesz;
		reg.mode = UFFDIO_REGISTER_MODE_MISSING;
		if (ioctl(r.uffd, UFFDIO_REGISTER, &reg))
			tap_bail("UFFDIO_REGISTER: %s", strerror(errno));

		err = wt_inject(WRITE_ATOMIC_16, WT_INJECT_TIMES);
		if (err)
			tap_bail("inject: %s", strerror(-err));
		pthread_create(&ts, NULL, supplier, &r);
		pthread_create(&tr, NULL, reader, &r);
		pthread_create(&tw, NULL, writer, &r);
		if (wt_join_by(tw, wt_deadline(60)) || wt_join_by(tr, wt_deadline(60)) ||
		    wt_join_by(ts, wt_deadline(60)))
			tap_bail("round %d: a thread is stuck", k);
		wt_inject_clear(WRITE_ATOMIC_16);
		close(r.uffd);

		if (r.wret != -EIO)
			bad_write++;
		/*
		 * The parked page holds the supplier's bytes: judge the pages
		 * before it and after it. Every write failed: only the old data
		 * is right.
		 */
		if (r.rret != (ssize_t)unit)
			what = "short";
		else if (wt_pattern_bad(r.dst, PARK_PAGE * pagesz, 0, 1) < 0 &&
			 wt_pattern_bad(r.dst + (PARK_PAGE + 1) * pagesz, judged,
					(PARK_PAGE + 1) * pagesz, 1) < 0)
			what = "old";
		else if (wt_pattern_bad(r.dst, PARK_PAGE * pagesz, 0, 2) < 0 &&
			 wt_pattern_bad(r.dst + (PARK_PAGE + 1) * pagesz, judged,
					(PARK_PAGE + 1) * pagesz, 2) < 0)
			what = "wholly the failed write's";
		else
			what = "mixed";
		if (!r.fault_seen || r.timed_out) {
			diag("round %d: not counted: the reader %s (read %s)", k,
			     !r.fault_seen ? "never faulted" : "went first and held the write up",
			     what);
		} else {
			valid++;
			if (r.f_t < r.w_t1)
				inside++;
			if (strcmp(what, "old")) {
				bad++;
				diag("round %d: the read returned %s data (first page %s, last page %s)",
				     k, what,
				     wt_pattern_bad(r.dst, pagesz, 0, 2) < 0 ? "new" : "old",
				     wt_pattern_bad(r.dst + unit - pagesz, pagesz, unit - pagesz, 2) < 0 ?
				     "new" : "old");
			}
		}
		diag("round %d: write %s after %llu us; reader began %lld us after it, faulted %s it returned",
		     k, atw_err(r.wret), (unsigned long long)(r.w_t1 - r.w_t0),
		     (long long)(r.r_t0 - r.w_t0),
		     !r.fault_seen ? "(no fault)" : r.f_t < r.w_t1 ? "before" : "after");
		munmap(r.dst, unit);
	}
	check(!bad_write, "torn read: every in-place atomic write of %zu failed with EIO (%d did not)",
	      unit, bad_write);
	if (valid < VALID) {
		skip("the reader did not meet the write in enough rounds",
		     "torn read: %d of %d rounds counted", valid, k);
	} else {
		check(!bad, "torn read: a read beside a failed atomic write of %zu reads the old data (%d of %d rounds did not; %d read inside the write's I/O)",
		      unit, bad, valid, inside);
	}
	{
		void *buf = atw_alloc(unit);

		check(atw_pread(fd, buf, unit, 0) == (ssize_t)unit &&
		      wt_pattern_bad(buf, unit, 0, 1) < 0,
		      "torn read: the unit reads the old data after the failed writes");
		free(buf);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	tap_start("wt_unit_errors");
	env = atw_env_setup(argc, argv, "usage: wt_unit_errors DIR");
	pagesz = (size_t)sysconf(_SC_PAGESIZE);
	if (!env->lim.buf || env->lim.buf_max < 2 * env->bs) {
		skip("no buffered atomic unit above one block advertised",
		     "statx buffered unit max %u, block size %u", env->lim.buf_max, env->bs);
		return tap_done();
	}
	torn_read();
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_unit_errors");
	skip(WT_UAPI_SKIP, "atomic write-throughs of several blocks");
	return tap_done();
}

#endif
