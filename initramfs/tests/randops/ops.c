// SPDX-License-Identifier: GPL-2.0
/*
 * ops.c: executing one operation: the write kinds, O_APPEND, mmap, O_DIRECT
 * reads, fallocate and truncate, clone, dedupe, copy_file_range, io_uring
 * and AIO batches.
 */
#include "randops.h"

/* --- write kinds --- */
bool is_atomic(int k)
{
	return k == K_WT_ATOMIC || k == K_DIO_ATOMIC || k == K_BUF_ATOMIC;
}

bool is_dio(int k)
{
	return k == K_DIO || k == K_DIO_ATOMIC;
}

int wflags(int k)
{
	switch (k) {
	case K_WT: return RWF_WT;
	case K_WT_DSYNC: return RWF_WT | RWF_DSYNC;
	case K_WT_ATOMIC: return RWF_WT | RWF_ATOMIC;
	case K_DIO_ATOMIC:
	case K_BUF_ATOMIC: return RWF_ATOMIC;
	default: return 0;
	}
}

void atomic_limits(int k, uint32_t *mn, uint32_t *mx)
{
	*mn = k == K_DIO_ATOMIC ? dio_min : buf_min;
	*mx = k == K_DIO_ATOMIC ? dio_max : buf_max;
}

ssize_t do_pwrite(int k, int fi, const unsigned char *b, uint64_t len, uint64_t off)
{
	struct iovec iov = { (void *)b, len };
	int fd = is_dio(k) ? files[fi].dfd : files[fi].fd;
	ssize_t ret = pwritev2(fd, &iov, 1, off, wflags(k));

	return ret < 0 ? -errno : ret;
}

static int exec_write(struct op *o)
{
	struct rfile *f = &files[o->file];
	unsigned char *b = src + o->bufoff;
	ssize_t ret;

	fill(b, o->off, o->len, o->gen);
	ret = do_pwrite(o->kind, o->file, b, o->len, o->off);
	if (o->sub) {	/* a malformed atomic write */
		if (ret != -EINVAL)
			return bad(o, "malformed atomic write: expected EINVAL, got %zd (%s)", ret,
				   atw_err(ret));
		kinds[o->kind].refused++;
		return check_read(o, o->file, o->off, o->len, "range after a refused atomic write");
	}
	if (ret == -EOPNOTSUPP && shared_refused[o->kind] && f->shared) {
		kinds[o->kind].refused++;
		return check_read(o, o->file, o->off, o->len, "range after a refused atomic write");
	}
	if (ret >= 0)
		model_write(f, o->off, b, ret);
	if (ret != (ssize_t)o->len)
		return bad(o, "write of %llu returned %zd (%s)", (unsigned long long)o->len, ret,
			   atw_err(ret));
	if (is_atomic(o->kind) && (o->seq & 7) == 0)
		return check_read(o, o->file, o->off, o->len, "atomic write read back");
	return 0;
}

/*
 * O_APPEND: a write through the file's O_APPEND descriptor, buffered (sub
 * 0), RWF_WRITETHROUGH (1) or RWF_WRITETHROUGH|RWF_DSYNC (2); the kernel
 * takes its offset from the size at the time of the call.
 */
int append_flags(const struct op *o)
{
	return o->sub == 1 ? RWF_WT : o->sub == 2 ? RWF_WT | RWF_DSYNC : 0;
}

static int exec_append(struct op *o)
{
	struct rfile *f = &files[o->file];
	unsigned char *b = src + o->bufoff;
	struct iovec iov = { b, o->len };
	uint64_t at = f->size;
	ssize_t ret;

	fill(b, at, o->len, o->gen);
	ret = pwritev2(f->afd, &iov, 1, -1, append_flags(o));
	if (ret < 0)
		ret = -errno;
	if (ret > 0)
		model_write(f, at, b, ret);
	if (ret != (ssize_t)o->len)
		return bad(o, "O_APPEND write of %llu at size %llu returned %zd (%s)",
			   (unsigned long long)o->len, (unsigned long long)at, ret, atw_err(ret));
	return 0;
}

