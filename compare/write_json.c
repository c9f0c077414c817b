// SPDX-License-Identifier: GPL-2.0
/*
 * write_json.c: RESDIR/results.json through libjansson (json_out.h).
 * Each number is rounded to the decimals the report always gave it (ratios
 * 4, figures 3, fio 1) before it is stored, so that two runs of the report
 * on the same results give the same file.
 */
#include "aggregate.h"
#include "bad_inputs.h"
#include "json_out.h"
#include "results.h"
#include "text.h"
#include "workloads.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *doc, *items;

/* v rounded to decimals places; null when not finite. */
static json_t *fixed(double v, int decimals)
{
	char buf[64];

	if (!isfinite(v))
		return json_null();
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_real(strtod(buf, NULL));
}

/* A not-measured figure is -1 in results.json. */
static json_t *fixed_or_minus1(double v, int decimals)
{
	return fixed(isnan(v) ? -1 : v, decimals);
}

/* A JSON string of text from a guest; bytes that are not UTF-8 become '?'. */
static json_t *str(const char *s)
{
	json_t *j = json_string(s);
	char *copy, *p;

	if (j)
		return j;
	copy = strdup(s);
	if (!copy)
		die("out of memory");
	for (p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static void add(json_t *item)
{
	if (!item || json_array_append_new(items, item))
		die("results.json: cannot build an item");
}

void json_out_begin(void)
{
	json_t *e = json_object();
	int i;

	doc = json_object();
	items = json_array();
	if (!e || !doc || !items)
		die("out of memory");
	for (i = 0; i < nenv; i++)
		if (json_object_set_new(e, env_k[i], str(env_v[i])))
			die("results.json: cannot store env key %s", env_k[i]);
	if (json_object_set_new(doc, "env", e) || json_object_set(doc, "items", items))
		die("out of memory");
}

static json_t *stat3_obj(const struct stat3 *s, int decimals)
{
	return json_pack("{s:o, s:o, s:o}", "median", fixed_or_minus1(s->med, decimals),
			 "min", fixed_or_minus1(s->min, decimals),
			 "max", fixed_or_minus1(s->max, decimals));
}

void json_out_stable_cost(const char *kernel, const char *mode, const struct stable_agg *a)
{
	if (!a->ops.n) {
		add(json_pack("{s:s, s:o, s:i, s:s, s:o}", "stable_cost", mode,
			      "kernel", str(kernel), "ndelay_ns", stable_setup.ndelay,
			      "status", a->na ? "n/a" : "missing",
			      "reason", str(a->na ? a->na : "no result (bad input)")));
		return;
	}
	add(json_pack("{s:s, s:o, s:i, s:s, s:i, s:o, s:o, s:o, s:o, s:s, s:o, s:I}",
		      "stable_cost", mode, "kernel", str(kernel),
		      "ndelay_ns", stable_setup.ndelay, "status", "ok", "runs", a->ops.n,
		      "writer_ops_s", stat3_obj(&a->ops, 3),
		      "p50_us", fixed_or_minus1(a->p50, 3), "p99_us", fixed_or_minus1(a->p99, 3),
		      "second_ops_s", fixed_or_minus1(a->second, 3), "baseline", a->baseline,
		      "x_baseline", stat3_obj(&a->ratio, 4), "errors", (json_int_t)a->errors));
}

void json_out_pgbench(const char *kernel, const char *config, const struct pgb_agg *a)
{
	json_t *j;

	if (!a->tps.n) {
		add(json_pack("{s:s, s:o, s:i, s:s, s:o}", "pgbench", config,
			      "kernel", str(kernel), "ndelay_ns", pgb_setup.ndelay,
			      "status", a->na ? "n/a" : "missing",
			      "reason", str(a->na ? a->na : "no result (bad input)")));
		return;
	}
	j = json_pack("{s:s, s:o, s:i, s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o}",
		      "pgbench", config, "kernel", str(kernel),
		      "ndelay_ns", pgb_setup.ndelay, "status", "ok", "runs", a->tps.n,
		      "scale", pgb_setup.scale, "clients", pgb_setup.clients,
		      "secs", fixed_or_minus1(pgb_setup.secs, 3),
		      "tps", stat3_obj(&a->tps, 3),
		      "x_fpw_on", stat3_obj(&a->x_on, 4),
		      "lat_avg_ms", fixed_or_minus1(a->lat_avg, 3),
		      "lat_p99_ms", fixed_or_minus1(a->lat_p99, 3));
	if (!j || json_object_update_new(j, json_pack(
		      "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:I, s:I, s:s}",
		      "tps_cv", fixed_or_minus1(a->tps_cv, 4),
		      "wal_bytes_per_txn", fixed_or_minus1(a->wal, 1),
		      "wal_fpi_per_txn", fixed_or_minus1(a->fpi, 3),
		      "dev_writes_per_txn", fixed_or_minus1(a->devw, 3),
		      "dev_bytes_per_txn", fixed_or_minus1(a->devb, 1),
		      "dev_flushes_per_txn", fixed_or_minus1(a->flushes, 3),
		      "ckpt_write_ms", fixed_or_minus1(a->ckpt_write, 3),
		      "ckpt_sync_ms", fixed_or_minus1(a->ckpt_sync, 3),
		      "lib_mode", a->lib_mode, "converted", (json_int_t)a->converted,
		      "refused", (json_int_t)a->refused,
		      "atomic_claim", a->refused ? "void" :
		      strcmp(a->lib_mode, "off") ? "ok" : "none")))
		die("results.json: cannot build a pgbench item");
	add(j);
}

void json_out_pgbench_anchor(const char *kernel, double x_tps, double x_cv, double x_wal,
			     bool void_claim)
{
	add(json_pack("{s:s, s:o, s:{s:f, s:f, s:f}, s:{s:o, s:o, s:o}, s:b}",
		      "pgbench_anchor", "fpw-off-atomic vs fpw-on", "kernel", str(kernel),
		      "lsfmm_2026", "x_tps", 1.7, "x_less_tps_variability", 14.0,
		      "x_less_wal", 14.0,
		      "measured", "x_tps", fixed_or_minus1(x_tps, 4),
		      "x_less_tps_variability", fixed_or_minus1(x_cv, 4),
		      "x_less_wal", fixed_or_minus1(x_wal, 4), "claim_void", void_claim));
}

void json_out_target(const char *what, double have, double want, bool at_most,
		     const char *verdict, double lo, double hi, int n)
{
	add(json_pack("{s:o, s:o, s:o, s:b, s:s, s:o, s:o, s:i}", "target", str(what),
		      "value", fixed_or_minus1(have, 4), "want", fixed(want, 2),
		      "at_most", at_most, "verdict", verdict, "ci_lo", fixed_or_minus1(lo, 4),
		      "ci_hi", fixed_or_minus1(hi, 4), "pairs", n));
}

void json_out_xcheck(const char *kernel, enum metric m, double fio, double bench_io,
		     int n_fio, int n_bench_io)
{
	add(json_pack("{s:s, s:s, s:o, s:o, s:i, s:i}", "xcheck", kernel ? kernel : "all",
		      "metric", metric_name[m], "fio", fixed(fio, 1),
		      "bench_io", fixed(bench_io, 1), "n_fio", n_fio,
		      "n_bench_io", n_bench_io));
}

void json_out_powercut(const struct pcut *c)
{
	add(json_pack("{s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
		      "powercut", str(c->config), "kernel", str(c->kernel),
		      "disk", str(c->disk), "cuts", (json_int_t)c->cuts,
		      "torn", (json_int_t)c->torn, "lost", (json_int_t)c->lost,
		      "bad", (json_int_t)c->bad, "acked", (json_int_t)c->acked,
		      "tail_writes", (json_int_t)c->tailw,
		      "tail_during", (json_int_t)c->during,
		      "expect", str(c->expect), "result", str(c->result)));
}

void json_out_randops(const struct randops_run *r)
{
	if (r->skip[0]) {
		add(json_pack("{s:o, s:o, s:o}", "randops", str(r->run), "kernel", str(r->kernel),
			      "skipped", str(r->skip)));
		return;
	}
	add(json_pack("{s:o, s:o, s:i, s:i, s:I, s:I, s:I, s:I, s:o}", "randops", str(r->run),
		      "kernel", str(r->kernel), "fs_bs", r->bs, "sector", r->sector,
		      "sequences", (json_int_t)r->seqs, "ops", (json_int_t)r->ops,
		      "failed", (json_int_t)r->failed, "fault_ops", (json_int_t)r->faults,
		      "failing_seeds", str(r->failing)));
}

void json_out_cost(const struct cost *c, int added, int deleted)
{
	add(json_pack("{s:o, s:i, s:i, s:o, s:i}", "cost", str(c->series),
		      "added", added, "deleted", deleted, "page_flags", str(c->pageflags),
		      "ifs_bits_per_block", c->ifs_bits_new - c->ifs_bits_old));
}

void json_out_workload(const char *bench, const char *kernel, int ndelay)
{
	struct stat3 s = agg(kernel, bench, ndelay, false, OPS);
	const struct sample *x;
	json_t *item;
	int m;

	if (!s.n) {
		x = why_not(kernel, bench, ndelay, false);
		if (x)
			add(json_pack("{s:s, s:s, s:i, s:s, s:o}", "workload", bench,
				      "kernel", kernel, "ndelay_ns", ndelay, "status", "n/a",
				      "reason", str(x->reason)));
		return;
	}
	item = json_pack("{s:s, s:s, s:i, s:s, s:i}", "workload", bench, "kernel", kernel,
			 "ndelay_ns", ndelay, "status", "ok", "runs", s.n);
	if (!item)
		die("results.json: cannot build an item");
	for (m = 0; m < NR_METRICS; m++) {
		struct stat3 t = agg(kernel, bench, ndelay, false, m);

		if (json_object_set_new(item, metric_name[m],
					json_pack("{s:o, s:o, s:o}",
						  "median", fixed_or_minus1(t.med, 3),
						  "min", fixed_or_minus1(t.min, 3),
						  "max", fixed_or_minus1(t.max, 3))))
			die("results.json: cannot build an item");
	}
	if (json_object_set_new(item, "x_dio",
				fixed_or_minus1(ratio_to_dio(kernel, bench, ndelay), 4)))
		die("results.json: cannot build an item");
	add(item);
}

void json_out_workloads(void)
{
	unsigned int w;
	int k, l;

	for (w = 0; w < nwls; w++)
		for (l = 0; l < nlat; l++)
			for (k = 0; k < nkernels; k++)
				json_out_workload(wls[w].bench, kernels[k], latencies[l]);
	for (k = 0; k < nprobes; k++) {
		const struct probe *p = &probes[k];

		add(json_pack("{s:o, s:o, s:o, s:i, s:i, s:o, s:o}", "probe", str(p->id),
			      "kernel", str(p->kernel), "mode", str(p->mode), "bs", p->bs,
			      "lbs", p->lbs, "result", str(p->result), "detail", str(p->detail)));
	}
}

void json_out_write(const char *path)
{
	int i, n = nbad_inputs();
	FILE *f;

	add(json_pack("{s:b}", "end", 1));
	if (n) {
		json_t *bad = json_array();

		if (!bad || json_object_set_new(doc, "bad_inputs", bad))
			die("out of memory");
		for (i = 0; i < n; i++)
			if (json_array_append_new(bad, str(bad_input_text(i))))
				die("out of memory");
	}
	f = fopen(path, "w");
	if (!f || json_dumpf(doc, f, JSON_INDENT(1) | JSON_COMPACT) || fputc('\n', f) == EOF ||
	    fclose(f))
		die("%s: cannot write it", path);
	json_decref(items);
	json_decref(doc);
	doc = items = NULL;
}
