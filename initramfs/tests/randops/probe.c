// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c: what the kernel offers: one probe per kind.
 */
#include "randops.h"

/* --- probes --- */
static void unavailable(int k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void unavailable(int k, const char *fmt, ...)
{
	va_list ap;

	kinds[k].avail = false;
	va_start(ap, fmt);
	vsnprintf(kinds[k].why, sizeof(kinds[k].why), fmt, ap);
	va_end(ap);
}

static int probe_write(int fd, int dfd, int flags, bool dio, uint64_t len)
{
	struct iovec iov = { src, len };
	ssize_t ret;

	memset(src, 0x5a, len);
	if (ftruncate(fd, 0))
		return -errno;
	ret = pwritev2(dio ? dfd : fd, &iov, 1, 0, flags);
	return ret == (ssize_t)len ? 0 : ret < 0 ? -errno : -EIO;
}

/*
 * Whether each advertised atomic kind accepts a write to a shared (cloned)
 * block. docs/design.md ("Reflinked files") and series-base say it must (out of place, as
 * 6.13 does); a kernel that refuses with EOPNOTSUPP while statx
 * advertises is reported here, and then an EOPNOTSUPP on a file that has
 * shared extents counts as a refusal, not a mismatch.
 */
static void probe_shared_atomic(int fd, int dfd, int fd1)
{
	static const int ks[] = { K_WT_ATOMIC, K_DIO_ATOMIC, K_BUF_ATOMIC };
	unsigned int i;

	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		int k = ks[i];
		uint32_t mn, mx;
		struct file_clone_range cr = { .src_fd = fd1 };
		struct iovec iov;
		ssize_t ret;

		if (!kinds[k].avail)
			continue;
		atomic_limits(k, &mn, &mx);
		memset(src, 0x3c, mn);
		if (ftruncate(fd1, 0) || pwrite(fd1, src, mn, 0) != (ssize_t)mn || fsync(fd1) ||
		    ftruncate(fd, 0))
			continue;
		cr.src_length = mn;
		if (ioctl(fd, FICLONERANGE, &cr))
			continue;
		iov = (struct iovec){ src, mn };
		ret = pwritev2(is_dio(k) ? dfd : fd, &iov, 1, 0, wflags(k));
		if (ret < 0 && errno == EOPNOTSUPP) {
			shared_refused[k] = true;
			diag("%s: this kernel refuses an atomic write to a shared block with EOPNOTSUPP although statx advertises it; such refusals are counted, not failed",
			     kinds[k].name);
		}
	}
}

