/* SPDX-License-Identifier: GPL-2.0 */
/*
 * results.h: what the readers fill and the sections read, for one results
 * directory: env.txt, the samples (bench_io and fio), the probes
 * (bench_probe), bench_stable_cost's lines, pg_bench's configurations, the
 * power-cut summaries, the randops summaries, the profiles, the paired
 * ratios (bench_pair) and the cost of each series.
 * Defined in results.c.
 */
#ifndef ATW_REPORT_RESULTS_H
#define ATW_REPORT_RESULTS_H

#include "components.h"

#include <stdbool.h>

#define MAX_KERNELS 8
#define MAX_SAMPLES 4096
#define MAX_PROBES 512
#define MAX_ENV 64
#define MAX_PCUTS 256
#define MAX_COSTS 4
#define MAX_STABLE 2048
#define MAX_PGB 512
#define MAX_RANDOPS 64

/*
 * DEVW, DEVF: write and flush requests per write as the block layer counted
 * them (/sys/block/DISK/stat); CMD*: commands per write as the SCSI disk saw
 * them (the tracepoint): plain writes, WRITE ATOMIC(16), FUA writes,
 * SYNCHRONIZE CACHE, and KiB written.
 */
enum metric {
	OPS, P50, P99, P999, DEVW, DEVF, CPU,
	CMDW, CMDA, CMDFUA, CMDF, KIB, NR_METRICS
};

/* The metrics' keys in bench.jsonl and in results.json. */
extern const char *const metric_name[NR_METRICS];

/* One workload run: a bench.jsonl line, or a fio.jsonl line and its file. */
struct sample {
	char kernel[32], bench[48], status[8], reason[160];
	int round, ndelay, qd, threads;
	double v[NR_METRICS];
	bool fio;
};

/*
 * One bench_stable_cost line of one boot (stable_cost.jsonl): a mode's
 * round, its summary over the boot's rounds, or why the kernel refused it.
 */
enum stable_kind { ST_ROUND, ST_SUMMARY, ST_NA };
struct stable {
	char kernel[32], mode[16], baseline[16], reason[160];
	enum stable_kind kind;
	int round;		/* the boot's round of scripts/compare */
	double ops;		/* ST_ROUND: the round's; ST_SUMMARY: the median */
	double p50, p99, second;	/* ST_ROUND: us, us, ops/s */
	double ratio;		/* ST_SUMMARY: median / the baseline's; NaN if none */
	unsigned long errors;
};

/* The setup of the bench_stable_cost runs (the plan's first line). */
struct stable_setup {
	bool measured;		/* stable_cost.jsonl on at least one boot */
	int ndelay, fs_bs, rounds;
	double secs;
};

/*
 * One pgbench configuration of one boot (pgbench.jsonl, written by
 * clients/postgres/pg_bench): its figures, why the kernel has no such
 * configuration (n/a), or why it could not be run (error).
 */
enum pgb_status { PGB_OK, PGB_NA, PGB_ERROR };
struct pgb {
	char kernel[32], config[24], lib_mode[16], claim[8], reason[160];
	enum pgb_status status;
	int round;		/* the boot's round of scripts/compare */
	double txns, tps, lat_avg, lat_p99, tps_cv;	/* ms, ms; cv NaN if none */
	double wal_bytes, wal_fpi, dev_writes, dev_bytes, dev_flushes;
	double dev_atomics;	/* REQ_ATOMIC writes, pgbench to the CHECKPOINT; NaN: unknown */
	double ckpt_write, ckpt_sync;	/* ms */
	unsigned long converted, refused;
	int first_errno;
};

/* The setup of the pgbench runs (the plan's first line). */
struct pgb_setup {
	bool measured;		/* pgbench.jsonl on at least one boot */
	char disk[16];		/* scsi_debug, or pcblk with its model */
	char model[96];		/* pcblk's performance model, as loaded */
	int ndelay, fs_bs, sector, clients, scale;
	double secs;
};

/*
 * One bench_pair line of one boot (pairs.jsonl): two workloads alternated
 * in slices, each pair of slices one ratio A/B; or why not (n/a, error).
 */
