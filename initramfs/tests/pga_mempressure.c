// SPDX-License-Identifier: GPL-2.0
/*
 * No short buffered atomic writes (the PG_atomic series, "iomap: pin pages
 * for RWF_ATOMIC buffered write"), on the XFS mounted at DIR. The source of
 * an RWF_ATOMIC buffered write of the largest advertised unit is:
 *  - a buffer that is not page aligned (it spans one page more);
 *  - a file-backed mapping whose pages were unmapped and dropped from the
 *    page cache just before the call (the guest has no madvise, so by
 *    munmap + drop_caches + a fresh, untouched mapping);
 *  - a file-backed mapping while another thread keeps dropping the page
 *    cache;
 *  - anonymous memory another thread unmaps during the call;
 *  - memory with a userfaultfd page that can never be filled (SIGBUS mode).
 * Every call either writes the whole unit, with exactly the buffer's
 * content, and fdatasync then sends one WRITE ATOMIC of it; or it fails,
 * the range stays wholly what it was, and nothing of it reaches the device.
 * Never a short count.
 *
 * usage: pga_mempressure DIR [ROUNDS]
 */
#include "lib/pga_common.h"
#include "lib/unmapper.h"

#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifdef RWF_ATOMIC

static unsigned int unit, rounds = 40;
static int tfd;
static off_t toff;
static uint64_t cur_gen;	/* the generation the target range holds */

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			diag("drop_caches: %s", strerror(errno));
		close(fd);
	}
}

/* The target range in the cache is wholly generation gen. */
static bool cache_is(uint64_t gen)
{
	void *rd = atw_alloc(unit);
	bool ok = atw_pread(tfd, rd, unit, toff) == (ssize_t)unit &&
		  atw_verify(rd, unit, toff, gen);

	free(rd);
	return ok;
}

/*
 * Judges one call that tried to write generation gen: all or nothing, and
 * what the next fdatasync sends. Returns true if the call wrote the unit.
 */
static bool judge(ssize_t ret, uint64_t gen, const char *what)
{
	struct devcount dc;
	struct pga_range r;
	void *rd;

	check(ret == (ssize_t)unit || ret < 0, "%s: all or nothing, never short (%zd %s)", what,
	      ret, atw_err(ret));
	pga_sync_counted(tfd, &dc);
	r = pga_file_range(&dc, tfd, toff, unit);
	if (ret != (ssize_t)unit) {
		diag("%s: failed with %s", what, atw_err(ret));
		check(cache_is(cur_gen), "%s: failed call left the range wholly as it was", what);
		check(r.atomic == 0 && r.plain == 0,
		      "%s: failed call sent nothing to the range (%u atomic, %u plain)", what, r.atomic,
		      r.plain);
		return false;
	}
	check(cache_is(gen), "%s: the cache holds wholly the new data", what);
	check(r.atomic == 1 && r.atomic_exact == 1 && r.plain == 0,
	      "%s: fdatasync sends one exact WRITE ATOMIC (%u exact, %u plain)", what, r.atomic_exact,
	      r.plain);
	rd = atw_alloc(unit);
	check(pga_dev_read(tfd, rd, toff, unit) == 0 && atw_verify(rd, unit, toff, gen),
	      "%s: the device holds exactly it", what);
	free(rd);
	cur_gen = gen;
	return true;
}

static void unaligned(void)
{
	unsigned char *raw = atw_alloc(unit + atw_env()->ps);
	unsigned char *buf = raw + atw_env()->ps / 2 + 512;
	uint64_t gen = cur_gen + 1;
	ssize_t ret;

	atw_fill(buf, unit, toff, gen);
	ret = atw_pwrite(tfd, buf, unit, toff, RWF_ATOMIC);
	check(ret == (ssize_t)unit, "buffer not page aligned: accepted (%zd %s)", ret, atw_err(ret));
	judge(ret, gen, "buffer not page aligned");
	free(raw);
}

/* A source file of one stamped unit, mapped but not touched. */
static int source_file(uint64_t gen, unsigned char **map)
{
	void *src = atw_alloc(unit);
	int sfd = atw_env_open("pga_mp_source", O_TRUNC);

	atw_fill(src, unit, toff, gen);
	pga_write_or_bail(sfd, src, unit, 0, 0);
	if (fsync(sfd))
		tap_bail("fsync source: %s", strerror(errno));
	free(src);
	*map = mmap(NULL, unit, PROT_READ, MAP_SHARED, sfd, 0);
	if (*map == MAP_FAILED)
		tap_bail("mmap source: %s", strerror(errno));
	return sfd;
}

static void file_dropped(void)
{
	uint64_t gen = cur_gen + 1;
	volatile unsigned char sink = 0;
	unsigned char *map;
	unsigned int i;
	int sfd = source_file(gen, &map);
	ssize_t ret;

	for (i = 0; i < unit; i += atw_env()->ps)
		sink += map[i];
	(void)sink;
	munmap(map, unit);
	drop_caches();
	map = mmap(NULL, unit, PROT_READ, MAP_SHARED, sfd, 0);
	if (map == MAP_FAILED)
		tap_bail("mmap source: %s", strerror(errno));
	ret = atw_pwrite(tfd, map, unit, toff, RWF_ATOMIC);
	check(ret == (ssize_t)unit, "file-backed buffer whose pages were unmapped and dropped: written whole (%zd %s)",
	      ret, atw_err(ret));
	judge(ret, gen, "file-backed buffer whose pages were unmapped and dropped");
	munmap(map, unit);
	close(sfd);
}

