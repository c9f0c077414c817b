// SPDX-License-Identifier: GPL-2.0
/*
 * section_device.c: what reached the disk per write, per workload and
 * kernel, as the SCSI device saw it (bench_io's trace of every command of
 * the timed run): plain write commands, WRITE ATOMIC(16), writes with FUA,
 * SYNCHRONIZE CACHE and KiB written. These counts do not depend on the
 * emulator and carry to hardware as they are. One row per workload and
 * kernel, at the lowest device latency it ran at (the counts of a shape do
 * not depend on the latency but for merging at high queue depths), median
 * over the rounds.
 */
#include "aggregate.h"
#include "results.h"
#include "sections.h"
#include "text.h"
#include "workloads.h"

#include <math.h>

static void device_row(FILE *out, const char *kernel, const char *bench)
{
	static const enum metric cols[] = { CMDW, CMDA, CMDFUA, CMDF, KIB };
	char b[8][16];
	struct stat3 s[5];
	unsigned int c;
	int l;

	for (l = 0; l < nlat; l++) {
		if (!agg(kernel, bench, latencies[l], false, CMDW).n)
			continue;
		for (c = 0; c < 5; c++)
			s[c] = agg(kernel, bench, latencies[l], false, cols[c]);
		fprintf(out, "%-15.15s %c %3d %7s %7s %7s %7s %7s %7s\n", bench,
			kernel_letter(kernel), latencies[l] / 1000,
			num(s[0].med, b[0]), num(s[1].med, b[1]), num(s[2].med, b[2]),
			num(s[3].med, b[3]),
			num(s[0].med + s[1].med + s[3].med, b[4]), num(s[4].med, b[5]));
		return;
	}
}

void section_device(FILE *out)
{
	unsigned int w;
	bool any = false;
	int k;

	for (int i = 0; i < nsamples && !any; i++)
		any = !isnan(samples[i].v[CMDW]);
	hr(out, "Device commands per write (the SCSI disk's view, exact)");
	if (!any) {
		fprintf(out, "Not measured: no bench_io line of this run has the device's\n"
			"command counts (a disk that is not SCSI, or results from before\n"
			"bench_io counted them).\n");
		return;
	}
	fprintf(out, "Every command the disk received during each timed run, traced\n"
		"(scsi:scsi_dispatch_cmd_start, on in every workload of every kernel),\n"
		"divided by the writes the workload completed; median of the rounds, at\n"
		"the lowest device latency the workload ran at. write: WRITE(10/16);\n"
		"atomic: WRITE ATOMIC(16); fua: writes of either kind with FUA; flush:\n"
		"SYNCHRONIZE CACHE; cmds: write + atomic + flush; KiB: bytes written.\n"
		"These counts do not depend on the emulator.\n");
	fprintf(out, "%-15s %c %3s %7s %7s %7s %7s %7s %7s\n", "workload", 'k', "lat",
		"write", "atomic", "fua", "flush", "cmds", "KiB");
	for (w = 0; w < nwls; w++)
		for (k = 0; k < nkernels; k++)
			device_row(out, kernels[k], wls[w].bench);
}
