/* SPDX-License-Identifier: GPL-2.0 */
/*
 * readers.h: one reader per source of a results directory, filling the
 * tables of results.h. A result file that should be there and is not, or
 * cannot be parsed, is a bad input (bad_inputs.h), never a silent zero.
 */
#ifndef ATW_REPORT_READERS_H
#define ATW_REPORT_READERS_H

/* read_env.c: RESDIR/env.txt (KEY=VALUE, scripts/compare); dies without it. */
void read_env(void);

/*
 * read_runs.c: every boot RESDIR/rROUND-VARIANT/results/ in directory
 * order: the readers below, and the kernels in the order of VARIANTS.
 */
void read_runs(void);

/* read_bench.c: DIR/bench.jsonl, one bench_io line per workload. */
void read_bench(const char *dir, const char *kernel, int round);

/*
 * read_pairs.c: DIR/pairs.jsonl, one bench_pair line per paired ratio;
 * absent files as for read_stable_cost (read_pairs_done() at the end).
 */
void read_pairs(const char *dir, const char *kernel, int round);
void read_pairs_done(void);

/*
 * read_disk_cost.c: DIR/disk_cost.jsonl, bench_disk_cost's lines; absent
 * files as for read_stable_cost (read_disk_cost_done() at the end).
 */
void read_disk_cost(const char *dir, const char *kernel, int round);
void read_disk_cost_done(void);

/* read_fio.c: DIR/fio.jsonl and the fio JSON output each ok line names. */
void read_fio(const char *dir, const char *kernel, int round);

/* read_probes.c: DIR/probe.jsonl (bench_probe; round 1 only). */
void read_probes(const char *dir, const char *kernel, int round);

/*
 * read_stable_cost.c: DIR/stable_cost.jsonl, bench_stable_cost's lines
 * between the plan's setup line and its exit-status line. Absent from
 * every boot: not measured (a plan that does not run it), no bad input;
 * absent from some boots only: each of those is a bad input, recorded by
 * read_stable_cost_done() once every boot has been read.
 */
void read_stable_cost(const char *dir, const char *kernel, int round);
void read_stable_cost_done(void);

/*
 * read_pgbench.c: DIR/pgbench.jsonl, clients/postgres/pg_bench's lines
 * between the plan's setup line and its exit-status line; absent files as
 * for read_stable_cost (read_pgbench_done() once every boot is read).
 */
void read_pgbench(const char *dir, const char *kernel, int round);
void read_pgbench_done(void);

/*
 * read_profile.c: DIR/profile.jsonl and the perf stacks it names (round 1
 * with scripts/compare --profile); folded stacks into RESDIR/profiles/.
 */
void read_profile(const char *dir, const char *kernel, int round);

/*
 * read_powercut.c: RESDIR/powercut-KERNEL/results/powercut_*.tap, the
 * summary lines of powercut_check, for every kernel.
 */
void read_powercut(void);

/*
 * read_randops.c: RESDIR/randops-KERNEL/results/randops*.tap, the summary
 * line of each randops run (or its SKIP), for every kernel. With
 * RANDOPS_SEEDS > 0 in env.txt a kernel without any, or a run without its
 * summary (it did not finish), is a bad input.
 */
void read_randops(void);

/* read_series.c: ROOT/series-NAME/[0-9]*.patch, the cost of one series. */
void read_series(const char *name);

#endif
