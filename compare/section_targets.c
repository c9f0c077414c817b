// SPDX-License-Identifier: GPL-2.0
/*
 * section_targets.c: the project's performance targets for write-through
 * atomic writes (README.md, "Performance targets") as ratios from this
 * run. A ratio of two workloads on one kernel comes from bench_pair: the
 * two alternate in short slices inside each boot, each pair of slices
 * gives one ratio, and the report prints their median and a 95 %
 * confidence interval of it (order statistics), pooled over the boots,
 * with n; first of all the A/A check, a workload paired with itself, which
 * says how far a ratio moves when nothing differs. A ratio of two kernels
 * cannot be paired inside a boot: it is the median of the per-round ratios
 * with their range, and says so. Runs without bench_pair lines (an older
 * plan) fall back to per-round ratios for all. Met / not met by the median
 * (never asserted); the line says when the interval straddles the target
 * or is wider than +-10 %. Beside them the guest CPU per write of WT and
 * DIO atomic writes and a 16 KiB memcpy, the physical floor of the copy.
 * Each target also goes to results.json.
 */
#include "aggregate.h"
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <math.h>
#include <string.h>

static int missed;	/* targets not met in this report */
static bool paired_run;	/* the run has bench_pair lines */
static int wide;	/* paired targets whose interval is wider than +-10 % */

static const char *verdict_of(double med, double want, bool at_most)
{
	if (isnan(med))
		return "not measured";
	return (at_most ? med <= want : med >= want) ? "met" : "NOT met";
}

/* The explanation, on the line of head when it fits in 80 columns. */
static void explain(FILE *out, const char *head, const char *how)
{
	if (strlen(head) + 1 + strlen(how) <= 80)
		fprintf(out, "%s %s\n", head, how);
	else
		fprintf(out, "%s\n    %s\n", head, how);
}

static void target_line(FILE *out, const char *what, double med, double want, bool at_most,
			const char *verdict)
{
	char b[16];

	if (!strcmp(verdict, "NOT met"))
		missed++;
	fprintf(out, "%-44.44s %6s %s%.2f  %s\n", what,
		isnan(med) ? "-" : (snprintf(b, sizeof(b), "%.2f", med), b),
		at_most ? "<=" : ">=", want, verdict);
}

/* A target from per-round ratios (two kernels, or a run without pairs). */
static void target(FILE *out, const char *what, struct stat3 r, double want,
		   bool at_most, const char *how)
{
	const char *verdict = verdict_of(r.med, want, at_most);

	target_line(out, what, r.med, want, at_most, verdict);
	if (r.n) {
		char head[64];

		snprintf(head, sizeof(head), "  per round [%.2f..%.2f], %d round%s;",
			 r.min, r.max, r.n, r.n == 1 ? "" : "s");
		explain(out, head, how);
	} else {
		fprintf(out, "  %s\n", how);
	}
	json_out_target(what, r.med, want, at_most, verdict, NAN, NAN, 0);
}

/* The interval's widest side, as a fraction of the median. */
static double spread(const struct paired *r)
{
	return fmax(r->hi / r->med - 1, 1 - r->lo / r->med);
}

/* "boots 0.71 0.80 0.90; A first 0.80, B first 0.79" */
static void boots_line(FILE *out, const struct paired *r)
{
	int b;

	fprintf(out, "    boots");
	for (b = 0; b < r->boots; b++)
		fprintf(out, " %.2f", r->boot_med[b]);
	fprintf(out, "; pairs run A first %.2f, B first %.2f\n", r->a_first, r->b_first);
}

/* A target from a paired ratio. */
static void target_paired(FILE *out, const char *what, struct paired r, double want,
			  bool at_most, const char *how)
{
	const char *verdict = verdict_of(r.med, want, at_most);
	bool straddles = !isnan(r.lo) && r.lo <= want && want <= r.hi;
	char head[128];

	/* judged by the median, but not when the interval holds the target */
	if (straddles)
		verdict = "undecided";
	target_line(out, what, r.med, want, at_most, verdict);
	if (!r.n) {
		fprintf(out, "  %s%s%s\n", how, r.na ? "; n/a: " : "", r.na ? r.na : "");
		json_out_target(what, NAN, want, at_most, verdict, NAN, NAN, 0);
		return;
	}
	if (isnan(r.lo))
		snprintf(head, sizeof(head), "  paired, n=%d (too few for an interval);", r.n);
	else
		snprintf(head, sizeof(head), "  paired [%.2f..%.2f] 95 %%, n=%d in %d boot%s;", r.lo,
			 r.hi, r.n, r.boots, r.boots == 1 ? "" : "s");
	explain(out, head, how);
	boots_line(out, &r);
	if (straddles)
		fprintf(out, "    (the interval holds the target: undecided at this n)\n");
	if (!isnan(r.lo) && spread(&r) > 0.10) {
		wide++;
		fprintf(out, "    (the interval reaches more than 10 %% from the median)\n");
	}
	if (r.boots == 1)
		fprintf(out, "    (one boot: the interval leaves out what differs between boots)\n");
	json_out_target(what, r.med, want, at_most, verdict, r.lo, r.hi, r.n);
}

