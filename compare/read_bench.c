// SPDX-License-Identifier: GPL-2.0
/*
 * read_bench.c: DIR/bench.jsonl, one bench_io line per workload
 * ({"bench":NAME,"status":"ok"|"n/a"|"error",...,"ndelay":"NS",METRICS});
 * lines without "bench" (the plan's "disk" line) are not samples.
 */
#include "bad_inputs.h"
#include "json_in.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct bench_ctx {
	const char *kernel;
	int round, n;
};

static void bench_line(json_t *obj, const struct json_where *at, void *arg)
{
	struct bench_ctx *c = arg;
	struct sample *s;
	char v[64];
	int m;

	if (!jfield_str(obj, "bench", v, sizeof(v)))
		return;
	s = new_sample(c->kernel, c->round);
	scopy(s->bench, sizeof(s->bench), v);
	jfield_str(obj, "status", s->status, sizeof(s->status));
	jfield_str(obj, "reason", s->reason, sizeof(s->reason));
	s->ndelay = (int)jfield_num(obj, "ndelay", at);
	s->qd = (int)jfield_num(obj, "qd", at);
	s->threads = (int)jfield_num(obj, "threads", at);
	for (m = 0; m < NR_METRICS; m++)
		s->v[m] = jfield_num(obj, metric_name[m], at);
	c->n++;
}

void read_bench(const char *dir, const char *kernel, int round)
{
	struct bench_ctx c = { kernel, round, 0 };
	char path[1200];

	snprintf(path, sizeof(path), "%s/bench.jsonl", dir);
	if (jsonl_each(path, bench_line, &c) < 0)
		bad_input(path, "missing (%s)", strerror(errno));
	else if (!c.n)
		bad_input(path, "holds no bench_io result");
}
