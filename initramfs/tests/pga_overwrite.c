// SPDX-License-Identifier: GPL-2.0
/*
 * What drops the atomicity of a buffered atomic write before writeback (the
 * PG_atomic series documents it: "a non-atomic write over an atomic write
 * will remove the atomic guarantee", and an mmap store likewise), on the XFS
 * mounted at DIR, checked at the device after one fdatasync per case:
 *
 *   atomic                          -> one WRITE ATOMIC (control)
 *   atomic, plain over all of it    -> no WRITE ATOMIC, the plain data
 *   atomic, plain over a part of it -> no WRITE ATOMIC, the merged data
 *   plain, atomic over it           -> one WRITE ATOMIC (the last write wins)
 *   atomic, atomic over it          -> one WRITE ATOMIC of the second one
 *   atomic, mmap store into it      -> no WRITE ATOMIC, the stored data
 *   atomic, fdatasync, mmap store   -> the first sync sent one WRITE ATOMIC
 *
 * usage: pga_overwrite DIR
 */
#include "lib/pga_common.h"

#include <sys/mman.h>

#ifdef RWF_ATOMIC

static unsigned int unit;
static int fd;
static off_t cur;		/* the unit of the current case */
static unsigned char *want;
static uint64_t gen = 1000;

static void next_unit(void)
{
	cur += 4 * (off_t)unit;
}

static void put(unsigned int off, unsigned int len, int flags)
{
	pga_put(fd, want, cur, off, len, flags, ++gen);
}

static void mmap_store(unsigned int off)
{
	off_t map_off = (cur + off) & ~((off_t)atw_env()->ps - 1);
	size_t in = cur + off - map_off;
	unsigned char *map = mmap(NULL, atw_env()->ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				  map_off);

	if (map == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	map[in] ^= 0xa5;
	want[off] ^= 0xa5;
	if (munmap(map, atw_env()->ps))
		tap_bail("munmap: %s", strerror(errno));
}

/* fdatasync and check what reached the device for the current unit. */
static void expect(const char *name, bool atomic)
{
	struct devcount dc;
	struct pga_range r;

	pga_sync_counted(fd, &dc);
	r = pga_file_range(&dc, fd, cur, unit);
	if (atomic) {
		if (!check(r.atomic == 1 && r.atomic_exact == 1 && r.plain == 0,
			   "%s: one exact WRITE ATOMIC, no plain write (%u exact, %u atomic, %u plain)",
			   name, r.atomic_exact, r.atomic, r.plain))
			devcount_print(&dc);
	} else {
		if (!check(r.atomic == 0 && r.plain_bytes == unit,
			   "%s: atomicity dropped, the unit goes out in plain writes (%u atomic, %u plain, %llu bytes)",
			   name, r.atomic, r.plain, (unsigned long long)r.plain_bytes))
			devcount_print(&dc);
	}
	check(pga_dev_equals(fd, want, cur, unit), "%s: the device holds the data written last", name);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	unsigned int part;

	if (!pga_supported("pga_overwrite"))
		return;
	unit = e->lim.buf_min;
	part = unit / 4 ? unit / 4 : 1;
	want = atw_alloc(unit);
	fd = atw_env_open("pga_overwrite", O_TRUNC);
	cur = 0;
	diag("atomic unit %u bytes, partial overwrite %u bytes", unit, part);

	put(0, unit, RWF_ATOMIC);
	expect("atomic (control)", true);

	next_unit();
	put(0, unit, RWF_ATOMIC);
	put(0, unit, 0);
	expect("atomic, then a plain write over all of it", false);

	next_unit();
	put(0, unit, RWF_ATOMIC);
	put(unit / 2, part, 0);
	expect("atomic, then a plain write over a part of it", false);

	next_unit();
	put(0, unit, 0);
	put(0, unit, RWF_ATOMIC);
	expect("plain, then atomic over it", true);

	next_unit();
	put(0, unit, RWF_ATOMIC);
	put(0, unit, RWF_ATOMIC);
	expect("atomic, then atomic over it", true);

	next_unit();
	put(0, unit, RWF_ATOMIC);
	mmap_store(unit - 1);
	expect("atomic, then an mmap store into it", false);

	next_unit();
	put(0, unit, RWF_ATOMIC);
	expect("atomic, synced before the mmap store", true);
	mmap_store(0);
	expect("mmap store after the sync", false);

	close(fd);
	free(want);
}
#endif

int main(int argc, char **argv)
{
	tap_start("pga_overwrite");
	pga_setup(argc, argv);
#ifdef RWF_ATOMIC
	run();
#else
	skip("uapi has no RWF_ATOMIC", "pga_overwrite");
#endif
	return tap_done();
}
