// SPDX-License-Identifier: GPL-2.0
/*
 * report: the scripts/compare report from one results directory.
 *
 *	report RESULTS_DIR REPO_ROOT
 *
 * Reads RESULTS_DIR/env.txt (KEY=VALUE, written by scripts/compare) and, for
 * every boot RESULTS_DIR/rROUND-VARIANT/results/: bench.jsonl (bench_io),
 * probe.jsonl (bench_probe), fio.jsonl and fio-NAME-NDELAY.json, cdf-*.txt;
 * for each kernel RESULTS_DIR/powercut-VARIANT/results/powercut_*.tap.
 * Reads the series patches under REPO_ROOT/series-NAME/ for the cost section.
 * Writes RESULTS_DIR/report.txt (80 columns), RESULTS_DIR/results.json and
 * gnuplot scripts and data under RESULTS_DIR/plots/.
 *
 * Every figure is the median over the rounds, with min and max.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_KERNELS 8
#define MAX_SAMPLES 4096
#define MAX_PROBES 512
#define MAX_ENV 64

enum metric { OPS, P50, P99, P999, DEVW, DEVF, CPU, NR_METRICS };

static const char *const metric_name[NR_METRICS] = {
	"ops_s", "p50_us", "p99_us", "p999_us", "dev_writes_op", "dev_flush_op",
	"cpu_us_op",
};

struct sample {
	char kernel[32], bench[48], status[8], reason[160];
	int round, ndelay, qd, threads;
	double v[NR_METRICS];
	bool fio;
};

struct probe {
	char kernel[32], id[32], mode[8], result[16], detail[200];
	int bs, lbs;
};

struct stat3 {
	int n;
	double med, min, max;
};

static struct sample samples[MAX_SAMPLES];
static int nsamples;
static struct probe probes[MAX_PROBES];
static int nprobes;
static char kernels[MAX_KERNELS][32];
static int nkernels;
static char env_k[MAX_ENV][32], env_v[MAX_ENV][256];
static int nenv;
static const char *resdir, *root;
static FILE *out, *js;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* strlcpy */
static void scopy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

static const char *env(const char *k)
{
	int i;

	for (i = 0; i < nenv; i++)
		if (!strcmp(env_k[i], k))
			return env_v[i];
	return "?";
}

/* Value of "key" in a one-line flat JSON object; false if absent. */
static bool jget(const char *line, const char *key, char *val, size_t len)
{
	char pat[64];
	const char *p, *e;
	size_t n;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	p += strlen(pat);
	if (*p == '"') {
		e = strchr(++p, '"');
		if (!e)
			return false;
	} else {
		e = p + strcspn(p, ",}");
	}
	n = (size_t)(e - p) < len - 1 ? (size_t)(e - p) : len - 1;
	memcpy(val, p, n);
	val[n] = 0;
	return true;
}

static double jnum(const char *line, const char *key)
{
	char v[64];

	return jget(line, key, v, sizeof(v)) ? atof(v) : NAN;
}

static void add_kernel(const char *k)
{
	int i;

	for (i = 0; i < nkernels; i++)
		if (!strcmp(kernels[i], k))
			return;
	if (nkernels < MAX_KERNELS)
		scopy(kernels[nkernels++], sizeof(kernels[0]), k);
}

static struct sample *new_sample(const char *kernel, int round)
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

static void read_bench(const char *path, const char *kernel, int round)
{
	char line[2048];
	FILE *f = fopen(path, "r");
	int m;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct sample *s;
		char v[64];

		if (!jget(line, "bench", v, sizeof(v)))
			continue;
		s = new_sample(kernel, round);
		scopy(s->bench, sizeof(s->bench), v);
		jget(line, "status", s->status, sizeof(s->status));
		jget(line, "reason", s->reason, sizeof(s->reason));
		s->ndelay = (int)jnum(line, "ndelay");
		s->qd = (int)jnum(line, "qd");
		s->threads = (int)jnum(line, "threads");
		for (m = 0; m < NR_METRICS; m++)
			s->v[m] = jnum(line, metric_name[m]);
	}
	fclose(f);
}

/* fio JSON: the first job's write iops and clat percentiles (ns). */
static double fio_find(const char *text, const char *after, const char *key)
{
	const char *p = strstr(text, after);

	if (!p)
		return NAN;
	p = strstr(p, key);
	if (!p)
		return NAN;
	p = strchr(p + strlen(key), ':');
	return p ? atof(p + 1) : NAN;
}

static void read_fio(const char *dir, const char *kernel, int round)
{
	char path[2048], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/fio.jsonl", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char name[48], nd[16], file[128], *text;
		struct sample *s;
		FILE *jf;
		long len;

		if (!jget(line, "fio", name, sizeof(name)) ||
		    !jget(line, "ndelay", nd, sizeof(nd)))
			continue;
		s = new_sample(kernel, round);
		s->fio = true;
		scopy(s->bench, sizeof(s->bench), name);
		s->ndelay = atoi(nd);
		jget(line, "status", s->status, sizeof(s->status));
		jget(line, "reason", s->reason, sizeof(s->reason));
		for (int m = 0; m < NR_METRICS; m++)
			s->v[m] = NAN;
		if (strcmp(s->status, "ok"))
			continue;
		if (jget(line, "file", file, sizeof(file)))
			snprintf(path, sizeof(path), "%s/%s", dir, file);
		else
			snprintf(path, sizeof(path), "%s/fio-%s-%s.json", dir, name, nd);
		jf = fopen(path, "r");
		if (!jf) {
			snprintf(s->status, sizeof(s->status), "error");
			continue;
		}
		fseek(jf, 0, SEEK_END);
		len = ftell(jf);
		rewind(jf);
		text = calloc(1, len + 1);
		if (!text || fread(text, 1, len, jf) != (size_t)len)
			die("read %s", path);
		fclose(jf);
		s->v[OPS] = fio_find(text, "\"write\"", "\"iops\"");
		s->v[P50] = fio_find(text, "\"clat_ns\"", "\"50.000000\"") / 1000;
		s->v[P99] = fio_find(text, "\"clat_ns\"", "\"99.000000\"") / 1000;
		s->v[P999] = fio_find(text, "\"clat_ns\"", "\"99.900000\"") / 1000;
		free(text);
	}
	fclose(f);
}

static void read_probes(const char *path, const char *kernel)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nprobes < MAX_PROBES) {
		struct probe *p = &probes[nprobes];

		if (!jget(line, "probe", p->id, sizeof(p->id)))
			continue;
		scopy(p->kernel, sizeof(p->kernel), kernel);
		jget(line, "mode", p->mode, sizeof(p->mode));
		jget(line, "result", p->result, sizeof(p->result));
		jget(line, "detail", p->detail, sizeof(p->detail));
		p->bs = (int)jnum(line, "bs");
		p->lbs = (int)jnum(line, "lbs");
		nprobes++;
	}
	fclose(f);
}

