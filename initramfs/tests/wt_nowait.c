// SPDX-License-Identifier: GPL-2.0
/*
 * IOCB_NOWAIT write-throughs never end short (docs/design.md, "AIO, io_uring
 * and IOCB_NOWAIT") on the XFS mounted at DIR, best on a slow disk. io_uring
 * issues a write inline with IOCB_NOWAIT first and sends it to a worker on
 * -EAGAIN; a short asynchronous completion is the end of it. The write here
 * covers two blocks, each in a folio of its own, while another thread keeps
 * the second block under writeback with write-throughs of its own, so that
 * the inline attempt finds the first folio free and the second one busy:
 *  - every io_uring CQE carries the full length;
 *  - every pwritev2(RWF_WRITETHROUGH|RWF_NOWAIT) returns the full length or
 *    -EAGAIN, never a part;
 *  - afterwards both blocks hold whole writes (the first the last write of
 *    the pair).
 * Then the inline attempt must not sleep in the submitting task when nothing
 * else is in its way: the submitting thread's voluntary context switches
 * (getrusage(RUSAGE_THREAD)) across io_uring_submit() must not move, and
 * every CQE carries the full length, for a write of 16 cached, clean blocks
 *  - in one extent: issued inline, completed asynchronously;
 *  - over two extents, [0, 2 blocks) and [2, 16), cached by readahead in
 *    folios larger than a block, one of which spans the extent boundary.
 *    A write-through that went on into the second extent would come back
 *    to that folio under its own writeback and would have to complete the
 *    first part (wait for its own I/O) in the submitting task; XFS's
 *    direct-write ->iomap_begin refuses a range one mapping does not span
 *    under IOMAP_NOWAIT, so the inline attempt returns -EAGAIN and an
 *    io_uring worker writes. Needs blocks smaller than the folios
 *    readahead makes (below 16 KiB); SKIP otherwise.
 *
 * usage: wt_nowait DIR [ROUNDS]
 */
#include "lib/wt_common.h"

#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>

#ifdef RWF_WRITETHROUGH

#define GEN_PAIR 1000
#define GEN_BUSY 2000000

static int fd;
static size_t bs;
static atomic_int stop;
static atomic_uint busy_writes;

/* Keeps block 1 under writeback: write-throughs of it, back to back. */
static void *busy(void *arg)
{
	unsigned char *buf = atw_alloc(bs);
	uint64_t gen = GEN_BUSY;

	(void)arg;
	while (!atomic_load(&stop)) {
		atw_fill(buf, bs, bs, ++gen);
		if (atw_pwrite(fd, buf, bs, bs, RWF_WRITETHROUGH) == (ssize_t)bs)
			atomic_fetch_add(&busy_writes, 1);
	}
	free(buf);
	return NULL;
}

#define STRADDLE_BLOCKS 16
#define STRADDLE_SPLIT 2

/* Writes [off, off + len) of the file with O_DIRECT: one new extent. */
static void direct_extent(const char *name, int dfd, unsigned char *buf,
			  size_t off, size_t len)
{
	atw_fill(buf, len, off, 1);
	if (pwrite(dfd, buf, len, off) != (ssize_t)len)
		tap_bail("%s: O_DIRECT write at %zu: %s", name, off, strerror(errno));
}

static void nosleep(struct io_uring *ring, unsigned int rounds, bool split_extents)
{
	size_t len = STRADDLE_BLOCKS * bs, split = STRADDLE_SPLIT * bs;
	unsigned char *buf = atw_alloc(len), *rd = atw_alloc(len);
	unsigned int i, slept = 0, bad = 0, whole = 0;
	int sfd, dfd, gfd, first_bad = 0;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;

	const char *what = split_extents ? "over two extents, a folio across them" : "in one extent";

	if (split_extents && bs >= 16384) {
		skip("readahead's folios are one block at this block size: no folio spans two extents",
		     "an inline IOCB_NOWAIT write-through over two extents does not sleep");
		free(buf);
		free(rd);
		return;
	}
	/* Two extents apart: a block of another file goes between them. */
	sfd = atw_env_open("wt_nowait_straddle", O_TRUNC);
	dfd = atw_env_open("wt_nowait_straddle", O_DIRECT);
	gfd = atw_env_open("wt_nowait_gap", O_TRUNC | O_DIRECT);
	if (split_extents) {
		direct_extent("straddle", dfd, buf, 0, split);
		direct_extent("gap", gfd, buf, 0, bs);
		direct_extent("straddle", dfd, buf, split, len - split);
	} else {
		direct_extent("straddle", dfd, buf, 0, len);
	}
	if (fsync(dfd) || fsync(gfd))
		tap_bail("fsync: %s", strerror(errno));
	close(dfd);
	close(gfd);
	/* Readahead caches it in folios of several blocks. */
	if (atw_pread(sfd, rd, len, 0) != (ssize_t)len)
		tap_bail("straddle: buffered read: %s", strerror(errno));

	/* An io-wq worker exists before the first measured submission. */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_write(sqe, sfd, rd, bs, len);
	sqe->flags |= IOSQE_ASYNC;
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		tap_bail("io_uring warm-up");
	io_uring_cqe_seen(ring, cqe);

	for (i = 0; i < rounds; i++) {
		long before;

		atw_fill(buf, len, 0, GEN_PAIR + i);
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_write(sqe, sfd, buf, len, 0);
		sqe->rw_flags = RWF_WRITETHROUGH;
		before = wt_thread_nvcsw();
		if (io_uring_submit(ring) != 1)
			tap_bail("io_uring submit");
		slept += wt_thread_nvcsw() != before;
		if (io_uring_wait_cqe(ring, &cqe))
			tap_bail("io_uring wait");
		if (cqe->res != (int)len && !bad++)
			first_bad = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		if (atw_pread(sfd, rd, len, 0) == (ssize_t)len &&
		    !memcmp(rd, buf, len))
			whole++;
	}
	check(!slept, "an inline IOCB_NOWAIT write-through of %u cached blocks %s: the submitting thread never sleeps (%u of %u submissions slept)",
	      STRADDLE_BLOCKS, what, slept, rounds);
	check(!bad, "...and every CQE carries the full length (%u did not, first %d)", bad, first_bad);
	check(whole == rounds, "...and the file reads each write whole afterwards (%u of %u)", whole, rounds);
	close(sfd);
	atw_env_unlink("wt_nowait_straddle");
	atw_env_unlink("wt_nowait_gap");
	free(buf);
	free(rd);
}

