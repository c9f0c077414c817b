// SPDX-License-Identifier: GPL-2.0
/*
 * One write-through larger than the memory left (docs/design.md, "Memory
 * bound": one call of any size completes on a machine with less free
 * memory than its length; what it holds under writeback at once is
 * bounded) on the XFS mounted at DIR.
 *
 * A child process mlock()s anonymous memory until MemAvailable is about
 * AVAIL MiB (default 192); then one pwritev2 of LEN MiB (default 256) from
 * LEN iovecs of 1 MiB into one 2 MiB read-only pattern buffer (iovec i
 * starts 4 KiB * (i % 256) into it, so the source costs no memory and each
 * MiB of the file differs). Two cases, each with its own child:
 *  - control: a plain buffered write, then fsync;
 *  - RWF_WRITETHROUGH.
 * Checks per case:
 *  - the call returns the full length (fsync 0 for the control);
 *  - no OOM kill: oom_kill in /proc/vmstat unchanged and the child holding
 *    the memory still alive (it has oom_score_adj 1000, the test -1000, so
 *    an OOM kill takes the child and the test lives to report it);
 *  - no OOM report or allocation failure in the kernel log (/dev/kmsg);
 *  - after the child is gone and the caches dropped: size LEN, and 64
 *    sampled 4 KiB blocks plus the first and the last read the pattern.
 * Printed, not checked: MemAvailable at the start of the write and its
 * minimum, the peaks of Writeback and Dirty during the call (sampled every
 * 100 ms). A watchdog reports a call that has not returned in 900 s (a
 * hang) with the stacks of the test's threads, and ends the test.
 *
 * usage: wt_bigwrite DIR [AVAIL_MIB [LEN_MIB]]
 */
#include "lib/wt_common.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define MIB (1UL << 20)
#define SRC_LEN (2 * MIB)
#define GEN 7
#define NSAMPLES 64
#define HANG_SECS 900	/* a hang, not a measurement */

static unsigned long avail_mib = 192, len_mib = 256;
static int kmsg = -1;

static long long oom_kills(void)
{
	char key[64];
	long long val, v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &val) == 2)
		if (!strcmp(key, "oom_kill"))
			v = val;
	fclose(f);
	return v;
}

/* Kernel log lines since the last call that report an OOM or an allocation failure. */
static unsigned int kmsg_scan(const char *what)
{
	static const char *const oom[] = {
		"invoked oom-killer", "Out of memory", "oom-kill:", "page allocation failure", NULL,
	};

	return wt_kmsg_scan(kmsg, oom, what, 6);
}

/*
 * The child: oom_score_adj 1000, then anonymous memory mlock()ed in
 * shrinking chunks until MemAvailable is about target; says so on the pipe
 * and waits to be killed.
 */
static pid_t start_pressure(long long target_kb, long long *at_kb)
{
	int pfd[2];
	pid_t pid;
	long long got = -1;

	if (pipe(pfd))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!pid) {
		long long avail;

		close(pfd[0]);
		kf_write("/proc/self/oom_score_adj", "1000", 0);
		while ((avail = kf_meminfo_kb("MemAvailable")) > target_kb + 1024) {
			size_t chunk = (avail - target_kb) * 1024 / 2;
			void *p;

			if (chunk > 64 * MIB)
				chunk = 64 * MIB;
			if (chunk < MIB)
				chunk = MIB;
			p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
			if (p == MAP_FAILED || mlock(p, chunk))
				break;
		}
		avail = kf_meminfo_kb("MemAvailable");
		if (write(pfd[1], &avail, sizeof(avail)) != sizeof(avail))
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (read(pfd[0], &got, sizeof(got)) != sizeof(got))
		got = -1;
	close(pfd[0]);
	*at_kb = got;
	return pid;
}

/* Kills the child; returns whether it was alive until then (else says how it died). */
static bool stop_pressure(pid_t pid, const char *what)
{
	int status;
	pid_t r = waitpid(pid, &status, WNOHANG);

	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return true;
	}
	if (r == pid && WIFSIGNALED(status))
		diag("%s: the child holding the memory was killed by signal %d", what,
		     WTERMSIG(status));
	else
		diag("%s: the child holding the memory exited (status 0x%x)", what, status);
	return false;
}

/* --- sampling during the call --- */

static atomic_int sampling;
static long long min_avail, max_wb, max_dirty;

static void *sampler(void *arg)
{
	(void)arg;
	while (atomic_load(&sampling)) {
		long long a = kf_meminfo_kb("MemAvailable"), w = kf_meminfo_kb("Writeback"),
			  d = kf_meminfo_kb("Dirty");

		if (a >= 0 && (min_avail < 0 || a < min_avail))
			min_avail = a;
		if (w > max_wb)
			max_wb = w;
		if (d > max_dirty)
			max_dirty = d;
		usleep(100000);
	}
	return NULL;
}

/* --- the hang watchdog --- */

static atomic_int call_done;
static pid_t watch_child;
static const char *watch_what;

static void *watchdog(void *arg)
{
	time_t dl = time(NULL) + HANG_SECS;

	(void)arg;
	while (!atomic_load(&call_done)) {
		if (time(NULL) > dl) {
			diag("%s: the call has not returned in %u s", watch_what, HANG_SECS);
			wt_diag_stacks(getpid());
			kill(watch_child, SIGKILL);
			tap_bail("%s: hung", watch_what);
		}
		sleep(1);
	}
	return NULL;
}

static unsigned char expected(uint64_t x)
{
	return wt_byte((x / MIB) % 256 * 4096 + x % MIB, GEN);
}

