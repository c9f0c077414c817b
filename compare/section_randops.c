// SPDX-License-Identifier: GPL-2.0
/*
 * section_randops.c: the random exerciser's table (read_randops.c's rows):
 * per run (kind of mix, disk setup) and kernel the sequences (seeds),
 * operations, failed sequences and the seeds that failed, which replay the
 * failure (randops -s SEED on the same kernel and disk setup). Each row
 * also goes to results.json. Then per kernel the totals, and those of the
 * concurrent phase (the randops_conc* runs) on their own.
 */
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

static bool concurrent(const struct randops_run *r)
{
	return strstr(r->run, "_conc") != NULL;
}

static int cmp_run(const void *pa, const void *pb)
{
	const struct randops_run *x = pa, *y = pb;
	int c = strcmp(x->run, y->run);

	return c ? c : kernel_letter(x->kernel) - kernel_letter(y->kernel);
}

void section_randops(FILE *out)
{
	unsigned long seqs[MAX_KERNELS] = { 0 }, ops[MAX_KERNELS] = { 0 };
	unsigned long failed[MAX_KERNELS] = { 0 }, cseqs[MAX_KERNELS] = { 0 };
	unsigned long cops[MAX_KERNELS] = { 0 }, cfailed[MAX_KERNELS] = { 0 };
	int i, k, cruns[MAX_KERNELS] = { 0 }, cskip[MAX_KERNELS] = { 0 };

	hr(out, "Random operations checked against a model (randops)");
	if (!nrandops_runs) {
		fprintf(out, "not run (scripts/compare --randops N, or --full: 10 seeds)\n");
		return;
	}
	qsort(randops_runs, nrandops_runs, sizeof(randops_runs[0]), cmp_run);
	fprintf(out, "initramfs/plans/randops with %s seeds per run, %s s per seed; one boot\n"
		"per kernel, side by side, %s s in all (the concurrent runs randops_conc*:\n"
		"ATW_RANDOPS_CSECS s per seed, default 7, 10 on the slow disk, -2ms).\n"
		"Every read, size and failed write checked against the model; in the\n"
		"concurrent runs, two or three calls at a time against every serial order\n"
		"of them (initramfs/tests/randops/).\n",
		env("RANDOPS_SEEDS"), env("RANDOPS_SECS"), env("RANDOPS_WALL"));
	fprintf(out, "%-36s %c %5s %8s %6s %s\n", "run", 'k', "seeds", "ops", "failed",
		"failing seeds");
	for (i = 0; i < nrandops_runs; i++) {
		const struct randops_run *r = &randops_runs[i];

		json_out_randops(r);
		for (k = 0; k < nkernels; k++)
			if (!strcmp(kernels[k], r->kernel) && concurrent(r)) {
				cruns[k]++;
				cskip[k] += r->skip[0] != 0;
				cseqs[k] += r->seqs;
				cops[k] += r->ops;
				cfailed[k] += r->failed;
			}
		if (r->skip[0]) {
			fprintf(out, "%-36s %c skipped: %.40s\n", r->run, kernel_letter(r->kernel),
				r->skip);
			continue;
		}
		fprintf(out, "%-36s %c %5lu %8lu %6lu %s\n", r->run, kernel_letter(r->kernel),
			r->seqs, r->ops, r->failed, r->failed ? r->failing : "-");
		for (k = 0; k < nkernels; k++)
			if (!strcmp(kernels[k], r->kernel)) {
				seqs[k] += r->seqs;
				ops[k] += r->ops;
				failed[k] += r->failed;
			}
	}
	for (k = 0; k < nkernels; k++)
		if (seqs[k])
			fprintf(out, "%c: %lu sequences, %lu operations, %lu failed%s\n",
				kernel_letter(kernels[k]), seqs[k], ops[k], failed[k],
				failed[k] ? " (see randops-*/results/randops-s*.log)" : "");
	for (k = 0; k < nkernels; k++) {
		if (!seqs[k] && !cruns[k])
			continue;
		if (!cruns[k]) {
			fprintf(out, "%c: concurrent phase not run (a plan without randops_conc*)\n",
				kernel_letter(kernels[k]));
			continue;
		}
		fprintf(out, "%c: concurrent phase: %d runs%s, %lu sequences, %lu operations, %lu failed%s\n",
			kernel_letter(kernels[k]), cruns[k], cskip[k] ? " (some skipped)" : "",
			cseqs[k], cops[k], cfailed[k],
			cfailed[k] ? ": a result that fits no serial order (TAP: the group, the closest order)" : "");
	}
}
