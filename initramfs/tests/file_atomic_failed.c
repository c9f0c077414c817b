// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic writes of two blocks that fail leave nothing behind (docs/design.md,
 * "When an atomic write fails"), direct (RWF_ATOMIC with O_DIRECT) and, where
 * the uapi has it and statx advertises the unit, buffered write-through
 * (RWF_ATOMIC|RWF_WRITETHROUGH), on the XFS mounted at DIR:
 *
 *  faulting buffer: the user buffer has only its first page mapped. Over a
 *     hole (an empty file: the write goes out of place), a cloned file (out
 *     of place) and an aligned written extent (in place, where the allocator
 *     gives one): the write fails with EFAULT, no WARNING reaches the kernel
 *     log (/dev/kmsg from before the write), and the file reads what it did
 *     before (zeros past the size, the old data).
 *
 *  no blocks left after a fault: eight writes of two blocks into holes of an
 *     empty file from an unmapped buffer fail with EFAULT; after a
 *     synchronous blockgc scan (XFS_IOC_FREE_EOFBLOCKS with
 *     XFS_EOF_FLAGS_SYNC, which frees post-EOF and unwritten copy-on-write
 *     preallocation) the file has no block allocated (st_blocks 0).
 *
 *  no blocks left after a device error: an out-of-place write of two blocks
 *     over a cloned file whose plain WRITE the device fails (the injection is
 *     checked to have hit writes of the unit's length without FUA: the
 *     call's blocks are new): EIO, the file reads the old
 *     data, and after the scan st_blocks is what it was before the write.
 *     For write-throughs also submitted through io_uring, where the write
 *     completes asynchronously, without the iolock it held for its copy.
 *
 *  a failed write-through beside a direct write in flight (write-through,
 *     on a disk at 400 ms a command): block 0 of a file is shared with a
 *     clone; an O_DIRECT write of it, submitted through io_uring, allocates
 *     a CoW block and is writing it when a one-block atomic write-through
 *     of the same block, which finds and uses that CoW block, fails at the
 *     device (its WRITE ATOMIC(16) failed once, not retried: ENODATA; the
 *     trace must show the direct write's command started before it and
 *     ended after it, else the round is made again, up to four). The
 *     direct write must return its length and the
 *     block read its data after a dropped cache, as in either serial order
 *     of the two: the failed write must not give back a CoW block that the
 *     direct write still needs.
 *
 * SKIP where no atomic unit of two blocks is advertised.
 *
 * usage: file_atomic_failed DIR
 */
#include "lib/wt_common.h"

#include <liburing.h>
#include <sys/mman.h>

#define G_OLD 1
#define G_NEW 2
#define G_DIO 3
#define WRITES 8
#define WRITE_ATOMIC_16 0x9c

/* XFS_IOC_FREE_EOFBLOCKS (fs/xfs/libxfs/xfs_fs.h) */
struct atw_xfs_eofblocks {
	uint32_t eof_version;
	uint32_t eof_flags;
	uint32_t eof_uid;
	uint32_t eof_gid;
	uint32_t eof_prid;
	uint32_t pad32;
	uint64_t eof_min_file_size;
	uint64_t pad64[12];
};
#define ATW_XFS_EOFBLOCKS_VERSION 1
#define ATW_XFS_EOF_FLAGS_SYNC (1 << 0)
#define ATW_XFS_IOC_FREE_EOFBLOCKS _IOR('X', 58, struct atw_xfs_eofblocks)

static struct atw_env *env;
static size_t unit;

struct path_kind {
	const char *name;
	int oflags;		/* O_DIRECT or 0 */
	int rwf;
	bool uring;		/* submitted through io_uring */
};

static const struct path_kind direct = { "direct", O_DIRECT, RWF_ATOMIC, false };
#ifdef RWF_WRITETHROUGH
static const struct path_kind wthrough = {
	"write-through", 0, RWF_ATOMIC | RWF_WRITETHROUGH, false,
};
static const struct path_kind wthrough_uring = {
	"write-through through io_uring", 0, RWF_ATOMIC | RWF_WRITETHROUGH, true,
};
#endif

/* pwritev2 through io_uring (no IOSQE_ASYNC): the completion's result */
static ssize_t uring_pwrite(int fd, const void *buf, size_t len, off_t off, int rwf)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	ssize_t ret;

	if (io_uring_queue_init(4, &ring, 0))
		tap_bail("io_uring_queue_init");
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, buf, len, off);
	sqe->rw_flags = rwf;
	if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe))
		tap_bail("io_uring submit/wait");
	ret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	return ret;
}