static void read_env(void)
{
	char path[1024], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/env.txt", resdir);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) && nenv < MAX_ENV) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = 0;
		line[strcspn(line, "\n")] = 0;
		eq[1 + strcspn(eq + 1, "\n")] = 0;
		scopy(env_k[nenv], sizeof(env_k[0]), line);
		scopy(env_v[nenv], sizeof(env_v[0]), eq + 1);
		nenv++;
	}
	fclose(f);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void read_runs(void)
{
	char list[256], *tok, *save;
	DIR *d = opendir(resdir);
	struct dirent *e;

	if (!d)
		die("%s: %s", resdir, strerror(errno));
	/* Kernels in the order scripts/compare booted them. */
	scopy(list, sizeof(list), env("VARIANTS"));
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		add_kernel(tok);
	while ((e = readdir(d))) {
		char dir[1024], path[1200], kernel[32];
		int round;

		if (sscanf(e->d_name, "r%d-%31s", &round, kernel) != 2)
			continue;
		add_kernel(kernel);
		snprintf(dir, sizeof(dir), "%s/%s/results", resdir, e->d_name);
		snprintf(path, sizeof(path), "%s/bench.jsonl", dir);
		read_bench(path, kernel, round);
		read_fio(dir, kernel, round);
		snprintf(path, sizeof(path), "%s/probe.jsonl", dir);
		read_probes(path, kernel);
	}
	closedir(d);
}

/* Sorts v and returns its median (n > 0). */
static double median_of(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median, min and max of one metric over the rounds (kernel NULL: all). */
static struct stat3 agg(const char *kernel, const char *bench, int ndelay,
			bool fio, enum metric m)
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

/* The first non-ok sample of a workload on a kernel, or NULL. */
static const struct sample *why_not(const char *kernel, const char *bench,
				    int ndelay, bool fio)
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

static char kernel_letter(const char *k)
{
	return toupper((unsigned char)k[0]);
}

static const char *num(double v, char *buf)
{
	if (isnan(v))
		return strcpy(buf, "-");
	if (v >= 100000)
		sprintf(buf, "%.0fk", v / 1000);
	else if (v >= 10000)
		sprintf(buf, "%.1fk", v / 1000);
	else if (v >= 100)
		sprintf(buf, "%.0f", v);
	else if (v >= 10)
		sprintf(buf, "%.1f", v);
	else
		sprintf(buf, "%.2f", v);
	return buf;
}

static void hr(const char *title)
{
	fprintf(out, "\n%s\n", title);
	for (size_t i = 0; i < strlen(title); i++)
		fputc('-', out);
	fputc('\n', out);
}

/* ---------------------------------------------------------------- env */

static void section_env(void)
{
	char list[256], *tok, *save;

	fprintf(out, "Buffered atomic writes: write-through vs PG_atomic (%s run)\n",
		env("SET"));
	fprintf(out, "%.80s\n", "==========================================================="
		"=====================");
	hr("Environment");
	fprintf(out, "tree        %s\n", env("TREE"));
	scopy(list, sizeof(list), env("VARIANTS"));
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char key[64];

		snprintf(key, sizeof(key), "KREL_%s", tok);
		fprintf(out, "kernel %c    %-13s %s\n", kernel_letter(tok), tok, env(key));
	}
	fprintf(out, "QEMU        %s accel, %s vCPUs, %s MiB guest; host %s CPUs (shared)\n",
		env("ACCEL"), env("CPUS"), env("MEM"), env("HOST_CPUS"));
	if (!nsamples) {
		fprintf(out, "disk        no benchmark boot (--rounds 0): the power-cut table\n"
			"            below ran on pcblk, described there\n");
		return;
	}
	fprintf(out, "disk        scsi_debug, 4096 B sectors, atomic_wr=1 (unit <= %s B),\n"
		"            FUA %s, cache %s;\n"
		"            ndelay = emulated latency %s ns;\n"
		"            jiffy delay off (param delay read back: %s; -9999 means\n"
		"            overridden by ndelay > 0)\n",
		env("DISK_ATOMIC_MAX"), env("DISK_FUA"), env("DISK_WC"), env("LATENCIES"),
		env("DISK_JDELAY"));
	fprintf(out, "flush cost  SYNCHRONIZE CACHE: scsi_debug delays it HZ/20 = 50 ms when\n"
		"            ndelay > 10 us, else it costs nothing extra. So at 20/100 us\n"
		"            every flush is 50 ms (stated, not hidden); durability targets\n"
		"            are judged at 0 us, where a flush costs like any command.\n");
	fprintf(out, "blocks      XFS %s B blocks, %s B writes at random aligned offsets\n"
		"            in a 32 MiB preallocated, written file; each workload\n"
		"            starts after sync + drop_caches, a buffered one with its\n"
		"            file read back into the page cache (steady state)\n",
		env("FS_BS"), env("FS_BS"));
	fprintf(out, "runs        %s rounds, kernels interleaved in the order\n"
		"            %s (repeated), %s s per workload;\n"
		"            each figure: median of the rounds [min..max]\n",
		env("ROUNDS"), env("VARIANTS"), env("SECS"));
	fprintf(out, "wall time   %s s for the boots (%s)\n", env("WALL"), env("STARTED"));
}

/* ---------------------------------------------------------------- matrix */

struct row {
	const char *label, *id;
	int bs, lbs;
};

static const struct row rows[] = {
	{ "atomic 4 KiB block", "atomic_unit", 4096, 4096 },
	{ "atomic 16 KiB block", "atomic_unit", 16384, 4096 },
	{ "bs < ps (1 KiB blocks)", "atomic_unit", 1024, 512 },
	{ "on device at return", "on_device_at_return", 4096, 4096 },
	{ "error from the call", "error_returned", 4096, 4096 },
	{ "RWF_DSYNC durable", "dsync_durable", 4096, 4096 },
	{ "plain overwrite keeps", "overwrite_keeps_atomic", 4096, 4096 },
	{ "mmap store keeps", "mmap_store", 4096, 4096 },
	{ "adjacent units merged", "merge", 4096, 4096 },
	{ "short copy impossible", "short_copy", 4096, 4096 },
	{ "io_uring, no io-wq", "uring_no_punt", 4096, 4096 },
	{ "RWF_NOWAIT", "nowait", 4096, 4096 },
	{ "io_uring, no io-wq *", "uring_no_punt_nocmtime", 4096, 4096 },
	{ "RWF_NOWAIT *", "nowait_nocmtime", 4096, 4096 },
};

static const struct probe *find_probe(const char *kernel, const char *mode,
				      const char *id, int bs, int lbs)
{
	int i;

	for (i = 0; i < nprobes; i++) {
		const struct probe *p = &probes[i];

		if (!strcmp(p->kernel, kernel) && !strcmp(p->mode, mode) &&
		    !strcmp(p->id, id) && p->bs == bs && p->lbs == lbs)
			return p;
	}
	return NULL;
}

/* The atomic write path a kernel offers, from its probes: wt, pga or dio. */
static const char *kernel_mode(const char *kernel)
{
	static const char *const pref[] = { "wt", "pga", "dio" };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		const struct probe *p = find_probe(kernel, pref[i], "atomic_unit", 4096, 4096);

		if (p && strcmp(p->result, "n/a") && strcmp(p->result, "no"))
			return pref[i];
	}
	return NULL;
}

