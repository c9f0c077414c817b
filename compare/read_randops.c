// SPDX-License-Identifier: GPL-2.0
/*
 * read_randops.c: RESDIR/randops-KERNEL/results/randops*.tap, one TAP file
 * per randops run of initramfs/plans/randops (randops, randops_batch,
 * randops_fault, the concurrent phase's randops_conc2, randops_conc3,
 * randops_conc_atomic and randops_conc_size, per disk setup; the slow
 * disk's setups end in -2ms), each ending with randops's summary:
 *   # randops: sequences=N ops=N failed=N failing=SEED,...|- faults=N
 *     cuts=N bs=N sector=N conc=K
 * (conc=K: the concurrent phase's group size, 0 for the others; older
 * summaries have no conc field and were not concurrent). A run the kernel
 * lacks a fix for is one "# SKIP" line instead. With
 * RANDOPS_SEEDS > 0 in env.txt, a kernel without randops TAP files, or a
 * file with neither (the run did not finish: a hang or a crash), is a bad
 * input.
 */
#include "bad_inputs.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool summary(const char *path, const char *line, struct randops_run *r)
{
	unsigned long bs = 0, sector = 0, conc = 0;

	if (!kv_num(line, "sequences", &r->seqs) || !kv_num(line, "ops", &r->ops) ||
	    !kv_num(line, "failed", &r->failed) || !kv_num(line, "faults", &r->faults) ||
	    !kv_num(line, "bs", &bs) || !kv_num(line, "sector", &sector) ||
	    !kv_word(line, "failing", r->failing, sizeof(r->failing)))
		return false;
	/* section_randops.c tells the concurrent runs by their name */
	if (kv_num(line, "conc", &conc) && !conc != !strstr(r->run, "_conc"))
		bad_input(path, "run %s says conc=%lu", r->run, conc);
	r->bs = bs;
	r->sector = sector;
	return true;
}

/* One TAP file: its summary or SKIP into a new row; false if neither. */
static bool read_tap(const char *path, const char *kernel, const char *run)
{
	struct randops_run *r = &randops_runs[nrandops_runs];
	char *line = NULL;
	size_t cap = 0;
	bool done = false;
	FILE *f;

	if (nrandops_runs >= MAX_RANDOPS)
		die("more than %d randops runs", MAX_RANDOPS);
	f = fopen(path, "r");
	if (!f) {
		bad_input(path, "cannot open (%s)", strerror(errno));
		return true;
	}
	memset(r, 0, sizeof(*r));
	scopy(r->kernel, sizeof(r->kernel), kernel);
	scopy(r->run, sizeof(r->run), run);
	while (!done && getline(&line, &cap, f) >= 0) {
		const char *s = strstr(line, "# SKIP ");

		if (!strncmp(line, "# randops: ", 11)) {
			if (!summary(path, line, r)) {
				bad_input(path, "randops summary without one of its fields");
				break;
			}
			done = true;
		} else if (!strncmp(line, "ok ", 3) && s && strstr(line, " - randops")) {
			/* plan.sh's run_with_fix: the whole run skipped */
			scopy(r->skip, sizeof(r->skip), s + 7);
			r->skip[strcspn(r->skip, "\n")] = 0;
			done = true;
		}
	}
	free(line);
	fclose(f);
	if (done)
		nrandops_runs++;
	return done;
}

static void read_kernel(const char *kernel, bool expected)
{
	char dir[1200], path[1600], run[48];
	struct dirent **e;
	int i, n, found = 0;

	snprintf(dir, sizeof(dir), "%s/randops-%s/results", resdir, kernel);
	n = scandir(dir, &e, NULL, alphasort);
	if (n < 0) {
		if (expected)
			bad_input(dir, "missing (%s; see randops-%s.log)", strerror(errno), kernel);
		return;
	}
	for (i = 0; i < n; i++) {
		const char *name = e[i]->d_name;
		size_t len = strlen(name);

		if (!strncmp(name, "randops", 7) && len > 4 && !strcmp(name + len - 4, ".tap")) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			snprintf(run, sizeof(run), "%.*s", (int)(len - 4), name);
			if (!read_tap(path, kernel, run))
				bad_input(path, "no randops summary: the run did not finish");
			found++;
		}
		free(e[i]);
	}
	free(e);
	if (expected && !found)
		bad_input(dir, "no randops*.tap");
}

void read_randops(void)
{
	bool expected = atoi(env("RANDOPS_SEEDS")) > 0;
	int k;

	for (k = 0; k < nkernels; k++)
		read_kernel(kernels[k], expected);
}