static void blockgc_scan(int fd)
{
	struct atw_xfs_eofblocks eb = {
		.eof_version = ATW_XFS_EOFBLOCKS_VERSION,
		.eof_flags = ATW_XFS_EOF_FLAGS_SYNC,
	};

	if (ioctl(fd, ATW_XFS_IOC_FREE_EOFBLOCKS, &eb))
		tap_bail("XFS_IOC_FREE_EOFBLOCKS: %s", strerror(errno));
}

static long long blocks_of(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		tap_bail("fstat: %s", strerror(errno));
	return st.st_blocks;
}

/* /dev/kmsg, read from its end: what the kernel logs after this call */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static unsigned int kmsg_warnings(int fd, const char *what)
{
	static const char *const needles[] = { "WARNING", "BUG", "Oops", NULL };
	unsigned int n = wt_kmsg_scan(fd, needles, what, 4);

	if (fd >= 0)
		close(fd);
	return n;
}

enum layout { HOLE, CLONED, IN_PLACE };

static const char *layout_name[] = { "hole", "cloned file", "in place" };

/* The file "failed" with [0, unit) in the layout; -1 to skip. */
static int make_file(enum layout l, int oflags)
{
	void *buf = atw_alloc(unit);
	bool aligned = true;
	int fd, src;

	wt_pattern(buf, unit, 0, G_OLD);
	switch (l) {
	case HOLE:
		atw_env_unlink("failed");
		fd = atw_env_open("failed", O_TRUNC | oflags);
		break;
	case CLONED:
		atw_env_unlink("failed_src");
		src = atw_env_open("failed_src", O_TRUNC);
		if (pwrite(src, buf, unit, 0) != (ssize_t)unit || fsync(src))
			tap_bail("write the clone source: %s", strerror(errno));
		atw_env_unlink("failed");
		fd = atw_env_open("failed", O_TRUNC | oflags);
		if (ioctl(fd, FICLONE, src)) {
			diag("FICLONE: %s", strerror(errno));
			close(fd);
			fd = -1;
		}
		close(src);
		break;
	default:
		fd = wt_aligned_file("failed", oflags, 0, unit, &aligned);
		if (pwrite(fd, buf, unit, 0) != (ssize_t)unit || fsync(fd))
			tap_bail("write: %s", strerror(errno));
		if (!aligned) {
			close(fd);
			fd = -1;
		}
		break;
	}
	free(buf);
	return fd;
}

/* What [0, unit) of fd reads: old data, zeros where a hole was, or not. */
static bool reads_as_before(int fd, enum layout l, char *out, size_t len)
{
	void *rd = atw_alloc(unit);
	ssize_t ret = atw_pread(fd, rd, unit, 0);
	struct stat st;
	bool ok;

	if (fstat(fd, &st))
		tap_bail("fstat: %s", strerror(errno));
	if (l == HOLE)
		ok = st.st_size == 0 && ret == 0;
	else
		ok = ret == (ssize_t)unit && wt_pattern_bad(rd, unit, 0, G_OLD) < 0;
	snprintf(out, len, "size %lld, read %s%s", (long long)st.st_size, atw_err(ret),
		 ret == (ssize_t)unit ? (wt_pattern_bad(rd, unit, 0, G_OLD) < 0 ? " old" : " changed") : "");
	free(rd);
	return ok;
}

