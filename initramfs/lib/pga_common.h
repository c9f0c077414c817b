/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the pga_* tests (the PG_atomic series, buffered RWF_ATOMIC
 * written back atomically): the test directory and its limits, and what a
 * counted fdatasync sent to the device for a file range.
 *
 * Expectations come only from statx STATX_WRITE_ATOMIC_BUF: a kernel whose
 * uapi lacks it, or that does not advertise buffered atomic writes, gets
 * SKIPs (and pga_basic checks that it refuses them).
 * Defined in pga_common.c.
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
extern bool pga_wt_only;

/*
 * The write-through design advertises buffered atomic limits too, but only
 * for RWF_ATOMIC|RWF_WRITETHROUGH. True when a plain buffered RWF_ATOMIC of
 * one unit is refused with EOPNOTSUPP and the same write with
 * RWF_WRITETHROUGH is accepted; anything else (both refused, another error)
 * leaves the writeback-time tests to run and fail.
 */
bool pga_probe_wt_only(int fd, const struct atw_limits *l);

/* atw_env_setup(), then the write-through-only probe. */
struct atw_env *pga_setup(int argc, char **argv);

/* True when the tests can run; otherwise one SKIP line named name. */
bool pga_supported(const char *name);

/* fdatasync(fd) while counting what reaches the device. */
void pga_sync_counted(int fd, struct devcount *dc);

/* Device byte address of file offset off (written and clean by now). */
uint64_t pga_phys(int fd, off_t off);

/* What the device received for one device range. */
struct pga_range {
	unsigned int atomic_exact;	/* WRITE ATOMIC of exactly the range */
	unsigned int atomic;		/* WRITE ATOMIC overlapping it */
	unsigned int plain;		/* plain WRITEs overlapping it */
	unsigned int plain_exact;	/* plain WRITEs of exactly the range */
	uint64_t plain_bytes;		/* bytes of those plain writes inside it */
};

struct pga_range pga_range_of(const struct devcount *dc,
					    uint64_t phys, uint64_t len);

/* The range of file fd at off, as the device saw it in dc. */
struct pga_range pga_file_range(const struct devcount *dc, int fd,
					      off_t off, uint64_t len);

/* Reads [off, off + len) of the file's blocks straight from the device. */
int pga_dev_read(int fd, void *buf, off_t off, size_t len);

/* The device holds exactly want for [off, off + len) of the file. */
bool pga_dev_equals(int fd, const void *want, off_t off,
				  size_t len);

void pga_write_or_bail(int fd, const void *buf, size_t len,
				     off_t off, int flags);

/*
 * Writes len bytes of generation gen at base + off (bails unless whole), and
 * the same bytes into want + off, the expected content of the unit at base.
 */
void pga_put(int fd, unsigned char *want, off_t base, unsigned int off,
			   unsigned int len, int flags, uint64_t gen);

#endif
