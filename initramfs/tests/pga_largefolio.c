// SPDX-License-Identifier: GPL-2.0
/*
 * Plain and atomic buffered writes into one large folio (the PG_atomic
 * series), on the XFS mounted at DIR: the case the series must get right
 * wherever the page cache holds several atomic units in one folio (block
 * size >= page size with large folios; in the RFC's patch order XFS took
 * buffered atomic writes before the per-block tracking existed, and a prefix
 * of the series sent a whole large folio as one atomic write). Each case
 * starts from 16 units written in one call and synced (the page cache then
 * makes large folios), checked through /proc/self/pagemap and
 * /proc/kpageflags to hold the units of the case in one compound page (else
 * SKIP: nothing to check), then, with U = one atomic unit:
 *
 *   plain U0, atomic U2            -> WRITE ATOMIC of exactly U2; U0 plain
 *   atomic U2, plain U0            -> the same
 *   atomic U2, plain U1 and U3     -> WRITE ATOMIC of exactly U2; U1, U3
 *                                     plain, no atomic write reaching them
 *   atomic U2 and U5, plain U0     -> one exact WRITE ATOMIC each
 *
 * after one fdatasync (traced): never an atomic command larger than the
 * atomic range, no plain command inside it, and the device holds exactly
 * the data written, the plain data included (never lost). An atomic write
 * the kernel refuses instead (EINVAL, EOPNOTSUPP) is accepted if the plain
 * data still reaches the device; the test says so.
 *
 * usage: pga_largefolio DIR
 */
#include "lib/kfile.h"
#include "lib/pga_common.h"

#include <stdint.h>
#include <sys/mman.h>

#ifdef RWF_ATOMIC

#define NU 16			/* units per case */
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16

static unsigned int unit;
static int fd;
static off_t base;		/* the current case's first unit */
static unsigned char *want;	/* NU units: what the case's range should hold */
static uint64_t gen = 2000;

/*
 * True when file bytes [base + lo, base + hi) are in one compound page of
 * the page cache: consecutive PFNs, the first a head or tail page, every
 * other a tail page. why gets the reason when not.
 */
static bool one_folio(off_t lo, off_t hi, char *why, size_t len)
{
	size_t ps = atw_env()->ps, mlen;
	off_t mo = (base + lo) / (off_t)ps * (off_t)ps;
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	unsigned char *map = MAP_FAILED;
	uint64_t pfn0 = 0, f;
	bool ok = pm >= 0 && kf >= 0;
	size_t i;

	if (!ok)
		snprintf(why, len, "cannot open /proc/self/pagemap and /proc/kpageflags");
	mlen = (size_t)(base + hi - mo);
	if (ok)
		map = mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, mo);
	if (ok && map == MAP_FAILED) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		ok = false;
	}
	for (i = 0; ok && i < mlen; i += ps) {
		uint64_t pe, pfn;

		(void)*(volatile unsigned char *)(map + i);
		pe = kf_u64_at(pm, (uintptr_t)(map + i) / ps);
		pfn = (pe >> 63) & 1 ? pe & ((1ULL << 55) - 1) : 0;
		if (!pfn) {
			snprintf(why, len, "no PFN in /proc/self/pagemap");
			ok = false;
			break;
		}
		f = kf_u64_at(kf, pfn);
		if (!i) {
			pfn0 = pfn;
			ok = f & (1ULL << KPF_COMPOUND_HEAD | 1ULL << KPF_COMPOUND_TAIL);
		} else {
			ok = pfn == pfn0 + i / ps && (f & 1ULL << KPF_COMPOUND_TAIL);
		}
		if (!ok)
			snprintf(why, len, "the page cache holds the range in more than one folio (page %zu)",
				 i / ps);
	}
	if (map != MAP_FAILED)
		munmap(map, mlen);
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return ok;
}

/* 16 units of a new generation in one call, synced: the case's start. */
static void fill(void)
{
	atw_fill(want, NU * unit, base, ++gen);
	pga_write_or_bail(fd, want, NU * unit, base, 0);
	if (fdatasync(fd))
		tap_bail("fdatasync: %s", strerror(errno));
}

/* Writes unit u (plain or atomic); the atomic write's error, or 0. */
static ssize_t put(unsigned int u, int flags)
{
	unsigned char *buf = atw_alloc(unit);
	ssize_t ret;

	atw_fill(buf, unit, base + (off_t)u * unit, ++gen);
	ret = atw_pwrite(fd, buf, unit, base + (off_t)u * unit, flags);
	if (ret == (ssize_t)unit)
		memcpy(want + (size_t)u * unit, buf, unit);
	else if (!(flags & RWF_ATOMIC))
		tap_bail("plain write of unit %u: %zd %s", u, ret, atw_err(ret));
	free(buf);
	return ret == (ssize_t)unit ? 0 : ret;
}