static void cell(const struct probe *p, char *buf, size_t len)
{
	const char *d;
	unsigned int a, b;

	if (!p) {
		snprintf(buf, len, "not run");
		return;
	}
	d = p->detail;
	if (!strcmp(p->id, "merge") && sscanf(d, "8 units: %u commands (%u", &a, &b) == 2)
		snprintf(buf, len, "%s %u/8", a < 8 ? "yes" : "no", a);
	else if (!strcmp(p->id, "dsync_durable") && !strcmp(p->result, "yes"))
		snprintf(buf, len, "yes (%s)", strstr(d, "FUA") ? "FUA" : "flush");
	else if (!strcmp(p->id, "on_device_at_return") && !strcmp(p->result, "no"))
		snprintf(buf, len, "no (fdatasync)");
	else if (!strcmp(p->id, "error_returned") && strstr(d, "fdatasync"))
		snprintf(buf, len, "no (fdatasync)");
	else if (!strncmp(p->id, "nowait", 6) && !strcmp(p->result, "yes"))
		snprintf(buf, len, "yes (%s)", strstr(d, "EAGAIN") ? "EAGAIN" : "len");
	else if (!strncmp(p->id, "uring_no_punt", 13) && !strcmp(p->result, "no"))
		snprintf(buf, len, "no (io-wq)");
	else if (!strcmp(p->id, "short_copy") && !strcmp(p->result, "yes"))
		snprintf(buf, len, "yes (%.8s)", strchr(d, ':') ? strchr(d, ':') + 2 : d);
	else
		snprintf(buf, len, "%s", p->result);
	buf[17] = 0;
}

struct cost {
	char series[32];
	char subsys[16][24];
	int add[16], del[16], files[16], nsub;
	char pageflags[128];
	int ifs_bits_old, ifs_bits_new;
	char mapping_fields[160];
};

static struct cost costs[4];
static int ncosts;

static void section_matrix(void)
{
	const char *mode[MAX_KERNELS];
	unsigned int r;
	int k, i;

	hr("Semantics (each cell: bench_probe in this run, round 1)");
	fprintf(out, "%-22s", "behaviour");
	for (k = 0; k < nkernels && k < 3; k++) {
		char h[40];

		mode[k] = kernel_mode(kernels[k]);
		snprintf(h, sizeof(h), "%c:%s", kernel_letter(kernels[k]),
			 mode[k] ? (!strcmp(mode[k], "wt") ? "WT atomic" :
				    !strcmp(mode[k], "pga") ? "PG_atomic" : "DIO atomic") :
				   "no probe");
		fprintf(out, " %-18s", h);
	}
	fputc('\n', out);
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		fprintf(out, "%-22s", rows[r].label);
		for (k = 0; k < nkernels && k < 3; k++) {
			char c[40];

			cell(mode[k] ? find_probe(kernels[k], mode[k], rows[r].id,
						  rows[r].bs, rows[r].lbs) : NULL,
			     c, sizeof(c));
			fprintf(out, " %-18s", c);
		}
		fputc('\n', out);
	}
	/* From the patches of this tree, not from a probe. */
	fprintf(out, "%-22s", "page flags added (src)");
	for (k = 0; k < nkernels && k < 3; k++) {
		const char *pf = "none";

		for (i = 0; i < ncosts; i++)
			if (!strcmp(costs[i].series, kernels[k]) && costs[i].pageflags[0])
				pf = costs[i].pageflags;
		fprintf(out, " %-18.18s", pf);
	}
	fputc('\n', out);
	fprintf(out, "%-22s", "memory/folio (src)");
	for (k = 0; k < nkernels && k < 3; k++) {
		char c[40] = "none";

		for (i = 0; i < ncosts; i++)
			if (!strcmp(costs[i].series, kernels[k]) && costs[i].ifs_bits_new)
				snprintf(c, sizeof(c), "+%d bit/block ifs",
					 costs[i].ifs_bits_new - costs[i].ifs_bits_old);
		fprintf(out, " %-18s", c);
	}
	fputc('\n', out);
	fprintf(out, "Probe modes: WT = buffered RWF_ATOMIC|RWF_WRITETHROUGH, PG_atomic =\n"
		"buffered RWF_ATOMIC then fdatasync, DIO = O_DIRECT RWF_ATOMIC. A column\n"
		"shows the first of WT, PG_atomic, DIO that the kernel accepted. 'mmap\n"
		"store keeps' stores after the call, before the durable point (the\n"
		"store *during* a write-through's I/O is wt_stable's test, not here).\n"
		"On 6.12 a NOWAIT write that must update mtime gets EAGAIN on every\n"
		"path (file_modified_flags()), so io_uring punts it to io-wq: the\n"
		"unstarred io_uring/NOWAIT rows. Starred (*) rows: the same probe on\n"
		"an FMODE_NOCMTIME open (XFS open-by-handle), no timestamp update\n"
		"due, so the write path itself decides. Details:\n");
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		for (k = 0; k < nkernels && k < 3; k++) {
			const struct probe *p = mode[k] ?
				find_probe(kernels[k], mode[k], rows[r].id, rows[r].bs,
					   rows[r].lbs) : NULL;

			char tag[32], lbl[16], *nocm;

			if (!p)
				continue;
			/* "nowait_nocmtime" -> "nowait*", as the starred rows */
			scopy(tag, sizeof(tag), rows[r].id);
			nocm = strstr(tag, "_nocmtime");
			if (nocm)
				*nocm = 0;
			snprintf(lbl, sizeof(lbl), "%.9s%s", tag, nocm ? "*" : "");
			fprintf(out, " %c %-10s %.65s\n", kernel_letter(kernels[k]), lbl,
				p->detail);
		}
}

/* ---------------------------------------------------------------- perf */

struct wl {
	const char *bench, *desc;
};

static const struct wl wls[] = {
	{ "dio-atomic", "O_DIRECT RWF_ATOMIC" },
	{ "wt-atomic", "RWF_ATOMIC|RWF_WRITETHROUGH" },
	{ "wt-plain", "RWF_WRITETHROUGH" },
	{ "wt-dsync", "RWF_ATOMIC|RWF_WRITETHROUGH|RWF_DSYNC" },
	{ "pga-fsync1", "buffered RWF_ATOMIC + fdatasync each write" },
	{ "pga-fsync64", "buffered RWF_ATOMIC + fdatasync per 64" },
	{ "buf-fsync", "buffered + fdatasync each write" },
	{ "buf-dsync", "buffered RWF_DSYNC" },
	{ "dio-atomic-qd16", "io_uring QD16 O_DIRECT RWF_ATOMIC" },
	{ "wt-atomic-qd16", "io_uring QD16 RWF_ATOMIC|RWF_WRITETHROUGH" },
	{ "wt-plain-qd16", "io_uring QD16 RWF_WRITETHROUGH" },
	{ "wt-dsync-qd16", "io_uring QD16 WT atomic DSYNC" },
	{ "dio-atomic-qd32", "io_uring QD32 O_DIRECT RWF_ATOMIC" },
	{ "wt-atomic-qd32", "io_uring QD32 RWF_ATOMIC|RWF_WRITETHROUGH" },
	{ "wt-plain-qd32", "io_uring QD32 RWF_WRITETHROUGH" },
	{ "wt-dsync-qd32", "io_uring QD32 WT atomic DSYNC" },
	{ "dio-atomic-4t1f", "4 threads one file DIO atomic" },
	{ "dio-atomic-4t4f", "4 threads 4 files DIO atomic" },
	{ "wt-atomic-4t1f", "4 threads one file WT atomic" },
	{ "wt-atomic-4t4f", "4 threads 4 files WT atomic" },
	{ "wt-dsync-4t1f", "4 threads one file WT atomic DSYNC" },
	{ "wt-dsync-4t4f", "4 threads 4 files WT atomic DSYNC" },
	{ "buf-dsync-4t1f", "4 threads one file buffered DSYNC" },
	{ "buf-dsync-4t4f", "4 threads 4 files buffered DSYNC" },
};

static int latencies[8], nlat;

static void collect_latencies(void)
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

