// SPDX-License-Identifier: GPL-2.0
/*
 * bench_pair: two bench_io workloads measured as pairs of short slices, for
 * the ratios scripts/compare's targets print.
 *
 *	bench_pair NAME DIR [--pairs N] [--secs S] [--seed X]
 *		   --a NAME_A OPTIONS... --b NAME_B OPTIONS...
 * (bench_pair's own options come before --a: what follows --a and --b is
 * bench_io's)
 *
 * Runs two bench_io processes (from PATH) side by side, A on the files
 * DIR/pa.N and B on DIR/pb.N, each set up once in slice mode (bench_io
 * --slices) and then driven a slice at a time: one unrecorded warm-up slice
 * of each, then N pairs (default 20) of one slice of A and one of B, S
 * seconds each (default 0.5), the order of the two shuffled so that half
 * the pairs (N even) run A first (seeded by --seed, or by the clock; the
 * seed is printed); which side sets its files up first follows the seed
 * too. Every slice ends with 50 ms of quiet before the next starts, so
 * that work a slice leaves behind (an io_uring ring's teardown, a
 * completion worker) is not charged to the other side. The two
 * workloads thus share the boot, the file system and whatever the host is
 * doing, slice by slice; each pair gives one ratio A/B of ops/s and of the
 * median latency, free of the drift between rounds and boots that a ratio
 * of two separate runs carries. The A/A check is a workload paired with
 * itself.
 *
 * Prints one JSON line: "status" ok with how the page cache held each
 * side's files when it got ready (mean folio size, share of pages in
 * large folios; -1 for O_DIRECT, whose files are not cached) and
 * "slices", one object per pair (which ran first, and each side's ops/s,
 * p50 and CPU per write); "n/a"
 * with the reason when the kernel refuses either workload (bench_io's
 * trial write); "error" when a side failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 1000
#define MAX_ARGS 32

struct side {
	const char *name;
	char *argv[MAX_ARGS + 8];
	pid_t pid;
	FILE *in, *out;		/* its stdin (we write), its stdout (we read) */
	char line[4096];
	double folio_kib, folio_large;	/* the ready line's page-cache figures */
};

struct slice {
	double ops_s, p50, cpu;
	double rd_p99;		/* bench_io --reader: its reader's p99, else -1 */
};

static const char *pair_name;

static void json_str(const char *k, const char *v)
{
	printf("\"%s\":\"", k);
	for (; *v; v++)
		putchar(*v == '"' || *v == '\\' ? '\'' : *v == '\n' ? ' ' : *v);
	printf("\"");
}

static void finish(const char *status, const char *why, struct side *s)
{
	printf("{\"pair\":\"%s\",", pair_name);
	json_str("status", status);
	printf(",");
	json_str("reason", why);
	if (s) {
		printf(",");
		json_str("side", s->name);
		printf(",");
		json_str("line", s->line);
	}
	printf("}\n");
	exit(strcmp(status, "error") ? 0 : 1);
}

static void start(struct side *s, const char *prefix, const char *secs)
{
	int to[2], from[2], n = 0;

	while (s->argv[n])
		n++;
	s->argv[n++] = "--prefix";
	s->argv[n++] = (char *)prefix;
	s->argv[n++] = "--slices";
	s->argv[n++] = "--secs";
	s->argv[n++] = (char *)secs;
	s->argv[n++] = "--ops";
	s->argv[n++] = "1000000";
	s->argv[n] = NULL;
	if (pipe(to) || pipe(from))
		finish("error", "pipe", NULL);
	s->pid = fork();
	if (s->pid < 0)
		finish("error", "fork", NULL);
	if (!s->pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		execvp("bench_io", s->argv);
		printf("{\"status\":\"error\",\"reason\":\"exec bench_io: %s\"}\n",
		       strerror(errno));
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	s->in = fdopen(to[1], "w");
	s->out = fdopen(from[0], "r");
	if (!s->in || !s->out)
		finish("error", "fdopen", NULL);
}

/* The next line of side s into s->line; a side that stops is an error. */
static void next_line(struct side *s)
{
	if (!fgets(s->line, sizeof(s->line), s->out)) {
		snprintf(s->line, sizeof(s->line), "(no output)");
		finish("error", "bench_io stopped", s);
	}
	s->line[strcspn(s->line, "\n")] = 0;
}

static double field(const char *line, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(line, k);
	return p ? strtod(p + strlen(k), NULL) : -1;
}

/* The ready line, or why not: n/a ends the pair as n/a, anything else as error. */
static void wait_ready(struct side *s)
{
	const char *r;

	next_line(s);
	if (strstr(s->line, "\"status\":\"ready\"")) {
		s->folio_kib = field(s->line, "folio_kib_mean");
		s->folio_large = field(s->line, "folio_large_share");
		return;
	}
	if (strstr(s->line, "\"status\":\"n/a\"")) {
		static char why[512];

		r = strstr(s->line, "\"reason\":\"");
		snprintf(why, sizeof(why), "%s: %.*s", s->name, r ? (int)strcspn(r + 10, "\"") : 0,
			 r ? r + 10 : "");
		finish("n/a", why, NULL);
	}
	finish("error", "bench_io did not get ready", s);
}

static struct slice run_slice(struct side *s)
{
	struct slice r;

	/* quiet: what the previous slice left behind finishes first */
	usleep(50000);
	if (fputs("go\n", s->in) == EOF || fflush(s->in))
		finish("error", "writing to bench_io", s);
	next_line(s);
	if (!strstr(s->line, "\"slice\":"))
		finish("error", "bench_io's slice failed", s);
	r.ops_s = field(s->line, "ops_s");
	r.p50 = field(s->line, "p50_us");
	r.cpu = field(s->line, "cpu_us_op");
	r.rd_p99 = field(s->line, "rd_p99_us");
	if (r.ops_s <= 0 || r.p50 <= 0)
		finish("error", "a slice without figures", s);
	return r;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_pair NAME DIR [--pairs N] [--secs S] [--seed X]\n"
		"  --a NAME_A BENCH_IO_OPTIONS... --b NAME_B BENCH_IO_OPTIONS...\n");
	exit(2);
}

