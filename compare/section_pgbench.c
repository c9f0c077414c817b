// SPDX-License-Identifier: GPL-2.0
/*
 * section_pgbench.c: PostgreSQL 15 under pgbench (TPC-B-like), plans/bench
 * through clients/postgres/pg_bench: per kernel and configuration (fpw-on,
 * fpw-off-atomic, fpw-off-unsafe) TPS over the boots, latency average and
 * p99, WAL, device write commands and bytes per transaction, checkpoint
 * write/sync time, the preload library's converted/refused pages, and the
 * ratio to fpw-on in the same boot; then the LSFMM+BPF 2026 figures
 * (docs/design.md, "Why") beside ours. Each row also goes to results.json.
 * Without the file on any boot: "not measured", one line.
 */
#include "aggregate.h"
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <math.h>
#include <string.h>

/* plans/bench pgbench_runs()'s default pcblk model */
#define PGB_DEFAULT_MODEL "lat_us=200 mbps=200 flush_us=10000 flush_mbps=100"

/* "@4k": on XFS with 4 KiB blocks (mkfs.xfs's default), round 1 (quick) */
static const char *const configs[] = {
	"fpw-on", "fpw-off-atomic", "fpw-off-unsafe",
	"fpw-on@4k", "fpw-off-atomic@4k", "fpw-off-unsafe@4k",
};
#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

/* The anchor: Freund at LSFMM+BPF 2026 (LWN 1072019), fpw off on atomic storage. */
#define ANCHOR_TPS 1.7
#define ANCHOR_CV 14.0
#define ANCHOR_WAL 14.0

static void pgb_row(FILE *out, const char *kernel, const char *cfg, const struct pgb_agg *a)
{
	char b[12][16], x[16], cv[16];

	if (!strncmp(cfg, "fpw-on", 6) && (!cfg[6] || cfg[6] == '@'))
		snprintf(x, sizeof(x), "1.00");
	else if (a->x_on.n)
		snprintf(x, sizeof(x), "%.2f", a->x_on.med);
	else
		snprintf(x, sizeof(x), "-");
	fprintf(out, "%-14s %c %5s %7s %6s %7s %6s %7s %6s %5s %5s\n", cfg,
		kernel_letter(kernel), num(a->tps.med, b[0]), num(a->lat_avg, b[1]),
		num(a->lat_p99, b[2]), num(a->wal, b[3]), num(a->devw, b[4]),
		num(a->devb, b[5]), num(a->ckpt_write, b[6]), num(a->ckpt_sync, b[7]), x);
	snprintf(cv, sizeof(cv), "%s", isnan(a->tps_cv) ? "-" : num(a->tps_cv, b[8]));
	fprintf(out, "    n=%d [%s..%s]", a->tps.n, num(a->tps.min, b[9]),
		num(a->tps.max, b[10]));
	if (strcmp(cfg, "fpw-on") && a->x_on.n)
		fprintf(out, " x[%.2f..%.2f]", a->x_on.min, a->x_on.max);
	fprintf(out, " cv %s fpi %s lib %s %lu/%lu\n", cv, num(a->fpi, b[11]),
		a->lib_mode[0] ? a->lib_mode : "?", a->converted, a->refused);
	if (a->atomics_converted)
		fprintf(out, "%16s in place: %lu REQ_ATOMIC writes for %lu pages converted (%.0f %%)\n",
			"", a->atomics, a->atomics_converted,
			100.0 * a->atomics / a->atomics_converted);
	if (a->refused)
		fprintf(out, "%16s atomic claim VOID: %lu page writes refused (errno %d)\n", "",
			a->refused, a->first_errno);
	if (a->errors)
		fprintf(out, "%16s (could not be run in %d boot(s): see the inputs above)\n", "",
			a->errors);
}

/* fpw-off-atomic against fpw-on on one kernel, beside the anchor. */
static void anchor_row(FILE *out, const char *kernel)
{
	struct pgb_agg a = agg_pgbench(kernel, "fpw-off-atomic");
	char b[3][16];

	if (!a.tps.n) {
		if (a.na)
			fprintf(out, "  %c: n/a (%.70s)\n", kernel_letter(kernel), a.na);
		else if (a.boots)
			fprintf(out, "  %c: no result (see the inputs above)\n", kernel_letter(kernel));
		return;
	}
	if (isnan(a.x_on.med)) {
		fprintf(out, "  %c: no fpw-on run to compare with\n", kernel_letter(kernel));
		return;
	}
	snprintf(b[0], sizeof(b[0]), "%.2fx", a.x_on.med);
	if (isnan(a.x_cv))
		snprintf(b[1], sizeof(b[1]), "- (no cv)");
	else
		snprintf(b[1], sizeof(b[1]), "%.2fx", a.x_cv);
	if (isnan(a.x_wal))
		snprintf(b[2], sizeof(b[2]), "-");
	else
		snprintf(b[2], sizeof(b[2]), "%.1fx", a.x_wal);
	fprintf(out, "  %c: %s TPS, %s less TPS variability, %s less WAL%s\n",
		kernel_letter(kernel), b[0], b[1], b[2],
		a.refused ? " (claim VOID)" : "");
	json_out_pgbench_anchor(kernel, a.x_on.med, a.x_cv, a.x_wal, a.refused != 0);
}