/* --- mmap --- */
static int exec_mmap(struct op *o, bool store)
{
	struct rfile *f = &files[o->file];
	uint64_t pg = rdown(o->off, ps), mlen = o->off + o->len - pg;
	unsigned char *p;
	int ret = 0;

	p = mmap(NULL, mlen, store ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, f->fd, pg);
	if (p == MAP_FAILED)
		return bad(o, "mmap: %s", strerror(errno));
	if (store) {
		fill(src, o->off, o->len, o->gen);
		memcpy(p + (o->off - pg), src, o->len);
		model_write(f, o->off, src, o->len);
		if (o->sub && msync(p, mlen, MS_SYNC))
			ret = bad(o, "msync: %s", strerror(errno));
	} else {
		ret = cmp_model(o, o->file, o->off, p + (o->off - pg), o->len, "read through mmap");
	}
	munmap(p, mlen);
	return ret;
}

static int exec_dio_read(struct op *o)
{
	struct rfile *f = &files[o->file];
	uint64_t want = o->off >= f->size ? 0 : min64(o->len, f->size - o->off);
	uint64_t len = o->len;
	ssize_t ret;

	/* not into post-EOF delalloc past the EOF block (header, -E) */
	if (!dio_past_eof && o->off < f->size)
		len = min64(len, rup(f->size, lbs) - o->off);
	ret = pread(f->dfd, rdbuf, len, o->off);

	if (ret < 0)
		return bad(o, "O_DIRECT read of file %d (size %llu): %s", o->file,
			   (unsigned long long)f->size, strerror(errno));
	if ((uint64_t)ret != want)
		return bad(o, "O_DIRECT read returned %zd, size %llu says %llu", ret,
			   (unsigned long long)f->size, (unsigned long long)want);
	return cmp_model(o, o->file, o->off, rdbuf, want, "O_DIRECT read");
}

/* --- fallocate, truncate --- */
int falloc_mode(const struct op *o)
{
	switch (o->kind) {
	case K_FALLOC: return o->sub ? FALLOC_FL_KEEP_SIZE : 0;
	case K_PUNCH: return FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	case K_ZERO: return FALLOC_FL_ZERO_RANGE | (o->sub ? FALLOC_FL_KEEP_SIZE : 0);
	case K_COLLAPSE: return FALLOC_FL_COLLAPSE_RANGE;
	case K_INSERT: return FALLOC_FL_INSERT_RANGE;
	}
	return 0;
}

/* What a successful fallocate o does to the model of its file f. */
void model_falloc(struct rfile *f, const struct op *o)
{
	uint64_t end = o->off + o->len;

	switch (o->kind) {
	case K_FALLOC:
		if (!o->sub && end > f->size)
			f->size = end;
		break;
	case K_PUNCH:
		model_zero(f, o->off, o->len);
		break;
	case K_ZERO:
		model_zero(f, o->off, o->len);
		if (!o->sub && end > f->size)
			f->size = end;
		break;
	case K_COLLAPSE:
		memmove(f->data + o->off, f->data + end, f->size - end);
		memset(f->data + f->size - o->len, 0, o->len);
		f->size -= o->len;
		break;
	case K_INSERT:
		memmove(f->data + end, f->data + o->off, f->size - o->off);
		memset(f->data + o->off, 0, o->len);
		f->size += o->len;
		break;
	}
}

static int exec_falloc(struct op *o)
{
	struct rfile *f = &files[o->file];

	if (fallocate(f->fd, falloc_mode(o), o->off, o->len))
		return bad(o, "fallocate mode 0x%x: %s", falloc_mode(o), strerror(errno));
	model_falloc(f, o);
	return 0;
}