/* argv[i..] up to "--b" (or the end) into s: bench_io NAME DIR OPTIONS... */
static int take(struct side *s, char **argv, int i, int argc, const char *dir)
{
	int n = 0;

	if (i >= argc)
		usage();
	s->name = argv[i];
	s->argv[n++] = "bench_io";
	s->argv[n++] = argv[i++];
	s->argv[n++] = (char *)dir;
	for (; i < argc && strcmp(argv[i], "--b"); i++) {
		if (n >= MAX_ARGS)
			usage();
		s->argv[n++] = argv[i];
	}
	s->argv[n] = NULL;
	return i;
}

int main(int argc, char **argv)
{
	static struct slice sa[MAX_PAIRS], sb[MAX_PAIRS];
	static bool a_first[MAX_PAIRS];
	struct side a = { 0 }, b = { 0 };
	const char *dir, *nd = getenv("ATW_NDELAY");
	char secs[32] = "0.5";
	uint64_t seed = 0, x;
	int i, pairs = 20;

	if (argc < 3)
		usage();
	pair_name = argv[1];
	dir = argv[2];
	for (i = 3; i < argc;) {
		if (!strcmp(argv[i], "--a")) {
			i = take(&a, argv, i + 1, argc, dir);
		} else if (!strcmp(argv[i], "--b")) {
			i = take(&b, argv, i + 1, argc, dir);
		} else if (i + 1 < argc && !strcmp(argv[i], "--pairs")) {
			pairs = atoi(argv[i + 1]);
			i += 2;
		} else if (i + 1 < argc && !strcmp(argv[i], "--secs")) {
			snprintf(secs, sizeof(secs), "%.3f", atof(argv[i + 1]));
			i += 2;
		} else if (i + 1 < argc && !strcmp(argv[i], "--seed")) {
			seed = strtoull(argv[i + 1], NULL, 0);
			i += 2;
		} else {
			usage();
		}
	}
	if (!a.name || !b.name || pairs < 1 || pairs > MAX_PAIRS || atof(secs) <= 0 ||
	    (nd && strspn(nd, "0123456789") != strlen(nd)))
		usage();
	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)ts.tv_sec;
	}
	seed |= 1;
	x = seed;
	signal(SIGPIPE, SIG_IGN);

	/* one after the other (their set-ups must not overlap), either first */
	if (seed & 2) {
		start(&b, "pb", secs);
		wait_ready(&b);
	}
	start(&a, "pa", secs);
	wait_ready(&a);
	if (!(seed & 2)) {
		start(&b, "pb", secs);
		wait_ready(&b);
	}
	run_slice(&a);		/* warm-up, not recorded */
	run_slice(&b);
	/* half the pairs A first, shuffled (Fisher-Yates) */
	for (i = 0; i < pairs; i++)
		a_first[i] = i < pairs / 2 || (i == pairs / 2 && pairs % 2 && (rnd(&x) & 1));
	for (i = pairs - 1; i > 0; i--) {
		int j = rnd(&x) % (i + 1);
		bool t = a_first[i];

		a_first[i] = a_first[j];
		a_first[j] = t;
	}
	for (i = 0; i < pairs; i++) {
		if (a_first[i]) {
			sa[i] = run_slice(&a);
			sb[i] = run_slice(&b);
		} else {
			sb[i] = run_slice(&b);
			sa[i] = run_slice(&a);
		}
	}
	fclose(a.in);
	fclose(b.in);
	waitpid(a.pid, NULL, 0);
	waitpid(b.pid, NULL, 0);

	printf("{\"pair\":\"%s\",\"status\":\"ok\",\"a\":\"%s\",\"b\":\"%s\","
	       "\"ndelay\":\"%s\",\"secs\":%s,\"pairs\":%d,\"seed\":%llu,\"first_set_up\":\"%c\","
	       "\"a_folio_kib_mean\":%.1f,\"a_folio_large_share\":%.3f,"
	       "\"b_folio_kib_mean\":%.1f,\"b_folio_large_share\":%.3f,\"slices\":[",
	       pair_name, a.name, b.name, nd ? nd : "", secs, pairs, (unsigned long long)seed,
	       seed & 2 ? 'b' : 'a', a.folio_kib, a.folio_large, b.folio_kib, b.folio_large);
	for (i = 0; i < pairs; i++) {
		printf("%s{\"first\":\"%c\",\"a_ops_s\":%.1f,\"a_p50_us\":%.1f,\"a_cpu_us_op\":%.1f,"
		       "\"b_ops_s\":%.1f,\"b_p50_us\":%.1f,\"b_cpu_us_op\":%.1f",
		       i ? "," : "", a_first[i] ? 'a' : 'b', sa[i].ops_s, sa[i].p50, sa[i].cpu,
		       sb[i].ops_s, sb[i].p50, sb[i].cpu);
		/* both sides with --reader: the readers' p99 */
		if (sa[i].rd_p99 > 0 && sb[i].rd_p99 > 0)
			printf(",\"a_rd_p99_us\":%.1f,\"b_rd_p99_us\":%.1f", sa[i].rd_p99,
			       sb[i].rd_p99);
		printf("}");
	}
	printf("]}\n");
	return 0;
}
