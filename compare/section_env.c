// SPDX-License-Identifier: GPL-2.0
/*
 * section_env.c: the report's title and Environment section, from env.txt
 * (tree, kernels and series revisions, their configuration, QEMU, disk,
 * flush cost, blocks, rounds, wall time).
 */
#include "aggregate.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

/*
 * The emulation's distortion, measured in the same run: the 16 KiB memcpy
 * and FNV-1a hash (bench_io --memcpy, --hash) at p50 in the guest (median
 * over the rounds, the first kernel that ran them) and natively on the host
 * (scripts/compare). A copy the emulator makes dearer than other code shows
 * as memcpy's ratio above the hash's.
 */
static void calibration(FILE *out)
{
	int k = find_kernel_with("memcpy", 0);
	double hm = atof(env("HOST_MEMCPY_P50")), hh = atof(env("HOST_HASH_P50"));
	struct stat3 gm, gh;
	char b[4][32];

	fprintf(out, "cpu         QEMU -cpu %s; guest flags: %s\n", env("CPU_MODEL"),
		env("GUEST_CPU_FLAGS"));
	if (k < 0 || hm <= 0 || hh <= 0) {
		fprintf(out, "calibration not measured (needs bench_io memcpy and hash in the\n"
			"            guest and on the host)\n");
		return;
	}
	gm = agg(kernels[k], "memcpy", 0, false, P50);
	gh = agg(kernels[k], "hash", 0, false, P50);
	fprintf(out, "calibration 16 KiB at p50, guest / host: memcpy %s / %s us (%.1fx),\n",
		num(gm.med, b[0]), num(hm, b[1]), gm.med / hm);
	if (!gh.n) {
		fprintf(out, "            hash not measured in the guest\n");
		return;
	}
	fprintf(out, "            FNV-1a hash %s / %s us (%.1fx): the emulation makes a\n"
		"            copy %.1fx as dear, relative to other code, as the host does\n",
		num(gh.med, b[2]), num(hh, b[3]), gh.med / hh, (gm.med / hm) / (gh.med / hh));
}

void section_env(FILE *out)
{
	char list[256], *tok, *save;
	const char *kconf;

	fprintf(out, "Buffered atomic writes: write-through vs PG_atomic (%s run)\n",
		env("SET"));
	fprintf(out, "%.80s\n", "==========================================================="
		"=====================");
	hr(out, "Environment");
	fprintf(out, "tree        %s\n", env("TREE"));
	scopy(list, sizeof(list), env("VARIANTS"));
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char key[64];

		snprintf(key, sizeof(key), "KREL_%s", tok);
		fprintf(out, "kernel %c    %-13s %s\n", kernel_letter(tok), tok, env(key));
	}
	/* KCONFIG: scripts/build-kernel --config; runs before it: test. */
	kconf = strcmp(env("KCONFIG"), "?") ? env("KCONFIG") : "test";
	if (!strcmp(kconf, "bench"))
		fprintf(out, "config      bench kernels (scripts/bench-kernel.config): no lockdep,\n"
			"            DEBUG_VM, DEBUG_LIST, fault injection, XFS_WARN; perf, ORC\n");
	else if (!strcmp(kconf, "test"))
		fprintf(out, "config      test kernels (scripts/guest-kernel.config): lockdep,\n"
			"            DEBUG_VM, DEBUG_LIST, fault injection, XFS_WARN on\n");
	else
		fprintf(out, "config      %s kernels\n", kconf);
	/* KOPT: each kernel's -O2 or -Os; runs before it did not say */
	if (strcmp(env("KOPT"), "?"))
		fprintf(out, "compiled    %.68s\n", env("KOPT"));
	fprintf(out, "QEMU        %s accel, %s vCPUs, %s MiB guest; host %s CPUs (shared)\n",
		env("ACCEL"), env("CPUS"), env("MEM"), env("HOST_CPUS"));
	calibration(out);
	if (!nsamples) {
		fprintf(out, "disk        no benchmark boot (--rounds 0): the power-cut table\n"
			"            below ran on pcblk, described there\n");
		return;
	}
	fprintf(out, "disk        scsi_debug, 4096 B sectors, atomic_wr=1 (unit <= %s B),\n"
		"            FUA %s, cache %s;\n"
		"            ndelay = emulated latency %s ns;\n"
		"            jiffy delay off (param delay read back: %s; -9999 means\n"
		"            overridden by ndelay > 0)\n",
		env("DISK_ATOMIC_MAX"), env("DISK_FUA"), env("DISK_WC"), env("LATENCIES"),
		env("DISK_JDELAY"));
	fprintf(out, "flush cost  SYNCHRONIZE CACHE: scsi_debug delays it HZ/20 = 50 ms when\n"
		"            ndelay > 10 us, else it costs nothing extra. So at 20/100 us\n"
		"            every flush is 50 ms (stated, not hidden); durability targets\n"
		"            are judged at 0 us, where a flush costs like any command.\n");
	fprintf(out, "blocks      XFS %s B blocks, %s B writes at random aligned offsets\n"
		"            in a 32 MiB preallocated, written file; each workload\n"
		"            starts after sync + drop_caches, a buffered one with its\n"
		"            file read back into the page cache (steady state)\n",
		env("FS_BS"), env("FS_BS"));
	fprintf(out, "runs        %s rounds, kernels interleaved in the order\n"
		"            %s (repeated), %s s per workload;\n"
		"            each figure: median of the rounds [min..max]\n",
		env("ROUNDS"), env("VARIANTS"), env("SECS"));
	if (workload_filter())
		fprintf(out, "workloads   only those matching %s (--only); the\n"
			"            others are n/a\n", env("ONLY"));
	fprintf(out, "wall time   %s s for the boots (%s)\n", env("WALL"), env("STARTED"));
}
