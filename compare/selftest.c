// SPDX-License-Identifier: GPL-2.0
/*
 * selftest.c: report --selftest, known answers for the arithmetic and the
 * classification the targets and the profile rest on (scripts/test runs
 * it with the harness checks): the cluster-bootstrap interval of a paired
 * ratio, and the component of a profile stack across an interrupt entry.
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

/* Boots of 20 pairs each, boot b at ratio r[b] times 0.99, 1.00 or 1.01. */
static void ci(const double *r, int nb, int per, double *med, double *lo, double *hi,
	       bool inverse)
{
	static double vals[4][64];
	double *v[4];
	int n[4], b, i;

	for (b = 0; b < nb; b++) {
		for (i = 0; i < per; i++)
			vals[b][i] = (inverse ? -1 : 1) * log(r[b] * (0.99 + 0.01 * (i % 3)));
		v[b] = vals[b];
		n[b] = per;
	}
	cluster_ci(v, n, nb, med, lo, hi);
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
	static const char *const fault_in_copy[] = {
		"handle_mm_fault", "do_user_addr_fault", "exc_page_fault", "asm_exc_page_fault",
		"rep_movs_alternative", "copy_page_from_iter_atomic", "iomap_write_iter", NULL,
	};
	static const char *const irq_in_fs[] = {
		"blk_mq_end_request", "scsi_end_request", "handle_softirqs",
		"__irq_exit_rcu", "xfs_file_write_iter", NULL,
	};

	static const double three[] = { 0.70, 0.80, 0.90 }, one[] = { 1.25 };
	double med, lo, hi, imed, ilo, ihi;

	/* boots that disagree: the interval spans them, not one boot's spread */
	ci(three, 3, 20, &med, &lo, &hi, false);
	check(fabs(med - 0.80) < 0.01 && lo <= 0.72 && hi >= 0.88,
	      "paired interval: three boots at 0.70, 0.80, 0.90 give about [0.70..0.90], not 0.80 +-1 %");
	ci(three, 3, 20, &imed, &ilo, &ihi, true);
	check(fabs(imed * med - 1) < 1e-9 && fabs(ilo * hi - 1) < 1e-9 && fabs(ihi * lo - 1) < 1e-9,
	      "paired interval: B/A is the inverse of A/B (logarithms)");
	ci(one, 1, 20, &med, &lo, &hi, false);
	check(fabs(med - 1.25) < 1e-9 && lo >= 1.23 && hi <= 1.27,
	      "paired interval: one boot at 1.25 +-1 % gives 1.25 within +-2 %");
	ci(one, 1, 5, &med, &lo, &hi, false);
	check(isnan(lo) && isnan(hi) && fabs(med - 1.25) < 0.02,
	      "paired interval: 5 pairs give a median and no interval");
	check(stack(disk) == COMP_DISK, "profile: scsi_debug's schedule_resp is the disk");
	check(stack(irq_on_disk) == COMP_IRQ,
	      "profile: a softirq sample over schedule_resp is an interrupt, not the disk");
	check(stack(disk_copy) == COMP_DISK, "profile: scsi_debug copying into its store is the disk");
	check(stack(user_copy) == COMP_COPY,
	      "profile: a copy whose first known caller is iomap is the copy");
	check(stack(fault_in_copy) == COMP_MM,
	      "profile: a page fault in a user copy is mm, not an interrupt");
	check(stack(irq_in_fs) == COMP_BLOCK,
	      "profile: a known frame inside an interrupt decides");
	printf("%s\n", failed ? "selftest: FAILED" : "selftest: ok");
	return failed ? 1 : 0;
}
