/* SPDX-License-Identifier: GPL-2.0 */
/*
 * randops.h: what the units of randops share (see main.c for the
 * program): the operation kinds and records, the model of the files, the
 * configuration and state, and the functions one unit calls in another.
 */
#ifndef ATW_RANDOPS_H
#define ATW_RANDOPS_H

#include "lib/pcblk.h"
#include "lib/wt_common.h"

#include <liburing.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH
#define RWF_WT RWF_WRITETHROUGH
#else
#define RWF_WT 0
#endif
#ifndef FALLOC_FL_UNSHARE_RANGE
#define FALLOC_FL_UNSHARE_RANGE 0x40
#endif

#define NFILES 2
#define RESERVE (256u << 10)	/* file 0's head, owned by the mmap thread */
#define MAXW (128u << 10)	/* longest write */
#define MAXQD 16
#define NLAST 20
#define NWIN 8		/* background.c: windows of the operations kept */
#define MAXK 3		/* conc.c: operations of a concurrent group */
#define MAXU 4		/* conc.c: calls a group's serial orders permute */

enum kind {
	K_BUF, K_WT, K_WT_DSYNC, K_WT_ATOMIC, K_DIO, K_DIO_ATOMIC, K_BUF_ATOMIC,
	K_MMAP_W, K_APPEND, K_READ, K_MMAP_R, K_DIO_R, K_TRUNC, K_FALLOC, K_PUNCH, K_ZERO,
	K_COLLAPSE, K_INSERT, K_CLONE, K_DEDUPE, K_COPY, K_FSYNC, K_FDATASYNC,
	K_SFR, K_DROP, K_URING, K_AIO, K_FAULT, K_VERIFY, NKINDS
};
#define NWRITEKINDS (K_BUF_ATOMIC + 1)

struct kinfo {
	const char *name;
	int weight;
	bool avail;
	char why[96];		/* why not available */
	unsigned long drawn, refused, failed;
};

extern struct kinfo kinds[NKINDS];

/*
 * One operation, everything needed to re-execute it (one log line). The
 * operations of a concurrent group (conc.c) share grp (the seq of the
 * group's first operation, plus one; 0 outside groups) and each waits
 * delay microseconds after the group's start before its call.
 */
struct op {
	uint32_t seq;
	uint8_t kind, file, file2, sub;	/* sub: kind-specific variant */
	uint32_t n;			/* batch: depth; fault: dirty neighbour */
	uint64_t gen;			/* data generation */
	uint64_t off, len, off2;	/* off2: source / slot size */
	uint32_t bufoff;		/* source buffer misalignment */
	uint32_t grp, delay;		/* concurrent group, delay in us */
};

/*
 * What draw.c aims the operations of a concurrent group at: the range of
 * the group's first operation, so that the others overlap it, extend or
 * truncate at its end, clone over it or read it.
 */
struct focus {
	bool on;
	uint8_t file;
	uint64_t off, len;
};

struct rfile {
	int fd, dfd, afd;	/* afd: O_APPEND */
	unsigned char *data;	/* model, maxf bytes; zero past size */
	uint64_t size;
	bool shared;		/* has been cloned, deduped or copied from/to */
};

/* One write of a batch (io_uring, AIO): ops.c batch_subs(). */
struct sub {
	uint64_t off, len;
	unsigned char *buf;
};

/* draw.c, powercut.c, background.c */
extern struct op last_clone;
extern unsigned char *dur[NFILES], *okb;
extern uint32_t *lastdur[NFILES];
extern unsigned long cut_rounds, cut_mid, cut_units, cut_units_new, cut_bytes;
extern uint64_t win_started, win_done;	/* operations */
extern atomic_ulong bg_checked, bg_overtaken;

/* --- configuration and state (main.c) --- */
extern uint64_t maxf, lo;
extern unsigned int qd, nreaders, drop_ms, hang_secs;
extern bool bg_mmap, bg_remap, verbose;
extern bool dio_past_eof, dio_share_pages, dio_aio_trunc;	/* -E, -P, -T: see main.c */
extern bool remap_mmap;	/* -I: see main.c */
extern bool cut_refdrop_unsynced;	/* -S: see main.c */
extern const char *logpath, *replay;
extern unsigned int bs, lbs, ps;
extern uint32_t dio_min, dio_max, buf_min, buf_max;
extern struct rfile files[NFILES];
extern unsigned char *src, *rdbuf, *tmpbuf;
extern size_t slot, srclen;
extern int memfd;
extern struct io_uring ring;
extern bool ring_ok;
extern aio_context_t aio_ctx;
extern uint8_t write_opcode;
/* Atomic kinds this kernel refuses (EOPNOTSUPP) on shared extents. */
extern bool shared_refused[NWRITEKINDS];
extern unsigned long missed_faults;

