// SPDX-License-Identifier: GPL-2.0
/*
 * section_curves.c: the cost curves of scripts/compare (round 1 by default,
 * every round with --curves; the "c-" workloads of initramfs/plans/bench, at
 * 20 us): for each family --
 * atomic write size, plain write size, io_uring queue depth, writers of one
 * file, writers of a file each -- ops/s of each design on its own kernel
 * (median of the rounds) and its ratio to DIO of the same shape on the same
 * kernel (per round, median [min..max]); one PNG per family
 * (plots/curve-FAMILY.png). Also their results.json rows.
 */
#include "aggregate.h"
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define CURVE_NDELAY 20000

struct family {
	const char *id, *title, *xlabel;
	const char *const *x;		/* the suffixes, in order */
	const char *const *design;	/* the workloads, NULL-terminated */
	const char *dio;		/* the ratios' denominator */
};

static const char *const x_abs[] = { "bs4k", "bs8k", "bs16k", "bs32k", "bs64k", NULL };
static const char *const x_pbs[] = { "bs16k", "bs64k", "bs256k", "bs1024k", NULL };
static const char *const x_qd[] = { "qd1", "qd2", "qd4", "qd8", "qd16", "qd32", "qd64", NULL };
static const char *const x_t1[] = { "1t1f", "2t1f", "4t1f", "8t1f", NULL };
static const char *const x_tn[] = { "1t1f", "2tNf", "4tNf", "8tNf", NULL };
static const char *const d_atomic[] = { "dio-atomic", "wt-atomic", "pga-fsync1", NULL };
static const char *const d_plain[] = { "dio-plain", "wt-plain", NULL };
static const char *const d_qd[] = { "dio-atomic", "wt-atomic", NULL };

static const struct family families[] = {
	{ "size", "atomic write size (= block size = unit)", "write size", x_abs, d_atomic,
	  "dio-atomic" },
	{ "plain-size", "plain write size, 16 KiB blocks", "write size", x_pbs, d_plain,
	  "dio-plain" },
	{ "qd", "io_uring queue depth, 16 KiB atomic", "queue depth", x_qd, d_qd, "dio-atomic" },
	{ "writers-1file", "writers of one file, 16 KiB atomic", "writers", x_t1, d_atomic,
	  "dio-atomic" },
	{ "writers-nfiles", "writers of a file each, 16 KiB atomic", "writers", x_tn, d_atomic,
	  "dio-atomic" },
};

/* The kernel a design is measured on: its own series, DIO on writethrough. */
static const char *kernel_for(const char *design, const char *bench)
{
	static const char *const pref_wt[] = { "writethrough", NULL };
	static const char *const pref_pga[] = { "pgatomic", NULL };
	static const char *const pref_dio[] = { "writethrough", "pgatomic", "base", NULL };
	const char *const *p = !strncmp(design, "wt-", 3) ? pref_wt :
			       !strncmp(design, "pga-", 4) ? pref_pga : pref_dio;
	int k;

	for (; *p; p++)
		for (k = 0; k < nkernels; k++)
			if (!strcmp(kernels[k], *p) &&
			    agg(kernels[k], bench, CURVE_NDELAY, false, OPS).n)
				return kernels[k];
	return NULL;
}

static void name(char *buf, size_t n, const char *design, const char *x)
{
	snprintf(buf, n, "c-%s-%s", design, x);
}

static bool measured(void)
{
	for (int i = 0; i < nsamples; i++)
		if (!strncmp(samples[i].bench, "c-", 2))
			return true;
	return false;
}

