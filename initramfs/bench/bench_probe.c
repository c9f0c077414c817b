// SPDX-License-Identifier: GPL-2.0
/*
 * bench_probe: observe, on the running kernel, the behaviours that the
 * semantics matrix of scripts/compare shows. Not a test: it asserts nothing
 * and always exits 0; it prints one JSON line per (behaviour, mode):
 *
 *	{"probe":ID,"mode":M,"bs":B,"lbs":L,"result":R,"detail":D}
 *
 * Three ways to write one filesystem block atomically, each tried:
 *	dio  O_DIRECT + RWF_ATOMIC                  durable point: the call
 *	wt   buffered RWF_ATOMIC|RWF_WRITETHROUGH   durable point: the call
 *	pga  buffered RWF_ATOMIC                    durable point: fdatasync
 * A mode the kernel refuses (trial write) gives "n/a" rows with the errno.
 * What reaches the device is counted with the scsi_dispatch_cmd_start
 * tracepoint (lib/devcount.c); device errors are injected with scsi_debug.
 *
 *	bench_probe DIR        (DIR on $ATW_DISK, a scsi_debug disk)
 */
#include "lib/atomic_io.h"
#include "lib/devcount.h"
#include "lib/wt_common.h"
#include "lib/bench_rwf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>


enum mode { M_DIO, M_WT, M_PGA, M_NR };

static const char *const mode_name[M_NR] = { "dio", "wt", "pga" };
static const int mode_flags[M_NR] = {
	RWF_ATOMIC, RWF_ATOMIC | RWF_WRITETHROUGH, RWF_ATOMIC,
};

static const char *dir;
static unsigned int bs, lbs, ps;
static int fd_buf, fd_dio;	/* one prepared file, two opens */
static int fd_nocm_buf = -1, fd_nocm_dio = -1;	/* the same, FMODE_NOCMTIME */
static int nocm_err;		/* why there is no FMODE_NOCMTIME open */

/*
 * XFS open-by-handle (fs/xfs/libxfs/xfs_fs.h; xfslibs-dev is not needed for
 * two ioctls): a file opened this way has FMODE_NOCMTIME, so a write does not
 * update mtime/ctime. On 6.12 a NOWAIT write that would have to update them
 * fails with -EAGAIN in file_modified_flags() whatever the write path is;
 * this open takes that out of the io_uring and RWF_NOWAIT probes.
 */
struct xfs_handlereq {
	uint32_t fd;
	void *path;
	uint32_t oflags;
	void *ihandle;
	uint32_t ihandlen;
	void *ohandle;
	uint32_t *ohandlen;
};
#define XFS_IOC_FD_TO_HANDLE	_IOWR('X', 106, struct xfs_handlereq)
#define XFS_IOC_OPEN_BY_HANDLE	_IOWR('X', 107, struct xfs_handlereq)
static uint64_t next_unit = 1;	/* fresh units, never reused */
static struct devcount dc;

#define FILE_UNITS 256

