// SPDX-License-Identifier: GPL-2.0
/*
 * aggregate.c: medians over the rounds, latencies seen, ratios to DIO;
 * bench_stable_cost's modes over the boots.
 */
#include "aggregate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int latencies[8], nlat;

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v and returns its median (n > 0). */
static double median_of(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct stat3 agg(const char *kernel, const char *bench, int ndelay, bool fio,
		 enum metric m)
{
	double v[MAX_SAMPLES / 8];
	struct stat3 s = { 0, NAN, NAN, NAN };
	int i;

	for (i = 0; i < nsamples && s.n < (int)(sizeof(v) / sizeof(v[0])); i++) {
		struct sample *x = &samples[i];

		if (x->fio != fio || (kernel && strcmp(x->kernel, kernel)) ||
		    strcmp(x->bench, bench) || x->ndelay != ndelay ||
		    strcmp(x->status, "ok") || isnan(x->v[m]))
			continue;
		v[s.n++] = x->v[m];
	}
	if (!s.n)
		return s;
	s.med = median_of(v, s.n);
	s.min = v[0];
	s.max = v[s.n - 1];
	return s;
}

const struct sample *why_not(const char *kernel, const char *bench, int ndelay,
			     bool fio)
{
	int i;

	for (i = 0; i < nsamples; i++) {
		struct sample *x = &samples[i];

		if (x->fio == fio && !strcmp(x->kernel, kernel) &&
		    !strcmp(x->bench, bench) && x->ndelay == ndelay &&
		    strcmp(x->status, "ok"))
			return x;
	}
	return NULL;
}

void collect_latencies(void)
{
	int i, j;

	for (i = 0; i < nsamples; i++) {
		for (j = 0; j < nlat; j++)
			if (latencies[j] == samples[i].ndelay)
				break;
		if (j == nlat && nlat < 8)
			latencies[nlat++] = samples[i].ndelay;
	}
	for (i = 0; i < nlat; i++)	/* ascending */
		for (j = i + 1; j < nlat; j++)
			if (latencies[j] < latencies[i]) {
				int t = latencies[i];

				latencies[i] = latencies[j];
				latencies[j] = t;
			}
}

/* The DIO atomic workload of the same shape (QD, threads) to divide by. */
static const char *dio_of(const char *bench)
{
	static char buf[48];
	const char *suffix = strrchr(bench, '-');

	if (suffix && (!strncmp(suffix, "-qd", 3) || !strncmp(suffix, "-4t", 3))) {
		snprintf(buf, sizeof(buf), "dio-atomic%s", suffix);
		return buf;
	}
	return "dio-atomic";
}

double ratio_to_dio(const char *kernel, const char *bench, int ndelay)
{
	struct stat3 a = agg(kernel, bench, ndelay, false, OPS);
	struct stat3 d = agg(kernel, dio_of(bench), ndelay, false, OPS);

	/* No DIO run of the same shape: no ratio, never one to QD1. */
	return a.n && d.n ? a.med / d.med : NAN;
}

int find_kernel_with(const char *bench, int ndelay)
{
	int k;

	for (k = 0; k < nkernels; k++)
		if (agg(kernels[k], bench, ndelay, false, OPS).n)
			return k;
	return -1;
}

/* Median, min and max of v[0..n) (sorts v); NaNs when n is 0. */
static struct stat3 stat_of(double *v, int n)
{
	struct stat3 s = { n, NAN, NAN, NAN };

	if (!n)
		return s;
	s.med = median_of(v, n);
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

struct stable_agg agg_stable(const char *kernel, const char *mode)
{
	static double ops[MAX_STABLE], ratio[MAX_STABLE], p50[MAX_STABLE],
		p99[MAX_STABLE], second[MAX_STABLE];
	struct stable_agg a = { .na = NULL };
	int i, j, nops = 0, nratio = 0, n50 = 0, n99 = 0, n2 = 0;

	for (i = 0; i < nstables; i++) {
		const struct stable *x = &stables[i];

		if (strcmp(x->kernel, kernel))
			continue;
		/* A boot (kernel, round) counts once, by its first line. */
		for (j = 0; j < i; j++)
			if (!strcmp(stables[j].kernel, kernel) && stables[j].round == x->round)
				break;
		if (j == i)
			a.boots++;
		if (strcmp(x->mode, mode))
			continue;
		switch (x->kind) {
		case ST_NA:
			if (!a.na)
				a.na = x->reason;
			break;
		case ST_SUMMARY:
			if (!isnan(x->ops))
				ops[nops++] = x->ops;
			if (!isnan(x->ratio))
				ratio[nratio++] = x->ratio;
			if (!a.baseline[0])
				snprintf(a.baseline, sizeof(a.baseline), "%s", x->baseline);
			break;
		case ST_ROUND:
			if (!isnan(x->p50))
				p50[n50++] = x->p50;
			if (!isnan(x->p99))
				p99[n99++] = x->p99;
			if (!isnan(x->second))
				second[n2++] = x->second;
			a.errors += x->errors;
			break;
		}
	}
	a.ops = stat_of(ops, nops);
	a.ratio = stat_of(ratio, nratio);
	a.p50 = stat_of(p50, n50).med;
	a.p99 = stat_of(p99, n99).med;
	a.second = stat_of(second, n2).med;
	if (a.ops.n)
		a.na = NULL;
	return a;
}
