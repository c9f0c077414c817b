// SPDX-License-Identifier: GPL-2.0
/*
 * Write-through through io_uring (docs/design.md, "AIO, io_uring and
 * IOCB_NOWAIT") on the XFS mounted at DIR, with liburing:
 *  - queue depths 1..64 of plain and (if statx advertises it) atomic
 *    write-throughs, over written extents and allocating: every CQE carries
 *    the length, the device holds every range, atomic ones each inside
 *    exactly one WRITE ATOMIC(16) with no plain write over it (the block
 *    layer may merge adjacent atomic requests; unmerged ones must be exactly
 *    the range);
 *  - IOSQE_ASYNC: the same, through io-wq;
 *  - RWF_NOWAIT: each CQE is the length or -EAGAIN, never -EINVAL or
 *    another error; the same for a synchronous pwritev2;
 *  - errors in the CQE: -EINVAL for a misaligned atomic write, -EOPNOTSUPP
 *    for RWF_ATOMIC without RWF_WRITETHROUGH, -EIO for a device error;
 *  - 64 atomic write-throughs of one range in one submission: all complete,
 *    never two writes to the range in flight together, the range wholly
 *    one version;
 *  - diag "io-wq workers: N" per case: io-wq threads (iou-wrk-*) of this
 *    process seen while the ring worked, and how many writes the device had
 *    in flight together.
 *
 * usage: wt_uring DIR
 */
#include "lib/wt_common.h"

#include <dirent.h>
#include <liburing.h>

#ifdef RWF_WRITETHROUGH

#define MAXQ 64
#define MAX_WORKERS 512

static struct io_uring ring;
static int worker_tid[MAX_WORKERS], nworkers;
static uint8_t write_opcode = 0x8a;

/* Adds the io-wq workers alive now to the set; returns how many are alive. */
static int sample_workers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int alive = 0;

	while (d && (de = readdir(d))) {
		char path[300], comm[64];
		int tid = atoi(de->d_name), i;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
		if (kf_read(path, comm, sizeof(comm)) || strncmp(comm, "iou-wrk-", 8))
			continue;
		alive++;
		for (i = 0; i < nworkers && worker_tid[i] != tid; i++)
			;
		if (i == nworkers && nworkers < MAX_WORKERS)
			worker_tid[nworkers++] = tid;
	}
	if (d)
		closedir(d);
	return alive;
}

struct batch {
	int fd;
	int n;
	size_t len;
	off_t off[MAXQ];
	int res[MAXQ];
	int flags;
	unsigned int sqe_flags;
	unsigned char *buf[MAXQ];
	int gen_step;	/* buffer i carries generation gen + i * gen_step */
	int workers;	/* io-wq workers alive while the batch ran */
	int new_workers;	/* of them, created during the batch */
	int inflight;
};

/* Submits b->n writes at once and reaps them; -errno on a ring failure. */
static int run_batch(struct batch *b, uint64_t gen)
{
	struct io_uring_cqe *cqe;
	int i, ret, err, known = nworkers, alive, max_alive = 0;

	for (i = 0; i < b->n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		if (!sqe)
			return -EBUSY;
		atw_fill(b->buf[i], b->len, b->off[i], gen + i * b->gen_step);
		io_uring_prep_write(sqe, b->fd, b->buf[i], b->len, b->off[i]);
		sqe->rw_flags = b->flags;
		sqe->flags |= b->sqe_flags;
		sqe->user_data = i;
		b->res[i] = -ENODATA;
	}
	err = wt_tr_start();
	ret = io_uring_submit(&ring);
	max_alive = sample_workers();
	if (ret != b->n)
		return ret < 0 ? ret : -EIO;
	for (i = 0; i < b->n; i++) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret)
			return ret;
		if (cqe->user_data < (uint64_t)b->n)
			b->res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		alive = sample_workers();
		if (alive > max_alive)
			max_alive = alive;
	}
	err = err ? err : wt_tr_stop(atw_env()->lbs);
	b->workers = max_alive;
	b->new_workers = nworkers - known;
	b->inflight = err ? -1 : wt_tr_max_inflight_writes();
	return 0;
}

