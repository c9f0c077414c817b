// SPDX-License-Identifier: GPL-2.0
/*
 * read_stable_cost.c: DIR/stable_cost.jsonl, written by plans/bench at
 * 100 us:
 *   {"stable_cost_disk":"scsi_debug","ndelay":"NS","fs_bs":B,"secs":S,"rounds":R}
 *   bench_stable_cost's lines, {"bench":"stable_cost","mode":M,...}:
 *     {...,"n/a":WHY}                            the kernel refused the mode
 *     {...,"round":I,"writer_ops_s":X,"p50_us":X,"p99_us":X,
 *      "second_ops_s":X,"errors":N}              one round of a mode
 *     {...,"median_writer_ops_s":X,"min":X,"max":X,["errors":N,]
 *      "baseline":M,"ratio":X|null}              a mode over the boot
 *   {"stable_cost_exit":RC}
 * A file without the exit line, with a non-zero status, without any
 * mode's result, or with a mode that has rounds but no summary, is a bad
 * input; so is a line of none of these shapes or a missing field.
 */
#include "bad_inputs.h"
#include "json_in.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Boots without the file, said only if another boot has it. */
static struct absent_files absent;

struct stable_ctx {
	const char *kernel, *path;
	int round, first, exit_line, exit_rc;
	bool setup;
};

static void setup_line(json_t *obj, const struct json_where *at)
{
	static bool seen;
	double v;

	/* The first setup line seen describes the runs (the plan fixes it). */
	if (seen)
		return;
	seen = true;
	v = jneed_num(obj, "ndelay", at);
	stable_setup.ndelay = isnan(v) ? -1 : (int)v;
	v = jneed_num(obj, "fs_bs", at);
	stable_setup.fs_bs = isnan(v) ? -1 : (int)v;
	v = jneed_num(obj, "rounds", at);
	stable_setup.rounds = isnan(v) ? -1 : (int)v;
	stable_setup.secs = jneed_num(obj, "secs", at);
}

static void stable_line(json_t *obj, const struct json_where *at, void *arg)
{
	struct stable_ctx *c = arg;
	char bench[32] = "", mode[16] = "";
	struct stable *s;
	json_t *ratio;
	double v;

	if (json_object_get(obj, "stable_cost_disk")) {
		setup_line(obj, at);
		c->setup = true;
		return;
	}
	if (json_object_get(obj, "stable_cost_exit")) {
		v = jneed_num(obj, "stable_cost_exit", at);
		c->exit_line = at->line;
		c->exit_rc = isnan(v) ? -1 : (int)v;
		return;
	}
	jfield_str(obj, "bench", bench, sizeof(bench));
	if (strcmp(bench, "stable_cost") || !jfield_str(obj, "mode", mode, sizeof(mode))) {
		bad_input(at->path, "line %d: not a bench_stable_cost line", at->line);
		return;
	}
	if (json_object_get(obj, "n/a")) {
		s = new_stable(c->kernel, c->round, ST_NA);
		jfield_str(obj, "n/a", s->reason, sizeof(s->reason));
	} else if (json_object_get(obj, "median_writer_ops_s")) {
		s = new_stable(c->kernel, c->round, ST_SUMMARY);
		s->ops = jneed_num(obj, "median_writer_ops_s", at);
		if (!jfield_str(obj, "baseline", s->baseline, sizeof(s->baseline)))
			bad_input(at->path, "line %d: no \"baseline\"", at->line);
		ratio = json_object_get(obj, "ratio");
		s->ratio = json_is_null(ratio) ? NAN : jneed_num(obj, "ratio", at);
		/* Absent from the first version of the program: none counted. */
		v = jfield_num(obj, "errors", at);
		s->errors = isnan(v) ? 0 : (unsigned long)v;
	} else if (json_object_get(obj, "round")) {
		s = new_stable(c->kernel, c->round, ST_ROUND);
		s->ops = jneed_num(obj, "writer_ops_s", at);
		s->p50 = jneed_num(obj, "p50_us", at);
		s->p99 = jneed_num(obj, "p99_us", at);
		s->second = jneed_num(obj, "second_ops_s", at);
		v = jneed_num(obj, "errors", at);
		s->errors = isnan(v) ? 0 : (unsigned long)v;
	} else {
		bad_input(at->path, "line %d: not a bench_stable_cost line", at->line);
		return;
	}
	scopy(s->mode, sizeof(s->mode), mode);
}

/* Every mode with rounds in this boot has its summary line. */
static void check_modes(const struct stable_ctx *c)
{
	int i, j;

	for (i = c->first; i < nstables; i++) {
		bool summary = false;

		if (stables[i].kind != ST_ROUND)
			continue;
		for (j = c->first; j < nstables; j++)
			if (stables[j].kind == ST_SUMMARY && !strcmp(stables[j].mode, stables[i].mode))
				summary = true;
		for (j = c->first; j < i; j++)
			if (stables[j].kind == ST_ROUND && !strcmp(stables[j].mode, stables[i].mode))
				break;
		if (!summary && j == i)
			bad_input(c->path, "mode %s: rounds but no summary line (cut short?)",
				  stables[i].mode);
	}
}

void read_stable_cost(const char *dir, const char *kernel, int round)
{
	struct stable_ctx c = { kernel, NULL, round, nstables, 0, 0, false };
	char path[1200];
	int n;

	snprintf(path, sizeof(path), "%s/stable_cost.jsonl", dir);
	c.path = path;
	n = jsonl_each(path, stable_line, &c);
	if (n < 0 && errno == ENOENT) {
		absent_note(&absent, path);
		return;
	}
	if (n < 0) {
		bad_input(path, "cannot read it (%s)", strerror(errno));
		stable_setup.measured = true;
		return;
	}
	if (!c.setup)
		bad_input(path, "no setup line (not written by plans/bench)");
	stable_setup.measured = true;
	if (nstables == c.first)
		bad_input(path, "holds no bench_stable_cost result");
	else
		check_modes(&c);
	if (!c.exit_line)
		bad_input(path, "no exit line: the plan was cut short");
	else if (c.exit_rc)
		bad_input(path, "bench_stable_cost exited %d", c.exit_rc);
}

void read_stable_cost_done(void)
{
	absent_settle(&absent, stable_setup.measured);
}
