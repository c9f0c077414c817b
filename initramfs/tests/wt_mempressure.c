// SPDX-License-Identifier: GPL-2.0
/*
 * No short copies for atomic write-through (docs/design.md, "No short
 * copies") on the XFS mounted at DIR, when statx advertises buffered atomic
 * writes. The source buffer of an RWF_ATOMIC|RWF_WRITETHROUGH write of a
 * multi-page unit is:
 *  - a file-backed mapping whose pages were just dropped (MADV_DONTNEED and
 *    the file's cache evicted) or paged out (MADV_PAGEOUT);
 *  - anonymous memory half dropped with MADV_DONTNEED (reads back zeros);
 *  - anonymous memory another thread unmaps during the call;
 *  - memory with a userfaultfd page that can never be filled (SIGBUS mode);
 *  - memory with a userfaultfd page a handler fills only after looking at
 *    the file while the write is stalled on it.
 * Every call either writes the whole unit with exactly the buffer's content
 * or fails; a failed call leaves the range wholly as it was in the cache
 * and on the device, with nothing dirtied (fdatasync sends no write to it);
 * never a short count. While a copy is stalled on a missing page the device
 * holds the old data and the cache shows none of the new.
 *
 * usage: wt_mempressure DIR [ROUNDS]
 */
#include "lib/wt_common.h"
#include "lib/unmapper.h"

#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#ifdef RWF_WRITETHROUGH

#define AWT (RWF_ATOMIC | RWF_WRITETHROUGH)

static size_t unit;
static unsigned int rounds = 40;
static int tfd;		/* target file */
static off_t toff;	/* target range */
/*
 * Where the range lies on the device just before the stalled write: an
 * atomic unit of several blocks may have been written out of place since
 * the pre-write, to new blocks, maybe several extents (docs/design.md,
 * "Units above one block").
 */
static struct atw_extent text[16];
static int ntext;
static uint64_t cur_gen;	/* what the range holds now */

/* The target range reads back as generation gen, in the cache and on the device. */
static void expect_range(uint64_t gen, const char *what)
{
	unsigned char *rd = atw_alloc(unit);
	enum wt_version v;
	uint64_t g = 0;

	v = atw_pread(tfd, rd, unit, toff) == (ssize_t)unit ? wt_version_of(rd, unit, toff, &g) :
							     WT_V_MIXED;
	check(v == WT_V_ONE && g == gen, "%s: the cache holds wholly generation %llu (%s %llu)", what,
	      (unsigned long long)gen, wt_version_name(v), (unsigned long long)g);
	v = wt_dev_read_range(tfd, rd, toff, unit) == 0 ? wt_version_of(rd, unit, toff, &g) : WT_V_MIXED;
	check(v == WT_V_ONE && g == gen, "%s: the device holds wholly generation %llu (%s %llu)", what,
	      (unsigned long long)gen, wt_version_name(v), (unsigned long long)g);
	free(rd);
}

static unsigned int range_writes_on_sync(void)
{
	struct devcount dc;
	uint64_t phys;
	int err = devcount_start();

	fdatasync(tfd);
	err = err ? err : devcount_stop(&dc, atw_env()->lbs);
	if (err || wt_phys(tfd, toff, &phys))
		return 1000;
	return wt_writes_in(&dc, phys, unit);
}

/*
 * Judges one atomic write of `src`, whose content (as the kernel should see
 * it) is `want` (NULL: the stamp of generation gen).
 */
