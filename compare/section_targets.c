// SPDX-License-Identifier: GPL-2.0
/*
 * section_targets.c: the project's performance targets for write-through
 * atomic writes (README.md, "Performance targets") as ratios from this
 * run, each computed inside every round (the kernels of a round booted
 * back to back) and then the median and min..max over the rounds; met /
 * not met by the median (never asserted). Beside them the guest CPU per
 * write of WT and DIO atomic writes and a 16 KiB memcpy in the same guest,
 * the physical floor of the copy. Each target also goes to results.json.
 */
#include "aggregate.h"
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <math.h>
#include <string.h>

static int missed;	/* targets not met in this report */

static void target(FILE *out, const char *what, struct stat3 r, double want,
		   bool at_most, const char *how)
{
	char b[1][16];
	const char *verdict = isnan(r.med) ? "not measured" :
		(at_most ? r.med <= want : r.med >= want) ? "met" : "NOT met";

	if (!strcmp(verdict, "NOT met"))
		missed++;
	fprintf(out, "%-44.44s %6s %s%.2f  %s\n", what,
		isnan(r.med) ? "-" : (sprintf(b[0], "%.2f", r.med), b[0]),
		at_most ? "<=" : ">=", want, verdict);
	if (r.n) {
		char head[64];
		int n = snprintf(head, sizeof(head), "  per round [%.2f..%.2f], %d round%s;",
				 r.min, r.max, r.n, r.n == 1 ? "" : "s");

		/* within 80 columns: the explanation on its own line if need be */
		if (n + 1 + strlen(how) <= 80)
			fprintf(out, "%s %s\n", head, how);
		else
			fprintf(out, "%s\n    %s\n", head, how);
	} else
		fprintf(out, "  %s\n", how);
	json_out_target(what, r.med, want, at_most, verdict);
}

/* The name of the first kernel with an ok run of bench at ndelay, or NULL. */
static const char *kernel_with(const char *bench, int ndelay)
{
	int k = find_kernel_with(bench, ndelay);

	return k < 0 ? NULL : kernels[k];
}

/* Same kernel, same rounds: a over b. */
static struct stat3 same(const char *a, const char *b, int ndelay, enum metric m)
{
	const char *k = kernel_with(a, ndelay);

	return ratio_rounds(k, a, k, b, ndelay, m);
}

/* Guest CPU per write: WT atomic, DIO atomic, their difference, memcpy. */
static void cpu_floor(FILE *out)
{
	const char *k = kernel_with("wt-atomic", 20000);
	struct stat3 w, d, c, m;
	char b[4][16];

	if (!k)
		return;
	w = agg(k, "wt-atomic", 20000, false, CPU);
	d = agg(k, "dio-atomic", 20000, false, CPU);
	c = agg(k, "memcpy", 0, false, P50);
	m = agg(k, "memcpy", 0, false, CPU);
	fprintf(out, "Guest CPU per 16 KiB write (%c, 20 us, median of the rounds): WT atomic\n"
		"%s us, DIO atomic %s us: WT costs %s us more. A 16 KiB memcpy in the\n"
		"same guest: p50 %s us",
		kernel_letter(k), num(w.med, b[0]), num(d.med, b[1]), num(w.med - d.med, b[2]),
		num(c.med, b[3]));
	fprintf(out, ", %s us of CPU per copy (bench_io --memcpy).\n", num(m.med, b[0]));
}

/* us of CPU per write in component c. */
static double comp_us(const struct profile *p, int c)
{
	return profile_us(p, p->comp[c]);
}

/* What the profile blames for WT atomic's excess over DIO atomic. */
static void blame(FILE *out)
{
	const char *k = kernel_with("wt-atomic", 20000);
	const struct profile *w = k ? find_profile(k, "wt-atomic") : NULL;
	const struct profile *d = k ? find_profile(k, "dio-atomic") : NULL;
	int c, top[2] = { -1, -1 };

	if (!w || !d) {
		fprintf(out, "A target is not met; no wt-atomic and dio-atomic profiles in this\n"
			"run to say why (scripts/compare --profile).\n");
		return;
	}
	for (c = 0; c < NR_COMPONENTS; c++) {
		double x = comp_us(w, c) - comp_us(d, c);

		if (top[0] < 0 || x > comp_us(w, top[0]) - comp_us(d, top[0])) {
			top[1] = top[0];
			top[0] = c;
		} else if (top[1] < 0 || x > comp_us(w, top[1]) - comp_us(d, top[1])) {
			top[1] = c;
		}
	}
	fprintf(out, "A target is not met. The profile (%c, 20 us) blames, per write, WT\n"
		"atomic over DIO atomic: %s %+.1f us,\n%s %+.1f us (Profile section).\n",
		kernel_letter(k), component_name[top[0]],
		comp_us(w, top[0]) - comp_us(d, top[0]), component_name[top[1]],
		comp_us(w, top[1]) - comp_us(d, top[1]));
}

