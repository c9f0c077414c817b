/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ordered device trace for the write-through tests: the dispatch and the
 * completion of every SCSI command (scsi:scsi_dispatch_cmd_start/_done) and
 * markers the test writes into the same buffer (trace_marker), in the order
 * the kernel recorded them (global trace clock). This tells, without any
 * timing threshold, whether one thing happened before another: whether two
 * writes to the same blocks were in flight at once, whether a concurrent
 * store finished before a write-through's I/O completed, how many writes
 * the device had in flight together.
 *
 * Defined in wt_trace.c; one trace at a time per program.
 */
#ifndef ATW_WT_TRACE_H
#define ATW_WT_TRACE_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devcount.h"
#include "kfile.h"

#define WT_TRACEFS "/sys/kernel/tracing"
#define WT_EV_SCSI WT_TRACEFS "/events/scsi/"

enum wt_ev_kind { WT_EV_START, WT_EV_DONE, WT_EV_MARK };
/* Same values as enum devcmd_kind (lib/devcount.h), whose decoder is used. */
enum wt_cmd_kind {
	WT_CMD_READ = DEVCMD_READ,
	WT_CMD_WRITE = DEVCMD_WRITE,
	WT_CMD_ATOMIC = DEVCMD_ATOMIC,
	WT_CMD_FLUSH = DEVCMD_FLUSH,
	WT_CMD_OTHER = DEVCMD_OTHER,
};

struct wt_ev {
	enum wt_ev_kind kind;
	enum wt_cmd_kind cmd;
	int tag;
	int fua;
	int failed;		/* done with a non-GOOD status */
	uint64_t off, bytes;	/* device bytes */
	uint8_t cdb[16];
	int cdblen;
	int pair;		/* index of the matching done/start, or -1 */
	char mark[48];
};

struct wt_trace {
	struct wt_ev *ev;
	int n, cap;
	int marker_fd;
};

struct wt_trace *wt_tr(void);

/* Clears the buffer and records dispatches, completions and markers. */
int wt_tr_start(void);

/* Writes "atw <text>" into the trace; thread-safe (one write(2)). */
void wt_mark(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* The CDB decoding is devcount's; wt_ev keeps its own copy of the result. */
void wt_tr_classify(struct wt_ev *e, unsigned int lbs);

int wt_tr_field(const char *line, const char *key);

void wt_tr_add(struct wt_trace *t, const struct wt_ev *e);

/* Stops recording and reads the trace. Returns 0 or -errno. */
int wt_tr_stop(unsigned int lbs);

int wt_tr_is_write(const struct wt_ev *e);

/*
 * The data writes dispatched in the trace as devcount records: atomic ones
 * into *atomics, plain ones into *plain (each capped at DEVCOUNT_MAX_CMDS),
 * for the range helpers of wt_common.h.
 */
void wt_tr_writes(struct devcount *atomics, struct devcount *plain);

/* End of command i (its completion, or the end of the trace). */
int wt_tr_end(int i);

/* Index of the first marker equal to text at or after from, or -1. */
int wt_tr_find_mark(int from, const char *text);

int wt_tr_overlap(const struct wt_ev *a, const struct wt_ev *b);

/*
 * Pairs of write commands to overlapping device blocks that were in flight
 * at the same time (the second dispatched before the first completed).
 * Prints the first few.
 */
int wt_tr_concurrent_overlaps(uint64_t lo, uint64_t hi);

/* Most write commands in flight at once. */
int wt_tr_max_inflight_writes(void);

#endif