static void emit(const char *probe, enum mode m, const char *result,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void emit(const char *probe, enum mode m, const char *result,
		 const char *fmt, ...)
{
	char detail[256];
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	for (p = detail; *p; p++)
		if (*p == '"' || *p == '\\')
			*p = '\'';
	printf("{\"probe\":\"%s\",\"mode\":\"%s\",\"bs\":%u,\"lbs\":%u,\"result\":\"%s\",\"detail\":\"%s\"}\n",
	       probe, mode_name[m], bs, lbs, result, detail);
	fflush(stdout);
}

static bool nocm;	/* the probe running uses the FMODE_NOCMTIME opens */

static int mode_fd(enum mode m)
{
	if (nocm)
		return m == M_DIO ? fd_nocm_dio : fd_nocm_buf;
	return m == M_DIO ? fd_dio : fd_buf;
}

/* The probe ID, or ID_nocmtime when it runs on the FMODE_NOCMTIME opens. */
static const char *pid(const char *id)
{
	static char buf[64];

	if (!nocm)
		return id;
	snprintf(buf, sizeof(buf), "%s_nocmtime", id);
	return buf;
}

static const char *err_name(ssize_t ret)
{
	return ret >= 0 ? "ok" : strerror((int)-ret);
}

/* The next unused unit: file offset, device address, filled with gen 0. */
static off_t fresh(uint64_t *phys)
{
	off_t off = (off_t)(next_unit++ % FILE_UNITS) * bs;

	if (atw_file_phys(fd_buf, off, phys))
		*phys = UINT64_MAX;
	return off;
}

static void trace_start(void)
{
	if (devcount_start())
		fprintf(stderr, "bench_probe: devcount_start failed\n");
}

static void trace_stop(void)
{
	if (devcount_stop(&dc, lbs))
		fprintf(stderr, "bench_probe: devcount_stop failed\n");
}

static unsigned int atomics_exact(uint64_t phys, uint64_t len)
{
	unsigned int i, n = 0;

	for (i = 0; i < dc.ncmd; i++)
		if (dc.cmd[i].kind == DEVCMD_ATOMIC && dc.cmd[i].offset <= phys &&
		    dc.cmd[i].offset + dc.cmd[i].bytes >= phys + len)
			n++;
	return n;
}

static unsigned int kind_in(enum devcmd_kind k, uint64_t phys, uint64_t len)
{
	unsigned int i, n = 0;

	for (i = 0; i < dc.ncmd; i++)
		if (dc.cmd[i].kind == k && dc.cmd[i].offset < phys + len &&
		    phys < dc.cmd[i].offset + dc.cmd[i].bytes)
			n++;
	return n;
}

static ssize_t mode_write(enum mode m, const void *buf, size_t len, off_t off,
			  int extra)
{
	return atw_pwrite(mode_fd(m), buf, len, off, mode_flags[m] | extra);
}

/* The durable point of a mode: nothing (DIO, WT) or fdatasync (PG_atomic). */
static int durable(enum mode m)
{
	if (m == M_PGA && fdatasync(fd_buf))
		return -errno;
	return 0;
}

/* Atomic write of one unit: on the device as one WRITE ATOMIC, and when? */
static void probe_unit(enum mode m, void *buf)
{
	uint64_t phys;
	off_t off = fresh(&phys);
	unsigned int at_call, at_sync;
	ssize_t ret;

	atw_fill(buf, bs, off, 1);
	trace_start();
	ret = mode_write(m, buf, bs, off, 0);
	trace_stop();
	if (ret != (ssize_t)bs) {
		emit("atomic_unit", m, "no", "%u B write: %s", bs, err_name(ret));
		emit("on_device_at_return", m, "n/a", "write refused");
		return;
	}
	at_call = atomics_exact(phys, bs);
	trace_start();
	durable(m);
	trace_stop();
	at_sync = atomics_exact(phys, bs);
	if (at_call + at_sync == 1)
		emit("atomic_unit", m, "yes", "1 WRITE ATOMIC covering the %u B unit", bs);
	else
		emit("atomic_unit", m, "no", "%u WRITE ATOMIC, %u plain WRITE for the unit",
		     at_call + at_sync, kind_in(DEVCMD_WRITE, phys, bs));
	if (at_call)
		emit("on_device_at_return", m, "yes", "WRITE ATOMIC completed inside the call");
	else
		emit("on_device_at_return", m, "no", "nothing in the call; %u WRITE ATOMIC at fdatasync",
		     at_sync);
}

/*
 * The largest atomic unit statx advertises for the mode (DIO: the direct
 * limits; WT and PG_atomic: the buffered ones), and one write of it at an
 * offset aligned to it, past the probes' blocks.
 */
static void probe_max_unit(enum mode m)
{
	struct atw_limits l;
	uint32_t max;
	off_t off;
	ssize_t ret;
	void *buf;

	if (atw_statx_limits(fd_buf, NULL, &l)) {
		emit("max_unit", m, "n/a", "statx: %s", strerror(errno));
		return;
	}
	max = m == M_DIO ? (l.dio ? l.dio_max : 0) : (l.buf ? l.buf_max : 0);
	if (!max) {
		emit("max_unit", m, "no", "statx advertises no unit");
		return;
	}
	off = (((off_t)FILE_UNITS * bs + max - 1) / max + 1 + m) * (off_t)max;
	buf = atw_alloc(max);
	atw_fill(buf, max, off, 7);
	ret = mode_write(m, buf, max, off, 0);
	durable(m);
	free(buf);
	if (ret == (ssize_t)max)
		emit("max_unit", m, "yes", "%u B (%u blocks): statx max, written", max,
		     max / bs);
	else
		emit("max_unit", m, "no", "%u B (statx max): %s", max, err_name(ret));
}

static void probe_error(enum mode m, void *buf)
{
	uint64_t phys;
	off_t off = fresh(&phys);
	ssize_t ret;
	int sret;

	atw_fill(buf, bs, off, 2);
	if (wt_inject(0x9c, 6)) {
		emit("error_returned", m, "n/a", "scsi_debug error injection unavailable");
		return;
	}
	ret = mode_write(m, buf, bs, off, 0);
	sret = durable(m);
	wt_inject_clear(0x9c);
	if (ret == -EIO)
		emit("error_returned", m, "yes", "the call returns -EIO");
	else if (ret < 0)
		emit("error_returned", m, "no", "the call returns %s", err_name(ret));
	else if (sret == -EIO)
		emit("error_returned", m, "no", "call succeeds; -EIO only from fdatasync");
	else
		emit("error_returned", m, "no", "call and fdatasync succeed (%s)",
		     err_name(sret));
	fdatasync(fd_buf);	/* clear any writeback error state */
}

static void probe_dsync(enum mode m, void *buf)
{
	uint64_t phys;
	off_t off = fresh(&phys);
	unsigned int fua = 0, i;
	ssize_t ret;

	atw_fill(buf, bs, off, 3);
	trace_start();
	ret = mode_write(m, buf, bs, off, RWF_DSYNC);
	trace_stop();
	if (ret != (ssize_t)bs) {
		emit("dsync_durable", m, "no", "RWF_DSYNC write: %s", err_name(ret));
		return;
	}
	for (i = 0; i < dc.ncmd; i++)
		if (dc.cmd[i].fua && dc.cmd[i].offset <= phys &&
		    dc.cmd[i].offset + dc.cmd[i].bytes >= phys + bs)
			fua++;
	if (!atomics_exact(phys, bs))
		emit("dsync_durable", m, "no", "durable but not atomic: %u plain WRITE, %u flush",
		     kind_in(DEVCMD_WRITE, phys, bs), dc.flushes);
	else if (fua)
		emit("dsync_durable", m, "yes", "WRITE ATOMIC with FUA in the call, %u flush",
		     dc.flushes);
	else if (dc.flushes)
		emit("dsync_durable", m, "yes", "WRITE ATOMIC + %u flush in the call", dc.flushes);
	else
		emit("dsync_durable", m, "no", "no FUA and no flush in the call");
}

/* Atomic write, then a non-atomic change of the range, then fdatasync. */
static void probe_overwrite(enum mode m, void *buf, bool use_mmap)
{
	const char *id = use_mmap ? "mmap_store" : "overwrite_keeps_atomic";
	uint64_t phys;
	off_t off = fresh(&phys);
	unsigned int n;
	ssize_t ret;

	atw_fill(buf, bs, off, 4);
	trace_start();
	ret = mode_write(m, buf, bs, off, 0);
	if (ret == (ssize_t)bs) {
		if (use_mmap) {
			off_t pg = off & ~(off_t)(ps - 1);
			char *map = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED,
					 fd_buf, pg);

			if (map == MAP_FAILED) {
				trace_stop();
				emit(id, m, "n/a", "mmap: %s", strerror(errno));
				return;
			}
			map[off - pg + 100] ^= 0xff;
			munmap(map, ps);
		} else {
			char small[512];

			memset(small, 0xee, sizeof(small));
			pwrite(fd_buf, small, sizeof(small), off + bs / 2);
		}
		fdatasync(fd_buf);
	}
	trace_stop();
	if (ret != (ssize_t)bs) {
		emit(id, m, "n/a", "atomic write: %s", err_name(ret));
		return;
	}
	n = atomics_exact(phys, bs);
	if (n)
		emit(id, m, "yes", "the atomic write went out as WRITE ATOMIC (%u), the %s after it",
		     n, use_mmap ? "store" : "plain write");
	else
		emit(id, m, "no", "atomicity lost: the unit went out as %u plain WRITE",
		     kind_in(DEVCMD_WRITE, phys, bs));
}

