/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workloads.h: the bench_io workloads the report knows, in table order,
 * with a description (the names initramfs/plans/bench gives them).
 * Defined in workloads.c.
 */
#ifndef ATW_REPORT_WORKLOADS_H
#define ATW_REPORT_WORKLOADS_H

struct wl {
	const char *bench, *desc;
};

extern const struct wl wls[];
extern const unsigned int nwls;

#endif
