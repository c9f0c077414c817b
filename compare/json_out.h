/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_out.h: RESDIR/results.json through libjansson:
 *   {"env":{KEY:VALUE...}, "items":[ITEM...,{"end":true}],
 *    "bad_inputs":["PATH: WHY"...] (only when an input was bad)}
 * Items in the order the report makes them: the stable-pages cost rows
 * and the pgbench rows and anchor comparisons (each only when measured),
 * targets, cross-checks, power-cut rows, randops rows, series
 * costs, then every workload aggregate and probe.
 * Numbers keep the precision the report always gave them; a figure that
 * was not measured is -1. Defined in write_json.c.
 */
#ifndef ATW_REPORT_JSON_OUT_H
#define ATW_REPORT_JSON_OUT_H

#include "results.h"

#include <stdbool.h>

/* Starts the document with env.txt's keys. */
void json_out_begin(void);
struct stable_agg;
/* One bench_stable_cost mode on one kernel (aggregate.h), ok or n/a. */
void json_out_stable_cost(const char *kernel, const char *mode, const struct stable_agg *a);
struct pgb_agg;
/* One pg_bench configuration on one kernel (aggregate.h), ok or n/a. */
void json_out_pgbench(const char *kernel, const char *config, const struct pgb_agg *a);
/* fpw-off-atomic against fpw-on on one kernel, beside the LSFMM figures. */
void json_out_pgbench_anchor(const char *kernel, double x_tps, double x_cv, double x_wal,
			     bool void_claim);
/* lo, hi, n: the paired interval and its pairs; n = 0 for a per-round ratio. */
void json_out_target(const char *what, double have, double want, bool at_most,
		     const char *verdict, double lo, double hi, int n);
/* kernel NULL: pooled over all boots ("all"). */
void json_out_xcheck(const char *kernel, enum metric m, double fio, double bench_io,
		     int n_fio, int n_bench_io);
void json_out_powercut(const struct pcut *c);
void json_out_randops(const struct randops_run *r);
void json_out_cost(const struct cost *c, int added, int deleted);
/* One workload's aggregate on one kernel at one latency, or why n/a. */
void json_out_workload(const char *bench, const char *kernel, int ndelay);
/* Every workload's aggregate per kernel and latency, then every probe. */
void json_out_workloads(void);
/* Ends the items, adds the bad inputs, writes the file (dies on failure). */
void json_out_write(const char *path);

#endif