static void table(FILE *out, const struct family *f, FILE *dat)
{
	char b[6][16], w[64], d[64];
	int i, j;

	fprintf(out, "\n%s:\n%-8s", f->title, "");
	for (j = 0; f->design[j]; j++)
		fprintf(out, f->design[j + 1] ? " %-22s" : " %s", f->design[j]);
	fputc('\n', out);
	for (i = 0; f->x[i]; i++) {
		char row[160];
		size_t n = 0;

		n += snprintf(row + n, sizeof(row) - n, "%-8s", f->x[i]);
		if (dat)
			fprintf(dat, "%d", i);
		for (j = 0; f->design[j]; j++) {
			const char *k;
			struct stat3 s, r;

			name(w, sizeof(w), f->design[j], f->x[i]);
			name(d, sizeof(d), f->dio, f->x[i]);
			k = kernel_for(f->design[j], w);
			s = agg(k, w, CURVE_NDELAY, false, OPS);
			if (!k || !s.n) {
				n += snprintf(row + n, sizeof(row) - n, " %-22s", "-");
				if (dat)
					fprintf(dat, " NaN");
				continue;
			}
			r = ratio_rounds(k, w, k, d, CURVE_NDELAY, OPS);
			if (!strcmp(f->design[j], f->dio) || !r.n) {
				n += snprintf(row + n, sizeof(row) - n, " %-22s", num(s.med, b[0]));
			} else {
				char cell[64];

				snprintf(cell, sizeof(cell), "%s %sx[%s..%s]", num(s.med, b[0]),
					 num(r.med, b[1]), num(r.min, b[2]), num(r.max, b[3]));
				n += snprintf(row + n, sizeof(row) - n, " %-22s", cell);
			}
			if (dat)
				fprintf(dat, " %.1f", s.med);
			json_out_workload(w, k, CURVE_NDELAY);
		}
		while (n > 0 && row[n - 1] == ' ')
			row[--n] = 0;
		fprintf(out, "%s\n", row);
		if (dat)
			fputc('\n', dat);
	}
}

static FILE *plot_files(const struct family *f, FILE **dat)
{
	char path[1200];
	FILE *gp;
	int i, j;

	snprintf(path, sizeof(path), "%s/plots", resdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plots/curve-%s.dat", resdir, f->id);
	*dat = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/plots/curve-%s.gp", resdir, f->id);
	gp = fopen(path, "w");
	if (!gp || !*dat)
		die("%s: cannot write", path);
	fprintf(gp, "set terminal pngcairo noenhanced size 900,600\nset output '%s/plots/curve-%s.png'\n"
		"set title 'ops/s by %s, 20 us device (%s)'\nset xlabel '%s'\n"
		"set ylabel 'ops/s'\nset key top right\nset grid\nset xtics (",
		resdir, f->id, f->title, env("ACCEL"), f->xlabel);
	for (i = 0; f->x[i]; i++)
		fprintf(gp, "%s'%s' %d", i ? ", " : "", f->x[i], i);
	fprintf(gp, ")\nplot ");
	for (j = 0; f->design[j]; j++)
		fprintf(gp, "%s'%s/plots/curve-%s.dat' using 1:%d with linespoints title '%s'",
			j ? ", \\\n    " : "", resdir, f->id, j + 2, f->design[j]);
	fputc('\n', gp);
	return gp;
}

void section_curves(FILE *out)
{
	unsigned int i;

	hr(out, "Cost curves (20 us device)");
	if (!measured()) {
		fprintf(out, "not measured (scripts/compare --no-curves)\n");
		return;
	}
	fprintf(out, "ops/s of each design on its own kernel (wt-*: writethrough, pga-*:\n"
		"pgatomic, DIO: writethrough), median of the rounds that ran them (round\n"
		"1 unless --curves: one round scatters), 16 KiB unless the\n"
		"family varies it; then x DIO: ops/s over DIO of the same shape on the\n"
		"same kernel, per round, median [min..max]. pga-fsync1: PG_atomic write\n"
		"+ fdatasync, whose flush scsi_debug holds 50 ms at 20 us (Environment,\n"
		"flush cost): that column shows the emulated flush, not the design.\n"
		"Plots: plots/curve-*.png.\n");
	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		FILE *dat, *gp = plot_files(&families[i], &dat);

		table(out, &families[i], dat);
		fclose(dat);
		if (fclose(gp))
			die("cannot write a plot script");
	}
}
