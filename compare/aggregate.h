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
/*
 * A ratio computed inside each round (the kernels of a round are booted
 * back to back), metric m of workload a on kernel ka over that of b on kb,
 * then median, min and max over the rounds that have both: drift between
 * rounds cancels. n = 0 (NaNs) when no round has both.
 */
struct stat3 ratio_rounds(const char *ka, const char *a, const char *kb, const char *b,
			  int ndelay, enum metric m);
/* ops/s over the DIO atomic workload of the same shape, same kernel, per round. */
struct stat3 ratio_to_dio_rounds(const char *kernel, const char *bench, int ndelay);
/* Its median; NaN if none. */
double ratio_to_dio(const char *kernel, const char *bench, int ndelay);
/* The index of the first kernel with an ok run of bench at ndelay, or -1. */
int find_kernel_with(const char *bench, int ndelay);

/*
 * The profile of workload name on kernel (NULL: on any kernel) that ran
 * ("ok", with writes and samples), or NULL.
 */
const struct profile *find_profile(const char *kernel, const char *name);
/* samples of profile p, as us of CPU per write (0 without writes). */
double profile_us(const struct profile *p, unsigned long samples);

/*
 * A paired ratio (bench_pair) of one kernel at one latency over its boots.
 * Each boot's estimate is the median of its per-pair ratios A/B; the run's
 * is the mean of the boots' estimates, on logarithms (a geometric mean, so
 * that A/B and B/A agree): each boot counts once, because the boots are
 * what differs most (the write-through's ratios fall in two clusters by
 * boot, docs/findings.md), and a median over pooled pairs jumps between
 * the clusters with the count of boots in each. Its 95 % interval comes
 * from a cluster bootstrap: 10000 resamples that draw the boots with
 * replacement and then the pairs of each drawn boot with replacement, the
 * 2.5 and 97.5 percentiles of the resampled estimates (a fixed seed: the
 * same input gives the same interval). With one boot it holds only the
 * scatter of the pairs, and boots says so. lo and hi are NaN below 6 pairs.
 * Also each boot's own median, and the medians of the pairs that ran A
 * first and of those that ran B first (an order effect shows as a gap).
 * n = 0 when none ran; na: the first reason a boot gave instead (n/a), or
 * NULL.
 */
#define PAIRED_MAX_BOOTS 16
/* ops/s, p50 write latency, p99 latency of the reader beside the writes */
enum pair_metric { PAIR_OPS, PAIR_P50, PAIR_RD_P99 };
struct paired {
	int n, boots;
	double med, lo, hi;	/* med: the mean of the boots' medians */
	double boot_med[PAIRED_MAX_BOOTS];
	double a_first, b_first;
	const char *na;
};
/* kernel NULL: every kernel (for the n/a reason when none ran it) */
struct paired agg_pair(const char *kernel, const char *name, int ndelay, enum pair_metric m);
/* The first kernel (boot order) with an ok bench_pair line name at ndelay, or NULL. */
const char *kernel_with_pair(const char *name, int ndelay);
/*
 * agg_pair's estimate and cluster bootstrap on logarithms: nb boots, boot b
 * with n[b] values at v[b][0..n[b]) (at most MAX_SLICES). The mean of the
 * boots' medians and its interval, exponentiated.
 */
void cluster_ci(double *const *v, const int *n, int nb, double *est, double *lo, double *hi);
/* The median of v[0..n) (sorts v); NaN when n = 0. */
double median(double *v, int n);

/* One bench_stable_cost mode on one kernel over the boots. *//* One bench_stable_cost mode on one kernel over the boots. */
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

/*
 * One pg_bench configuration on one kernel over the boots: TPS median
 * [min..max], the other figures the median of the boots' figures (per
 * transaction: each boot's total / its transactions), the library's
 * counters summed, and ratios to fpw-on and to fpw-off-unsafe in the same
 * boot (median).
 */
struct pgb_agg {
	int boots;		/* boots with a pgbench.jsonl of this kernel */
	int errors;		/* boots where it could not be run */
	struct stat3 tps;
	struct stat3 x_on;	/* TPS / fpw-on's TPS */
	struct stat3 x_unsafe;	/* TPS / fpw-off-unsafe's TPS */
	double x_wal;		/* fpw-on's WAL/txn / this one's */
	double x_cv;		/* fpw-on's tps_cv / this one's */
	double lat_avg, lat_p99, tps_cv;	/* ms, ms, stddev/mean */
	double wal, fpi, devw, devb, flushes;	/* per transaction */
	double ckpt_write, ckpt_sync;	/* ms */
	unsigned long converted, refused;
	/* REQ_ATOMIC writes summed over the boots that counted them, and
	 * the pages converted in those boots: the units written in place */
	unsigned long atomics, atomics_converted;
	int first_errno;
	char lib_mode[16];
	const char *na;		/* no result: the first reason seen, or NULL */
};
struct pgb_agg agg_pgbench(const char *kernel, const char *cfg);

#endif
