// SPDX-License-Identifier: GPL-2.0
/*
 * A store through a shared mapping, a buffered write or a second
 * write-through into a block whose write-through the device fails
 * (docs/design.md, "Errors and partly failed writes"), on the XFS mounted
 * at DIR, on a disk with device latency (scsi_debug ndelay; plans/wt runs
 * it there).
 *
 * The failing write-through (of block 2, whole) is submitted with Linux
 * AIO, so that it is in flight when io_submit returns; the test then puts
 * one byte into the block, one of three ways:
 *  - store: through a shared mapping. The page was mapped read-only by an
 *    earlier read, so the store is a write fault on a folio that the
 *    write-through holds under writeback: ->page_mkwrite waits for it
 *    (stable pages) and must look at the folio only after the wait;
 *  - write: a one-byte buffered pwrite(): the page-cache lookup waits for
 *    the folio's writeback (the mapping needs stable pages while a
 *    write-through is in flight) and must do so before it decides which
 *    blocks are uptodate, or it keeps the failed data around the byte;
 *  - wt: a one-byte RWF_WRITETHROUGH pwrite(), the same for the
 *    write-through's own lookup (the page cache never has two writes of
 *    a block in flight).
 * The device fails the first write's command and its retries (lib/
 * wt_common.h wt_inject, by opcode; an attempt in which other commands took
 * some of the failures is made again). Then:
 *  - the event is -EIO, the byte's call returns 1 (it waits for the first
 *    write, so none of the failures can reach its own command);
 *  - the block reads the old data with the byte, through the mapping and
 *    the cache, after fsync on the device (read at its address with
 *    O_DIRECT, the mapping gone), and after a dropped cache: the byte is
 *    not lost, and the failed data does not come back (docs/design.md,
 *    "Errors and partly failed writes": the failed range reads what the
 *    device has). As the byte's call starts after the failing write was
 *    submitted, that is the only outcome a serial order of the two gives;
 *  - no kernel warning (the harness fails the boot on one): a fault must
 *    not find the folio mapped while its blocks are not uptodate.
 * Several rounds, as the outcome on a kernel that gets this wrong depends
 * on which of the byte's call and the completion's invalidation runs
 * first; the test also counts the rounds whose byte's call started while
 * the write was still in flight (no event yet), and fails if fewer than
 * half did (the race was not exercised). It needs the write-through to
 * complete asynchronously under AIO, as the series makes it.
 * Each way also with an RWF_ATOMIC|RWF_WRITETHROUGH first write where statx
 * advertises buffered atomic writes of one block.
 *
 * usage: wt_ioerror_overlap DIR [ROUNDS]
 */
#include "lib/wt_common.h"

#include <linux/aio_abi.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifdef RWF_WRITETHROUGH

#define NBLK 8			/* blocks in the test file */
#define G_OLD 1
#define G_NEW 3

enum way { BY_STORE, BY_WRITE, BY_WT };

static const char *const way_name[] = {
	[BY_STORE] = "a store through a shared mapping",
	[BY_WRITE] = "a buffered write",
	[BY_WT] = "a second write-through",
};

static uint8_t write_opcode;
static aio_context_t ctx;

static const char *kind(int flags)
{
	return (flags & RWF_ATOMIC) ? "atomic write-through" : "write-through";
}

/* Block 2 (at b), its byte at_off aside, is all generation gen. */
static bool rest_is(const unsigned char *b, size_t at_off, uint64_t gen)
{
	size_t bs = atw_env()->bs;
	unsigned char *want = atw_alloc(bs);
	bool same;

	wt_pattern(want, bs, 2 * bs, gen);
	want[at_off] = b[at_off];
	same = !memcmp(b, want, bs);
	free(want);
	return same;
}

static bool old_with_byte(const unsigned char *b, size_t at_off, unsigned char val)
{
	return b[at_off] == val && rest_is(b, at_off, G_OLD);
}

static const char *what_is(const unsigned char *b, size_t at_off, unsigned char val)
{
	bool put = b[at_off] == val;

	if (rest_is(b, at_off, G_OLD))
		return put ? "old, with the byte" : "old, the byte lost";
	if (rest_is(b, at_off, G_NEW))
		return put ? "the failed data, with the byte" : "the failed data";
	return "mixed";
}

