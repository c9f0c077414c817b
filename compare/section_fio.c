// SPDX-License-Identifier: GPL-2.0
/*
 * section_fio.c: fio's jobs (the workloads fio 3.33 can express) beside
 * bench_io's, and the cross-check of the two on O_DIRECT plain writes per
 * kernel and pooled; the cross-check lines also go to results.json.
 */
#include "aggregate.h"
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <math.h>
#include <string.h>

/*
 * One cross-check line: fio's xcheck-dio-plain against bench_io's
 * fio-xcheck-dio-plain at 0 us, metric m (OPS or P50), on one kernel or
 * pooled over every boot (kernel NULL).
 */
static void xcheck_line(FILE *out, const char *kernel, enum metric m)
{
	struct stat3 f = agg(kernel, "xcheck-dio-plain", 0, true, m);
	struct stat3 b = agg(kernel, "fio-xcheck-dio-plain", 0, false, m);
	double d = b.med / f.med - 1;
	char x[2][16], who[8] = "all";

	if (!f.n || !b.n)
		return;
	if (kernel)
		snprintf(who, sizeof(who), "%c", kernel_letter(kernel));
	/* Judged on p50 only: the write call alone, which both time alike. */
	fprintf(out, "  %-3s fio %6s, bench_io %6s %-6s (n=%d/%d): %+6.1f %% %s\n",
		who, num(f.med, x[0]), num(b.med, x[1]), m == OPS ? "ops/s" : "us p50",
		f.n, b.n, d * 100, m == OPS ? "(not judged)" :
		fabs(d) <= 0.10 ? "agree" : "DISAGREE");
	json_out_xcheck(kernel, m, f.med, b.med, f.n, b.n);
}

void section_fio(FILE *out)
{
	static const char *const names[] = {
		"xcheck-dio-plain", "buf-fsync", "buf-dsync", "pga-fsync1", "pga-fsync64",
		"buf-dsync-4t1f",
	};
	unsigned int i;
	int k, l;

	hr(out, "fio 3.33 (the workloads it can express) and the cross-check");
	fprintf(out, "fio cannot pass RWF_WRITETHROUGH, nor RWF_ATOMIC with O_DIRECT;\n"
		"pga-* use uncached=1 with direct=0, i.e. flag 0x40 = RWF_ATOMIC on\n"
		"6.11+ (fio calls it RWF_UNCACHED). buf-dsync opens O_DSYNC, where\n"
		"bench_io passes RWF_DSYNC. fio writes bench_io's own file. Only the\n"
		"xcheck row runs one workload the same way in both programs; in the\n"
		"other rows 'differ' includes fio's own cost (its fdatasync is an\n"
		"I/O unit of its own) and is not judged.\n");
	fprintf(out, "%-15s %c %3s %8s %8s %8s %9s %7s\n", "fio job", 'k', "lat", "ops/s",
		"clat p50", "clat p99", "bench_io", "differ");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (l = 0; l < nlat; l++)
			for (k = 0; k < nkernels; k++) {
				struct stat3 f = agg(kernels[k], names[i], latencies[l], true, OPS);
				struct stat3 p50 = agg(kernels[k], names[i], latencies[l], true, P50);
				struct stat3 p99 = agg(kernels[k], names[i], latencies[l], true, P99);
				struct stat3 b = agg(kernels[k], i ? names[i] : "fio-xcheck-dio-plain",
						     latencies[l], false, OPS);
				char x[6][16];

				if (!f.n) {
					const struct sample *why = why_not(kernels[k], names[i],
									   latencies[l], true);

					/* "error": read_fio could not read fio's output. */
					if (why)
						fprintf(out, "%-15s %c %3d n/a (%s)\n", names[i],
							kernel_letter(kernels[k]), latencies[l] / 1000,
							strcmp(why->status, "error") ?
							"fio error: flags refused" :
							"fio output unreadable: see Inputs");
					continue;
				}
				snprintf(x[5], sizeof(x[5]), "%+.0f%%",
					 b.n ? (f.med / b.med - 1) * 100 : NAN);
				fprintf(out, "%-15s %c %3d %8s %8s %8s %9s %7s\n", names[i],
					kernel_letter(kernels[k]), latencies[l] / 1000,
					num(f.med, x[0]), num(p50.med, x[1]), num(p99.med, x[2]),
					num(b.med, x[3]), b.n ? x[5] : "-");
			}
	fprintf(out, "Cross-check: fio vs bench_io, O_DIRECT plain 16 KiB writes QD1, 0 us,\n"
		"twice each per boot in the order fio bench bench fio, page cache\n"
		"dropped before each; the same DIO code on every kernel, so all\n"
		"boots pool too. Judged on p50, the write call alone (fio: clat),\n"
		"which both tools time alike: within 10 %% agrees. ops/s is shown, not\n"
		"judged: it includes each tool's own CPU between writes (fio's\n"
		"bookkeeping per I/O; TCG runs guest user code slowly).\n");
	xcheck_line(out, NULL, OPS);
	xcheck_line(out, NULL, P50);
	for (k = 0; k < nkernels; k++) {
		xcheck_line(out, kernels[k], OPS);
		xcheck_line(out, kernels[k], P50);
	}
}