static double ratio_to_dio(const char *kernel, const char *bench, int ndelay)
{
	struct stat3 a = agg(kernel, bench, ndelay, false, OPS);
	struct stat3 d = agg(kernel, dio_of(bench), ndelay, false, OPS);

	/* No DIO run of the same shape: no ratio, never one to QD1. */
	return a.n && d.n ? a.med / d.med : NAN;
}

static void perf_row(const char *kernel, const char *bench, int ndelay)
{
	struct stat3 s[NR_METRICS];
	char b[8][16];
	int m;

	for (m = 0; m < NR_METRICS; m++)
		s[m] = agg(kernel, bench, ndelay, false, m);
	fprintf(out, "%-15.15s %c %3d %7s %7s %7s %7s %5s %6s %5s\n", bench,
		kernel_letter(kernel), ndelay / 1000, num(s[OPS].med, b[0]),
		num(s[P50].med, b[1]), num(s[P99].med, b[2]), num(s[P999].med, b[3]),
		num(s[DEVW].med + (isnan(s[DEVF].med) ? 0 : s[DEVF].med), b[4]),
		num(s[CPU].med, b[5]), num(ratio_to_dio(kernel, bench, ndelay), b[6]));
	fprintf(out, "%21s n=%d [%s..", "", s[OPS].n, num(s[OPS].min, b[0]));
	fprintf(out, "%s] p50 [%s..", num(s[OPS].max, b[1]), num(s[P50].min, b[2]));
	fprintf(out, "%s] p99 [%s..", num(s[P50].max, b[3]), num(s[P99].min, b[4]));
	fprintf(out, "%s]\n", num(s[P99].max, b[5]));
}

static void section_perf(void)
{
	unsigned int w;
	int k, l;

	hr("Performance (median of the rounds; [min..max] on the second line)");
	fprintf(out, "Kernels: ");
	for (k = 0; k < nkernels; k++)
		fprintf(out, "%c=%s ", kernel_letter(kernels[k]), kernels[k]);
	fprintf(out, "\nlat: device latency (us). ops/s per workload (all threads).\n"
		"p50/p99/p99.9: per-write latency, us (with its fdatasync if one\n"
		"follows). cmd/w: device writes + flushes per write. cpu/w: guest CPU\n"
		"us per write (both vCPUs). xDIO: ops/s / DIO atomic ops/s of the same\n"
		"shape on the same kernel in the same boots.\n");
	fprintf(out, "%-15s %c %3s %7s %7s %7s %7s %5s %6s %5s\n", "workload", 'k', "lat",
		"ops/s", "p50", "p99", "p99.9", "cmd/w", "cpu/w", "xDIO");
	for (w = 0; w < sizeof(wls) / sizeof(wls[0]); w++) {
		for (l = 0; l < nlat; l++) {
			char nas[200] = "";
			bool any = false;

			for (k = 0; k < nkernels; k++) {
				const struct sample *x;

				if (agg(kernels[k], wls[w].bench, latencies[l], false, OPS).n) {
					perf_row(kernels[k], wls[w].bench, latencies[l]);
					any = true;
				} else if ((x = why_not(kernels[k], wls[w].bench,
							latencies[l], false))) {
					size_t n = strlen(nas);

					snprintf(nas + n, sizeof(nas) - n, "%s%c", n ? "," : "",
						 kernel_letter(kernels[k]));
				}
			}
			if (nas[0] && any)
				fprintf(out, "%21s (n/a on %s: flags refused)\n", "", nas);
			else if (nas[0])
				fprintf(out, "%-15.15s - %3d n/a on %s (flags refused)\n",
					wls[w].bench, latencies[l] / 1000, nas);
		}
	}
	fprintf(out, "Workloads: ");
	for (w = 0; w < sizeof(wls) / sizeof(wls[0]); w++) {
		bool seen = false;

		for (int i = 0; i < nsamples; i++)
			if (!samples[i].fio && !strcmp(samples[i].bench, wls[w].bench))
				seen = true;
		if (seen)
			fprintf(out, "\n  %-16s %s", wls[w].bench, wls[w].desc);
	}
	fprintf(out, "\nn/a reasons (first seen):\n");
	for (k = 0; k < nkernels; k++) {
		char seen[1024] = "";

		for (int i = 0; i < nsamples; i++) {
			const struct sample *x = &samples[i];

			if (strcmp(x->kernel, kernels[k]) || !strcmp(x->status, "ok") ||
			    x->fio || strstr(seen, x->reason))
				continue;
			if (strlen(seen) + strlen(x->reason) + 2 < sizeof(seen)) {
				strcat(seen, x->reason);
				strcat(seen, "|");
			}
			fprintf(out, "  %c %.74s\n", kernel_letter(kernels[k]), x->reason);
		}
	}
	if (!strcmp(env("SET"), "quick"))
		fprintf(out, "Quick subset: 0 us: durable workloads, threads, DIO; 20 us: every\n"
			"QD1 workload and io_uring QD32; 100 us: DIO and WT atomic QD1.\n"
			"scripts/compare --full runs all of them at 0, 20, 100 us plus QD16.\n");
}

/* ---------------------------------------------------------------- fio */

/*
 * One cross-check line: fio's xcheck-dio-plain against bench_io's
 * fio-xcheck-dio-plain at 0 us, metric m (OPS or P50), on one kernel or
 * pooled over every boot (kernel NULL).
 */
static void xcheck_line(const char *kernel, enum metric m)
{
	struct stat3 f = agg(kernel, "xcheck-dio-plain", 0, true, m);
	struct stat3 b = agg(kernel, "fio-xcheck-dio-plain", 0, false, m);
	double d = b.med / f.med - 1;
	char x[2][16], who[8] = "all";

	if (!f.n || !b.n)
		return;
	if (kernel)
		snprintf(who, sizeof(who), "%c", kernel_letter(kernel));
	fprintf(out, "  %-3s fio %6s, bench_io %6s %-6s (n=%d/%d): %+6.1f %% %s\n",
		who, num(f.med, x[0]), num(b.med, x[1]), m == OPS ? "ops/s" : "us p50",
		f.n, b.n, d * 100, fabs(d) <= 0.10 ? "agree" : "DISAGREE");
	fprintf(js, "{\"xcheck\":\"%s\",\"metric\":\"%s\",\"fio\":%.1f,\"bench_io\":%.1f,\"n_fio\":%d,\"n_bench_io\":%d},\n",
		kernel ? kernel : "all", metric_name[m], f.med, b.med, f.n, b.n);
}

