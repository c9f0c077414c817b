// SPDX-License-Identifier: GPL-2.0
/*
 * randops: random file operations checked against an in-memory model.
 *
 * A seeded sequence of operations on two files in DIR (the XFS of the
 * guest), each applied to an in-memory model of the files' contents and
 * sizes: buffered writes, RWF_WRITETHROUGH (+RWF_DSYNC),
 * RWF_ATOMIC|RWF_WRITETHROUGH, O_DIRECT (+RWF_ATOMIC), buffered RWF_ATOMIC,
 * O_APPEND writes (buffered, write-through, write-through with RWF_DSYNC:
 * the kernel takes the offset from the size at the time of the call),
 * mmap stores, reads through the cache, through mmap and with O_DIRECT,
 * truncate, fallocate (allocate, punch, zero, collapse, insert), clone,
 * dedupe and copy_file_range between and within the files, fsync,
 * fdatasync, sync_file_range, drop_caches, and batches of the write kinds
 * through io_uring and Linux AIO at queue depth (non-overlapping ranges, so
 * the model stays deterministic; a completion carries the full length or a
 * negative errno). Every read is compared with the model and every file's
 * size after every operation. Only what the kernel offers is drawn: each
 * kind is probed at start (uapi, a trial call, statx), never chosen by the
 * variant's name; the others are SKIP lines with the reason.
 *
 * Atomic writes take their sizes from statx (DIO limits for O_DIRECT, the
 * buffered limits for RWF_ATOMIC|RWF_WRITETHROUGH and buffered RWF_ATOMIC);
 * one in ten is malformed (misaligned, not a power of two, above the max)
 * and must fail with EINVAL, leaving the range as it was.
 *
 * Fault operations (kind "fault", weight 0 unless given) fail the device
 * write of one call with scsi_debug error injection (lib/wt_common.h): the
 * blocks are allocated and unshared first and the error armed after a
 * sync, so that it hits the call's own command; sometimes a neighbouring
 * block is dirtied right before the call. A failed write-through (plain or
 * atomic) or direct write must leave the range reading the old data through
 * the cache, from the device and after drop_caches, and the size as it
 * was; a short write is taken into the model as its prefix, and the cache
 * must agree with the device.
 *
 * Background threads (each optional): readers (-R N, buffered reads of both
 * files, checked against the model outside the ranges that the foreground
 * operations running meanwhile may change, see background.c; no
 * O_DIRECT, which meets mmap stores' delalloc with EIO);
 * mmap stores (-M) into the first RESERVE bytes of file 0, which the
 * foreground never touches (every foreground offset, truncate size and
 * collapse/insert point is at or above RESERVE), checked by the thread
 * against its own model; a remapper (-X) that keeps re-mapping pages of the
 * writers' source buffer with MAP_FIXED over themselves (the buffer is a
 * shared memfd mapping, so a remapped page has identical content but is not
 * present: a write's copy from it stops short, and a correct kernel still
 * writes the same bytes); drop_caches every -D MS milliseconds. Fault
 * operations pause the background threads except the readers.
 *
 * Reproducible: -s SEED -n OPS replays the same sequence on the same kernel
 * and file system. On a mismatch the run prints the last operations, the
 * offset and the expected and found bytes, writes the operation log (to -l
 * PATH, else the results directory), and fails; -r LOG re-executes a log.
 * A watchdog reports an operation that has not returned in -H seconds.
 *
 * Power cuts (-C N, DIR an XFS on pcblk): each seed runs N rounds of at
 * most -K operations (default 200) with the power cut after a seeded random
 * number of device writes (or after the last operation), then XFS is
 * unmounted with the power off, restored and mounted again (log recovery),
 * and both files are checked against what the device may hold: see
 * powercut.c. Every kind but collapse, insert and fault (collapse and
 * insert move bytes between offsets); no background threads. The
 * operations replay with -s SEED, where the cut lands does not exactly (it
 * counts device writes).
 *
 * Concurrent groups (-c K, K = 2 or 3): one step in two, K operations
 * drawn together (aimed at one range) are issued at the same time by K
 * threads, and their results and the files afterwards are judged against
 * every serial order of them (conc.c says what takes part and how, and
 * what the kernel promises that the judgement rests on). A group's
 * operations are logged with their group and delay; -r replays a group
 * as a group, -s SEED -c K draws the same groups as long as the orders the
 * groups took give the same model.
 *
 * Four rules keep randops to what the kernel promises; each has an option
 * that lifts it and reproduces a known finding on Debian's unpatched 6.12
 * (and on every variant), not a bug of the series:
 *
 *   O_DIRECT reads stop at EOF rounded up to the sector. Past the block
 *   holding EOF, XFS's read mapping (xfs_read_iomap_begin) reports the
 *   data fork's speculative post-EOF delalloc as IOMAP_DELALLOC and
 *   iomap_dio_iter fails the read with EIO ("Direct I/O collision with
 *   buffered writes!"), nothing concurrent. -E reads the drawn length past
 *   EOF as before; reproducer (16 KiB blocks):
 *     ATW_NO_BUILD=1 scripts/boot vanilla --mkfs 16384 -- /tmp/ro/replay-16k-plain.sh
 *   with -E added to its randops line (op #519 dio_read of f1, size
 *   462181, reads [364544, +118784)).
 *
 *   The sub-writes of an O_DIRECT batch (io_uring, AIO) never share a page
 *   (or a folio of the minimum order, i.e. max(page, block)): slots are
 *   multiples of it, and a logged slot that is not keeps each sub-write to
 *   the pages wholly inside its slot. XFS falls back to a buffered write
 *   for a sub-block direct write to a reflinked file (-ENOTBLK in
 *   xfs_file_dio_write_unaligned), so a batch member dirties the page
 *   cache while another member's direct write to the same page is in
 *   flight; that one's completion (a kworker) fails to invalidate the page
 *   ("Page cache invalidation failure on direct I/O") and sets EIO in the
 *   mapping, returned by the next fsync or msync: the documented outcome of
 *   mixing direct and buffered I/O on one page. -P keeps the logged or
 *   drawn slots as they are; reproducer (1 KiB blocks, 512-byte sectors):
 *     ATW_NO_BUILD=1 scripts/boot vanilla --sector 512 --mkfs 1024 -- /tmp/ro/replay-van1k.sh
 *   with -P added (op #72 aio of dio in 13312-byte slots, found by #76).
 *
 *   A concurrent group never holds an asynchronous direct write (io_uring,
 *   AIO) and a truncate of the same file. xfs_setattr_size() reads the
 *   old size before inode_dio_wait(): a direct write that extends the
 *   file and completes during that wait moves the size, and a truncate
 *   upwards then zeroes from the old size, over the data the write just
 *   put there (written data lost; the truncate's serial orders both keep
 *   it). -T draws them together; reproducer (slow disk, 2 ms a command):
 *     ATW_NO_BUILD=1 scripts/boot vanilla --env ATW_NDELAY=2000000 -- \
 *       PROG -s 4 -n 1000000 -t 10 -c 2 -T \
 *       -w all=0,uring=10,aio=10,dio=5,truncate=10,read=2,fsync=1 /mnt/test
 *   with PROG this randops (op #28 truncate to 950272 beside #29, an
 *   io_uring direct write of 4096 at 942080 that extends the file: "file 1
 *   byte 942080 (size 950272): this order gives 77, found 00"). Timing
 *   decides where: seeds 1 to 6 each found it within 16 s in all.
 *
 *   A concurrent group never holds a remap of a file (an insert range, or a
 *   clone or dedupe into it, or a hole punch or zero range that is not
 *   page-aligned: XFS drops the cache over the range rounded out to pages)
 *   and an mmap read of the same file, unless -I:
 *   an upstream page cache defect (docs/findings.md, "mm: an mmap reader
 *   sees zeros in a large folio that a remap only drops"; vanilla 6.12
 *   too, tests/remap_mmap_zeros.c): XFS drops the range from the page
 *   cache before it remaps, and a large folio that straddles the range's
 *   start is zeroed there while a fault can map it again, so an mmap
 *   reader sees zeros that no state of the file holds. -I draws them
 *   together; reproducer (slow disk, 2 ms a command; failed in 2 of 3
 *   runs):
 *     ATW_NO_BUILD=1 scripts/boot pgatomic --env ATW_NDELAY=2000000 -- \
 *       PROG -s 44 -n 100000 -t 10 -c 3 -I /mnt/test
 *   (op #109 insert of 16384 at 602112 beside #110, an mmap read of
 *   [613592, 649771): "byte 618496 is 00, which no state of any order has
 *   there"); on the write-through kernel, seed 42 -c 3 (a clone into the
 *   file at 4096: zero at 4096), and once (2026-12-07, f28e2472, seed 42
 *   -c 3, 4 KiB blocks) a punch of [72301, 76397) beside an mmap read:
 *   zero at 69632, the start of the page-rounded range, outside the hole.
 *
 *   In power-cut rounds, an operation that may drop a reference to a
 *   block another range shares (truncate, punch, zero, fallocate, and a
 *   clone, dedupe or copy onto the file) is followed by an fsync of the
 *   file once the file has shared blocks. XFS lowers a shared block's
 *   reference count to one in memory only; the other owner then
 *   overwrites the block in place, and if the power goes before the log
 *   holds the drop, recovery gives the first range the block back, with
 *   the other range's new data in it (docs/findings.md, "XFS: a dropped
 *   reflink reference comes back after a power cut with another range's
 *   data"). -S leaves those operations unsynced; reproducer: the plan
 *   xfs-refdrop (tests/xfs_refdrop.c), or randops -C 40 -K 150 -S on
 *   pcblk (seeds 32, 33, 36 and 38 failed on 4096-byte sectors with
 *   tear_pct=100).
 *
 * usage: randops [-s SEEDS] [-n OPS] [-t SECS] [-w K=N,...] [-q QD]
 *                [-m MAXSIZE] [-R N] [-M] [-X] [-D MS] [-H SECS]
 *                [-l LOG] [-r LOG] [-E] [-P] [-C CUTS [-K OPS] [-S]] [-c 2|3 [-T] [-I]]
 *                [-v] DIR
 *
 * The units: main.c (options, one seed, a replay, the summary), model.c
 * (random numbers, the operation log, the model and the checks against it),
 * draw.c (drawing an operation), ops.c (executing it), conc.c (concurrent
 * groups), fault.c, powercut.c, background.c (threads, watchdog), probe.c;
 * randops.h what they share.
 */
