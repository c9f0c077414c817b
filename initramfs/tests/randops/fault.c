// SPDX-License-Identifier: GPL-2.0
/*
 * fault.c: fault operations: a scsi_debug write error under one write.
 */
#include "randops.h"

/* --- fault: a device write error under one write --- */
static void bg_pause(void)
{
	pthread_rwlock_wrlock(&quiesce);
}

static void bg_resume(void)
{
	pthread_rwlock_unlock(&quiesce);
}

/* The device holds the model for [off, off + len) of file fi, within EOF. */
static int check_device(const struct op *o, int fi, uint64_t off, uint64_t len, const char *how)
{
	struct rfile *f = &files[fi];
	uint64_t rb = rdown(off, bs), re = min64(rup(off + len, bs), rup(f->size, bs));
	unsigned char *dev;
	int m, ret;

	if (re <= rb)
		return 0;
	dev = atw_alloc(re - rb);
	m = wt_dev_read_range(f->fd, dev, rb, re - rb);
	if (m & (WT_MAP_ERROR | WT_MAP_DELALLOC)) {
		free(dev);
		return bad(o, "%s: cannot read the device under [%llu, %llu) (map 0x%x)", how,
			   (unsigned long long)rb, (unsigned long long)re, m);
	}
	ret = cmp_model(o, fi, rb, dev, min64(re, f->size) - rb, how);
	free(dev);
	return ret;
}

/* Most failed completions of one device command inside [phys, +len). */
static int max_failed_in(uint64_t phys, uint64_t len)
{
	int i, j, n, best = 0;

	for (i = 0; i < wt_tr()->n; i++) {
		const struct wt_ev *x = &wt_tr()->ev[i];

		if (x->kind != WT_EV_DONE || !x->failed || !x->cdblen ||
		    x->off >= phys + len || x->off + x->bytes <= phys)
			continue;
		for (n = 0, j = 0; j < wt_tr()->n; j++) {
			const struct wt_ev *y = &wt_tr()->ev[j];

			n += y->kind == WT_EV_DONE && y->failed && y->off == x->off &&
			     y->bytes == x->bytes;
		}
		if (n > best)
			best = n;
	}
	return best;
}

int exec_fault(struct op *o)
{
	struct rfile *f = &files[o->file];
	int k = o->sub;
	unsigned char *b = src + o->bufoff, *nb = src + slot;
	uint64_t rb = rdown(o->off, bs), re = rup(o->off + o->len, bs);
	uint64_t nbr = 0, phys = 0, avail = 0, plen;
	struct wt_injected inj = { .opcode = is_atomic(k) ? 0x9c : write_opcode };
	ssize_t ret = 0;
	int armed, m, err = 0;
	char what[64];

	snprintf(what, sizeof(what), "failed %s", kinds[k].name);
	/* Allocate, unshare: the call then writes in place, its own command. */
	if (fallocate(f->fd, FALLOC_FL_KEEP_SIZE, rb, re - rb))
		return bad(o, "fault: fallocate: %s", strerror(errno));
	if (kinds[K_CLONE].avail && rb < f->size &&
	    fallocate(f->fd, FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE, rb,
		      min64(re, rup(f->size, bs)) - rb))
		return bad(o, "fault: unshare: %s", strerror(errno));
	/*
	 * The dirty neighbour (write-throughs only: a direct write flushes the
	 * folio, neighbour included, into the injected error): the block
	 * before the range, or after it.
	 */
	if (o->n && k != K_WT && k != K_WT_ATOMIC)
		o->n = 0;
	if (o->n) {
		if (rb >= lo + bs && rb - bs < f->size)
			nbr = rb - bs;
		else if (re + bs <= f->size)
			nbr = re;
		else
			o->n = 0;
	}
	fill(b, o->off, o->len, o->gen);
	fill(nb, nbr, bs, o->gen + 1);
	bg_pause();
	while (!(armed = wt_inject_arm(&inj))) {
		m = wt_map(f->fd, rb, &phys, &avail);
		plen = re - rb;
		if ((m && m != WT_MAP_UNWRITTEN) || avail < plen) {
			phys = 0;
			plen = ~0ULL;
		}
		if (o->n && pwrite(f->fd, nb, bs, nbr) != (ssize_t)bs) {
			wt_inject_clear(inj.opcode);
			wt_tr_stop(lbs);
			bg_resume();
			return bad(o, "fault: buffered write of the neighbour: %s", strerror(errno));
		}
		ret = do_pwrite(k, o->file, b, o->len, o->off);
		if (o->n)
			model_write(f, nbr, nb, bs);
		if (ret > 0)
			model_write(f, o->off, b, ret);
		if (wt_inject_done(&inj, phys, plen))
			break;
	}
	bg_resume();
	if (armed)
		return bad(o, "fault: cannot arm the injected error: %s", strerror(-armed));
	/* whatever failed, no other data may have been lost: fsync is clean */
	for (m = 0; m < NFILES; m++)
		if (fsync(files[m].fd))
			return bad(o, "%s: fsync of file %d after the call: %s (data other than the call's lost)",
				   what, m, strerror(errno));
	if (ret == (ssize_t)o->len) {
		if (plen != ~0ULL && max_failed_in(phys, plen) >= WT_INJECT_TIMES)
			return bad(o, "%s: the call returned its length though its command at device [%llu, +%llu) failed %d times",
				   what, (unsigned long long)phys, (unsigned long long)plen,
				   max_failed_in(phys, plen));
		if (verbose)
			diag("fault op #%u: the error did not fail the call's command (%d failures in its range, %d elsewhere); the call succeeded",
			     o->seq, inj.mine, inj.others);
		missed_faults++;
		return check_read(o, o->file, o->off, o->len, "write after a missed fault");
	}
	if (ret == -EOPNOTSUPP && shared_refused[k] && f->shared) {
		kinds[k].refused++;
		return check_read(o, o->file, o->off, o->len, "range after a refused atomic write");
	}
	kinds[K_FAULT].refused++;
	if (ret > 0 && !is_atomic(k)) {
		/* a short write: the prefix is in the model; cache == device */
		err |= check_read(o, o->file, o->off, o->len, "short write, through the cache");
		err |= check_device(o, o->file, o->off, o->len, "short write, on the device");
		return err;
	}
	if (ret >= 0)
		return bad(o, "%s returned %zd of %llu", what, ret, (unsigned long long)o->len);
	if (ret != -EIO)
		err |= bad(o, "%s returned %zd (%s), expected EIO", what, ret, atw_err(ret));
	if (check_sizes(o))
		return -1;
	if (is_atomic(k)) {
		ssize_t r = pread(f->fd, rdbuf, o->len, o->off);
		bool old = r >= 0 && !memcmp(rdbuf, f->data + o->off,
					     min64(o->len, f->size > o->off ? f->size - o->off : 0));
		bool new_ = r == (ssize_t)o->len && !memcmp(rdbuf, b, o->len);

		if (!old)
			return bad(o, "%s: the unit reads %s through the cache, not wholly old", what,
				   new_ ? "wholly new" : "mixed");
	}
	err |= check_read(o, o->file, rb, re - rb, "failed write, through the cache");
	if (!err)
		err |= check_device(o, o->file, o->off, o->len, "failed write, on the device");
	if (!err) {
		wt_drop_caches();
		err |= check_read(o, o->file, rb, re - rb, "failed write, after drop_caches");
	}
	return err;
}