static void section_fio(void)
{
	static const char *const names[] = {
		"xcheck-dio-plain", "buf-fsync", "buf-dsync", "pga-fsync1", "pga-fsync64",
		"buf-dsync-4t1f",
	};
	unsigned int i;
	int k, l;

	hr("fio 3.33 (the workloads it can express) and the cross-check");
	fprintf(out, "fio cannot pass RWF_WRITETHROUGH, nor RWF_ATOMIC with O_DIRECT;\n"
		"pga-* use uncached=1 with direct=0, i.e. flag 0x40 = RWF_ATOMIC on\n"
		"6.11+ (fio calls it RWF_UNCACHED). buf-dsync opens O_DSYNC, where\n"
		"bench_io passes RWF_DSYNC. fio writes bench_io's own file. Only the\n"
		"xcheck row runs one workload the same way in both programs; in the\n"
		"other rows 'differ' includes fio's own cost (its fdatasync is an\n"
		"I/O unit of its own) and is not judged.\n");
	fprintf(out, "%-15s %c %3s %8s %8s %8s %9s %7s\n", "fio job", 'k', "lat", "ops/s",
		"clat p50", "clat p99", "bench_io", "differ");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (l = 0; l < nlat; l++)
			for (k = 0; k < nkernels; k++) {
				struct stat3 f = agg(kernels[k], names[i], latencies[l], true, OPS);
				struct stat3 p50 = agg(kernels[k], names[i], latencies[l], true, P50);
				struct stat3 p99 = agg(kernels[k], names[i], latencies[l], true, P99);
				struct stat3 b = agg(kernels[k], i ? names[i] : "fio-xcheck-dio-plain",
						     latencies[l], false, OPS);
				char x[6][16];

				if (!f.n) {
					if (why_not(kernels[k], names[i], latencies[l], true))
						fprintf(out, "%-15s %c %3d n/a (fio error: flags refused)\n",
							names[i], kernel_letter(kernels[k]),
							latencies[l] / 1000);
					continue;
				}
				snprintf(x[5], sizeof(x[5]), "%+.0f%%",
					 b.n ? (f.med / b.med - 1) * 100 : NAN);
				fprintf(out, "%-15s %c %3d %8s %8s %8s %9s %7s\n", names[i],
					kernel_letter(kernels[k]), latencies[l] / 1000,
					num(f.med, x[0]), num(p50.med, x[1]), num(p99.med, x[2]),
					num(b.med, x[3]), b.n ? x[5] : "-");
			}
	fprintf(out, "Cross-check: fio vs bench_io, O_DIRECT plain 16 KiB writes QD1, 0 us,\n"
		"twice each per boot in the order fio bench bench fio, page cache\n"
		"dropped before each; the same DIO code on every kernel, so all\n"
		"boots pool too. Target: within 10 %%. ops/s includes each tool's\n"
		"own CPU between writes (TCG runs guest user code slowly); p50 is\n"
		"the write call alone (fio: clat).\n");
	xcheck_line(NULL, OPS);
	xcheck_line(NULL, P50);
	for (k = 0; k < nkernels; k++) {
		xcheck_line(kernels[k], OPS);
		xcheck_line(kernels[k], P50);
	}
}

/* ---------------------------------------------------------------- targets */

static int find_kernel_with(const char *bench, int ndelay)
{
	int k;

	for (k = 0; k < nkernels; k++)
		if (agg(kernels[k], bench, ndelay, false, OPS).n)
			return k;
	return -1;
}

static void target(const char *what, double have, double want, bool at_most,
		   const char *how)
{
	char b[16];
	const char *verdict = isnan(have) ? "not measured" :
		(at_most ? have <= want : have >= want) ? "met" : "NOT met";

	fprintf(out, "%-44.44s %6s %s%.2f  %s\n", what, isnan(have) ? "-" : (sprintf(b, "%.2f", have), b),
		at_most ? "<=" : ">=", want, verdict);
	fprintf(out, "  %s\n", how);
	fprintf(js, "{\"target\":\"%s\",\"value\":%.4f,\"want\":%.2f,\"at_most\":%s,\"verdict\":\"%s\"},\n",
		what, isnan(have) ? -1 : have, want, at_most ? "true" : "false", verdict);
}

static double lat_ratio(const char *a, const char *b, int ndelay, int *kk)
{
	int k = find_kernel_with(a, ndelay);

	*kk = k;
	if (k < 0)
		return NAN;
	return agg(kernels[k], a, ndelay, false, P50).med /
	       agg(kernels[k], b, ndelay, false, P50).med;
}

static double ops_ratio_k(const char *a, int ka, const char *b, int kb, int ndelay)
{
	if (ka < 0 || kb < 0)
		return NAN;
	return agg(kernels[ka], a, ndelay, false, OPS).med /
	       agg(kernels[kb], b, ndelay, false, OPS).med;
}

static void section_targets(void)
{
	int k, kp;
	double r;

	hr("Targets (ratios from this run; TCG; met / not met, never asserted)");
	r = lat_ratio("wt-atomic", "dio-atomic", 100000, &k);
	target("WT atomic QD1 p50 latency / DIO, 100 us", r, 1.15, true,
	       "wt-atomic vs dio-atomic, same kernel, same boots, 100 us");
	r = lat_ratio("wt-atomic", "dio-atomic", 20000, &k);
	target("WT atomic QD1 p50 latency / DIO, 20 us", r, 1.30, true,
	       "wt-atomic vs dio-atomic, same kernel, same boots, 20 us");
	k = find_kernel_with("wt-atomic-qd32", 20000);
	r = ops_ratio_k("wt-atomic-qd32", k, "dio-atomic-qd32", k, 20000);
	target("io_uring QD32 WT atomic ops/s / DIO atomic", r, 0.85, false,
	       "wt-atomic-qd32 vs dio-atomic-qd32, same kernel, 20 us");
	k = find_kernel_with("wt-dsync", 0);
	kp = find_kernel_with("pga-fsync1", 0);
	r = ops_ratio_k("wt-dsync", k, "pga-fsync1", kp, 0);
	target("WT|DSYNC ops/s / PG_atomic + fdatasync each", r, 1.5, false,
	       "wt-dsync (W) vs pga-fsync1 (P), interleaved boots, 0 us (flush free)");
	k = find_kernel_with("wt-dsync", 20000);
	kp = find_kernel_with("pga-fsync1", 20000);
	r = ops_ratio_k("wt-dsync", k, "pga-fsync1", kp, 20000);
	fprintf(out, "  (same at 20 us, flush 50 ms: %.1fx)\n", r);
	k = find_kernel_with("wt-dsync-4t1f", 0);
	r = ops_ratio_k("wt-dsync-4t1f", k, "buf-dsync-4t1f", k, 0);
	target("WT 4 threads one file / buffered RWF_DSYNC", r, 1.0, false,
	       "wt-dsync-4t1f vs buf-dsync-4t1f (both durable), same kernel, 0 us");
	k = find_kernel_with("wt-atomic-4t1f", 0);
	r = ops_ratio_k("wt-atomic-4t1f", k, "buf-dsync-4t1f", k, 0);
	fprintf(out, "  (WT atomic without DSYNC, 4 threads one file: %.2fx)\n", r);
}

/* ---------------------------------------------------------------- objections */