/* --- sharing: clone, dedupe, copy_file_range --- */
static int exec_clone(struct op *o)
{
	struct file_clone_range r = {
		.src_fd = files[o->file2].fd, .src_offset = o->off2,
		.src_length = o->len, .dest_offset = o->off,
	};

	files[o->file].shared = files[o->file2].shared = true;
	if (ioctl(files[o->file].fd, FICLONERANGE, &r))
		return bad(o, "FICLONERANGE: %s", strerror(errno));
	memcpy(tmpbuf, files[o->file2].data + o->off2, o->len);
	model_write(&files[o->file], o->off, tmpbuf, o->len);
	return 0;
}

int dedupe_call(const struct op *o, int *status, unsigned long long *deduped)
{
	struct {
		struct file_dedupe_range r;
		struct file_dedupe_range_info i;
	} d;

	memset(&d, 0, sizeof(d));
	d.r.src_offset = o->off2;
	d.r.src_length = o->len;
	d.r.dest_count = 1;
	d.r.info[0].dest_fd = files[o->file].fd;
	d.r.info[0].dest_offset = o->off;
	if (ioctl(files[o->file2].fd, FIDEDUPERANGE, &d.r))
		return -errno;
	*status = d.r.info[0].status;
	*deduped = d.r.info[0].bytes_deduped;
	return 0;
}

static int exec_dedupe(struct op *o)
{
	bool same = !memcmp(files[o->file2].data + o->off2, files[o->file].data + o->off, o->len);
	unsigned long long deduped;
	int status, err;

	files[o->file].shared = files[o->file2].shared = true;
	err = dedupe_call(o, &status, &deduped);
	if (err)
		return bad(o, "FIDEDUPERANGE: %s", strerror(-err));
	if (status < 0)
		return bad(o, "FIDEDUPERANGE status %d (%s)", status, strerror(-status));
	if (same && (status != FILE_DEDUPE_RANGE_SAME || deduped != o->len))
		return bad(o, "model ranges are equal, dedupe says status %d, %llu bytes",
			   status, deduped);
	if (!same && status != FILE_DEDUPE_RANGE_DIFFERS)
		return bad(o, "model ranges differ, dedupe says status %d", status);
	if (!same)
		kinds[o->kind].refused++;
	return 0;
}

static int exec_copy(struct op *o)
{
	struct rfile *s = &files[o->file2];
	loff_t soff = o->off2, doff = o->off;
	uint64_t want = soff >= (loff_t)s->size ? 0 : min64(o->len, s->size - soff), done = 0;
	ssize_t n;

	s->shared = files[o->file].shared = true;
	memcpy(tmpbuf, s->data + o->off2, want);
	while (done < o->len) {
		n = copy_file_range(s->fd, &soff, files[o->file].fd, &doff, o->len - done, 0);
		if (n < 0)
			return bad(o, "copy_file_range: %s", strerror(errno));
		if (!n)
			break;
		done += n;
	}
	if (done)
		model_write(&files[o->file], o->off, tmpbuf, min64(done, want));
	if (done != want)
		return bad(o, "copy_file_range copied %llu, expected %llu", (unsigned long long)done,
			   (unsigned long long)want);
	return 0;
}

/* --- batches through io_uring and AIO --- */
/*
 * Sub-write i of a batch: in slot i of o->off2 bytes from o->off, drawn
 * from a generator seeded by the op's generation, so a replay gets the same.
 */