/* 8 adjacent atomic units, then fdatasync: how many commands? */
static void probe_merge(enum mode m, void *buf)
{
	uint64_t phys0, phys;
	off_t off0 = fresh(&phys0), off;
	unsigned int i, cmds, atomics, plain;
	bool contiguous = true;

	for (i = 1; i < 8; i++) {
		off = fresh(&phys);
		if (off != off0 + (off_t)i * bs || phys != phys0 + (uint64_t)i * bs)
			contiguous = false;
	}
	if (!contiguous) {
		emit("merge", m, "n/a", "no 8 contiguous units in the file");
		return;
	}
	trace_start();
	for (i = 0; i < 8; i++) {
		atw_fill(buf, bs, off0 + i * bs, 5);
		if (mode_write(m, buf, bs, off0 + i * bs, 0) != (ssize_t)bs)
			break;
	}
	fdatasync(fd_buf);
	trace_stop();
	if (i < 8) {
		emit("merge", m, "n/a", "atomic write refused");
		return;
	}
	atomics = kind_in(DEVCMD_ATOMIC, phys0, 8ull * bs);
	cmds = atomics + kind_in(DEVCMD_WRITE, phys0, 8ull * bs);

	/* Control: the same with plain buffered writes. */
	off0 = fresh(&phys0);
	for (i = 1; i < 8; i++)
		fresh(&phys);
	trace_start();
	for (i = 0; i < 8; i++)
		pwrite(fd_buf, buf, bs, off0 + i * bs);
	fdatasync(fd_buf);
	trace_stop();
	plain = kind_in(DEVCMD_WRITE, phys0, 8ull * bs);
	emit("merge", m, cmds < 8 ? "merged" : "not merged",
	     "8 units: %u commands (%u WRITE ATOMIC); plain buffered: %u", cmds,
	     atomics, plain);
}

