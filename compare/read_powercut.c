// SPDX-License-Identifier: GPL-2.0
/*
 * read_powercut.c: RESDIR/powercut-KERNEL/results/powercut_*.tap, the
 * summary lines of powercut_check, one per configuration and disk setup:
 *   # powercut: config=NAME dev=D lbs=N unit=N cuts=N ... torn=N lost=N
 *     bad=N tailw=N during=N expect=untorn|torn|info result=pass|fail|skip
 * Skipped configurations are left out. With POWERCUT_CUTS > 0 in env.txt
 * a kernel without a summary line, or a summary line without one of the
 * fields the table shows, is a bad input.
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

static const char *kib(unsigned long b, char *buf, size_t len)
{
	if (b >= 1024 && !(b % 1024))
		snprintf(buf, len, "%luK", b / 1024);
	else
		snprintf(buf, len, "%lu", b);
	return buf;
}

/* One summary line into c; false (with a bad input) when a field is missing. */
static bool summary_line(const char *line, struct pcut *c, const char *path, int lineno)
{
	static const char *const nums[] = { "lbs", "unit", "cuts", "torn", "lost", "bad",
					    "acked", "tailw", "during" };
	unsigned long *const dst[] = { NULL, NULL, &c->cuts, &c->torn, &c->lost, &c->bad,
				       &c->acked, &c->tailw, &c->during };
	unsigned long v[9] = { 0 };
	char a[24], b[24], missing[128] = "";
	unsigned int i;

	if (!kv_word(line, "config", c->config, sizeof(c->config)) || !c->config[0])
		strcat(missing, " config");
	if (!kv_word(line, "expect", c->expect, sizeof(c->expect)))
		strcat(missing, " expect");
	if (!kv_word(line, "result", c->result, sizeof(c->result)))
		strcat(missing, " result");
	for (i = 0; i < 9; i++) {
		if (!kv_num(line, nums[i], &v[i])) {
			strcat(missing, " ");
			strcat(missing, nums[i]);
		}
		if (dst[i])
			*dst[i] = v[i];
	}
	snprintf(c->disk, sizeof(c->disk), "%s/%s", kib(v[0], a, sizeof(a)),
		 kib(v[1], b, sizeof(b)));
	if (missing[0])
		bad_input(path, "line %d: powercut summary without:%s", lineno, missing);
	return !missing[0];
}

static int read_tap(const char *path, const char *kernel)
{
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, n = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		bad_input(path, "cannot open (%s)", strerror(errno));
		return 0;
	}
	while (getline(&line, &cap, f) >= 0 && npcuts < MAX_PCUTS) {
		struct pcut *c = &pcuts[npcuts];

		lineno++;
		if (strncmp(line, "# powercut: config=", 19))
			continue;
		n++;
		memset(c, 0, sizeof(*c));
		scopy(c->kernel, sizeof(c->kernel), kernel);
		if (summary_line(line, c, path, lineno) && strcmp(c->result, "skip"))
			npcuts++;
	}
	free(line);
	fclose(f);
	return n;
}

static void read_kernel(const char *kernel, bool expected)
{
	char dir[1200], path[1600];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/powercut-%s/results", resdir, kernel);
	d = opendir(dir);
	if (!d) {
		if (expected)
			bad_input(dir, "missing (%s; see powercut-%s.log)", strerror(errno), kernel);
		return;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "powercut_", 9) || !strstr(e->d_name, ".tap"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n += read_tap(path, kernel);
	}
	closedir(d);
	if (expected && !n)
		bad_input(dir, "no powercut_check summary in powercut_*.tap");
}

void read_powercut(void)
{
	bool expected = atoi(env("POWERCUT_CUTS")) > 0;
	int k;

	for (k = 0; k < nkernels; k++)
		read_kernel(kernels[k], expected);
}
