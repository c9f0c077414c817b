// SPDX-License-Identifier: GPL-2.0
/* pga_common.c: the pga_* tests' helpers (pga_common.h). */
#include "pga_common.h"

bool pga_wt_only;

bool pga_probe_wt_only(int fd, const struct atw_limits *l)
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

struct atw_env *pga_setup(int argc, char **argv)
{
	struct atw_env *e = atw_env_setup(argc, argv, "pga_* DIR");
	int fd = atw_env_open("pga_probe", O_TRUNC);

	pga_wt_only = pga_probe_wt_only(fd, &e->lim);
	close(fd);
	atw_env_unlink("pga_probe");
	return e;
}

bool pga_supported(const char *name)
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

void pga_sync_counted(int fd, struct devcount *dc)
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

uint64_t pga_phys(int fd, off_t off)
{
	uint64_t phys;
	int err = atw_file_phys(fd, off, &phys);

	if (err)
		tap_bail("FIEMAP at %lld: %s", (long long)off, strerror(-err));
	return phys;
}

struct pga_range pga_range_of(const struct devcount *dc,
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

struct pga_range pga_file_range(const struct devcount *dc, int fd,
					      off_t off, uint64_t len)
{
	return pga_range_of(dc, pga_phys(fd, off), len);
}

int pga_dev_read(int fd, void *buf, off_t off, size_t len)
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

bool pga_dev_equals(int fd, const void *want, off_t off,
				  size_t len)
{
	void *rd = atw_alloc(len);
	bool same = pga_dev_read(fd, rd, off, len) == 0 &&
		    !memcmp(rd, want, len);

	free(rd);
	return same;
}

void pga_write_or_bail(int fd, const void *buf, size_t len,
				     off_t off, int flags)
{
	ssize_t ret = atw_pwrite(fd, buf, len, off, flags);

	if (ret != (ssize_t)len)
		tap_bail("pwritev2 %zu at %lld flags 0x%x: %zd %s", len,
			 (long long)off, flags, ret, atw_err(ret));
}

void pga_put(int fd, unsigned char *want, off_t base, unsigned int off,
			   unsigned int len, int flags, uint64_t gen)
{
	void *buf = atw_alloc(len);

	atw_fill(buf, len, base + off, gen);
	pga_write_or_bail(fd, buf, len, base + off, flags);
	memcpy(want + off, buf, len);
	free(buf);
}
