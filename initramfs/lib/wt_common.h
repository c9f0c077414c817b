/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the write-through tests (wt_*.c) and randops: device reads at
 * the FIEMAP address that bypass the page cache, scsi_debug error injection,
 * remount, byte patterns and stamp versions, xfs_repair, device traces.
 * Defined in wt_common.c; the byte patterns stay inline here (randops calls
 * them for every byte it writes or checks).
 */
#ifndef ATW_WT_COMMON_H
#define ATW_WT_COMMON_H

#include "atomic_io.h"
#include "test_env.h"
#include "devcount.h"
#include "kfile.h"
#include "tap.h"
#include "wt_trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <linux/fiemap.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define WT_UAPI_SKIP "uapi has no RWF_WRITETHROUGH"
#define WT_SPEC_VALUE 0x00000200	/* docs/design.md, "Flags and uapi values" */

/* Flags a FIEMAP lookup found in a range. */
#define WT_MAP_HOLE	 0x1
#define WT_MAP_DELALLOC	 0x2
#define WT_MAP_UNWRITTEN 0x4
#define WT_MAP_ERROR	 0x8

/*
 * The extent under file offset off, without FIEMAP_FLAG_SYNC (which would
 * write dirty data back and hide a write-through that did not write).
 * Returns 0 with *phys and *avail (bytes of the extent from off), or a
 * WT_MAP_* flag.
 */
int wt_map(int fd, off_t off, uint64_t *phys, uint64_t *avail);

/* Reads len bytes of the device at byte address phys with O_DIRECT. */
ssize_t wt_dev_pread(void *buf, size_t len, uint64_t phys);

/* Writes len bytes to the device at byte address phys with O_DIRECT. */
ssize_t wt_dev_pwrite(const void *buf, size_t len, uint64_t phys);

/*
 * What the device holds for file range [off, off + len) (both multiples of
 * the logical block size), read at the FIEMAP addresses with O_DIRECT: never
 * through the file's page cache. Holes, delalloc and unwritten extents read
 * as zeros and are reported in the returned WT_MAP_* mask (0: all written).
 */
int wt_dev_read_range(int fd, void *out, off_t off, size_t len);

/* The device address of file offset off (which must be mapped and written). */
int wt_phys(int fd, off_t off, uint64_t *phys);

/* --- byte patterns: byte x of a file written in generation gen --- */

static inline unsigned char wt_byte(uint64_t x, uint64_t gen)
{
	uint64_t h = (x + 1) * 0x9e3779b97f4a7c15ULL ^ (gen + 1) * 0xc2b2ae3d27d4eb4fULL;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (unsigned char)(h | 1);	/* never 0: tells data from zeros */
}

static inline void wt_pattern(void *buf, size_t len, uint64_t off, uint64_t gen)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = wt_byte(off + i, gen);
}

/* Index of the first byte that is not pattern (off, gen), or -1. */
long wt_pattern_bad(const void *buf, size_t len, uint64_t off,
				  uint64_t gen);

long wt_nonzero(const void *buf, size_t len);

/* --- stamp versions (lib/atomic_io.h atw_fill, 512-byte sectors) --- */

#define WT_STAMP_MAGIC 0x61747773746d7031ULL	/* as in atomic_io.c */

enum wt_version { WT_V_ZERO, WT_V_ONE, WT_V_MIXED };

/*
 * Whether buf (file range starting at off) is wholly zeros, wholly one
 * atw_fill() generation (*gen) of exactly this offset, or anything else.
 */
enum wt_version wt_version_of(const void *buf, size_t len,
					    uint64_t off, uint64_t *gen);

const char *wt_version_name(enum wt_version v);

/* --- disk and filesystem --- */

/* "0:0:0:0" of the disk, from /sys/block/sdX/device. */
int wt_disk_hctl(char *out, size_t len);

int wt_inject_path(char *path, size_t len);

/*
 * Make the next `times` commands with this opcode fail at the scsi_debug
 * device with CHECK CONDITION, MEDIUM ERROR, WRITE ERROR (asc 0x0c): the
 * midlayer retries it (5 retries) and then completes it with BLK_STS_IOERR,
 * i.e. -EIO. The failing command writes nothing. Returns 0 or -errno.
 */