void probe(void)
{
	const struct atw_env *e = atw_env();
	char p0[512], p1[512];
	int fd, dfd, fd1, k, ret;
	struct file_clone_range cr;
	struct io_uring_params up;

	for (k = 0; k < NKINDS; k++)
		kinds[k].avail = true;
	snprintf(p0, sizeof(p0), "%s/randops.probe0", e->dir);
	snprintf(p1, sizeof(p1), "%s/randops.probe1", e->dir);
	fd = open(p0, O_RDWR | O_CREAT | O_TRUNC, 0644);
	dfd = open(p0, O_RDWR | O_DIRECT);
	fd1 = open(p1, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dfd < 0 || fd1 < 0)
		tap_bail("probe files: %s", strerror(errno));
	if (!RWF_WT) {
		unavailable(K_WT, "uapi has no RWF_WRITETHROUGH");
		unavailable(K_WT_DSYNC, "uapi has no RWF_WRITETHROUGH");
		unavailable(K_WT_ATOMIC, "uapi has no RWF_WRITETHROUGH");
	} else {
		if ((ret = probe_write(fd, dfd, RWF_WT, false, bs)))
			unavailable(K_WT, "trial RWF_WRITETHROUGH write: %s", strerror(-ret));
		if ((ret = probe_write(fd, dfd, RWF_WT | RWF_DSYNC, false, bs)))
			unavailable(K_WT_DSYNC, "trial RWF_WRITETHROUGH|RWF_DSYNC write: %s",
				    strerror(-ret));
		if (!e->lim.buf)
			unavailable(K_WT_ATOMIC, "statx advertises no buffered atomic unit");
		else if ((ret = probe_write(fd, dfd, RWF_WT | RWF_ATOMIC, false, buf_min)))
			unavailable(K_WT_ATOMIC, "trial RWF_ATOMIC|RWF_WRITETHROUGH of %u: %s",
				    buf_min, strerror(-ret));
	}
	if ((ret = probe_write(fd, dfd, 0, true, lbs)))
		unavailable(K_DIO, "trial O_DIRECT write: %s", strerror(-ret));
	if (!e->lim.dio)
		unavailable(K_DIO_ATOMIC, "statx advertises no DIO atomic unit");
	else if ((ret = probe_write(fd, dfd, RWF_ATOMIC, true, dio_min)))
		unavailable(K_DIO_ATOMIC, "trial O_DIRECT RWF_ATOMIC of %u: %s", dio_min,
			    strerror(-ret));
	if (!e->lim.buf_known)
		unavailable(K_BUF_ATOMIC, "uapi has no STATX_WRITE_ATOMIC_BUF");
	else if (!e->lim.buf)
		unavailable(K_BUF_ATOMIC, "statx advertises no buffered atomic unit");
	else if ((ret = probe_write(fd, dfd, RWF_ATOMIC, false, buf_min)))
		unavailable(K_BUF_ATOMIC, "trial buffered RWF_ATOMIC of %u: %s", buf_min,
			    strerror(-ret));
	if (!kinds[K_DIO].avail)
		unavailable(K_DIO_R, "no O_DIRECT");

	/* fallocate modes on a 4-block file */
	memset(src, 1, 4 * bs);
	if (ftruncate(fd, 0) || pwrite(fd, src, 4 * bs, 0) != 4 * bs)
		tap_bail("probe write: %s", strerror(errno));
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, bs))
		unavailable(K_PUNCH, "punch hole: %s", strerror(errno));
	if (fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, bs))
		unavailable(K_ZERO, "zero range: %s", strerror(errno));
	if (fallocate(fd, FALLOC_FL_INSERT_RANGE, bs, bs))
		unavailable(K_INSERT, "insert range: %s", strerror(errno));
	if (fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, bs, bs))
		unavailable(K_COLLAPSE, "collapse range: %s", strerror(errno));
	if (fallocate(fd, 0, 8 * bs, bs))
		unavailable(K_FALLOC, "fallocate: %s", strerror(errno));
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE))
		unavailable(K_SFR, "sync_file_range: %s", strerror(errno));
	if (ftruncate(fd1, 0) || pwrite(fd1, src, 2 * bs, 0) != 2 * bs || fsync(fd1))
		tap_bail("probe write: %s", strerror(errno));
	cr = (struct file_clone_range){ .src_fd = fd1, .src_offset = 0, .src_length = bs,
					.dest_offset = 0 };
	if (ioctl(fd, FICLONERANGE, &cr)) {
		unavailable(K_CLONE, "FICLONERANGE: %s (no reflink)", strerror(errno));
		unavailable(K_DEDUPE, "FICLONERANGE: %s (no reflink)", strerror(errno));
	} else {
		probe_shared_atomic(fd, dfd, fd1);
	}
	if (kf_write("/proc/sys/vm/drop_caches", "1", 0))
		unavailable(K_DROP, "cannot write /proc/sys/vm/drop_caches");
	memset(&up, 0, sizeof(up));
	if ((ret = io_uring_queue_init(64, &ring, 0)))
		unavailable(K_URING, "io_uring_queue_init: %s", strerror(-ret));
	else
		ring_ok = true;
	if (syscall(SYS_io_setup, 64, &aio_ctx))
		unavailable(K_AIO, "io_setup: %s", strerror(errno));
	{
		char path[256];

		if (wt_inject_path(path, sizeof(path)))
			unavailable(K_FAULT, "no scsi_debug error injection in debugfs");
		else if (!kinds[K_WT].avail && !kinds[K_DIO].avail)
			unavailable(K_FAULT, "no write kind to fail");
	}
	/* the opcode of plain data writes, from a traced direct write */
	if (kinds[K_FAULT].avail && !devcount_start()) {
		struct devcount dc;

		probe_write(fd, dfd, 0, true, bs);
		if (!devcount_stop(&dc, lbs) && wt_first_write_opcode(&dc))
			write_opcode = wt_first_write_opcode(&dc);
	}
	close(fd);
	close(dfd);
	close(fd1);
	unlink(p0);
	unlink(p1);
}