/* -EAGAIN: no event within the timeout. */
static long event_within(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
	struct io_event ev;
	long ret;

	do
		ret = syscall(SYS_io_getevents, ctx, 1, 1, &ev, ns < 0 ? NULL : &ts);
	while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	return ret == 1 ? (long)ev.res : -EAGAIN;
}

/* Puts val at file offset off the given way: 1, or -errno. */
static ssize_t put_byte(enum way how, int fd, unsigned char *map, off_t off, unsigned char val)
{
	switch (how) {
	case BY_STORE:
		*(volatile unsigned char *)(map + off) = val;
		return 1;
	case BY_WRITE:
		return atw_pwrite(fd, &val, 1, off, 0);
	case BY_WT:
		return atw_pwrite(fd, &val, 1, off, RWF_WRITETHROUGH);
	}
	return -EINVAL;
}

/* One round; 1 if the byte came while the write-through was in flight. */
static int round_once(int flags, enum way how, int r, unsigned int *bad)
{
	const struct atw_env *e = atw_env();
	size_t bs = e->bs, flen = NBLK * bs, at_off = bs / 2 + (7 * (r + 1)) % (bs / 2);
	unsigned char *buf = atw_alloc(flen), *rd = atw_alloc(bs), *map;
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	struct wt_injected inj = { .opcode = (flags & RWF_ATOMIC) ? 0x9c : write_opcode };
	const char *w = way_name[how];
	unsigned char val, o, n;
	int fd, armed, in_flight = 0;
	ssize_t put = 0;
	uint64_t phys;
	long res = 0;

	fd = atw_env_open("wt_ioerror_overlap", O_TRUNC);
	wt_pattern(buf, flen, 0, G_OLD);
	if (atw_pwrite(fd, buf, flen, 0, 0) != (ssize_t)flen || fsync(fd))
		tap_bail("pre-write: %s", strerror(errno));
	map = mmap(NULL, flen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	if (wt_phys(fd, 2 * bs, &phys))
		tap_bail("no device address for block 2");
	o = wt_byte(2 * bs + at_off, G_OLD);
	n = wt_byte(2 * bs + at_off, G_NEW);
	for (val = 0x5a; val == o || val == n; val++)
		;
	wt_pattern(buf, bs, 2 * bs, G_NEW);

	while (!(armed = wt_inject_arm(&inj))) {
		/* a read maps the page read-only: a store write-faults */
		if (*(volatile unsigned char *)(map + 2 * bs + at_off) != o)
			tap_bail("the mapping reads something else before the write");
		cb.aio_lio_opcode = IOCB_CMD_PWRITE;
		cb.aio_fildes = fd;
		cb.aio_buf = (uintptr_t)buf;
		cb.aio_nbytes = bs;
		cb.aio_offset = 2 * bs;
		cb.aio_rw_flags = flags;
		if (syscall(SYS_io_submit, ctx, 1, cbs) != 1)
			tap_bail("io_submit: %s", strerror(errno));
		res = event_within(0);
		in_flight = res == -EAGAIN;
		put = put_byte(how, fd, map, 2 * bs + at_off, val);
		if (in_flight)
			res = event_within(-1);
		/*
		 * Decided unless other commands took some of the six failures.
		 * Then the byte's own call (a second write-through) may have
		 * taken one too; otherwise it cannot: it waits for the first
		 * write, whose command took all six, so its -EIO is a failure.
		 */
		if (wt_inject_done(&inj, phys, bs))
			break;
		/*
		 * Again: the error went to other commands, and the write may
		 * have reached the device. Block 2 back to the old data (still
		 * in buf at block 2: the new data went to buf's first block).
		 */
		if (atw_pwrite(fd, buf + 2 * bs, bs, 2 * bs, 0) != (ssize_t)bs)
			tap_bail("rewriting block 2: %s", strerror(errno));
		/* the first fsync may report the failed write's error */
		if (fsync(fd) && fsync(fd))
			tap_bail("rewriting block 2: fsync: %s", strerror(errno));
	}
	if (armed)
		tap_bail("arming the device error: %s", atw_err(armed));
	if (res != -EIO || !(inj.mine || !inj.traced) || put != 1) {
		*bad += !check(0, "%s under %s, round %d: the device fails it: -EIO (got %ld %s), the byte's call returns 1 (got %zd %s)",
			       kind(flags), w, r, res, atw_err(res), put, atw_err(put));
		goto out;
	}

	memcpy(rd, map + 2 * bs, bs);
	if (!old_with_byte(rd, at_off, val))
		*bad += !check(0, "%s failed under %s, round %d: the block reads old with the byte through the mapping (%s)",
			       kind(flags), w, r, what_is(rd, at_off, val));
	if (atw_pread(fd, rd, bs, 2 * bs) != (ssize_t)bs || !old_with_byte(rd, at_off, val))
		*bad += !check(0, "%s failed under %s, round %d: the block reads old with the byte through the cache (%s)",
			       kind(flags), w, r, what_is(rd, at_off, val));
	/* the first may report the failed write's error; the second must not */
	if (fsync(fd) && fsync(fd))
		*bad += !check(0, "%s failed under %s, round %d: a second fsync succeeds (%s)",
			       kind(flags), w, r, strerror(errno));
	/* unmapped, so that the folio can go and the reads below see the device */
	munmap(map, flen);
	map = MAP_FAILED;
	if (wt_dev_read_range(fd, rd, 2 * bs, bs) || !old_with_byte(rd, at_off, val))
		*bad += !check(0, "%s failed under %s, round %d: after fsync the device holds old with the byte (%s)",
			       kind(flags), w, r, what_is(rd, at_off, val));
	wt_drop_caches();
	if (atw_pread(fd, rd, bs, 2 * bs) != (ssize_t)bs || !old_with_byte(rd, at_off, val))
		*bad += !check(0, "%s failed under %s, round %d: after fsync and a dropped cache the block reads old with the byte (%s)",
			       kind(flags), w, r, what_is(rd, at_off, val));
out:
	if (map != MAP_FAILED)
		munmap(map, flen);
	close(fd);
	atw_env_unlink("wt_ioerror_overlap");
	free(buf);
	free(rd);
	return in_flight;
}

static void run(int flags, enum way how, int rounds)
{
	unsigned int bad = 0;
	int r, in_flight = 0;

	for (r = 0; r < rounds; r++)
		in_flight += round_once(flags, how, r, &bad);
	check(2 * in_flight >= rounds,
	      "%s under %s: the byte came while the write was in flight in %d of %d rounds (at least half)",
	      kind(flags), way_name[how], in_flight, rounds);
	check(!bad, "%s failed by the device under %s: the block reads old with the byte, every way, in all %d rounds",
	      kind(flags), way_name[how], rounds);
}

int main(int argc, char **argv)
{
	const struct atw_env *e;
	char path[256];
	int rounds = 8;
	enum way how;

	tap_start("wt_ioerror_overlap");
	e = atw_env_setup(argc > 2 ? 2 : argc, argv, "wt_ioerror_overlap DIR [ROUNDS]");
	if (argc > 2)
		rounds = atoi(argv[2]) > 0 ? atoi(argv[2]) : rounds;
	if (wt_inject_path(path, sizeof(path))) {
		skip("no scsi_debug error injection in debugfs", "wt_ioerror_overlap");
		return tap_done();
	}
	if (syscall(SYS_io_setup, 4, &ctx))
		tap_bail("io_setup: %s", strerror(errno));
	write_opcode = wt_find_write_opcode();
	for (how = BY_STORE; how <= BY_WT; how++) {
		run(RWF_WRITETHROUGH, how, rounds);
		if (e->lim.buf && e->lim.buf_min <= e->bs && e->lim.buf_max >= e->bs)
			run(RWF_ATOMIC | RWF_WRITETHROUGH, how, rounds);
		else
			skip("statx advertises no buffered atomic unit of one block",
			     "atomic write-through failed under %s", way_name[how]);
	}
	syscall(SYS_io_destroy, ctx);
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_ioerror_overlap");
	skip(WT_UAPI_SKIP, "wt_ioerror_overlap");
	return tap_done();
}

#endif
