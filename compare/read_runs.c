// SPDX-License-Identifier: GPL-2.0
/*
 * read_runs.c: the benchmark boots of a results directory,
 * RESDIR/rROUND-VARIANT/results/, each read by read_bench, read_pairs,
 * read_disk_cost, read_fio, read_probes, read_stable_cost, read_pgbench and
 * read_profile. A boot directory without results/ (the boot failed before the plan wrote
 * anything) is one bad input.
 */
#include "bad_inputs.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void read_runs(void)
{
	char list[256], *tok, *save;
	DIR *d = opendir(resdir);
	struct dirent *e;

	if (!d)
		die("%s: %s", resdir, strerror(errno));
	/* Kernels in the order scripts/compare booted them. */
	scopy(list, sizeof(list), env("VARIANTS"));
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		add_kernel(tok);
	/* Directory order, as the report always read it (first n/a reason seen). */
	while ((e = readdir(d))) {
		char dir[1024], kernel[32];
		struct stat st;
		int round;

		if (sscanf(e->d_name, "r%d-%31s", &round, kernel) != 2)
			continue;
		add_kernel(kernel);
		snprintf(dir, sizeof(dir), "%s/%s/results", resdir, e->d_name);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
			bad_input(dir, "missing: the boot wrote no results (see %s/console.log)",
				  e->d_name);
			continue;
		}
		read_bench(dir, kernel, round);
		read_pairs(dir, kernel, round);
		read_disk_cost(dir, kernel, round);
		read_fio(dir, kernel, round);
		read_probes(dir, kernel, round);
		read_stable_cost(dir, kernel, round);
		read_pgbench(dir, kernel, round);
		read_profile(dir, kernel, round);
	}
	closedir(d);
	read_pairs_done();
	read_disk_cost_done();
	read_stable_cost_done();
	read_pgbench_done();
}
