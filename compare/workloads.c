// SPDX-License-Identifier: GPL-2.0
/* workloads.c: the bench_io workloads in the report's table order. */
#include "workloads.h"

const struct wl wls[] = {
	{ "dio-atomic", "O_DIRECT RWF_ATOMIC" },
	{ "wt-atomic", "RWF_ATOMIC|RWF_WRITETHROUGH" },
	{ "wt-plain", "RWF_WRITETHROUGH" },
	{ "wt-dsync", "RWF_ATOMIC|RWF_WRITETHROUGH|RWF_DSYNC" },
	{ "pga-fsync1", "buffered RWF_ATOMIC + fdatasync each write" },
	{ "pga-fsync64", "buffered RWF_ATOMIC + fdatasync per 64" },
	{ "buf-fsync", "buffered + fdatasync each write" },
	{ "buf-dsync", "buffered RWF_DSYNC" },
	{ "dio-atomic-qd16", "io_uring QD16 O_DIRECT RWF_ATOMIC" },
	{ "wt-atomic-qd16", "io_uring QD16 RWF_ATOMIC|RWF_WRITETHROUGH" },
	{ "wt-plain-qd16", "io_uring QD16 RWF_WRITETHROUGH" },
	{ "wt-dsync-qd16", "io_uring QD16 WT atomic DSYNC" },
	{ "dio-atomic-qd32", "io_uring QD32 O_DIRECT RWF_ATOMIC" },
	{ "wt-atomic-qd32", "io_uring QD32 RWF_ATOMIC|RWF_WRITETHROUGH" },
	{ "wt-plain-qd32", "io_uring QD32 RWF_WRITETHROUGH" },
	{ "wt-dsync-qd32", "io_uring QD32 WT atomic DSYNC" },
	{ "dio-atomic-4t1f", "4 threads one file DIO atomic" },
	{ "dio-atomic-4t4f", "4 threads 4 files DIO atomic" },
	{ "wt-atomic-4t1f", "4 threads one file WT atomic" },
	{ "wt-atomic-4t4f", "4 threads 4 files WT atomic" },
	{ "wt-dsync-4t1f", "4 threads one file WT atomic DSYNC" },
	{ "wt-dsync-4t4f", "4 threads 4 files WT atomic DSYNC" },
	{ "buf-dsync-4t1f", "4 threads one file buffered DSYNC" },
	{ "buf-dsync-4t4f", "4 threads 4 files buffered DSYNC" },
	{ "memcpy", "16 KiB memcpy, no I/O (the copy's floor)" },
};

const unsigned int nwls = sizeof(wls) / sizeof(wls[0]);
