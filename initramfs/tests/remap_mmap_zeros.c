// SPDX-License-Identifier: GPL-2.0
/*
 * remap_mmap_zeros: a finding in the page cache, not in either series
 * (docs/findings.md, "mm: an mmap reader sees zeros in a large folio a
 * remap only drops"); the plan remap-mmap runs it, the test plans do not
 * (it fails on every 6.12 kernel). Before XFS remaps a range (clone,
 * dedupe, insert/collapse range) it writes the range back and drops it
 * from the page cache with truncate_pagecache_range(): the range is
 * unmapped, then truncate_inode_partial_folio() zeroes the part of a large
 * folio that straddles the range's start or end before it splits the
 * folio or drops it. A read fault in between maps the folio again (it is
 * uptodate and not yet locked), so an mmap reader sees the zeroing,
 * although the file never holds zeros there: read(2) is kept out by the
 * iolock, page cache misses by the invalidate lock, not a mapped folio.
 *
 * Each round: file A and file B hold the same pattern, A is in large
 * folios in the page cache (one buffered write after the cache was
 * dropped), clean; a reader thread maps A and reads [S, 1 MiB) again
 * and again while the main thread remaps B's [S, S + LEN) onto A:
 *   clone      FICLONERANGE, S = 1 MiB - 64 KiB (mid-folio): the data
 *              does not change, so no state of the file has a zero there
 *   dedupe     FIDEDUPERANGE of the same range (identical by construction)
 *   whole      control: the clone starts at the folio's start, no folio
 *              straddles it; S is the folio start, the reader reads the
 *              first 64 KiB of the range
 *   punch      a hole punch of 4 KiB at S + 32 KiB + 100 (not page-aligned:
 *              XFS drops the range rounded out to pages, [S + 32 KiB,
 *              S + 40 KiB), from the cache); the reader skips the hole,
 *              whose zeros are real, and watches the rest
 *   punch-aligned  control: the same at S + 32 KiB, page-aligned: the
 *              dropped range is the hole
 * Expected on 6.12: clone, dedupe and punch fail (zeros seen in some
 * rounds), whole and punch-aligned pass. The size of the folio under the watched range is read
 * from /proc/kpageflags (through /proc/self/pagemap) and reported.
 *   remap_mmap_zeros MODE DIR [ROUNDS]
 */
#include "lib/kfile.h"
#include "lib/tap.h"
#include "lib/wt_common.h"

#include <linux/falloc.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#define FOLIO	(1u << 20)		/* a large folio's end in A */
#define FSIZE	(8u << 20)		/* A and B */
#define LEN	(4u << 20)		/* the remapped range */
#define WATCH	(64u << 10)		/* what the reader reads each pass */

static const unsigned char *map;
static off_t watch_off;
static off_t hole_lo, hole_hi;		/* punch: not watched */
static atomic_int phase;		/* 0 wait, 1 read, 2 stop */
static atomic_long zero_at;		/* first zero byte seen, or -1 */
static atomic_long passes;

static void *reader(void *arg)
{
	const volatile unsigned char *p;
	size_t i;

	(void)arg;
	while (atomic_load(&phase) == 0)
		;
	p = map + watch_off;
	while (atomic_load(&phase) == 1) {
		/* one byte in each 512: the zeroing is a memset of pages */
		for (i = 0; i < WATCH; i += 512) {
			if (watch_off + (off_t)i >= hole_lo && watch_off + (off_t)i < hole_hi)
				continue;
			if (p[i] == 0 && atomic_load(&zero_at) < 0)
				atomic_store(&zero_at, (long)(watch_off + i));
		}
		atomic_fetch_add(&passes, 1);
	}
	return NULL;
}

