// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered reads beside write-throughs of the same range (docs/design.md,
 * "Readers") on the XFS mounted at DIR. A writer thread alternates writes of
 * all-'A' and all-'B' over one range of a cached file whose blocks are
 * written; a reader thread pread()s the whole range in a loop. Every read
 * must be wholly 'A' or wholly 'B', never a mix:
 *  - atomic: the range is one atomic unit (statx STATX_WRITE_ATOMIC_BUF
 *    max), written with RWF_ATOMIC|RWF_WRITETHROUGH: a buffered read never
 *    returns part of an atomic write;
 *  - plain: 64 KiB (several folios) written with RWF_WRITETHROUGH: XFS's
 *    buffered reads see a buffered write whole or not at all (the iolock
 *    excludes reads during the copy), and a write-through keeps that;
 *  - control: the same 64 KiB with plain buffered writes (every kernel).
 * Each case runs for SECONDS (default 3) or 1,000,000 writes, whichever is
 * first; the counts of writes and reads are printed, and the first mixed
 * read is described. Every write must return its length, every read the
 * range's length.
 *
 * usage: wt_readers DIR [SECONDS]
 */
#include "lib/wt_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define PLAIN_LEN (64 * 1024)
#define MAX_WRITES 1000000
#define JOIN_SECS 300	/* a hang, not a measurement */

static int fd;
static size_t len;
static int wflags;
static unsigned char *all_a, *all_b;
static atomic_int stop;
static unsigned long writes, bad_writes, reads, mixed, bad_reads;
static ssize_t first_bad_write;
static char first_mixed[512];

static void *writer(void *arg)
{
	unsigned long i;
	ssize_t ret;

	(void)arg;
	for (i = 0; i < MAX_WRITES && !atomic_load(&stop); i++) {
		ret = atw_pwrite(fd, (i & 1) ? all_a : all_b, len, 0, wflags);
		if (ret != (ssize_t)len && !bad_writes++)
			first_bad_write = ret;
	}
	writes = i;
	atomic_store(&stop, 1);
	return NULL;
}

/* "[0,1536) 'A' [1536,4096) 'B'", the first runs of a mixed read. */
static void runs(const unsigned char *p, unsigned long nr)
{
	size_t n, i, from = 0;
	int segs = 0;

	n = snprintf(first_mixed, sizeof(first_mixed), "read %lu:", nr);
	for (i = 1; i <= len && segs < 8; i++) {
		if (i < len && p[i] == p[from])
			continue;
		if (n < sizeof(first_mixed))
			n += snprintf(first_mixed + n, sizeof(first_mixed) - n,
				      p[from] >= ' ' && p[from] < 127 ? " [%zu,%zu) '%c'" :
				      " [%zu,%zu) 0x%02x", from, i, p[from]);
		from = i;
		segs++;
	}
	if (i <= len && n < sizeof(first_mixed))
		snprintf(first_mixed + n, sizeof(first_mixed) - n, " ...");
}

static void *reader(void *arg)
{
	unsigned char *rd = atw_alloc(len);
	ssize_t ret;

	(void)arg;
	while (!atomic_load(&stop)) {
		ret = pread(fd, rd, len, 0);
		reads++;
		if (ret != (ssize_t)len) {
			bad_reads++;
			continue;
		}
		if (!memcmp(rd, all_a, len) || !memcmp(rd, all_b, len))
			continue;
		if (!mixed++)
			runs(rd, reads);
	}
	free(rd);
	return NULL;
}

static void run_case(const char *name, size_t l, int flags, unsigned int secs)
{
	unsigned char *rd;
	pthread_t w, r;
	time_t dl;

	len = l;
	wflags = flags;
	all_a = atw_alloc(len);
	all_b = atw_alloc(len);
	rd = atw_alloc(len);
	memset(all_a, 'A', len);
	memset(all_b, 'B', len);
	atomic_store(&stop, 0);
	writes = bad_writes = reads = mixed = bad_reads = 0;
	first_bad_write = 0;
	first_mixed[0] = 0;

	atw_env_unlink("wt_readers");
	fd = atw_env_open("wt_readers", O_TRUNC);
	if (pwrite(fd, all_a, len, 0) != (ssize_t)len || fsync(fd) ||
	    pread(fd, rd, len, 0) != (ssize_t)len)
		tap_bail("%s: prefill: %s", name, strerror(errno));

	if (pthread_create(&w, NULL, writer, NULL) || pthread_create(&r, NULL, reader, NULL))
		tap_bail("pthread_create");
	dl = wt_deadline(secs);
	while (!atomic_load(&stop) && time(NULL) < dl)
		usleep(10000);
	atomic_store(&stop, 1);
	dl = wt_deadline(JOIN_SECS);
	if (wt_join_by(w, dl) || wt_join_by(r, dl)) {
		wt_diag_stacks(getpid());
		tap_bail("%s: the writer or the reader did not return in %u s", name, JOIN_SECS);
	}
	diag("%s: %lu writes, %lu reads in about %u s", name, writes, reads, secs);
	check(bad_writes == 0, "%s: every write returns %zu (%lu did not; first %zd %s)", name, len,
	      bad_writes, first_bad_write, atw_err(first_bad_write));
	check(reads > 0 && bad_reads == 0, "%s: every read returns %zu (%lu of %lu did not)", name,
	      len, bad_reads, reads);
	if (!check(mixed == 0, "%s: no read is a mix of two writes (%lu of %lu reads mixed)", name,
		   mixed, reads))
		diag("%s: first mixed %s", name, first_mixed);
	close(fd);
	atw_env_unlink("wt_readers");
	free(all_a);
	free(all_b);
	free(rd);
}

static void run(unsigned int secs)
{
	const struct atw_env *e = atw_env();
	char name[128];

	if (e->lim.buf_known && e->lim.buf && atw_is_pow2(e->lim.buf_max)) {
		snprintf(name, sizeof(name), "RWF_ATOMIC|RWF_WRITETHROUGH unit of %u bytes",
			 e->lim.buf_max);
		run_case(name, e->lim.buf_max, RWF_ATOMIC | RWF_WRITETHROUGH, secs);
	} else {
		skip("statx advertises no buffered atomic writes", "atomic write-through vs readers");
	}
	run_case("RWF_WRITETHROUGH of 64 KiB", PLAIN_LEN, RWF_WRITETHROUGH, secs);
	run_case("buffered write of 64 KiB (control)", PLAIN_LEN, 0, secs);
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_readers");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_readers DIR [SECONDS]");
	run(argc > 2 ? strtoul(argv[2], NULL, 0) : 3);
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_readers");
#endif
	return tap_done();
}
