// SPDX-License-Identifier: GPL-2.0
/*
 * section_targets.c: the project's targets as ratios from this run, met /
 * not met (never asserted); each also goes to results.json.
 */
#include "aggregate.h"
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <math.h>
#include <string.h>

static void target(FILE *out, const char *what, double have, double want,
		   bool at_most, const char *how)
{
	char b[16];
	const char *verdict = isnan(have) ? "not measured" :
		(at_most ? have <= want : have >= want) ? "met" : "NOT met";

	fprintf(out, "%-44.44s %6s %s%.2f  %s\n", what, isnan(have) ? "-" : (sprintf(b, "%.2f", have), b),
		at_most ? "<=" : ">=", want, verdict);
	fprintf(out, "  %s\n", how);
	json_out_target(what, have, want, at_most, verdict);
}

static double lat_ratio(const char *a, const char *b, int ndelay, int *kk)
{
	int k = find_kernel_with(a, ndelay);

	*kk = k;
	if (k < 0)
		return NAN;
	return agg(kernels[k], a, ndelay, false, P50).med /
	       agg(kernels[k], b, ndelay, false, P50).med;
}

static double ops_ratio_k(const char *a, int ka, const char *b, int kb, int ndelay)
{
	if (ka < 0 || kb < 0)
		return NAN;
	return agg(kernels[ka], a, ndelay, false, OPS).med /
	       agg(kernels[kb], b, ndelay, false, OPS).med;
}

void section_targets(FILE *out)
{
	int k, kp;
	double r;

	hr(out, "Targets (ratios from this run; TCG; met / not met, never asserted)");
	r = lat_ratio("wt-atomic", "dio-atomic", 100000, &k);
	target(out, "WT atomic QD1 p50 latency / DIO, 100 us", r, 1.15, true,
	       "wt-atomic vs dio-atomic, same kernel, same boots, 100 us");
	r = lat_ratio("wt-atomic", "dio-atomic", 20000, &k);
	target(out, "WT atomic QD1 p50 latency / DIO, 20 us", r, 1.30, true,
	       "wt-atomic vs dio-atomic, same kernel, same boots, 20 us");
	k = find_kernel_with("wt-atomic-qd32", 20000);
	r = ops_ratio_k("wt-atomic-qd32", k, "dio-atomic-qd32", k, 20000);
	target(out, "io_uring QD32 WT atomic ops/s / DIO atomic", r, 0.85, false,
	       "wt-atomic-qd32 vs dio-atomic-qd32, same kernel, 20 us");
	k = find_kernel_with("wt-dsync", 0);
	kp = find_kernel_with("pga-fsync1", 0);
	r = ops_ratio_k("wt-dsync", k, "pga-fsync1", kp, 0);
	target(out, "WT|DSYNC ops/s / PG_atomic + fdatasync each", r, 1.5, false,
	       "wt-dsync (W) vs pga-fsync1 (P), interleaved boots, 0 us (flush free)");
	k = find_kernel_with("wt-dsync", 20000);
	kp = find_kernel_with("pga-fsync1", 20000);
	r = ops_ratio_k("wt-dsync", k, "pga-fsync1", kp, 20000);
	fprintf(out, "  (same at 20 us, flush 50 ms: %.1fx)\n", r);
	k = find_kernel_with("wt-dsync-4t1f", 0);
	r = ops_ratio_k("wt-dsync-4t1f", k, "buf-dsync-4t1f", k, 0);
	target(out, "WT 4 threads one file / buffered RWF_DSYNC", r, 1.0, false,
	       "wt-dsync-4t1f vs buf-dsync-4t1f (both durable), same kernel, 0 us");
	k = find_kernel_with("wt-atomic-4t1f", 0);
	r = ops_ratio_k("wt-atomic-4t1f", k, "buf-dsync-4t1f", k, 0);
	fprintf(out, "  (WT atomic without DSYNC, 4 threads one file: %.2fx)\n", r);
}

