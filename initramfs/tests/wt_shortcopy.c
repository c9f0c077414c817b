// SPDX-License-Identifier: GPL-2.0
/*
 * A write-through that copies short into a large folio that an earlier
 * buffered write filled and left dirty (DIR an XFS): the rest of the folio
 * holds that earlier data, and the write-through writes it too, so it must
 * also complete it (unwritten extent conversion, COW remap) — or not write
 * it at all.
 *
 * The region is 4 units (a unit: one block, or one page if blocks are
 * smaller), preallocated (unwritten extents), then written with a buffered
 * write of generation 1 (one folio of 4 units, clean of per-block state,
 * dirty). A write-through of the region from a buffer whose units 1..3 are
 * PROT_NONE copies one unit and stops:
 *  - the call returns one unit;
 *  - after fsync and a dropped cache, unit 0 reads the write-through's
 *    data and units 1..3 the buffered write's: none reads zeros (a unit
 *    written to an unwritten extent that was never converted) or anything
 *    else;
 *  - the same on a reflinked copy of the file (COW extents instead of
 *    unwritten ones), where the lost units would read the clone's old data.
 *
 * usage: wt_shortcopy DIR
 */
#include "lib/wt_common.h"

#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/mman.h>

#ifdef RWF_WRITETHROUGH

#define NUNITS 4

static size_t unit;

static const char *what_of(bool cow)
{
	return cow ? "reflinked file" : "unwritten extents";
}

static void one(struct atw_env *e, bool cow)
{
	const char *what = what_of(cow);
	size_t region = NUNITS * unit;
	unsigned char *src, *buf;
	char path[512];
	ssize_t ret;
	long bad;
	int fd, i;

	fd = atw_env_open("wt_shortcopy", O_TRUNC);
	if (cow) {
		int from = atw_env_open("wt_shortcopy.src", O_TRUNC);

		/* the clone's data: generation 9, written and shared */
		buf = atw_alloc(region);
		wt_pattern(buf, region, 0, 9);
		if (atw_pwrite(from, buf, region, 0, 0) != (ssize_t)region || fsync(from))
			tap_bail("source write: %s", strerror(errno));
		free(buf);
		if (ioctl(fd, FICLONE, from)) {
			skip("FICLONE failed", "%s: %s", what, strerror(errno));
			close(from);
			close(fd);
			return;
		}
		close(from);
	} else if (fallocate(fd, 0, 0, region)) {
		tap_bail("fallocate: %s", strerror(errno));
	}
	wt_drop_caches();

	/* One buffered write over the whole region: generation 1, dirty. */
	buf = atw_alloc(region);
	wt_pattern(buf, region, 0, 1);
	if (atw_pwrite(fd, buf, region, 0, 0) != (ssize_t)region)
		tap_bail("buffered write: %s", strerror(errno));

	/* The source: unit 0 of generation 2, the rest unreadable. */
	src = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	wt_pattern(src, unit, 0, 2);
	if (mprotect(src + unit, region - unit, PROT_NONE))
		tap_bail("mprotect: %s", strerror(errno));

	ret = atw_pwrite(fd, src, region, 0, RWF_WRITETHROUGH);
	check(ret == (ssize_t)unit, "%s: a write-through whose source ends after one unit returns one unit (%zd, %s)",
	      what, ret, atw_err(ret));
	if (fsync(fd))
		tap_bail("fsync: %s", strerror(errno));
	wt_drop_caches();
	if (atw_pread(fd, buf, region, 0) != (ssize_t)region)
		tap_bail("read: %s", strerror(errno));
	bad = wt_pattern_bad(buf, unit, 0, 2);
	check(bad < 0, "%s: unit 0 reads the write-through's data after a dropped cache (first bad byte %ld)",
	      what, bad);
	for (i = 1; i < NUNITS; i++) {
		bad = wt_pattern_bad(buf + i * unit, unit, i * unit, 1);
		check(bad < 0, "%s: unit %d reads the earlier buffered write's data after fsync and a dropped cache (first bad byte %ld%s)",
		      what, i, bad, bad >= 0 && wt_nonzero(buf + i * unit, unit) < 0 ? ": zeros" : "");
	}
	munmap(src, region);
	free(buf);
	close(fd);
	snprintf(path, sizeof(path), "wt_shortcopy.src");
	if (cow)
		atw_env_unlink(path);
	atw_env_unlink("wt_shortcopy");
	(void)e;
}

int main(int argc, char **argv)
{
	struct atw_env *e;

	tap_start("wt_shortcopy");
	e = atw_env_setup(argc, argv, "wt_shortcopy DIR");
	unit = e->bs > e->ps ? e->bs : e->ps;
	one(e, false);
	one(e, true);
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_shortcopy");
	skip(WT_UAPI_SKIP, "wt_shortcopy");
	return tap_done();
}

#endif