static void batch_alloc(struct batch *b, int fd, int n, size_t len, off_t base, int flags,
			unsigned int sqe_flags)
{
	int i;

	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->n = n;
	b->len = len;
	b->flags = flags;
	b->sqe_flags = sqe_flags;
	for (i = 0; i < n; i++) {
		b->off[i] = base + (off_t)i * len;
		b->buf[i] = atw_alloc(len);
	}
}

static void batch_free(struct batch *b)
{
	int i;

	for (i = 0; i < b->n; i++)
		free(b->buf[i]);
}

static void depth_case(int fd, int atomic, int alloc, int depth, unsigned int sqe_flags,
		       const char *tag, int slot)
{
	const struct atw_env *e = atw_env();
	size_t len = atomic ? (e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min) : e->bs;
	off_t base = (off_t)slot * MAXQ * 4 * len + (off_t)depth * len;
	const char *what = atomic ? "atomic WT" : "WT";
	const char *kind = alloc ? "allocating" : "overwrite";
	unsigned char *dev = atw_alloc(len);
	int i, ret, okres = 0, okdev = 0, exact = 0, whole = 0, torn = 0;
	struct batch b;
	struct devcount dc, pl;

	batch_alloc(&b, fd, depth, len, base, RWF_WRITETHROUGH | (atomic ? RWF_ATOMIC : 0),
		    sqe_flags);
	if (!alloc) {
		for (i = 0; i < depth; i++) {
			atw_fill(b.buf[i], len, b.off[i], 1);
			atw_pwrite(fd, b.buf[i], len, b.off[i], 0);
		}
		fsync(fd);
	} else {
		fdatasync(fd);
	}
	ret = run_batch(&b, 2);
	if (!check(ret == 0, "%s%s %s depth %d: ring submit and reap (%d)", what, tag, kind, depth, ret))
		goto out;
	/* The atomic-command accounting of the same trace, by range. */
	wt_tr_writes(&dc, &pl);
	for (i = 0; i < depth; i++) {
		uint64_t phys;

		okres += b.res[i] == (int)len;
		if (wt_dev_read_range(fd, dev, b.off[i], len) == 0 && atw_verify(dev, len, b.off[i], 2))
			okdev++;
		if (atomic && !wt_phys(fd, b.off[i], &phys)) {
			exact += wt_atomics_exact(&dc, phys, len) == 1;
			whole += wt_atomics_containing(&dc, phys, len) == 1;
			torn += wt_bytes_covered(&pl, phys, len) != 0;
		}
	}
	check(okres == depth, "%s%s %s depth %d: every CQE carries the length (%d of %d; first %d)",
	      what, tag, kind, depth, okres, depth, b.res[0]);
	check(okdev == depth, "%s%s %s depth %d: the device holds every range (%d of %d)",
	      what, tag, kind, depth, okdev, depth);
	if (atomic)
		check(whole == depth && torn == 0 && dc.atomics <= (unsigned int)depth &&
		      (exact == depth || dc.atomics < (unsigned int)depth),
		      "%s%s %s depth %d: each range inside exactly one WRITE ATOMIC(16), no plain write over it (%d whole, %d exact, %u atomic commands, %d ranges with plain writes)",
		      what, tag, kind, depth, whole, exact, dc.atomics, torn);
	else if (write_opcode == 0x8a)
		for (i = 0; i < wt_tr()->n; i++)
			if (wt_tr()->ev[i].kind == WT_EV_START && wt_tr()->ev[i].cmd == WT_CMD_WRITE) {
				write_opcode = wt_tr()->ev[i].cdb[0];
				break;
			}
	diag("io-wq workers: %d (%d new; %s%s, %s, depth %d; device had up to %d writes in flight)",
	     b.workers, b.new_workers, what, tag, kind, depth, b.inflight);
out:
	batch_free(&b);
	free(dev);
}

