/* SPDX-License-Identifier: GPL-2.0 */
/*
 * components.h: the parts of the I/O stack a profile sample is charged to,
 * from its kernel stack (leaf first). Defined in components.c, which says
 * how a stack is classified.
 */
#ifndef ATW_REPORT_COMPONENTS_H
#define ATW_REPORT_COMPONENTS_H

enum component {
	COMP_COPY,	/* copying user data (at the leaf) */
	COMP_SERIES,	/* functions the series add */
	COMP_FS,	/* XFS and iomap */
	COMP_MM,	/* page cache, pinning, allocation, writeback accounting */
	COMP_BLOCK,	/* block layer, SCSI mid-layer and sd */
	COMP_DISK,	/* scsi_debug: the emulated device's own work */
	COMP_IRQ,	/* interrupt and softirq entry, nothing known inside */
	COMP_OTHER,	/* syscalls, scheduler, user space */
	NR_COMPONENTS
};

extern const char *const component_name[NR_COMPONENTS];

/* The component of one sample; frames[0] is the leaf. */
enum component classify_stack(char frames[][64], int n);

#endif
