/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest tests: the atomic-write uapi as the variant's
 * own headers define it, statx limits, the test disk, file-to-device
 * mapping, and stamped buffers.
 */
#ifndef ATW_ATOMIC_IO_H
#define ATW_ATOMIC_IO_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/fs.h>
#include <linux/stat.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* 6.12 names the DIO mask STATX_WRITE_ATOMIC; the seed uapi renames it. */
#ifndef STATX_WRITE_ATOMIC_DIO
#define STATX_WRITE_ATOMIC_DIO STATX_WRITE_ATOMIC
#endif

/* What statx says about atomic writes on one file. */
struct atw_limits {
	uint64_t mask;		/* stx_mask of the DIO query */
	uint64_t attributes;	/* its stx_attributes & stx_attributes_mask */
	uint64_t buf_mask;	/* the same for the buffered query */
	uint64_t buf_attributes;
	uint64_t both_mask;	/* stx_mask when both were asked at once */
	bool dio;		/* STATX_WRITE_ATOMIC(_DIO) answered, attr set */
	uint32_t dio_min, dio_max, dio_segs;
	bool buf_known;		/* uapi has STATX_WRITE_ATOMIC_BUF */
	bool buf;		/* ...answered and STATX_ATTR_WRITE_ATOMIC_BUF */
	uint32_t buf_min, buf_max, buf_segs;
	uint32_t blksize;
};

/* Fills *l for path (or fd when path is NULL). Returns 0 or -errno. */
int atw_statx_limits(int fd, const char *path, struct atw_limits *l);
void atw_print_limits(const char *what, const struct atw_limits *l);

/* The test disk named by $ATW_DISK (e.g. /dev/sda); NULL when unset. */
const char *atw_disk(void);
/* Reads /sys/block/<disk>/queue/<attr>; returns -1 if absent. */
long long atw_disk_queue_attr(const char *disk, const char *attr);

/* Device byte address of file offset off, via FIEMAP; -errno on failure. */
int atw_file_phys(int fd, off_t off, uint64_t *phys);

/* One extent of a file as FIEMAP reports it, clipped to the range asked. */
struct atw_extent {
	uint64_t logical, physical, length;	/* bytes */
	uint32_t flags;				/* FIEMAP_EXTENT_* */
};

/*
 * The extents of fd that overlap [off, off + len), in file order, clipped to
 * that range; at most max. Returns how many, or -errno (-E2BIG if more).
 */
int atw_file_extents(int fd, off_t off, size_t len, struct atw_extent *ext,
		     int max);
/*
 * The same without FIEMAP_FLAG_SYNC, which writes the file's dirty data back
 * first: dirty data stays dirty (a delalloc extent shows as such), so a
 * write-through can be looked at before and after without a writeback
 * between. Only written and unwritten extents have a physical address.
 */
int atw_file_extents_nosync(int fd, off_t off, size_t len,
			    struct atw_extent *ext, int max);

/* Aligned buffer of len bytes; aborts on failure. */
void *atw_alloc(size_t len);
/* Stamps buf with (off, gen) in every 512-byte sector. */
void atw_fill(void *buf, size_t len, uint64_t off, uint64_t gen);
/* True if every sector of buf carries (off + i * 512, gen). */
bool atw_verify(const void *buf, size_t len, uint64_t off, uint64_t gen);

/* pwritev2 of one buffer. Returns bytes written or -errno. */
ssize_t atw_pwrite(int fd, const void *buf, size_t len, off_t off, int flags);
ssize_t atw_pread(int fd, void *buf, size_t len, off_t off);

static inline bool atw_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

#endif
