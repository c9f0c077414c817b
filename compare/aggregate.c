// SPDX-License-Identifier: GPL-2.0
/*
 * aggregate.c: medians over the rounds, latencies seen, ratios to DIO;
 * paired ratios with their intervals;
 * bench_stable_cost's modes and pg_bench's configurations over the boots.
 */
#include "aggregate.h"
#include "text.h"

#include <math.h>
#include <stdint.h>
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

	if (!strcmp(bench, "memcpy") || !strcmp(bench, "hash"))	/* no I/O: no ratio */
		return NULL;

	if (suffix && (!strncmp(suffix, "-qd", 3) || !strncmp(suffix, "-4t", 3))) {
		snprintf(buf, sizeof(buf), "dio-atomic%s", suffix);
		return buf;
	}
	return "dio-atomic";
}

/* The first ok bench_io sample of bench on kernel in round, or NULL. */
static const struct sample *sample_of(const char *kernel, const char *bench, int ndelay,
				      int round)
{
	int i;

	for (i = 0; i < nsamples; i++) {
		const struct sample *x = &samples[i];

		if (!x->fio && x->round == round && x->ndelay == ndelay &&
		    !strcmp(x->kernel, kernel) && !strcmp(x->bench, bench) &&
		    !strcmp(x->status, "ok") && !isnan(x->v[OPS]))
			return x;
	}
	return NULL;
}

static struct stat3 stat_of(double *v, int n);

struct stat3 ratio_rounds(const char *ka, const char *a, const char *kb, const char *b,
			  int ndelay, enum metric m)
{
	double v[64];
	int r, n = 0;

	if (!ka || !kb || !a || !b)
		return stat_of(v, 0);
	for (r = 1; r <= 99 && n < 64; r++) {
		const struct sample *x = sample_of(ka, a, ndelay, r);
		const struct sample *y = sample_of(kb, b, ndelay, r);

		if (x && y && !isnan(x->v[m]) && !isnan(y->v[m]) && y->v[m] > 0)
			v[n++] = x->v[m] / y->v[m];
	}
	return stat_of(v, n);
}

struct stat3 ratio_to_dio_rounds(const char *kernel, const char *bench, int ndelay)
{
	/* No DIO run of the same shape: no ratio, never one to QD1. */
	return ratio_rounds(kernel, bench, kernel, dio_of(bench), ndelay, OPS);
}

