// SPDX-License-Identifier: GPL-2.0
/*
 * section_objections.c: the upstream objections to the writeback-time
 * design (L1-L13, listed in docs/design.md, "Upstream objections") that a
 * figure of this run speaks to.
 */
#include "aggregate.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/*
 * L1, no user: does it help the database it is for? fpw-off-atomic
 * against fpw-on per kernel (section PostgreSQL pgbench), and its pages
 * through power cuts (l1_powercut below).
 */
static void l1_pgbench(FILE *out)
{
	int k;

	fprintf(out, "L1  no user: does it help the database it is for? PostgreSQL\n"
		"       pgbench, fpw-off-atomic vs fpw-on (PostgreSQL pgbench above):\n");
	for (k = 0; k < nkernels; k++) {
		struct pgb_agg a = agg_pgbench(kernels[k], "fpw-off-atomic");
		struct pgb_agg on = agg_pgbench(kernels[k], "fpw-on");

		if (!a.boots)
			continue;
		if (!a.tps.n) {
			fprintf(out, "       %c n/a: %.60s\n", kernel_letter(kernels[k]),
				a.na ? a.na : "no result");
			continue;
		}
		fprintf(out, "       %c %.2fx TPS, %.1fx less WAL/txn, device bytes/txn x%.2f%s\n",
			kernel_letter(kernels[k]), a.x_on.med, a.x_wal, a.devb / on.devb,
			a.refused ? " (claim VOID)" : "");
	}
}

/* This kernel's pg_powercut row of configuration cfg, or NULL. */
static const struct pcut *pg_cut(const char *kernel, const char *cfg)
{
	int i;

	for (i = 0; i < npcuts; i++)
		if (!strcmp(pcuts[i].kernel, kernel) && !strcmp(pcuts[i].config, cfg))
			return &pcuts[i];
	return NULL;
}

/* Some kernel has a pg-fpw-off-* row (the power-cut table's PostgreSQL rows). */
static bool have_pg_cuts(void)
{
	int i;

	for (i = 0; i < npcuts; i++)
		if (!strncmp(pcuts[i].config, "pg-fpw-off-", 11))
			return true;
	return false;
}

/*
 * L1 through power cuts: PostgreSQL's pages with fpw-off-atomic, and the
 * negative control fpw-off-unsafe. Only when have_pg_cuts().
 */
static void l1_powercut(FILE *out)
{
	int k;

	fprintf(out, "L1  does it help the database it is for? PostgreSQL through power\n"
		"       cuts (pcblk; pg-* rows of the power-cut table): torn pages,\n"
		"       lost acknowledged commits\n");
	for (k = 0; k < nkernels; k++) {
		const struct pcut *a = pg_cut(kernels[k], "pg-fpw-off-atomic");
		const struct pcut *u = pg_cut(kernels[k], "pg-fpw-off-unsafe");

		if (!a && !u)
			continue;
		fprintf(out, "       %c", kernel_letter(kernels[k]));
		if (a)
			fprintf(out, " fpw-off-atomic %lu cuts: %lu torn, %lu of %lu commits lost;",
				a->cuts, a->torn, a->lost, a->acked);
		if (u)
			fprintf(out, " unsafe control torn in %lu of %lu", u->torn, u->cuts);
		fprintf(out, "\n");
	}
}

/* A run without benchmark rounds (--rounds 0): only L1's power-cut answer. */
void section_objections_powercut(FILE *out)
{
	if (!have_pg_cuts())
		return;
	hr(out, "Upstream objections (digest L) a measurement speaks to");
	l1_powercut(out);
	fprintf(out, "(the other objections, and L1's pgbench figures: a run with benchmark\n"
		"rounds)\n");
}