static void judge(ssize_t ret, uint64_t gen, const unsigned char *want, const char *what)
{
	unsigned char *rd;

	check(ret == (ssize_t)unit || ret < 0, "%s: all or nothing, never short (got %zd %s)", what, ret,
	      atw_err(ret));
	if (ret == (ssize_t)unit) {
		if (!want) {
			cur_gen = gen;
			expect_range(gen, what);
			return;
		}
		rd = atw_alloc(unit);
		check(atw_pread(tfd, rd, unit, toff) == (ssize_t)unit && !memcmp(rd, want, unit),
		      "%s: the cache holds exactly the buffer's content", what);
		check(wt_dev_read_range(tfd, rd, toff, unit) == 0 && !memcmp(rd, want, unit),
		      "%s: the device holds exactly the buffer's content", what);
		free(rd);
		/* Put a known generation back for the next case. */
		rd = atw_alloc(unit);
		atw_fill(rd, unit, toff, ++cur_gen);
		if (atw_pwrite(tfd, rd, unit, toff, AWT) != (ssize_t)unit)
			tap_bail("%s: restoring the range", what);
		free(rd);
		return;
	}
	diag("%s: failed with %s", what, atw_err(ret));
	expect_range(cur_gen, what);
	check(range_writes_on_sync() == 0, "%s: nothing dirtied by the failed call", what);
}

/* --- file-backed source, dropped or paged out --- */

static void file_backed(int advice, const char *name)
{
	unsigned char *src = atw_alloc(unit);
	int sfd = atw_env_open("wt_mp_source", O_TRUNC);
	uint64_t gen = cur_gen + 1;
	unsigned char *map;
	volatile unsigned char sink = 0;
	size_t i;
	ssize_t ret;
	char what[96];

	atw_fill(src, unit, toff, gen);
	if (atw_pwrite(sfd, src, unit, 0, 0) != (ssize_t)unit || fsync(sfd))
		tap_bail("source file");
	map = mmap(NULL, unit, PROT_READ, MAP_SHARED, sfd, 0);
	if (map == MAP_FAILED)
		tap_bail("mmap source: %s", strerror(errno));
	for (i = 0; i < unit; i += atw_env()->ps)
		sink += map[i];
	(void)sink;
	snprintf(what, sizeof(what), "file-backed buffer after %s", name);
	if (madvise(map, unit, advice)) {
		if (errno != ENOSYS || advice != MADV_DONTNEED) {
			skip(errno == ENOSYS ? "kernel without madvise (CONFIG_ADVISE_SYSCALLS)" :
			     "madvise failed", "%s", what);
			goto out;
		}
		/* No madvise: drop the pages by unmapping; map them again below. */
		munmap(map, unit);
		map = NULL;
		snprintf(what, sizeof(what), "file-backed buffer whose pages were unmapped and dropped");
	}
	wt_drop_caches();	/* the unmapped source pages leave the page cache */
	if (!map) {
		map = mmap(NULL, unit, PROT_READ, MAP_SHARED, sfd, 0);
		if (map == MAP_FAILED)
			tap_bail("mmap source: %s", strerror(errno));
	}
	ret = atw_pwrite(tfd, map, unit, toff, AWT);
	judge(ret, gen, NULL, what);
out:
	munmap(map, unit);
	close(sfd);
	free(src);
}

/* --- anonymous, half dropped --- */

