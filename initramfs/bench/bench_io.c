// SPDX-License-Identifier: GPL-2.0
/*
 * bench_io: one write workload, timed, for scripts/compare.
 *
 * The least invasive way to drive what fio 3.33 cannot name: RWF_ATOMIC and
 * RWF_WRITETHROUGH (0x200) as pwritev2/io_uring flags, combined with O_DIRECT,
 * RWF_DSYNC and fdatasync every N writes, at queue depth 1 (pwritev2) or N
 * (io_uring), from T threads on one file or on T files.
 *
 *	bench_io NAME DIR [options]
 *	  --direct --atomic --wt --dsync   open O_DIRECT / write flags
 *	  --fsync N          fdatasync after every N writes of a thread
 *	  --uring QD         io_uring at queue depth QD (default pwritev2)
 *	  --threads T        T threads (default 1)
 *	  --files            one file per thread (default: all on one file)
 *	  --bs B             write size, aligned offsets (default 16384)
 *	  --span B           bytes of file(s) written at random (default 32 MiB)
 *	  --ops N --secs S   stop at N writes or S seconds (default 20000, 3)
 *	  --cdf PATH         write the latency CDF (quantile, us) to PATH
 *	  --prefix P         the files are DIR/P.N (default "bench")
 *	  --reader           one more thread, beside the writers, pread()s one
 *	                     page of cached data at random page offsets of a
 *	                     region of file 0 that no writer touches (RD_SPAN
 *	                     past --span, read into the cache first, through a
 *	                     descriptor of its own without O_DIRECT): "rd_*"
 *	                     figures, the latency a reader of the rest of the
 *	                     file sees while the writes go on (not with
 *	                     --files)
 *	  --slices           paired slices (bench_pair): set up and print a
 *	                     "ready" line, then for each line read from stdin
 *	                     run one timed slice of --secs seconds and print
 *	                     one line of its figures; exit at end of input
 *	  --memcpy           no file: time a copy of B bytes from a user buffer
 *	                     into a SPAN-sized buffer at random aligned offsets
 *	                     (the physical floor of a buffered write's copy)
 *	  --hash             no file: time an FNV-1a hash (a byte-serial chain
 *	                     of multiplies, scalar code) of B bytes at random
 *	                     aligned offsets of a SPAN-sized buffer: code that
 *	                     reads as much memory but does not copy, the
 *	                     reference against which scripts/compare states
 *	                     how much dearer the emulator makes a copy
 *
 * A write's latency runs from its submission to its completion; when an
 * fdatasync follows it, until the fdatasync returns. Before timing, one
 * trial write with the same flags decides whether the kernel supports the
 * workload; if not, the JSON line says "n/a" and why (exit 0).
 *
 * Prints one JSON line: ops/s, p50/p99/p99.9 latency, device write and
 * flush requests per write (/sys/block/DISK/stat), guest CPU per write
 * (/proc/stat, all CPUs, not idle or iowait), and what reached the disk per
 * write as the SCSI device saw it (lib/devcount: the tracepoint
 * scsi:scsi_dispatch_cmd_start, on for the timed run of every workload on
 * every kernel): WRITE ATOMIC(16) commands, writes with FUA, SYNCHRONIZE
 * CACHE commands and KiB written. Those transfer to real hardware as they
 * are. When the disk is not SCSI or the trace lost events, they are left
 * out and "dev_trace" says why.
 */
#include "lib/atomic_io.h"
#include "lib/bench_rwf.h"
#include "lib/devcount.h"
#include "lib/kfile.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


#define MAX_THREADS 16
#define MAX_QD 256

struct opts {
	const char *name, *dir, *cdf, *prefix;
	bool direct, atomic, wt, dsync, files, memcpy, hash, slices, reader;
	unsigned int fsync_every, qd, threads;
	size_t bs;
	uint64_t span, ops;
	double secs;
};

struct worker {
	pthread_t tid;
	unsigned int idx;
	int fd;
	uint64_t base, len;	/* this thread's region of its file */
	uint64_t quota, done;
	uint64_t *lat;		/* ns, one per write */
	uint64_t seed;
	int err;
	const char *what;
};