struct dropper {
	atomic_int stop;
};

static void *drop_thread(void *arg)
{
	struct dropper *d = arg;

	while (!atomic_load(&d->stop))
		drop_caches();
	return NULL;
}

static void file_while_dropping(void)
{
	unsigned int r, whole = 0, other = 0;
	struct dropper d = { 0 };
	pthread_t t;

	pthread_create(&t, NULL, drop_thread, &d);
	for (r = 0; r < rounds / 4; r++) {
		uint64_t gen = cur_gen + 1;
		unsigned char *map;
		int sfd = source_file(gen, &map);
		ssize_t ret = atw_pwrite(tfd, map, unit, toff, RWF_ATOMIC);

		if (ret == (ssize_t)unit && cache_is(gen)) {
			whole++;
			cur_gen = gen;
		} else {
			other++;
			diag("round %u: %zd %s", r, ret, atw_err(ret));
		}
		munmap(map, unit);
		close(sfd);
	}
	atomic_store(&d.stop, 1);
	pthread_join(t, NULL);
	check(other == 0, "file-backed buffer while another thread drops the page cache: %u of %u written whole with the new data",
	      whole, whole + other);
	judge(unit, cur_gen, "after the drop_caches rounds");
}

static void unmapped_mid_call(void)
{
	unsigned int r, ok = 0, failed = 0, shorts = 0, wrong = 0, bad_dev = 0;

	for (r = 0; r < rounds; r++) {
		uint64_t gen = cur_gen + 1;
		struct devcount dc;
		struct pga_range pr;
		ssize_t ret = unmapper_write(tfd, unit, toff, gen, RWF_ATOMIC, (r * 7919) % 200000);

		if (ret == (ssize_t)unit) {
			ok++;
			cur_gen = gen;
		} else if (ret < 0) {
			failed++;
		} else {
			shorts++;
		}
		if (!cache_is(cur_gen))
			wrong++;
		pga_sync_counted(tfd, &dc);
		pr = pga_file_range(&dc, tfd, toff, unit);
		if (ret == (ssize_t)unit ? !(pr.atomic_exact == 1 && pr.atomic == 1 && pr.plain == 0) :
					   (pr.atomic || pr.plain))
			bad_dev++;
	}
	diag("unmapped mid-call: %u written whole, %u failed, %u short", ok, failed, shorts);
	check(shorts == 0, "buffer unmapped by another thread mid-call: never short (%u short)",
	      shorts);
	check(wrong == 0, "buffer unmapped mid-call: the range is always wholly the last successful write (%u not)",
	      wrong);
	check(bad_dev == 0, "buffer unmapped mid-call: one WRITE ATOMIC per successful call, nothing for a failed one (%u not)",
	      bad_dev);
}

static void uffd_sigbus(void)
{
	const size_t ps = atw_env()->ps;
	size_t span = (unit + ps - 1) / ps * ps + ps;	/* registered, never filled */
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_SIGBUS };
	unsigned char *buf = mmap(NULL, ps + span, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	struct uffdio_register reg;
	unsigned char *src;
	ssize_t ret;

	if (buf == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
		skip("no userfaultfd with UFFD_FEATURE_SIGBUS", "atomic write from a never-filled page");
		goto out;
	}
	/* the unit starts in a filled page and runs into a never-filled one */
	src = buf + ps - (unit < ps ? unit / 2 : ps / 2);
	memset(buf, 0x33, ps);
	reg.range.start = (uintptr_t)buf + ps;
	reg.range.len = span;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(fd, UFFDIO_REGISTER, &reg)) {
		skip("UFFDIO_REGISTER failed", "atomic write from a never-filled page");
		goto out;
	}
	ret = atw_pwrite(tfd, src, unit, toff, RWF_ATOMIC);
	check(ret < 0, "atomic write whose buffer has a never-filled page fails (%zd %s)", ret,
	      atw_err(ret));
	judge(ret, cur_gen + 1, "atomic write whose buffer has a never-filled page");
out:
	if (fd >= 0)
		close(fd);
	munmap(buf, ps + span);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	void *buf;

	if (!pga_supported("pga_mempressure"))
		return;
	unit = e->lim.buf_max;
	diag("atomic unit %u bytes (%u pages)", unit, (unit + e->ps - 1) / e->ps);
	tfd = atw_env_open("pga_mp_target", O_TRUNC);
	toff = 4 * (off_t)unit;
	cur_gen = 1;
	buf = atw_alloc(unit);
	atw_fill(buf, unit, toff, cur_gen);
	pga_write_or_bail(tfd, buf, unit, toff, 0);
	if (fsync(tfd))
		tap_bail("fsync: %s", strerror(errno));
	free(buf);

	unaligned();
	file_dropped();
	file_while_dropping();
	unmapped_mid_call();
	uffd_sigbus();
	close(tfd);
}
#endif

int main(int argc, char **argv)
{
	tap_start("pga_mempressure");
	pga_setup(argc, argv);
#ifdef RWF_ATOMIC
	if (argc > 2)
		rounds = atoi(argv[2]);
	run();
#else
	skip("uapi has no RWF_ATOMIC", "pga_mempressure");
#endif
	return tap_done();
}
