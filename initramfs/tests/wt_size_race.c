// SPDX-License-Identifier: GPL-2.0
/*
 * Operations that read the file size under the inode lock, racing an
 * extending write-through in flight (docs/design.md, "Size updates and
 * EOF": for every other operation an extending write-through is an
 * extending direct write; no serial order of two calls is violated), on
 * the XFS mounted at DIR.
 *
 * Each round: a file of size S (64 KiB, fsynced). Thread A writes 4 KiB at
 * offset S (extending); thread B issues its operation a random 0.3-3 ms
 * after A was issued. Then fsync, drop_caches, and the file's size and
 * content are compared with what each serial order of the two calls gives
 * (computed by applying the operations to a model of the file: O_APPEND
 * takes its offset from the size at the time of the call). A round that
 * fits no order prints both calls, their timings and what was read.
 *  - A: RWF_WRITETHROUGH pwritev2; B: ftruncate to S + 8 KiB, an O_APPEND
 *    write of 4 KiB, a buffered or write-through pwrite at S + 8 KiB (EOF
 *    zeroing of the gap), fallocate of [S, S + 8 KiB), FALLOC_FL_ZERO_RANGE
 *    of [S + 4 KiB, S + 8 KiB);
 *  - A: the write-through through AIO (io_submit; completes while the
 *    submitter is not in the kernel); B: ftruncate to S + 8 KiB;
 *  - controls: A an O_DIRECT synchronous write, B truncate and O_APPEND
 *    (a synchronous direct write holds the iolock across its I/O).
 * Every call must also return its full length (0 for truncate, fallocate).
 * Run it on a disk with latency (scsi_debug ndelay, 2 ms per command): the
 * window is the write-through's I/O, after the iolock was dropped. The run
 * says how many rounds had B called while A was in the kernel.
 *
 * A manual probe, not part of the checks: --probe-dio-aio runs the same
 * race with an AIO O_DIRECT extending write in place of the write-through
 * (and the synchronous direct write beside it) and prints only counts; it
 * runs on kernels without RWF_WRITETHROUGH too.
 *
 * usage: wt_size_race DIR [ROUNDS]
 *        wt_size_race DIR --probe-dio-aio [ROUNDS]
 */
#include "lib/wt_common.h"

#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH
#define WT_FLAG RWF_WRITETHROUGH
#else
#define WT_FLAG 0	/* only the probe runs; the write-through cases skip */
#endif

#define BASE	(64 * 1024)	/* S: the file's size before each round */
#define WLEN	4096
#define SPAN	(BASE + 16 * 1024)	/* the model covers [0, SPAN) */
#define NAME	"wt_size_race"
#define PRINT_MAX 4	/* rounds printed in full per case */
#define JOIN_SECS 300	/* a hang, not a measurement */

enum kind {
	K_WT, K_DIO, K_AIO_WT, K_AIO_DIO,	/* A: 4 KiB at S */
	K_TRUNCATE, K_APPEND, K_BUF_PAST, K_WT_PAST, K_FALLOC, K_ZERO,
};

static const char *const kind_name[] = {
	[K_WT] = "write-through pwritev2 [S, S+4K)",
	[K_DIO] = "O_DIRECT pwrite [S, S+4K)",
	[K_AIO_WT] = "AIO write-through [S, S+4K)",
	[K_AIO_DIO] = "AIO O_DIRECT write [S, S+4K)",
	[K_TRUNCATE] = "ftruncate to S+8K",
	[K_APPEND] = "O_APPEND write of 4K",
	[K_BUF_PAST] = "buffered pwrite [S+8K, S+12K)",
	[K_WT_PAST] = "write-through pwritev2 [S+8K, S+12K)",
	[K_FALLOC] = "fallocate [S, S+8K)",
	[K_ZERO] = "zero range [S+4K, S+8K)",
};

struct op {
	enum kind kind;
	char who;		/* 'A' or 'B' */
	uint64_t gen;		/* data: wt_pattern(buf, WLEN, 0, gen) */
	unsigned char *buf;
	ssize_t ret;
	long long t0, t1;	/* microseconds from A's issue */
};

struct model {
	off_t size;
	unsigned char d[SPAN];	/* zeros at and past size */
};

static int fd, dfd, afd;	/* buffered, O_DIRECT, O_APPEND */
static aio_context_t ctx;
static struct timespec origin;
static unsigned char *prefill;

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - origin.tv_sec) * 1000000LL + (t.tv_nsec - origin.tv_nsec) / 1000;
}

