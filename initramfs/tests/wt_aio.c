// SPDX-License-Identifier: GPL-2.0
/*
 * Write-through through Linux AIO (io_submit, raw syscalls; docs/design.md,
 * "AIO, io_uring and IOCB_NOWAIT") on the XFS mounted at DIR:
 *  - batches of 1..64 plain and (if advertised) atomic write-throughs, over
 *    written extents, allocating inside EOF and extending the file, in one
 *    io_submit: every event carries
 *    the length, the device holds every range, atomic ones each inside
 *    exactly one WRITE ATOMIC(16) with no plain write over it (the block
 *    layer may merge adjacent atomic requests; unmerged ones must be exactly
 *    the range);
 *  - asynchronous like DIO: with device latency, io_submit returns while
 *    the batch's writes are still in flight (a write completes after the
 *    "submitted" marker in the trace) -- never timed; except writes that
 *    extend the file, which are done when io_submit returns (they keep the
 *    iolock until the size has moved, as ext4's extending direct writes);
 *  - units of two blocks written in place (an aligned written extent), in
 *    batches of 4: asynchronous too (io_submit returned with a unit's
 *    command in flight in most of 4 batches); before the iolock was dropped
 *    for them, each was complete when io_submit returned;
 *  - errors: RWF_ATOMIC without RWF_WRITETHROUGH gives EOPNOTSUPP, a
 *    misaligned atomic write EINVAL (from io_submit or in the event), a
 *    device error -EIO in the event; RWF_NOWAIT gives the length or EAGAIN.
 *
 * usage: wt_aio DIR
 */
#include "lib/wt_common.h"

#include <linux/aio_abi.h>
#include <sys/syscall.h>

#ifdef RWF_WRITETHROUGH

#define MAXQ 64

static aio_context_t ctx;
static uint8_t write_opcode = 0x8a;

static long io_submit_one_batch(long n, struct iocb **cbs)
{
	long ret = syscall(SYS_io_submit, ctx, n, cbs);

	return ret < 0 ? -errno : ret;
}

static long reap(long n, struct io_event *ev)
{
	long got = 0;

	while (got < n) {
		long ret = syscall(SYS_io_getevents, ctx, n - got, n - got, ev + got, NULL);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += ret;
	}
	return got;
}

static void prep(struct iocb *cb, int fd, void *buf, size_t len, off_t off, int flags, int i)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = IOCB_CMD_PWRITE;
	cb->aio_fildes = fd;
	cb->aio_buf = (uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = off;
	cb->aio_rw_flags = flags;
	cb->aio_data = i;
}

/*
 * Batches timed against the device latency, and those where io_submit
 * returned before a write of the batch completed. One batch can miss under
 * TCG when the host deschedules the guest for longer than the emulated
 * latency; a submitter that waits for its I/O misses in every batch.
 */
static int async_batches, async_late, ext_batches, ext_late;

enum { OVERWRITE, ALLOCATING, EXTENDING };
static const char *const kind_name[] = { "overwrite", "allocating", "extending" };

static size_t unit_len(int atomic)
{
	const struct atw_env *e = atw_env();

	return atomic ? (e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min) : e->bs;
}