void batch_subs(const struct op *o, struct sub *s)
{
	int k = o->sub;
	uint64_t r = o->gen * 0x2545f4914f6cdd1dULL, i;
	uint32_t mn, mx;

	for (i = 0; i < o->n; i++) {
		uint64_t base = o->off + i * o->off2, in = 0, len, room = o->off2, b = 0;

		/*
		 * Direct sub-writes keep to the pages wholly inside their slot
		 * (header, -P): a no-op for slots drawn now (multiples of the
		 * folio), it matters for logs of older runs. Atomic ones are
		 * block-aligned and never fall back to buffered writes.
		 */
		if (is_dio(k) && !is_atomic(k) && !dio_share_pages) {
			uint64_t fp = max64(ps, bs);
			uint64_t wb = i ? rup(base, fp) : base;
			uint64_t we = i + 1 < o->n ? rdown(base + o->off2, fp) : base + o->off2;

			b = wb - base;
			room = we > wb ? we - wb : 0;
		}
		s[i].buf = src + i * slot;
		if (room < lbs) {
			s[i].off = base;	/* no room: an empty write */
			s[i].len = 0;
			continue;
		}
		if (is_atomic(k)) {
			atomic_limits(k, &mn, &mx);
			len = mn;
			while (len * 2 <= min64(mx, room) && rnd(&r, 2))
				len *= 2;
			in = b;
		} else if (is_dio(k)) {
			in = rnd(&r, room / lbs) * lbs;
			len = (1 + rnd(&r, (room - in) / lbs)) * lbs;
			in += b;
		} else {
			in = rnd(&r, o->off2);
			len = 1 + rnd(&r, o->off2 - in);
		}
		s[i].off = base + in;
		s[i].len = len;
	}
}

static int batch_result(struct op *o, struct sub *s, int i, long long res, const char *via)
{
	if (res == (long long)s[i].len) {
		model_write(&files[o->file], s[i].off, s[i].buf, s[i].len);
		return 0;
	}
	if (res == -EOPNOTSUPP && is_atomic(o->sub) && shared_refused[o->sub] &&
	    files[o->file].shared) {
		kinds[o->sub].refused++;
		return 0;
	}
	if (res > 0)
		model_write(&files[o->file], s[i].off, s[i].buf, res);
	return bad(o, "%s %s write %d of %llu at %llu completed with %lld", via,
		   kinds[o->sub].name, i, (unsigned long long)s[i].len,
		   (unsigned long long)s[i].off, res);
}

/*
 * Submits the batch's sub-writes (filled from the op's generation) through
 * io_uring or AIO and collects each completion in res[]; a failure of the
 * interface itself (not of a write) is described in err and returns -1.
 */
static int uring_io(struct op *o, struct sub *s, long long *res, char *err, size_t errlen)
{
	int fd = is_dio(o->sub) ? files[o->file].dfd : files[o->file].fd;
	struct io_uring_cqe *cqe;
	unsigned int i;
	int ret;

	for (i = 0; i < o->n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		fill(s[i].buf, s[i].off, s[i].len, o->gen * MAXQD + i);
		io_uring_prep_write(sqe, fd, s[i].buf, s[i].len, s[i].off);
		sqe->rw_flags = wflags(o->sub);
		sqe->user_data = i;
		res[i] = -ENODATA;
	}
	ret = io_uring_submit(&ring);
	if (ret != (int)o->n) {
		snprintf(err, errlen, "io_uring_submit: %d", ret);
		return -1;
	}
	for (i = 0; i < o->n; i++) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret) {
			snprintf(err, errlen, "io_uring_wait_cqe: %d", ret);
			return -1;
		}
		if (cqe->user_data < o->n)
			res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	return 0;
}

static int aio_io(struct op *o, struct sub *s, long long *res, char *err, size_t errlen)
{
	struct iocb cb[MAXQD], *cbs[MAXQD];
	struct io_event ev[MAXQD];
	long ret, got = 0;
	unsigned int i;

	for (i = 0; i < o->n; i++) {
		fill(s[i].buf, s[i].off, s[i].len, o->gen * MAXQD + i);
		memset(&cb[i], 0, sizeof(cb[i]));
		cb[i].aio_lio_opcode = IOCB_CMD_PWRITE;
		cb[i].aio_fildes = is_dio(o->sub) ? files[o->file].dfd : files[o->file].fd;
		cb[i].aio_buf = (uintptr_t)s[i].buf;
		cb[i].aio_nbytes = s[i].len;
		cb[i].aio_offset = s[i].off;
		cb[i].aio_rw_flags = wflags(o->sub);
		cb[i].aio_data = i;
		cbs[i] = &cb[i];
		res[i] = -ENODATA;
	}
	ret = syscall(SYS_io_submit, aio_ctx, (long)o->n, cbs);
	if (ret != (long)o->n) {
		snprintf(err, errlen, "io_submit: %ld (%s)", ret,
			 ret < 0 ? strerror(errno) : "short");
		return -1;
	}
	while (got < (long)o->n) {
		ret = syscall(SYS_io_getevents, aio_ctx, 1L, (long)o->n - got, ev, NULL);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			snprintf(err, errlen, "io_getevents: %s", strerror(errno));
			return -1;
		}
		for (i = 0; i < ret; i++)
			if (ev[i].data < o->n)
				res[ev[i].data] = ev[i].res;
		got += ret;
	}
	return 0;
}