static void section_objections(void)
{
	char b[4][16];
	int kw = find_kernel_with("wt-atomic", 20000);
	int kp = find_kernel_with("pga-fsync64", 20000);

	hr("Upstream objections (digest L) a measurement speaks to");
	fprintf(out, "L3/L11 dirty data changed before writeback: rows 'plain overwrite\n"
		"       keeps', 'mmap store keeps' above; after a power cut: the\n"
		"       *-overwrite and *-mmap rows of the power-cut table.\n");
	fprintf(out, "L4  correct needs a flush anyway: WT|DSYNC vs PG_atomic+fdatasync\n"
		"       ops/s, Targets; pga-fsync1 cmd/w vs wt-dsync cmd/w in the table.\n");
	if (kp >= 0) {
		struct stat3 p = agg(kernels[kp], "pga-fsync64", 20000, false, DEVW);
		struct stat3 q = agg(kernels[kp], "buf-fsync", 20000, false, DEVW);

		fprintf(out, "L5  writeback merging: row 'adjacent units merged'; pga-fsync64\n"
			"       %s device writes per write (buf-fsync %s), 20 us.\n",
			num(p.med, b[0]), num(q.med, b[1]));
	} else {
		fprintf(out, "L5  writeback merging: row 'adjacent units merged' (pga-fsync64\n"
			"       not measured in this run).\n");
	}
	if (kw >= 0) {
		struct stat3 a = agg(kernels[kw], "wt-atomic", 20000, false, P50);
		struct stat3 d = agg(kernels[kw], "dio-atomic", 20000, false, P50);
		struct stat3 p = agg(kernels[kw], "wt-plain", 20000, false, P50);

		fprintf(out, "L7  a copy is needed anyway: p50 at 20 us, WT atomic %s us, WT\n"
			"       plain %s us, DIO atomic %s us: write-through costs %.2fx DIO,\n"
			"       atomicity on top %.2fx (it pins the source pages; not isolated).\n",
			num(a.med, b[0]), num(p.med, b[2]), num(d.med, b[1]),
			p.med / d.med, a.med / p.med);
	}
	fprintf(out, "L9  short copies: row 'short copy impossible' (copy faults half-way).\n");
	fprintf(out, "L10 bs < ps: row 'bs < ps (1 KiB blocks)', 'memory/folio (src)'.\n");
	fprintf(out, "L2  page flags: 'page flags added (src)' and Cost in code.\n");
	fprintf(out, "L13 core iomap complexity: Cost in code, fs/iomap lines.\n");
	kw = find_kernel_with("wt-atomic-4t1f", 0);
	if (kw >= 0) {
		struct stat3 one = agg(kernels[kw], "wt-atomic-4t1f", 0, false, OPS);
		struct stat3 four = agg(kernels[kw], "wt-atomic-4t4f", 0, false, OPS);

		fprintf(out, "LSFMM -65%% with threads on one file: WT atomic 4 threads one file\n"
			"       %s ops/s vs 4 files %s ops/s (%s), 0 us.\n", num(one.med, b[0]),
			num(four.med, b[1]), four.n ? (sprintf(b[2], "%.2fx", one.med / four.med), b[2]) : "-");
	}
	fprintf(out, "Not measurable here: L1 (use case), L6 delalloc (WT allocates at the\n"
		"call: row 'on device at return'), L8, L12.\n");
}

/* ---------------------------------------------------------------- cost */

/* ---------------------------------------------------------------- power cut */

/*
 * RESULTS_DIR/powercut-VARIANT/results/powercut_*.tap: the summary lines of
 * powercut_check ("# powercut: config=NAME ... result=R"), one per
 * configuration and disk setup (the TAP file's name carries the setup).
 */
struct pcut {
	char kernel[32], config[32], disk[56], expect[8], result[8];
	unsigned long cuts, torn, lost, bad, acked, tailw, during;
};
#define MAX_PCUTS 256
static struct pcut pcuts[MAX_PCUTS];
static int npcuts;

static unsigned long kv_ul(const char *line, const char *key)
{
	char pat[40];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? strtoul(p + strlen(pat), NULL, 10) : 0;
}

static void kv_str(const char *line, const char *key, char *buf, size_t len)
{
	char pat[40];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	buf[0] = 0;
	if (!p)
		return;
	p += strlen(pat);
	n = strcspn(p, " \n");
	n = n < len - 1 ? n : len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
}

static const char *kib(unsigned long b, char *buf, size_t len)
{
	if (b >= 1024 && !(b % 1024))
		snprintf(buf, len, "%luK", b / 1024);
	else
		snprintf(buf, len, "%lu", b);
	return buf;
}

static void read_powercut(const char *kernel)
{
	char dir[1200], path[1600], line[1024], a[24], b[24];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/powercut-%s/results", resdir, kernel);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		FILE *f;

		if (strncmp(e->d_name, "powercut_", 9) || !strstr(e->d_name, ".tap"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f) && npcuts < MAX_PCUTS) {
			struct pcut *c = &pcuts[npcuts];

			if (strncmp(line, "# powercut: config=", 19))
				continue;
			memset(c, 0, sizeof(*c));
			scopy(c->kernel, sizeof(c->kernel), kernel);
			kv_str(line, "config", c->config, sizeof(c->config));
			kv_str(line, "expect", c->expect, sizeof(c->expect));
			kv_str(line, "result", c->result, sizeof(c->result));
			snprintf(c->disk, sizeof(c->disk), "%s/%s",
				 kib(kv_ul(line, "lbs"), a, sizeof(a)),
				 kib(kv_ul(line, "unit"), b, sizeof(b)));
			c->cuts = kv_ul(line, "cuts");
			c->torn = kv_ul(line, "torn");
			c->lost = kv_ul(line, "lost");
			c->bad = kv_ul(line, "bad");
			c->acked = kv_ul(line, "acked");
			c->tailw = kv_ul(line, "tailw");
			c->during = kv_ul(line, "during");
			if (strcmp(c->result, "skip") && c->config[0])
				npcuts++;
		}
		fclose(f);
	}
	closedir(d);
}

/* Atomic configurations first, then the not-judged ones, then controls. */
static int expect_rank(const char *e)
{
	return !strcmp(e, "untorn") ? 0 : !strcmp(e, "info") ? 1 : 2;
}

static int cmp_pcut(const void *pa, const void *pb)
{
	const struct pcut *x = pa, *y = pb;
	int c = expect_rank(x->expect) - expect_rank(y->expect);

	if (!c)
		c = strcmp(x->config, y->config);
	if (!c)
		c = strcmp(x->disk, y->disk);
	return c ? c : kernel_letter(x->kernel) - kernel_letter(y->kernel);
}

static void section_powercut(void)
{
	unsigned long worst_torn[MAX_KERNELS] = { 0 }, worst_lost[MAX_KERNELS] = { 0 };
	int i, k, nuntorn[MAX_KERNELS] = { 0 }, nfail = 0;

	for (k = 0; k < nkernels; k++)
		read_powercut(kernels[k]);
	hr("Power cut: torn and lost writes on a crash model (pcblk)");
	if (!npcuts) {
		fprintf(out, "not run (scripts/compare --powercut N, or --full: 200 cuts)\n");
		return;
	}
	qsort(pcuts, npcuts, sizeof(pcuts[0]), cmp_pcut);
	fprintf(out, "pcblk: RAM disk, volatile write cache, FUA, atomic unit up to 64 KiB;\n"
		"power cut at a seeded random point of each write stream, then XFS\n"
		"log recovery and a re-read of every unit (%s cuts per configuration,\n"
		"one boot per kernel, %s s in all).\n",
		env("POWERCUT_CUTS"), env("POWERCUT_WALL"));
	fprintf(out, "%-23s %-8s %c %5s %5s %5s %7s %6s %s\n", "configuration", "lbs/unit",
		'k', "cuts", "torn", "lost", "acked", "tails", "result");
	for (i = 0; i < npcuts; i++) {
		const struct pcut *c = &pcuts[i];
		char tails[24] = "-";
		bool bad = strcmp(c->result, "pass");

		if (c->tailw)
			snprintf(tails, sizeof(tails), "%lu", c->tailw);
		fprintf(out, "%-23s %-8s %c %5lu %5lu %5lu %7lu %6s %s%s\n", c->config,
			c->disk, kernel_letter(c->kernel), c->cuts, c->torn, c->lost, c->acked,
			tails, bad ? "FAIL" : !strcmp(c->expect, "info") ? "info" :
			!strcmp(c->expect, "torn") ? "control" : "pass",
			c->bad ? " (bad units)" : "");
		nfail += bad;
		for (k = 0; k < nkernels; k++)
			if (!strcmp(kernels[k], c->kernel) && !strcmp(c->expect, "untorn")) {
				nuntorn[k]++;
				worst_torn[k] += c->torn;
				worst_lost[k] += c->lost;
			}
		fprintf(js, "{\"powercut\":\"%s\",\"kernel\":\"%s\",\"disk\":\"%s\",\"cuts\":%lu,\"torn\":%lu,\"lost\":%lu,\"bad\":%lu,\"acked\":%lu,\"tail_writes\":%lu,\"tail_during\":%lu,\"expect\":\"%s\",\"result\":\"%s\"},\n",
			c->config, c->kernel, c->disk, c->cuts, c->torn, c->lost, c->bad,
			c->acked, c->tailw, c->during, c->expect, c->result);
	}
	fprintf(out, "torn: units not wholly one write (mixed cases, *-overwrite and\n"
		"*-mmap: the head, which only atomic writes touch; 'tails' plain\n"
		"writes or stores changed the last quarter meanwhile). lost: units\n"
		"older than their last acknowledged-durable write. result: pass =\n"
		"0 torn, 0 lost; control = plain writes, must tear; info = not\n"
		"judged (the writeback-time design drops atomicity on overwrite by\n"
		"design). Configurations a kernel refuses are left out.\n");
	for (k = 0; k < nkernels; k++)
		if (nuntorn[k])
			fprintf(out, "%c: %d atomic configurations, %lu torn, %lu lost\n",
				kernel_letter(kernels[k]), nuntorn[k], worst_torn[k], worst_lost[k]);
	if (nfail)
		fprintf(out, "%d configuration(s) FAILED: see powercut-*/results/*.tap\n", nfail);
}

