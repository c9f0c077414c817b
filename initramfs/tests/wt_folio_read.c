// SPDX-License-Identifier: GPL-2.0
/*
 * A read of one block of a folio never fails because a write-through of
 * another block of the same folio failed (docs/design.md, "Errors and partly
 * failed writes"), on the XFS mounted at DIR, where blocks are smaller than
 * a page:
 *
 *   The file is one page of old data on the device, not cached. A thread
 *   write-throughs block 2 of it, and the device fails that write once
 *   (lib/wt_common.h wt_inject_once: not retried, the trace must show it
 *   at block 2's address; an injected failure comes back at once). After a
 *   delay that the rounds vary from 0 to 3.75 ms, another thread reads
 *   block 0: if it comes after the write's copy, it finds the page with
 *   block 2 uptodate (the write's) and reads the other blocks from the
 *   device, at 200 ms a command (scsi_debug's ndelay, set here and put
 *   back), and that read is still in flight when the write fails. The read must return block 0's
 *   old data, not EIO, and afterwards the page must read wholly old (the
 *   failed data may not stay uptodate). A round counts when the read began
 *   before the write returned and read from the device (it took at least
 *   half a command); ROUNDS rounds, VALID must count. Mutation
 *   wt-read-folio-no-wait (no wait in iomap_read_folio()) fails it.
 *
 *   Control: the same with a write-through that succeeds.
 *
 * SKIP where blocks are not smaller than a page, or scsi_debug's delay
 * cannot be set.
 *
 * usage: wt_folio_read DIR
 */
#include "lib/wt_common.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define ROUNDS 24		/* 8 for the control */
#define VALID 3
#define G_OLD 1
#define G_NEW 2
#define SLOW_NS 200000000	/* 200 ms a command */

static struct atw_env *env;

struct round {
	int wfd, rfd;
	bool fail;
	atomic_int wstarted;
	unsigned int delay_us;	/* the reader's, after the write began */
	uint64_t w_t0, w_t1, r_t0, r_t1;
	ssize_t wret, rret;
	unsigned char *rbuf;
};

static void *writer(void *arg)
{
	struct round *r = arg;
	unsigned char *buf = atw_alloc(env->bs);

	wt_pattern(buf, env->bs, 2 * env->bs, G_NEW);
	r->w_t0 = wt_now_us();
	atomic_store(&r->wstarted, 1);
	r->wret = atw_pwrite(r->wfd, buf, env->bs, 2 * env->bs, RWF_WRITETHROUGH);
	r->w_t1 = wt_now_us();
	free(buf);
	return NULL;
}

static void *reader(void *arg)
{
	struct round *r = arg;

	while (!atomic_load(&r->wstarted))
		;
	/*
	 * The write's failure comes back at once: the read has to come
	 * between its copy and its completion, a window of a few ms under
	 * TCG; the rounds try delays across it.
	 */
	if (r->delay_us)
		usleep(r->delay_us);
	r->r_t0 = wt_now_us();
	r->rret = atw_pread(r->rfd, r->rbuf, env->bs, 0);
	r->r_t1 = wt_now_us();
	return NULL;
}

