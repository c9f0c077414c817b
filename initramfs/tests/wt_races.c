// SPDX-License-Identifier: GPL-2.0
/*
 * Truncate, hole punch, fallocate, freeze/thaw and shutdown against
 * in-flight write-throughs (docs/design.md, "Truncate, hole punch,
 * fallocate and freeze") on the XFS mounted at DIR.
 * Writer threads loop atomic (if statx advertises it, else plain)
 * write-throughs of whole units at unit-aligned offsets, each unit stamped
 * with its own offset; a racer thread loops one operation per phase, on
 * unit-aligned ranges:
 *  - no phase hangs (each is joined with a deadline; the kernel's hung-task
 *    detector and the harness's splat check back this up);
 *  - every write-through returns its length (EIO only after the shutdown);
 *  - while the filesystem is frozen the device receives no write at all;
 *  - afterwards, after a remount, every unit of the file is zeros or one
 *    whole write of that very offset: no I/O landed on blocks that were
 *    freed and reused, no torn unit;
 *  - xfs_repair -n is clean after the phases and after shutdown + recovery.
 *
 * usage: wt_races DIR [ROUNDS]
 */
#include "lib/wt_common.h"

#include <linux/falloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define WT_XFS_IOC_GOINGDOWN _IOR('X', 125, uint32_t)
#define WT_GOING_LOGFLUSH 0x1
#define NUNITS 256
#define NWRITERS 3
#define PHASE_DEADLINE 600	/* seconds: a hang, not a measurement */

enum phase { P_TRUNCATE, P_PUNCH, P_FALLOC, P_ZERO, P_FREEZE, P_SHUTDOWN };
static const char *const phase_name[] = {
	"truncate", "hole punch", "fallocate", "zero range", "freeze/thaw", "shutdown",
};

static unsigned int rounds = 150;
static size_t unit;
static int wflags;
static int file_fd, dir_fd;
static atomic_int stop_writers;
static atomic_int shut_down;
static atomic_uint unexpected, eio_after_shutdown, writes_done;
static atomic_int first_error;
static unsigned int frozen_writes, frozen_rounds;

static void *writer(void *arg)
{
	unsigned int seed = (uintptr_t)arg * 7919 + 1, gen = (uintptr_t)arg << 24;
	unsigned char *buf = atw_alloc(unit);

	while (!atomic_load(&stop_writers)) {
		off_t off = (off_t)wt_rnd(&seed, NUNITS) * unit;
		ssize_t ret;

		atw_fill(buf, unit, off, ++gen);
		ret = atw_pwrite(file_fd, buf, unit, off, wflags);
		if (ret == (ssize_t)unit) {
			atomic_fetch_add(&writes_done, 1);
		} else if (atomic_load(&shut_down) && ret == -EIO) {
			atomic_fetch_add(&eio_after_shutdown, 1);
		} else {
			atomic_fetch_add(&unexpected, 1);
			atomic_compare_exchange_strong(&first_error, &(int){ 0 }, (int)ret);
		}
	}
	free(buf);
	return NULL;
}

static void racer_round(enum phase p, unsigned int *seed)
{
	off_t off = (off_t)wt_rnd(seed, NUNITS) * unit;
	off_t len = (off_t)(1 + wt_rnd(seed, 8)) * unit;
	struct devcount dc;
	int err;

	switch (p) {
	case P_TRUNCATE:
		if (ftruncate(file_fd, off) || ftruncate(file_fd, (off_t)NUNITS * unit))
			atomic_fetch_add(&unexpected, 1);
		break;
	case P_PUNCH:
		if (fallocate(file_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len))
			atomic_fetch_add(&unexpected, 1);
		break;
	case P_FALLOC:
		if (fallocate(file_fd, FALLOC_FL_KEEP_SIZE, off, len))
			atomic_fetch_add(&unexpected, 1);
		if (fallocate(file_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, unit))
			atomic_fetch_add(&unexpected, 1);
		break;
	case P_ZERO:
		if (fallocate(file_fd, FALLOC_FL_ZERO_RANGE, off, len))
			atomic_fetch_add(&unexpected, 1);
		break;
	case P_FREEZE:
		if (ioctl(dir_fd, FIFREEZE, 0)) {
			atomic_fetch_add(&unexpected, 1);
			break;
		}
		err = devcount_start();
		usleep(2000 + wt_rnd(seed, 3000));	/* let writers pile up; not measured */
		err = err ? err : devcount_stop(&dc, atw_env()->lbs);
		if (!err) {
			frozen_rounds++;
			frozen_writes += dc.writes + dc.atomics;
		}
		if (ioctl(dir_fd, FITHAW, 0))
			atomic_fetch_add(&unexpected, 1);
		break;
	case P_SHUTDOWN:
		break;
	}
}

struct phase_arg {
	enum phase p;
};

