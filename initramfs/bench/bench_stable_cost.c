// SPDX-License-Identifier: GPL-2.0
/*
 * bench_stable_cost: what stable pages cost a plain buffered writer of one
 * file when an atomic or write-through design makes that file's folios
 * stable (writers wait for writeback before changing a folio under it).
 *
 * The measured writer rewrites a few blocks of the file over and over with
 * plain buffered pwrite(), each followed by sync_file_range(WRITE) of that
 * block, so that most rewrites find their folio under writeback: without
 * stable pages the rewrite redirties the folio at once; with them it waits
 * for the device. What makes the folios stable, per mode:
 *   none       nothing (the baseline of pga)
 *   dio        a second thread overwrites another range of the file with
 *              O_DIRECT: the same device traffic as wt, no stable pages;
 *              but XFS holds the iolock shared across each direct write's
 *              I/O, and the writer's buffered pwrite needs it exclusive, so
 *              the writer also queues behind every direct write in flight
 *              (a lock wait that varies from run to run: 176 and 620 ops/s
 *              in two runs), which a write-through does not impose
 *   buf        the second thread writes the range buffered and waits for
 *              its writeback (sync_file_range WAIT_BEFORE|WRITE|WAIT_AFTER):
 *              what a write-through does -- copy under the exclusive
 *              iolock, one device write, wait outside the lock -- without
 *              stable pages (the baseline of wt and wt-atomic)
 *   wt         the second thread writes with RWF_WRITETHROUGH: while any
 *              write-through is in flight, series-writethrough makes every
 *              folio of the file stable (a per-mapping count)
 *   wt-atomic  the same with RWF_ATOMIC|RWF_WRITETHROUGH
 *   pga        one buffered RWF_ATOMIC write to the file before the run:
 *              series-pgatomic 0007 then keeps the file's folios stable
 *              for good (AS_STABLE_WRITES on the mapping)
 * A mode runs only where a trial write shows the kernel takes its flags;
 * otherwise its line says "n/a" and why. Each mode gets its own file, the
 * modes run interleaved for ROUNDS rounds of SECS seconds.
 *
 *	bench_stable_cost DIR [--secs S] [--rounds R] [--bs B]
 *
 * One JSON line per mode and round (the writer's ops/s, p50/p99 latency of
 * its pwrite in us, the second thread's ops/s, failed writes), then one per
 * mode with the median ops/s over the rounds, its ratio to the mode's
 * baseline and the failed writes of all its rounds.
 *
 * Each mode's file stays open from its preparation to the end: pga's
 * AS_STABLE_WRITES lives in the inode's mapping, and an inode reclaimed
 * between the trial write and the rounds would silently measure "none".
 */
#include "lib/atomic_io.h"
#include "lib/bench_rwf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NMODES 6
#define MAX_ROUNDS 15
#define HOT_BLOCKS 4		/* blocks the measured writer cycles through */
#define SPAN_BLOCKS 256		/* the second thread's range, in blocks */
#define MAX_SAMPLES (1 << 20)

enum mode { M_NONE, M_DIO, M_BUF, M_WT, M_WT_ATOMIC, M_PGA };

static const char *const mode_name[NMODES] = { "none", "dio", "buf", "wt", "wt-atomic", "pga" };
static const enum mode baseline[NMODES] = { M_NONE, M_NONE, M_NONE, M_BUF, M_BUF, M_NONE };

static const char *dir;
static size_t bs = 16384;
static double secs = 3;
static unsigned int rounds = 3;

