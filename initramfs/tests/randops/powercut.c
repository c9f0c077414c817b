// SPDX-License-Identifier: GPL-2.0
/*
 * powercut.c: the power-cut phase (-C) on pcblk.
 */
#include "randops.h"

/*
 * --- power cuts (-C N, on pcblk) ---
 *
 * What the device may hold after a cut, per file: dur[] is what was
 * durable at the last fsync or fdatasync (or was found after the last
 * cut), as of the operations before lastdur[b] (a RWF_DSYNC write-through,
 * acknowledged, makes its range durable); hist[] lists every
 * data write since, with the generation its bytes come from, atomic or
 * not, noted before it is issued, and what the other operations may have
 * put in a range: zeros for a truncate down (from the new size to the
 * old), a hole punched and a range zeroed; the source's bytes of that
 * moment for a clone and a copy_file_range (each may reach the device or
 * not, whole or in part: remap and size transactions are logged in order,
 * data is not). A truncate down also lowers the size the file must keep.
 * Dedupe changes no byte, and fallocate without zeroing none either (a
 * size it gives is bounded like any other). Collapse and insert move
 * bytes from one offset to another, which this model of values per offset
 * does not follow: they are not drawn. After the cut and the remount (XFS
 * log recovery), for each file:
 *   - the size is at least the durable size and at most the largest the
 *     file had or was being given;
 *   - every byte below the size is its durable value, or the value of a
 *     write noted after the byte became durable (never anything else:
 *     not zero where data was durable, not another offset's data);
 *   - every atomic write that no later write overlaps reads wholly new or
 *     wholly as before it (each byte a value it could have had before),
 *     over the part below the size.
 * What was found then becomes the model and the durable content, and the
 * sequence goes on.
 */
struct hent {
	uint32_t seq;
	uint8_t file;
	bool atomic, zero;	/* zero: the candidate is 0 */
	uint64_t off, len, gen;
	unsigned char *data;	/* else, if set: the candidate bytes */
};

static struct hent *hist;
static size_t nhist, caphist;
unsigned char *dur[NFILES], *okb;
uint32_t *lastdur[NFILES];
static uint64_t dsize[NFILES], hisize[NFILES], cut_est = 100;
unsigned long cut_rounds, cut_mid, cut_units, cut_units_new, cut_bytes;

bool cut_kind(int k)
{
	switch (k) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC: case K_DIO:
	case K_DIO_ATOMIC: case K_BUF_ATOMIC: case K_MMAP_W: case K_APPEND: case K_READ:
	case K_MMAP_R: case K_DIO_R: case K_FSYNC: case K_FDATASYNC: case K_SFR: case K_DROP:
	case K_URING: case K_AIO: case K_VERIFY: case K_TRUNC: case K_FALLOC: case K_PUNCH:
	case K_ZERO: case K_CLONE: case K_DEDUPE: case K_COPY:
		return true;
	}
	return false;
}

static void hist_add(const struct op *o, uint64_t off, uint64_t len, uint64_t gen, bool atomic)
{
	if (!len)
		return;
	if (nhist == caphist) {
		caphist = caphist ? 2 * caphist : 1024;
		hist = realloc(hist, caphist * sizeof(*hist));
		if (!hist)
			tap_bail("out of memory for the write history");
	}
	hist[nhist++] = (struct hent){ o->seq, o->file, atomic, false, off, len, gen, NULL };
	hisize[o->file] = max64(hisize[o->file], off + len);
}

/* Zeros in [off, off + len) of o's file, inside its size now. */
static void hist_zero(const struct op *o, uint64_t off, uint64_t len)
{
	uint64_t size = files[o->file].size;

	if (off >= size)
		return;
	hist_add(o, off, min64(len, size - off), 0, false);
	hist[nhist - 1].zero = true;
}