static void sleep_until_us(long long us)
{
	struct timespec t = origin;

	t.tv_sec += us / 1000000;
	t.tv_nsec += (us % 1000000) * 1000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

static ssize_t aio_write(int f, const void *buf, size_t len, off_t off, int flags)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long ret;

	memset(&cb, 0, sizeof(cb));
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_fildes = f;
	cb.aio_buf = (uintptr_t)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = off;
	cb.aio_rw_flags = flags;
	ret = syscall(SYS_io_submit, ctx, 1, cbs);
	if (ret != 1)
		return ret < 0 ? -errno : -EIO;
	do {
		ret = syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL);
	} while (ret < 0 && errno == EINTR);
	if (ret != 1)
		return ret < 0 ? -errno : -EIO;
	return ev.res;
}

static ssize_t sysret(ssize_t ret)
{
	return ret < 0 ? -errno : ret;
}

static void run_op(struct op *o)
{
	o->t0 = now_us();
	switch (o->kind) {
	case K_WT:
		o->ret = atw_pwrite(fd, o->buf, WLEN, BASE, WT_FLAG);
		break;
	case K_DIO:
		o->ret = sysret(pwrite(dfd, o->buf, WLEN, BASE));
		break;
	case K_AIO_WT:
		o->ret = aio_write(fd, o->buf, WLEN, BASE, WT_FLAG);
		break;
	case K_AIO_DIO:
		o->ret = aio_write(dfd, o->buf, WLEN, BASE, 0);
		break;
	case K_TRUNCATE:
		o->ret = sysret(ftruncate(fd, BASE + 8192));
		break;
	case K_APPEND:
		o->ret = sysret(write(afd, o->buf, WLEN));
		break;
	case K_BUF_PAST:
		o->ret = sysret(pwrite(fd, o->buf, WLEN, BASE + 8192));
		break;
	case K_WT_PAST:
		o->ret = atw_pwrite(fd, o->buf, WLEN, BASE + 8192, WT_FLAG);
		break;
	case K_FALLOC:
		o->ret = sysret(fallocate(fd, 0, BASE, 8192));
		break;
	case K_ZERO:
		o->ret = sysret(fallocate(fd, FALLOC_FL_ZERO_RANGE, BASE + 4096, 4096));
		break;
	}
	o->t1 = now_us();
}

static bool writes_data(enum kind k)
{
	return k != K_TRUNCATE && k != K_FALLOC && k != K_ZERO;
}

static bool ret_ok(const struct op *o)
{
	return o->ret == (writes_data(o->kind) ? WLEN : 0);
}

static void model_write(struct model *m, off_t off, const unsigned char *buf)
{
	memcpy(m->d + off, buf, WLEN);
	if (off + WLEN > m->size)
		m->size = off + WLEN;
}

static void apply(struct model *m, const struct op *o)
{
	switch (o->kind) {
	case K_WT: case K_DIO: case K_AIO_WT: case K_AIO_DIO:
		model_write(m, BASE, o->buf);
		break;
	case K_TRUNCATE:
		if (BASE + 8192 < m->size)
			memset(m->d + BASE + 8192, 0, m->size - (BASE + 8192));
		m->size = BASE + 8192;
		break;
	case K_APPEND:
		model_write(m, m->size, o->buf);
		break;
	case K_BUF_PAST: case K_WT_PAST:
		model_write(m, BASE + 8192, o->buf);
		break;
	case K_FALLOC:
		if (BASE + 8192 > m->size)
			m->size = BASE + 8192;
		break;
	case K_ZERO:
		memset(m->d + BASE + 4096, 0, 4096);
		if (BASE + 8192 > m->size)
			m->size = BASE + 8192;
		break;
	}
}

static void serial(struct model *m, const struct op *first, const struct op *second)
{
	memset(m, 0, sizeof(*m));
	memcpy(m->d, prefill, BASE);
	m->size = BASE;
	apply(m, first);
	apply(m, second);
}

static bool same(const struct model *a, const struct model *b)
{
	return a->size == b->size && !memcmp(a->d, b->d, SPAN);
}

/* "S+4K" */
static const char *rel(off_t off, char *s, size_t len)
{
	long d = (long)(off - BASE);

	if (d % 1024)
		snprintf(s, len, "S%+ld", d);
	else
		snprintf(s, len, "S%+ldK", d / 1024);
	if (!d)
		snprintf(s, len, "S");
	return s;
}

