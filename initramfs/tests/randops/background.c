// SPDX-License-Identifier: GPL-2.0
/*
 * background.c: the background threads (readers checking against the model,
 * mmap stores, remapper, drop_caches) and the watchdog.
 */
#include "randops.h"

/* --- background threads --- */
static void bg_fail_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bg_fail_set(const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&bg_failed, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(bg_fail, sizeof(bg_fail), fmt, ap);
	va_end(ap);
}

/*
 * What a background reader checks. Before each foreground operation starts,
 * run_seed() publishes its window: the bytes of the one file it may change
 * (to EOF and beyond for truncate, collapse and insert) and whether it may
 * change the size (a concurrent group publishes the windows of all its
 * operations at once); after the operation or group, the sizes. A reader
 * snapshots the model outside the windows in flight, reads, and then
 * compares every byte outside the windows of the operations that ran
 * meanwhile with the snapshot, and the length read with the size. Bytes the
 * foreground changes lie in its window, so the snapshot needs no lock
 * against the foreground's model updates, only win_mu for the windows.
 */
struct window {
	uint64_t lo, hi;	/* [lo, hi) of file */
	uint8_t file;
	bool size;		/* may change the file's size */
};

static pthread_mutex_t win_mu = PTHREAD_MUTEX_INITIALIZER;
uint64_t win_started, win_done;	/* operations */
static struct window wins[NWIN];	/* operation n's at n % NWIN */
static uint64_t pub_size[NFILES];
atomic_ulong bg_checked, bg_overtaken;

static struct window op_window(const struct op *o)
{
	struct window w = { .file = o->file, .size = true };

	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		if (o->sub)	/* malformed: must change nothing */
			return (struct window){ .file = o->file };
		/* fallthrough */
	case K_MMAP_W: case K_CLONE: case K_COPY: case K_FALLOC: case K_PUNCH: case K_ZERO:
		w.lo = o->off;
		w.hi = o->off + o->len;
		break;
	case K_URING: case K_AIO:
		w.lo = o->off;
		w.hi = o->off + o->n * o->off2;
		break;
	case K_FAULT:	/* the call's blocks and the dirty neighbour's */
		w.lo = rdown(o->off, bs) >= bs ? rdown(o->off, bs) - bs : 0;
		w.hi = rup(o->off + o->len, bs) + bs;
		break;
	case K_TRUNC:
		w.lo = min64(o->off, files[o->file].size);
		w.hi = ~0ULL;
		break;
	case K_APPEND:	/* at the size when it runs (a group's truncate: its own window) */
		w.lo = files[o->file].size;
		w.hi = ~0ULL;
		break;
	case K_COLLAPSE: case K_INSERT:
		w.lo = o->off;
		w.hi = ~0ULL;
		break;
	default:	/* reads, syncs, drop_caches, dedupe: no change */
		w.size = false;
		break;
	}
	return w;
}

void win_begin(const struct op *o)
{
	struct window w = op_window(o);

	pthread_mutex_lock(&win_mu);
	wins[win_started % NWIN] = w;
	win_started++;
	pthread_mutex_unlock(&win_mu);
}

/*
 * A concurrent group: every operation's window, all in flight until
 * win_end(). The windows are the serial ones from the model before the
 * group: whatever order the group runs in, an operation changes no byte
 * outside the union (a truncate's and an O_APPEND write's run to the end).
 */
void win_begin_group(const struct op *g, int n)
{
	int i;

	pthread_mutex_lock(&win_mu);
	for (i = 0; i < n; i++) {
		wins[win_started % NWIN] = op_window(&g[i]);
		win_started++;
	}
	pthread_mutex_unlock(&win_mu);
}

void win_end(void)
{
	int i;

	pthread_mutex_lock(&win_mu);
	for (i = 0; i < NFILES; i++)
		pub_size[i] = files[i].size;
	win_done = win_started;
	pthread_mutex_unlock(&win_mu);
}

static bool in_window(const struct window *w, int nw, int fi, uint64_t off)
{
	int i;

	for (i = 0; i < nw; i++)
		if (w[i].file == fi && off >= w[i].lo && off < w[i].hi)
			return true;
	return false;
}