static struct opts o = {
	.bs = 16384, .span = 32 << 20, .ops = 20000, .secs = 3, .threads = 1,
	.prefix = "bench",
};
static struct worker workers[MAX_THREADS];
/*
 * Trace buffer per CPU for the timed run: about 60 bytes per command event,
 * room for ~270,000 commands per CPU (a 3 s run at 0 us issues < 100,000).
 */
#define DEVTRACE_KB 16384
static struct devcount dc;
static char *copy_dst;	/* --memcpy, --hash */
static volatile uint64_t hash_sink;	/* --hash: keeps the hash */
static int rw_flags;
static uint64_t t_end;

/* --reader */
#define RD_SPAN (8u << 20)
#define RD_MAX (1u << 20)	/* latencies kept per run */
static struct {
	pthread_t tid;
	int fd;
	uint64_t *lat, done, seed;
	atomic_int stop;
	int err;
} rd;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void json_str(const char *k, const char *v)
{
	printf("\"%s\":\"", k);
	for (; *v; v++)
		putchar(*v == '"' || *v == '\\' ? '\'' : *v);
	printf("\",");
}

static void print_head(const char *status)
{
	printf("{\"bench\":\"%s\",", o.name);
	json_str("status", status);
	printf("\"bs\":%zu,\"qd\":%u,\"threads\":%u,\"files\":%u,\"fsync_every\":%u,",
	       o.bs, o.qd ? o.qd : 1, o.threads, o.memcpy || o.hash ? 0 : o.files ? o.threads : 1,
	       o.fsync_every);
	printf("\"engine\":\"%s\",\"flags\":\"%s%s%s%s\",",
	       o.memcpy ? "memcpy" : o.hash ? "hash" : o.qd ? "io_uring" : "pwritev2",
	       o.direct ? "O_DIRECT " : "", o.atomic ? "RWF_ATOMIC " : "",
	       o.wt ? "RWF_WRITETHROUGH " : "", o.dsync ? "RWF_DSYNC" : "");
}

static void na(const char *fmt, const char *arg, int err)
{
	char why[256];

	snprintf(why, sizeof(why), fmt, arg, strerror(err));
	print_head("n/a");
	json_str("reason", why);
	printf("\"ndelay\":\"%s\"}\n", getenv("ATW_NDELAY") ? getenv("ATW_NDELAY") : "");
	exit(0);
}

static void die(const char *what, int err)
{
	print_head("error");
	json_str("reason", what);
	json_str("errno", strerror(err));
	printf("\"ndelay\":\"\"}\n");
	exit(1);
}

static const char *flag_names(void)
{
	static char buf[96];

	snprintf(buf, sizeof(buf), "%s%s%s%s%s", o.direct ? "O_DIRECT " : "buffered ",
		 o.atomic ? "|RWF_ATOMIC" : "", o.wt ? "|RWF_WRITETHROUGH" : "",
		 o.dsync ? "|RWF_DSYNC" : "", "");
	return buf;
}

/*
 * The file of thread t, created and written once so that writes overwrite.
 * With --slices the file is reserved in one fallocate first, whatever the
 * workload, so that both sides of a pair write files of the same layout,
 * and an O_DIRECT workload writes it through O_DIRECT, so that none of it
 * is cached when the slices start.
 */
static int open_file(unsigned int t, uint64_t size)
{
	char path[512];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s.%u", o.dir, o.prefix, o.files ? t : 0);
	if (o.reader && t == 0)
		size += RD_SPAN;
	fd = open(path, O_RDWR | O_CREAT | (o.slices && o.direct ? O_DIRECT : 0), 0644);
	if (fd < 0)
		die("open", errno);
	if (fstat(fd, &st))
		die("fstat", errno);
	if ((uint64_t)st.st_size < size) {
		size_t chunk = 1 << 20;
		char *buf = atw_alloc(chunk);
		uint64_t off;

		if (o.slices && fallocate(fd, 0, 0, size))
			die("fallocate", errno);
		memset(buf, 0x5a, chunk);
		for (off = 0; off < size; off += chunk)
			if (pwrite(fd, buf, chunk, off) != (ssize_t)chunk)
				die("prefill", errno);
		if (fsync(fd))
			die("prefill fsync", errno);
		free(buf);
	}
	if (o.direct && !o.slices) {
		close(fd);
		fd = open(path, O_RDWR | O_DIRECT);
		if (fd < 0)
			die("open O_DIRECT", errno);
	}
	return fd;
}

