/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aggregate.h: the samples over the rounds: median, min and max of one
 * metric, the first reason a workload did not run, the device latencies
 * seen, and ratios to DIO atomic writes. Defined in aggregate.c.
 */
#ifndef ATW_REPORT_AGGREGATE_H
#define ATW_REPORT_AGGREGATE_H

#include "results.h"

#include <stdbool.h>

struct stat3 {
	int n;
	double med, min, max;
};

/* The device latencies (ns) of the samples, ascending (collect_latencies). */
extern int latencies[8], nlat;
void collect_latencies(void);

/* Median, min and max of one metric over the ok rounds (kernel NULL: all). */
struct stat3 agg(const char *kernel, const char *bench, int ndelay, bool fio,
		 enum metric m);
/* The first non-ok sample of a workload on a kernel, or NULL. */
const struct sample *why_not(const char *kernel, const char *bench, int ndelay,
			     bool fio);
/* ops/s over the DIO atomic workload of the same shape, same kernel; NaN if none. */
double ratio_to_dio(const char *kernel, const char *bench, int ndelay);
/* The index of the first kernel with an ok run of bench at ndelay, or -1. */
int find_kernel_with(const char *bench, int ndelay);

/* One bench_stable_cost mode on one kernel over the boots. */
struct stable_agg {
	int boots;		/* boots with a stable_cost.jsonl of this kernel */
	struct stat3 ops;	/* over the boots' medians of the writer's ops/s */
	struct stat3 ratio;	/* over the boots' ratios to the baseline */
	double p50, p99, second;	/* medians over every round of every boot */
	unsigned long errors;	/* failed writes, every round */
	char baseline[16];
	const char *na;		/* no result: the first reason seen, or NULL */
};
struct stable_agg agg_stable(const char *kernel, const char *mode);

#endif
