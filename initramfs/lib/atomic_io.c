// SPDX-License-Identifier: GPL-2.0
#include "atomic_io.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int do_statx(int fd, const char *path, unsigned int mask, struct statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	if (syscall(SYS_statx, path ? AT_FDCWD : fd, path ? path : "",
		    path ? 0 : AT_EMPTY_PATH, mask, stx) < 0)
		return -errno;
	return 0;
}

/*
 * STATX_WRITE_ATOMIC_DIO and STATX_WRITE_ATOMIC_BUF share the
 * stx_atomic_write_* fields and are mutually exclusive in one call (the seed
 * uapi answers neither when both are asked), so ask one at a time.
 */
int atw_statx_limits(int fd, const char *path, struct atw_limits *l)
{
	struct statx stx;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = do_statx(fd, path, STATX_BASIC_STATS | STATX_WRITE_ATOMIC_DIO, &stx);
	if (ret)
		return ret;
	l->mask = stx.stx_mask;
	l->attributes = stx.stx_attributes & stx.stx_attributes_mask;
	l->blksize = stx.stx_blksize;
	if ((stx.stx_mask & STATX_WRITE_ATOMIC_DIO) &&
	    (l->attributes & STATX_ATTR_WRITE_ATOMIC)) {
		l->dio = true;
		l->dio_min = stx.stx_atomic_write_unit_min;
		l->dio_max = stx.stx_atomic_write_unit_max;
		l->dio_segs = stx.stx_atomic_write_segments_max;
	}
#ifdef STATX_WRITE_ATOMIC_BUF
	l->buf_known = true;
	ret = do_statx(fd, path, STATX_BASIC_STATS | STATX_WRITE_ATOMIC_BUF, &stx);
	if (ret)
		return ret;
	l->buf_mask = stx.stx_mask;
	l->buf_attributes = stx.stx_attributes & stx.stx_attributes_mask;
	if ((stx.stx_mask & STATX_WRITE_ATOMIC_BUF) &&
	    (l->buf_attributes & STATX_ATTR_WRITE_ATOMIC_BUF)) {
		l->buf = true;
		l->buf_min = stx.stx_atomic_write_unit_min;
		l->buf_max = stx.stx_atomic_write_unit_max;
		l->buf_segs = stx.stx_atomic_write_segments_max;
	}
	/* Both masks together: the seed's rule is that neither is answered. */
	ret = do_statx(fd, path, STATX_WRITE_ATOMIC_DIO | STATX_WRITE_ATOMIC_BUF, &stx);
	if (ret)
		return ret;
	l->both_mask = stx.stx_mask;
#endif
	return 0;
}

void atw_print_limits(const char *what, const struct atw_limits *l)
{
	printf("# statx %s: mask 0x%llx attr 0x%llx dio %s [%u..%u, %u segs] buf %s [%u..%u] (mask 0x%llx)\n",
	       what, (unsigned long long)l->mask,
	       (unsigned long long)l->attributes, l->dio ? "yes" : "no",
	       l->dio_min, l->dio_max, l->dio_segs,
	       !l->buf_known ? "unknown-uapi" : l->buf ? "yes" : "no",
	       l->buf_min, l->buf_max, (unsigned long long)l->buf_mask);
}

const char *atw_disk(void)
{
	return getenv("ATW_DISK");
}

long long atw_disk_queue_attr(const char *disk, const char *attr)
{
	const char *name = strrchr(disk, '/');
	char path[256];
	long long v;
	FILE *f;

	name = name ? name + 1 : disk;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", name, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int atw_file_phys(int fd, off_t off, uint64_t *phys)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[1];
	} req;
	struct fiemap_extent *e = &req.fm.fm_extents[0];

	memset(&req, 0, sizeof(req));
	req.fm.fm_start = off;
	req.fm.fm_length = 1;
	req.fm.fm_flags = FIEMAP_FLAG_SYNC;
	req.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &req.fm) < 0)
		return -errno;
	if (req.fm.fm_mapped_extents != 1 || e->fe_logical > (uint64_t)off ||
	    (e->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC)))
		return -ENODATA;
	*phys = e->fe_physical + (off - e->fe_logical);
	return 0;
}

static int file_extents(int fd, off_t off, size_t len, struct atw_extent *ext,
			int max, uint32_t fiemap_flags)
{
	enum { NEXT = 256 };
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[NEXT];
	} req;
	uint64_t end = (uint64_t)off + len;
	unsigned int i;
	int n = 0;

	memset(&req, 0, sizeof(req));
	req.fm.fm_start = off;
	req.fm.fm_length = len;
	req.fm.fm_flags = fiemap_flags;
	req.fm.fm_extent_count = NEXT;
	if (ioctl(fd, FS_IOC_FIEMAP, &req.fm) < 0)
		return -errno;
	if (req.fm.fm_mapped_extents == NEXT)
		return -E2BIG;
	for (i = 0; i < req.fm.fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &req.fm.fm_extents[i];
		uint64_t lo = e->fe_logical, hi = e->fe_logical + e->fe_length;

		if (hi <= (uint64_t)off || lo >= end)
			continue;
		if (n == max)
			return -E2BIG;
		if (lo < (uint64_t)off)
			lo = off;
		if (hi > end)
			hi = end;
		ext[n].logical = lo;
		ext[n].physical = e->fe_physical + (lo - e->fe_logical);
		ext[n].length = hi - lo;
		ext[n].flags = e->fe_flags;
		n++;
	}
	return n;
}

int atw_file_extents(int fd, off_t off, size_t len, struct atw_extent *ext,
		     int max)
{
	return file_extents(fd, off, len, ext, max, FIEMAP_FLAG_SYNC);
}

int atw_file_extents_nosync(int fd, off_t off, size_t len,
			    struct atw_extent *ext, int max)
{
	return file_extents(fd, off, len, ext, max, 0);
}

void *atw_alloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len ? len : 4096)) {
		perror("posix_memalign");
		abort();
	}
	memset(p, 0, len);
	return p;
}

struct stamp {
	uint64_t off;
	uint64_t gen;
	uint64_t magic;
};

#define STAMP_MAGIC 0x61747773746d7031ULL /* "atwstmp1" */

/* One 512-byte sector stamped with its device-independent identity. */
static void stamp_sector(unsigned char *p, uint64_t off, uint64_t gen)
{
	struct stamp s = { off, gen, STAMP_MAGIC };
	size_t j;

	memcpy(p, &s, sizeof(s));
	for (j = sizeof(s); j < 512; j++)
		p[j] = (unsigned char)(gen * 31 + off / 512 + j);
}

void atw_fill(void *buf, size_t len, uint64_t off, uint64_t gen)
{
	size_t i;

	for (i = 0; i + 512 <= len; i += 512)
		stamp_sector((unsigned char *)buf + i, off + i, gen);
}

bool atw_verify(const void *buf, size_t len, uint64_t off, uint64_t gen)
{
	unsigned char want[512];
	size_t i;

	for (i = 0; i + 512 <= len; i += 512) {
		stamp_sector(want, off + i, gen);
		if (memcmp(want, (const unsigned char *)buf + i, 512))
			return false;
	}
	return true;
}

ssize_t atw_pwrite(int fd, const void *buf, size_t len, off_t off, int flags)
{
	struct iovec iov = { (void *)buf, len };
	ssize_t ret = pwritev2(fd, &iov, 1, off, flags);

	return ret < 0 ? -errno : ret;
}

ssize_t atw_pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t ret = pread(fd, buf, len, off);

	return ret < 0 ? -errno : ret;
}
