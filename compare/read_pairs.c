// SPDX-License-Identifier: GPL-2.0
/*
 * read_pairs.c: DIR/pairs.jsonl, one bench_pair line per paired ratio:
 *   {"pair":NAME,"status":"ok","a":A,"b":B,"ndelay":NS,"secs":S,
 *    "pairs":N,"seed":X,"slices":[{"first":"a"|"b","a_ops_s":X,
 *    "a_p50_us":X,"a_cpu_us_op":X,"b_ops_s":X,"b_p50_us":X,
 *    "b_cpu_us_op":X[,"a_rd_p99_us":X,"b_rd_p99_us":X]}...]}
 *   (the last two where both sides ran a reader, bench_io --reader)
 *   {"pair":NAME,"status":"n/a"|"error","reason":WHY,...}
 * A boot of a plan that pairs nothing has no file: absent from every boot
 * is "not measured" (an older plan), from some boots only a bad input. A
 * line of another shape, an ok line whose slice count is not "pairs", or a
 * slice without a positive figure is a bad input; so is an error line.
 */
#include "bad_inputs.h"
#include "json_in.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static struct absent_files absent;
static bool measured;

struct pair_ctx {
	const char *kernel;
	int round;
};

/* One figure of a slice; NaN and a bad input if absent or not positive. */
static double figure(json_t *slice, const char *key, const struct json_where *at)
{
	double v = jneed_num(slice, key, at);

	if (!isnan(v) && v <= 0) {
		bad_input(at->path, "line %d: %s is %g", at->line, key, v);
		return NAN;
	}
	return v;
}

static void pair_line(json_t *obj, const struct json_where *at, void *arg)
{
	struct pair_ctx *c = arg;
	struct pairrun *p;
	json_t *slices, *sl;
	char first[4];
	double v;
	size_t i;

	if (!json_object_get(obj, "pair")) {
		bad_input(at->path, "line %d: not a bench_pair line", at->line);
		return;
	}
	p = new_pairrun(c->kernel, c->round);
	jfield_str(obj, "pair", p->name, sizeof(p->name));
	if (!jfield_str(obj, "status", p->status, sizeof(p->status)))
		bad_input(at->path, "line %d: no \"status\"", at->line);
	jfield_str(obj, "reason", p->reason, sizeof(p->reason));
	if (strcmp(p->status, "ok")) {
		if (strcmp(p->status, "n/a"))
			bad_input(at->path, "line %d: %s %s: %s", at->line, p->name, p->status,
				  p->reason);
		return;
	}
	jfield_str(obj, "a", p->a, sizeof(p->a));
	jfield_str(obj, "b", p->b, sizeof(p->b));
	v = jneed_num(obj, "ndelay", at);
	p->ndelay = isnan(v) ? -1 : (int)v;
	p->secs = jneed_num(obj, "secs", at);
	v = jneed_num(obj, "pairs", at);
	slices = json_object_get(obj, "slices");
	if (!json_is_array(slices) || isnan(v) || json_array_size(slices) != (size_t)v ||
	    v > MAX_SLICES) {
		bad_input(at->path, "line %d: %s: \"slices\" is not an array of \"pairs\" (%g) pairs",
			  at->line, p->name, v);
		scopy(p->status, sizeof(p->status), "error");
		return;
	}
	json_array_foreach(slices, i, sl) {
		p->a_ops[i] = figure(sl, "a_ops_s", at);
		p->b_ops[i] = figure(sl, "b_ops_s", at);
		p->a_p50[i] = figure(sl, "a_p50_us", at);
		p->b_p50[i] = figure(sl, "b_p50_us", at);
		p->a_cpu[i] = jneed_num(sl, "a_cpu_us_op", at);
		p->b_cpu[i] = jneed_num(sl, "b_cpu_us_op", at);
		if (json_object_get(sl, "a_rd_p99_us")) {
			p->a_rd_p99[i] = figure(sl, "a_rd_p99_us", at);
			p->b_rd_p99[i] = figure(sl, "b_rd_p99_us", at);
		}
		if (!jfield_str(sl, "first", first, sizeof(first)) ||
		    (first[0] != 'a' && first[0] != 'b'))
			bad_input(at->path, "line %d: a slice without \"first\"", at->line);
		p->a_first[i] = first[0] == 'a';
	}
	p->n = (int)json_array_size(slices);
}

void read_pairs(const char *dir, const char *kernel, int round)
{
	struct pair_ctx c = { kernel, round };
	char path[1200];

	snprintf(path, sizeof(path), "%s/pairs.jsonl", dir);
	jsonl_optional(path, pair_line, &c, &absent, &measured);
}

void read_pairs_done(void)
{
	absent_settle(&absent, measured);
}
