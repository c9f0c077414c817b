// SPDX-License-Identifier: GPL-2.0
/*
 * draw.c: drawing operations from the seed.
 */
#include "randops.h"

/* --- drawing operations --- */
static uint64_t draw_len(uint64_t *r, uint64_t maxlen, uint64_t align)
{
	uint64_t len;

	switch (rnd(r, 4)) {
	case 0: len = 1 + rnd(r, 2 * lbs); break;
	case 1: len = 1 + rnd(r, 2 * bs); break;
	case 2: len = 1 + rnd(r, 64u << 10); break;
	default: len = 1 + rnd(r, MAXW); break;
	}
	len = rup(min64(len, maxlen), align);
	return len ? len : align;
}

struct focus focus;

/*
 * With the focus on f: an offset aligned to align for len bytes in [lo,
 * maxf) whose range overlaps the focus, or ~0 if there is none (or, one
 * time in four, by choice: then the caller draws as without a focus).
 */
static uint64_t focus_off(uint64_t *r, const struct rfile *f, uint64_t len, uint64_t align)
{
	uint64_t a, b;

	if (!focus.on || f != &files[focus.file] || !rnd(r, 4) || len > maxf)
		return ~0ULL;
	a = rup(max64(lo, focus.off + 1 > len ? focus.off + 1 - len : 0), align);
	b = min64(focus.off + focus.len - 1, maxf - len);
	if (a > b)
		return ~0ULL;
	return a + rnd(r, (b - a) / align + 1) * align;
}

/* An offset aligned to align for len bytes in [lo, size + slack), or ~0. */
static uint64_t draw_off(uint64_t *r, const struct rfile *f, uint64_t len, uint64_t align)
{
	uint64_t base = rup(lo, align);
	uint64_t top = min64(max64(f->size, lo) + 2 * max64(bs, 16384), maxf);
	uint64_t fo = focus_off(r, f, len, align);

	if (fo != ~0ULL)
		return fo;

	if (len > maxf || top < len || top - len < base)
		return base + len <= maxf ? base : ~0ULL;
	top -= len;
	if (rnd(r, 4) == 0 && f->size > base + len)	/* near EOF */
		top = f->size;
	if (top > f->size && rnd(r, 2))
		top = max64(f->size, base);
	return base + rnd(r, (top - base) / align + 1) * align;
}

static uint64_t draw_align(uint64_t *r)
{
	switch (rnd(r, 3)) {
	case 0: return 1;
	case 1: return lbs;
	default: return bs;
	}
}

static void draw_write(uint64_t *r, struct op *o, int k)
{
	const struct rfile *f = &files[o->file];
	uint32_t mn, mx;

	if (is_atomic(k)) {
		atomic_limits(k, &mn, &mx);
		mx = min64(mx, MAXW);
		o->len = mn;
		while (o->len * 2 <= mx && rnd(r, 3))
			o->len *= 2;
		o->off = draw_off(r, f, o->len, o->len);
		if (rnd(r, 10) == 0) {	/* malformed: must fail with EINVAL */
			o->sub = 1 + rnd(r, 3);
			if (o->sub == 1 && o->len <= lbs)
				o->sub = 2;
			if (o->sub == 3 && 2 * (uint64_t)mx > slot - 64)
				o->sub = 2;
			/* three units must fit the source slot (> lbs then) */
			if (o->sub == 2 && 3 * o->len > slot - 64)
				o->sub = 1;
			if (o->sub == 1)
				o->off += lbs;
			else if (o->sub == 2)
				o->len *= 3;
			else
				o->len = 2 * (uint64_t)mx;
			if (o->off + o->len > maxf)
				o->off = ~0ULL;
		}
		return;
	}
	if (is_dio(k)) {
		o->len = draw_len(r, MAXW, lbs);
		o->off = draw_off(r, f, o->len, rnd(r, 2) ? lbs : bs);
		return;
	}
	o->len = draw_len(r, MAXW, 1);
	o->off = draw_off(r, f, o->len, draw_align(r));
	o->bufoff = rnd(r, 4) ? 0 : rnd(r, 64);
}

static int pick_kind(uint64_t *r, const int *w, int n)
{
	long total = 0, x;
	int k;

	for (k = 0; k < n; k++)
		total += w[k];
	if (!total)
		return -1;
	x = rnd(r, total);
	for (k = 0; k < n; k++)
		if ((x -= w[k]) < 0)
			return k;
	return -1;
}

struct op last_clone;

