/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the pga_* tests (the PG_atomic series, buffered RWF_ATOMIC
 * written back atomically): the test directory and its limits, and what a
 * counted fdatasync sent to the device for a file range.
 *
 * Expectations come only from statx STATX_WRITE_ATOMIC_BUF: a kernel whose
 * uapi lacks it, or that does not advertise buffered atomic writes, gets
 * SKIPs (and pga_basic checks that it refuses them).
 */
#ifndef ATW_PGA_COMMON_H
#define ATW_PGA_COMMON_H

#include "atomic_io.h"
#include "test_env.h"
#include "devcount.h"
#include "tap.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#define PGA_NO_BUF "statx advertises no buffered atomic writes (STATX_ATTR_WRITE_ATOMIC_BUF)"
#define PGA_NO_UAPI "uapi has no STATX_WRITE_ATOMIC_BUF"
#define PGA_WT_ONLY "buffered RWF_ATOMIC needs RWF_WRITETHROUGH here (EOPNOTSUPP without it, " \
	"accepted with it): no writeback-time atomics"

/* Buffered atomics only as write-throughs (pga_probe_wt_only()). */
static bool pga_wt_only;

/*
 * The write-through design advertises buffered atomic limits too, but only
 * for RWF_ATOMIC|RWF_WRITETHROUGH. True when a plain buffered RWF_ATOMIC of
 * one unit is refused with EOPNOTSUPP and the same write with
 * RWF_WRITETHROUGH is accepted; anything else (both refused, another error)
 * leaves the writeback-time tests to run and fail.
 */
static inline bool pga_probe_wt_only(int fd, const struct atw_limits *l)
{
#if defined(RWF_ATOMIC) && defined(RWF_WRITETHROUGH)
	struct iovec iov;
	void *buf;
	ssize_t a, b;

	if (!l->buf || !l->buf_min)
		return false;
	if (posix_memalign(&buf, 4096, l->buf_min))
		return false;
	memset(buf, 0, l->buf_min);
	iov.iov_base = buf;
	iov.iov_len = l->buf_min;
	a = pwritev2(fd, &iov, 1, 0, RWF_ATOMIC);
	a = a < 0 ? -errno : a;
	b = pwritev2(fd, &iov, 1, 0, RWF_ATOMIC | RWF_WRITETHROUGH);
	b = b < 0 ? -errno : b;
	free(buf);
	return a == -EOPNOTSUPP && b == (ssize_t)l->buf_min;
#else
	(void)fd;
	(void)l;
	return false;
#endif
}

/* atw_env_setup(), then the write-through-only probe. */
static inline struct atw_env *pga_setup(int argc, char **argv)
{
	struct atw_env *e = atw_env_setup(argc, argv, "pga_* DIR");
	int fd = atw_env_open("pga_probe", O_TRUNC);

	pga_wt_only = pga_probe_wt_only(fd, &e->lim);
	close(fd);
	atw_env_unlink("pga_probe");
	return e;
}

/* True when the tests can run; otherwise one SKIP line named name. */
static inline bool pga_supported(const char *name)
{
	const struct atw_env *e = atw_env();

	if (!e->lim.buf_known) {
		skip(PGA_NO_UAPI, "%s", name);
		return false;
	}
	if (!e->lim.buf) {
		skip(PGA_NO_BUF, "%s", name);
		return false;
	}
	if (pga_wt_only) {
		skip(PGA_WT_ONLY, "%s", name);
		return false;
	}
	return true;
}

/* fdatasync(fd) while counting what reaches the device. */
static inline void pga_sync_counted(int fd, struct devcount *dc)
{
	int err = devcount_start();

	if (err)
		tap_bail("devcount_start: %s", strerror(-err));
	if (fdatasync(fd))
		tap_bail("fdatasync: %s", strerror(errno));
	err = devcount_stop(dc, atw_env()->lbs);
	if (err)
		tap_bail("devcount_stop: %s", strerror(-err));
}

/* Device byte address of file offset off (written and clean by now). */
static inline uint64_t pga_phys(int fd, off_t off)
{
	uint64_t phys;
	int err = atw_file_phys(fd, off, &phys);

	if (err)
		tap_bail("FIEMAP at %lld: %s", (long long)off, strerror(-err));
	return phys;
}

/* What the device received for one device range. */
struct pga_range {
	unsigned int atomic_exact;	/* WRITE ATOMIC of exactly the range */
	unsigned int atomic;		/* WRITE ATOMIC overlapping it */
	unsigned int plain;		/* plain WRITEs overlapping it */
	unsigned int plain_exact;	/* plain WRITEs of exactly the range */
	uint64_t plain_bytes;		/* bytes of those plain writes inside it */
};

static inline struct pga_range pga_range_of(const struct devcount *dc,
					    uint64_t phys, uint64_t len)
{
	struct pga_range r = { 0 };
	unsigned int i;

	for (i = 0; i < dc->ncmd; i++) {
		const struct devcmd *c = &dc->cmd[i];
		uint64_t lo, hi;

		if (c->kind != DEVCMD_WRITE && c->kind != DEVCMD_ATOMIC)
			continue;
		if (!(c->offset < phys + len && phys < c->offset + c->bytes))
			continue;
		if (c->kind == DEVCMD_ATOMIC) {
			r.atomic++;
			if (c->offset == phys && c->bytes == len)
				r.atomic_exact++;
			continue;
		}
		r.plain++;
		if (c->offset == phys && c->bytes == len)
			r.plain_exact++;
		lo = c->offset > phys ? c->offset : phys;
		hi = c->offset + c->bytes < phys + len ? c->offset + c->bytes :
							 phys + len;
		r.plain_bytes += hi - lo;
	}
	return r;
}

/* The range of file fd at off, as the device saw it in dc. */
static inline struct pga_range pga_file_range(const struct devcount *dc, int fd,
					      off_t off, uint64_t len)
{
	return pga_range_of(dc, pga_phys(fd, off), len);
}

/* Reads [off, off + len) of the file's blocks straight from the device. */
static inline int pga_dev_read(int fd, void *buf, off_t off, size_t len)
{
	uint64_t phys = pga_phys(fd, off);
	int dfd = open(atw_env()->disk, O_RDONLY | O_DIRECT);
	ssize_t n;

	if (dfd < 0)
		return -errno;
	n = pread(dfd, buf, len, phys);
	close(dfd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* The device holds exactly want for [off, off + len) of the file. */
static inline bool pga_dev_equals(int fd, const void *want, off_t off,
				  size_t len)
{
	void *rd = atw_alloc(len);
	bool same = pga_dev_read(fd, rd, off, len) == 0 &&
		    !memcmp(rd, want, len);

	free(rd);
	return same;
}

static inline void pga_write_or_bail(int fd, const void *buf, size_t len,
				     off_t off, int flags)
{
	ssize_t ret = atw_pwrite(fd, buf, len, off, flags);

	if (ret != (ssize_t)len)
		tap_bail("pwritev2 %zu at %lld flags 0x%x: %zd %s", len,
			 (long long)off, flags, ret, atw_err(ret));
}

/*
 * Writes len bytes of generation gen at base + off (bails unless whole), and
 * the same bytes into want + off, the expected content of the unit at base.
 */
static inline void pga_put(int fd, unsigned char *want, off_t base, unsigned int off,
			   unsigned int len, int flags, uint64_t gen)
{
	void *buf = atw_alloc(len);

	atw_fill(buf, len, base + off, gen);
	pga_write_or_bail(fd, buf, len, base + off, flags);
	memcpy(want + off, buf, len);
	free(buf);
}

#endif