static void nowait_case(int fd, int atomic, int alloc)
{
	const struct atw_env *e = atw_env();
	size_t len = atomic ? (e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min) : e->bs;
	off_t base = (off_t)(alloc ? 6 : 5) * MAXQ * 4 * len;
	const char *what = atomic ? "atomic WT" : "WT";
	const char *kind = alloc ? "allocating" : "overwrite";
	int i, ret, good = 0, again = 0, other = 0, first_other = 0;
	unsigned char *buf;
	struct batch b;

	batch_alloc(&b, fd, 16, len, base,
		    RWF_WRITETHROUGH | RWF_NOWAIT | (atomic ? RWF_ATOMIC : 0), 0);
	if (!alloc) {
		for (i = 0; i < b.n; i++)
			atw_pwrite(fd, b.buf[i], len, b.off[i], 0);
		fsync(fd);
	}
	ret = run_batch(&b, 3);
	for (i = 0; i < b.n && !ret; i++) {
		if (b.res[i] == (int)len)
			good++;
		else if (b.res[i] == -EAGAIN)
			again++;
		else if (!other++)
			first_other = b.res[i];
	}
	check(!ret && other == 0, "%s|RWF_NOWAIT %s via io_uring: each CQE is the length or -EAGAIN (%d ok, %d EAGAIN, %d other, first %d)",
	      what, kind, good, again, other, first_other);
	diag("io-wq workers: %d (%d new; %s|RWF_NOWAIT, %s)", b.workers, b.new_workers, what, kind);
	buf = atw_alloc(len);
	ret = atw_pwrite(fd, buf, len, base + 32 * len, b.flags);
	check(ret == (int)len || ret == -EAGAIN, "%s|RWF_NOWAIT %s via pwritev2: the length or -EAGAIN (got %d %s)",
	      what, kind, ret, atw_err(ret));
	free(buf);
	batch_free(&b);
}

static int one_sqe(int fd, void *buf, size_t len, off_t off, int flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_write(sqe, fd, buf, len, off);
	sqe->rw_flags = flags;
	sqe->user_data = 7;
	if (io_uring_submit(&ring) != 1)
		return -EBUSY;
	ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	return ret;
}

static void errors_in_cqe(int fd, int atomic_ok)
{
	const struct atw_env *e = atw_env();
	size_t len = atomic_ok ? (e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min) : e->bs;
	unsigned char *buf = atw_alloc(2 * len);
	off_t off = 8 * MAXQ * 4 * (off_t)len;
	struct wt_injected inj = { .opcode = write_opcode };
	uint64_t phys;
	char path[256];
	int armed, ret = 0;

	ret = one_sqe(fd, buf, e->bs, 0, RWF_ATOMIC);
	check(ret == -EOPNOTSUPP, "RWF_ATOMIC without RWF_WRITETHROUGH: CQE -EOPNOTSUPP (got %d)", ret);
	if (atomic_ok) {
		ret = one_sqe(fd, buf, 2 * len, off + len, RWF_ATOMIC | RWF_WRITETHROUGH);
		check(ret == -EINVAL, "misaligned atomic write-through: CQE -EINVAL (got %d)", ret);
	}
	if (wt_inject_path(path, sizeof(path))) {
		skip("no scsi_debug error injection", "device error: CQE -EIO");
		goto out;
	}
	atw_pwrite(fd, buf, len, off, 0);
	fsync(fd);
	if (wt_phys(fd, off, &phys)) {
		check(0, "device write error under a WT: the range has a device address");
		goto out;
	}
	while (!(armed = wt_inject_arm(&inj))) {
		ret = one_sqe(fd, buf, len, off, RWF_WRITETHROUGH);
		if (wt_inject_done(&inj, phys, len))
			break;
	}
	check(!armed && ret == -EIO && (inj.mine || !inj.traced),
	      "device write error under a WT: CQE -EIO (got %d; %d failures on its range, attempt %d)",
	      ret, inj.mine, inj.tries);
	if (atomic_ok && !wt_inject(0x9c, 6)) {
		ret = one_sqe(fd, buf, len, off, RWF_WRITETHROUGH | RWF_ATOMIC);
		wt_inject_clear(0x9c);
		check(ret == -EIO, "device error on WRITE ATOMIC(16): CQE -EIO (got %d)", ret);
	}
out:
	free(buf);
}