static void verify(const char *what, size_t len)
{
	unsigned char *rd = atw_alloc(4096);
	unsigned int seed = 12345, i, bad = 0, nr = 0;
	int fd = atw_env_open("wt_bigwrite", 0);
	struct stat st;

	if (fstat(fd, &st))
		st.st_size = -1;
	check(st.st_size == (off_t)len, "%s: size %lld after drop_caches (expected %zu)", what,
	      (long long)st.st_size, len);
	for (i = 0; i < NSAMPLES + 2; i++) {
		uint64_t blk = i == 0 ? 0 : i == 1 ? len / 4096 - 1 : wt_rnd(&seed, len / 4096);
		uint64_t off = blk * 4096, j;

		nr++;
		if (pread(fd, rd, 4096, off) != 4096) {
			if (bad++ < 4)
				diag("%s: block at %llu: short read", what, (unsigned long long)off);
			continue;
		}
		for (j = 0; j < 4096; j++)
			if (rd[j] != expected(off + j))
				break;
		if (j < 4096 && bad++ < 4)
			diag("%s: byte %llu is 0x%02x, expected 0x%02x", what,
			     (unsigned long long)(off + j), rd[j], expected(off + j));
	}
	check(bad == 0, "%s: sampled blocks read the pattern after drop_caches (%u of %u bad)", what,
	      bad, nr);
	close(fd);
	free(rd);
}

static void run_case(const char *what, unsigned char *src, int flags)
{
	size_t len = len_mib * MIB, i;
	struct iovec *iov = calloc(len_mib, sizeof(*iov));
	long long at_kb, oom0, oom1;
	pthread_t samp, wd;
	bool alive;
	ssize_t ret;
	int fd, sret = 0;
	unsigned int logged;

	for (i = 0; i < len_mib; i++) {
		iov[i].iov_base = src + (i % 256) * 4096;
		iov[i].iov_len = MIB;
	}
	atw_env_unlink("wt_bigwrite");
	fd = atw_env_open("wt_bigwrite", O_TRUNC);
	wt_drop_caches();
	kmsg_scan("before");
	oom0 = oom_kills();
	watch_child = start_pressure(avail_mib * 1024, &at_kb);
	diag("%s: %lu MiB in one call; MemAvailable %lld MiB with the child's memory locked", what,
	     len_mib, at_kb / 1024);

	min_avail = -1;
	max_wb = max_dirty = 0;
	atomic_store(&sampling, 1);
	atomic_store(&call_done, 0);
	watch_what = what;
	if (pthread_create(&samp, NULL, sampler, NULL) || pthread_create(&wd, NULL, watchdog, NULL))
		tap_bail("pthread_create");
	ret = pwritev2(fd, iov, len_mib, 0, flags);
	if (ret < 0)
		ret = -errno;
	if (!flags && ret == (ssize_t)len && fsync(fd))
		sret = -errno;
	atomic_store(&call_done, 1);
	atomic_store(&sampling, 0);
	pthread_join(samp, NULL);
	pthread_join(wd, NULL);

	oom1 = oom_kills();
	alive = stop_pressure(watch_child, what);
	diag("%s: during the call MemAvailable fell to %lld MiB; Writeback peaked at %lld MiB, Dirty at %lld MiB",
	     what, min_avail / 1024, max_wb / 1024, max_dirty / 1024);
	check(ret == (ssize_t)len && sret == 0, "%s: the call returns %zu (got %zd %s%s%s)", what, len,
	      ret, atw_err(ret), flags ? "" : "; fsync ", flags ? "" : atw_err(sret));
	check(oom1 == oom0 && alive,
	      "%s: no OOM kill (oom_kill %lld -> %lld; the child holding the memory %s)", what, oom0,
	      oom1, alive ? "alive" : "gone");
	logged = kmsg_scan(what);
	check(logged == 0, "%s: no OOM report or allocation failure in the kernel log (%u lines)",
	      what, logged);
	close(fd);
	wt_drop_caches();
	verify(what, len);
	atw_env_unlink("wt_bigwrite");
	free(iov);
}

static void run(void)
{
	unsigned char *src;
	struct statfs sfs;

	if (!len_mib || len_mib > IOV_MAX)
		tap_bail("LEN_MIB %lu: 1 to %d", len_mib, IOV_MAX);
	if (statfs(atw_env()->dir, &sfs) || (uint64_t)sfs.f_bavail * sfs.f_bsize < (len_mib + 16) * MIB)
		tap_bail("%s has %llu MiB free, %lu MiB needed", atw_env()->dir,
			 (unsigned long long)sfs.f_bavail * sfs.f_bsize / MIB, len_mib + 16);
	kf_write("/proc/self/oom_score_adj", "-1000", 0);
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0)
		tap_bail("/dev/kmsg: %s", strerror(errno));
	src = mmap(NULL, SRC_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	wt_pattern(src, SRC_LEN, 0, GEN);
	if (mprotect(src, SRC_LEN, PROT_READ))
		tap_bail("mprotect: %s", strerror(errno));
	diag("MemTotal %lld MiB, MemAvailable %lld MiB; target %lu MiB available, writes of %lu MiB",
	     kf_meminfo_kb("MemTotal") / 1024, kf_meminfo_kb("MemAvailable") / 1024, avail_mib, len_mib);

	run_case("buffered write + fsync (control)", src, 0);
	run_case("RWF_WRITETHROUGH", src, RWF_WRITETHROUGH);

	munmap(src, SRC_LEN);
	close(kmsg);
	kf_write("/proc/self/oom_score_adj", "0", 0);
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_bigwrite");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_bigwrite DIR [AVAIL_MIB [LEN_MIB]]");
	if (argc > 2)
		avail_mib = strtoul(argv[2], NULL, 0);
	if (argc > 3)
		len_mib = strtoul(argv[3], NULL, 0);
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_bigwrite");
#endif
	return tap_done();
}