/* Slots 1 and 2 lie inside EOF (run() sizes the file), slot 3 past it. */
static void batch(int fd, int atomic, int alloc, int depth, int slot, int async_check)
{
	const struct atw_env *e = atw_env();
	size_t len = unit_len(atomic);
	off_t base = (off_t)slot * MAXQ * 4 * len + (off_t)depth * len;
	const char *what = atomic ? "atomic WT" : "WT";
	const char *kind = kind_name[alloc];
	static struct iocb cb[MAXQ];
	struct iocb *cbs[MAXQ];
	struct io_event ev[MAXQ];
	unsigned char *buf[MAXQ], *dev = atw_alloc(len);
	static struct devcount dc, pl;	/* the trace's atomic and plain writes */
	int i, okres = 0, okdev = 0, exact = 0, whole = 0, torn = 0, late = 0, sub, err;
	long ret;

	for (i = 0; i < depth; i++) {
		buf[i] = atw_alloc(len);
		if (alloc == OVERWRITE) {
			atw_fill(buf[i], len, base + i * len, 1);
			atw_pwrite(fd, buf[i], len, base + i * len, 0);
		}
		atw_fill(buf[i], len, base + i * len, 2);
		prep(&cb[i], fd, buf[i], len, base + i * len,
		     RWF_WRITETHROUGH | (atomic ? RWF_ATOMIC : 0), i);
		cbs[i] = &cb[i];
	}
	fsync(fd);
	err = wt_tr_start();
	ret = io_submit_one_batch(depth, cbs);
	wt_mark("submitted");
	if (!check(ret == depth, "%s %s x%d: io_submit takes the batch (%ld %s)", what, kind, depth,
		   ret, atw_err(ret)))
		goto out;
	ret = reap(depth, ev);
	err = err ? err : wt_tr_stop(e->lbs);
	if (!check(ret == depth, "%s %s x%d: every event reaped (%ld)", what, kind, depth, ret))
		goto out;
	for (i = 0; i < depth; i++)
		okres += ev[i].res == (long long)len;
	sub = err ? -1 : wt_tr_find_mark(0, "submitted");
	if (!err)
		wt_tr_writes(&dc, &pl);
	for (i = 0; i < depth; i++) {
		uint64_t phys;
		off_t off = base + i * len;

		if (wt_dev_read_range(fd, dev, off, len) == 0 && atw_verify(dev, len, off, 2))
			okdev++;
		if (!err && !wt_phys(fd, off, &phys)) {
			int w;

			exact += wt_atomics_exact(&dc, phys, len) == 1;
			whole += wt_atomics_containing(&dc, phys, len) == 1;
			torn += wt_bytes_covered(&pl, phys, len) != 0;
			for (w = 0; w < wt_tr()->n; w++) {
				const struct wt_ev *x = &wt_tr()->ev[w];

				if (!wt_tr_is_write(x) || x->off != phys)
					continue;
				if (x->cmd == WT_CMD_WRITE && write_opcode == 0x8a)
					write_opcode = x->cdb[0];
				if (sub >= 0 && wt_tr_end(w) > sub)
					late++;
			}
		}
	}
	check(okres == depth, "%s %s x%d: every event carries the length (%d of %d; first %lld)", what,
	      kind, depth, okres, depth, (long long)ev[0].res);
	check(okdev == depth, "%s %s x%d: the device holds every range (%d of %d)", what, kind, depth,
	      okdev, depth);
	if (atomic)
		check(!err && whole == depth && torn == 0 && dc.atomics <= (unsigned int)depth &&
		      (exact == depth || dc.atomics < (unsigned int)depth),
		      "%s %s x%d: each range inside exactly one WRITE ATOMIC(16), no plain write over it (%d whole, %d exact, %u atomic commands, %d ranges with plain writes)",
		      what, kind, depth, whole, exact, dc.atomics, torn);
	if (async_check) {
		if (err) {
			check(0, "%s %s x%d: trace complete (%d)", what, kind, depth, err);
		} else if (alloc == EXTENDING) {
			ext_batches++;
			ext_late += late > 0;
			diag("%s %s x%d: io_submit returned with %d writes still in flight", what,
			     kind, depth, late);
		} else {
			async_batches++;
			async_late += late > 0;
			diag("%s %s x%d: io_submit returned with %d writes still in flight", what,
			     kind, depth, late);
		}
	}
	diag("%s %s x%d: device had up to %d writes in flight", what, kind, depth,
	     err ? -1 : wt_tr_max_inflight_writes());
out:
	for (i = 0; i < depth; i++)
		free(buf[i]);
	free(dev);
}