#include "randops.h"

struct kinfo kinds[NKINDS] = {
	[K_BUF] = { "buf", 10 }, [K_WT] = { "wt", 10 }, [K_WT_DSYNC] = { "wt_dsync", 3 },
	[K_WT_ATOMIC] = { "wt_atomic", 6 }, [K_DIO] = { "dio", 5 },
	[K_DIO_ATOMIC] = { "dio_atomic", 4 }, [K_BUF_ATOMIC] = { "buf_atomic", 6 },
	[K_MMAP_W] = { "mmap_write", 4 }, [K_APPEND] = { "append", 3 }, [K_READ] = { "read", 10 },
	[K_MMAP_R] = { "mmap_read", 3 }, [K_DIO_R] = { "dio_read", 3 },
	[K_TRUNC] = { "truncate", 4 }, [K_FALLOC] = { "falloc", 2 }, [K_PUNCH] = { "punch", 3 },
	[K_ZERO] = { "zero", 3 }, [K_COLLAPSE] = { "collapse", 2 }, [K_INSERT] = { "insert", 2 },
	[K_CLONE] = { "clone", 4 }, [K_DEDUPE] = { "dedupe", 2 }, [K_COPY] = { "copy", 3 },
	[K_FSYNC] = { "fsync", 2 }, [K_FDATASYNC] = { "fdatasync", 2 }, [K_SFR] = { "sfr", 2 },
	[K_DROP] = { "drop", 1 }, [K_URING] = { "uring", 3 }, [K_AIO] = { "aio", 3 },
	[K_FAULT] = { "fault", 0 }, [K_VERIFY] = { "verify", 1 },
};