static uint64_t pick_off(struct worker *w)
{
	uint64_t units = w->len / o.bs;

	return w->base + (rnd(&w->seed) % units) * o.bs;
}

static bool more(struct worker *w, uint64_t submitted)
{
	if (submitted >= w->quota)
		return false;
	/* Check the clock every 16 writes: it is not free under TCG. */
	return (submitted & 15) || now_ns() < t_end;
}

static void *run_sync(void *arg)
{
	struct worker *w = arg;
	char *buf = atw_alloc(o.bs);
	struct iovec iov = { .iov_base = buf, .iov_len = o.bs };

	memset(buf, 0x30 + w->idx, o.bs);
	while (more(w, w->done)) {
		uint64_t t0 = now_ns();
		ssize_t n;

		if (o.memcpy) {
			/* the compiler may not drop it: the destination is global */
			memcpy(copy_dst + pick_off(w), buf, o.bs);
			w->lat[w->done++] = now_ns() - t0;
			continue;
		}
		if (o.hash) {
			const unsigned char *p = (const unsigned char *)copy_dst + pick_off(w);
			uint64_t h = 0xcbf29ce484222325ull;
			size_t k;

			for (k = 0; k < o.bs; k++)
				h = (h ^ p[k]) * 0x100000001b3ull;
			hash_sink = h;
			w->lat[w->done++] = now_ns() - t0;
			continue;
		}
		n = pwritev2(w->fd, &iov, 1, pick_off(w), rw_flags);

		if (n != (ssize_t)o.bs) {
			w->err = n < 0 ? errno : EIO;
			w->what = "pwritev2";
			break;
		}
		if (o.fsync_every && (w->done + 1) % o.fsync_every == 0 &&
		    fdatasync(w->fd)) {
			w->err = errno;
			w->what = "fdatasync";
			break;
		}
		w->lat[w->done++] = now_ns() - t0;
	}
	free(buf);
	return NULL;
}

static void *run_uring(void *arg)
{
	struct worker *w = arg;
	struct io_uring ring;
	uint64_t submitted = 0, t0[MAX_QD];
	char *bufs = atw_alloc(o.bs * o.qd);
	unsigned int i, inflight = 0;
	int ret;

	ret = io_uring_queue_init(o.qd, &ring, 0);
	if (ret) {
		w->err = -ret;
		w->what = "io_uring_queue_init";
		return NULL;
	}
	memset(bufs, 0x30 + w->idx, o.bs * o.qd);
	for (i = 0; i < o.qd && more(w, submitted); i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_write(sqe, w->fd, bufs + i * o.bs, o.bs, pick_off(w));
		sqe->rw_flags = rw_flags;
		sqe->user_data = i;
		t0[i] = now_ns();
		submitted++;
		inflight++;
	}
	io_uring_submit(&ring);
	while (inflight) {
		struct io_uring_cqe *cqe;
		unsigned int slot;

		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret) {
			w->err = -ret;
			w->what = "io_uring_wait_cqe";
			break;
		}
		slot = cqe->user_data;
		if (cqe->res != (int)o.bs) {
			w->err = cqe->res < 0 ? -cqe->res : EIO;
			w->what = "io_uring write";
		}
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
		if (w->err)
			continue;	/* drain */
		w->lat[w->done++] = now_ns() - t0[slot];
		if (more(w, submitted)) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_write(sqe, w->fd, bufs + slot * o.bs, o.bs,
					    pick_off(w));
			sqe->rw_flags = rw_flags;
			sqe->user_data = slot;
			t0[slot] = now_ns();
			submitted++;
			inflight++;
			io_uring_submit(&ring);
		}
	}
	io_uring_queue_exit(&ring);
	free(bufs);
	return NULL;
}

/* Busy (not idle, not iowait) ticks of all CPUs. */
static uint64_t cpu_busy_ticks(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	uint64_t busy = 0;

	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
		busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	fclose(f);
	return busy;
}

