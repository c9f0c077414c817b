// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic folios are never merged at writeback (the PG_atomic series), on the
 * XFS mounted at DIR:
 *  - 16 adjacent one-unit atomic writes, then 16 adjacent plain writes of the
 *    same size right after them, one fdatasync: the device gets one WRITE
 *    ATOMIC of exactly each atomic unit, and the plain units merged into
 *    fewer than 16 plain WRITEs;
 *  - atomic and plain units alternating: one WRITE ATOMIC per atomic unit,
 *    and no plain write reaching into an atomic unit.
 *
 * usage: pga_merge DIR
 */
#include "lib/pga_common.h"

#define N 16

#ifdef RWF_ATOMIC

static unsigned int unit;

/* Returns the number of atomic units sent as exactly one WRITE ATOMIC. */
static unsigned int exact_atomic_units(const struct devcount *dc, int fd, off_t base,
				       unsigned int stride, unsigned int n, unsigned int *plain_in)
{
	unsigned int i, good = 0;

	*plain_in = 0;
	for (i = 0; i < n; i++) {
		struct pga_range r = pga_file_range(dc, fd, base + (off_t)i * stride * unit, unit);

		if (r.atomic == 1 && r.atomic_exact == 1)
			good++;
		*plain_in += r.plain;
	}
	return good;
}

static void adjacent(void)
{
	int fd = atw_env_open("pga_merge_adjacent", O_TRUNC);
	void *buf = atw_alloc(unit);
	unsigned int i, good, plain_in;
	struct devcount dc;
	struct pga_range p;
	off_t pbase = (off_t)N * unit;

	for (i = 0; i < N; i++) {
		atw_fill(buf, unit, (off_t)i * unit, 1);
		pga_write_or_bail(fd, buf, unit, (off_t)i * unit, RWF_ATOMIC);
	}
	for (i = 0; i < N; i++) {
		atw_fill(buf, unit, pbase + (off_t)i * unit, 1);
		pga_write_or_bail(fd, buf, unit, pbase + (off_t)i * unit, 0);
	}
	pga_sync_counted(fd, &dc);
	good = exact_atomic_units(&dc, fd, 0, 1, N, &plain_in);
	check(good == N, "%u adjacent atomic units: one exact WRITE ATOMIC each (%u of %u)", N, good, N);
	check(plain_in == 0, "no plain write reaches into the atomic units (%u do)", plain_in);
	check(dc.atomics == N, "exactly %u WRITE ATOMIC commands in all (%u)", N, dc.atomics);
	p = pga_range_of(&dc, pga_phys(fd, pbase), (uint64_t)N * unit);
	check(p.atomic == 0, "the %u plain units are not written atomically (%u WRITE ATOMIC)", N,
	      p.atomic);
	check(p.plain_bytes == (uint64_t)N * unit,
	      "the %u plain units reach the device whole (%llu of %llu bytes)", N,
	      (unsigned long long)p.plain_bytes, (unsigned long long)N * unit);
	if (!check(p.plain >= 1 && p.plain < N, "the %u plain units are merged: %u plain WRITEs (< %u)",
		   N, p.plain, N) ||
	    good != N)
		devcount_print(&dc);
	diag("%u atomic units -> %u WRITE ATOMIC; %u plain units -> %u WRITE", N, dc.atomics, N,
	     p.plain);
	close(fd);
	free(buf);
}

static void alternating(void)
{
	int fd = atw_env_open("pga_merge_alternating", O_TRUNC);
	void *buf = atw_alloc(unit);
	unsigned int i, good, plain_in;
	struct devcount dc;

	for (i = 0; i < 2 * N; i++) {
		atw_fill(buf, unit, (off_t)i * unit, 2);
		pga_write_or_bail(fd, buf, unit, (off_t)i * unit, i % 2 ? 0 : RWF_ATOMIC);
	}
	pga_sync_counted(fd, &dc);
	good = exact_atomic_units(&dc, fd, 0, 2, N, &plain_in);
	check(good == N, "alternating: one exact WRITE ATOMIC per atomic unit (%u of %u)", good, N);
	check(plain_in == 0, "alternating: no plain write reaches into an atomic unit (%u do)",
	      plain_in);
	for (i = 0, good = 0; i < N; i++) {
		struct pga_range r = pga_file_range(&dc, fd, (off_t)(2 * i + 1) * unit, unit);

		if (r.atomic == 0 && r.plain_bytes == unit)
			good++;
	}
	if (!check(good == N, "alternating: every plain unit written by plain WRITEs (%u of %u)", good,
		   N))
		devcount_print(&dc);
	close(fd);
	free(buf);
}

static void run(void)
{
	const struct atw_env *e = atw_env();

	if (!pga_supported("pga_merge"))
		return;
	unit = e->lim.buf_min;
	diag("atomic unit %u bytes", unit);
	adjacent();
	alternating();
}
#endif

int main(int argc, char **argv)
{
	tap_start("pga_merge");
	pga_setup(argc, argv);
#ifdef RWF_ATOMIC
	run();
#else
	skip("uapi has no RWF_ATOMIC", "pga_merge");
#endif
	return tap_done();
}