double ratio_to_dio(const char *kernel, const char *bench, int ndelay)
{
	return ratio_to_dio_rounds(kernel, bench, ndelay).med;
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

/* The ok pgbench configuration cfg of kernel in one round, or NULL. */
static const struct pgb *pgb_of(const char *kernel, int round, const char *cfg)
{
	int i;

	for (i = 0; i < npgbs; i++)
		if (pgbs[i].status == PGB_OK && pgbs[i].round == round &&
		    !strcmp(pgbs[i].kernel, kernel) && !strcmp(pgbs[i].config, cfg))
			return &pgbs[i];
	return NULL;
}

/* cfg's sibling base ("fpw-on") on the same file system: "fpw-on@4k" for "x@4k". */
static const char *pgb_sibling(const char *cfg, const char *base, char *buf, size_t len)
{
	const char *at = strchr(cfg, '@');

	snprintf(buf, len, "%s%s", base, at ? at : "");
	return buf;
}

struct pgb_agg agg_pgbench(const char *kernel, const char *cfg)
{
	char sib[2][32];
	static double tps[MAX_PGB], xon[MAX_PGB], avg[MAX_PGB], p99[MAX_PGB],
		cv[MAX_PGB], wal[MAX_PGB], fpi[MAX_PGB], devw[MAX_PGB], devb[MAX_PGB],
		flush[MAX_PGB], cw[MAX_PGB], cs[MAX_PGB], xwal[MAX_PGB], xcv[MAX_PGB],
		xun[MAX_PGB];
	struct pgb_agg a = { .na = NULL };
	int i, j, n = 0, ncv = 0, nxon = 0, nxwal = 0, nxcv = 0, nxun = 0;

	for (i = 0; i < npgbs; i++) {
		const struct pgb *x = &pgbs[i], *on, *un;

		if (strcmp(x->kernel, kernel))
			continue;
		/* A boot (kernel, round) counts once, by its first line. */
		for (j = 0; j < i; j++)
			if (!strcmp(pgbs[j].kernel, kernel) && pgbs[j].round == x->round)
				break;
		if (j == i)
			a.boots++;
		if (strcmp(x->config, cfg))
			continue;
		if (x->status == PGB_NA) {
			if (!a.na)
				a.na = x->reason;
			continue;
		}
		if (x->status != PGB_OK) {
			a.errors++;
			continue;
		}
		tps[n] = x->tps;
		avg[n] = x->lat_avg;
		p99[n] = x->lat_p99;
		wal[n] = x->wal_bytes / x->txns;
		fpi[n] = x->wal_fpi / x->txns;
		devw[n] = x->dev_writes / x->txns;
		devb[n] = x->dev_bytes / x->txns;
		flush[n] = x->dev_flushes / x->txns;
		cw[n] = x->ckpt_write;
		cs[n] = x->ckpt_sync;
		n++;
		if (!isnan(x->tps_cv))
			cv[ncv++] = x->tps_cv;
		a.converted += x->converted;
		a.refused += x->refused;
		if (!isnan(x->dev_atomics)) {
			a.atomics += (unsigned long)x->dev_atomics;
			a.atomics_converted += x->converted;
		}
		if (x->refused && !a.first_errno)
			a.first_errno = x->first_errno;
		if (!a.lib_mode[0])
			scopy(a.lib_mode, sizeof(a.lib_mode), x->lib_mode);
		/* Ratios to fpw-off-unsafe and to fpw-on in the same boot. */
		un = pgb_of(kernel, x->round,
			    pgb_sibling(cfg, "fpw-off-unsafe", sib[0], sizeof(sib[0])));
		if (un && un->tps > 0)
			xun[nxun++] = x->tps / un->tps;
		on = pgb_of(kernel, x->round, pgb_sibling(cfg, "fpw-on", sib[1], sizeof(sib[1])));
		if (!on)
			continue;
		if (on->tps > 0)
			xon[nxon++] = x->tps / on->tps;
		if (x->wal_bytes > 0 && on->txns > 0)
			xwal[nxwal++] = (on->wal_bytes / on->txns) / (x->wal_bytes / x->txns);
		if (x->tps_cv > 0 && !isnan(on->tps_cv))
			xcv[nxcv++] = on->tps_cv / x->tps_cv;
	}
	a.tps = stat_of(tps, n);
	a.x_on = stat_of(xon, nxon);
	a.x_unsafe = stat_of(xun, nxun);
	a.x_wal = stat_of(xwal, nxwal).med;
	a.x_cv = stat_of(xcv, nxcv).med;
	a.lat_avg = stat_of(avg, n).med;
	a.lat_p99 = stat_of(p99, n).med;
	a.tps_cv = stat_of(cv, ncv).med;
	a.wal = stat_of(wal, n).med;
	a.fpi = stat_of(fpi, n).med;
	a.devw = stat_of(devw, n).med;
	a.devb = stat_of(devb, n).med;
	a.flushes = stat_of(flush, n).med;
	a.ckpt_write = stat_of(cw, n).med;
	a.ckpt_sync = stat_of(cs, n).med;
	if (n)
		a.na = NULL;
	return a;
}

const struct profile *find_profile(const char *kernel, const char *name)
{
	int i;

	for (i = 0; i < nprofiles; i++)
		if (!strcmp(profiles[i].name, name) &&
		    (!kernel || !strcmp(profiles[i].kernel, kernel)) &&
		    !strcmp(profiles[i].status, "ok") && profiles[i].ops && profiles[i].samples)
			return &profiles[i];
	return NULL;
}

double profile_us(const struct profile *p, unsigned long samples)
{
	if (!p || !p->ops || !p->hz)
		return 0;
	return samples * (1e6 / p->hz) / p->ops;
}

double median(double *v, int n)
{
	return n > 0 ? median_of(v, n) : NAN;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#define BOOTSTRAP_RESAMPLES 10000
#define MAX_PAIRED (MAX_PAIRRUNS * MAX_SLICES)

void cluster_ci(double *const *v, const int *n, int nb, double *est, double *lo, double *hi)
{
	static double pool[MAX_SLICES], meds[BOOTSTRAP_RESAMPLES];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int b, r, i, total = 0;
	double sum = 0;

	*est = *lo = *hi = NAN;
	for (b = 0; b < nb; b++) {
		if (!n[b] || n[b] > MAX_SLICES)
			return;
		memcpy(pool, v[b], n[b] * sizeof(double));
		sum += median_of(pool, n[b]);
		total += n[b];
	}
	if (!nb)
		return;
	*est = exp(sum / nb);
	if (total < 6)
		return;
	for (r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
		double s = 0;

		for (b = 0; b < nb; b++) {
			int pick = xorshift(&x) % nb;

			for (i = 0; i < n[pick]; i++)
				pool[i] = v[pick][xorshift(&x) % n[pick]];
			s += median_of(pool, n[pick]);
		}
		meds[r] = s / nb;
	}
	qsort(meds, BOOTSTRAP_RESAMPLES, sizeof(double), cmp_dbl);
	*lo = exp(meds[BOOTSTRAP_RESAMPLES * 25 / 1000]);
	*hi = exp(meds[BOOTSTRAP_RESAMPLES * 975 / 1000 - 1]);
}

/* Boot p's log ratios into r's next boot; false when it has none. */
static bool add_boot(struct paired *r, const struct pairrun *p, enum pair_metric m, double *logs,
		     int *n, double (*first)[MAX_PAIRED], int *nf)
{
	int j;

	*n = 0;
	for (j = 0; j < p->n; j++) {
		double x = m == PAIR_OPS ? p->a_ops[j] / p->b_ops[j] :
			   m == PAIR_P50 ? p->a_p50[j] / p->b_p50[j] :
			   p->a_rd_p99[j] / p->b_rd_p99[j];
		int f = !p->a_first[j];

		if (!isfinite(x) || x <= 0)
			continue;
		logs[(*n)++] = log(x);
		first[f][nf[f]++] = log(x);
	}
	if (!*n)
		return false;
	r->n += *n;
	r->boot_med[r->boots++] = exp(median(logs, *n));
	return true;
}

struct paired agg_pair(const char *kernel, const char *name, int ndelay, enum pair_metric m)
{
	static double logs[PAIRED_MAX_BOOTS][MAX_SLICES], first[2][MAX_PAIRED];
	double *v[PAIRED_MAX_BOOTS] = { NULL };
	int n[PAIRED_MAX_BOOTS] = { 0 }, nf[2] = { 0, 0 };
	struct paired r = { .med = NAN, .lo = NAN, .hi = NAN, .a_first = NAN, .b_first = NAN };
	int i, rd, last = 0;

	for (i = 0; i < npairruns; i++)
		last = pairruns[i].round > last ? pairruns[i].round : last;
	/* boots in the order of their rounds */
	for (rd = 0; rd <= last; rd++) {
		for (i = 0; i < npairruns; i++) {
			const struct pairrun *p = &pairruns[i];

			if (p->round != rd || (kernel && strcmp(p->kernel, kernel)) ||
			    strcmp(p->name, name))
				continue;
			if (!strcmp(p->status, "n/a") && !r.na)
				r.na = p->reason;
			if (strcmp(p->status, "ok") || p->ndelay != ndelay ||
			    r.boots >= PAIRED_MAX_BOOTS)
				continue;
			v[r.boots] = logs[r.boots];
			add_boot(&r, p, m, logs[r.boots], &n[r.boots], first, nf);
		}
	}
	cluster_ci(v, n, r.boots, &r.med, &r.lo, &r.hi);
	r.a_first = exp(median(first[0], nf[0]));
	r.b_first = exp(median(first[1], nf[1]));
	return r;
}

const char *kernel_with_pair(const char *name, int ndelay)
{
	int k, i;

	for (k = 0; k < nkernels; k++)
		for (i = 0; i < npairruns; i++)
			if (!strcmp(pairruns[i].kernel, kernels[k]) &&
			    !strcmp(pairruns[i].name, name) && pairruns[i].ndelay == ndelay &&
			    !strcmp(pairruns[i].status, "ok"))
				return kernels[k];
	return NULL;
}
