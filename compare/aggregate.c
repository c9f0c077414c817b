// SPDX-License-Identifier: GPL-2.0
/* aggregate.c: medians over the rounds, latencies seen, ratios to DIO. */
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