/* The name of the first kernel with an ok run of bench at ndelay, or NULL. */
static const char *kernel_with(const char *bench, int ndelay)
{
	int k = find_kernel_with(bench, ndelay);

	return k < 0 ? NULL : kernels[k];
}

/*
 * Same kernel: the paired ratio name (bench_pair: a against b) when the
 * run has one, else the per-round ratio of the workloads a and b.
 */
static void same(FILE *out, const char *what, const char *name, const char *a,
		 const char *b, int ndelay, enum pair_metric pm, double want, bool at_most,
		 const char *how)
{
	const char *k = kernel_with_pair(name, ndelay);
	enum metric m = pm == PAIR_OPS ? OPS : P50;

	if (paired_run) {
		/* no kernel ran it: the first n/a reason of any kernel */
		target_paired(out, what, agg_pair(k, name, ndelay, pm), want, at_most, how);
		return;
	}
	if (pm == PAIR_RD_P99) {	/* measured in pairs only */
		struct stat3 none = { .n = 0, .med = NAN, .min = NAN, .max = NAN };

		target(out, what, none, want, at_most, how);
		return;
	}
	k = kernel_with(a, ndelay);
	target(out, what, ratio_rounds(k, a, k, b, ndelay, m), want, at_most, how);
}

/* Median over the boots of bench_disk_cost's p50 of one workload; NaN if none. */
static double disk_p50(const char *kernel, const char *name)
{
	double v[MAX_DISKCOSTS];
	int i, n = 0;

	for (i = 0; i < ndiskcosts; i++)
		if (!strcmp(diskcosts[i].kernel, kernel) && !strcmp(diskcosts[i].name, name) &&
		    !strcmp(diskcosts[i].status, "ok") && diskcosts[i].ndelay == 20000)
			v[n++] = diskcosts[i].p50;
	return median(v, n);
}

/*
 * What the emulated disk charges a write-through's command against a direct
 * write's: bench_disk_cost's wall time per schedule_resp call, a figure to
 * read beside the profile's disk share, not a verdict: it includes an
 * inline completion when a command outlasted its delay, and interrupts
 * taken inside the call; the trace's clock has 1 us steps.
 */
static void disk_check(FILE *out)
{
	int k;

	for (k = 0; k < nkernels; k++) {
		double da = disk_p50(kernels[k], "dio-atomic"), wa = disk_p50(kernels[k], "wt-atomic");
		double dp = disk_p50(kernels[k], "dio-plain"), wp = disk_p50(kernels[k], "wt-plain");
		char b[4][16];

		if (isnan(wa) || isnan(da))
			continue;
		fprintf(out, "Disk (%c): scsi_debug at 20 us; its wall time per command (schedule_resp,\n"
			"  kprobes, median of the boots' p50; with inline completions and interrupts\n"
			"  inside): DIO atomic %s us, WT atomic %s us (%.2fx); DIO plain %s us,\n"
			"  WT plain %s us\n", kernel_letter(kernels[k]), num(da, b[0]), num(wa, b[1]),
			wa / da, num(dp, b[2]), num(wp, b[3]));
	}
}