int main(int argc, char **argv)
{
	unsigned int rounds = argc > 2 ? strtoul(argv[2], NULL, 0) : 200;
	unsigned int i, short_cqe = 0, bad_cqe = 0, partial = 0, eagain = 0, full = 0;
	int first_short = 0, first_partial = 0;
	struct io_uring ring;
	unsigned char *buf, *rd;
	pthread_t th;
	uint64_t g;

	tap_start("wt_nowait");
	atw_env_setup(argc, argv, "wt_nowait DIR [ROUNDS]");
	bs = atw_env()->bs;
	buf = atw_alloc(2 * bs);
	rd = atw_alloc(2 * bs);

	/* Two blocks on disk, each cached in a folio of its own. */
	fd = atw_env_open("wt_nowait", O_TRUNC);
	for (i = 0; i < 2; i++) {
		atw_fill(buf, bs, i * bs, 1);
		if (atw_pwrite(fd, buf, bs, i * bs, 0) != (ssize_t)bs)
			tap_bail("pre-write: %s", strerror(errno));
	}
	if (fsync(fd))
		tap_bail("fsync: %s", strerror(errno));
	if (io_uring_queue_init(8, &ring, 0))
		tap_bail("io_uring_queue_init");
	if (pthread_create(&th, NULL, busy, NULL))
		tap_bail("pthread_create");

	for (i = 0; i < rounds; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;
		ssize_t ret;

		atw_fill(buf, 2 * bs, 0, GEN_PAIR + 2 * i);
		io_uring_prep_write(sqe, fd, buf, 2 * bs, 0);
		sqe->rw_flags = RWF_WRITETHROUGH;
		if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe))
			tap_bail("io_uring submit/wait");
		if (cqe->res >= 0 && cqe->res < (int)(2 * bs)) {
			if (!short_cqe++)
				first_short = cqe->res;
		} else if (cqe->res != (int)(2 * bs)) {
			bad_cqe++;
		}
		io_uring_cqe_seen(&ring, cqe);

		atw_fill(buf, 2 * bs, 0, GEN_PAIR + 2 * i + 1);
		ret = atw_pwrite(fd, buf, 2 * bs, 0, RWF_WRITETHROUGH | RWF_NOWAIT);
		if (ret == (ssize_t)(2 * bs)) {
			full++;
		} else if (ret == -EAGAIN) {
			eagain++;
		} else if (!partial++) {
			first_partial = ret;
		}
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);

	diag("%u rounds; the other thread wrote block 1 %u times; RWF_NOWAIT: %u whole, %u EAGAIN",
	     rounds, atomic_load(&busy_writes), full, eagain);
	check(!short_cqe, "io_uring write-through of two blocks, the second busy: every CQE carries the full length (%u short, first %d)",
	      short_cqe, first_short);
	check(!bad_cqe, "io_uring write-through: no CQE carries an error (%u)", bad_cqe);
	check(!partial, "pwritev2(RWF_WRITETHROUGH|RWF_NOWAIT), the second block busy: the full length or -EAGAIN (%u otherwise, first %d)",
	      partial, first_partial);

	/* Block 0: the last write of the pair that wrote it; block 1: whole. */
	if (atw_pread(fd, rd, 2 * bs, 0) != (ssize_t)(2 * bs))
		tap_bail("read back");
	check(wt_version_of(rd, bs, 0, &g) == WT_V_ONE, "block 0 holds one whole write");
	check(wt_version_of(rd + bs, bs, bs, &g) == WT_V_ONE, "block 1 holds one whole write");
	close(fd);
	atw_env_unlink("wt_nowait");

	nosleep(&ring, 16, false);
	nosleep(&ring, 16, true);
	io_uring_queue_exit(&ring);
	free(buf);
	free(rd);
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_nowait");
	skip(WT_UAPI_SKIP, "wt_nowait");
	return tap_done();
}

#endif