/* Completed writes and flushes of the test disk (/sys/block/X/stat). */
static void disk_stat(uint64_t *writes, uint64_t *flushes)
{
	unsigned long long f[17] = { 0 };
	const char *disk = atw_disk();
	char path[128];
	FILE *fp;
	int i;

	*writes = *flushes = 0;
	if (!disk)
		return;
	snprintf(path, sizeof(path), "/sys/block/%s/stat", disk + 5);
	fp = fopen(path, "r");
	if (!fp)
		return;
	for (i = 0; i < 17; i++)
		if (fscanf(fp, "%llu", &f[i]) != 1)
			break;
	fclose(fp);
	*writes = f[4];
	*flushes = i > 15 ? f[15] : 0;
}

/*
 * The device's view per write. The counts are exact or absent: a trace that
 * lost events, or a disk that is not SCSI (no write command seen while the
 * block layer completed writes), prints why instead.
 */
static void print_devcount(int ret, uint64_t blk_writes, uint64_t n)
{
	if (o.memcpy || o.hash)
		return;
	if (!ret && blk_writes && !dc.writes && !dc.atomics)
		ret = -ENODEV;
	if (ret) {
		json_str("dev_trace", ret == -EOVERFLOW ? "trace lost events" :
			 ret == -ENODEV ? "no SCSI write commands seen" : strerror(-ret));
		return;
	}
	json_str("dev_trace", "ok");
	printf("\"dev_cmd_write_op\":%.3f,\"dev_cmd_atomic_op\":%.3f,"
	       "\"dev_cmd_fua_op\":%.3f,\"dev_cmd_flush_op\":%.3f,"
	       "\"dev_kib_op\":%.2f,",
	       (double)dc.writes / n, (double)dc.atomics / n, (double)dc.fuas / n,
	       (double)dc.flushes / n,
	       (dc.write_bytes + dc.atomic_bytes) / 1024.0 / n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, uint64_t n, double q)
{
	uint64_t i = (uint64_t)(q * n);

	if (i >= n)
		i = n - 1;
	return v[i] / 1000.0;
}

static void write_cdf(const uint64_t *v, uint64_t n)
{
	static const double tail[] = { 0.995, 0.999, 0.9999, 1.0 };
	FILE *f = fopen(o.cdf, "w");
	unsigned int i;

	if (!f)
		return;
	fprintf(f, "# %s: quantile latency_us (%llu writes)\n", o.name,
		(unsigned long long)n);
	for (i = 0; i < 99; i++)
		fprintf(f, "%.4f %.2f\n", (i + 1) / 100.0, pct(v, n, (i + 1) / 100.0));
	for (i = 0; i < 4; i++)
		fprintf(f, "%.4f %.2f\n", tail[i], pct(v, n, tail[i]));
	fclose(f);
}

/* One write with the workload's flags at offset 0: does the kernel take it? */
static void trial(int fd)
{
	char *buf = atw_alloc(o.bs);
	struct iovec iov = { .iov_base = buf, .iov_len = o.bs };
	ssize_t n;

	memset(buf, 0x5a, o.bs);
	n = pwritev2(fd, &iov, 1, 0, rw_flags);
	if (n < 0 && (errno == EOPNOTSUPP || errno == EINVAL))
		na("pwritev2(%s): %s", flag_names(), errno);
	if (n != (ssize_t)o.bs)
		die("trial write", n < 0 ? errno : EIO);
	if (o.qd) {
		struct io_uring ring;
		struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;
		int ret = io_uring_queue_init(2, &ring, 0);

		if (ret)
			na("io_uring_queue_init (%s): %s", flag_names(), -ret);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_write(sqe, fd, buf, o.bs, 0);
		sqe->rw_flags = rw_flags;
		io_uring_submit(&ring);
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (!ret && cqe->res < 0)
			na("io_uring write (%s): %s", flag_names(), -cqe->res);
		io_uring_queue_exit(&ring);
	}
	if (o.fsync_every)
		fdatasync(fd);
	free(buf);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_io NAME DIR [--direct] [--atomic] [--wt] [--dsync]\n"
		"  [--fsync N] [--uring QD] [--threads T] [--files] [--bs B] [--span B]\n"
		"  [--ops N] [--secs S] [--cdf PATH] [--prefix P] [--slices] [--reader]\n"
		"  [--memcpy | --hash]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	int i;

	if (argc < 3)
		usage();
	o.name = argv[1];
	o.dir = argv[2];
	for (i = 3; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--direct"))
			o.direct = true;
		else if (!strcmp(a, "--atomic"))
			o.atomic = true;
		else if (!strcmp(a, "--wt"))
			o.wt = true;
		else if (!strcmp(a, "--dsync"))
			o.dsync = true;
		else if (!strcmp(a, "--files"))
			o.files = true;
		else if (!strcmp(a, "--memcpy"))
			o.memcpy = true;
		else if (!strcmp(a, "--hash"))
			o.hash = true;
		else if (!strcmp(a, "--slices"))
			o.slices = true;
		else if (!strcmp(a, "--reader"))
			o.reader = true;
		else if (!v)
			usage();
		else if (!strcmp(a, "--fsync"))
			o.fsync_every = atoi(argv[++i]);
		else if (!strcmp(a, "--uring"))
			o.qd = atoi(argv[++i]);
		else if (!strcmp(a, "--threads"))
			o.threads = atoi(argv[++i]);
		else if (!strcmp(a, "--bs"))
			o.bs = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--span"))
			o.span = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--ops"))
			o.ops = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--secs"))
			o.secs = atof(argv[++i]);
		else if (!strcmp(a, "--cdf"))
			o.cdf = argv[++i];
		else if (!strcmp(a, "--prefix"))
			o.prefix = argv[++i];
		else
			usage();
	}
	if (!o.threads || o.threads > MAX_THREADS || o.qd > MAX_QD || !o.bs ||
	    o.span < o.bs * o.threads || !o.ops || !*o.prefix || strchr(o.prefix, '/') ||
	    (o.reader && o.files) ||
	    ((o.memcpy || o.hash) && (o.qd || o.files || o.direct || o.atomic || o.wt ||
				    o.dsync || o.fsync_every || o.reader || (o.memcpy && o.hash))))
		usage();
	rw_flags = (o.atomic ? RWF_ATOMIC : 0) | (o.wt ? RWF_WRITETHROUGH : 0) |
		   (o.dsync ? RWF_DSYNC : 0);
}

/* --reader: one page of cached data at a time until the writers are done. */
static void *run_reader(void *arg)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *buf = atw_alloc(ps);
	uint64_t pages = RD_SPAN / ps;

	(void)arg;
	while (!atomic_load(&rd.stop)) {
		uint64_t t0 = now_ns();

		if (pread(rd.fd, buf, ps, o.span + (rnd(&rd.seed) % pages) * ps) != ps) {
			rd.err = errno ? errno : EIO;
			break;
		}
		if (rd.done < RD_MAX)
			rd.lat[rd.done] = now_ns() - t0;
		rd.done++;
	}
	free(buf);
	return NULL;
}