static void rounds(int fd, bool fail, uint8_t op, int nrounds)
{
	const char *what = fail ? "failed write-through of block 2" :
				  "control: write-through of block 2 that succeeds";
	unsigned char *page = atw_alloc(env->ps), *old = atw_alloc(env->ps);
	int k, valid = 0, eio = 0, bad_data = 0, bad_page = 0, bad_write = 0;
	unsigned char *map, vec = 0;
	uint64_t phys;

	wt_pattern(old, env->ps, 0, G_OLD);
	if (pwrite(fd, old, env->ps, 0) != (ssize_t)env->ps || fsync(fd))
		tap_bail("write: %s", strerror(errno));
	map = mmap(NULL, env->ps, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	if (wt_phys(fd, 2 * env->bs, &phys))
		tap_bail("no extent under block 2");
	for (k = 0; k < nrounds; k++) {
		struct wt_injected inj = { .opcode = op, .once = 1 };
		struct round r = { .wfd = fd, .fail = fail };
		pthread_t tw, tr;
		int armed = 0;

		r.rbuf = atw_alloc(env->bs);
		/* the old page on the device, nothing cached */
		if (pwrite(fd, old, env->ps, 0) != (ssize_t)env->ps || fsync(fd))
			tap_bail("rewrite: %s", strerror(errno));
		wt_drop_caches();
		if (mincore(map, env->ps, &vec) || (vec & 1)) {
			diag("round %d: not counted: the page stayed cached", k);
			free(r.rbuf);
			continue;
		}
		r.rfd = fd;
		r.delay_us = (k % 16) * 250;
		if (fail && (armed = wt_inject_arm(&inj)))
			tap_bail("inject: %s", strerror(-armed));
		pthread_create(&tw, NULL, writer, &r);
		pthread_create(&tr, NULL, reader, &r);
		if (wt_join_by(tw, wt_deadline(60)) || wt_join_by(tr, wt_deadline(60)))
			tap_bail("round %d: a thread is stuck", k);
		if (fail) {
			wt_inject_done(&inj, phys, env->bs);
			if (!inj.traced || !inj.mine) {
				diag("round %d: not counted: the injected failure hit %s", k,
				     inj.traced ? "another command" : "an untraced command");
				free(r.rbuf);
				continue;
			}
			bad_write += r.wret >= 0;
		} else {
			bad_write += r.wret != (ssize_t)env->bs;
		}
		if (r.rret == -EIO)
			eio++;
		else if (r.rret != (ssize_t)env->bs || wt_pattern_bad(r.rbuf, env->bs, 0, G_OLD) >= 0)
			bad_data++;
		if (atw_pread(fd, page, env->ps, 0) != (ssize_t)env->ps ||
		    (fail && wt_pattern_bad(page, env->ps, 0, G_OLD) >= 0))
			bad_page++;
		/*
		 * The read began before the write returned and read from the
		 * device (a read that holds the folio then delays the failed
		 * write's invalidation, so the write may return after it).
		 */
		if (r.r_t0 < r.w_t1 && r.r_t1 - r.r_t0 >= SLOW_NS / 2000)
			valid++;
		diag("round %d: write %s after %llu us; read of block 0 began %lld us after it and returned %s after %llu us",
		     k, atw_err(r.wret), (unsigned long long)(r.w_t1 - r.w_t0),
		     (long long)(r.r_t0 - r.w_t0), atw_err(r.rret),
		     (unsigned long long)(r.r_t1 - r.r_t0));
		free(r.rbuf);
	}
	check(!bad_write, "%s: the write returns %s in every round (%d did not)", what,
	      fail ? "an error" : "the block", bad_write);
	if (valid < VALID) {
		skip("the read did not meet the write in enough rounds", "%s: %d of %d rounds",
		     what, valid, nrounds);
	} else {
		check(!eio && !bad_data,
		      "%s: a read of block 0 meanwhile returns its old data (%d of %d rounds failed with EIO, %d read other data)",
		      what, eio, valid, bad_data);
	}
	check(!bad_page, "%s: afterwards the page reads %s (%d rounds did not)", what,
	      fail ? "wholly old" : "back", bad_page);
	munmap(map, env->ps);
	free(page);
	free(old);
}

int main(int argc, char **argv)
{
	long long ndelay, jdelay;
	uint8_t op;
	int fd, ret;

	tap_start("wt_folio_read");
	env = atw_env_setup(argc, argv, "usage: wt_folio_read DIR");
	if (env->bs >= env->ps) {
		skip("blocks are not smaller than a page", "block %u, page %u", env->bs, env->ps);
		return tap_done();
	}
	op = wt_find_write_opcode();
	fd = atw_env_open("folio_read", O_TRUNC);
	ndelay = wt_sdebug_slow(SLOW_NS, &jdelay);
	if (ndelay < 0) {
		skip("scsi_debug's delay cannot be set", "ndelay: %s", strerror((int)-ndelay));
		close(fd);
		return tap_done();
	}
	rounds(fd, true, op, ROUNDS);
	rounds(fd, false, op, ROUNDS / 3);
	ret = wt_sdebug_restore_delay(ndelay, jdelay);
	if (ret)
		tap_bail("restoring scsi_debug's delay: %s", strerror(-ret));
	close(fd);
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_folio_read");
	skip(WT_UAPI_SKIP, "reads beside a failed write-through of the same folio");
	return tap_done();
}

#endif
