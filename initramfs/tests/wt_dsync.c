// SPDX-License-Identifier: GPL-2.0
/*
 * Write-through and data integrity (docs/design.md, "RWF_WRITETHROUGH" and
 * "RWF_DSYNC"), counted at the device, on the XFS mounted at DIR:
 *  - plain RWF_WRITETHROUGH sends neither FUA nor a cache flush;
 *  - RWF_WRITETHROUGH|RWF_DSYNC, RWF_WRITETHROUGH|RWF_SYNC and
 *    RWF_WRITETHROUGH on an O_DSYNC file: over a written extent on a device
 *    with FUA the data write carries FUA, on a write-back cache without
 *    FUA a flush follows the data write; an allocating write sends FUA or
 *    a flush (the log); the same for RWF_ATOMIC (still one atomic command);
 *  - the inode sync is done: after an allocating WT|DSYNC returns, a
 *    shutdown that does not flush the log (XFS_IOC_GOINGDOWN NOLOGFLUSH) and
 *    a remount keep the data and the size -- with a negative control (a
 *    buffered write without sync is lost by the same shutdown).
 * Run it on disks with and without dpofua=1 (scsi_debug) for both branches.
 *
 * usage: wt_dsync DIR   (the disk is $ATW_DISK)
 */
#include "lib/wt_common.h"

#ifdef RWF_WRITETHROUGH

#define WT_XFS_IOC_GOINGDOWN _IOR('X', 125, uint32_t)
#define WT_GOING_NOLOGFLUSH 0x2

struct mode {
	const char *name;
	int rwf;
	int oflags;
	int sync;	/* integrity expected */
};

static int dev_fua, dev_wback;

static void read_caps(void)
{
	const char *name = strrchr(atw_env()->disk, '/') + 1;
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/fua", name);
	dev_fua = !kf_read(path, buf, sizeof(buf)) && atoi(buf) == 1;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/write_cache", name);
	dev_wback = !kf_read(path, buf, sizeof(buf)) && !strcmp(buf, "write back");
	diag("device: FUA %s, write cache %s", dev_fua ? "yes" : "no",
	     dev_wback ? "write back" : "write through");
}

/* Index of the first data write into [phys, phys + len), or -1. */
static int data_cmd(const struct devcount *dc, uint64_t phys, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < dc->ncmd; i++) {
		const struct devcmd *c = &dc->cmd[i];

		if ((c->kind == DEVCMD_WRITE || c->kind == DEVCMD_ATOMIC) &&
		    c->offset < phys + len && phys < c->offset + c->bytes)
			return i;
	}
	return -1;
}

static int flush_after(const struct devcount *dc, int from)
{
	unsigned int i;

	for (i = from < 0 ? 0 : from; i < dc->ncmd; i++)
		if (dc->cmd[i].kind == DEVCMD_FLUSH)
			return 1;
	return 0;
}

static void one(const struct mode *m, int atomic, int allocating, unsigned int idx)
{
	const struct atw_env *e = atw_env();
	size_t len = !atomic ? 4 * (size_t)e->bs : e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min;
	off_t off = (off_t)(idx + 1) * 16 * (len > e->bs ? len : e->bs);
	unsigned char *buf = atw_alloc(len);
	const char *kind = allocating ? "allocating" : "overwrite";
	const char *what = atomic ? "atomic " : "";
	struct devcount dc;
	uint64_t phys = 0;
	ssize_t ret;
	int fd, err, d;

	fd = atw_env_open("wt_dsync", m->oflags);
	if (!allocating) {
		atw_fill(buf, len, off, 1);
		if (atw_pwrite(fd, buf, len, off, 0) != (ssize_t)len || fsync(fd))
			check(0, "pre-write");
	}
	sync();
	atw_fill(buf, len, off, 2);
	err = wt_trace_start();
	ret = atw_pwrite(fd, buf, len, off, m->rwf | (atomic ? RWF_ATOMIC : 0));
	err = err ? err : devcount_stop(&dc, e->lbs);
	if (!check(ret == (ssize_t)len && !err, "%s%s %s: returns the length (got %zd %s)",
		   what, m->name, kind, ret, atw_err(ret)))
		goto out;
	if (wt_phys(fd, off, &phys)) {
		check(0, "%s%s %s: range mapped", what, m->name, kind);
		goto out;
	}
	d = data_cmd(&dc, phys, len);
	if (!check(d >= 0, "%s%s %s: the data write reached the device in the call", what, m->name, kind)) {
		devcount_print(&dc);
		goto out;
	}
	if (atomic)
		check(dc.atomics == 1 && wt_atomics_exact(&dc, phys, len) == 1,
		      "%s%s %s: still exactly one atomic command of the range (%u)", what, m->name,
		      kind, dc.atomics);
	if (!m->sync) {
		if (!check(dc.fuas == 0 && dc.flushes == 0,
			   "%s%s %s: no FUA, no flush (%u FUA, %u flush)", what, m->name, kind,
			   dc.fuas, dc.flushes))
			devcount_print(&dc);
	} else if (!dev_wback) {
		skip("device cache is write-through: nothing to flush", "%s%s %s: integrity",
		     what, m->name, kind);
	} else if (allocating) {
		if (!check(dc.fuas + dc.flushes >= 1, "%s%s %s: FUA or a flush sent (%u FUA, %u flush)",
			   what, m->name, kind, dc.fuas, dc.flushes))
			devcount_print(&dc);
	} else if (dev_fua && m->rwf & RWF_DSYNC && !(m->rwf & RWF_SYNC)) {
		if (!check(dc.cmd[d].fua, "%s%s %s: the data write carries FUA (device has FUA)",
			   what, m->name, kind))
			devcount_print(&dc);
	} else if (dev_fua) {
		if (!check(dc.cmd[d].fua || flush_after(&dc, d),
			   "%s%s %s: FUA on the data write or a flush after it", what, m->name, kind))
			devcount_print(&dc);
	} else {
		if (!check(flush_after(&dc, d), "%s%s %s: a flush after the data write (no FUA on the device)",
			   what, m->name, kind))
			devcount_print(&dc);
	}
out:
	close(fd);
	free(buf);
}