/* Starts the workers (and the reader), waits for them; t_end is o.secs after *t0. */
static void run_workers(uint64_t *t0, uint64_t *t1)
{
	unsigned int t;

	for (t = 0; t < o.threads; t++)
		workers[t].done = 0;
	if (o.reader) {
		rd.done = 0;
		atomic_store(&rd.stop, 0);
		pthread_create(&rd.tid, NULL, run_reader, NULL);
	}
	*t0 = now_ns();
	t_end = *t0 + (uint64_t)(o.secs * 1e9);
	for (t = 0; t < o.threads; t++)
		pthread_create(&workers[t].tid, NULL, o.qd ? run_uring : run_sync,
			       &workers[t]);
	for (t = 0; t < o.threads; t++)
		pthread_join(workers[t].tid, NULL);
	*t1 = now_ns();
	if (o.reader) {
		atomic_store(&rd.stop, 1);
		pthread_join(rd.tid, NULL);
	}
}

/* --reader: its figures of the last run, as JSON members with a trailing comma. */
static void print_reader(double secs)
{
	uint64_t n = rd.done < RD_MAX ? rd.done : RD_MAX;

	if (!o.reader)
		return;
	if (rd.err)
		die("reader pread", rd.err);
	if (!n)
		die("the reader read nothing", EIO);
	qsort(rd.lat, n, sizeof(uint64_t), cmp_u64);
	printf("\"rd_ops_s\":%.1f,\"rd_p50_us\":%.1f,\"rd_p99_us\":%.1f,",
	       rd.done / secs, pct(rd.lat, n, 0.5), pct(rd.lat, n, 0.99));
}