void section_objections(FILE *out)
{
	char b[4][16];
	int kw = find_kernel_with("wt-atomic", 20000);
	int kp = find_kernel_with("pga-fsync64", 20000);

	hr(out, "Upstream objections (digest L) a measurement speaks to");
	fprintf(out, "L3/L11 dirty data changed before writeback: rows 'plain overwrite\n"
		"       keeps', 'mmap store keeps' above; after a power cut: the\n"
		"       *-overwrite and *-mmap rows of the power-cut table.\n");
	fprintf(out, "L4  correct needs a flush anyway: WT|DSYNC vs PG_atomic+fdatasync\n"
		"       ops/s, Targets; pga-fsync1 cmd/w vs wt-dsync cmd/w in the table.\n");
	if (kp >= 0) {
		struct stat3 p = agg(kernels[kp], "pga-fsync64", 20000, false, DEVW);
		struct stat3 q = agg(kernels[kp], "buf-fsync", 20000, false, DEVW);

		fprintf(out, "L5  writeback merging: row 'adjacent units merged'; pga-fsync64\n"
			"       %s device writes per write (buf-fsync %s), 20 us.\n",
			num(p.med, b[0]), num(q.med, b[1]));
	} else {
		fprintf(out, "L5  writeback merging: row 'adjacent units merged' (pga-fsync64\n"
			"       not measured in this run).\n");
	}
	if (kw >= 0) {
		struct stat3 a = agg(kernels[kw], "wt-atomic", 20000, false, P50);
		struct stat3 d = agg(kernels[kw], "dio-atomic", 20000, false, P50);
		struct stat3 p = agg(kernels[kw], "wt-plain", 20000, false, P50), c;

		fprintf(out, "L7  a copy is needed anyway: p50 at 20 us, WT atomic %s us, WT\n"
			"       plain %s us, DIO atomic %s us: write-through costs %.2fx DIO,\n"
			"       atomicity on top %.2fx (it pins the source pages; not isolated).\n",
			num(a.med, b[0]), num(p.med, b[2]), num(d.med, b[1]),
			p.med / d.med, a.med / p.med);
		c = agg(kernels[kw], "memcpy", 0, false, P50);
		if (c.n)
			fprintf(out, "       The 16 KiB copy alone, memcpy in the same guest: p50 %s us,\n"
				"       of the %s us WT plain adds to DIO atomic.\n", num(c.med, b[3]),
				num(p.med - d.med, b[0]));
	}
	fprintf(out, "L9  short copies: row 'short copy impossible' (copy faults half-way).\n");
	fprintf(out, "L10 bs < ps: row 'bs < ps (1 KiB blocks)', 'memory/folio (src)'.\n");
	fprintf(out, "L2  page flags: 'page flags added (src)' and Cost in code.\n");
	fprintf(out, "L13 core iomap complexity: Cost in code, fs/iomap lines.\n");
	kw = find_kernel_with("wt-atomic-4t1f", 0);
	if (kw >= 0) {
		struct stat3 one = agg(kernels[kw], "wt-atomic-4t1f", 0, false, OPS);
		struct stat3 four = agg(kernels[kw], "wt-atomic-4t4f", 0, false, OPS);

		fprintf(out, "LSFMM -65%% with threads on one file: WT atomic 4 threads one file\n"
			"       %s ops/s vs 4 files %s ops/s (%s), 0 us.\n", num(one.med, b[0]),
			num(four.med, b[1]), four.n ? (sprintf(b[2], "%.2fx", one.med / four.med), b[2]) : "-");
	}
	if (pgb_setup.measured)
		l1_pgbench(out);
	if (have_pg_cuts())
		l1_powercut(out);
	if (!have_pg_cuts() && !pgb_setup.measured) {
		fprintf(out, "Not measurable here: L1 (use case), L6 delalloc (WT allocates at the\n"
			"call: row 'on device at return'), L8, L12.\n");
		return;
	}
	fprintf(out, "Not measurable here: L6 delalloc (WT allocates at the call: row 'on\n"
		"device at return'), L8, L12.\n");
}

