// SPDX-License-Identifier: GPL-2.0
/*
 * section_powercut.c: the power-cut table (read_powercut.c's rows):
 * atomic configurations first, then the not-judged ones, then the
 * controls; per configuration, disk and kernel the cuts, torn units, lost
 * acknowledged writes and the verdict. Each row also goes to results.json.
 */
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Atomic configurations first, then the not-judged ones, then controls. */
static int expect_rank(const char *e)
{
	return !strcmp(e, "untorn") ? 0 : !strcmp(e, "info") ? 1 : 2;
}

static int cmp_pcut(const void *pa, const void *pb)
{
	const struct pcut *x = pa, *y = pb;
	int c = expect_rank(x->expect) - expect_rank(y->expect);

	if (!c)
		c = strcmp(x->config, y->config);
	if (!c)
		c = strcmp(x->disk, y->disk);
	return c ? c : kernel_letter(x->kernel) - kernel_letter(y->kernel);
}

void section_powercut(FILE *out)
{
	unsigned long worst_torn[MAX_KERNELS] = { 0 }, worst_lost[MAX_KERNELS] = { 0 };
	int i, k, nuntorn[MAX_KERNELS] = { 0 }, nfail = 0;

	hr(out, "Power cut: torn and lost writes on a crash model (pcblk)");
	if (!npcuts) {
		fprintf(out, "not run (scripts/compare --powercut N, or --full: 200 cuts)\n");
		return;
	}
	qsort(pcuts, npcuts, sizeof(pcuts[0]), cmp_pcut);
	fprintf(out, "pcblk: RAM disk, volatile write cache, FUA, atomic unit up to 64 KiB;\n"
		"power cut at a seeded random point of each write stream, then XFS\n"
		"log recovery and a re-read of every unit (%s cuts per configuration,\n"
		"one boot per kernel, %s s in all).\n",
		env("POWERCUT_CUTS"), env("POWERCUT_WALL"));
	fprintf(out, "%-23s %-8s %c %5s %5s %5s %7s %6s %s\n", "configuration", "lbs/unit",
		'k', "cuts", "torn", "lost", "acked", "tails", "result");
	for (i = 0; i < npcuts; i++) {
		const struct pcut *c = &pcuts[i];
		char tails[24] = "-";
		bool bad = strcmp(c->result, "pass");

		if (c->tailw)
			snprintf(tails, sizeof(tails), "%lu", c->tailw);
		fprintf(out, "%-23s %-8s %c %5lu %5lu %5lu %7lu %6s %s%s\n", c->config,
			c->disk, kernel_letter(c->kernel), c->cuts, c->torn, c->lost, c->acked,
			tails, bad ? "FAIL" : !strcmp(c->expect, "info") ? "info" :
			!strcmp(c->expect, "torn") ? "control" : "pass",
			c->bad ? " (bad units)" : "");
		nfail += bad;
		for (k = 0; k < nkernels; k++)
			if (!strcmp(kernels[k], c->kernel) && !strcmp(c->expect, "untorn")) {
				nuntorn[k]++;
				worst_torn[k] += c->torn;
				worst_lost[k] += c->lost;
			}
		json_out_powercut(c);
	}
	fprintf(out, "torn: units not wholly one write (mixed cases, *-overwrite and\n"
		"*-mmap: the head, which only atomic writes touch; 'tails' plain\n"
		"writes or stores changed the last quarter meanwhile). lost: units\n"
		"older than their last acknowledged-durable write. result: pass =\n"
		"0 torn, 0 lost; control = plain writes, must tear; info = not\n"
		"judged (the writeback-time design drops atomicity on overwrite by\n"
		"design). Configurations a kernel refuses are left out.\n"
		"pg-*: PostgreSQL 15 pgbench on XFS with 8 KiB blocks, one page one\n"
		"unit (-bs4k: 4 KiB blocks, a page is a unit of two blocks;\n"
		"clients/postgres/pg_powercut): torn = cuts after which WAL\n"
		"recovery failed or pg_checksums found bad blocks; lost/acked =\n"
		"commits pgbench saw acknowledged, missing after recovery.\n");
	for (k = 0; k < nkernels; k++)
		if (nuntorn[k])
			fprintf(out, "%c: %d atomic configurations, %lu torn, %lu lost\n",
				kernel_letter(kernels[k]), nuntorn[k], worst_torn[k], worst_lost[k]);
	if (nfail)
		fprintf(out, "%d configuration(s) FAILED: see powercut-*/results/*.tap\n", nfail);
}