/* After an allocating write and a shutdown that drops the in-memory log. */
static int survives_shutdown(int rwf, size_t len, const char *name, uint64_t gen)
{
	unsigned char *buf = atw_alloc(len), *rd = atw_alloc(len);
	uint32_t how = WT_GOING_NOLOGFLUSH;
	struct stat st;
	int fd, dfd, ok;
	ssize_t ret;

	fd = atw_env_open(name, O_TRUNC);
	fsync(fd);
	sync();
	atw_fill(buf, len, 0, gen);
	ret = atw_pwrite(fd, buf, len, 0, rwf);
	if (ret != (ssize_t)len)
		diag("%s: write returned %zd %s", name, ret, atw_err(ret));
	dfd = open(atw_env()->dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || ioctl(dfd, WT_XFS_IOC_GOINGDOWN, &how))
		tap_bail("XFS_IOC_GOINGDOWN: %s", strerror(errno));
	close(dfd);
	close(fd);
	wt_remount();
	fd = atw_env_open(name, 0);
	ok = !fstat(fd, &st) && st.st_size == (off_t)len &&
	     atw_pread(fd, rd, len, 0) == (ssize_t)len && atw_verify(rd, len, 0, gen);
	diag("%s after shutdown: size %lld, data %s", name, (long long)st.st_size,
	     ok ? "intact" : "missing or wrong");
	close(fd);
	free(buf);
	free(rd);
	return ok;
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	const struct mode modes[] = {
		{ "RWF_WRITETHROUGH", RWF_WRITETHROUGH, 0, 0 },
		{ "RWF_WRITETHROUGH|RWF_DSYNC", RWF_WRITETHROUGH | RWF_DSYNC, 0, 1 },
		{ "RWF_WRITETHROUGH|RWF_SYNC", RWF_WRITETHROUGH | RWF_SYNC, 0, 1 },
		{ "RWF_WRITETHROUGH on O_DSYNC", RWF_WRITETHROUGH, O_DSYNC, 1 },
	};
	int atomic_ok = e->lim.buf_known && e->lim.buf;
	unsigned int i, idx = 0;
	int atomic, alloc;

	read_caps();
	for (atomic = 0; atomic <= 1; atomic++) {
		if (atomic && !atomic_ok) {
			skip("statx advertises no buffered atomic writes", "atomic write-through integrity");
			continue;
		}
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			for (alloc = 0; alloc <= 1; alloc++)
				one(&modes[i], atomic, alloc, idx++);
	}

	check(!survives_shutdown(0, 4 * e->bs, "wt_dsync_control", 3),
	      "negative control: a buffered write without sync is lost by a NOLOGFLUSH shutdown");
	check(survives_shutdown(RWF_WRITETHROUGH | RWF_DSYNC, 4 * e->bs, "wt_dsync_durable", 4),
	      "allocating RWF_WRITETHROUGH|RWF_DSYNC: data and size survive a NOLOGFLUSH shutdown");
	if (atomic_ok)
		check(survives_shutdown(RWF_WRITETHROUGH | RWF_DSYNC | RWF_ATOMIC,
					e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min,
					"wt_dsync_adurable", 5),
		      "allocating atomic WT|DSYNC: data and size survive a NOLOGFLUSH shutdown");
	diag("plain RWF_WRITETHROUGH (no DSYNC), allocating, after the same shutdown: %s",
	     survives_shutdown(RWF_WRITETHROUGH, 4 * e->bs, "wt_dsync_plain", 6) ?
	     "kept" : "lost (allowed: no integrity without DSYNC)");
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_dsync");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_dsync DIR");
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_dsync");
#endif
	return tap_done();
}