/* One A/A pair on every kernel that ran it: does each interval hold 1.00? */
static int aa_one(FILE *out, const char *name, const char *what)
{
	int k, shown = 0;

	for (k = 0; k < nkernels; k++) {
		struct paired o = agg_pair(kernels[k], name, 20000, PAIR_OPS);
		struct paired l = agg_pair(kernels[k], name, 20000, PAIR_P50);
		const char *v;

		if (!o.n)
			continue;
		if (isnan(o.lo) || isnan(l.lo))
			v = "too few pairs for an interval";
		else if (o.lo <= 1 && 1 <= o.hi && l.lo <= 1 && 1 <= l.hi)
			v = "both intervals hold 1.00";
		else
			v = "AN INTERVAL MISSES 1.00: the pairing is biased; read every ratio with that";
		fprintf(out, "A/A (%c): %s against itself, QD1, 20 us: ops/s %.2f [%.2f..%.2f],\n"
			"  p50 %.2f [%.2f..%.2f], n=%d in %d boot%s: %s\n", kernel_letter(kernels[k]),
			what, o.med, o.lo, o.hi, l.med, l.lo, l.hi, o.n, o.boots,
			o.boots == 1 ? "" : "s", v);
		json_out_target(name, o.med, 1.0, false, v, o.lo, o.hi, o.n);
		shown++;
	}
	return shown;
}

/* The A/A checks: DIO atomic and WT atomic, each against itself. */
static void aa_check(FILE *out)
{
	int shown = aa_one(out, "pair-aa-dio", "DIO atomic");

	shown += aa_one(out, "pair-aa-wt", "WT atomic");
	if (!shown)
		fprintf(out, "A/A: not run (no pair-aa-dio or pair-aa-wt in this run)\n");
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
	/* the kernel of the first wt-atomic profile (the paired runs may time no wt-atomic) */
	const struct profile *w = find_profile(NULL, "wt-atomic");
	const char *k = w ? w->kernel : NULL;
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
		struct pgb_agg a4 = agg_pgbench(kernels[k], "fpw-off-atomic@4k");

		/* PostgreSQL's case on mkfs.xfs's defaults */
		if (a4.tps.n && !a4.refused) {
			snprintf(what, sizeof(what), "PG 4 KiB blocks fpw-off-atomic / unsafe (%c)",
				 kernel_letter(kernels[k]));
			snprintf(how, sizeof(how), "pgbench, %s, XFS 4 KiB blocks, same boot",
				 pgb_setup.disk[0] ? pgb_setup.disk : "?");
			target(out, what, a4.x_unsafe, 0.95, false, how);
		}
		struct stat3 wal = { 0, NAN, NAN, NAN };

		if (!a.tps.n || a.refused)
			continue;
		snprintf(what, sizeof(what), "PG fpw-off-atomic TPS / fpw-on (%c)",
			 kernel_letter(kernels[k]));
		snprintf(how, sizeof(how), "pgbench, %s, same boot",
			 pgb_setup.disk[0] ? pgb_setup.disk : "?");
		target(out, what, a.x_on, 1.5, false, how);
		/* what the database engineer asks: as fast as no protection? */
		snprintf(what, sizeof(what), "PG fpw-off-atomic TPS / fpw-off-unsafe (%c)",
			 kernel_letter(kernels[k]));
		target(out, what, a.x_unsafe, 0.95, false, how);
		/* a ratio of the boots' medians: no per-round range to print */
		if (!isnan(a.x_wal) && a.x_wal > 0)
			wal.med = wal.min = wal.max = 1 / a.x_wal;
		snprintf(what, sizeof(what), "PG fpw-off-atomic WAL per txn / fpw-on (%c)",
			 kernel_letter(kernels[k]));
		target(out, what, wal, 0.10, true, "medians of the boots' WAL per transaction");
	}
}