extern struct op *ops;
extern size_t nops, capops;
extern char failmsg[1024];
extern bool failed;
extern unsigned int ncuts, cut_ops;	/* -C, -K: see the header */
extern bool cutting, cut_seen;
extern uint64_t cur_seed;
extern unsigned int conc_k;	/* -c: operations per concurrent group */
extern struct focus focus;

extern atomic_ulong progress;	/* ops done, for the watchdog */
extern struct op *volatile cur_op;	/* the one in flight, for the watchdog */
extern atomic_int bg_stop;
extern pthread_rwlock_t quiesce;
extern atomic_ulong bg_reads, bg_stores, bg_remaps, bg_drops;
extern char bg_fail[256];
extern atomic_int bg_failed;

/* --- the functions one unit calls in another, by unit --- */
/* model.c */
uint64_t rng_next(uint64_t *s);
uint64_t rnd(uint64_t *s, uint64_t n);
uint64_t rup(uint64_t v, uint64_t a);
uint64_t rdown(uint64_t v, uint64_t a);
uint64_t min64(uint64_t a, uint64_t b);
uint64_t max64(uint64_t a, uint64_t b);
double now(void);
void op_str(const struct op *o, char *s, size_t n);
void log_op(const struct op *o);
void print_last(void);
void write_log(const char *why);
int bad(const struct op *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fill(unsigned char *b, uint64_t off, uint64_t len, uint64_t gen);
void model_write(struct rfile *f, uint64_t off, const unsigned char *b, uint64_t len);
void model_zero(struct rfile *f, uint64_t off, uint64_t len);
void model_truncate(struct rfile *f, uint64_t size);
int cmp_model(const struct op *o, int fi, uint64_t off, const unsigned char *got,
		     uint64_t n, const char *how);
int check_read(const struct op *o, int fi, uint64_t off, uint64_t len, const char *how);
int check_sizes(const struct op *o);
int verify_file(const struct op *o, int fi, const char *how);
void open_files(void);
void close_files(void);
void reopen_files(void);
/* ops.c */
bool is_atomic(int k);
bool is_dio(int k);
int wflags(int k);
void atomic_limits(int k, uint32_t *mn, uint32_t *mx);
ssize_t do_pwrite(int k, int fi, const unsigned char *b, uint64_t len, uint64_t off);
void batch_subs(const struct op *o, struct sub *s);
int exec_op(struct op *o);
/* FIDEDUPERANGE of o's ranges: 0 with its status and bytes, or -errno. */
int dedupe_call(const struct op *o, int *status, unsigned long long *deduped);
void run_op(uint64_t *r, struct op *o, uint32_t seq);
int append_flags(const struct op *o);
int falloc_mode(const struct op *o);
void model_falloc(struct rfile *f, const struct op *o);
int batch_io(struct op *o, struct sub *s, long long *res, char *err, size_t errlen);
/* fault.c */
int exec_fault(struct op *o);
/* draw.c */
void draw_op(uint64_t *r, struct op *o, uint32_t seq);
bool draw_op_w(uint64_t *r, struct op *o, uint32_t seq, const int *w);
/* conc.c */
uint64_t run_group(uint64_t *r, uint32_t seq);
int exec_group(struct op *g, int n);
void conc_init(void);
void conc_report(void);
/* powercut.c */
bool cut_kind(int k);
void cut_note(const struct op *o);
void cut_sync(int fi, uint32_t seq);
uint64_t cut_round(uint64_t *r, uint64_t i, uint64_t nmax, unsigned int cut);
/* background.c */
void win_begin(const struct op *o);
void win_begin_group(const struct op *g, int n);
void win_end(void);
void *reader_thread(void *arg);
void *mmap_thread(void *arg);
void *remap_thread(void *arg);
void *drop_thread(void *arg);
void *watchdog_thread(void *arg);
/* probe.c */
void probe(void);

#endif
