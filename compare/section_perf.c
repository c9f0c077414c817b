// SPDX-License-Identifier: GPL-2.0
/*
 * section_perf.c: the Performance table: every workload per latency and
 * kernel, median of the rounds with [min..max] below, xDIO; workloads
 * refused by a kernel as n/a, with the first reason seen.
 */
#include "aggregate.h"
#include "results.h"
#include "sections.h"
#include "text.h"
#include "workloads.h"

#include <math.h>
#include <string.h>

static void perf_row(FILE *out, const char *kernel, const char *bench,
		     int ndelay)
{
	struct stat3 s[NR_METRICS], x = ratio_to_dio_rounds(kernel, bench, ndelay);
	char b[8][16];
	int m;

	for (m = 0; m < NR_METRICS; m++)
		s[m] = agg(kernel, bench, ndelay, false, m);
	fprintf(out, "%-15.15s %c %3d %7s %7s %7s %7s %5s %6s %5s\n", bench,
		kernel_letter(kernel), ndelay / 1000, num(s[OPS].med, b[0]),
		num(s[P50].med, b[1]), num(s[P99].med, b[2]), num(s[P999].med, b[3]),
		num(s[DEVW].med + (isnan(s[DEVF].med) ? 0 : s[DEVF].med), b[4]),
		num(s[CPU].med, b[5]), num(x.med, b[6]));
	fprintf(out, "    n=%d [%s..", s[OPS].n, num(s[OPS].min, b[0]));
	fprintf(out, "%s] p50 [%s..", num(s[OPS].max, b[1]), num(s[P50].min, b[2]));
	fprintf(out, "%s] p99 [%s..", num(s[P50].max, b[3]), num(s[P99].min, b[4]));
	fprintf(out, "%s]", num(s[P99].max, b[5]));
	if (x.n > 1)
		fprintf(out, " xDIO [%s..%s]", num(x.min, b[6]), num(x.max, b[7]));
	fprintf(out, "\n");
}

void section_perf(FILE *out)
{
	unsigned int w;
	int k, l;

	hr(out, "Performance (median of the rounds; [min..max] on the second line)");
	fprintf(out, "Kernels: ");
	for (k = 0; k < nkernels; k++)
		fprintf(out, "%c=%s ", kernel_letter(kernels[k]), kernels[k]);
	fprintf(out, "\nlat: device latency (us). ops/s per workload (all threads).\n"
		"p50/p99/p99.9: per-write latency, us (with its fdatasync if one\n"
		"follows). cmd/w: device writes + flushes per write. cpu/w: guest CPU\n"
		"us per write (both vCPUs). xDIO: ops/s / DIO atomic ops/s of the same\n"
		"shape on the same kernel, computed in each round (same boot), median\n"
		"and [min..max] over the rounds.\n");
	fprintf(out, "%-15s %c %3s %7s %7s %7s %7s %5s %6s %5s\n", "workload", 'k', "lat",
		"ops/s", "p50", "p99", "p99.9", "cmd/w", "cpu/w", "xDIO");
	for (w = 0; w < nwls; w++) {
		for (l = 0; l < nlat; l++) {
			char nas[200] = "";
			bool any = false;

			for (k = 0; k < nkernels; k++) {
				const struct sample *x;

				if (agg(kernels[k], wls[w].bench, latencies[l], false, OPS).n) {
					perf_row(out, kernels[k], wls[w].bench, latencies[l]);
					any = true;
				} else if ((x = why_not(kernels[k], wls[w].bench,
							latencies[l], false))) {
					size_t n = strlen(nas);

					snprintf(nas + n, sizeof(nas) - n, "%s%c", n ? "," : "",
						 kernel_letter(kernels[k]));
				}
			}
			if (nas[0] && any)
				fprintf(out, "    (n/a on %s: flags refused)\n", nas);
			else if (nas[0])
				fprintf(out, "%-15.15s - %3d n/a on %s (flags refused)\n",
					wls[w].bench, latencies[l] / 1000, nas);
		}
	}
	fprintf(out, "Workloads: ");
	for (w = 0; w < nwls; w++) {
		bool seen = false;

		for (int i = 0; i < nsamples; i++)
			if (!samples[i].fio && !strcmp(samples[i].bench, wls[w].bench))
				seen = true;
		if (seen)
			fprintf(out, "\n  %-16s %s", wls[w].bench, wls[w].desc);
	}
	fprintf(out, "\nn/a reasons (first seen):\n");
	for (k = 0; k < nkernels; k++) {
		char seen[1024] = "";

		for (int i = 0; i < nsamples; i++) {
			const struct sample *x = &samples[i];

			if (strcmp(x->kernel, kernels[k]) || !strcmp(x->status, "ok") ||
			    x->fio || strstr(seen, x->reason))
				continue;
			if (strlen(seen) + strlen(x->reason) + 2 < sizeof(seen)) {
				strcat(seen, x->reason);
				strcat(seen, "|");
			}
			fprintf(out, "  %c %.74s\n", kernel_letter(kernels[k]), x->reason);
		}
	}
	if (!strcmp(env("SET"), "quick"))
		fprintf(out, "Quick subset: 0 us: durable workloads, threads, DIO; 20 us: every\n"
			"QD1 workload and io_uring QD32; 100 us: DIO and WT atomic QD1.\n"
			"scripts/compare --full runs all of them at 0, 20, 100 us plus QD16.\n");
}