static void *racer(void *arg)
{
	enum phase p = ((struct phase_arg *)arg)->p;
	unsigned int i, seed = 4242 + p, n = p == P_FREEZE ? rounds / 5 + 1 : rounds;
	uint32_t how = WT_GOING_LOGFLUSH;

	if (p == P_SHUTDOWN) {
		usleep(20000);	/* writers in flight */
		atomic_store(&shut_down, 1);
		if (ioctl(dir_fd, WT_XFS_IOC_GOINGDOWN, &how))
			atomic_fetch_add(&unexpected, 1);
		usleep(20000);
		return NULL;
	}
	for (i = 0; i < n; i++)
		racer_round(p, &seed);
	return NULL;
}

static void run_phase(enum phase p)
{
	pthread_t w[NWRITERS], r;
	struct phase_arg a = { p };
	unsigned int before = atomic_load(&writes_done);
	time_t deadline;
	int i, hung = 0;
	char name[64];

	atomic_store(&stop_writers, 0);
	atomic_store(&unexpected, 0);
	atomic_store(&first_error, 0);
	for (i = 0; i < NWRITERS; i++)
		pthread_create(&w[i], NULL, writer, (void *)(uintptr_t)(i + 1 + 8 * p));
	pthread_create(&r, NULL, racer, &a);
	deadline = wt_deadline(PHASE_DEADLINE);
	hung |= wt_join_by(r, deadline) != 0;
	atomic_store(&stop_writers, 1);
	for (i = 0; i < NWRITERS && !hung; i++)
		hung |= wt_join_by(w[i], deadline) != 0;
	snprintf(name, sizeof(name), "%s vs write-through", phase_name[p]);
	if (!check(!hung, "%s: no hang (every thread joined)", name)) {
		diag("giving up: threads are stuck");
		exit(tap_done());
	}
	check(atomic_load(&unexpected) == 0,
	      "%s: every call succeeded (%u unexpected, first %d; %u writes done)", name,
	      atomic_load(&unexpected), atomic_load(&first_error),
	      atomic_load(&writes_done) - before);
	if (p == P_SHUTDOWN)
		diag("%s: %u write-throughs failed with EIO after the shutdown", name,
		     atomic_load(&eio_after_shutdown));
	if (p == P_FREEZE)
		check(frozen_rounds > 0 && frozen_writes == 0,
		      "freeze: the device received no write while frozen (%u writes in %u frozen windows)",
		      frozen_writes, frozen_rounds);
}

static void check_units(const char *when)
{
	unsigned char *buf = atw_alloc(unit);
	unsigned int i, zero = 0, whole = 0, bad = 0;
	struct stat st;
	int fd = atw_env_open("wt_races", 0);

	fstat(fd, &st);
	for (i = 0; i < NUNITS && (off_t)((i + 1) * unit) <= st.st_size; i++) {
		off_t off = (off_t)i * unit;
		uint64_t gen;
		enum wt_version v;

		if (atw_pread(fd, buf, unit, off) != (ssize_t)unit) {
			bad++;
			continue;
		}
		v = wt_version_of(buf, unit, off, &gen);
		zero += v == WT_V_ZERO;
		whole += v == WT_V_ONE;
		if (v == WT_V_MIXED && bad++ < 3)
			diag("unit %u (offset %lld) is neither zeros nor one whole write of it", i,
			     (long long)off);
	}
	check(bad == 0, "%s: every unit is zeros or one whole write of its own offset (%u whole, %u zero, %u bad)",
	      when, whole, zero, bad);
	close(fd);
	free(buf);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	enum phase p;

	if (e->lim.buf_known && e->lim.buf) {
		unit = e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min;
		wflags = RWF_WRITETHROUGH | RWF_ATOMIC;
		diag("writers: atomic write-throughs of %zu bytes", unit);
	} else {
		unit = e->bs;
		wflags = RWF_WRITETHROUGH;
		diag("writers: plain write-throughs of %zu bytes (no buffered atomic advertised)", unit);
	}
	file_fd = atw_env_open("wt_races", O_TRUNC);
	dir_fd = open(e->dir, O_RDONLY | O_DIRECTORY);
	if (dir_fd < 0 || ftruncate(file_fd, (off_t)NUNITS * unit))
		tap_bail("setup: %s", strerror(errno));
	for (p = P_TRUNCATE; p <= P_FREEZE; p++)
		run_phase(p);
	close(file_fd);
	close(dir_fd);
	wt_remount();
	check_units("after the races and a remount");
	wt_check_repair("after the races");

	file_fd = atw_env_open("wt_races", 0);
	dir_fd = open(e->dir, O_RDONLY | O_DIRECTORY);
	run_phase(P_SHUTDOWN);
	close(file_fd);
	close(dir_fd);
	wt_remount();	/* log recovery */
	check_units("after shutdown and log recovery");
	wt_check_repair("after shutdown and log recovery");
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_races");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_races DIR [ROUNDS]");
	if (argc > 2)
		rounds = atoi(argv[2]);
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_races");
#endif
	return tap_done();
}