static void subsys_of(const char *path, char *buf, size_t len)
{
	const char *s1 = strchr(path, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;

	if (!s1) {
		snprintf(buf, len, "%s", path);
	} else if (!strncmp(path, "fs/", 3) || !strncmp(path, "include/", 8)) {
		if (s2 && !strncmp(path, "include/uapi/", 13))
			snprintf(buf, len, "uapi");
		else if (s2)
			snprintf(buf, len, "%.*s", (int)(s2 - path), path);
		else
			snprintf(buf, len, "%.*s", (int)(s1 - path), path);
	} else {
		snprintf(buf, len, "%.*s", (int)(s1 - path), path);
	}
}

static void read_series(const char *name)
{
	char dir[1024], path[1400], line[4096], cur[256] = "", sub[24] = "";
	struct cost *c = &costs[ncosts];
	struct dirent **ents;
	int n, i, j, si = -1;

	snprintf(dir, sizeof(dir), "%s/series-%s", root, name);
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return;
	memset(c, 0, sizeof(*c));
	scopy(c->series, sizeof(c->series), name);
	for (i = 0; i < n; i++) {
		FILE *f;
		bool in_pf = false;

		if (!isdigit((unsigned char)ents[i]->d_name[0]) ||
		    !strncmp(ents[i]->d_name, "0000", 4) ||
		    !strstr(ents[i]->d_name, ".patch"))
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		f = fopen(path, "r");
		if (!f)
			goto next;
		while (fgets(line, sizeof(line), f)) {
			int bits;

			if (!strncmp(line, "diff --git a/", 13)) {
				sscanf(line + 13, "%255s", cur);
				subsys_of(cur, sub, sizeof(sub));
				for (si = 0; si < c->nsub; si++)
					if (!strcmp(c->subsys[si], sub))
						break;
				if (si == c->nsub && c->nsub < 16)
					scopy(c->subsys[c->nsub++], 24, sub);
				if (si < 16)
					c->files[si]++;
				in_pf = strstr(cur, "page-flags.h") != NULL;
				continue;
			}
			if (si < 0 || si >= 16 || !strncmp(line, "+++", 3) ||
			    !strncmp(line, "---", 3))
				continue;
			if (line[0] == '+')
				c->add[si]++;
			else if (line[0] == '-')
				c->del[si]++;
			if (line[0] == '+' && in_pf) {
				char flag[32];

				if (sscanf(line + 1, " PG_%31[a-z_0-9],", flag) == 1 &&
				    !strstr(c->pageflags, flag) &&
				    strlen(c->pageflags) + strlen(flag) + 5 < sizeof(c->pageflags)) {
					if (c->pageflags[0])
						strcat(c->pageflags, ",");
					strcat(c->pageflags, "PG_");
					strcat(c->pageflags, flag);
				}
			}
			if (strstr(line, "BITS_TO_LONGS(") &&
			    sscanf(strstr(line, "BITS_TO_LONGS(") + 14, "%d * nr_blocks", &bits) == 1) {
				if (line[0] == '-')
					c->ifs_bits_old = bits;
				else if (line[0] == '+')
					c->ifs_bits_new = bits;
			}
			if (line[0] == '+' && strstr(cur, "include/linux/fs.h")) {
				char type[32], field[64];

				if (sscanf(line + 1, " %31[a-z_0-9] %63[a-z_0-9];", type, field) == 2 &&
				    strchr(line, ';') && !strchr(line, '(') &&
				    strlen(c->mapping_fields) + strlen(field) + 40 <
					    sizeof(c->mapping_fields)) {
					j = strlen(c->mapping_fields);
					snprintf(c->mapping_fields + j, sizeof(c->mapping_fields) - j,
						 "%s%s %s", j ? ", " : "", type, field);
				}
			}
		}
		fclose(f);
next:
		free(ents[i]);
	}
	free(ents);
	ncosts++;
}

static void section_cost(void)
{
	int i;

	hr("Cost in code (from series-*/ patches of this tree)");
	for (i = 0; i < ncosts; i++) {
		struct cost *c = &costs[i];
		int ta = 0, td = 0, j;

		for (j = 0; j < c->nsub; j++) {
			ta += c->add[j];
			td += c->del[j];
		}
		fprintf(out, "series-%s: +%d -%d lines\n", c->series, ta, td);
		for (j = 0; j < c->nsub; j++)
			fprintf(out, "  %-18s %2d files  +%-5d -%d\n", c->subsys[j], c->files[j],
				c->add[j], c->del[j]);
		fprintf(out, "  page flags added: %s\n", c->pageflags[0] ? c->pageflags : "none");
		if (c->ifs_bits_new)
			fprintf(out, "  folio state: iomap_folio_state bitmap %d -> %d bits per\n"
				"    block (+%d bits per fs block of every folio with an ifs)\n",
				c->ifs_bits_old, c->ifs_bits_new,
				c->ifs_bits_new - c->ifs_bits_old);
		else
			fprintf(out, "  folio state: no iomap_folio_state bits added\n");
		if (c->mapping_fields[0])
			fprintf(out, "  new fields in include/linux/fs.h: %.50s\n", c->mapping_fields);
		fprintf(js, "{\"cost\":\"%s\",\"added\":%d,\"deleted\":%d,\"page_flags\":\"%s\",\"ifs_bits_per_block\":%d},\n",
			c->series, ta, td, c->pageflags, c->ifs_bits_new - c->ifs_bits_old);
	}
}

/* ---------------------------------------------------------------- json, plots */

static void write_json_samples(void)
{
	unsigned int w;
	int k, l, m;

	for (w = 0; w < sizeof(wls) / sizeof(wls[0]); w++)
		for (l = 0; l < nlat; l++)
			for (k = 0; k < nkernels; k++) {
				struct stat3 s = agg(kernels[k], wls[w].bench, latencies[l], false, OPS);
				const struct sample *x;

				if (!s.n) {
					x = why_not(kernels[k], wls[w].bench, latencies[l], false);
					if (x)
						fprintf(js, "{\"workload\":\"%s\",\"kernel\":\"%s\",\"ndelay_ns\":%d,\"status\":\"n/a\",\"reason\":\"%s\"},\n",
							wls[w].bench, kernels[k], latencies[l], x->reason);
					continue;
				}
				fprintf(js, "{\"workload\":\"%s\",\"kernel\":\"%s\",\"ndelay_ns\":%d,\"status\":\"ok\",\"runs\":%d",
					wls[w].bench, kernels[k], latencies[l], s.n);
				for (m = 0; m < NR_METRICS; m++) {
					struct stat3 t = agg(kernels[k], wls[w].bench, latencies[l], false, m);

					fprintf(js, ",\"%s\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f}",
						metric_name[m], isnan(t.med) ? -1 : t.med,
						isnan(t.min) ? -1 : t.min, isnan(t.max) ? -1 : t.max);
				}
				fprintf(js, ",\"x_dio\":%.4f},\n",
					isnan(ratio_to_dio(kernels[k], wls[w].bench, latencies[l])) ? -1 :
					ratio_to_dio(kernels[k], wls[w].bench, latencies[l]));
			}
	for (k = 0; k < nprobes; k++)
		fprintf(js, "{\"probe\":\"%s\",\"kernel\":\"%s\",\"mode\":\"%s\",\"bs\":%d,\"lbs\":%d,\"result\":\"%s\",\"detail\":\"%s\"},\n",
			probes[k].id, probes[k].kernel, probes[k].mode, probes[k].bs,
			probes[k].lbs, probes[k].result, probes[k].detail);
}

static void write_plots(void)
{
	static const char *const cdf_w[] = { "dio-atomic", "wt-atomic", "wt-plain",
					     "buf-dsync", "pga-fsync64" };
	char path[1200];
	FILE *gp, *dat;
	int l, k;
	unsigned int i;

	/* Nothing was benchmarked (--rounds 0): no plot to draw. */
	if (!nsamples)
		return;
	snprintf(path, sizeof(path), "%s/plots", resdir);
	mkdir(path, 0755);
	/* Latency CDFs, round 1, per device latency. */
	for (l = 0; l < nlat; l++) {
		bool first = true;

		snprintf(path, sizeof(path), "%s/plots/cdf-%d.gp", resdir, latencies[l]);
		gp = fopen(path, "w");
		if (!gp)
			die("%s", path);
		fprintf(gp, "set terminal pngcairo size 900,600\nset output '%s/plots/cdf-%dns.png'\n"
			"set title 'QD1 write latency CDF, device latency %d us (round 1, %s)'\n"
			"set logscale x\nset xlabel 'latency (us)'\nset ylabel 'fraction of writes'\n"
			"set key bottom right\nset grid\n", resdir, latencies[l], latencies[l] / 1000,
			env("ACCEL"));
		for (i = 0; i < sizeof(cdf_w) / sizeof(cdf_w[0]); i++)
			for (k = 0; k < nkernels; k++) {
				struct stat st;

				snprintf(path, sizeof(path), "%s/r1-%s/results/cdf-%s-%d.txt", resdir,
					 kernels[k], cdf_w[i], latencies[l]);
				if (stat(path, &st) || !agg(kernels[k], cdf_w[i], latencies[l], false, OPS).n)
					continue;
				fprintf(gp, "%s '%s' using 2:1 with lines title '%s (%s)'",
					first ? "plot" : ", \\\n    ", path, cdf_w[i], kernels[k]);
				first = false;
			}
		if (first)
			fprintf(gp, "set label 'no data' at graph 0.5,0.5\nplot 0 notitle\n");
		fputc('\n', gp);
		fclose(gp);
	}
	/* ops/s vs queue depth, 20 us. */
	snprintf(path, sizeof(path), "%s/plots/qd.dat", resdir);
	dat = fopen(path, "w");
	if (!dat)
		die("%s", path);
	fprintf(dat, "# qd dio-atomic wt-atomic wt-plain (ops/s, median, 20 us)\n");
	{
		static const int qds[] = { 1, 16, 32 };

		for (i = 0; i < 3; i++) {
			static const char *const b[] = { "dio-atomic", "wt-atomic", "wt-plain" };
			int j;

			fprintf(dat, "%d", qds[i]);
			for (j = 0; j < 3; j++) {
				char name[48];
				double v = NAN;

				if (qds[i] == 1)
					scopy(name, sizeof(name), b[j]);
				else
					snprintf(name, sizeof(name), "%s-qd%d", b[j], qds[i]);
				for (k = 0; k < nkernels && isnan(v); k++) {
					struct stat3 s = agg(kernels[k], name, 20000, false, OPS);

					/* DIO on the write-through kernel when it has WT. */
					if (s.n && (j || find_kernel_with("wt-atomic", 20000) < 0 ||
						    k == find_kernel_with("wt-atomic", 20000)))
						v = s.med;
				}
				fprintf(dat, isnan(v) ? " NaN" : " %.1f", v);
			}
			fputc('\n', dat);
		}
	}
	fclose(dat);
	snprintf(path, sizeof(path), "%s/plots/qd.gp", resdir);
	gp = fopen(path, "w");
	if (!gp)
		die("%s", path);
	fprintf(gp, "set terminal pngcairo size 900,600\nset output '%s/plots/ops-vs-qd.png'\n"
		"set title 'ops/s vs queue depth (io_uring), device latency 20 us, %s'\n"
		"set xlabel 'queue depth'\nset ylabel 'writes/s'\nset logscale x 2\nset grid\n"
		"set datafile missing 'NaN'\nset key top left\n"
		"plot '%s/plots/qd.dat' using 1:2 with linespoints title 'DIO atomic', \\\n"
		"     '' using 1:3 with linespoints title 'WT atomic', \\\n"
		"     '' using 1:4 with linespoints title 'WT plain'\n", resdir, env("ACCEL"), resdir);
	fclose(gp);
}

int main(int argc, char **argv)
{
	char path[1200];

	if (argc != 3) {
		fprintf(stderr, "usage: report RESULTS_DIR REPO_ROOT\n");
		return 2;
	}
	resdir = argv[1];
	root = argv[2];
	read_env();
	read_runs();
	collect_latencies();
	snprintf(path, sizeof(path), "%s/report.txt", resdir);
	out = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/results.json", resdir);
	js = fopen(path, "w");
	if (!out || !js)
		die("cannot write in %s", resdir);
	fprintf(js, "{\"env\":{");
	for (int i = 0; i < nenv; i++)
		fprintf(js, "%s\"%s\":\"%s\"", i ? "," : "", env_k[i], env_v[i]);
	fprintf(js, "},\n\"items\":[\n");
	read_series("base");
	read_series("writethrough");
	read_series("pgatomic");
	section_env();
	if (nsamples || nprobes) {
		section_matrix();
		section_perf();
		section_targets();
		section_objections();
		section_fio();
	} else {
		fprintf(out, "\n(no benchmark rounds in this run: --rounds 0)\n");
	}
	section_powercut();
	section_cost();
	write_json_samples();
	fprintf(js, "{\"end\":true}]}\n");
	fclose(js);
	fclose(out);
	write_plots();
	return 0;
}
