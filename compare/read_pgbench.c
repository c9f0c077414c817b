// SPDX-License-Identifier: GPL-2.0
/*
 * read_pgbench.c: DIR/pgbench.jsonl, written by plans/bench:
 *   {"pgbench_disk":"scsi_debug"|"pcblk","model":"lat_us=.. mbps=..",
 *    "ndelay":"NS","sector":B,"fs_bs":B,"secs":S,"clients":N}
 *   (model: pcblk's performance model; absent for scsi_debug)
 *   clients/postgres/pg_bench's lines, one per configuration:
 *     {"pgbench":CFG,"kernel":K,"status":"ok","lib_mode":M,"scale":N,
 *      "txns":N,"tps":X,"lat_avg_ms":X,"lat_p99_ms":X,"tps_cv":X|null,
 *      "wal_bytes":N,"wal_fpi":N,"dev_writes":N,"dev_write_bytes":N,
 *      "dev_flushes":N,["dev_atomic_writes":N,]"ckpt_write_ms":X,"ckpt_sync_ms":X,
 *      "converted":N,"refused":N,"first_errno":N,"claim":C,...}
 *     {"pgbench":CFG,...,"status":"n/a","reason":WHY}   no such mode here
 *     {"pgbench":CFG,...,"status":"error","reason":WHY} could not be run
 *   {"pgbench_exit":RC}
 * A file without the exit line, with a non-zero status, without any
 * configuration, a configuration in error, a line of none of these shapes
 * or a missing field: a bad input.
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

struct pgb_ctx {
	const char *kernel, *path;
	int round, first, exit_line, exit_rc;
	bool setup;
};

static int need_int(json_t *obj, const char *key, const struct json_where *at)
{
	double v = jneed_num(obj, key, at);

	return isnan(v) ? -1 : (int)v;
}

static void setup_line(json_t *obj, const struct json_where *at)
{
	static bool seen;

	/* The first setup line seen describes the runs (the plan fixes it). */
	if (seen)
		return;
	seen = true;
	jfield_str(obj, "pgbench_disk", pgb_setup.disk, sizeof(pgb_setup.disk));
	jfield_str(obj, "model", pgb_setup.model, sizeof(pgb_setup.model));
	pgb_setup.ndelay = need_int(obj, "ndelay", at);
	pgb_setup.sector = need_int(obj, "sector", at);
	pgb_setup.fs_bs = need_int(obj, "fs_bs", at);
	pgb_setup.clients = need_int(obj, "clients", at);
	pgb_setup.secs = jneed_num(obj, "secs", at);
}

static void ok_line(struct pgb *p, json_t *obj, const struct json_where *at)
{
	json_t *cv = json_object_get(obj, "tps_cv");
	double v;

	if (!jfield_str(obj, "lib_mode", p->lib_mode, sizeof(p->lib_mode)))
		bad_input(at->path, "line %d: no \"lib_mode\"", at->line);
	if (!jfield_str(obj, "claim", p->claim, sizeof(p->claim)))
		bad_input(at->path, "line %d: no \"claim\"", at->line);
	v = jneed_num(obj, "scale", at);
	if (!isnan(v) && !pgb_setup.scale)
		pgb_setup.scale = (int)v;
	p->txns = jneed_num(obj, "txns", at);
	p->tps = jneed_num(obj, "tps", at);
	p->lat_avg = jneed_num(obj, "lat_avg_ms", at);
	p->lat_p99 = jneed_num(obj, "lat_p99_ms", at);
	p->tps_cv = json_is_null(cv) ? NAN : jneed_num(obj, "tps_cv", at);
	p->wal_bytes = jneed_num(obj, "wal_bytes", at);
	p->wal_fpi = jneed_num(obj, "wal_fpi", at);
	p->dev_writes = jneed_num(obj, "dev_writes", at);
	p->dev_bytes = jneed_num(obj, "dev_write_bytes", at);
	p->dev_flushes = jneed_num(obj, "dev_flushes", at);
	/* pcblk's REQ_ATOMIC writes: absent on another disk */
	p->dev_atomics = jfield_num(obj, "dev_atomic_writes", at);
	p->ckpt_write = jneed_num(obj, "ckpt_write_ms", at);
	p->ckpt_sync = jneed_num(obj, "ckpt_sync_ms", at);
	v = jneed_num(obj, "converted", at);
	p->converted = isnan(v) ? 0 : (unsigned long)v;
	v = jneed_num(obj, "refused", at);
	p->refused = isnan(v) ? 0 : (unsigned long)v;
	p->first_errno = need_int(obj, "first_errno", at);
	if (!(p->txns > 0))
		bad_input(at->path, "line %d: %s: no transactions", at->line, p->config);
}

static void pgb_line(json_t *obj, const struct json_where *at, void *arg)
{
	struct pgb_ctx *c = arg;
	char config[24] = "", status[16] = "";
	struct pgb *p;

	if (json_object_get(obj, "pgbench_disk")) {
		setup_line(obj, at);
		c->setup = true;
		return;
	}
	if (json_object_get(obj, "pgbench_exit")) {
		c->exit_line = at->line;
		c->exit_rc = need_int(obj, "pgbench_exit", at);
		return;
	}
	if (!jfield_str(obj, "pgbench", config, sizeof(config)) ||
	    !jfield_str(obj, "status", status, sizeof(status))) {
		bad_input(at->path, "line %d: not a pg_bench line", at->line);
		return;
	}
	if (!strcmp(status, "ok")) {
		p = new_pgb(c->kernel, c->round, PGB_OK);
		scopy(p->config, sizeof(p->config), config);
		ok_line(p, obj, at);
		return;
	}
	if (strcmp(status, "n/a") && strcmp(status, "error")) {
		bad_input(at->path, "line %d: status \"%s\"", at->line, status);
		return;
	}
	p = new_pgb(c->kernel, c->round, strcmp(status, "n/a") ? PGB_ERROR : PGB_NA);
	scopy(p->config, sizeof(p->config), config);
	if (!jfield_str(obj, "reason", p->reason, sizeof(p->reason)))
		bad_input(at->path, "line %d: no \"reason\"", at->line);
	if (p->status == PGB_ERROR)
		bad_input(at->path, "line %d: %s could not be run: %s", at->line, config,
			  p->reason);
}

void read_pgbench(const char *dir, const char *kernel, int round)
{
	struct pgb_ctx c = { kernel, NULL, round, npgbs, 0, 0, false };
	char path[1200];
	int n;

	snprintf(path, sizeof(path), "%s/pgbench.jsonl", dir);
	c.path = path;
	n = jsonl_each(path, pgb_line, &c);
	if (n < 0 && errno == ENOENT) {
		absent_note(&absent, path);
		return;
	}
	pgb_setup.measured = true;
	if (n < 0) {
		bad_input(path, "cannot read it (%s)", strerror(errno));
		return;
	}
	if (!c.setup)
		bad_input(path, "no setup line (not written by plans/bench)");
	if (npgbs == c.first)
		bad_input(path, "holds no pg_bench configuration");
	if (!c.exit_line)
		bad_input(path, "no exit line: the plan was cut short");
	else if (c.exit_rc)
		bad_input(path, "a configuration failed (exit %d)", c.exit_rc);
}

void read_pgbench_done(void)
{
	absent_settle(&absent, pgb_setup.measured);
}