/* What 512 bytes at file offset x are: zeros, the prefill, or whose data placed where. */
static void chunk_label(const unsigned char *p, off_t x, const struct op *a, const struct op *b,
			char *s, size_t len)
{
	static const off_t bases[] = { BASE, BASE + 4096, BASE + 8192 };
	const struct op *ops[2] = { a, b };
	char r[24];
	unsigned int i, j;

	if (wt_nonzero(p, 512) < 0) {
		snprintf(s, len, "zeros");
		return;
	}
	if (x < BASE && wt_pattern_bad(p, 512, x, 1) < 0) {
		snprintf(s, len, "prefill");
		return;
	}
	for (i = 0; i < 2; i++) {
		if (!writes_data(ops[i]->kind))
			continue;
		for (j = 0; j < 3; j++)
			if (x >= bases[j] && x < bases[j] + WLEN &&
			    wt_pattern_bad(p, 512, x - bases[j], ops[i]->gen) < 0) {
				snprintf(s, len, "%c's data written at %s", ops[i]->who,
					 rel(bases[j], r, sizeof(r)));
				return;
			}
	}
	snprintf(s, len, "other bytes");
}

/* Size and a run-length description of [S-4K, size) in 512-byte chunks. */
static void describe(const char *what, const struct model *m, const struct op *a,
		     const struct op *b)
{
	char line[768], lab[64], cur[64] = "", r1[24], r2[24];
	off_t x, from = BASE - 4096, end = m->size < SPAN ? m->size : SPAN;
	size_t n;

	n = snprintf(line, sizeof(line), "%s: size %s;", what, rel(m->size, r1, sizeof(r1)));
	for (x = from; x < end; x += 512) {
		chunk_label(m->d + x, x, a, b, lab, sizeof(lab));
		if (x > from && strcmp(lab, cur)) {
			if (n < sizeof(line))
				n += snprintf(line + n, sizeof(line) - n, " [%s,%s) %s",
					      rel(from, r1, sizeof(r1)), rel(x, r2, sizeof(r2)), cur);
			from = x;
		}
		memcpy(cur, lab, sizeof(cur));
	}
	if (end > from && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " [%s,%s) %s", rel(from, r1, sizeof(r1)),
			 rel(end, r2, sizeof(r2)), cur);
	diag("  %s", line);
}

struct racer_arg {
	struct op *o;
	long long at;
};

static void *racer(void *p)
{
	struct racer_arg *r = p;

	sleep_until_us(r->at);
	run_op(r->o);
	return NULL;
}