/*
 * Buffered reads only: an O_DIRECT read that meets the delalloc extent a
 * racing mmap store made (the mmap thread, or a foreground mmap_write,
 * which takes no iolock) fails with EIO by design in 6.12
 * (iomap_dio_iter(): "Direct I/O collision with buffered writes").
 * Readers keep reading while a fault operation runs: reads issue no device
 * writes, so they cannot take the injected error.
 */
void *reader_thread(void *arg)
{
	uint64_t r = (uintptr_t)arg * 7919 + 1;
	unsigned char *b = atw_alloc(MAXW), *snap = atw_alloc(MAXW);
	struct window w[NWIN];

	while (!atomic_load(&bg_stop) && !atomic_load(&bg_failed)) {
		int fi = rnd(&r, NFILES), nw = 0, i;
		uint64_t len = 1 + rnd(&r, MAXW), off, size, stable, want, d0, n1, n2, x;
		const unsigned char *model = files[fi].data;
		bool exact = true;
		ssize_t ret;

		pthread_mutex_lock(&win_mu);
		size = pub_size[fi];
		off = rnd(&r, size + bs);
		len = min64(len, maxf + MAXW - off);	/* the model's length */
		n1 = win_started;
		d0 = win_done;
		for (x = d0; x < n1; x++)	/* in flight: their windows are not copied */
			w[nw++] = wins[x % NWIN];
		for (x = off; x < off + len; x++)
			if (!in_window(w, nw, fi, x))
				snap[x - off] = model[x];
		pthread_mutex_unlock(&win_mu);

		ret = pread(files[fi].fd, b, len, off);

		pthread_mutex_lock(&win_mu);
		n2 = win_started;
		if (n2 - d0 <= NWIN)	/* else the ring has lost some */
			for (x = n1; x < n2; x++)
				w[nw++] = wins[x % NWIN];
		pthread_mutex_unlock(&win_mu);
		atomic_fetch_add(&bg_reads, 1);
		if (ret < 0) {
			bg_fail_set("reader: read of %llu at %llu of file %d: %s",
				    (unsigned long long)len, (unsigned long long)off, fi,
				    strerror(errno));
			break;
		}
		if (n2 - d0 > NWIN) {
			atomic_fetch_add(&bg_overtaken, 1);
			continue;
		}
		stable = size;
		for (i = 0; i < nw; i++) {
			if (w[i].file != fi || !w[i].size)
				continue;
			exact = false;
			stable = min64(stable, w[i].lo);
		}
		want = off < stable ? min64(len, stable - off) : 0;
		if (exact ? (uint64_t)ret != want : (uint64_t)ret < want) {
			bg_fail_set("reader: read of %llu at %llu of file %d returned %zd, size %llu says %s%llu (operations #%llu to before #%llu ran meanwhile)",
				    (unsigned long long)len, (unsigned long long)off, fi, ret,
				    (unsigned long long)size, exact ? "" : "at least ",
				    (unsigned long long)want, (unsigned long long)d0,
				    (unsigned long long)n2);
			break;
		}
		for (x = 0; x < (uint64_t)ret; x++) {
			if ((fi == 0 && off + x < lo) || in_window(w, nw, fi, off + x) ||
			    b[x] == snap[x])
				continue;
			bg_fail_set("reader: file %d byte %llu (read of %llu at %llu): expected 0x%02x, found 0x%02x; operations #%llu to before #%llu ran meanwhile",
				    fi, (unsigned long long)(off + x), (unsigned long long)len,
				    (unsigned long long)off, snap[x], b[x],
				    (unsigned long long)d0, (unsigned long long)n2);
			break;
		}
		atomic_fetch_add(&bg_checked, 1);
	}
	free(b);
	free(snap);
	return NULL;
}

