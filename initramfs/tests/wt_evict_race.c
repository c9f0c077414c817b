// SPDX-License-Identifier: GPL-2.0
/*
 * Folios of a write-through stay stable and in the cache until the file
 * system has completed the write (docs/design.md, "Stable pages": the I/O,
 * then unwritten extent conversion), on the XFS mounted at DIR. A writer
 * sends one-block RWF_WRITETHROUGH writes into the holes of a sparse file
 * (each allocates an unwritten extent that completion converts), while
 * another thread keeps dropping the page cache (drop_caches: the guest
 * kernel has no fadvise) and reading the block being written back in. If the
 * folio could leave writeback before the conversion, the reader would cache
 * the zeros of the still-unwritten extent, and the write-through's data
 * would read as zeros after the call returned. The window is from the end of
 * the I/O to the writer's completion: run this on a disk with some latency
 * (scsi_debug ndelay), so that the writer sleeps and is woken for it. (On
 * revision 2b11171e of the series, where the window existed, this did not
 * catch it under TCG, also with the writer starved as SCHED_IDLE after its
 * I/O: it guards the order, it has not shown the race.)
 *  - right after every call, the block reads the data written (through the
 *    cache);
 *  - after the cache is dropped, every block reads the data written;
 *  - the run says how many times the other thread dropped the cache.
 *
 * usage: wt_evict_race DIR [SECONDS]
 */
#include "lib/wt_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define NBLK 4096
#define GEN 5

static int fd;
static size_t bs;
static atomic_llong cur_off = -1;
static atomic_int stop;
static atomic_ulong evictions;

static void *evicter(void *arg)
{
	unsigned char c;

	(void)arg;
	while (!atomic_load(&stop)) {
		long long off = atomic_load(&cur_off);

		if (off < 0)
			continue;
		kf_write("/proc/sys/vm/drop_caches", "1", 0);
		if (pread(fd, &c, 1, off) == 1)
			atomic_fetch_add(&evictions, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int secs = argc > 2 ? strtoul(argv[2], NULL, 0) : 20;
	unsigned int n = 0, bad = 0, first_bad = 0, bad_after = 0, failed = 0;
	bool first_zeros = false;
	unsigned char *buf, *rd;
	time_t end;
	pthread_t th;
	unsigned int i;

	tap_start("wt_evict_race");
	atw_env_setup(argc, argv, "wt_evict_race DIR [SECONDS]");
	bs = atw_env()->bs;
	buf = atw_alloc(bs);
	rd = atw_alloc(bs);

	fd = atw_env_open("wt_evict_race", O_TRUNC);
	if (ftruncate(fd, (off_t)NBLK * bs))	/* holes below EOF */
		tap_bail("ftruncate: %s", strerror(errno));
	if (pthread_create(&th, NULL, evicter, NULL))
		tap_bail("pthread_create");

	end = time(NULL) + secs;
	for (i = 0; i < NBLK && time(NULL) < end; i++) {
		off_t off = (off_t)i * bs;
		ssize_t ret;

		wt_pattern(buf, bs, off, GEN);
		atomic_store(&cur_off, off);
		ret = atw_pwrite(fd, buf, bs, off, RWF_WRITETHROUGH);
		atomic_store(&cur_off, -1);
		if (ret != (ssize_t)bs) {
			if (!failed++)
				diag("block %u: write-through returned %zd (%s)", i, ret, atw_err(ret));
			continue;
		}
		n++;
		if (atw_pread(fd, rd, bs, off) != (ssize_t)bs || wt_pattern_bad(rd, bs, off, GEN) >= 0) {
			if (!bad++) {
				first_bad = i;
				first_zeros = wt_nonzero(rd, bs) < 0;
			}
		}
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	diag("%u one-block write-throughs into holes in about %u s; the cache dropped and the block read %lu times",
	     n, secs, (unsigned long)atomic_load(&evictions));

	check(!failed, "every write-through returns its length (%u did not)", failed);
	if (!check(!bad, "right after each call the block reads the data written through the cache (%u of %u did not)",
		   bad, n))
		diag("first: block %u (%s)", first_bad,
		     first_zeros ? "zeros: cached from the unwritten extent" : "other data");
	wt_drop_caches();
	for (i = 0; i < n + failed; i++) {
		off_t off = (off_t)i * bs;

		if (atw_pread(fd, rd, bs, off) != (ssize_t)bs || wt_pattern_bad(rd, bs, off, GEN) >= 0)
			bad_after++;
	}
	check(!bad_after, "after the cache is dropped every block reads the data written (%u do not)",
	      bad_after);
	close(fd);
	atw_env_unlink("wt_evict_race");
	free(buf);
	free(rd);
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_evict_race");
	skip(WT_UAPI_SKIP, "wt_evict_race");
	return tap_done();
}

#endif