int wt_inject(uint8_t opcode, int times);

/*
 * Make the next command with this opcode fail once with CHECK CONDITION,
 * MEDIUM ERROR, UNRECOVERED READ ERROR (asc 0x11), which the midlayer does
 * not retry: the call fails as soon as that one command completes (with
 * -ENODATA), so its failure can be timed against other I/O. Returns 0 or
 * -errno.
 */
int wt_inject_once(uint8_t opcode);

void wt_inject_clear(uint8_t opcode);

/*
 * An injected device error aimed at one call. wt_inject() matches an opcode,
 * not an LBA: a command the filesystem sends meanwhile with the same opcode
 * (after sync(), XFS's log worker or AIL push writing metadata) can take some
 * of the six failures, and the call's own command then succeeds on a retry:
 * that attempt proves nothing about the call. So each attempt runs under the
 * device trace, which says how many failed completions hit the call's range
 * [phys, phys + len) and how many hit other commands:
 *
 *	struct wt_injected inj = { .opcode = opcode };
 *	int armed;
 *
 *	while (!(armed = wt_inject_arm(&inj))) {
 *		ret = the call;
 *		if (wt_inject_done(&inj, phys, len))
 *			break;
 *	}
 *	check(!armed && ret == -EIO && inj.mine > 0, ...)
 *
 * wt_inject_done() says "again" only when the call's range failed fewer than
 * six times while other commands took failures, at most WT_INJECT_TRIES
 * attempts. A call that drops the device's error returns its length on every
 * attempt, with its own command failed: the check still fails.
 */
#define WT_INJECT_TIMES 6	/* one command and the midlayer's 5 retries */
#define WT_INJECT_TRIES 4

struct wt_injected {
	uint8_t opcode;
	int once;	/* arm wt_inject_once() instead of wt_inject() */
	/*
	 * For a call that allocates, whose device range is not known before:
	 * its failed commands are those of exactly this many bytes without
	 * FUA (the log's writes have it), wherever they are; phys and len of
	 * wt_inject_done() are then not used. 0: use the range.
	 */
	uint64_t bytes;
	int tries;
	int traced;	/* the trace ran: mine and others are known */
	int mine;	/* failed completions inside the call's range */
	int others;	/* failed completions of other commands */
	uint64_t other_off;	/* device byte offset of the first other one */
};

/* sync, then trace and arm. 0, or -errno when arming failed (no call). */
int wt_inject_arm(struct wt_injected *inj);

/* Disarms and counts. 1: this attempt decides; 0: make it again. */
int wt_inject_done(struct wt_injected *inj, uint64_t phys, uint64_t len);

/*
 * Is thread tid of this process in the kernel with a frame whose name starts
 * with fn on its stack (/proc/self/task/TID/stack holds " fn")? Pass "name+"
 * for exactly that function. false if the stack cannot be read.
 */
bool wt_thread_in(pid_t tid, const char *fn);

/* Voluntary context switches of the calling thread (getrusage RUSAGE_THREAD). */
long wt_thread_nvcsw(void);

/* scsi_debug module parameter, or -1. */
long long wt_sdebug_param(const char *name);

/*
 * Sets scsi_debug's per-command delay attribute ("ndelay" in ns, or "delay"
 * in jiffies), syncing and retrying while commands are queued (EBUSY).
 * Returns 0 or -errno.
 */
int wt_sdebug_set_delay(const char *attr, long long v);

/*
 * Sets scsi_debug's delay to ns per command and returns what to put back
 * with wt_sdebug_restore_delay(), or -errno if it could not be set.
 */
long long wt_sdebug_slow(long long ns, long long *saved_jdelay);

/* Writes in flight at the test disk (/sys/block/DISK/inflight), or -1. */
long wt_inflight_writes(void);

/* Puts back the delay wt_sdebug_slow() replaced; 0 or -errno. */
int wt_sdebug_restore_delay(long long ndelay, long long jdelay);

/* Unmounts the test file system, leaving it first (a program run by
 * scripts/boot starts inside it). */
int wt_umount(void);

int wt_mount(void);

/* Unmounts and mounts the test filesystem; every fd on it must be closed. */
void wt_remount(void);