static void faulting_buffer(const struct path_kind *k, enum layout l)
{
	char what[128], state[96];
	unsigned char *buf;
	ssize_t ret;
	int fd, kmsg;

	snprintf(what, sizeof(what), "faulting buffer, %s, %s", k->name, layout_name[l]);
	fd = make_file(l, k->oflags);
	if (fd < 0) {
		skip(l == CLONED ? "no reflink" : "the allocator gave no extent aligned to the unit",
		     "%s", what);
		return;
	}
	/* only the first page of the buffer is mapped */
	buf = mmap(NULL, unit, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	if (munmap(buf + env->ps, unit - env->ps))
		tap_bail("munmap: %s", strerror(errno));
	wt_pattern(buf, env->ps, 0, G_NEW);

	kmsg = kmsg_open();
	ret = atw_pwrite(fd, buf, unit, 0, k->rwf);
	check(ret == -EFAULT, "%s: the write fails with EFAULT (%s)", what, atw_err(ret));
	check(!kmsg_warnings(kmsg, what), "%s: no warning in the kernel log", what);
	check(reads_as_before(fd, l, state, sizeof(state)), "%s: the file reads as before (%s)",
	      what, state);
	munmap(buf, env->ps);
	close(fd);
}

static void no_blocks_after_fault(const struct path_kind *k)
{
	char what[96];
	void *buf;
	int fd, i, efault = 0;
	long long blocks;
	ssize_t ret = 0;

	snprintf(what, sizeof(what), "no blocks left after a fault, %s", k->name);
	atw_env_unlink("failed");
	fd = atw_env_open("failed", O_TRUNC | k->oflags);
	buf = mmap(NULL, unit, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	for (i = 0; i < WRITES; i++) {
		ret = atw_pwrite(fd, buf, unit, (off_t)(2 * i) * unit, k->rwf);
		efault += ret == -EFAULT;
	}
	check(efault == WRITES, "%s: %d writes of %zu from an unmapped buffer fail with EFAULT (%d did; last %s)",
	      what, WRITES, unit, efault, atw_err(ret));
	blockgc_scan(fd);
	blocks = blocks_of(fd);
	check(blocks == 0, "%s: after a sync blockgc scan the file has no blocks (st_blocks %lld)",
	      what, blocks);
	munmap(buf, unit);
	close(fd);
}

/* The opcode of a plain O_DIRECT write of one block, from a trace. */
static uint8_t plain_write_opcode(void)
{
	void *buf = atw_alloc(env->bs);
	int fd = atw_env_open("failed_probe", O_TRUNC | O_DIRECT);
	struct devcount dc;
	uint8_t op = 0x8a;
	int err;

	wt_pattern(buf, env->bs, 0, 9);
	err = devcount_start();
	if (atw_pwrite(fd, buf, env->bs, 0, 0) != (ssize_t)env->bs)
		tap_bail("probe write failed");
	if (!err && !devcount_stop(&dc, env->lbs) && wt_first_write_opcode(&dc))
		op = wt_first_write_opcode(&dc);
	close(fd);
	atw_env_unlink("failed_probe");
	free(buf);
	return op;
}

static void no_blocks_after_device_error(const struct path_kind *k, uint8_t op)
{
	/* the call's blocks are new: its failed commands are the unit's length */
	struct wt_injected inj = { .opcode = op, .bytes = unit };
	char what[96], state[96];
	long long before = 0, after;
	void *buf = atw_alloc(unit);
	ssize_t ret = 0;
	int fd = -1, armed = 0;

	snprintf(what, sizeof(what), "no blocks left after a device error, %s", k->name);
	wt_pattern(buf, unit, 0, G_NEW);
	for (;;) {
		/* made before arming: its own writes must not take the failure */
		if (fd >= 0)
			close(fd);
		fd = make_file(CLONED, k->oflags);
		if (fd < 0)
			break;
		before = blocks_of(fd);
		armed = wt_inject_arm(&inj);
		if (armed)
			break;
		ret = k->uring ? uring_pwrite(fd, buf, unit, 0, k->rwf) :
				 atw_pwrite(fd, buf, unit, 0, k->rwf);
		if (wt_inject_done(&inj, 0, 0))
			break;
	}
	if (fd < 0) {
		skip("no reflink", "%s", what);
		goto out;
	}
	if (armed)
		tap_bail("%s: inject: %s", what, strerror(-armed));
	check(ret == -EIO && inj.traced && inj.mine > 0,
	      "%s: the write fails with EIO at the device (%s, %d failed commands)", what,
	      atw_err(ret), inj.mine);
	check(reads_as_before(fd, CLONED, state, sizeof(state)), "%s: the file reads as before (%s)",
	      what, state);
	blockgc_scan(fd);
	after = blocks_of(fd);
	check(after == before, "%s: after a sync blockgc scan st_blocks is as before (%lld, then %lld)",
	      what, before, after);
	close(fd);
out:
	free(buf);
}

#ifdef RWF_WRITETHROUGH
/*
 * In the trace of a round: did the direct write's command (the first plain
 * write of one block without FUA) start before the write-through's first (a
 * WRITE ATOMIC(16) of one block), at the same device address, and end after
 * the last of those?
 */
static bool direct_around(size_t bs)
{
	struct wt_trace *t = wt_tr();
	int i, x = -1, a = -1, a_end = -1;

	for (i = 0; i < t->n; i++) {
		const struct wt_ev *e = &t->ev[i];

		if (e->kind != WT_EV_START || !wt_tr_is_write(e) || e->bytes != bs)
			continue;
		if (e->cdblen && e->cdb[0] == WRITE_ATOMIC_16) {
			if (a < 0)
				a = i;
			if (wt_tr_end(i) > a_end)
				a_end = wt_tr_end(i);
		} else if (!e->fua && x < 0) {
			x = i;
		}
	}
	/* the same CoW block: the direct write allocated it, the write-through used it */
	if (x < 0 || a < 0 || x > a || wt_tr_end(x) < a_end || t->ev[x].off != t->ev[a].off) {
		diag("round not counted: direct write's command at %d (ends %d), the "
		     "write-through's at %d (ends %d), %s device address", x,
		     x < 0 ? -1 : wt_tr_end(x), a, a_end,
		     x >= 0 && a >= 0 && t->ev[x].off == t->ev[a].off ? "the same" : "not the same");
		return false;
	}
	return true;
}

/* One round: 1 counted (*ok), 0 not counted, -1 no reflink. */
static int beside_direct_cow_once(const char *what, bool *ok)
{
	size_t bs = env->bs;
	/*
	 * The write-through's command, the only atomic one, of one block,
	 * fails once and at once (not retried: -ENODATA), while the direct
	 * write's is still in flight.
	 */
	struct wt_injected inj = { .opcode = WRITE_ATOMIC_16, .once = 1, .bytes = bs };
	unsigned char *buf = atw_alloc(4 * bs), *dbuf = atw_alloc(bs), *wbuf = atw_alloc(bs);
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	ssize_t wret, dret;
	int fd, dfd, cfd, i, armed, bad, counted = 1;

	wt_pattern(buf, 4 * bs, 0, G_OLD);
	fd = atw_env_open("failed_cow", O_TRUNC);
	if (pwrite(fd, buf, 4 * bs, 0) != (ssize_t)(4 * bs) || fsync(fd))
		tap_bail("%s: write: %s", what, strerror(errno));
	cfd = atw_env_open("failed_cow_clone", O_TRUNC);
	if (ioctl(cfd, FICLONE, fd)) {
		diag("FICLONE: %s", strerror(errno));
		counted = -1;
		goto out;
	}
	dfd = atw_env_open("failed_cow", O_DIRECT);
	wt_pattern(dbuf, bs, 0, G_DIO);
	wt_pattern(wbuf, bs, 0, G_NEW);
	if (io_uring_queue_init(4, &ring, 0))
		tap_bail("io_uring_queue_init");
	armed = wt_inject_arm(&inj);
	if (armed)
		tap_bail("%s: inject: %s", what, strerror(-armed));
	/* what sync() sent out first is done, so a write in flight is the direct one */
	for (i = 0; i < 10000 && wt_inflight_writes() > 0; i++)
		usleep(500);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, dfd, dbuf, bs, 0);
	if (io_uring_submit(&ring) != 1)
		tap_bail("io_uring_submit");
	for (i = 0; i < 10000 && wt_inflight_writes() < 1; i++)
		usleep(500);
	wret = atw_pwrite(fd, wbuf, bs, 0, RWF_ATOMIC | RWF_WRITETHROUGH);
	if (io_uring_wait_cqe(&ring, &cqe))
		tap_bail("io_uring_wait_cqe");
	dret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	wt_inject_done(&inj, 0, 0);
	if (!inj.traced || !direct_around(bs)) {
		counted = 0;
		goto out_dfd;
	}
	wt_drop_caches();
	if (pread(fd, buf, bs, 0) != (ssize_t)bs)
		tap_bail("%s: read: %s", what, strerror(errno));
	bad = wt_pattern_bad(buf, bs, 0, G_DIO);
	*ok = wret == -ENODATA && inj.mine > 0 && dret == (ssize_t)bs && bad < 0;
	if (!*ok)
		diag("write-through %s (%d failed one-block WRITE ATOMIC(16)), direct write %s, "
		     "the block reads %s after a dropped cache", atw_err(wret), inj.mine,
		     atw_err(dret), bad < 0 ? "the direct write's data" :
		     wt_pattern_bad(buf, bs, 0, G_OLD) < 0 ?
		     "the old data: the direct write is lost" : "neither the old nor the new data");
out_dfd:
	close(dfd);
out:
	close(cfd);
	close(fd);
	free(buf);
	free(dbuf);
	free(wbuf);
	return counted;
}

static void failed_beside_direct_cow(void)
{
	const char *what = "a failed atomic write-through of a shared block beside a direct "
			   "write of it in flight";
	long long ndelay, jdelay;
	bool ok = false;
	int k, r = 0, err;

	ndelay = wt_sdebug_slow(400000000, &jdelay);
	if (ndelay < 0) {
		skip("scsi_debug's delay cannot be set", "%s", what);
		return;
	}
	for (k = 0; k < 4 && !(r = beside_direct_cow_once(what, &ok)); k++)
		;
	err = wt_sdebug_restore_delay(ndelay, jdelay);
	if (err)
		tap_bail("restoring scsi_debug's delay: %s", strerror(-err));
	if (r < 0)
		skip("no reflink", "%s", what);
	else if (!r)
		check(false, "%s: no round counted in 4", what);
	else
		check(ok, "%s: the write-through fails at the device (ENODATA), the direct write "
		      "returns its length, and the block reads its data after a dropped cache", what);
}
#endif

static void run_path(const struct path_kind *k, uint8_t op)
{
	faulting_buffer(k, HOLE);
	faulting_buffer(k, CLONED);
	faulting_buffer(k, IN_PLACE);
	no_blocks_after_fault(k);
	no_blocks_after_device_error(k, op);
}

int main(int argc, char **argv)
{
	uint8_t op;

	tap_start("file_atomic_failed");
	env = atw_env_setup(argc, argv, "usage: file_atomic_failed DIR");
	unit = 2 * env->bs;
#ifdef RWF_WRITETHROUGH
	/* one block: what a file system offers whenever it offers any */
	if (env->lim.buf && env->lim.buf_min <= env->bs)
		failed_beside_direct_cow();
	else
		skip("no buffered atomic writes of one block advertised",
		     "a failed atomic write-through beside a direct write in flight");
#endif
	if (!env->lim.dio || env->lim.dio_max < unit) {
		skip("no direct atomic unit of two blocks advertised",
		     "statx DIO unit max %u, block size %u", env->lim.dio_max, env->bs);
		return tap_done();
	}
	op = plain_write_opcode();
	run_path(&direct, op);
#ifdef RWF_WRITETHROUGH
	if (env->lim.buf && env->lim.buf_max >= unit) {
		run_path(&wthrough, op);
		no_blocks_after_device_error(&wthrough_uring, op);
	} else
		skip("no buffered atomic unit of two blocks advertised",
		     "write-through: statx buffered unit max %u", env->lim.buf_max);
#else
	skip(WT_UAPI_SKIP, "write-through: failed atomic write-throughs");
#endif
	return tap_done();
}
