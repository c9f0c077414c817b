// SPDX-License-Identifier: GPL-2.0
/*
 * write_plots.c: gnuplot scripts and data under RESDIR/plots/ (run by
 * scripts/compare): QD1 latency CDFs per device latency from round 1's
 * cdf-*.txt (cdf-NDELAY.gp -> cdf-NDELAYns.png), and ops/s against io_uring
 * queue depth at 20 us (qd.dat, qd.gp -> ops-vs-qd.png).
 */
#include "aggregate.h"
#include "plots.h"
#include "results.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void write_plots(void)
{
	static const char *const cdf_w[] = { "dio-atomic", "wt-atomic", "wt-plain",
					     "buf-dsync", "pga-fsync64" };
	char path[1200];
	FILE *gp, *dat;
	int l, k;
	unsigned int i;

	/* Nothing was benchmarked (--rounds 0): no plot to draw. */
	if (!nsamples)
		return;
	snprintf(path, sizeof(path), "%s/plots", resdir);
	mkdir(path, 0755);
	/* Latency CDFs, round 1, per device latency. */
	for (l = 0; l < nlat; l++) {
		bool first = true;

		snprintf(path, sizeof(path), "%s/plots/cdf-%d.gp", resdir, latencies[l]);
		gp = fopen(path, "w");
		if (!gp)
			die("%s", path);
		fprintf(gp, "set terminal pngcairo noenhanced size 900,600\nset output '%s/plots/cdf-%dns.png'\n"
			"set title 'QD1 write latency CDF, device latency %d us (round 1, %s)'\n"
			"set logscale x\nset xlabel 'latency (us)'\nset ylabel 'fraction of writes'\n"
			"set key bottom right\nset grid\n", resdir, latencies[l], latencies[l] / 1000,
			env("ACCEL"));
		for (i = 0; i < sizeof(cdf_w) / sizeof(cdf_w[0]); i++)
			for (k = 0; k < nkernels; k++) {
				struct stat st;

				snprintf(path, sizeof(path), "%s/r1-%s/results/cdf-%s-%d.txt", resdir,
					 kernels[k], cdf_w[i], latencies[l]);
				if (stat(path, &st) || !agg(kernels[k], cdf_w[i], latencies[l], false, OPS).n)
					continue;
				fprintf(gp, "%s '%s' using 2:1 with lines title '%s (%s)'",
					first ? "plot" : ", \\\n    ", path, cdf_w[i], kernels[k]);
				first = false;
			}
		if (first)
			fprintf(gp, "set label 'no data' at graph 0.5,0.5\nplot 0 notitle\n");
		fputc('\n', gp);
		fclose(gp);
	}
	/* ops/s vs queue depth, 20 us. */
	snprintf(path, sizeof(path), "%s/plots/qd.dat", resdir);
	dat = fopen(path, "w");
	if (!dat)
		die("%s", path);
	fprintf(dat, "# qd dio-atomic wt-atomic wt-plain (ops/s, median, 20 us)\n");
	{
		static const int qds[] = { 1, 16, 32 };

		for (i = 0; i < 3; i++) {
			static const char *const b[] = { "dio-atomic", "wt-atomic", "wt-plain" };
			int j;

			fprintf(dat, "%d", qds[i]);
			for (j = 0; j < 3; j++) {
				char name[48];
				double v = NAN;

				if (qds[i] == 1)
					scopy(name, sizeof(name), b[j]);
				else
					snprintf(name, sizeof(name), "%s-qd%d", b[j], qds[i]);
				for (k = 0; k < nkernels && isnan(v); k++) {
					struct stat3 s = agg(kernels[k], name, 20000, false, OPS);

					/* DIO on the write-through kernel when it has WT. */
					if (s.n && (j || find_kernel_with("wt-atomic", 20000) < 0 ||
						    k == find_kernel_with("wt-atomic", 20000)))
						v = s.med;
				}
				fprintf(dat, isnan(v) ? " NaN" : " %.1f", v);
			}
			fputc('\n', dat);
		}
	}
	fclose(dat);
	snprintf(path, sizeof(path), "%s/plots/qd.gp", resdir);
	gp = fopen(path, "w");
	if (!gp)
		die("%s", path);
	fprintf(gp, "set terminal pngcairo noenhanced size 900,600\nset output '%s/plots/ops-vs-qd.png'\n"
		"set title 'ops/s vs queue depth (io_uring), device latency 20 us, %s'\n"
		"set xlabel 'queue depth'\nset ylabel 'writes/s'\nset logscale x 2\nset grid\n"
		"set datafile missing 'NaN'\nset key top left\n"
		"plot '%s/plots/qd.dat' using 1:2 with linespoints title 'DIO atomic', \\\n"
		"     '' using 1:3 with linespoints title 'WT atomic', \\\n"
		"     '' using 1:4 with linespoints title 'WT plain'\n", resdir, env("ACCEL"), resdir);
	fclose(gp);
}