/*
 * A new file name (opened O_TRUNC | flags in the test directory) whose
 * [off, off + len) is one unwritten extent at a device address aligned to
 * len, where an atomic unit of len can go in place. The allocator promises
 * no alignment, but gives a new file's first blocks after what the files
 * before it took: a misaligned attempt is kept (renamed NAME_steerN, left
 * until the file system is made again), its blocks extended up to the next
 * aligned address, and the next attempt is a new file. Returns the fd;
 * *aligned is false if 32 attempts did not make it (the range is then
 * allocated all the same).
 */
int wt_aligned_file(const char *name, int flags, off_t off, size_t len, bool *aligned);

void wt_drop_caches(void);

/*
 * Reads the records of /dev/kmsg (fd opened O_NONBLOCK) since the last read
 * and counts those that contain one of needles (NULL-terminated); prints
 * the first max_diag of them as diag lines headed what. 0 if fd < 0.
 */
unsigned int wt_kmsg_scan(int fd, const char *const *needles, const char *what,
			  unsigned int max_diag);

/*
 * Runs argv with stdout/stderr in /tmp/wt_spawn.log; returns its exit
 * status, or -1 if it could not run or was killed. Prints the log as diag
 * lines when the status is not 0.
 */
int wt_spawn(char *const argv[]);

/*
 * Forks a child for work that may get stuck in the kernel: its stdout and
 * stderr go to /dev/null (a stuck child must not hold the plan's output),
 * and of the pipe pfd the child keeps the write end, the parent the read
 * end. Returns the child's pid, 0 in the child.
 */
pid_t wt_fork_quiet(int pfd[2]);

/*
 * For the diagnosis of a hang: prints as diag lines where each thread of
 * process pid waits in the kernel.
 */
void wt_diag_stacks(pid_t pid);

/*
 * Unmounts, runs xfs_repair -n on the disk (a check named what), mounts
 * again. After a shutdown the caller must mount once first (log recovery).
 */
void wt_check_repair(const char *what);

/* --- the device trace --- */

/* Starts the device trace; a failure is a failed check later. */
int wt_trace_start(void);

/* Writes (plain or atomic) overlapping [phys, phys + len). */
unsigned int wt_writes_in(const struct devcount *dc, uint64_t phys,
					uint64_t len);

/* Atomic commands of exactly [phys, phys + len). */
unsigned int wt_atomics_exact(const struct devcount *dc, uint64_t phys,
					    uint64_t len);

/*
 * Atomic commands that contain all of [phys, phys + len). Under queue depth
 * the block layer may merge adjacent REQ_ATOMIC requests (6.12 allows atomic
 * with atomic up to the device's atomic unit max); the merged command is
 * still untorn for every write in it, so a merged write counts here.
 */
unsigned int wt_atomics_containing(const struct devcount *dc, uint64_t phys,
						 uint64_t len);

/* Bytes of [phys, phys + len) covered by data writes in the trace. */
uint64_t wt_bytes_covered(const struct devcount *dc, uint64_t phys,
					uint64_t len);

/* Opcode of the first plain data write in the trace, or 0. */
uint8_t wt_first_write_opcode(const struct devcount *dc);

/* --- threads of the race tests --- */

/* CLOCK_MONOTONIC in microseconds, for the timings a race test reports. */
uint64_t wt_now_us(void);

/* A pseudo-random number below n from *seed (an LCG: a seed replays a run). */
unsigned int wt_rnd(unsigned int *seed, unsigned int n);

/*
 * Joins t by an absolute CLOCK_REALTIME deadline (seconds): 0, or ETIMEDOUT
 * for a thread that is stuck (a hang, not a measurement).
 */
int wt_join_by(pthread_t t, time_t deadline);

/* The CLOCK_REALTIME second secs from now, for wt_join_by(). */
time_t wt_deadline(unsigned int secs);

#ifdef RWF_WRITETHROUGH
/*
 * The opcode of plain data writes on this disk, from a traced one-block
 * write-through of a scratch file (scsi_debug injects errors by opcode):
 * 0x8a (WRITE(16)) when the trace cannot tell.
 */
uint8_t wt_find_write_opcode(void);
#endif

#endif