/* The bytes [off2, off2 + len) of file f2 now, at [off, off + len) of o's. */
static void hist_copy(const struct op *o, uint64_t off, uint64_t len, int f2, uint64_t off2)
{
	unsigned char *d;

	if (!len)
		return;
	d = malloc(len);
	if (!d)
		tap_bail("out of memory for the write history");
	memcpy(d, files[f2].data + off2, len);
	hist_add(o, off, len, 0, false);
	hist[nhist - 1].data = d;
}

/* The value entry e offers for byte b. */
static unsigned char hval(const struct hent *e, uint64_t b)
{
	return e->zero ? 0 : e->data ? e->data[b - e->off] : wt_byte(b, e->gen);
}

/* Before o is issued: the data it may leave on the device. */
void cut_note(const struct op *o)
{
	struct sub sb[MAXQD];
	unsigned int i;

	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC: case K_DIO:
	case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		if (!o->sub)	/* a malformed atomic write writes nothing */
			hist_add(o, o->off, o->len, o->gen, is_atomic(o->kind));
		break;
	case K_MMAP_W:
		hist_add(o, o->off, o->len, o->gen, false);
		break;
	case K_APPEND:	/* at the size, which the model knows between operations */
		hist_add(o, files[o->file].size, o->len, o->gen, false);
		break;
	case K_URING: case K_AIO:
		batch_subs(o, sb);
		for (i = 0; i < o->n; i++)
			hist_add(o, sb[i].off, sb[i].len, o->gen * MAXQD + i, is_atomic(o->sub));
		break;
	case K_TRUNC:
		if (o->off < files[o->file].size) {
			hist_zero(o, o->off, files[o->file].size - o->off);
			dsize[o->file] = min64(dsize[o->file], o->off);
		}
		break;
	case K_PUNCH: case K_ZERO:
		hist_zero(o, o->off, o->len);
		break;
	case K_CLONE:
		hist_copy(o, o->off, o->len, o->file2, o->off2);
		break;
	case K_COPY:
		if (o->off2 < files[o->file2].size)
			hist_copy(o, o->off, min64(o->len, files[o->file2].size - o->off2), o->file2,
				  o->off2);
		break;
	}
}

/*
 * Bytes [off, off + len) of file fi are durable as the model has them,
 * which is what the operations before seq made them.
 */
static void cut_durable(int fi, uint64_t off, uint64_t len, uint32_t seq)
{
	uint64_t b;

	memcpy(dur[fi] + off, files[fi].data + off, len);
	for (b = off; b < off + len; b++)
		lastdur[fi][b] = seq;
}

/* The whole of file fi is durable as the model has it (ops before seq). */
void cut_sync(int fi, uint32_t seq)
{
	size_t i, j;

	cut_durable(fi, 0, maxf, seq);
	dsize[fi] = hisize[fi] = files[fi].size;
	for (i = j = 0; i < nhist; i++) {
		if (hist[i].file != fi)
			hist[j++] = hist[i];
		else
			free(hist[i].data);
	}
	nhist = j;
}

/* After o returned, with the power on: what it made durable. */
static void cut_acked(const struct op *o)
{
	struct rfile *f = &files[o->file];

	switch (o->kind) {
	case K_FSYNC: case K_FDATASYNC:
		cut_sync(o->file, o->seq + 1);
		break;
	case K_WT_DSYNC:	/* returned its length, or randops failed */
		cut_durable(o->file, o->off, o->len, o->seq + 1);
		dsize[o->file] = max64(dsize[o->file], min64(o->off + o->len, f->size));
		break;
	case K_APPEND:	/* RWF_WRITETHROUGH|RWF_DSYNC: it ends at the size now */
		if (o->sub == 2 && f->size >= o->len) {
			cut_durable(o->file, f->size - o->len, o->len, o->seq + 1);
			dsize[o->file] = max64(dsize[o->file], f->size);
		}
		break;
	}
	hisize[o->file] = max64(hisize[o->file], f->size);
}