/*
 * One case: atomic units at[0..na), plain units pl[0..np); atomic_first
 * orders the writes. Checked after one traced fdatasync.
 */
static void one_case(const char *name, const unsigned int *at, int na, const unsigned int *pl,
		     int np, bool atomic_first)
{
	unsigned int lo = NU, hi = 0;
	struct devcount dc;
	ssize_t err = 0, e;
	char why[160];
	int i, pass;

	for (i = 0; i < na; i++) {
		lo = at[i] < lo ? at[i] : lo;
		hi = at[i] + 1 > hi ? at[i] + 1 : hi;
	}
	for (i = 0; i < np; i++) {
		lo = pl[i] < lo ? pl[i] : lo;
		hi = pl[i] + 1 > hi ? pl[i] + 1 : hi;
	}
	base += NU * (off_t)unit;
	fill();
	if (!one_folio((off_t)lo * unit, (off_t)hi * unit, why, sizeof(why))) {
		skip(why, "%s", name);
		return;
	}
	for (pass = 0; pass < 2; pass++) {
		bool atomic = (pass == 0) == atomic_first;

		for (i = 0; i < (atomic ? na : np); i++) {
			e = put(atomic ? at[i] : pl[i], atomic ? RWF_ATOMIC : 0);
			if (e && !err)
				err = e;
		}
	}
	pga_sync_counted(fd, &dc);
	if (err) {
		check(err == -EINVAL || err == -EOPNOTSUPP,
		      "%s: the atomic write is refused cleanly (%s)", name, atw_err(err));
	} else {
		for (i = 0; i < na; i++) {
			struct pga_range r = pga_file_range(&dc, fd, base + (off_t)at[i] * unit,
							    unit);

			if (!check(r.atomic == 1 && r.atomic_exact == 1 && r.plain == 0,
				   "%s: unit %u goes out as one WRITE ATOMIC of exactly the unit (%u exact, %u atomic, %u plain)",
				   name, at[i], r.atomic_exact, r.atomic, r.plain))
				devcount_print(&dc);
		}
	}
	for (i = 0; i < np; i++) {
		struct pga_range r = pga_file_range(&dc, fd, base + (off_t)pl[i] * unit, unit);

		if (!check(r.atomic == 0 && r.plain_bytes == unit,
			   "%s: plain unit %u goes out in plain writes only (%u atomic, %llu plain bytes)",
			   name, pl[i], r.atomic, (unsigned long long)r.plain_bytes))
			devcount_print(&dc);
	}
	check(pga_dev_equals(fd, want, base, NU * unit),
	      "%s: the device holds exactly what was written, the plain data included", name);
}

static void run(void)
{
	static const unsigned int a2[] = { 2 }, a25[] = { 2, 5 };
	static const unsigned int p0[] = { 0 }, p13[] = { 1, 3 };
	const struct atw_env *e = atw_env();

	if (!pga_supported("pga_largefolio"))
		return;
	unit = e->lim.buf_min;
	want = atw_alloc(NU * unit);
	fd = atw_env_open("pga_largefolio", O_TRUNC);
	base = -(off_t)NU * unit;
	diag("atomic unit %u bytes, block %u, page %u", unit, e->bs, e->ps);
	if (access("/proc/kpageflags", R_OK)) {
		skip("no /proc/kpageflags: cannot tell a large folio", "pga_largefolio");
		goto out;
	}
	one_case("plain U0, then atomic U2, one folio", a2, 1, p0, 1, false);
	one_case("atomic U2, then plain U0, one folio", a2, 1, p0, 1, true);
	one_case("atomic U2, then plain U1 and U3 beside it, one folio", a2, 1, p13, 2, true);
	one_case("atomic U2 and U5, plain U0, one folio", a25, 2, p0, 1, true);
out:
	close(fd);
	atw_env_unlink("pga_largefolio");
	free(want);
}
#endif

int main(int argc, char **argv)
{
	tap_start("pga_largefolio");
	pga_setup(argc, argv);
#ifdef RWF_ATOMIC
	run();
#else
	skip("uapi has no RWF_ATOMIC", "pga_largefolio");
#endif
	return tap_done();
}
