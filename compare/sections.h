/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sections.h: the sections of report.txt (80 columns), in the order
 * report.c prints them, one file each (section_NAME.c). They read the
 * tables of results.h through aggregate.h; the stable-pages cost, pgbench,
 * the targets, the fio cross-check, the power-cut table and the cost also
 * add their rows to results.json (json_out.h).
 */
#ifndef ATW_REPORT_SECTIONS_H
#define ATW_REPORT_SECTIONS_H

#include <stdio.h>

/* Title, tree, kernels, QEMU, disk, flush cost, blocks, rounds, wall time. */
void section_env(FILE *out);
/* The inputs that could not be read; nothing when all were read. */
void section_inputs(FILE *out);
/* bench_probe's semantics matrix, round 1, and the series' page flags. */
void section_matrix(FILE *out);
/* Every workload per kernel and latency: median [min..max], xDIO. */
void section_perf(FILE *out);
/* What reached the disk per write, per workload and kernel (commands, KiB). */
void section_device(FILE *out);
/* The cost curves (--curves): ops/s and x DIO per family, plots. */
void section_curves(FILE *out);
/* What stable pages cost a plain writer of the same file, per mode. */
void section_stable_cost(FILE *out);
/* PostgreSQL pgbench per kernel and configuration, ratios to fpw-on. */
void section_pgbench(FILE *out);
/* Where WT atomic spends more CPU than DIO atomic per write (perf). */
void section_profile(FILE *out);
/* The project's targets as ratios, met / not met. */
void section_targets(FILE *out);
/* The upstream objections (L1-L13, docs/design.md) a measurement speaks to. */
void section_objections(FILE *out);
void section_objections_powercut(FILE *out);
/* fio's jobs and the fio / bench_io cross-check. */
void section_fio(FILE *out);
/* The power-cut table (pcblk), or "not run". */
void section_powercut(FILE *out);
/* The random exerciser's runs: seeds, operations, failures per kernel. */
void section_randops(FILE *out);
/* The cost in code of each series, by subsystem. */
void section_cost(FILE *out);
/* report --selftest (selftest.c): known answers; 0 when all hold. */
int selftest(void);

#endif
