// SPDX-License-Identifier: GPL-2.0
/*
 * read_disk_cost.c: DIR/disk_cost.jsonl, one bench_disk_cost line per
 * workload:
 *   {"disk_cost":NAME,"status":"ok","ndelay":NS,"writes":N,"calls":N,
 *    "timed":N,"calls_per_write":X,"p50_us":X,"p90_us":X,"mean_us":X}
 *   {"disk_cost":NAME,"status":"n/a"|"error","reason":WHY}
 * Absent from every boot: not measured; from some boots only, or an error
 * line, or a line of another shape: a bad input.
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

struct dc_ctx {
	const char *kernel;
	int round;
};

static void dc_line(json_t *obj, const struct json_where *at, void *arg)
{
	struct dc_ctx *c = arg;
	struct diskcost *d;
	double v;

	if (!json_object_get(obj, "disk_cost")) {
		bad_input(at->path, "line %d: not a bench_disk_cost line", at->line);
		return;
	}
	if (ndiskcosts >= MAX_DISKCOSTS)
		die("too many bench_disk_cost lines");
	d = &diskcosts[ndiskcosts++];
	memset(d, 0, sizeof(*d));
	scopy(d->kernel, sizeof(d->kernel), c->kernel);
	d->round = c->round;
	jfield_str(obj, "disk_cost", d->name, sizeof(d->name));
	jfield_str(obj, "status", d->status, sizeof(d->status));
	jfield_str(obj, "reason", d->reason, sizeof(d->reason));
	if (strcmp(d->status, "ok")) {
		if (strcmp(d->status, "n/a"))
			bad_input(at->path, "line %d: %s: %s %s", at->line, d->name, d->status,
				  d->reason);
		return;
	}
	v = jneed_num(obj, "ndelay", at);
	d->ndelay = isnan(v) ? -1 : (int)v;
	d->p50 = jneed_num(obj, "p50_us", at);
	d->p90 = jneed_num(obj, "p90_us", at);
	d->mean = jneed_num(obj, "mean_us", at);
	d->calls_per_write = jneed_num(obj, "calls_per_write", at);
}

void read_disk_cost(const char *dir, const char *kernel, int round)
{
	struct dc_ctx c = { kernel, round };
	char path[1200];

	snprintf(path, sizeof(path), "%s/disk_cost.jsonl", dir);
	jsonl_optional(path, dc_line, &c, &absent, &measured);
}

void read_disk_cost_done(void)
{
	absent_settle(&absent, measured);
}