/* --- configuration and state --- */
uint64_t maxf = 2u << 20, lo;
unsigned int qd = 4, nreaders, drop_ms, hang_secs = 150;
bool bg_mmap, bg_remap, verbose;
bool dio_past_eof, dio_share_pages, dio_aio_trunc;	/* -E, -P, -T: see the header */
bool remap_mmap;	/* -I: see the header */
bool cut_refdrop_unsynced;	/* -S: see the header */
const char *logpath, *replay;
unsigned int bs, lbs, ps;
uint32_t dio_min, dio_max, buf_min, buf_max;
struct rfile files[NFILES];
unsigned char *src, *rdbuf, *tmpbuf;
size_t slot, srclen;
int memfd = -1;
struct io_uring ring;
bool ring_ok;
aio_context_t aio_ctx;
uint8_t write_opcode = 0x8a;
/* Atomic kinds this kernel refuses (EOPNOTSUPP) on shared extents. */
bool shared_refused[NWRITEKINDS];
unsigned long missed_faults;

struct op *ops;
size_t nops, capops;
char failmsg[1024];
bool failed;
unsigned int ncuts, cut_ops = 200;	/* -C, -K: see the header */
bool cutting, cut_seen;
uint64_t cur_seed;
unsigned int conc_k;	/* -c */