/* --reader: its descriptor, and its region read into the cache. */
static void reader_setup(void)
{
	char path[512], *buf = atw_alloc(1 << 20);
	uint64_t off;

	snprintf(path, sizeof(path), "%s/%s.0", o.dir, o.prefix);
	rd.fd = open(path, O_RDONLY);
	if (rd.fd < 0)
		die("open for the reader", errno);
	for (off = 0; off < RD_SPAN; off += 1 << 20)
		if (pread(rd.fd, buf, 1 << 20, o.span + off) != 1 << 20)
			die("reading the reader's region into the cache", errno ? errno : EIO);
	free(buf);
	rd.lat = calloc(RD_MAX, sizeof(uint64_t));
	if (!rd.lat)
		die("calloc", ENOMEM);
	rd.seed = 0x2545f4914f6cdd1dull;
}

/* Every worker's latencies of the last run, sorted; *n: how many. */
static uint64_t *sorted_latencies(uint64_t *n)
{
	uint64_t *all;
	unsigned int t;

	*n = 0;
	for (t = 0; t < o.threads; t++) {
		if (workers[t].err)
			die(workers[t].what, workers[t].err);
		*n += workers[t].done;
	}
	if (!*n)
		die("no write completed", EIO);
	all = malloc(*n * sizeof(uint64_t));
	if (!all)
		die("malloc", ENOMEM);
	*n = 0;
	for (t = 0; t < o.threads; t++) {
		memcpy(all + *n, workers[t].lat, workers[t].done * sizeof(uint64_t));
		*n += workers[t].done;
	}
	qsort(all, *n, sizeof(uint64_t), cmp_u64);
	return all;
}

/*
 * --slices: the state scripts/compare's plan gives a workload before its
 * run (start_state), made here for this workload's files alone, since the
 * other side of the pair runs meanwhile: nothing cached for O_DIRECT (the
 * file was written through O_DIRECT: a direct write over cached pages
 * invalidates them, which costs), the whole file cached for buffered
 * writes, as in a steady state.
 */
static void settle_cache(void)
{
	char *buf = atw_alloc(1 << 20);
	uint64_t len = o.files ? o.span / o.threads : o.span, off;
	unsigned int t;

	for (t = 0; !o.direct && t < (o.files ? o.threads : 1); t++)
		for (off = 0; off < len; off += 1 << 20)
			if (pread(workers[t].fd, buf, 1 << 20, off) < 0)
				die("reading the file into the cache", errno);
	free(buf);
}

/*
 * --slices, buffered: how the page cache holds the file(s), from
 * /proc/self/pagemap and /proc/kpageflags over a read-only mapping: the
 * mean folio size in KiB and the share of pages in large folios (a
 * write-through puts its whole folio under writeback). -1 when unknown.
 */
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
static void folio_stats(double *mean_kib, double *large)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	uint64_t pages = 0, folios = 0, in_large = 0;
	long ps = sysconf(_SC_PAGESIZE);
	unsigned int t;

	*mean_kib = *large = -1;
	for (t = 0; pm >= 0 && kf >= 0 && t < (o.files ? o.threads : 1); t++) {
		uint64_t len = o.files ? o.span / o.threads : o.span, i;
		unsigned char *map = mmap(NULL, len, PROT_READ, MAP_SHARED, workers[t].fd, 0);

		if (map == MAP_FAILED)
			break;
		for (i = 0; i < len; i += ps) {
			uint64_t pe, pfn, f;

			(void)*(volatile unsigned char *)(map + i);
			pe = kf_u64_at(pm, (uintptr_t)(map + i) / ps);
			pfn = (pe >> 63) & 1 ? pe & ((1ULL << 55) - 1) : 0;
			if (!pfn)
				continue;
			f = kf_u64_at(kf, pfn);
			pages++;
			folios += !(f & 1ULL << KPF_COMPOUND_TAIL);
			in_large += !!(f & (1ULL << KPF_COMPOUND_HEAD | 1ULL << KPF_COMPOUND_TAIL));
		}
		munmap(map, len);
	}
	if (pages && folios) {
		*mean_kib = (double)pages * ps / 1024 / folios;
		*large = (double)in_large / pages;
	}
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
}

/*
 * --slices: one slice per line of input, each a line of output. No device
 * trace (its buffer is resized per start, which costs as much as a slice).
 */
