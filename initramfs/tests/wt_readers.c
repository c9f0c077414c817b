// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered reads beside write-throughs of the same range (docs/design.md,
 * "Readers") on the XFS mounted at DIR. A writer thread alternates writes of
 * all-'A' and all-'B' over one range of a cached file whose blocks are
 * written; a reader thread pread()s the whole range in a loop. Every read
 * must be wholly 'A' or wholly 'B', never a mix:
 *  - atomic: the range is one atomic unit (statx STATX_WRITE_ATOMIC_BUF
 *    max), written with RWF_ATOMIC|RWF_WRITETHROUGH: a buffered read never
 *    returns part of an atomic write. A unit of several blocks runs twice,
 *    once for each way it can reach the device (docs/design.md, "Units above
 *    one block"): over one extent at a device address aligned to the unit
 *    (made so, as file_atomic_units does), where each write goes in place as
 *    one WRITE ATOMIC(16); and over a fragmented range (one extent per block,
 *    a pad file taking the block after each) in a file that also shares a
 *    block past the range with another file, where each write goes out of
 *    place (XFS writes atomic units of several blocks of a reflinked inode
 *    out of place; without the shared block only the first write would, as
 *    its remap may leave the range one aligned extent). After the run, one
 *    traced write checks that this layout still takes its way;
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
#define MAXEXT 256

/* How the range lies on the device before a case. */
enum layout {
	WRITTEN,	/* written and synced, as the first write allocated it */
	ALIGNED,	/* atomic: one extent at an address aligned to the unit */
	FRAGMENTED,	/* atomic: one extent per block, a shared block past it */
};

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

/*
 * A new wt_readers whose [0, l) is one unwritten extent per block: a pad file
 * takes the block after each.
 */
static int fragmented_file(size_t l)
{
	const struct atw_env *e = atw_env();
	int f, pfd;
	size_t i;

	atw_env_unlink("wt_readers");
	f = atw_env_open("wt_readers", O_TRUNC);
	pfd = atw_env_open("wt_readers_pad", O_TRUNC);
	for (i = 0; i * e->bs < l; i++)
		if (fallocate(f, 0, i * e->bs, e->bs) || fallocate(pfd, 0, i * e->bs, e->bs))
			tap_bail("fallocate of a fragment: %s", strerror(errno));
	close(pfd);
	return f;
}

/*
 * Shares the block at l (past the range, which readers and writers never
 * touch) with another file: the inode is then reflinked, and XFS writes each
 * atomic unit of several blocks of it out of place.
 */
static void share_block_past(size_t l)
{
	const struct atw_env *e = atw_env();
	struct file_clone_range r;
	int src;

	src = atw_env_open("wt_readers_src", O_TRUNC);
	if (pwrite(src, all_a, e->bs, 0) != (ssize_t)e->bs || fsync(src))
		tap_bail("wt_readers_src: %s", strerror(errno));
	r.src_fd = src;
	r.src_offset = 0;
	r.src_length = e->bs;
	r.dest_offset = l;
	if (ioctl(fd, FICLONERANGE, &r))
		diag("FICLONERANGE of a block past the range: %s (the writes after the first may go in place)",
		     strerror(errno));
	close(src);
}

/*
 * After an atomic case: one more write of the range, traced. ALIGNED: in
 * place, one WRITE ATOMIC(16) of the range at its address; FRAGMENTED: out
 * of place, no atomic command.
 */
static void traced_write(const char *name, enum layout layout, bool aligned)
{
	const struct atw_env *e = atw_env();
	struct atw_extent x[MAXEXT];
	struct devcount dc;
	unsigned int exact;
	ssize_t ret;
	int n, err;

	n = atw_file_extents(fd, 0, len, x, MAXEXT);
	err = devcount_start();
	ret = atw_pwrite(fd, all_a, len, 0, wflags);
	err = err ? err : devcount_stop(&dc, e->lbs);
	if (err || ret != (ssize_t)len) {
		check(0, "%s: a traced write after the run (%zd %s, trace %d)", name, ret,
		      atw_err(ret), err);
		return;
	}
	exact = n == 1 ? wt_atomics_exact(&dc, x[0].physical, len) : 0;
	if (layout == FRAGMENTED) {
		if (!check(dc.atomics == 0,
			   "%s: a write after the run goes out of place (%u atomic commands)", name,
			   dc.atomics))
			devcount_print(&dc);
	} else if (aligned) {
		if (!check(dc.atomics == 1 && exact == 1,
			   "%s: a write after the run goes in place (%u atomic commands, %u of the range)",
			   name, dc.atomics, exact))
			devcount_print(&dc);
	} else {
		skip("the allocator gave no aligned extent in 32 attempts",
		     "%s: a write after the run goes in place (%u atomic commands, %u of the range)",
		     name, dc.atomics, exact);
	}
}

static void run_case(const char *name, size_t l, int flags, unsigned int secs, enum layout layout)
{
	const struct atw_env *e = atw_env();
	struct atw_extent x[MAXEXT];
	bool aligned = true;
	unsigned char *rd;
	pthread_t w, r;
	time_t dl;
	int n;

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

	if (layout == FRAGMENTED) {
		fd = fragmented_file(len);
	} else if (layout == ALIGNED && len > e->bs) {
		fd = wt_aligned_file("wt_readers", 0, 0, len, &aligned);
	} else {
		atw_env_unlink("wt_readers");
		fd = atw_env_open("wt_readers", O_TRUNC);
	}
	if (pwrite(fd, all_a, len, 0) != (ssize_t)len || fsync(fd) ||
	    pread(fd, rd, len, 0) != (ssize_t)len)
		tap_bail("%s: prefill: %s", name, strerror(errno));
	if (layout != WRITTEN) {
		n = atw_file_extents(fd, 0, len, x, MAXEXT);
		diag("%s: the range is %d extent(s)%s", name, n,
		     n == 1 && x[0].physical % len == 0 ? ", at an address aligned to it" : "");
	}
	if (layout == FRAGMENTED)
		share_block_past(len);

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
	if (layout != WRITTEN)
		traced_write(name, layout, aligned);
	close(fd);
	atw_env_unlink("wt_readers");
	atw_env_unlink("wt_readers_pad");
	atw_env_unlink("wt_readers_src");
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
		run_case(name, e->lim.buf_max, RWF_ATOMIC | RWF_WRITETHROUGH, secs, ALIGNED);
		if (e->lim.buf_max > e->bs) {
			snprintf(name, sizeof(name),
				 "RWF_ATOMIC|RWF_WRITETHROUGH unit of %u bytes, fragmented",
				 e->lim.buf_max);
			run_case(name, e->lim.buf_max, RWF_ATOMIC | RWF_WRITETHROUGH, secs,
				 FRAGMENTED);
		} else {
			skip("a unit of one block lies in one extent",
			     "atomic write-through vs readers, fragmented range");
		}
	} else {
		skip("statx advertises no buffered atomic writes", "atomic write-through vs readers");
	}
	run_case("RWF_WRITETHROUGH of 64 KiB", PLAIN_LEN, RWF_WRITETHROUGH, secs, WRITTEN);
	run_case("buffered write of 64 KiB (control)", PLAIN_LEN, 0, secs, WRITTEN);
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