/* The copy faults half-way: all or nothing, or a short write? */
static void probe_short_copy(enum mode m)
{
	uint64_t phys;
	off_t off = fresh(&phys);
	char *map, *buf, *old = atw_alloc(bs), *now = atw_alloc(bs);
	size_t head;
	ssize_t ret;

	if (m == M_DIO) {
		emit("short_copy", m, "n/a", "no page cache copy");
		goto out;
	}
	if (pread(fd_buf, old, bs, off) != (ssize_t)bs) {
		emit("short_copy", m, "n/a", "pread");
		goto out;
	}
	/* bs bytes of which the second half lies in unmapped pages. */
	head = (bs / 2 + ps - 1) / ps * ps;
	map = mmap(NULL, head + ps + bs, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		emit("short_copy", m, "n/a", "mmap");
		goto out;
	}
	buf = map + head - bs / 2;
	memset(buf, 0x77, bs / 2);
	munmap(map + head, ps + bs);
	ret = mode_write(m, buf, bs, off, 0);
	munmap(map, head);
	durable(m);
	pread(fd_buf, now, bs, off);
	if (ret == (ssize_t)bs)
		emit("short_copy", m, "no", "returned the length from a faulting buffer");
	else if (ret >= 0)
		emit("short_copy", m, "no", "SHORT write: %zd of %u", ret, bs);
	else if (memcmp(old, now, bs))
		emit("short_copy", m, "no", "%s but the range changed", err_name(ret));
	else
		emit("short_copy", m, "yes", "all or nothing: %s, range unchanged",
		     err_name(ret));
out:
	free(old);
	free(now);
}