/* Byte b of file fi: could it have been v before operation seq (or ever)? */
static bool could_be(int fi, uint64_t b, unsigned char v, uint32_t before)
{
	size_t i;

	if (v == dur[fi][b] && lastdur[fi][b] <= before)
		return true;
	for (i = 0; i < nhist && hist[i].seq < before; i++) {
		const struct hent *e = &hist[i];

		if (e->file == fi && b >= e->off && b < e->off + e->len &&
		    e->seq >= lastdur[fi][b] && v == hval(e, b))
			return true;
	}
	return false;
}

/* Whether a write after hist[i] overlaps it. */
static bool overwritten(size_t i)
{
	const struct hent *a = &hist[i];
	size_t j;

	for (j = i + 1; j < nhist; j++)
		if (hist[j].file == a->file && hist[j].off < a->off + a->len &&
		    a->off < hist[j].off + hist[j].len)
			return true;
	return false;
}

static int cut_check_file(const struct op *o, int fi, unsigned int cut)
{
	struct rfile *f = &files[fi];
	unsigned char *found = tmpbuf;
	uint64_t size, b, done;
	struct stat st;
	size_t i;

	if (fstat(f->fd, &st))
		return bad(o, "cut %u: fstat of file %d: %s", cut, fi, strerror(errno));
	size = st.st_size;
	if (size < dsize[fi] || size > hisize[fi])
		return bad(o, "cut %u: file %d has size %llu after recovery, durable was %llu, the largest %llu",
			   cut, fi, (unsigned long long)size, (unsigned long long)dsize[fi],
			   (unsigned long long)hisize[fi]);
	for (done = 0; done < size;) {
		ssize_t n = pread(f->fd, found + done, size - done, done);

		if (n <= 0)
			return bad(o, "cut %u: read of file %d at %llu after recovery: %s", cut, fi,
				   (unsigned long long)done, n ? strerror(errno) : "EOF");
		done += n;
	}
	/* each byte: durable, or written since it became durable */
	memset(okb, 0, size);
	for (i = 0; i < nhist; i++) {
		const struct hent *e = &hist[i];
		uint64_t end = min64(e->off + e->len, size);

		if (e->file != fi)
			continue;
		for (b = e->off; b < end; b++)
			if (e->seq >= lastdur[fi][b] && found[b] == hval(e, b))
				okb[b] = 1;
	}
	for (b = 0; b < size; b++) {
		if (okb[b] || found[b] == dur[fi][b])
			continue;
		return bad(o, "cut %u: file %d byte %llu (size %llu) is 0x%02x after recovery: not its durable value 0x%02x (as of the ops before #%u) nor any write's since",
			   cut, fi, (unsigned long long)b, (unsigned long long)size, found[b],
			   dur[fi][b], lastdur[fi][b]);
	}
	cut_bytes += size;
	/* each atomic write no later write overlaps: wholly new or wholly old */
	for (i = 0; i < nhist; i++) {
		const struct hent *a = &hist[i];
		uint64_t end = min64(a->off + a->len, size), nnew = 0, bold = ~0ULL;

		if (a->file != fi || !a->atomic || end <= a->off || overwritten(i))
			continue;
		for (b = a->off; b < end; b++) {
			if (found[b] == wt_byte(b, a->gen))
				nnew++;
			else if (bold == ~0ULL)
				bold = b;
		}
		cut_units++;
		if (nnew == end - a->off) {
			cut_units_new++;
			continue;
		}
		for (b = a->off; b < end; b++)
			if (!could_be(fi, b, found[b], a->seq))
				return bad(o, "cut %u: atomic write #%u of file %d [%llu, +%llu) is torn after recovery: %llu of its bytes are new; the first that is not: %llu (0x%02x); the first that is not old either: %llu (0x%02x)",
					   cut, a->seq, fi, (unsigned long long)a->off,
					   (unsigned long long)a->len, (unsigned long long)nnew,
					   (unsigned long long)bold, found[bold],
					   (unsigned long long)b, found[b]);
	}
	/* what was found is the new durable content */
	memcpy(f->data, found, size);
	memset(f->data + size, 0, maxf + MAXW - size);
	f->size = size;
	return 0;
}

