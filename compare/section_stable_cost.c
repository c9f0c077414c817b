// SPDX-License-Identifier: GPL-2.0
/*
 * section_stable_cost.c: what stable pages cost a plain buffered writer of
 * the same file (bench_stable_cost, plans/bench at 100 us): per kernel and
 * mode the writer's ops/s over the boots, its pwrite latency, the second
 * thread's rate and the ratio to the mode's baseline in the same boot; a
 * mode the kernel refuses as n/a with its reason. Each row also goes to
 * results.json. Without the file on any boot: "not measured", one line.
 */
#include "aggregate.h"
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <math.h>
#include <string.h>

/* bench_stable_cost's modes in its order, and what makes folios stable. */
static const char *const modes[] = { "none", "dio", "buf", "wt", "wt-atomic", "pga" };
#define NMODES (sizeof(modes) / sizeof(modes[0]))

static bool is_baseline(const char *mode, const struct stable_agg *a)
{
	return !strcmp(mode, a->baseline);
}

static void stable_row(FILE *out, const char *kernel, const char *mode,
		       const struct stable_agg *a)
{
	char b[6][16], x[32];

	if (is_baseline(mode, a))
		snprintf(x, sizeof(x), "baseline");
	else if (a->ratio.n)
		snprintf(x, sizeof(x), "%.2f (%s)", a->ratio.med, a->baseline);
	else
		snprintf(x, sizeof(x), "- (no %s)", a->baseline);
	fprintf(out, "%-10s %c %7s %7s %7s %7s  %s\n", mode, kernel_letter(kernel),
		num(a->ops.med, b[0]), num(a->p50, b[1]), num(a->p99, b[2]),
		a->second > 0 ? num(a->second, b[3]) : "-", x);
	fprintf(out, "%13s n=%d [%s..%s]", "", a->ops.n, num(a->ops.min, b[4]),
		num(a->ops.max, b[5]));
	if (!is_baseline(mode, a) && a->ratio.n)
		fprintf(out, " x base [%.2f..%.2f]", a->ratio.min, a->ratio.max);
	fputc('\n', out);
	if (a->errors)
		fprintf(out, "%13s (%lu writes failed in these rounds)\n", "", a->errors);
}

void section_stable_cost(FILE *out)
{
	char secs[16];
	unsigned int m;
	int k;

	hr(out, "Cost of stable pages to a plain writer of the same file");
	if (!stable_setup.measured) {
		fprintf(out, "not measured: the plan ran no bench_stable_cost (no stable_cost.jsonl)\n");
		return;
	}
	snprintf(secs, sizeof(secs), "%g", stable_setup.secs);
	fprintf(out, "bench_stable_cost at %d us, XFS %d B blocks, %d rounds of %s s per\n"
		"boot, modes interleaved. One thread rewrites 4 blocks of its file\n"
		"with plain buffered pwrite, each followed by sync_file_range(WRITE),\n"
		"so that most rewrites find their folio under writeback: without\n"
		"stable pages the rewrite goes on, with them it waits for the device.\n"
		"ops/s: the writer's, median over the boots of each boot's median;\n"
		"p50/p99: its pwrite, us, median of every round; 2nd/s: the second\n"
		"thread's writes/s (- without one); x base: ops/s / the baseline\n"
		"mode's in the same boot, median over the boots ([min..max] of both\n"
		"on the second line).\n",
		stable_setup.ndelay / 1000, stable_setup.fs_bs, stable_setup.rounds, secs);
	fprintf(out, "%-10s %c %7s %7s %7s %7s  %s\n", "mode", 'k', "ops/s", "p50", "p99",
		"2nd/s", "x base");
	for (k = 0; k < nkernels; k++) {
		for (m = 0; m < NMODES; m++) {
			struct stable_agg a = agg_stable(kernels[k], modes[m]);

			if (!a.boots) {
				fprintf(out, "%-10s %c not measured on this kernel (no stable_cost.jsonl)\n",
					"-", kernel_letter(kernels[k]));
				break;
			}
			if (a.ops.n)
				stable_row(out, kernels[k], modes[m], &a);
			else if (a.na)
				fprintf(out, "%-10s %c n/a: %.62s\n", modes[m],
					kernel_letter(kernels[k]), a.na);
			else
				fprintf(out, "%-10s %c no result (see the inputs above)\n",
					modes[m], kernel_letter(kernels[k]));
			json_out_stable_cost(kernels[k], modes[m], &a);
		}
	}
	fprintf(out, "Modes: none       the writer alone (baseline of dio, buf and pga)\n"
		"       dio        + a second thread's O_DIRECT writes to another range\n"
		"                  of the file: no stable pages, but the writer waits\n"
		"                  for the iolock XFS holds shared across each one\n"
		"       buf        + the second thread's buffered writes, each waited\n"
		"                  for (sync_file_range): wt's locking and device\n"
		"                  traffic, no stable pages (baseline of wt, wt-atomic)\n"
		"       wt         + the second thread's RWF_WRITETHROUGH writes: the\n"
		"                  file's folios stable while one is in flight\n"
		"       wt-atomic  the same with RWF_ATOMIC|RWF_WRITETHROUGH\n"
		"       pga        after one buffered RWF_ATOMIC write to the file: its\n"
		"                  folios stable for good (series-pgatomic 0007)\n");
}