static unsigned int iowq_workers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "iou-wrk", 7))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

static void probe_uring(enum mode m, void *buf)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned int i, ok = 0, workers;
	int ret, first = 0;

	/*
	 * Nothing cached, for every mode: cached pages would make a DIO NOWAIT
	 * write fail, and 8 fresh blocks may share one large cached folio,
	 * which a write-through keeps under writeback until its I/O is done.
	 */
	wt_drop_caches();
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret) {
		emit(pid("uring_no_punt"), m, "n/a", "io_uring_queue_init: %s", strerror(-ret));
		return;
	}
	for (i = 0; i < 8; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		uint64_t phys;
		off_t off = fresh(&phys);

		io_uring_prep_write(sqe, mode_fd(m), (char *)buf, bs, off);
		sqe->rw_flags = mode_flags[m];
	}
	io_uring_submit(&ring);
	for (i = 0; i < 8; i++) {
		if (io_uring_wait_cqe(&ring, &cqe))
			break;
		if (cqe->res == (int)bs)
			ok++;
		else if (!first)
			first = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	workers = iowq_workers();
	io_uring_queue_exit(&ring);
	if (ok < 8)
		emit(pid("uring_no_punt"), m, "n/a", "%u of 8 completed (first error %s)", ok,
		     strerror(-first));
	else if (!workers)
		emit(pid("uring_no_punt"), m, "yes", "8 writes, no io-wq worker created");
	else
		emit(pid("uring_no_punt"), m, "no", "8 writes punted: %u io-wq workers", workers);
}

static void probe_nowait(enum mode m, void *buf)
{
	uint64_t phys;
	off_t off = fresh(&phys);
	ssize_t ret;

	/* An allocated, clean range, cached for buffered modes only. */
	if (m == M_DIO)
		wt_drop_caches();
	else
		pread(fd_buf, buf, bs, off);
	ret = mode_write(m, buf, bs, off, RWF_NOWAIT);
	durable(m);
	if (ret == (ssize_t)bs)
		emit(pid("nowait"), m, "yes", "RWF_NOWAIT overwrite returns the length");
	else if (ret == -EAGAIN)
		emit(pid("nowait"), m, "yes", "RWF_NOWAIT returns -EAGAIN");
	else
		emit(pid("nowait"), m, "no", "RWF_NOWAIT returns %s", err_name(ret));
}

/*
 * Runs a probe in a child process: io-wq workers belong to the task and
 * linger for seconds after their ring is gone, so a probe that counts them
 * must not see another probe's. The child writes from a buffer of its own:
 * after fork() the parent's anonymous pages are shared copy-on-write, and
 * an atomic write-through, which pins its source pages without faulting
 * under IOCB_NOWAIT, would get -EAGAIN for them (measured: io_uring then
 * punts every such write).
 */