atomic_ulong progress;	/* ops done, for the watchdog */
struct op *volatile cur_op;	/* the one in flight, for the watchdog */
atomic_int bg_stop;
pthread_rwlock_t quiesce;
atomic_ulong bg_reads, bg_stores, bg_remaps, bg_drops;
char bg_fail[256];
atomic_int bg_failed;

/* --- one seed --- */
static void count_kinds(size_t from)
{
	size_t i;

	for (i = from; i < nops; i++)
		kinds[ops[i].kind].drawn++;
}

static void report_kinds(const char *what)
{
	char s[1024];
	size_t n = 0;
	int k;

	for (k = 0; k < NKINDS; k++) {
		if (!kinds[k].drawn)
			continue;
		n += snprintf(s + n, sizeof(s) - n, " %s=%lu", kinds[k].name, kinds[k].drawn);
		if (kinds[k].refused)
			n += snprintf(s + n, sizeof(s) - n, "(%lu calls refused as due)",
				      kinds[k].refused);
		if (n >= sizeof(s))
			break;
	}
	diag("%s drawn:%s", what, s);
}

/* For the summary line: sequences run, operations, the failing ones. */
static unsigned int seqs_run, seqs_failed, cuts_run;
static uint64_t ops_run;
static char failing[256];

static void finish_seq(const char *name, uint64_t count, double t0)
{
	struct op end = { .seq = count, .kind = K_VERIFY };
	int i;

	/* at the end: every file through the cache, then after drop_caches */
	for (i = 0; !failed && i < NFILES; i++) {
		end.file = i;
		verify_file(&end, i, "final read");
	}
	if (!failed) {
		wt_drop_caches();
		for (i = 0; !failed && i < NFILES; i++) {
			end.file = i;
			verify_file(&end, i, "final read after drop_caches");
		}
	}
	if (atomic_load(&bg_failed))
		bad(&end, "background: %s", bg_fail);
	seqs_run++;
	ops_run += count;
	if (failed) {
		size_t n = strlen(failing);

		seqs_failed++;
		if (n < sizeof(failing) - 24)
			snprintf(failing + n, sizeof(failing) - n, "%s%llu", n ? "," : "",
				 replay ? 0ULL : (unsigned long long)cur_seed);
		print_last();
		write_log(failmsg);
		check(false, "%s: mismatch after %llu ops: %s", name, (unsigned long long)count,
		      failmsg);
	} else {
		check(true, "%s: %llu ops, no mismatch (%.0f s)", name, (unsigned long long)count,
		      now() - t0);
		if (logpath)
			write_log("passed");
	}
}

static void start_bg(pthread_t *th, int *nth)
{
	unsigned int i;

	atomic_store(&bg_stop, 0);
	for (i = 0; i < nreaders; i++)
		pthread_create(&th[(*nth)++], NULL, reader_thread, (void *)(uintptr_t)(cur_seed + i));
	if (bg_mmap)
		pthread_create(&th[(*nth)++], NULL, mmap_thread, (void *)(uintptr_t)(cur_seed * 3 + 1));
	if (bg_remap && memfd >= 0)
		pthread_create(&th[(*nth)++], NULL, remap_thread, (void *)(uintptr_t)(cur_seed * 5 + 1));
	if (drop_ms)
		pthread_create(&th[(*nth)++], NULL, drop_thread, NULL);
}