/* Fills o's parameters for kind k; false when the state does not allow it. */
static bool draw_params(uint64_t *r, struct op *o, int k)
{
	struct rfile *f, *s;
	uint64_t a;

	o->kind = k;
	o->file = rnd(r, NFILES);
	o->file2 = rnd(r, NFILES);
	if (focus.on && rnd(r, 4))
		o->file = focus.file;
	f = &files[o->file];
	s = &files[o->file2];
	switch (k) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		draw_write(r, o, k);
		return o->off != ~0ULL;
	case K_MMAP_W: case K_MMAP_R:
		if (f->size <= lo + 1)
			return false;
		o->off = lo + rnd(r, f->size - lo);
		if (focus.on && o->file == focus.file && focus.off >= lo && focus.off < f->size)
			o->off = focus.off + rnd(r, min64(focus.len, f->size - focus.off));
		o->len = 1 + rnd(r, min64(f->size - o->off, 64u << 10));
		o->sub = k == K_MMAP_W && rnd(r, 4) == 0;
		return true;
	case K_APPEND:
		o->sub = rnd(r, 3);
		if ((o->sub == 1 && !kinds[K_WT].avail) || (o->sub == 2 && !kinds[K_WT_DSYNC].avail))
			o->sub = 0;
		o->len = draw_len(r, MAXW, 1);
		o->off = f->size;	/* for the log: the kernel takes the size */
		o->bufoff = rnd(r, 4) ? 0 : rnd(r, 64);
		return f->size + o->len <= maxf;
	case K_READ:
		o->len = draw_len(r, MAXW, 1);
		o->off = lo + rnd(r, max64(f->size, lo) + bs - lo);
		a = focus_off(r, f, o->len, 1);
		if (a != ~0ULL)
			o->off = a;
		return true;
	case K_DIO_R:
		o->len = draw_len(r, MAXW, lbs);
		o->off = rup(lo, lbs) + rnd(r, (max64(f->size, lo) + bs - lo) / lbs) * lbs;
		a = focus_off(r, f, o->len, lbs);
		if (a != ~0ULL)
			o->off = a;
		return true;
	case K_VERIFY:
		return true;
	case K_TRUNC:
		a = rnd(r, 3) ? 1 : bs;
		if (rnd(r, 2))
			o->off = f->size + rnd(r, 64u << 10) - min64(f->size - lo, 32u << 10);
		else
			o->off = lo + rnd(r, maxf - lo);
		/* into the focus or just past its end (EOF zeroing, extension) */
		if (focus.on && o->file == focus.file && rnd(r, 4))
			o->off = focus.off - min64(focus.off, bs) + rnd(r, focus.len + 3 * bs);
		o->off = max64(rdown(o->off, a), lo);
		return o->off <= maxf;
	case K_FALLOC: case K_PUNCH: case K_ZERO:
		o->sub = rnd(r, 2);
		o->len = draw_len(r, MAXW, draw_align(r));
		o->off = draw_off(r, f, o->len, draw_align(r));
		return o->off != ~0ULL;
	case K_COLLAPSE:
		o->len = bs * (1 + rnd(r, 4));
		a = rup(lo, bs);
		if (f->size < a + o->len + 1)
			return false;
		o->off = a + rnd(r, (f->size - 1 - o->len - a) / bs + 1) * bs;
		return o->off + o->len < f->size;
	case K_INSERT:
		o->len = bs * (1 + rnd(r, 4));
		a = rup(lo, bs);
		if (f->size <= a || f->size + o->len > maxf)
			return false;
		o->off = a + rnd(r, (f->size - 1 - a) / bs + 1) * bs;
		return o->off < f->size;
	case K_CLONE: case K_DEDUPE: {
		uint64_t stop = rdown(s->size, bs), dtop;

		a = rup(lo, bs);
		if (stop <= a)
			return false;
		o->len = bs * (1 + rnd(r, min64((stop - a) / bs, 16)));
		o->off2 = a + rnd(r, (stop - a - o->len) / bs + 1) * bs;
		dtop = k == K_CLONE ? min64(rup(f->size, bs) + 2 * bs, maxf) : rdown(f->size, bs);
		if (dtop < a + o->len)
			return false;
		o->off = a + rnd(r, (dtop - a - o->len) / bs + 1) * bs;
		if (focus.on && o->file == focus.file && rnd(r, 2)) {
			uint64_t x = rdown(focus.off, bs);

			x = x >= o->len ? x - o->len + bs : a;
			x = max64(x, a) + rnd(r, focus.len / bs + 1) * bs;
			if (x + o->len <= dtop)
				o->off = x;
		}
		if (k == K_DEDUPE && last_clone.len && rnd(r, 2) == 0) {
			/* the last clone's ranges: equal unless written since */
			o->file = last_clone.file;
			o->file2 = last_clone.file2;
			o->off = last_clone.off;
			o->off2 = last_clone.off2;
			o->len = last_clone.len;
			o->sub = 1;
			if (max64(o->off, o->off2) + o->len > rdown(min64(files[o->file].size,
						files[o->file2].size), bs))
				return false;
		}
		if (o->file == o->file2 && o->off != o->off2 &&
		    o->off < o->off2 + o->len && o->off2 < o->off + o->len)
			return false;
		if (o->file == o->file2 && o->off == o->off2)
			return false;
		if (k == K_CLONE)
			last_clone = *o;
		return true;
	}
	case K_COPY:
		if (s->size <= lo + 1)
			return false;
		o->off2 = lo + rnd(r, s->size - lo);
		o->len = draw_len(r, MAXW, 1);
		if (rnd(r, 8))
			o->len = min64(o->len, s->size - o->off2);
		o->off = draw_off(r, f, o->len, rnd(r, 2) ? 1 : bs);
		if (o->off == ~0ULL)
			return false;
		if (o->file == o->file2 && o->off < o->off2 + o->len && o->off2 < o->off + o->len)
			return false;
		return true;
	case K_FSYNC: case K_FDATASYNC: case K_DROP:
		return true;
	case K_SFR:
		o->off = lo + rnd(r, maxf - lo);
		o->len = rnd(r, 4) ? 1 + rnd(r, MAXW) : 0;
		o->sub = SYNC_FILE_RANGE_WRITE |
			 (rnd(r, 2) ? SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER : 0);
		return true;
	case K_URING: case K_AIO: {
		int w[NWRITEKINDS], i;
		uint32_t mn, mx;

		for (i = 0; i < NWRITEKINDS; i++)
			w[i] = kinds[i].avail ? kinds[i].weight : 0;
		o->sub = pick_kind(r, w, NWRITEKINDS);
		o->n = 1 + rnd(r, qd);
		if (is_atomic(o->sub)) {
			atomic_limits(o->sub, &mn, &mx);
			o->off2 = rup(min64(mx, 32u << 10), bs);
			o->off2 = max64(o->off2, mn);
		} else {
			o->off2 = rup(1 + rnd(r, 32u << 10), bs);
		}
		/* direct sub-writes share no page (header, -P) */
		if (is_dio(o->sub) && !dio_share_pages)
			o->off2 = rup(o->off2, max64(ps, bs));
		o->len = o->n * o->off2;
		o->off = draw_off(r, f, o->len, o->off2);
		return o->off != ~0ULL && o->off % o->off2 == 0;
	}
	case K_FAULT: {
		int w[NWRITEKINDS] = { 0 };
		uint32_t mn, mx;

		w[K_WT] = kinds[K_WT].avail * 3;
		w[K_WT_ATOMIC] = kinds[K_WT_ATOMIC].avail * 2;
		w[K_DIO] = kinds[K_DIO].avail;
		w[K_DIO_ATOMIC] = kinds[K_DIO_ATOMIC].avail;
		o->sub = pick_kind(r, w, NWRITEKINDS);
		o->n = rnd(r, 2);
		if (is_atomic(o->sub)) {
			atomic_limits(o->sub, &mn, &mx);
			o->len = mn;
			while (o->len * 2 <= min64(mx, 64u << 10) && rnd(r, 3) == 0)
				o->len *= 2;
			a = o->len;
		} else if (is_dio(o->sub)) {
			o->len = bs * (1 + rnd(r, 4));
			a = bs;
		} else {
			o->len = 1 + rnd(r, 4 * bs);
			a = draw_align(r);
			if (o->len > 64u << 10)
				o->len = 64u << 10;
		}
		o->off = draw_off(r, f, o->len, a);
		return o->off != ~0ULL;
	}
	}
	return false;
}

/* An operation of a kind drawn by the weights w; false after 100 tries. */
bool draw_op_w(uint64_t *r, struct op *o, uint32_t seq, const int *w)
{
	int k, tries;

	for (tries = 0; tries < 100; tries++) {
		memset(o, 0, sizeof(*o));
		o->seq = seq;
		o->gen = (cur_seed << 24) + seq;
		k = pick_kind(r, w, NKINDS);
		if (k >= 0 && draw_params(r, o, k))
			return true;
	}
	return false;
}

void draw_op(uint64_t *r, struct op *o, uint32_t seq)
{
	int w[NKINDS], k;

	for (k = 0; k < NKINDS; k++)
		w[k] = kinds[k].avail ? kinds[k].weight : 0;
	if (draw_op_w(r, o, seq, w))
		return;
	memset(o, 0, sizeof(*o));
	o->seq = seq;
	o->kind = K_FSYNC;
}