/* Stores into [0, lo) of file 0 through a shared mapping; checks them. */
void *mmap_thread(void *arg)
{
	uint64_t r = (uintptr_t)arg, gen = 1, i;
	unsigned char *m = calloc(1, lo), *p, *b = atw_alloc(lo);

	p = mmap(NULL, lo, PROT_READ | PROT_WRITE, MAP_SHARED, files[0].fd, 0);
	if (p == MAP_FAILED || !m) {
		bg_fail_set("mmap thread: mmap: %s", strerror(errno));
		return NULL;
	}
	memcpy(m, p, lo);
	while (!atomic_load(&bg_stop) && !atomic_load(&bg_failed)) {
		uint64_t off = rnd(&r, lo), len = 1 + rnd(&r, min64(lo - off, 8192));

		pthread_rwlock_rdlock(&quiesce);
		for (i = 0; i < len; i++)
			m[off + i] = p[off + i] = wt_byte(off + i, gen ^ 0xbadc0de);
		gen++;
		if (rnd(&r, 16) == 0 && msync(p, lo, MS_SYNC))
			bg_fail_set("mmap thread: msync: %s", strerror(errno));
		if (rnd(&r, 8) == 0) {
			ssize_t ret = pread(files[0].fd, b, lo, 0);

			if (ret != (ssize_t)lo || memcmp(b, m, lo)) {
				for (i = 0; ret == (ssize_t)lo && b[i] == m[i]; i++)
					;
				bg_fail_set("mmap thread: pread of its range returned %zd, byte %llu is 0x%02x, stored 0x%02x",
					    ret, (unsigned long long)i, ret == (ssize_t)lo ? b[i] : 0,
					    m[i]);
			}
		}
		pthread_rwlock_unlock(&quiesce);
		atomic_fetch_add(&bg_stores, 1);
	}
	munmap(p, lo);
	free(m);
	free(b);
	return NULL;
}

/*
 * Re-maps pages of the source buffer over themselves (MAP_FIXED, the same
 * memfd page): the content stays, the page is no longer present, and a
 * copy from it in the kernel stops short until it is faulted in again.
 */
void *remap_thread(void *arg)
{
	uint64_t r = (uintptr_t)arg;
	size_t npages = srclen / ps;

	while (!atomic_load(&bg_stop)) {
		size_t pg = rnd(&r, npages);

		pthread_rwlock_rdlock(&quiesce);
		if (mmap(src + pg * ps, ps, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_SHARED, memfd,
			 pg * ps) == MAP_FAILED)
			bg_fail_set("remapper: mmap MAP_FIXED: %s", strerror(errno));
		pthread_rwlock_unlock(&quiesce);
		atomic_fetch_add(&bg_remaps, 1);
	}
	return NULL;
}

void *drop_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&bg_stop)) {
		usleep(drop_ms * 1000);
		pthread_rwlock_rdlock(&quiesce);
		kf_write("/proc/sys/vm/drop_caches", "3", 0);
		pthread_rwlock_unlock(&quiesce);
		atomic_fetch_add(&bg_drops, 1);
	}
	return NULL;
}

/*
 * For the diagnosis of a hang: where each thread of this process waits in
 * the kernel, and every blocked task of the system in the kernel log (sysrq
 * w also lists killable waits, which the hung-task detector passes over).
 */
static void dump_stacks(void)
{
	wt_diag_stacks(getpid());
	kf_write("/proc/sysrq-trigger", "w", 0);
}

/* Reports an operation that does not return (a hang), with the log. */
void *watchdog_thread(void *arg)
{
	unsigned long last = ~0UL;
	double since = now();

	(void)arg;
	for (;;) {
		unsigned long p = atomic_load(&progress);
		struct op *o = cur_op;

		sleep(1);
		if (p != last) {
			last = p;
			since = now();
			continue;
		}
		if (now() - since < hang_secs || !o)
			continue;
		{
			char s[256];

			op_str(o, s, sizeof(s));
			printf("not ok - seed %llu: no progress for %u s: %s has not returned (a hang)\n",
			       (unsigned long long)cur_seed, hang_secs, s);
		}
		print_last();
		dump_stacks();
		write_log("hang");
		printf("1 passed, 1 failed, 0 skipped\n");
		fflush(stdout);
		_exit(1);
	}
	return NULL;
}