static void stop_bg(pthread_t *th, int nth)
{
	int i;

	atomic_store(&bg_stop, 1);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
}

static void run_seed(uint64_t seed, uint64_t nmax, double secs)
{
	uint64_t r = seed, i = 0;
	double t0 = now();
	pthread_t th[24];
	unsigned int c;
	int nth = 0;
	char name[64];
	struct op o;

	cur_seed = seed;
	r = rng_next(&r) ^ 0x5bd1e9955bd1e995ULL;	/* unrelated streams per seed */
	memset(&last_clone, 0, sizeof(last_clone));
	nops = 0;
	failed = false;
	atomic_store(&bg_failed, 0);
	open_files();
	if (ncuts) {
		for (i = 0; i < NFILES; i++)
			cut_sync(i, 0);
		for (i = 0, c = 0; c < ncuts && i < nmax && !failed; c++) {
			if (secs > 0 && now() - t0 > secs)
				break;
			i = cut_round(&r, i, nmax, c);
		}
		diag("seed %llu: %u power cuts (%lu mid-stream, the rest after %u operations), %lu atomic writes judged (%lu new, the rest old), %lu bytes checked",
		     (unsigned long long)seed, c, cut_mid, cut_ops, cut_units, cut_units_new,
		     cut_bytes);
		cuts_run += c;
		cut_mid = cut_units = cut_units_new = cut_bytes = 0;
		nmax = 0;	/* the loop below has nothing left to do */
	}
	win_started = 0;
	win_end();
	start_bg(th, &nth);
	while (i < nmax && !failed && !atomic_load(&bg_failed)) {
		if (secs > 0 && now() - t0 > secs)
			break;
		if (conc_k && rnd(&r, 2)) {
			i += run_group(&r, i);
			continue;
		}
		run_op(&r, &o, i);
		i++;
	}
	cur_op = NULL;
	stop_bg(th, nth);
	count_kinds(0);
	snprintf(name, sizeof(name), "seed %llu", (unsigned long long)seed);
	finish_seq(name, i, t0);
	if (nreaders || bg_mmap || bg_remap || drop_ms)
		diag("seed %llu background: %lu reads (%lu checked against the model, %lu overtaken by %d operations), %lu mmap stores, %lu remaps, %lu drops",
		     (unsigned long long)seed, atomic_exchange(&bg_reads, 0),
		     atomic_exchange(&bg_checked, 0), atomic_exchange(&bg_overtaken, 0), NWIN,
		     atomic_exchange(&bg_stores, 0), atomic_exchange(&bg_remaps, 0),
		     atomic_exchange(&bg_drops, 0));
	close_files();
}

static int kind_by_name(const char *s)
{
	int k;

	for (k = 0; k < NKINDS; k++)
		if (!strcmp(kinds[k].name, s))
			return k;
	return -1;
}

/* Runs the group collected so far (replay): its operations at once. */
static void replay_flush(struct op *g, int *ng)
{
	if (*ng == 1) {
		log_op(&g[0]);
		exec_op(&g[0]);
	} else if (*ng > 1) {
		exec_group(g, *ng);
	}
	*ng = 0;
}

static void run_replay(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], kname[32];
	unsigned int seq, fi, f2, sub, n, bo, grp = 0, delay = 0;
	unsigned long long gen, off, len, off2, v1, v2;
	double t0 = now();
	uint64_t count = 0;
	struct op o, g[MAXK];
	int ng = 0, nf;

	if (!f)
		tap_bail("replay log %s: %s", path, strerror(errno));
	cur_seed = 0;
	nops = 0;
	failed = false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# randops log: seed %llu", &v1) == 1)
			cur_seed = v1;
		if (sscanf(line, "# params lo=%llu maxf=%llu", &v1, &v2) == 2) {
			lo = v1;
			maxf = v2;
		}
		if (line[0] == '#')
			continue;
		if (!count)
			open_files();
		/* logs of before the concurrent phase have 11 fields */
		grp = delay = 0;
		nf = sscanf(line, "%u %31s %u %u %u %u %llu %llu %llu %llu %u %u %u", &seq, kname,
			    &fi, &f2, &sub, &n, &gen, &off, &len, &off2, &bo, &grp, &delay);
		if ((nf != 11 && nf != 13) || kind_by_name(kname) < 0 || fi >= NFILES ||
		    f2 >= NFILES)
			tap_bail("replay log: bad line: %s", line);
		o = (struct op){ .seq = seq, .kind = kind_by_name(kname), .file = fi, .file2 = f2,
				 .sub = sub, .n = n, .gen = gen, .off = off, .len = len,
				 .off2 = off2, .bufoff = bo, .grp = grp, .delay = delay };
		if (ng && (g[0].grp != o.grp || ng == MAXK))
			replay_flush(g, &ng);
		if (failed)
			break;
		g[ng++] = o;
		count++;
		if (!o.grp)
			replay_flush(g, &ng);
		if (failed)
			break;
	}
	if (!failed)
		replay_flush(g, &ng);
	fclose(f);
	if (!count)
		tap_bail("replay log %s has no operations", path);
	count_kinds(0);
	finish_seq("replay", count, t0);
	close_files();
}