static int serve_slices(void)
{
	double fkib = -1, flarge = -1;
	char line[64];
	unsigned int k = 0;

	settle_cache();
	if (!o.direct)
		folio_stats(&fkib, &flarge);
	print_head("ready");
	printf("\"folio_kib_mean\":%.1f,\"folio_large_share\":%.3f,\"ndelay\":\"%s\"}\n",
	       fkib, flarge, getenv("ATW_NDELAY") ? getenv("ATW_NDELAY") : "");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t t0, t1, c0, c1, n, *all;
		double secs;

		c0 = cpu_busy_ticks();
		run_workers(&t0, &t1);
		c1 = cpu_busy_ticks();
		all = sorted_latencies(&n);
		secs = (t1 - t0) / 1e9;
		printf("{\"slice\":%u,\"ops\":%llu,\"secs\":%.3f,\"ops_s\":%.1f,"
		       "\"p50_us\":%.1f,\"p99_us\":%.1f,",
		       k++, (unsigned long long)n, secs, n / secs, pct(all, n, 0.5),
		       pct(all, n, 0.99));
		print_reader(secs);
		printf("\"cpu_us_op\":%.1f}\n", (c1 - c0) * (1e6 / sysconf(_SC_CLK_TCK)) / n);
		fflush(stdout);
		free(all);
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t w0, f0, w1, f1, c0, c1, t0, t1, n, *all;
	double secs;
	unsigned int t;
	int fd0 = -1, dev_trace = -ENODEV;
	long long lbs = -1;

	parse(argc, argv);
	for (t = 0; t < o.threads; t++) {
		struct worker *w = &workers[t];

		w->idx = t;
		if (o.memcpy || o.hash)
			w->fd = -1;
		else if (o.files || t == 0)
			w->fd = open_file(t, o.files ? o.span / o.threads : o.span);
		else
			w->fd = fd0;
		fd0 = workers[0].fd;
		w->len = o.span / o.threads;
		w->base = o.files ? 0 : t * w->len;
		w->len -= w->len % o.bs;
		w->quota = o.ops / o.threads;
		w->seed = 0x9e3779b97f4a7c15ull * (t + 1);
		w->lat = calloc(w->quota, sizeof(uint64_t));
		if (!w->lat)
			die("calloc", ENOMEM);
	}
	if (o.memcpy || o.hash) {
		copy_dst = atw_alloc(o.span);
		memset(copy_dst, 0, o.span);	/* faulted in: the page cache's are */
	} else {
		trial(workers[0].fd);
	}
	if (o.reader)
		reader_setup();
	sync();
	if (o.slices)
		return serve_slices();

	if (!o.memcpy && !o.hash && atw_disk()) {
		lbs = atw_disk_queue_attr(atw_disk(), "logical_block_size");
		dev_trace = devcount_start_kb(DEVTRACE_KB);
	}
	disk_stat(&w0, &f0);
	c0 = cpu_busy_ticks();
	run_workers(&t0, &t1);
	c1 = cpu_busy_ticks();
	disk_stat(&w1, &f1);
	if (!dev_trace)
		dev_trace = devcount_stop(&dc, lbs > 0 ? lbs : 512);
	all = sorted_latencies(&n);
	secs = (t1 - t0) / 1e9;

	print_head("ok");
	printf("\"ndelay\":\"%s\",\"ops\":%llu,\"secs\":%.3f,\"ops_s\":%.1f,",
	       getenv("ATW_NDELAY") ? getenv("ATW_NDELAY") : "",
	       (unsigned long long)n, secs, n / secs);
	printf("\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f,",
	       pct(all, n, 0.5), pct(all, n, 0.99), pct(all, n, 0.999),
	       all[n - 1] / 1000.0);
	printf("\"dev_writes_op\":%.3f,\"dev_flush_op\":%.3f,",
	       (double)(w1 - w0) / n, (double)(f1 - f0) / n);
	print_devcount(dev_trace, w1 - w0, n);
	print_reader(secs);
	printf("\"cpu_us_op\":%.1f}\n", (c1 - c0) * (1e6 / sysconf(_SC_CLK_TCK)) / n);
	if (o.cdf)
		write_cdf(all, n);
	return 0;
}