/*
 * The cut itself (if the stream did not reach cut_after), then the power
 * back as after a reboot: XFS shut down without a log flush and unmounted
 * with the power off, so that nothing more reaches the media, restored,
 * mounted (log recovery). The shutdown comes before the files are closed:
 * a close may free post-EOF blocks, and with the power off that
 * transaction's metadata reads fail and XFS cancels it dirty ("Internal
 * error xfs_trans_cancel", a stack dump), nothing a machine that lost its
 * power would do.
 */
#define ATW_XFS_IOC_GOINGDOWN _IOR('X', 125, uint32_t)
#define ATW_XFS_GOING_NOLOGFLUSH 0x2

static int cut_recover(const struct op *o, unsigned int cut)
{
	const struct atw_env *e = atw_env();
	uint32_t how = ATW_XFS_GOING_NOLOGFLUSH;
	int i;

	if (pcblk_powered()) {
		pcblk_set("cut", "now");
	} else {
		cut_mid++;
	}
	if (ioctl(files[0].fd, ATW_XFS_IOC_GOINGDOWN, &how))
		return bad(o, "cut %u: XFS_IOC_GOINGDOWN: %s", cut, strerror(errno));
	close_files();
	for (i = 0; i < 100 && umount2(e->dir, 0); i++)
		usleep(100000);
	if (i == 100)
		return bad(o, "cut %u: umount %s: %s", cut, e->dir, strerror(errno));
	if (pcblk_set("restore", "1"))
		return bad(o, "cut %u: pcblk restore failed", cut);
	if (mount(e->disk, e->dir, "xfs", 0, NULL))
		return bad(o, "cut %u: mount %s on %s after the cut (log recovery): %s", cut,
			   e->disk, e->dir, strerror(errno));
	reopen_files();
	return 0;
}

/*
 * May o drop the file's reference to a block that another range shares?
 * Then, once the file has shared blocks, the round syncs it (main.c, -S).
 */
static bool drops_shared_ref(const struct op *o)
{
	switch (o->kind) {
	case K_TRUNC: case K_PUNCH: case K_ZERO: case K_FALLOC: case K_CLONE: case K_DEDUPE:
	case K_COPY:
		return !cut_refdrop_unsynced && files[o->file].shared;
	}
	return false;
}

/* One round: operations until the power goes (or cut_ops), then the check. */
uint64_t cut_round(uint64_t *r, uint64_t i, uint64_t nmax, unsigned int cut)
{
	struct op o, end = { .kind = K_VERIFY };
	long long w0 = pcblk_writes(), w1;
	unsigned int j;
	int fi;

	if (pcblk_set("seed", "%llu", (unsigned long long)rng_next(r)) ||
	    pcblk_set("cut_after", "%llu", (unsigned long long)(1 + rnd(r, cut_est))))
		tap_bail("cannot arm the cut in " PCBLK_DIR);
	cutting = true;
	cut_seen = false;
	for (j = 0; j < cut_ops && i < nmax && !failed && !cut_seen; j++, i++) {
		run_op(r, &o, i);
		if (!pcblk_powered()) {
			cut_seen = true;
		} else if (!failed) {
			cut_acked(&o);
			if (drops_shared_ref(&o) && !fsync(files[o.file].fd) && pcblk_powered())
				cut_sync(o.file, o.seq + 1);
			else if (!pcblk_powered())
				cut_seen = true;
		}
	}
	cur_op = NULL;
	w1 = pcblk_writes();
	if (!cut_seen && w1 > w0)	/* the stream was shorter: learn its length */
		cut_est = w1 - w0;
	cutting = false;
	if (failed)
		return i;
	end.seq = i;
	cut_rounds++;
	if (cut_recover(&end, cut))
		return i;
	for (fi = 0; fi < NFILES && !failed; fi++)
		cut_check_file(&end, fi, cut);
	for (fi = 0; fi < NFILES && !failed; fi++)
		cut_sync(fi, i);
	return i;
}