/* --- command line --- */
static void parse_weights(char *s)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int k;

		if (!eq)
			tap_bail("-w: %s is not NAME=WEIGHT", tok);
		*eq = 0;
		if (!strcmp(tok, "all")) {
			for (k = 0; k < NKINDS; k++)
				kinds[k].weight = atoi(eq + 1);
			continue;
		}
		k = kind_by_name(tok);
		if (k < 0)
			tap_bail("-w: unknown kind %s", tok);
		kinds[k].weight = atoi(eq + 1);
	}
}

static void usage_bail(void)
{
	tap_bail("usage: randops [-s SEED[,SEED...]] [-n OPS] [-t SECS] [-w KIND=N,...] [-q QD] [-m MAXSIZE] [-R READERS] [-M] [-X] [-D MS] [-H SECS] [-l LOG] [-r LOG] [-E] [-P] [-C CUTS [-K OPS] [-S]] [-c 2|3 [-T] [-I]] [-v] DIR");
}

int main(int argc, char **argv)
{
	uint64_t seeds[64], nmax = 1000;
	unsigned int nseeds = 0, i;
	double secs = 0;
	const struct atw_env *e;
	char *fake[2], *sv, *tok;
	int c, k;

	tap_start("randops");
	seeds[nseeds++] = 1;
	while ((c = getopt(argc, argv, "s:n:t:w:q:m:R:MXD:H:l:r:EPTISvC:K:c:")) != -1) {
		switch (c) {
		case 's':
			nseeds = 0;
			for (tok = strtok_r(optarg, ",", &sv); tok && nseeds < 64;
			     tok = strtok_r(NULL, ",", &sv))
				seeds[nseeds++] = strtoull(tok, NULL, 0);
			break;
		case 'n': nmax = strtoull(optarg, NULL, 0); break;
		case 't': secs = atof(optarg); break;
		case 'w': parse_weights(optarg); break;
		case 'q': qd = atoi(optarg); break;
		case 'm': maxf = strtoull(optarg, NULL, 0); break;
		case 'R': nreaders = atoi(optarg); break;
		case 'M': bg_mmap = true; break;
		case 'X': bg_remap = true; break;
		case 'D': drop_ms = atoi(optarg); break;
		case 'H': hang_secs = atoi(optarg); break;
		case 'l': logpath = optarg; break;
		case 'r': replay = optarg; break;
		case 'E': dio_past_eof = true; break;
		case 'P': dio_share_pages = true; break;
		case 'T': dio_aio_trunc = true; break;
		case 'I': remap_mmap = true; break;
		case 'S': cut_refdrop_unsynced = true; break;
		case 'v': verbose = true; break;
		case 'C': ncuts = atoi(optarg); break;
		case 'K': cut_ops = atoi(optarg); break;
		case 'c': conc_k = atoi(optarg); break;
		default: usage_bail();
		}
	}
	if (optind != argc - 1 || !nseeds || qd < 1 || qd > MAXQD || nreaders > 16 || !cut_ops ||
	    conc_k == 1 || conc_k > MAXK)
		usage_bail();
	if (ncuts && (nreaders || bg_mmap || bg_remap || drop_ms || replay || conc_k))
		tap_bail("-C (power cuts) takes no background threads, no replay and no -c");
	fake[0] = argv[0];
	fake[1] = argv[optind];
	e = atw_env_setup(2, fake, "randops [options] DIR");
	bs = e->bs;
	lbs = e->lbs;
	ps = e->ps;
	dio_min = e->lim.dio_min;
	dio_max = e->lim.dio_max;
	buf_min = e->lim.buf_min;
	buf_max = e->lim.buf_max;
	if (maxf < 4 * RESERVE)
		maxf = 4 * RESERVE;
	maxf = rup(maxf, 1u << 20);
	lo = bg_mmap ? RESERVE : 0;

	/* the writers' source: a shared memfd mapping (see remap_thread) */
	slot = rup(2 * (size_t)MAXW + 4096, ps);
	srclen = (MAXQD + 1) * slot;
	memfd = syscall(SYS_memfd_create, "randops-src", 0);
	if (memfd >= 0 && ftruncate(memfd, srclen) == 0)
		src = mmap(NULL, srclen, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (!src || src == MAP_FAILED) {
		diag("no memfd source buffer (%s): anonymous memory, no remapper", strerror(errno));
		memfd = -1;
		src = atw_alloc(srclen);
	}
	rdbuf = atw_alloc(MAXW * 2 > maxf ? MAXW * 2 : maxf);
	tmpbuf = atw_alloc(maxf + MAXW);
	if (ncuts) {
		if (access(PCBLK_DIR "/cut", W_OK))
			tap_bail("-C: no pcblk control directory %s (%s); DIR must be on pcblk",
				 PCBLK_DIR, strerror(errno));
		okb = atw_alloc(maxf + MAXW);
		for (k = 0; k < NFILES; k++) {
			dur[k] = atw_alloc(maxf + MAXW);
			lastdur[k] = calloc(maxf + MAXW, sizeof(*lastdur[k]));
			if (!lastdur[k])
				tap_bail("out of memory");
		}
	}
	{
		pthread_rwlockattr_t a;
		pthread_t wd;

		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&quiesce, &a);
		pthread_create(&wd, NULL, watchdog_thread, NULL);
		pthread_detach(wd);
	}

	probe();
	if (ncuts) {	/* not an absence: the phase's design, one line */
		char left[256] = "";

		for (k = 0; k < NKINDS; k++) {
			if (cut_kind(k) || !kinds[k].weight)
				continue;
			kinds[k].weight = 0;
			snprintf(left + strlen(left), sizeof(left) - strlen(left), " %s",
				 kinds[k].name);
		}
		diag("power-cut phase: not drawn (they move bytes between offsets, which its model of values per offset does not follow, or inject errors):%s",
		     left);
	}
	for (k = 0; k < NKINDS; k++)
		if (!kinds[k].avail && kinds[k].weight)
			skip(kinds[k].why, "kind %s not drawn", kinds[k].name);
	if (bg_remap && memfd < 0)
		skip("no memfd source buffer", "background remapper");
	diag("files of up to %llu bytes, foreground from %llu, queue depth %u, data writes up to %u",
	     (unsigned long long)maxf, (unsigned long long)lo, qd, MAXW);
	if (conc_k)
		conc_init();
	if (replay) {
		run_replay(replay);
	} else {
		for (i = 0; i < nseeds; i++)
			run_seed(seeds[i], nmax, secs > 0 ? secs / nseeds : 0);
	}
	report_kinds(replay ? "replay" : "all seeds");
	conc_report();
	if (kinds[K_FAULT].drawn)
		diag("fault: %lu calls failed by the injected error as due, %lu where it missed the call's command",
		     kinds[K_FAULT].refused, missed_faults);
	for (k = 0; k < NKINDS; k++)
		if (kinds[k].failed)
			diag("kind %s: %lu mismatches", kinds[k].name, kinds[k].failed);
	/* one line for scripts/compare (compare/read_randops.c) */
	diag("randops: sequences=%u ops=%llu failed=%u failing=%s faults=%lu cuts=%u bs=%u sector=%u conc=%u",
	     seqs_run, (unsigned long long)ops_run, seqs_failed, failing[0] ? failing : "-",
	     kinds[K_FAULT].drawn, cuts_run, bs, lbs, conc_k);
	if (ring_ok)
		io_uring_queue_exit(&ring);
	return tap_done();
}
