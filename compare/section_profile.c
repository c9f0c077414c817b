// SPDX-License-Identifier: GPL-2.0
/*
 * section_profile.c: where a write-through atomic write spends more CPU
 * than a direct atomic write, from the perf profiles of round 1
 * (read_profile.c): per leaf symbol, samples x (1 / hz) per write of each
 * workload, both vCPUs, the idle task left out: first every profiled
 * workload's CPU per write by component (components.c), then the symbols
 * with the largest excess of wt-atomic over dio-atomic on the same kernel,
 * over wt-plain (what RWF_ATOMIC adds to a write-through), and of
 * wt-atomic-qd32 over dio-atomic-qd32 (many writes in flight).
 */
#include "aggregate.h"
#include "results.h"
#include "sections.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#define TOP 15

/* us of CPU per write in sym (NULL: all samples) */
static double per_write(const struct profile *p, const char *sym)
{
	unsigned long n = 0;
	int i;

	if (!p || !p->ops || !p->hz)
		return 0;
	if (!sym) {
		n = p->samples;
	} else {
		for (i = 0; i < p->nsyms; i++)
			if (!strcmp(p->syms[i].name, sym))
				n = p->syms[i].self;
	}
	return profile_us(p, n);
}

struct excess {
	const char *sym;
	double wt, dio;
};

static int cmp_excess(const void *a, const void *b)
{
	const struct excess *x = a, *y = b;
	double dx = x->wt - x->dio, dy = y->wt - y->dio;

	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

/* CPU per write by component, us and share, for every profile of round 1. */
static void components(FILE *out)
{
	static const char *const head[NR_COMPONENTS] = {
		"copy", "own", "fs", "mm", "block", "disk", "irq", "rest",
	};
	int i, c;

	fprintf(out, "CPU per write by component, us (share below), innermost known frame\n"
		"of each sample: copy = user data copied (a copy routine at the leaf,\n"
		"not under scsi_debug); own = functions the series add; fs = XFS and\n"
		"iomap; mm = page cache, pinning, allocation; block = block layer, SCSI,\n"
		"sd; disk = scsi_debug's own work (absent on hardware); irq = interrupt\n"
		"and softirq entry with no known part inside (the walk never crosses\n"
		"into the interrupted task); rest = syscall, scheduler, user space. The\n"
		"copy's share is the part the emulator distorts most (Environment: its\n"
		"calibration).\n");
	fprintf(out, "%-15s %c", "workload", 'k');
	for (c = 0; c < NR_COMPONENTS; c++)
		fprintf(out, " %6s", head[c]);
	fprintf(out, " %6s\n", "total");
	for (i = 0; i < nprofiles; i++) {
		const struct profile *p = &profiles[i];
		double all = per_write(p, NULL);

		if (strcmp(p->status, "ok") || !p->samples)
			continue;
		fprintf(out, "%-15.15s %c", p->name, kernel_letter(p->kernel));
		for (c = 0; c < NR_COMPONENTS; c++)
			fprintf(out, " %6.1f", profile_us(p, p->comp[c]));
		fprintf(out, " %6.1f\n%17s", all, "");
		for (c = 0; c < NR_COMPONENTS; c++)
			fprintf(out, " %5.0f%%", 100.0 * p->comp[c] / p->samples);
		fprintf(out, "\n");
	}
}

/*
 * The symbols where profile w spends the most CPU per write over profile d
 * (both of one kernel, round 1), largest excess first.
 */
static void excess_table(FILE *out, const struct profile *w, const struct profile *d)
{
	static struct excess ex[MAX_PROF_SYMS];
	int i, n = 0;

	fprintf(out, "\nWhere %s spends more CPU than %s per write:\n"
		"perf record -e cpu-clock -F %d -g -a on %s (%c), round 1, %d us,\n"
		"16 KiB writes; the idle task left out. %s: %lu writes, %.0f us\n"
		"of CPU per write; %s: %lu writes, %.0f us. Per leaf symbol\n"
		"(self), us per write; folded stacks in profiles/*.folded.\n",
		w->name, d->name, w->hz, w->kernel, kernel_letter(w->kernel), w->ndelay / 1000,
		w->name, w->ops, per_write(w, NULL), d->name, d->ops, per_write(d, NULL));
	for (i = 0; i < w->nsyms; i++)
		ex[n++] = (struct excess){ w->syms[i].name, per_write(w, w->syms[i].name),
					   per_write(d, w->syms[i].name) };
	qsort(ex, n, sizeof(ex[0]), cmp_excess);
	fprintf(out, "%-40s %8s %8s %8s\n", "symbol", "us/w", "us/w", "excess");
	fprintf(out, "%-40s %8.8s %8.8s\n", "", w->name, d->name);
	for (i = 0; i < n && i < TOP && ex[i].wt - ex[i].dio > 0; i++)
		fprintf(out, "%-40.40s %8.1f %8.1f %8.1f\n", ex[i].sym, ex[i].wt, ex[i].dio,
			ex[i].wt - ex[i].dio);
	fprintf(out, "Excess in all: %.0f us per write.\n",
		per_write(w, NULL) - per_write(d, NULL));
}

void section_profile(FILE *out)
{
	const struct profile *w = find_profile(NULL, "wt-atomic"), *d, *pl;
	int i;

	hr(out, "Profile: CPU per write by component; where WT atomic spends more");
	if (!nprofiles) {
		fprintf(out, "not profiled (scripts/compare --profile, bench kernels)\n");
		return;
	}
	for (i = 0; i < nprofiles; i++)
		if (strcmp(profiles[i].status, "ok"))
			fprintf(out, "%-13.13s %c %s: %.58s\n", profiles[i].name,
				kernel_letter(profiles[i].kernel), profiles[i].status,
				profiles[i].reason);
	components(out);
	if (!w) {
		fprintf(out, "no wt-atomic profile in this run\n");
		return;
	}
	d = find_profile(w->kernel, "dio-atomic");
	if (d)
		excess_table(out, w, d);
	else
		fprintf(out, "no dio-atomic profile on %s\n", w->kernel);
	/* the atomic path's own cost: what RWF_ATOMIC adds to a write-through */
	pl = find_profile(w->kernel, "wt-plain");
	if (pl)
		excess_table(out, w, pl);
	else
		fprintf(out, "no wt-plain profile on %s\n", w->kernel);
	/* many writes in flight, where the write-through falls behind */
	w = find_profile(w->kernel, "wt-atomic-qd32");
	d = w ? find_profile(w->kernel, "dio-atomic-qd32") : NULL;
	if (w && d)
		excess_table(out, w, d);
}