/* The targets of two workloads on one kernel: paired ratios A/B. */
static const struct paired_target {
	const char *what, *name, *a, *b;
	int ndelay;
	enum pair_metric metric;
	double want;
	bool at_most;
	const char *how;
} paired_targets[] = {
	{ "WT atomic QD1 p50 latency / DIO, 100 us", "pair-wt-dio", "wt-atomic", "dio-atomic",
	  100000, PAIR_P50, 1.10, true, "wt-atomic vs dio-atomic, same kernel, 100 us" },
	{ "WT atomic QD1 p50 latency / DIO, 20 us", "pair-wt-dio", "wt-atomic", "dio-atomic",
	  20000, PAIR_P50, 1.10, true, "wt-atomic vs dio-atomic, same kernel, 20 us" },
	{ "io_uring QD32 WT atomic ops/s / DIO atomic", "pair-wt-dio-qd32", "wt-atomic-qd32",
	  "dio-atomic-qd32", 20000, PAIR_OPS, 0.90, false,
	  "wt-atomic-qd32 vs dio-atomic-qd32, same kernel, 20 us" },
	{ "WT atomic 4 threads 1 file / DIO atomic", "pair-wt-dio-4t1f", "wt-atomic-4t1f",
	  "dio-atomic-4t1f", 0, PAIR_OPS, 0.90, false,
	  "wt-atomic-4t1f vs dio-atomic-4t1f, same kernel, 0 us" },
	{ "WT atomic 4 threads 4 files / DIO atomic", "pair-wt-dio-4t4f", "wt-atomic-4t4f",
	  "dio-atomic-4t4f", 0, PAIR_OPS, 0.95, false,
	  "wt-atomic-4t4f vs dio-atomic-4t4f, same kernel, 0 us" },
	{ "WT atomic 4 threads 1 file / buffered DSYNC", "pair-wt-dsync-4t1f", "wt-atomic-4t1f",
	  "buf-dsync-4t1f", 0, PAIR_OPS, 1.5, false,
	  "wt-atomic-4t1f vs buf-dsync-4t1f, same kernel, 0 us" },
	{ "Reader p99 beside 8 KiB WT atomic / DIO", "pair-rd-unit", "wt-unit-rd",
	  "dio-unit-rd", 2000000, PAIR_RD_P99, 1.5, true,
	  "one reader of cached data elsewhere in the file beside 8 KiB (two-block)\n"
	  "    atomic write-throughs vs direct writes, same kernel, 4 KiB blocks, 2 ms" },
};

void section_targets(FILE *out)
{
	struct stat3 r;
	char b[16];
	size_t i;

	missed = wide = 0;
	paired_run = npairruns > 0;
	hr(out, paired_run ?
	   "Targets (paired: median [95 % interval]; TCG; met / NOT met / undecided)" :
	   "Targets (ratios per round, median; TCG; met / not met, never asserted)");
	if (paired_run) {
		fprintf(out, "Each paired ratio: the two workloads alternate in slices (half the\n"
			"pairs A first, shuffled) inside every boot; each boot's median of its\n"
			"per-pair ratios, averaged over the boots (geometric mean: each boot\n"
			"counts once), and a 95 %% interval from a cluster bootstrap (boots drawn\n"
			"with replacement, then pairs within each; 10000 resamples, fixed seed),\n"
			"so that what differs between boots widens it; n = pairs; then each\n"
			"boot's median, and the medians of A-first and B-first pairs (an order\n"
			"effect shows as a gap). Judged by the estimate; undecided while the\n"
			"interval holds the target. scripts/compare --agree DIR1 DIR2 says\n"
			"whether two runs agree.\n");
		aa_check(out);
		disk_check(out);
		fprintf(out, "\n");
	}
	for (i = 0; i < sizeof(paired_targets) / sizeof(paired_targets[0]); i++) {
		const struct paired_target *t = &paired_targets[i];

		same(out, t->what, t->name, t->a, t->b, t->ndelay, t->metric, t->want, t->at_most,
		     t->how);
	}
	r = ratio_rounds(kernel_with("wt-dsync-4t1f", 0), "wt-dsync-4t1f",
			 kernel_with("wt-dsync-4t1f", 0), "buf-dsync-4t1f", 0, OPS);
	if (r.n)
		fprintf(out, "  (both durable, WT atomic DSYNC / buffered DSYNC, 4 threads one file,\n"
			"  per round: %sx)\n", num(r.med, b));
	r = ratio_rounds(kernel_with("wt-dsync", 0), "wt-dsync", kernel_with("pga-fsync1", 0),
			 "pga-fsync1", 0, OPS);
	target(out, "WT|DSYNC ops/s / PG_atomic + fdatasync each", r, 1.5, false,
	       "wt-dsync (W) vs pga-fsync1 (P): two kernels, same round, 0 us");
	r = ratio_rounds(kernel_with("wt-dsync", 20000), "wt-dsync",
			 kernel_with("pga-fsync1", 20000), "pga-fsync1", 20000, OPS);
	if (r.n)
		fprintf(out, "  (same at 20 us, flush 50 ms: %sx)\n", num(r.med, b));
	pg_targets(out);
	if (wide)
		fprintf(out, "%d paired target%s an interval reaching more than 10 %% from the\n"
			"median: more boots (--rounds) narrow it where the boots disagree, more\n"
			"pairs (--pairs) where the pairs of a boot scatter.\n", wide,
			wide == 1 ? " has" : "s have");
	cpu_floor(out);
	if (missed)
		blame(out);
}