/* One iocb: its error from io_submit, or its event's result. */
static long one(int fd, void *buf, size_t len, off_t off, int flags)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long ret;

	prep(&cb, fd, buf, len, off, flags, 0);
	ret = io_submit_one_batch(1, cbs);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = reap(1, &ev);
	return ret == 1 ? ev.res : ret;
}

/*
 * Two-block units in place, NBATCH batches of UNITS: batches where io_submit
 * returned while a unit's command was still in flight (the trace orders its
 * completion after the "submitted" marker).
 */
#define UNITS 4
#define NBATCH 4
static void units_async(void)
{
	const struct atw_env *e = atw_env();
	size_t two = 2 * (size_t)e->bs, len = (size_t)UNITS * two;
	struct iocb cb[UNITS], *cbs[UNITS];
	struct io_event ev[UNITS];
	unsigned char *buf = atw_alloc(len);
	int k, i, w, sub, late_batches = 0, counted = 0, bad_res = 0;
	uint64_t phys;
	bool aligned;
	int fd;

	if (e->lim.buf_max < two) {
		skip("no buffered atomic units of two blocks advertised", "AIO units in place");
		free(buf);
		return;
	}
	fd = wt_aligned_file("wt_aio_units", 0, 0, len, &aligned);
	atw_fill(buf, len, 0, 1);
	if (pwrite(fd, buf, len, 0) != (ssize_t)len || fsync(fd))
		tap_bail("pre-write: %s", strerror(errno));
	if (!aligned || wt_phys(fd, 0, &phys) || phys % two) {
		skip("no file with an aligned extent", "AIO units in place");
		close(fd);
		free(buf);
		return;
	}
	for (k = 0; k < NBATCH; k++) {
		int err, late = 0;

		atw_fill(buf, len, 0, 3 + k);
		for (i = 0; i < UNITS; i++) {
			prep(&cb[i], fd, buf + i * two, two, (off_t)i * two,
			     RWF_WRITETHROUGH | RWF_ATOMIC, i);
			cbs[i] = &cb[i];
		}
		err = wt_tr_start();
		if (io_submit_one_batch(UNITS, cbs) != UNITS)
			tap_bail("io_submit of two-block units: %s", strerror(errno));
		wt_mark("submitted");
		if (reap(UNITS, ev) != UNITS)
			tap_bail("reaping two-block units");
		err = err ? err : wt_tr_stop(e->lbs);
		for (i = 0; i < UNITS; i++)
			bad_res += ev[i].res != (long long)two;
		if (err)
			continue;
		counted++;
		sub = wt_tr_find_mark(0, "submitted");
		for (w = 0; w < wt_tr()->n; w++) {
			const struct wt_ev *x = &wt_tr()->ev[w];

			if (wt_tr_is_write(x) && x->kind == WT_EV_START && x->off >= phys &&
			    x->off < phys + len && sub >= 0 && wt_tr_end(w) > sub)
				late++;
		}
		late_batches += late > 0;
		diag("two-block units x%d: io_submit returned with %d of their commands in flight",
		     UNITS, late);
	}
	check(!bad_res, "two-block units in place via AIO: every event carries the length (%d did not)",
	      bad_res);
	check(counted && 2 * late_batches > counted,
	      "two-block units in place via AIO are asynchronous: io_submit returned with a unit in flight in most batches (%d of %d)",
	      late_batches, counted);
	close(fd);
	free(buf);
}

