// SPDX-License-Identifier: GPL-2.0
/*
 * bench_disk_cost: what the emulated disk charges per command, measured
 * without sampling, while one bench_io workload runs.
 *
 *	bench_disk_cost NAME DIR BENCH_IO_OPTIONS... --secs S
 *
 * A kprobe and a kretprobe on scsi_debug's schedule_resp (where the module
 * does a command's work: the response function, the data copy into its
 * store, and the completion or the hrtimer that delays it) record, in a
 * trace instance of their own (bench_io's device counter uses the top
 * one), the entry and return of every call during one timed slice of the
 * workload (bench_io --slices: set up before the probes go on); paired per
 * CPU they give the wall time of each call. The median and mean over the run, and the number
 * of calls per write, go to one JSON line; so the report can say whether a
 * write-through command costs the disk what a direct one does, which a
 * profile cannot say for sure (perf's cpu-clock charges time spent in
 * interrupts to whatever they interrupted). Prints a line with "n/a" and
 * the reason where there is no kprobe support or no scsi_debug.
 */
#include "lib/kfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define INST TRACEFS "/instances/atw_disk_cost"
#define MAX_CPUS 64
#define MAX_CALLS (1 << 20)

static const char *name;

static void na(const char *why, int err)
{
	printf("{\"disk_cost\":\"%s\",\"status\":\"n/a\",\"reason\":\"%s%s%s\"}\n", name, why,
	       err ? ": " : "", err ? strerror(err) : "");
	exit(0);
}

static void probes_off(void)
{
	kf_write(INST "/events/kprobes/atw_sr_in/enable", "0", 0);
	kf_write(INST "/events/kprobes/atw_sr_out/enable", "0", 0);
	rmdir(INST);
	kf_write(TRACEFS "/kprobe_events", "-:atw_sr_in", O_APPEND);
	kf_write(TRACEFS "/kprobe_events", "-:atw_sr_out", O_APPEND);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "[001] ... 123.456789: atw_sr_in:" -> cpu, time in ns, in or out. */
static int parse(const char *l, int *cpu, uint64_t *ns, int *in)
{
	const char *b = strchr(l, '['), *c;
	unsigned long long sec, usec;

	if (!b || sscanf(b + 1, "%d", cpu) != 1 || *cpu < 0 || *cpu >= MAX_CPUS)
		return -1;
	c = strstr(l, ": atw_sr_");
	if (!c)
		return -1;
	*in = !strncmp(c + 9, "in", 2);
	/* the timestamp ends just before c */
	while (c > b && c[-1] != ' ')
		c--;
	if (sscanf(c, "%llu.%llu", &sec, &usec) != 2)
		return -1;
	*ns = sec * 1000000000ull + usec * 1000ull;
	return 0;
}

int main(int argc, char **argv)
{
	static uint64_t dur[MAX_CALLS];
	uint64_t open_at[MAX_CPUS] = { 0 }, sum = 0, n = 0, calls = 0, ops = 0;
	char **args, line[512] = "";
	FILE *tr, *bi, *bo;
	int i, st, to[2], from[2];
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_disk_cost NAME DIR BENCH_IO_OPTIONS...\n");
		return 2;
	}
	name = argv[1];
	if (access("/sys/module/scsi_debug", F_OK))
		na("no scsi_debug", 0);
	probes_off();	/* leftovers of an earlier run */
	if (kf_write(TRACEFS "/kprobe_events", "p:atw_sr_in schedule_resp", O_APPEND) ||
	    kf_write(TRACEFS "/kprobe_events", "r:atw_sr_out schedule_resp", O_APPEND))
		na("kprobe on schedule_resp", errno);
	if (mkdir(INST, 0755) && errno != EEXIST)
		na("trace instance", errno);
	if (kf_write(INST "/buffer_size_kb", "16384", 0)) {
		probes_off();
		na("trace buffer", errno);
	}

	/*
	 * bench_io NAME DIR OPTIONS... --slices: set up (file, cache) before
	 * the probes go on, then one slice, whose line gives the writes done.
	 */
	args = calloc(argc + 4, sizeof(char *));
	args[0] = "bench_io";
	for (i = 1; i < argc; i++)
		args[i] = argv[i];
	args[i++] = "--slices";
	args[i++] = "--ops";
	args[i++] = "1000000";
	if (pipe(to) || pipe(from))
		na("pipe", errno);
	pid = fork();
	if (!pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execvp("bench_io", args);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	bi = fdopen(to[1], "w");
	bo = fdopen(from[0], "r");
	if (!bi || !bo || !fgets(line, sizeof(line), bo) || !strstr(line, "\"status\":\"ready\"")) {
		probes_off();
		if (strstr(line, "\"status\":\"n/a\""))
			na("bench_io refused the workload", 0);
		printf("{\"disk_cost\":\"%s\",\"status\":\"error\",\"reason\":\"bench_io did not get ready\"}\n",
		       name);
		return 1;
	}
	if (kf_write(INST "/trace", "", O_TRUNC) ||
	    kf_write(INST "/events/kprobes/atw_sr_in/enable", "1", 0) ||
	    kf_write(INST "/events/kprobes/atw_sr_out/enable", "1", 0)) {
		probes_off();
		na("enabling the probes", errno);
	}
	fputs("go\n", bi);
	fflush(bi);
	if (fgets(line, sizeof(line), bo) && strstr(line, "\"slice\":")) {
		char *p = strstr(line, "\"ops\":");

		ops = p ? strtoull(p + 6, NULL, 10) : 0;
	}
	kf_write(INST "/events/kprobes/atw_sr_in/enable", "0", 0);
	kf_write(INST "/events/kprobes/atw_sr_out/enable", "0", 0);
	fclose(bi);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !ops) {
		probes_off();
		printf("{\"disk_cost\":\"%s\",\"status\":\"error\",\"reason\":\"bench_io failed\"}\n",
		       name);
		return 1;
	}

	tr = fopen(INST "/trace", "r");
	if (!tr) {
		probes_off();
		na("reading the trace", errno);
	}
	while (fgets(line, sizeof(line), tr)) {
		uint64_t ns;
		int cpu, in;

		if (line[0] == '#' || parse(line, &cpu, &ns, &in))
			continue;
		if (in) {
			open_at[cpu] = ns;
			calls++;
		} else if (open_at[cpu] && ns >= open_at[cpu] && n < MAX_CALLS) {
			dur[n++] = ns - open_at[cpu];
			sum += ns - open_at[cpu];
			open_at[cpu] = 0;
		}
	}
	fclose(tr);
	probes_off();
	if (!n)
		na("no schedule_resp call traced", 0);
	qsort(dur, n, sizeof(dur[0]), cmp_u64);
	printf("{\"disk_cost\":\"%s\",\"status\":\"ok\",\"ndelay\":\"%s\",\"writes\":%llu,"
	       "\"calls\":%llu,\"timed\":%llu,\"calls_per_write\":%.3f,\"p50_us\":%.1f,"
	       "\"p90_us\":%.1f,\"mean_us\":%.2f}\n",
	       name, getenv("ATW_NDELAY") ? getenv("ATW_NDELAY") : "", (unsigned long long)ops,
	       (unsigned long long)calls, (unsigned long long)n, (double)calls / ops,
	       dur[n / 2] / 1000.0, dur[n * 9 / 10] / 1000.0, sum / 1000.0 / n);
	return 0;
}
