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

int main(int argc, char **argv)
{
	long lat, mbps, flush, flush_mbps;
	const size_t len = 65536;
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	long long delayed0;
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
	if (!lat || !flush) {
		skip("pcblk loaded without lat_us and flush_us", "the model's bounds");
		return tap_done();
	}
	diag("model: command %ld us, %ld MB/s, flush %ld us + %ld MB/s", lat, mbps,
	     flush, flush_mbps);
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0)
		tap_bail("open %s: %s", argv[1], strerror(errno));
	buf = atw_alloc(len);
	memset(buf, 0x5a, len);
	delayed0 = pcblk_stat("delayed");

	/* Nothing unflushed: the flush costs a command, not the flush time. */
	fdatasync(fd);

	t = now_us();
	ret = atw_pwrite(fd, buf, len, 0, 0);
	t = now_us() - t;
	need = lat + at_rate(len, mbps);
	check(ret == (int)len && t >= need,
	      "a 64 KiB write completes after the command latency and its transfer (%.0f us >= %.0f)",
	      t, need);

	t = now_us();
	ret = fdatasync(fd);
	t = now_us() - t;
	need = flush + at_rate(len, flush_mbps);
	check(!ret && t >= need,
	      "a flush that finds 64 KiB unflushed takes the flush time and the data at the flush rate (%.0f us >= %.0f)",
	      t, need);

	t = now_us();
	ret = atw_pwrite(fd, buf, len, len, RWF_DSYNC);
	t = now_us() - t;
	need = lat + at_rate(len, mbps) + flush + at_rate(len, flush_mbps);
	check(ret == (int)len && t >= need,
	      "an O_DSYNC (FUA) write pays the flush cost for its own data (%.0f us >= %.0f)",
	      t, need);
	check(pcblk_stat("delayed") >= delayed0 + 4,
	      "the completions were held back by the model (delayed %lld -> %lld)",
	      delayed0, pcblk_stat("delayed"));

	/* A completion pending when the power goes fails. */
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		tap_bail("io_uring_queue_init: %s", strerror(-ret));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, buf, 4096, 2 * len);
	io_uring_submit(&ring);
	usleep(lat / 10);
	ret = io_uring_peek_cqe(&ring, &cqe);
	if (!ret) {
		skip("the write completed before the cut could be made",
		     "a completion held across a power cut");
		io_uring_cqe_seen(&ring, cqe);
	} else {
		check(!pcblk_set("cut", "now") && !pcblk_powered(), "power cut with a write pending");
		ret = io_uring_wait_cqe(&ring, &cqe);
		check(!ret && cqe->res == -EIO,
		      "the write whose completion the cut caught fails with EIO (res %d)",
		      ret ? ret : cqe->res);
		if (!ret)
			io_uring_cqe_seen(&ring, cqe);
		check(!pcblk_set("restore", "1") && pcblk_powered(), "power restored");
		ret = atw_pwrite(fd, buf, 4096, 3 * len, 0);
		check(ret == 4096, "a write issued after the restore succeeds (%d)", ret);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return tap_done();
}