static void anon_dontneed(void)
{
	unsigned char *want = atw_alloc(unit);
	unsigned char *buf = mmap(NULL, unit, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ssize_t ret;

	if (buf == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	atw_fill(buf, unit, toff, 77);
	if (madvise(buf + unit / 2, unit / 2, MADV_DONTNEED)) {
		skip(errno == ENOSYS ? "kernel without madvise (CONFIG_ADVISE_SYSCALLS)" : "madvise failed",
		     "anonymous buffer half dropped with MADV_DONTNEED");
		munmap(buf, unit);
		free(want);
		return;
	}
	memcpy(want, buf, unit / 2);	/* reads only the first half */
	memset(want + unit / 2, 0, unit / 2);
	ret = atw_pwrite(tfd, buf, unit, toff, AWT);
	judge(ret, 0, want, "anonymous buffer half dropped with MADV_DONTNEED");
	munmap(buf, unit);
	free(want);
}

/* --- unmapped by another thread during the call --- */

static void unmapped_mid_call(void)
{
	unsigned int r, ok = 0, failed = 0, shorts = 0, wrong = 0, dirty = 0;
	unsigned char *rd = atw_alloc(unit);

	for (r = 0; r < rounds; r++) {
		uint64_t gen = cur_gen + 1, g = 0;
		ssize_t ret = unmapper_write(tfd, unit, toff, gen, AWT, (r * 7919) % 200000);

		if (ret == (ssize_t)unit) {
			ok++;
			cur_gen = gen;
		} else if (ret < 0) {
			failed++;
			if (range_writes_on_sync())
				dirty++;
		} else {
			shorts++;
		}
		if (atw_pread(tfd, rd, unit, toff) != (ssize_t)unit ||
		    wt_version_of(rd, unit, toff, &g) != WT_V_ONE || g != cur_gen)
			wrong++;
	}
	diag("unmapped mid-call: %u written whole, %u failed, %u short", ok, failed, shorts);
	check(shorts == 0, "buffer unmapped by another thread mid-call: never short (%u)", shorts);
	check(wrong == 0, "buffer unmapped mid-call: the range is always wholly the last successful write (%u not)",
	      wrong);
	check(dirty == 0, "buffer unmapped mid-call: a failed call dirtied nothing (%u did)", dirty);
	expect_range(cur_gen, "after the unmap rounds");
	free(rd);
}

/* --- userfaultfd --- */

static int uffd_open(uint64_t features)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int uffd_register(int fd, void *addr, size_t len)
{
	struct uffdio_register reg = {
		.range = { (uintptr_t)addr, len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	return ioctl(fd, UFFDIO_REGISTER, &reg) ? -errno : 0;
}

/* The last page of buf can never be filled: the kernel's access fails. */
static void uffd_sigbus(void)
{
	const size_t ps = atw_env()->ps;
	unsigned char *buf = mmap(NULL, unit, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = uffd_open(UFFD_FEATURE_SIGBUS);
	ssize_t ret;

	if (fd < 0) {
		skip("no userfaultfd SIGBUS feature", "atomic write from a never-filled page");
		munmap(buf, unit);
		return;
	}
	if (unit < 2 * ps) {
		skip("unit is a single page", "atomic write from a never-filled page");
		goto out;
	}
	atw_fill(buf, unit - ps, toff, 555);	/* populate all but the last page */
	if (uffd_register(fd, buf + unit - ps, ps)) {
		skip("UFFDIO_REGISTER failed", "atomic write from a never-filled page");
		goto out;
	}
	ret = atw_pwrite(tfd, buf, unit, toff, AWT);
	check(ret < 0, "atomic write with a never-filled page fails (got %zd %s)", ret, atw_err(ret));
	judge(ret, 0, NULL, "atomic write with a never-filled page");
	ret = atw_pwrite(tfd, buf, unit, toff + 64 * (off_t)unit, RWF_WRITETHROUGH);
	diag("plain write-through from the same buffer: %zd (%s; a short count is allowed there)",
	     ret, atw_err(ret));
out:
	close(fd);
	munmap(buf, unit);
}

struct stall {
	int uffd;
	unsigned char *page;	/* source content for the missing page */
	uintptr_t page_addr;
	int faulted;
	int dev_old;		/* device still old during the stall */
	int cache_ok;		/* NOWAIT read: EAGAIN or wholly old */
	ssize_t nowait_ret;
};

static void *stall_handler(void *arg)
{
	struct stall *s = arg;
	struct pollfd pfd = { s->uffd, POLLIN, 0 };
	unsigned char *rd = atw_alloc(unit);
	struct uffdio_copy cp;
	struct uffd_msg msg;
	uint64_t g;

	/* Wait for the fault (a deadline only against a kernel that never asks). */
	if (poll(&pfd, 1, 30000) == 1 && read(s->uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	    msg.event == UFFD_EVENT_PAGEFAULT) {
		struct iovec iov = { rd, unit };

		int i, ok = ntext > 0;

		s->faulted = 1;
		/*
		 * No FIEMAP here: it takes the inode lock the write may hold;
		 * the extents were looked up before the write.
		 */
		for (i = 0; i < ntext && ok; i++)
			ok = wt_dev_pread(rd + (text[i].logical - toff), text[i].length,
					  text[i].physical) == (ssize_t)text[i].length;
		s->dev_old = ok && wt_version_of(rd, unit, toff, &g) == WT_V_ONE && g == cur_gen;
		memset(rd, 0, unit);
		s->nowait_ret = preadv2(tfd, &iov, 1, toff, RWF_NOWAIT);
		s->nowait_ret = s->nowait_ret < 0 ? -errno : s->nowait_ret;
		s->cache_ok = s->nowait_ret == -EAGAIN ||
			      (s->nowait_ret == (ssize_t)unit &&
			       wt_version_of(rd, unit, toff, &g) == WT_V_ONE && g == cur_gen);
	}
	cp.dst = s->page_addr;
	cp.src = (uintptr_t)s->page;
	cp.len = atw_env()->ps;
	cp.mode = 0;
	cp.copy = 0;
	ioctl(s->uffd, UFFDIO_COPY, &cp);
	free(rd);
	return NULL;
}

static void uffd_stalled(void)
{
	const size_t ps = atw_env()->ps;
	unsigned char *want = atw_alloc(unit);
	unsigned char *buf = mmap(NULL, unit, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct stall s = { 0 };
	uint64_t gen = cur_gen + 1;
	pthread_t t;
	ssize_t ret;

	s.uffd = uffd_open(0);
	if (s.uffd < 0) {
		skip("no userfaultfd", "atomic write stalled on a userfaultfd page");
		goto out_unmap;
	}
	atw_fill(want, unit, toff, gen);
	memcpy(buf, want, unit - ps);
	s.page = atw_alloc(ps);
	memcpy(s.page, want + unit - ps, ps);
	s.page_addr = (uintptr_t)buf + unit - ps;
	if (uffd_register(s.uffd, buf + unit - ps, ps)) {
		skip("UFFDIO_REGISTER failed", "atomic write stalled on a userfaultfd page");
		goto out;
	}
	ntext = atw_file_extents(tfd, toff, unit, text, 16);
	if (ntext < 1)
		tap_bail("target FIEMAP: %d", ntext);
	pthread_create(&t, NULL, stall_handler, &s);
	ret = atw_pwrite(tfd, buf, unit, toff, AWT);
	pthread_join(t, NULL);
	if (!check(s.faulted, "stalled copy: the write faulted on the missing page"))
		goto judge;
	check(s.dev_old, "stalled copy: meanwhile the device holds wholly the old data");
	check(s.cache_ok, "stalled copy: meanwhile the cache shows none of the new data (NOWAIT read %zd %s)",
	      s.nowait_ret, atw_err(s.nowait_ret));
judge:
	judge(ret, gen, NULL, "atomic write stalled on a userfaultfd page");
out:
	free(s.page);
	close(s.uffd);
out_unmap:
	munmap(buf, unit);
	free(want);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	unsigned char *buf;

	if (!e->lim.buf_known || !e->lim.buf) {
		skip("statx advertises no buffered atomic writes", "wt_mempressure");
		return;
	}
	unit = e->lim.buf_max < 65536 ? e->lim.buf_max : 65536;
	if (unit < e->bs)
		unit = e->bs;
	if (unit < e->lim.buf_min)
		unit = e->lim.buf_min;
	diag("atomic unit %zu bytes (%zu pages)", unit, unit / e->ps);
	tfd = atw_env_open("wt_mp_target", O_TRUNC);
	toff = 4 * (off_t)unit;
	buf = atw_alloc(unit);
	cur_gen = 1;
	atw_fill(buf, unit, toff, cur_gen);
	if (atw_pwrite(tfd, buf, unit, toff, 0) != (ssize_t)unit || fsync(tfd))
		tap_bail("target pre-write");
	free(buf);

	file_backed(MADV_DONTNEED, "MADV_DONTNEED");
	file_backed(MADV_PAGEOUT, "MADV_PAGEOUT");
	anon_dontneed();
	unmapped_mid_call();
	uffd_sigbus();
	uffd_stalled();
	close(tfd);
	wt_remount();
	tfd = atw_env_open("wt_mp_target", 0);
	expect_range(cur_gen, "after a remount");
	close(tfd);
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_mempressure");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_mempressure DIR [ROUNDS]");
	if (argc > 2)
		rounds = atoi(argv[2]);
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_mempressure");
#endif
	return tap_done();
}