/* Pages in the folio mapped at addr, or 0 if that cannot be read. */
static int folio_pages(const void *addr)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	uint64_t ent = 0, pfn, flags = 0;
	int n = 0;

	if (pm >= 0 && kf >= 0)
		ent = kf_u64_at(pm, (uintptr_t)addr / 4096);
	pfn = ent & ((1ULL << 55) - 1);	/* the PFN (needs CAP_SYS_ADMIN) */
	if ((ent & (1ULL << 63)) && pfn)	/* present */
		flags = kf_u64_at(kf, pfn);
	/* KPF_COMPOUND_TAIL (16): back to the head; KPF_COMPOUND_HEAD (15) */
	while (flags && (flags & (1ULL << 16)) && pfn && n < 512) {
		flags = kf_u64_at(kf, --pfn);
		n++;
	}
	if (!flags || (flags & (1ULL << 16)))
		n = 0;
	else if (!(flags & (1ULL << 15)))
		n = 1;
	else
		for (n = 1; n < 512 && (kf_u64_at(kf, pfn + n) & (1ULL << 16)); n++)
			;
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return n;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "clone";
	int rounds = argc > 3 ? atoi(argv[3]) : 60;
	int a, b, r, seen = 0, err = 0, pages, large = 0;
	unsigned char *buf;
	off_t s;
	char p[512];
	pthread_t t;

	if (argc < 3)
		tap_bail("usage: remap_mmap_zeros clone|dedupe|whole|punch|punch-aligned DIR [ROUNDS]");
	tap_start("remap_mmap_zeros");
	if (strcmp(mode, "clone") && strcmp(mode, "dedupe") && strcmp(mode, "whole") &&
	    strcmp(mode, "punch") && strcmp(mode, "punch-aligned"))
		tap_bail("mode %s: clone, dedupe, whole, punch or punch-aligned", mode);
	s = strcmp(mode, "whole") ? FOLIO - WATCH : 0;
	watch_off = s;
	if (!strncmp(mode, "punch", 5)) {
		hole_lo = s + WATCH / 2 + (strcmp(mode, "punch") ? 0 : 100);
		hole_hi = hole_lo + 4096;
	}
	if (posix_memalign((void **)&buf, 4096, FSIZE))
		tap_bail("memory");
	wt_pattern(buf, FSIZE, 0, 1);
	snprintf(p, sizeof(p), "%s/a", argv[2]);
	a = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	snprintf(p, sizeof(p), "%s/b", argv[2]);
	b = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (a < 0 || b < 0)
		tap_bail("open: %s", strerror(errno));
	if (pwrite(b, buf, FSIZE, 0) != FSIZE || fsync(b) ||
	    pwrite(a, buf, FSIZE, 0) != FSIZE || fsync(a))
		tap_bail("write: %s", strerror(errno));
	for (r = 0; r < rounds; r++) {
		struct file_clone_range cr = {
			.src_fd = b, .src_offset = s, .src_length = LEN, .dest_offset = s,
		};
		struct {
			struct file_dedupe_range d;
			struct file_dedupe_range_info i;
		} dr = { .d = { .src_offset = s, .src_length = LEN, .dest_count = 1 },
			 .i = { .dest_fd = a, .dest_offset = s } };
		unsigned char *m;
		ssize_t n;
		int ret;

		/*
		 * A in new large folios on new blocks, clean. New blocks: a
		 * write over the blocks the last round's remap shared would
		 * go through the COW fork, whose mapping ends at S, and the
		 * folios would end there too. The remap drops the folios
		 * inside the range first, which holds the window open.
		 */
		if (ftruncate(a, 0))
			tap_bail("round %d: truncate: %s", r, strerror(errno));
		wt_drop_caches();	/* no fadvise in the guest kernel */
		n = pwrite(a, buf, FSIZE, 0);
		if (n != FSIZE || fdatasync(a))
			tap_bail("round %d: rewrite (%zd): %s", r, n, strerror(errno));
		m = mmap(NULL, FSIZE, PROT_READ, MAP_SHARED, a, 0);
		if (m == MAP_FAILED)
			tap_bail("mmap: %s", strerror(errno));
		map = m;
		(void)*(volatile unsigned char *)(m + s);	/* mapped */
		pages = folio_pages(m + s);
		if (r == 0)
			diag("%s: the folio holding A's offset %lld spans %d pages (0: unknown)",
			     mode, (long long)s, pages);
		if (pages > 1)
			large++;
		atomic_store(&zero_at, -1);
		atomic_store(&passes, 0);
		atomic_store(&phase, 0);
		if (pthread_create(&t, NULL, reader, NULL))
			tap_bail("thread");
		atomic_store(&phase, 1);
		while (atomic_load(&passes) < 2)
			;
		if (hole_hi) {
			ret = fallocate(a, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, hole_lo,
					hole_hi - hole_lo);
		} else if (!strcmp(mode, "dedupe")) {
			ret = ioctl(b, FIDEDUPERANGE, &dr.d);
			if (!ret && dr.i.status != FILE_DEDUPE_RANGE_SAME)
				ret = -1, errno = EILSEQ;
		} else {
			ret = ioctl(a, FICLONERANGE, &cr);
		}
		/* a few passes after the remap returned */
		{
			long p0 = atomic_load(&passes);

			while (atomic_load(&passes) < p0 + 2)
				;
		}
		atomic_store(&phase, 2);
		pthread_join(t, NULL);
		if (ret) {
			err++;
			diag("round %d: %s: %s", r, mode, strerror(errno));
		}
		if (atomic_load(&zero_at) >= 0) {
			if (seen < 3)
				diag("round %d: the mmap reader saw byte %ld as 00 during the %s of [%lld, %lld); the file holds pattern there in every state",
				     r, atomic_load(&zero_at), mode, (long long)(hole_hi ? hole_lo : s),
				     (long long)(hole_hi ? hole_hi : s + LEN));
			seen++;
		}
		munmap(m, FSIZE);
	}
	check(err == 0, "%s: every remap succeeded (%d failed)", mode, err);
	diag("%s: in %d of %d rounds the watched page was in a large folio", mode, large, rounds);
	if (pread(a, buf, FSIZE, 0) != FSIZE)
		tap_bail("read back");
	if (hole_hi) {
		/* the hole reads zeros; the rest the pattern */
		check(wt_nonzero(buf + hole_lo, hole_hi - hole_lo) < 0,
		      "%s: the hole reads zeros afterwards", mode);
		wt_pattern(buf + hole_lo, hole_hi - hole_lo, hole_lo, 1);
	}
	check(wt_pattern_bad(buf, FSIZE, 0, 1) < 0, "%s: A reads its pattern afterwards%s", mode,
	      hole_hi ? " outside the hole" : "");
	check(seen == 0, "%s: an mmap reader never sees zeros the file never holds (%d of %d rounds saw them)",
	      mode, seen, rounds);
	close(a);
	close(b);
	return tap_done();
}