struct other {
	int fd;
	int flags;
	bool wait;		/* buf: wait for each write's writeback */
	void *buf;
	atomic_int stop;
	unsigned long ops, errors;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The file of mode m: the measured blocks, then the second thread's range. */
static int open_file(enum mode m, int extra)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/stable_cost.%s", dir, mode_name[m]);
	fd = open(path, O_RDWR | O_CREAT | extra, 0644);
	if (fd < 0) {
		fprintf(stderr, "bench_stable_cost: open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static int second_flags(enum mode m)
{
	switch (m) {
	case M_WT:
		return RWF_WRITETHROUGH;
	case M_WT_ATOMIC:
		return RWF_WRITETHROUGH | RWF_ATOMIC;
	default:
		return 0;
	}
}

/*
 * Lays out mode m's file (written and synced) and checks that the kernel
 * takes the mode's flags. Returns NULL or why the mode cannot run.
 */
static const char *prepare(enum mode m)
{
	static char why[128];
	size_t len = (size_t)(HOT_BLOCKS + SPAN_BLOCKS) * bs;
	void *buf = atw_alloc(len);
	int fd = open_file(m, O_TRUNC), dfd;
	ssize_t ret = 0;

	atw_fill(buf, len, 0, 1);
	if (atw_pwrite(fd, buf, len, 0, 0) != (ssize_t)len || fsync(fd)) {
		snprintf(why, sizeof(why), "cannot write the file");
		goto out;
	}
	if (m == M_PGA) {
		ret = atw_pwrite(fd, buf, bs, 0, RWF_ATOMIC);
		if (ret == (ssize_t)bs && fdatasync(fd))
			ret = -errno;
	} else if (m == M_WT || m == M_WT_ATOMIC) {
		ret = atw_pwrite(fd, buf, bs, (off_t)HOT_BLOCKS * bs, second_flags(m));
	} else if (m == M_DIO) {
		dfd = open_file(m, O_DIRECT);
		ret = atw_pwrite(dfd, buf, bs, (off_t)HOT_BLOCKS * bs, 0);
		close(dfd);
	} else {
		ret = bs;
	}
	if (ret != (ssize_t)bs)
		snprintf(why, sizeof(why), "trial write: %s",
			 ret < 0 ? strerror((int)-ret) : "short");
out:
	close(fd);
	free(buf);
	return ret == (ssize_t)bs ? NULL : why;
}

/* Keeps mode m's inode (and its mapping's flags) in memory until exit. */
static void hold_file(enum mode m)
{
	open_file(m, 0);
}

static void *second_writer(void *arg)
{
	struct other *o = arg;
	unsigned int seed = 7;

	while (!atomic_load(&o->stop)) {
		off_t off = (off_t)(HOT_BLOCKS + rand_r(&seed) % SPAN_BLOCKS) * bs;

		if (atw_pwrite(o->fd, o->buf, bs, off, o->flags) != (ssize_t)bs)
			o->errors++;
		else if (o->wait &&
			 sync_file_range(o->fd, off, bs, SYNC_FILE_RANGE_WAIT_BEFORE |
					 SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER))
			o->errors++;
		o->ops++;
	}
	return NULL;
}

/*
 * One round of mode m; prints its line, adds the failed writes of both
 * threads to *nerr and returns the writer's ops/s (a figure even when some
 * writes failed: the summary line carries the count).
 */
static double run_round(enum mode m, unsigned int round, double *lat,
			unsigned long *nerr)
{
	struct other o = { .fd = -1 };
	void *buf = atw_alloc(bs);
	unsigned long n = 0, errors = 0;
	int fd = open_file(m, 0);
	pthread_t th;
	double t0, t, ops;

	atw_fill(buf, bs, 0, 2 + round);
	if (m != M_NONE && m != M_PGA) {
		o.fd = open_file(m, m == M_DIO ? O_DIRECT : 0);
		o.flags = second_flags(m);
		o.wait = m == M_BUF;
		o.buf = atw_alloc(bs);
		atw_fill(o.buf, bs, 0, 3);
		pthread_create(&th, NULL, second_writer, &o);
	}
	t0 = now();
	do {
		off_t off = (off_t)(n % HOT_BLOCKS) * bs;
		double s = now();

		if (pwrite(fd, buf, bs, off) != (ssize_t)bs)
			errors++;
		t = now();
		if (n < MAX_SAMPLES)
			lat[n] = (t - s) * 1e6;
		n++;
		sync_file_range(fd, off, bs, SYNC_FILE_RANGE_WRITE);
	} while (t - t0 < secs);
	if (o.fd >= 0) {
		atomic_store(&o.stop, 1);
		pthread_join(th, NULL);
		close(o.fd);
		free(o.buf);
	}
	fsync(fd);
	close(fd);
	free(buf);
	ops = n / (t - t0);
	if (n > MAX_SAMPLES)
		n = MAX_SAMPLES;
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("{\"bench\":\"stable_cost\",\"mode\":\"%s\",\"round\":%u,\"bs\":%zu,\"secs\":%.2f,"
	       "\"writer_ops_s\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,\"second_ops_s\":%.1f,"
	       "\"errors\":%lu}\n",
	       mode_name[m], round, bs, t - t0, ops, lat[n / 2], lat[n * 99 / 100],
	       o.ops / (t - t0), errors + o.errors);
	fflush(stdout);
	*nerr += errors + o.errors;
	return ops;
}

int main(int argc, char **argv)
{
	static double result[NMODES][MAX_ROUNDS];
	const char *why[NMODES];
	double *lat = malloc(MAX_SAMPLES * sizeof(*lat));
	double med[NMODES] = { 0 };
	unsigned long nerr[NMODES] = { 0 };
	unsigned int m, r;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--secs") && i + 1 < argc)
			secs = atof(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--bs") && i + 1 < argc)
			bs = strtoul(argv[++i], NULL, 0);
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else
			dir = NULL, i = argc;
	}
	if (!dir || !lat || rounds < 1 || rounds > MAX_ROUNDS || secs <= 0 || !bs) {
		fprintf(stderr, "usage: bench_stable_cost DIR [--secs S] [--rounds R<=%d] [--bs B]\n",
			MAX_ROUNDS);
		return 2;
	}
	for (m = 0; m < NMODES; m++) {
		why[m] = prepare(m);
		if (!why[m])
			hold_file(m);
		if (why[m])
			printf("{\"bench\":\"stable_cost\",\"mode\":\"%s\",\"n/a\":\"%s\"}\n",
			       mode_name[m], why[m]);
	}
	for (r = 0; r < rounds; r++)
		for (m = 0; m < NMODES; m++)
			if (!why[m])
				result[m][r] = run_round(m, r, lat, &nerr[m]);
	for (m = 0; m < NMODES; m++) {
		if (why[m])
			continue;
		qsort(result[m], rounds, sizeof(double), cmp_double);
		med[m] = result[m][rounds / 2];
	}
	for (m = 0; m < NMODES; m++) {
		enum mode b = baseline[m];

		if (why[m])
			continue;
		printf("{\"bench\":\"stable_cost\",\"mode\":\"%s\",\"median_writer_ops_s\":%.1f,"
		       "\"min\":%.1f,\"max\":%.1f,\"errors\":%lu,\"baseline\":\"%s\",\"ratio\":",
		       mode_name[m], med[m], result[m][0], result[m][rounds - 1], nerr[m],
		       mode_name[b]);
		if (!why[b] && med[b] > 0)
			printf("%.3f}\n", med[m] / med[b]);
		else
			printf("null}\n");
	}
	free(lat);
	return 0;
}