/* PostgreSQL fpw-off-atomic against fpw-on, per kernel that ran it. */
static void pg_targets(FILE *out)
{
	char what[64], how[96];
	int k;

	for (k = 0; k < nkernels; k++) {
		struct pgb_agg a = agg_pgbench(kernels[k], "fpw-off-atomic");
		struct stat3 wal = { 0, NAN, NAN, NAN };

		if (!a.tps.n || a.refused)
			continue;
		snprintf(what, sizeof(what), "PG fpw-off-atomic TPS / fpw-on (%c)",
			 kernel_letter(kernels[k]));
		snprintf(how, sizeof(how), "pgbench, %s, same boot",
			 pgb_setup.disk[0] ? pgb_setup.disk : "?");
		target(out, what, a.x_on, 1.5, false, how);
		/* a ratio of the boots' medians: no per-round range to print */
		if (!isnan(a.x_wal) && a.x_wal > 0)
			wal.med = wal.min = wal.max = 1 / a.x_wal;
		snprintf(what, sizeof(what), "PG fpw-off-atomic WAL per txn / fpw-on (%c)",
			 kernel_letter(kernels[k]));
		target(out, what, wal, 0.10, true, "medians of the boots' WAL per transaction");
	}
}

void section_targets(FILE *out)
{
	struct stat3 r;
	char b[16];

	missed = 0;
	hr(out, "Targets (ratios per round, median; TCG; met / not met, never asserted)");
	r = same("wt-atomic", "dio-atomic", 100000, P50);
	target(out, "WT atomic QD1 p50 latency / DIO, 100 us", r, 1.10, true,
	       "wt-atomic vs dio-atomic, same kernel, same boots, 100 us");
	r = same("wt-atomic", "dio-atomic", 20000, P50);
	target(out, "WT atomic QD1 p50 latency / DIO, 20 us", r, 1.10, true,
	       "wt-atomic vs dio-atomic, same kernel, same boots, 20 us");
	r = same("wt-atomic-qd32", "dio-atomic-qd32", 20000, OPS);
	target(out, "io_uring QD32 WT atomic ops/s / DIO atomic", r, 0.90, false,
	       "wt-atomic-qd32 vs dio-atomic-qd32, same kernel, 20 us");
	r = same("wt-atomic-4t1f", "dio-atomic-4t1f", 0, OPS);
	target(out, "WT atomic 4 threads 1 file / DIO atomic", r, 0.95, false,
	       "wt-atomic-4t1f vs dio-atomic-4t1f, same kernel, 0 us");
	r = same("wt-atomic-4t1f", "buf-dsync-4t1f", 0, OPS);
	target(out, "WT atomic 4 threads 1 file / buffered DSYNC", r, 1.5, false,
	       "wt-atomic-4t1f vs buf-dsync-4t1f, same kernel, 0 us");
	r = same("wt-dsync-4t1f", "buf-dsync-4t1f", 0, OPS);
	fprintf(out, "  (both durable, WT atomic DSYNC / buffered DSYNC, 4 threads one file:\n"
		"  %sx)\n", num(r.med, b));
	r = ratio_rounds(kernel_with("wt-dsync", 0), "wt-dsync", kernel_with("pga-fsync1", 0),
			 "pga-fsync1", 0, OPS);
	target(out, "WT|DSYNC ops/s / PG_atomic + fdatasync each", r, 1.5, false,
	       "wt-dsync (W) vs pga-fsync1 (P), same round, 0 us (flush free)");
	r = ratio_rounds(kernel_with("wt-dsync", 20000), "wt-dsync",
			 kernel_with("pga-fsync1", 20000), "pga-fsync1", 20000, OPS);
	fprintf(out, "  (same at 20 us, flush 50 ms: %sx)\n", num(r.med, b));
	pg_targets(out);
	cpu_floor(out);
	if (missed)
		blame(out);
}