void section_pgbench(FILE *out)
{
	char secs[16], scale[16];
	unsigned int c;
	int k;

	hr(out, "PostgreSQL pgbench (TPC-B-like)");
	if (!pgb_setup.measured) {
		fprintf(out, "not measured: the plan ran no pgbench (no pgbench.jsonl)\n");
		return;
	}
	snprintf(secs, sizeof(secs), "%g", pgb_setup.secs);
	if (pgb_setup.scale > 0)
		snprintf(scale, sizeof(scale), "%d", pgb_setup.scale);
	else
		snprintf(scale, sizeof(scale), "?");
	fprintf(out, "PostgreSQL 15, pgbench -c %d -T %s, scale %s, synchronous_commit=on, on\n"
		"XFS with %d B blocks (a page = a block = an atomic unit), ",
		pgb_setup.clients, secs, scale, pgb_setup.fs_bs);
	if (!strcmp(pgb_setup.disk, "pcblk"))
		fprintf(out, "pcblk, %d B\nsectors, performance model %s\n%s",
			pgb_setup.sector, pgb_setup.model[0] ? pgb_setup.model : "off",
			!strcmp(pgb_setup.model, PGB_DEFAULT_MODEL) ?
			"(a consumer NVMe drive slowed as much as the emulated CPU; README).\n" :
			"(--pg-model: not the default disk model; README).\n");
	else
		fprintf(out, "scsi_debug\n%d B sectors at %d us (CPU-bound: no flush cost).\n",
			pgb_setup.sector, pgb_setup.ndelay / 1000);
	fprintf(out, "Per boot the three configurations in turn, each\n"
		"on a fresh file system from a fresh copy of the cluster, a CHECKPOINT\n"
		"forced at the end. TPS: median over the boots [min..max]; the rest:\n"
		"medians of the boots' figures. lat avg/p99: ms per transaction; WAL,\n"
		"wr (device write commands), B (bytes written), fpi (full-page images):\n"
		"per transaction, pgbench's start to the CHECKPOINT's end; ckpt w/sync:\n"
		"checkpoint write/sync ms; x on: TPS / fpw-on's in the same boot; cv:\n"
		"stddev/mean of the TPS per second; lib: the preload's mode and pages\n"
		"converted/refused (a refusal voids the atomic claim).\n");
	fprintf(out, "%-14s %c %5s %7s %6s %7s %6s %7s %6s %5s %5s\n", "config", 'k', "TPS",
		"lat avg", "p99", "WAL", "wr", "B", "ckpt w", "sync", "x on");
	for (k = 0; k < nkernels; k++) {
		for (c = 0; c < NCONFIGS; c++) {
			struct pgb_agg a = agg_pgbench(kernels[k], configs[c]);

			if (!a.boots) {
				fprintf(out, "%-14s %c not measured on this kernel (no pgbench.jsonl)\n",
					"-", kernel_letter(kernels[k]));
				break;
			}
			/* an older plan, or a round without them */
			if (strchr(configs[c], '@') && !a.tps.n && !a.na && !a.errors)
				continue;
			if (a.tps.n)
				pgb_row(out, kernels[k], configs[c], &a);
			else if (a.na)
				fprintf(out, "%-14s %c n/a: %.60s\n", configs[c],
					kernel_letter(kernels[k]), a.na);
			else
				fprintf(out, "%-14s %c no result (see the inputs above)\n",
					configs[c], kernel_letter(kernels[k]));
			json_out_pgbench(kernels[k], configs[c], &a);
		}
	}
	fprintf(out, "Configurations: fpw-on          full_page_writes=on, library mode off\n"
		"                fpw-off-atomic  full_page_writes=off, relation pages as\n"
		"                                atomic writes in the mode the library's\n"
		"                                probe finds (n/a where the kernel has none)\n"
		"                fpw-off-unsafe  full_page_writes=off, plain writes: pages\n"
		"                                can tear (reference only)\n"
		"                CFG@4k          the same on XFS with 4 KiB blocks (mkfs.xfs's\n"
		"                                default): an 8 KiB page is two blocks\n");
	fprintf(out, "Anchor, LSFMM+BPF 2026 (upstream-digest §H, Freund; no hardware named):\n"
		"fpw off on atomic storage: about %.1fx TPS, %.0fx less TPS variability,\n"
		"%.0fx less WAL. Here fpw-off-atomic against fpw-on, same boots:\n",
		ANCHOR_TPS, ANCHOR_CV, ANCHOR_WAL);
	for (k = 0; k < nkernels; k++)
		anchor_row(out, kernels[k]);
}