int batch_io(struct op *o, struct sub *s, long long *res, char *err, size_t errlen)
{
	batch_subs(o, s);
	return o->kind == K_URING ? uring_io(o, s, res, err, errlen) :
				    aio_io(o, s, res, err, errlen);
}

static int exec_batch(struct op *o)
{
	struct sub s[MAXQD];
	long long res[MAXQD];
	char err[128];
	unsigned int i;
	int ret = 0;

	if (batch_io(o, s, res, err, sizeof(err)))
		return bad(o, "%s", err);
	for (i = 0; i < o->n; i++)
		ret |= batch_result(o, s, i, res[i], o->kind == K_URING ? "io_uring" : "AIO");
	return ret;
}

/* --- one operation --- */
int exec_op(struct op *o)
{
	struct rfile *f = &files[o->file];
	int ret = 0;

	switch (o->kind) {
	case K_BUF: case K_WT: case K_WT_DSYNC: case K_WT_ATOMIC:
	case K_DIO: case K_DIO_ATOMIC: case K_BUF_ATOMIC:
		ret = exec_write(o);
		break;
	case K_MMAP_W: ret = exec_mmap(o, true); break;
	case K_APPEND: ret = exec_append(o); break;
	case K_MMAP_R: ret = exec_mmap(o, false); break;
	case K_READ: ret = check_read(o, o->file, o->off, o->len, "read"); break;
	case K_DIO_R: ret = exec_dio_read(o); break;
	case K_TRUNC:
		if (ftruncate(f->fd, o->off))
			return bad(o, "ftruncate: %s", strerror(errno));
		model_truncate(f, o->off);
		break;
	case K_FALLOC: case K_PUNCH: case K_ZERO: case K_COLLAPSE: case K_INSERT:
		ret = exec_falloc(o);
		break;
	case K_CLONE: ret = exec_clone(o); break;
	case K_DEDUPE: ret = exec_dedupe(o); break;
	case K_COPY: ret = exec_copy(o); break;
	case K_FSYNC:
		if (fsync(f->fd))
			ret = bad(o, "fsync: %s", strerror(errno));
		break;
	case K_FDATASYNC:
		if (fdatasync(f->fd))
			ret = bad(o, "fdatasync: %s", strerror(errno));
		break;
	case K_SFR:
		if (sync_file_range(f->fd, o->off, o->len, o->sub))
			ret = bad(o, "sync_file_range: %s", strerror(errno));
		break;
	case K_DROP: wt_drop_caches(); break;
	case K_URING: case K_AIO: ret = exec_batch(o); break;
	case K_FAULT: ret = exec_fault(o); break;
	case K_VERIFY: ret = verify_file(o, o->file, "whole-file read"); break;
	}
	if (!ret)
		ret = check_sizes(o);
	return ret;
}

/*
 * One operation of a sequence: drawn, logged, its window published for the
 * background readers (and in a power-cut round the data it may leave on
 * the device noted), executed, and its log entry updated (exec may adjust
 * it: a fault's neighbour).
 */
void run_op(uint64_t *r, struct op *o, uint32_t seq)
{
	draw_op(r, o, seq);
	log_op(o);
	cur_op = o;
	if (cutting)
		cut_note(o);
	win_begin(o);
	exec_op(o);
	win_end();
	ops[nops - 1] = *o;
	atomic_fetch_add(&progress, 1);
}
