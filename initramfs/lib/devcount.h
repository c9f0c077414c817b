/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Count what reaches the SCSI device: every command dispatched to the disk is
 * recorded by the tracepoint scsi:scsi_dispatch_cmd_start; its raw CDB tells
 * WRITE ATOMIC(16) from WRITE(10)/(16), the FUA bit, SYNCHRONIZE CACHE, and
 * each command's LBA and length.
 *
 *	struct devcount dc;
 *	devcount_start();
 *	... I/O ...
 *	if (devcount_stop(&dc, lbs) < 0) fail;
 *	dc.atomic == 1 && dc.cmd[0].bytes == len
 */
#ifndef ATW_DEVCOUNT_H
#define ATW_DEVCOUNT_H

#include <stdint.h>

enum devcmd_kind {
	DEVCMD_READ,
	DEVCMD_WRITE,
	DEVCMD_ATOMIC,
	DEVCMD_FLUSH,
	DEVCMD_OTHER,
};

struct devcmd {
	enum devcmd_kind kind;
	uint8_t opcode;
	int fua;
	uint64_t offset;	/* bytes */
	uint64_t bytes;
};

#define DEVCOUNT_MAX_CMDS 4096

struct devcount {
	unsigned int reads, writes, atomics, flushes, fuas, others;
	uint64_t write_bytes, atomic_bytes;
	unsigned int ncmd;	/* commands recorded in cmd[] (capped) */
	struct devcmd cmd[DEVCOUNT_MAX_CMDS];
};

/* Clears the trace buffer and starts recording. Returns 0 or -errno. */
int devcount_start(void);
/* The same with a trace buffer of kb KiB per CPU (devcount_start: 8192). */
int devcount_start_kb(unsigned int kb);
/*
 * Stops recording and parses it. lbs is the device's logical block size.
 * Returns 0, or -errno (-EOVERFLOW if the trace buffer lost events).
 */
int devcount_stop(struct devcount *dc, unsigned int lbs);
/* Number of data-bearing writes (plain or atomic) in [off, off + len). */
unsigned int devcount_writes_in(const struct devcount *dc, uint64_t off,
				uint64_t len);
void devcount_print(const struct devcount *dc);
/* "... raw=9c 00 00 ...)" of a trace line -> CDB bytes; length or -1. */
int devcount_parse_raw(const char *line, uint8_t *cdb, int max);
/* Decodes one CDB: kind, FUA, device byte offset and length. */
void devcount_decode(struct devcmd *c, const uint8_t *cdb, int len,
		     unsigned int lbs);

#endif
