// SPDX-License-Identifier: GPL-2.0
/*
 * pcblk_model: pcblk's performance model (initramfs/modules/powercut/
 * pcblk.c) does what the benchmark's PostgreSQL disk relies on: a command
 * completes no sooner than the model says, a flush that finds data costs its
 * fixed time plus that data at the flush rate, a FUA write pays the flush
 * cost for its own data, and a completion held back across a power cut
 * fails instead of reporting success for a write the cut may have dropped.
 * Lower bounds only: a timer cannot fire early, however slow the emulated
 * CPU; nothing here asserts an upper bound.
 *
 *	pcblk_model DISK    (pcblk loaded with lat_us, mbps, flush_us, flush_mbps)
 */
#include "lib/atomic_io.h"
#include "lib/kfile.h"
#include "lib/pcblk.h"
#include "lib/tap.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long param(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/pcblk/parameters/%s", name);
	if (kf_read(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* us to move bytes at rate MB/s (0: free), as the module computes it. */
static double at_rate(double bytes, long rate)
{
	return rate > 0 ? bytes / rate : 0;
}

/*
 * Submits a 4 KiB write through ring at off and waits until pcblk has
 * handled it and holds its completion ("delayed" counts it). Returns the
 * time of submission, or a negative value if the CQE came first (then
 * *early is the elapsed us) or the write was never handled.
 */
static double submit_held(struct io_uring *ring, int fd, char *buf, off_t off,
			  double *early)
{
	long long held = pcblk_stat("delayed");
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	double t0;
	int i;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_write(sqe, fd, buf, 4096, off);
	t0 = now_us();
	io_uring_submit(ring);
	for (i = 0; i < 2000; i++) {
		if (!io_uring_peek_cqe(ring, &cqe)) {
			*early = now_us() - t0;
			io_uring_cqe_seen(ring, cqe);
			return -1;
		}
		if (pcblk_stat("delayed") > held)
			return t0;
		usleep(1000);
	}
	*early = -1;
	return -1;
}

/*
 * A write held by the model, then the power cut (and, with restore, given
 * back at once) before its timer fires: its completion must be EIO, and
 * no write may have failed another way (ioerr counts writes refused while
 * the power was off).
 */
static void held_across_cut(struct io_uring *ring, int fd, char *buf, long lat,
			    bool restore)
{
	const char *what = restore ? "a cut and a restore" : "a cut";
	struct io_uring_cqe *cqe;
	long long ioerr;
	double t0, early = 0;
	int ret;

	t0 = submit_held(ring, fd, buf, 0, &early);
	if (t0 < 0 && early >= 0) {
		/* a timer cannot fire early: only an overloaded host excuses it */
		if (early < lat)
			check(false, "a held write completed before the model allows (%.0f us < %ld)",
			      early, lat);
		else
			skip("the host was too slow to cut within the latency",
			     "a completion held across %s", what);
		return;
	}
	if (t0 < 0) {
		check(false, "the write was handled and held (delayed grew)");
		return;
	}
	ioerr = pcblk_stat("ioerr");
	check(!pcblk_set("cut", "now") && !pcblk_powered(), "power cut with a write held");
	if (restore)
		check(!pcblk_set("restore", "1") && pcblk_powered(), "power restored at once");
	ret = io_uring_wait_cqe(ring, &cqe);
	check(!ret && cqe->res == -EIO,
	      "the write held across %s fails with EIO (res %d)", what, ret ? ret : cqe->res);
	if (!ret)
		io_uring_cqe_seen(ring, cqe);
	check(pcblk_stat("ioerr") == ioerr,
	      "it failed as a held completion, not as a request refused without power");
	if (!restore)
		check(!pcblk_set("restore", "1") && pcblk_powered(), "power restored");
}

int main(int argc, char **argv)
{
	long lat, mbps, flush, flush_mbps;
	const size_t len = 65536;
	struct io_uring ring;
	double t, need;
	char *buf;
	int fd, ret;

	if (argc < 2)
		tap_bail("usage: pcblk_model DISK");
	tap_start("pcblk_model");
	lat = param("lat_us");
	mbps = param("mbps");
	flush = param("flush_us");
	flush_mbps = param("flush_mbps");
	if (lat < 0 || flush < 0)
		tap_bail("pcblk is not loaded, or has no performance model");
	if (!lat || !flush || !mbps || !flush_mbps) {
		skip("pcblk loaded without all four model parameters", "the model's bounds");
		return tap_done();
	}
	/*
	 * Each term of a bound must be larger than the others' slack, so that
	 * a model that ignores it fails: the plan loads lat_us=100000 mbps=1
	 * flush_us=100000 flush_mbps=1 (64 KiB at 1 MB/s: 65.5 ms).
	 */
	diag("model: command %ld us, %ld MB/s, flush %ld us + %ld MB/s", lat, mbps,
	     flush, flush_mbps);
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0)
		tap_bail("open %s: %s", argv[1], strerror(errno));
	buf = atw_alloc(len);
	memset(buf, 0x5a, len);

	t = now_us();
	ret = atw_pwrite(fd, buf, len, 0, 0);
	t = now_us() - t;
	need = lat + at_rate(len, mbps);
	check(ret == (int)len && t >= need,
	      "a 64 KiB write completes after its transfer and the command latency (%.0f us >= %.0f)",
	      t, need);

	t = now_us();
	ret = fdatasync(fd);
	t = now_us() - t;
	need = flush + at_rate(len, flush_mbps) + lat;
	check(!ret && t >= need,
	      "a flush that finds 64 KiB unflushed takes the flush time, the data at the flush rate and a command (%.0f us >= %.0f)",
	      t, need);

	t = now_us();
	ret = atw_pwrite(fd, buf, len, len, RWF_DSYNC);
	t = now_us() - t;
	need = lat + at_rate(len, mbps) + flush + at_rate(len, flush_mbps);
	check(ret == (int)len && t >= need,
	      "an O_DSYNC (FUA) write pays the flush cost for its own data (%.0f us >= %.0f)",
	      t, need);

	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		tap_bail("io_uring_queue_init: %s", strerror(-ret));
	held_across_cut(&ring, fd, buf, lat, false);
	held_across_cut(&ring, fd, buf, lat, true);
	io_uring_queue_exit(&ring);
	ret = atw_pwrite(fd, buf, 4096, 3 * len, 0);
	check(ret == 4096, "a write issued after the restore succeeds (%d)", ret);
	close(fd);
	return tap_done();
}
