// SPDX-License-Identifier: GPL-2.0
/*
 * selftest.c: report --selftest, known answers for the arithmetic and the
 * classification the targets and the profile rest on (scripts/test runs
 * it with the harness checks): the order-statistic interval of a median,
 * and the component of a profile stack across an interrupt entry.
 */
#include "aggregate.h"
#include "components.h"
#include "sections.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failed;

static void check(bool ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	failed += !ok;
}

static void ci(int n, double want_lo, double want_hi, const char *what)
{
	double v[64], med, lo, hi;
	int i;

	for (i = 0; i < n; i++)
		v[i] = n - i;	/* 1..n, reversed: median_ci sorts */
	median_ci(v, n, &med, &lo, &hi);
	check((isnan(want_lo) ? isnan(lo) && isnan(hi) : lo == want_lo && hi == want_hi) &&
	      med == (n + 1) / 2.0, what);
}

static enum component stack(const char *const *syms)
{
	char frames[16][64];
	int n = 0;

	for (; *syms && n < 16; syms++)
		snprintf(frames[n++], sizeof(frames[0]), "%s", *syms);
	return classify_stack(frames, n);
}

int selftest(void)
{
	static const char *const irq_on_disk[] = {
		"handle_softirqs", "__irq_exit_rcu", "sysvec_apic_timer_interrupt",
		"asm_sysvec_apic_timer_interrupt", "schedule_resp", "scsi_queue_rq", NULL,
	};
	static const char *const disk[] = { "schedule_resp", "scsi_queue_rq", NULL };
	static const char *const disk_copy[] = {
		"memcpy", "sg_copy_buffer", "do_device_access", "resp_atomic_write",
		"schedule_resp", NULL,
	};
	static const char *const user_copy[] = {
		"rep_movs_alternative", "copy_page_from_iter_atomic", "iomap_write_iter",
		"xfs_file_buffered_write", "do_device_access", NULL,
	};
	static const char *const irq_in_fs[] = {
		"blk_mq_end_request", "scsi_end_request", "handle_softirqs",
		"__irq_exit_rcu", "xfs_file_write_iter", NULL,
	};

	/* Binomial(n, 1/2) ranks of the 95 % interval: n=20 -> 6 and 15 */
	ci(20, 6, 15, "median interval, n=20: ranks 6..15");
	ci(6, 1, 6, "median interval, n=6: ranks 1..6 (the smallest n with one)");
	ci(5, NAN, NAN, "median interval, n=5: none (no 95 % interval exists)");
	ci(60, 22, 39, "median interval, n=60: ranks 22..39");
	check(stack(disk) == COMP_DISK, "profile: scsi_debug's schedule_resp is the disk");
	check(stack(irq_on_disk) == COMP_IRQ,
	      "profile: a softirq sample over schedule_resp is an interrupt, not the disk");
	check(stack(disk_copy) == COMP_DISK, "profile: scsi_debug copying into its store is the disk");
	check(stack(user_copy) == COMP_COPY,
	      "profile: a copy whose first known caller is iomap is the copy");
	check(stack(irq_in_fs) == COMP_BLOCK,
	      "profile: a known frame inside an interrupt decides");
	printf("%s\n", failed ? "selftest: FAILED" : "selftest: ok");
	return failed ? 1 : 0;
}