static void open_fresh(void)
{
	char path[512];

	atw_env_unlink(NAME);
	fd = atw_env_open(NAME, O_TRUNC);
	if (pwrite(fd, prefill, BASE, 0) != BASE || fsync(fd))
		tap_bail("prefill of %s: %s", NAME, strerror(errno));
	snprintf(path, sizeof(path), "%s/%s", atw_env()->dir, NAME);
	dfd = open(path, O_RDWR | O_DIRECT);
	afd = open(path, O_WRONLY | O_APPEND);
	if (dfd < 0 || afd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
}

static void close_all(void)
{
	close(fd);
	close(dfd);
	close(afd);
}

/* Counts of one case over its rounds. */
struct tally {
	unsigned int rounds, misfit, failed_call, overlap, first, second;
};

static void one_round(enum kind ka, enum kind kb, unsigned int *seed, unsigned int r,
		      struct tally *t, const char *name)
{
	static struct model got, ab, ba;
	struct op a = { .kind = ka, .who = 'A', .gen = 2 }, b = { .kind = kb, .who = 'B', .gen = 3 };
	unsigned int delay = 300 + wt_rnd(seed, 2701);
	struct racer_arg arg = { &b, 2000 + delay };
	bool fit_ab, fit_ba, calls_ok;
	struct stat st;
	pthread_t th;
	ssize_t n;
	int err;

	a.buf = atw_alloc(WLEN);
	b.buf = atw_alloc(WLEN);
	wt_pattern(a.buf, WLEN, 0, a.gen);
	wt_pattern(b.buf, WLEN, 0, b.gen);
	open_fresh();

	clock_gettime(CLOCK_MONOTONIC, &origin);
	if (pthread_create(&th, NULL, racer, &arg))
		tap_bail("pthread_create");
	sleep_until_us(2000);
	run_op(&a);
	err = wt_join_by(th, wt_deadline(JOIN_SECS));
	if (err) {
		diag("%s round %u: B (%s) did not return in %u s", name, r + 1, kind_name[kb], JOIN_SECS);
		wt_diag_stacks(getpid());
		tap_bail("%s: a call hung", name);
	}
	/* times from A's issue */
	a.t0 -= 2000;
	a.t1 -= 2000;
	b.t0 -= 2000;
	b.t1 -= 2000;

	if (fsync(fd))
		diag("%s round %u: fsync: %s", name, r + 1, strerror(errno));
	wt_drop_caches();
	memset(&got, 0, sizeof(got));
	if (fstat(fd, &st))
		tap_bail("fstat: %s", strerror(errno));
	got.size = st.st_size;
	n = pread(fd, got.d, got.size < SPAN ? got.size : SPAN, 0);
	if (n != (got.size < SPAN ? got.size : SPAN))
		got.size = -1;	/* fits nothing */
	serial(&ab, &a, &b);
	serial(&ba, &b, &a);
	fit_ab = same(&got, &ab);
	fit_ba = same(&got, &ba);
	calls_ok = ret_ok(&a) && ret_ok(&b);

	t->rounds++;
	t->overlap += b.t0 < a.t1 && b.t1 > a.t0;
	t->first += fit_ab;
	t->second += fit_ba;
	t->misfit += !fit_ab && !fit_ba;
	t->failed_call += !calls_ok;
	if ((!fit_ab && !fit_ba) || !calls_ok) {
		if (t->misfit + t->failed_call <= PRINT_MAX) {
			diag("%s round %u: %s (B issued %u us after A)", name, r + 1,
			     !calls_ok ? "a call failed" : "fits no serial order", delay);
			diag("  A %s: %lld..%lld us, returned %zd %s", kind_name[ka], a.t0, a.t1,
			     a.ret, atw_err(a.ret));
			diag("  B %s: %lld..%lld us, returned %zd %s", kind_name[kb], b.t0, b.t1,
			     b.ret, atw_err(b.ret));
			if (got.size < 0)
				diag("  read after drop_caches: short (%zd)", n);
			else
				describe("read after drop_caches", &got, &a, &b);
			describe("serial A then B", &ab, &a, &b);
			describe("serial B then A", &ba, &a, &b);
		}
	}
	close_all();
	free(a.buf);
	free(b.buf);
}

static void run_case(enum kind ka, enum kind kb, unsigned int rounds, bool probe)
{
	struct tally t = { 0 };
	unsigned int seed = 1 + ka * 16 + kb, r;
	char name[160];

	snprintf(name, sizeof(name), "%s vs %s", kind_name[ka], kind_name[kb]);
	for (r = 0; r < rounds; r++)
		one_round(ka, kb, &seed, r, &t, name);
	diag("%s: %u of %u rounds had B called while A was in the kernel; %u fit A then B, %u B then A",
	     name, t.overlap, t.rounds, t.first, t.second);
	if (probe) {
		diag("probe: %s: %u of %u rounds fit no serial order, %u calls failed", name,
		     t.misfit, t.rounds, t.failed_call);
		return;
	}
	check(t.misfit == 0 && t.failed_call == 0,
	      "%s: every round fits a serial order (%u of %u rounds fit no serial order, %u with a failed call)",
	      name, t.misfit, t.rounds, t.failed_call);
}

int main(int argc, char **argv)
{
	bool probe = argc > 2 && !strcmp(argv[2], "--probe-dio-aio");
	unsigned int rounds = 30;
	long long ndelay;

	tap_start("wt_size_race");
	if (argc > 2 + probe)
		rounds = strtoul(argv[2 + probe], NULL, 0);
#ifndef RWF_WRITETHROUGH
	if (!probe) {
		skip(WT_UAPI_SKIP, "wt_size_race");
		return tap_done();
	}
#endif
	atw_env_setup(argc, argv, "wt_size_race DIR [--probe-dio-aio] [ROUNDS]");
	ndelay = wt_sdebug_param("ndelay");
	diag("S = %d, %u rounds per case, B issued 300..3000 us after A; scsi_debug ndelay %lld ns%s",
	     BASE, rounds, ndelay, ndelay > 0 ? "" : " (no device latency: the window is narrow)");
	prefill = atw_alloc(BASE);
	wt_pattern(prefill, BASE, 0, 1);
	if (syscall(SYS_io_setup, 4, &ctx))
		tap_bail("io_setup: %s", strerror(errno));
	if (probe) {
		run_case(K_AIO_DIO, K_TRUNCATE, rounds, true);
		run_case(K_DIO, K_TRUNCATE, rounds, true);
	} else {
		run_case(K_WT, K_TRUNCATE, rounds, false);
		run_case(K_DIO, K_TRUNCATE, rounds, false);
		run_case(K_AIO_WT, K_TRUNCATE, rounds, false);
		run_case(K_WT, K_APPEND, rounds, false);
		run_case(K_DIO, K_APPEND, rounds, false);
		run_case(K_WT, K_BUF_PAST, rounds, false);
		run_case(K_WT, K_WT_PAST, rounds, false);
		run_case(K_WT, K_FALLOC, rounds, false);
		run_case(K_WT, K_ZERO, rounds, false);
	}
	syscall(SYS_io_destroy, ctx);
	atw_env_unlink(NAME);
	free(prefill);
	return tap_done();
}
