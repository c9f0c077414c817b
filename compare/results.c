// SPDX-License-Identifier: GPL-2.0
/* results.c: the tables the readers fill (results.h) and their lookups. */
#include "results.h"
#include "text.h"

#include <string.h>

const char *const metric_name[NR_METRICS] = {
	"ops_s", "p50_us", "p99_us", "p999_us", "dev_writes_op", "dev_flush_op",
	"cpu_us_op", "dev_cmd_write_op", "dev_cmd_atomic_op", "dev_cmd_fua_op",
	"dev_cmd_flush_op", "dev_kib_op",
};

struct sample samples[MAX_SAMPLES];
int nsamples;
struct pairrun pairruns[MAX_PAIRRUNS];
int npairruns;
struct diskcost diskcosts[MAX_DISKCOSTS];
int ndiskcosts;
struct probe probes[MAX_PROBES];
int nprobes;
struct pcut pcuts[MAX_PCUTS];
int npcuts;
struct randops_run randops_runs[MAX_RANDOPS];
int nrandops_runs;
struct profile profiles[MAX_PROFILES];
int nprofiles;
struct cost costs[MAX_COSTS];
int ncosts;
struct stable stables[MAX_STABLE];
int nstables;
struct stable_setup stable_setup;
struct pgb pgbs[MAX_PGB];
int npgbs;
struct pgb_setup pgb_setup;
char kernels[MAX_KERNELS][32];
int nkernels;
char env_k[MAX_ENV][32], env_v[MAX_ENV][256];
int nenv;
const char *resdir, *root;

const char *env(const char *key)
{
	int i;

	for (i = 0; i < nenv; i++)
		if (!strcmp(env_k[i], key))
			return env_v[i];
	return "?";
}

bool workload_filter(void)
{
	const char *o = env("ONLY");

	return *o && strcmp(o, "?");
}

void add_kernel(const char *kernel)
{
	int i;

	for (i = 0; i < nkernels; i++)
		if (!strcmp(kernels[i], kernel))
			return;
	if (nkernels < MAX_KERNELS)
		scopy(kernels[nkernels++], sizeof(kernels[0]), kernel);
}

struct sample *new_sample(const char *kernel, int round)
{
	struct sample *s;

	if (nsamples >= MAX_SAMPLES)
		die("too many samples");
	s = &samples[nsamples++];
	memset(s, 0, sizeof(*s));
	scopy(s->kernel, sizeof(s->kernel), kernel);
	s->round = round;
	return s;
}

struct pairrun *new_pairrun(const char *kernel, int round)
{
	struct pairrun *p;

	if (npairruns >= MAX_PAIRRUNS)
		die("too many bench_pair lines");
	p = &pairruns[npairruns++];
	memset(p, 0, sizeof(*p));
	scopy(p->kernel, sizeof(p->kernel), kernel);
	p->round = round;
	return p;
}

struct stable *new_stable(const char *kernel, int round, enum stable_kind kind)
{
	struct stable *s;

	if (nstables >= MAX_STABLE)
		die("too many bench_stable_cost lines");
	s = &stables[nstables++];
	memset(s, 0, sizeof(*s));
	scopy(s->kernel, sizeof(s->kernel), kernel);
	s->round = round;
	s->kind = kind;
	return s;
}

struct pgb *new_pgb(const char *kernel, int round, enum pgb_status status)
{
	struct pgb *p;

	if (npgbs >= MAX_PGB)
		die("too many pgbench lines");
	p = &pgbs[npgbs++];
	memset(p, 0, sizeof(*p));
	scopy(p->kernel, sizeof(p->kernel), kernel);
	p->round = round;
	p->status = status;
	return p;
}