static void same_range(int fd)
{
	const struct atw_env *e = atw_env();
	size_t len = e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min;
	off_t off = 10 * MAXQ * 4 * (off_t)len;
	unsigned char *dev = atw_alloc(len);
	struct batch b;
	uint64_t phys, gen = 0;
	int i, ok = 0, ret, ov = -1;
	enum wt_version v = WT_V_MIXED;

	batch_alloc(&b, fd, MAXQ, len, off, RWF_WRITETHROUGH | RWF_ATOMIC, 0);
	atw_fill(b.buf[0], len, off, 1);
	atw_pwrite(fd, b.buf[0], len, off, 0);
	fsync(fd);
	for (i = 0; i < b.n; i++)
		b.off[i] = off;
	b.gen_step = 1;	/* distinct data per SQE: generations 40..103 */
	ret = run_batch(&b, 40);
	for (i = 0; i < b.n && !ret; i++)
		ok += b.res[i] == (int)len;
	if (!ret && !wt_phys(fd, off, &phys))
		ov = wt_tr_concurrent_overlaps(phys, phys + len);
	if (wt_dev_read_range(fd, dev, off, len) == 0)
		v = wt_version_of(dev, len, off, &gen);
	check(!ret && ok == MAXQ, "64 atomic WTs of one range: all complete with the length (%d)", ok);
	check(ov == 0, "64 atomic WTs of one range: never two writes in flight together (%d)", ov);
	check(v == WT_V_ONE && gen >= 40 && gen < 40 + MAXQ,
	      "64 atomic WTs of one range: the device holds one whole version (%s, gen %llu)",
	      wt_version_name(v), (unsigned long long)gen);
	diag("io-wq workers: %d (%d new; 64 atomic WTs of one range)", b.workers, b.new_workers);
	batch_free(&b);
	free(dev);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	int atomic_ok = e->lim.buf_known && e->lim.buf;
	int ret, fd, atomic, alloc, depth, total = 0;

	ret = io_uring_queue_init(2 * MAXQ, &ring, 0);
	if (ret == -ENOSYS) {
		skip("kernel without io_uring", "wt_uring");
		return;
	}
	if (!check(ret == 0, "io_uring_queue_init (%d)", ret))
		return;
	diag("scsi_debug ndelay %lld ns", wt_sdebug_param("ndelay"));
	for (atomic = 0; atomic <= 1; atomic++) {
		if (atomic && !atomic_ok) {
			skip("statx advertises no buffered atomic writes", "atomic write-through via io_uring");
			continue;
		}
		fd = atw_env_open(atomic ? "wt_uring_atomic" : "wt_uring_plain", O_TRUNC);
		for (alloc = 0; alloc <= 1; alloc++)
			for (depth = 1; depth <= MAXQ; depth *= 2)
				depth_case(fd, atomic, alloc, depth, 0, "", 1 + alloc);
		depth_case(fd, atomic, 0, 16, IOSQE_ASYNC, " IOSQE_ASYNC", 3);
		depth_case(fd, atomic, 1, 16, IOSQE_ASYNC, " IOSQE_ASYNC", 4);
		nowait_case(fd, atomic, 0);
		nowait_case(fd, atomic, 1);
		close(fd);
	}
	fd = atw_env_open("wt_uring_err", O_TRUNC);
	errors_in_cqe(fd, atomic_ok);
	if (atomic_ok)
		same_range(fd);
	close(fd);
	total = sample_workers();
	diag("io-wq workers: %d distinct over the whole run (%d alive at the end)", nworkers, total);
	io_uring_queue_exit(&ring);
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_uring");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_uring DIR");
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_uring");
#endif
	return tap_done();
}