#define MAX_PAIRRUNS 256
#define MAX_SLICES 200
struct pairrun {
	char kernel[32], name[48], a[48], b[48], status[8], reason[200];
	int round, ndelay, n;
	double secs;
	double a_ops[MAX_SLICES], b_ops[MAX_SLICES];
	double a_p50[MAX_SLICES], b_p50[MAX_SLICES];
	/* bench_io --reader on both sides: the readers' p99, else 0 */
	double a_rd_p99[MAX_SLICES], b_rd_p99[MAX_SLICES];
	double a_cpu[MAX_SLICES], b_cpu[MAX_SLICES];
	bool a_first[MAX_SLICES];	/* the pair's A slice ran first */
};

/*
 * One bench_disk_cost line of one boot (disk_cost.jsonl): the wall time of
 * scsi_debug's schedule_resp per call (kprobes) while one workload ran.
 */
#define MAX_DISKCOSTS 256
struct diskcost {
	char kernel[32], name[48], status[8], reason[160];
	int round, ndelay;
	double p50, p90, mean, calls_per_write;
};

/* One probe.jsonl line (bench_probe). */
struct probe {
	char kernel[32], id[32], mode[8], result[16], detail[200];
	int bs, lbs;
};

/* One "# powercut: config=..." summary line of powercut_check. */
struct pcut {
	char kernel[32], config[32], disk[56], expect[8], result[8];
	unsigned long cuts, torn, lost, bad, acked, tailw, during;
};

/*
 * One randops run of one kernel (a "# randops:" summary line of a TAP file
 * of initramfs/plans/randops), or a run the kernel skipped, with why.
 */
struct randops_run {
	char kernel[32], run[48], failing[128], skip[120];
	unsigned long seqs, ops, failed, faults;
	int bs, sector;
};

/*
 * One profiled workload of one boot (profile.jsonl and its perf stacks):
 * samples that were not idle, and per leaf symbol its samples (self).
 */
#define MAX_PROFILES 64	/* 6 per kernel with --profile, and room */
#define MAX_PROF_SYMS 1024
struct profile {
	char kernel[32], name[32], status[8], reason[160];
	int round, ndelay, hz, nsyms;
	unsigned long ops, samples, other;
	unsigned long comp[NR_COMPONENTS];	/* samples per component */
	struct {
		char name[64];
		unsigned long self;
	} syms[MAX_PROF_SYMS];
};

/* The cost in code of one series, from its patches. */
struct cost {
	char series[32];
	char subsys[16][24];
	int add[16], del[16], files[16], nsub;
	char pageflags[128];
	int ifs_bits_old, ifs_bits_new;
	char mapping_fields[160];
};

extern struct sample samples[MAX_SAMPLES];
extern int nsamples;
extern struct pairrun pairruns[MAX_PAIRRUNS];
extern int npairruns;
extern struct diskcost diskcosts[MAX_DISKCOSTS];
extern int ndiskcosts;
extern struct probe probes[MAX_PROBES];
extern int nprobes;
extern struct pcut pcuts[MAX_PCUTS];
extern int npcuts;
extern struct randops_run randops_runs[MAX_RANDOPS];
extern int nrandops_runs;
extern struct profile profiles[MAX_PROFILES];
extern int nprofiles;
extern struct cost costs[MAX_COSTS];
extern int ncosts;
extern struct stable stables[MAX_STABLE];
extern int nstables;
extern struct stable_setup stable_setup;
extern struct pgb pgbs[MAX_PGB];
extern int npgbs;
extern struct pgb_setup pgb_setup;
/* Kernels in the order scripts/compare booted them, then any other seen. */
extern char kernels[MAX_KERNELS][32];
extern int nkernels;
extern char env_k[MAX_ENV][32], env_v[MAX_ENV][256];
extern int nenv;
/* The results directory and the repository root (main's arguments). */
extern const char *resdir, *root;

/* The value of KEY in env.txt, "?" when absent. */
const char *env(const char *key);
/* scripts/compare --only: some workloads were left out (env ONLY). */
bool workload_filter(void);
void add_kernel(const char *kernel);
/* A zeroed sample appended to samples[] (dies when full). */
struct sample *new_sample(const char *kernel, int round);
/* A zeroed bench_pair line appended to pairruns[] (dies when full). */
struct pairrun *new_pairrun(const char *kernel, int round);
/* A zeroed bench_stable_cost line appended to stables[] (dies when full). */
struct stable *new_stable(const char *kernel, int round, enum stable_kind kind);
/* A zeroed pgbench configuration appended to pgbs[] (dies when full). */
struct pgb *new_pgb(const char *kernel, int round, enum pgb_status status);

#endif
