/* SPDX-License-Identifier: GPL-2.0 */
/*
 * powercut_check.h: what the units of powercut_check share (main.c
 * describes the program): the configurations, the options, one
 * configuration's run and its writers, and the functions one unit calls
 * in another.
 */
#ifndef ATW_POWERCUT_CHECK_H
#define ATW_POWERCUT_CHECK_H

#include "lib/atomic_io.h"
#include "lib/pcblk.h"
#include "lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define RAW_BASE (1 << 20)	/* raw units start 1 MiB into the device */
#define RAW_UNIT 16384		/* preferred raw unit, clamped to statx */
#define NR_UNITS 64
#define XFS_SUPER_MAGIC 0x58465342
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifdef RWF_WRITETHROUGH
#define PC_RWF_WT RWF_WRITETHROUGH
#else
#define PC_RWF_WT 0
#endif

enum pc_target { T_DEVICE, T_RAW, T_XFS };
enum pc_sync {
	S_NONE,
	S_DSYNC,	/* RWF_DSYNC: acknowledged when the call returns */
	S_FDATASYNC,	/* fdatasync every -k writes acknowledges them */
	S_WRITEBACK,	/* no sync: sync_file_range(WRITE) every -k writes
			 * starts writeback (the flusher's part); nothing is
			 * acknowledged */
};
/*
 * Mixed cases: besides the atomic writes of whole units, an overwriter
 * thread changes the tail of units (their last quarter) with plain
 * stamped data: the unit a writer is writing
 * right now (during) or the one it wrote last (after). The tail may hold
 * anything written to it; the head, which only atomic writes touch, must
 * be wholly one atomic write.
 */
enum pc_mix {
	X_NONE,
	X_OVERWRITE,	/* plain buffered pwrite of the tail */
	X_MMAP,		/* store into a MAP_SHARED mapping of the tail */
};
enum pc_expect {
	E_UNTORN,	/* atomic: no torn unit */
	E_TORN,		/* negative control: the checker must see tears */
	E_INFO,		/* tears reported, not judged */
};
#define N_DIO_ATOMIC	0x1	/* statx DIO atomic limits cover the unit */
#define N_BUF_ATOMIC	0x2	/* statx buffered atomic limits cover it */
#define N_WRITETHROUGH	0x4	/* the uapi defines RWF_WRITETHROUGH */

struct pc_config {
	const char *name;
	const char *what;
	enum pc_target target;
	int rwf;
	bool direct;
	enum pc_sync sync;
	enum pc_expect expect;
	unsigned int needs;
	enum pc_mix mix;
};

/* The options (main.c). */
struct pc_opts {
	unsigned int cuts, writes, threads, sync_every;
	size_t unit;		/* -u: the unit on XFS, 0: one fs block */
	unsigned long long seed;
	const char *dev, *mnt;
	bool verbose;
};
extern struct pc_opts opt;

/* The stamp lib/atomic_io.c writes at the start of every 512-byte sector. */
struct stamp {
	uint64_t off;
	uint64_t gen;
	uint64_t magic;
};
#define STAMP_MAGIC 0x61747773746d7031ULL

struct run {
	const struct pc_config *cfg;
	int cfg_idx;
	int fd;
	char path[256];
	size_t unit;
	size_t fsblock;		/* XFS block size (0 on the raw device) */
	bool laid_out;		/* the first baseline has allocated the units */
	unsigned int lbs;
	unsigned int nunits;
	off_t base;		/* byte offset of unit 0 */
	uint64_t next_gen;	/* generation counter, atomically bumped */
	uint64_t base_gen;	/* this round's baseline */
	uint64_t *ack_gen;	/* per unit: last acknowledged durable gen */
	int *gen_unit;		/* per gen - base_gen: the unit written */
	unsigned int ngen;
	/* per round, summed */
	unsigned long ok, acked, failed_eio, failed_other, midstream, notcut;
	unsigned long torn, lost, bad, checked, atomic_ok, dev_atomic;
	unsigned long dev_torn, dev_inflight, sync_eio;
	unsigned long mixed;		/* torn units with a sector of mixed gens */
	unsigned long stream_est;	/* device writes of a stream not cut */
	unsigned int rounds;		/* cuts done */
	bool broken;
	uint64_t round_seed;
	/* mixed cases */
	size_t tail;			/* bytes at the end of a unit, 0: none */
	char *map;			/* X_MMAP: the file, this round */
	int *busy;			/* per writer: unit in flight, or -1 */
	int *last;			/* per writer: unit last written, or -1 */
	bool stop;			/* the writers are done */
	unsigned long tail_writes, tail_during, tail_failed, tail_sigbus;
};

struct writer {
	struct run *r;
	unsigned int id;
	unsigned int nwrites;
	int first_err;
	unsigned long ok, acked, eio, other, atomic_ok, sync_eio;
	unsigned long again;	/* atomic writes refused beside mmap stores */
};


/* writers.c */
uint64_t mix64(uint64_t *s);
bool sector_stamp(const void *p, uint64_t off, uint64_t *gen);
void *writer_main(void *arg);
void on_sigbus(int sig);
void *overwriter_main(void *arg);
int open_target(struct run *r);
int write_baseline(struct run *r);
int recover(struct run *r);
/* verify.c */
unsigned long verify_units(struct run *r, unsigned int round);
void parse_last_cut(unsigned long *torn, unsigned long *inflight,
			   char *line, size_t size);
/* round.c */
bool run_config(const struct pc_config *c, int idx);
/* device.c */
bool run_device(void);

#endif