static void in_child(void (*probe)(enum mode, void *), enum mode m, void *buf)
{
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "bench_probe: fork: %s\n", strerror(errno));
		return;
	}
	if (!pid) {
		void *own = atw_alloc(bs);

		memcpy(own, buf, bs);
		probe(m, own);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* The io_uring and RWF_NOWAIT probes, as opened and without timestamps. */
static void probe_async(enum mode m, void *buf)
{
	in_child(probe_uring, m, buf);
	probe_nowait(m, buf);
	if (fd_nocm_buf < 0) {
		emit("uring_no_punt_nocmtime", m, "n/a", "no FMODE_NOCMTIME open: %s",
		     strerror(nocm_err));
		emit("nowait_nocmtime", m, "n/a", "no FMODE_NOCMTIME open: %s",
		     strerror(nocm_err));
		return;
	}
	nocm = true;
	in_child(probe_uring, m, buf);
	probe_nowait(m, buf);
	nocm = false;
}

/* Opens the probe file again by XFS handle, with FMODE_NOCMTIME. */
static int open_nocmtime(void)
{
	unsigned char handle[64];
	uint32_t hlen = sizeof(handle);
	struct xfs_handlereq hr = {
		.fd = fd_buf, .ohandle = handle, .ohandlen = &hlen,
	};

	int dfd, ret = 0;

	if (ioctl(fd_buf, XFS_IOC_FD_TO_HANDLE, &hr) < 0)
		return -errno;
	/* Handles are opened through a directory of the filesystem. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return -errno;
	memset(&hr, 0, sizeof(hr));
	hr.ihandle = handle;
	hr.ihandlen = hlen;
	hr.oflags = O_RDWR;
	fd_nocm_buf = ioctl(dfd, XFS_IOC_OPEN_BY_HANDLE, &hr);
	hr.oflags = O_RDWR | O_DIRECT;
	if (fd_nocm_buf >= 0)
		fd_nocm_dio = ioctl(dfd, XFS_IOC_OPEN_BY_HANDLE, &hr);
	if (fd_nocm_buf < 0 || fd_nocm_dio < 0) {
		ret = -errno;
		if (fd_nocm_buf >= 0)
			close(fd_nocm_buf);
		fd_nocm_buf = -1;
	}
	close(dfd);
	return ret;
}

static int prepare(void)
{
	char path[512];
	struct statfs sfs;
	char *buf;
	long long v;

	v = atw_disk_queue_attr(atw_disk() ? atw_disk() : "", "logical_block_size");
	if (v <= 0)
		return -ENODEV;
	lbs = v;
	ps = sysconf(_SC_PAGESIZE);
	atw_env()->dir = dir;		/* for wt_inject() */
	atw_env()->disk = atw_disk();
	snprintf(path, sizeof(path), "%s/probe.dat", dir);
	fd_buf = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd_buf < 0 || fstatfs(fd_buf, &sfs))
		return -errno;
	bs = sfs.f_bsize;
	buf = atw_alloc((size_t)FILE_UNITS * bs);
	if (pwrite(fd_buf, buf, (size_t)FILE_UNITS * bs, 0) != (ssize_t)FILE_UNITS * bs ||
	    fsync(fd_buf))
		return -errno;
	free(buf);
	fd_dio = open(path, O_RDWR | O_DIRECT);
	if (fd_dio < 0)
		return -errno;
	nocm_err = -open_nocmtime();
	return 0;
}

int main(int argc, char **argv)
{
	void *buf;
	enum mode m;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_probe DIR\n");
		return 2;
	}
	dir = argv[1];
	ret = prepare();
	if (ret) {
		fprintf(stderr, "bench_probe: setup: %s\n", strerror(-ret));
		return 0;
	}
	buf = atw_alloc(bs);
	for (m = 0; m < M_NR; m++) {
		uint64_t phys;
		off_t off = fresh(&phys);

		ret = mode_write(m, buf, bs, off, 0);
		durable(m);
		if (ret != (ssize_t)bs) {
			static const char *const ids[] = {
				"atomic_unit", "on_device_at_return", "error_returned",
				"dsync_durable", "overwrite_keeps_atomic", "mmap_store",
				"merge", "short_copy", "uring_no_punt", "nowait",
				"uring_no_punt_nocmtime", "nowait_nocmtime",
				"max_unit",
			};
			unsigned int i;

			for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
				emit(ids[i], m, "n/a", "%u B %s write refused: %s", bs,
				     mode_name[m], err_name(ret));
			continue;
		}
		probe_unit(m, buf);
		probe_error(m, buf);
		probe_dsync(m, buf);
		probe_overwrite(m, buf, false);
		probe_overwrite(m, buf, true);
		probe_merge(m, buf);
		probe_short_copy(m);
		probe_async(m, buf);
		probe_max_unit(m);
	}
	free(buf);
	return 0;
}
