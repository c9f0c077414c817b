/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test directory a file-level guest test runs in (argv[1], an XFS mount)
 * and what lies under it: the disk ($ATW_DISK), its sector size, the file
 * system block size, the page size and the statx atomic write limits of a
 * regular file there. Shared by the wt_* and pga_* tests.
 * Defined in test_env.c.
 */
#ifndef ATW_TEST_ENV_H
#define ATW_TEST_ENV_H

#include "atomic_io.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

struct atw_env {
	const char *dir;
	const char *disk;
	unsigned int lbs;	/* device logical block size */
	unsigned int bs;	/* filesystem block size */
	unsigned int ps;	/* page size */
	struct atw_limits lim;	/* statx of a regular file in dir */
};

struct atw_env *atw_env(void);

/* Opens (creating) name in the test directory; bails on failure. */
int atw_env_open(const char *name, int flags);

void atw_env_unlink(const char *name);

/* "ok" for a non-negative result, else the text of -ret. */
const char *atw_err(ssize_t ret);

/*
 * argv[1] is DIR, $ATW_DISK the disk under it; bails if either is missing
 * (printing usage). Fills and prints atw_env().
 */
struct atw_env *atw_env_setup(int argc, char **argv, const char *usage);

#endif
