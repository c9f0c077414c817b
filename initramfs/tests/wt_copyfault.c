// SPDX-License-Identifier: GPL-2.0
/*
 * A plain RWF_WRITETHROUGH whose source buffer changes under the copy
 * (docs/design.md, "No task waits for I/O it has not submitted") on the XFS
 * mounted at DIR. A 256 KiB write-through over data on disk, the range
 * written with O_DIRECT before every call, which also drops it from the
 * page cache, so that the write-through builds folios of several pages
 * that are not uptodate, while another thread keeps replacing
 * one page in the middle of the source buffer with a fresh anonymous page
 * (mmap MAP_FIXED). The copy then stops short in the middle of a folio of
 * several pages, and the write-through retries the rest of that folio. (The
 * page replaced is not the first of a 16 KiB folio, so that this also
 * happens with 16 KiB blocks where a write-through builds block-sized
 * folios.)
 *  - every call returns, within a deadline (the writer runs in a child
 *    process, so a writer stuck in the kernel is reported, not waited for);
 *  - every call returns the whole length (the source is always readable);
 *  - the file holds the buffer: every page is the pattern, except the page
 *    being replaced, whose bytes are each the pattern or zero (a fresh
 *    anonymous page reads zeros);
 *  - the run says how many calls were made.
 *
 * usage: wt_copyfault DIR [SECONDS]
 */
#include "lib/wt_common.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define WLEN (256u << 10)	/* one write-through */
#define HOLE_PAGE 33		/* the page of the buffer that is replaced */
#define GEN 77
#define DEADLINE 120		/* seconds without progress: a hang */

/* What the writer child reports, one record per call, through a pipe. */
struct report {
	int32_t call;
	int32_t bad_page;	/* first page that is not as written, or -1 */
	int64_t ret;
};

static unsigned char *buf;
static atomic_int stop;
static long ps;

/*
 * Replaces page HOLE_PAGE of buf with a fresh anonymous page, again and
 * again: until the writer's fault-in maps it (reading zeros), the page is
 * not present, and the copy, which cannot fault, stops short there.
 */
static void *remapper(void *arg)
{
	unsigned char *page = buf + HOLE_PAGE * ps;

	(void)arg;
	while (!atomic_load(&stop)) {
		if (mmap(page, ps, PROT_READ | PROT_WRITE,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			_exit(3);
	}
	return NULL;
}

/* First page of the file range that is not the pattern (zeros allowed in
 * the replaced page, byte by byte), or -1. */
static int bad_page(int fd, unsigned char *rd)
{
	long p, i;

	if (pread(fd, rd, WLEN, 0) != WLEN)
		return 0;
	for (p = 0; p < (long)(WLEN / ps); p++) {
		for (i = p * ps; i < (p + 1) * ps; i++) {
			if (rd[i] == wt_byte(i, GEN))
				continue;
			if (p == HOLE_PAGE && !rd[i])
				continue;
			return p;
		}
	}
	return -1;
}

static void writer_child(int out, unsigned int secs)
{
	unsigned char *rd = atw_alloc(WLEN), *old = atw_alloc(WLEN);
	struct report r = { 0 };
	pthread_t th;
	time_t end = time(NULL) + secs;
	int fd = atw_env_open("wt_copyfault", 0);
	int dfd = atw_env_open("wt_copyfault", O_DIRECT);

	wt_pattern(old, WLEN, 0, GEN + 1);
	wt_pattern(buf, WLEN, 0, GEN);
	if (pthread_create(&th, NULL, remapper, NULL))
		_exit(2);
	while (time(NULL) < end) {
		/* on the device, and no longer in the page cache */
		if (atw_pwrite(dfd, old, WLEN, 0, 0) != WLEN)
			_exit(4);
		r.ret = atw_pwrite(fd, buf, WLEN, 0, RWF_WRITETHROUGH);
		r.bad_page = r.ret == WLEN ? bad_page(fd, rd) : -1;
		r.call++;
		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(2);
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	close(dfd);
	close(fd);
	_exit(0);
}

int main(int argc, char **argv)
{
	unsigned int secs = argc > 2 ? strtoul(argv[2], NULL, 0) : 20;
	unsigned int calls = 0, short_calls = 0, bad = 0;
	struct report r, first_bad = { 0 }, first_short = { 0 };
	int pfd[2], status = 0, hung = 0;
	struct pollfd pf;
	pid_t pid;

	tap_start("wt_copyfault");
	atw_env_setup(argc, argv, "wt_copyfault DIR [SECONDS]");
	ps = atw_env()->ps;

	/* the writer's O_DIRECT writes put the range on disk */
	close(atw_env_open("wt_copyfault", O_TRUNC));

	buf = mmap(NULL, WLEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || pipe(pfd))
		tap_bail("setup: %s", strerror(errno));
	pid = wt_fork_quiet(pfd);
	if (!pid)
		writer_child(pfd[1], secs);

	pf.fd = pfd[0];
	pf.events = POLLIN;
	for (;;) {
		int n = poll(&pf, 1, DEADLINE * 1000);
		ssize_t got;

		if (n == 0) {
			hung = 1;
			break;
		}
		got = read(pfd[0], &r, sizeof(r));
		if (got == 0)
			break;
		if (got != sizeof(r))
			tap_bail("report pipe: %zd", got);
		calls = r.call;
		if (r.ret != WLEN && !short_calls++)
			first_short = r;
		if (r.bad_page >= 0 && !bad++)
			first_bad = r;
	}

	diag("%u write-throughs of %u KiB in about %u s, page %d of the source replaced all along",
	     calls, WLEN >> 10, secs, HOLE_PAGE);
	if (!check(!hung, "every write-through returns (no progress for %d s after call %u)",
		   DEADLINE, calls + 1)) {
		wt_diag_stacks(pid);
		/* The stuck writer cannot be reaped; report and leave it. */
		kill(pid, SIGKILL);
		return tap_done();
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer finished cleanly (status 0x%x)",
	      status);
	check(calls > 0, "write-throughs were made (%u)", calls);
	if (!check(!short_calls, "every call returns the whole length (%u short or failed)", short_calls))
		diag("first: call %d returned %lld (%s)", first_short.call, (long long)first_short.ret,
		     atw_err(first_short.ret));
	if (!check(!bad, "the file holds the buffer's bytes after every call (%u calls differ)", bad))
		diag("first: call %d, page %d", first_bad.call, first_bad.bad_page);
	atw_env_unlink("wt_copyfault");
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_copyfault");
	skip(WT_UAPI_SKIP, "wt_copyfault");
	return tap_done();
}

#endif