static void errors(int atomic_ok)
{
	const struct atw_env *e = atw_env();
	size_t len = atomic_ok ? (e->lim.buf_min < e->bs ? e->bs : e->lim.buf_min) : e->bs;
	unsigned char *buf = atw_alloc(2 * len);
	int fd = atw_env_open("wt_aio_err", O_TRUNC);
	off_t off = 16 * (off_t)len;
	struct wt_injected inj = { .opcode = write_opcode };
	uint64_t phys;
	char path[256];
	int armed;
	long ret = 0;

	ret = one(fd, buf, e->bs, 0, RWF_ATOMIC);
	check(ret == -EOPNOTSUPP, "RWF_ATOMIC without RWF_WRITETHROUGH: EOPNOTSUPP (got %ld)", ret);
	if (atomic_ok) {
		ret = one(fd, buf, 2 * len, off + len, RWF_ATOMIC | RWF_WRITETHROUGH);
		check(ret == -EINVAL, "misaligned atomic write-through: EINVAL (got %ld)", ret);
	}
	ret = one(fd, buf, len, 64 * (off_t)len, RWF_WRITETHROUGH | RWF_NOWAIT);
	check(ret == (long)len || ret == -EAGAIN, "RWF_WRITETHROUGH|RWF_NOWAIT allocating: length or EAGAIN (got %ld)",
	      ret);
	atw_pwrite(fd, buf, len, off, 0);
	fsync(fd);
	ret = one(fd, buf, len, off, RWF_WRITETHROUGH | RWF_NOWAIT);
	check(ret == (long)len || ret == -EAGAIN, "RWF_WRITETHROUGH|RWF_NOWAIT overwrite: length or EAGAIN (got %ld)",
	      ret);
	if (wt_inject_path(path, sizeof(path))) {
		skip("no scsi_debug error injection", "device error: event -EIO");
		goto out;
	}
	if (wt_phys(fd, off, &phys)) {
		check(0, "device write error under an AIO WT: the range has a device address");
		goto out;
	}
	while (!(armed = wt_inject_arm(&inj))) {
		ret = one(fd, buf, len, off, RWF_WRITETHROUGH);
		if (wt_inject_done(&inj, phys, len))
			break;
	}
	check(!armed && ret == -EIO && (inj.mine || !inj.traced),
	      "device write error under an AIO WT: event -EIO (got %ld; %d failures on its range, attempt %d)",
	      ret, inj.mine, inj.tries);
	if (atomic_ok && !wt_inject(0x9c, 6)) {
		ret = one(fd, buf, len, off, RWF_WRITETHROUGH | RWF_ATOMIC);
		wt_inject_clear(0x9c);
		check(ret == -EIO, "device error under an AIO atomic WT: event -EIO (got %ld)", ret);
	}
out:
	close(fd);
	free(buf);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	int atomic_ok = e->lim.buf_known && e->lim.buf;
	long long ndelay = wt_sdebug_param("ndelay");
	int atomic, alloc, depth, fd;

	if (syscall(SYS_io_setup, 2 * MAXQ, &ctx)) {
		skip("kernel without AIO", "wt_aio");
		return;
	}
	diag("scsi_debug ndelay %lld ns%s", ndelay,
	     ndelay > 0 ? "" : ": no latency, the asynchrony checks are skipped");
	for (atomic = 0; atomic <= 1; atomic++) {
		if (atomic && !atomic_ok) {
			skip("statx advertises no buffered atomic writes", "atomic write-through via AIO");
			continue;
		}
		fd = atw_env_open(atomic ? "wt_aio_atomic" : "wt_aio_plain", O_TRUNC);
		if (ftruncate(fd, (off_t)3 * MAXQ * 4 * unit_len(atomic)))
			tap_bail("ftruncate: %s", strerror(errno));
		for (alloc = OVERWRITE; alloc <= EXTENDING; alloc++)
			for (depth = 1; depth <= MAXQ; depth *= 2)
				batch(fd, atomic, alloc, depth, 1 + alloc, ndelay > 0 && depth >= 4);
		close(fd);
	}
	if (async_batches)
		check(2 * async_late > async_batches,
		      "asynchronous: io_submit returned with writes inside EOF in flight in most batches (%d of %d)",
		      async_late, async_batches);
	if (ext_batches)
		check(!ext_late,
		      "extending: io_submit returned with no write of the batch in flight, the size moved (%d of %d batches had one)",
		      ext_late, ext_batches);
	if (atomic_ok && ndelay > 0)
		units_async();
	errors(atomic_ok);
	syscall(SYS_io_destroy, ctx);
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_aio");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_aio DIR");
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_aio");
#endif
	return tap_done();
}
