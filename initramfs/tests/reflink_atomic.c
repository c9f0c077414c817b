// SPDX-License-Identifier: GPL-2.0
/*
 * One-block atomic writes and their statx limits on files that share blocks
 * (reflink), on the XFS mounted at DIR, through every atomic write path the
 * kernel offers: O_DIRECT RWF_ATOMIC ("dio"), RWF_ATOMIC|RWF_WRITETHROUGH
 * ("wt"), and buffered RWF_ATOMIC followed by fdatasync ("buf", the
 * writeback-time design). A path is run when statx advertises its limits
 * (the DIO query for dio, the buffered query for wt and buf) for one
 * block, and, for wt and buf, a trial write of one block to an unshared
 * file is accepted; otherwise it is one SKIP saying why.
 *
 * Files, per path: F, written and opened (the "old" fd) before anything is
 * cloned; G = FICLONE of F; F2 and H = FICLONE_RANGE of the first half of
 * F2. Then G is deleted and F unshared with FALLOC_FL_UNSHARE_RANGE, and
 * everything is remounted. At every step:
 *  - statx of each file advertises the atomic limits of that path that any
 *    regular file on this file system advertises: sharing blocks, having
 *    shared them, or being a clone does not change what a file can do (fsx
 *    and databases read statx once, when they open the file);
 *  - every one-block atomic write, to a shared block and to an unshared one,
 *    through an fd opened before the clone, after it, or after the unshare,
 *    agrees with statx at that moment: advertised -> it succeeds and reaches
 *    the device (by the time the write, or for buf its fdatasync, returns)
 *    as exactly one WRITE ATOMIC(16) of that block at the block's address
 *    after the write (the new one when the write went out of place) and no
 *    other write there; not advertised -> it fails with EOPNOTSUPP;
 *  - every block of every file reads what was last written to it, through
 *    the page cache and with O_DIRECT (a write to a shared block never shows
 *    through the other file), also after a remount.
 * "observed:" diag lines give statx and the write result of every step.
 *
 * usage: reflink_atomic DIR
 */
#include "lib/wt_common.h"

#include <linux/falloc.h>

#define NBLK 8

/* What each block of a file must read: pattern (off[i], gen[i]). */
struct tfile {
	const char *name;
	unsigned int nblk;
	uint64_t off[NBLK];
	uint64_t gen[NBLK];
};

/* The atomic write paths, in the order they are run. */
enum apath { P_DIO, P_WT, P_BUF, NPATH };
static const char *const path_name[NPATH] = { "dio", "wt", "buf" };

static unsigned int bs;
static struct atw_limits fresh;	/* what a new regular file advertises */
static struct devcount dc;
static enum apath cur;		/* the path being run */

static char names[4][32];
static struct tfile f, g, f2, h;

/* The pwritev2 flags of an atomic write on path p; 0 if the uapi lacks them. */
static int path_flags(enum apath p)
{
	switch (p) {
	case P_DIO:
	case P_BUF:
		return RWF_ATOMIC;
	case P_WT:
#ifdef RWF_WRITETHROUGH
		return RWF_ATOMIC | RWF_WRITETHROUGH;
#else
		return 0;
#endif
	default:
		return 0;
	}
}

/* l advertises one-block atomic writes for path p: its unit, or 0. */
static bool lim_advertises(enum apath p, const struct atw_limits *l)
{
	if (p == P_DIO)
		return l->dio && l->dio_min <= bs && bs <= l->dio_max;
	return l->buf && l->buf_min <= bs && bs <= l->buf_max;
}

/* statx of fd; true if it advertises one-block atomic writes on cur. */
static bool advertises(int fd, const char *what, struct atw_limits *l)
{
	int ret = atw_statx_limits(fd, NULL, l);

	if (ret)
		tap_bail("statx %s: %s", what, strerror(-ret));
	return lim_advertises(cur, l);
}

/* statx of fd advertises what a fresh regular file does, on cur. */
static void same_as_fresh(int fd, const char *what)
{
	struct atw_limits l;
	bool adv = advertises(fd, what, &l);
	bool dio = cur == P_DIO;

	atw_print_limits(what, &l);
	check(adv && (dio ? l.dio_min == fresh.dio_min && l.dio_max == fresh.dio_max &&
			      l.dio_segs == fresh.dio_segs :
			    l.buf_min == fresh.buf_min && l.buf_max == fresh.buf_max &&
			      l.buf_segs == fresh.buf_segs),
	      "%s: %s: statx advertises %s atomic writes [%u..%u] like any regular file here (got %s [%u..%u])",
	      path_name[cur], what, dio ? "DIO" : "buffered", dio ? fresh.dio_min : fresh.buf_min,
	      dio ? fresh.dio_max : fresh.buf_max,
	      (dio ? l.dio : l.buf) ? "yes" : "no", dio ? l.dio_min : l.buf_min,
	      dio ? l.dio_max : l.buf_max);
}

/* Turns O_DIRECT on or off on fd (the buffered paths write without it). */
static void set_direct(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) < 0)
		tap_bail("fcntl O_DIRECT %s: %s", on ? "on" : "off", strerror(errno));
}

/*
 * One atomic write of len bytes at off through fd on path p, with what makes
 * it durable (fdatasync for buf). Returns bytes written or -errno.
 */
static ssize_t path_write(enum apath p, int fd, const void *buf, size_t len, off_t off)
{
	ssize_t ret;

	if (p != P_DIO)
		set_direct(fd, false);
	ret = atw_pwrite(fd, buf, len, off, path_flags(p));
	if (ret == (ssize_t)len && p == P_BUF && fdatasync(fd))
		ret = -errno;
	if (p != P_DIO)
		set_direct(fd, true);
	return ret;
}

/* "shared" or "unshared" for the data extent under off (FIEMAP). */
static const char *sharing(int fd, off_t off)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[1];
	} req;

	memset(&req, 0, sizeof(req));
	req.fm.fm_start = off;
	req.fm.fm_length = bs;
	req.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &req.fm) < 0 || req.fm.fm_mapped_extents != 1 ||
	    req.fm.fm_extents[0].fe_logical > (uint64_t)off)
		return "unmapped";
	return req.fm.fm_extents[0].fe_flags & FIEMAP_EXTENT_SHARED ? "shared" : "unshared";
}

static void fill_file(struct tfile *t, int fd, unsigned int nblk, uint64_t gen)
{
	size_t len = (size_t)nblk * bs;
	void *buf = atw_alloc(len);
	unsigned int i;

	wt_pattern(buf, len, 0, gen);
	if (atw_pwrite(fd, buf, len, 0, 0) != (ssize_t)len || fsync(fd))
		tap_bail("writing %s", t->name);
	t->nblk = nblk;
	for (i = 0; i < nblk; i++) {
		t->off[i] = (uint64_t)i * bs;
		t->gen[i] = gen;
	}
	free(buf);
}

/* Block blk of t gets one O_DIRECT RWF_ATOMIC write through fd. */
static void atomic_block(int fd, const char *via, struct tfile *t, unsigned int blk,
			 uint64_t gen)
{
	off_t off = (off_t)blk * bs;
	void *buf = atw_alloc(bs);
	struct atw_limits l;
	char what[192];
	uint64_t phys = 0;
	ssize_t ret;
	bool adv;
	int err;

	snprintf(what, sizeof(what), "%s: %s block %u (%s), fd opened %s",
		 path_name[cur], t->name, blk, sharing(fd, off), via);
	adv = advertises(fd, what, &l);
	wt_pattern(buf, bs, off, gen);
	err = devcount_start();
	ret = path_write(cur, fd, buf, bs, off);
	err = err ? err : devcount_stop(&dc, atw_env()->lbs);
	diag("observed: %s: statx %s, atomic write %s", what,
	     adv ? "advertises" : "does not advertise",
	     ret == (ssize_t)bs ? "succeeded" : ret < 0 ? strerror(-ret) : "short");
	if (!adv) {
		check(ret == -EOPNOTSUPP,
		      "%s: statx does not advertise atomic writes, the write fails with EOPNOTSUPP (got %s)",
		      what, ret < 0 ? strerror(-ret) : "success");
		goto out;
	}
	if (!check(ret == (ssize_t)bs, "%s: statx advertises atomic writes, the write succeeds (got %s)",
		   what, ret < 0 ? strerror(-ret) : ret == (ssize_t)bs ? "ok" : "short"))
		goto out;
	t->off[blk] = off;
	t->gen[blk] = gen;
	if (!check(!wt_phys(fd, off, &phys), "%s: block mapped after the write", what))
		goto out;
	if (check(!err, "%s: device trace complete (%s)", what, err ? strerror(-err) : "ok")) {
		check(dc.atomics == 1 && wt_atomics_exact(&dc, phys, bs) == 1 &&
		      wt_writes_in(&dc, phys, bs) == 1,
		      "%s: one WRITE ATOMIC(16) of exactly the block at its address after the write (%u atomic, %u data writes there)",
		      what, dc.atomics, wt_writes_in(&dc, phys, bs));
		if (dc.atomics != 1)
			devcount_print(&dc);
	}
out:
	free(buf);
}

/* Every block of t reads what was last written to it, through fd. */
static long first_bad(const struct tfile *t, int fd, void *buf)
{
	unsigned int i;

	for (i = 0; i < t->nblk; i++) {
		if (atw_pread(fd, buf, bs, (off_t)i * bs) != (ssize_t)bs ||
		    wt_pattern_bad(buf, bs, t->off[i], t->gen[i]) >= 0)
			return i;
	}
	return -1;
}

static void verify(const struct tfile *t, const char *when)
{
	int fd = atw_env_open(t->name, 0);
	int dfd = atw_env_open(t->name, O_DIRECT);
	void *buf = atw_alloc(bs);
	long cached = first_bad(t, fd, buf);
	long direct = first_bad(t, dfd, buf);

	check(cached < 0 && direct < 0,
	      "%s: %s %s: every block reads what was last written to it, through the cache and with O_DIRECT (first bad block %ld, %ld)",
	      path_name[cur], t->name, when, cached, direct);
	free(buf);
	close(fd);
	close(dfd);
}

static void clone_copy(struct tfile *dst, const struct tfile *src, unsigned int nblk)
{
	unsigned int i;

	dst->nblk = nblk;
	for (i = 0; i < nblk; i++) {
		dst->off[i] = src->off[i];
		dst->gen[i] = src->gen[i];
	}
}

static void run(void)
{
	struct tfile *tf[4] = { &f, &g, &f2, &h };
	static const char *const base[4] = { "f", "g", "f2", "h" };
	struct file_clone_range fcr;
	int fd_old, fd_mid, fd_new, fd_g, fd_f2, fd_h;
	unsigned int i, nshared;
	char path[512];

	for (i = 0; i < 4; i++) {
		snprintf(names[i], sizeof(names[i]), "ra_%s_%s", path_name[cur], base[i]);
		memset(tf[i], 0, sizeof(*tf[i]));
		tf[i]->name = names[i];
	}

	/* F, opened before anything is cloned */
	fd_old = atw_env_open(f.name, O_DIRECT | O_TRUNC);
	fill_file(&f, fd_old, NBLK, 1);
	same_as_fresh(fd_old, "F before any clone");
	atomic_block(fd_old, "before the clone", &f, 0, 2);

	/* G = FICLONE of F: every block of both is shared */
	fd_g = atw_env_open(g.name, O_DIRECT | O_TRUNC);
	if (ioctl(fd_g, FICLONE, fd_old) < 0) {
		skip(strerror(errno), "%s: FICLONE (no reflink on this file system)",
		     path_name[cur]);
		close(fd_g);
		close(fd_old);
		return;
	}
	clone_copy(&g, &f, NBLK);
	same_as_fresh(fd_old, "F after FICLONE into G");
	same_as_fresh(fd_g, "G, FICLONE of F");
	fd_mid = atw_env_open(f.name, O_DIRECT);
	atomic_block(fd_old, "before the clone", &f, 1, 3);
	atomic_block(fd_mid, "after the clone", &f, 2, 3);
	atomic_block(fd_g, "before the clone (FICLONE target)", &g, 3, 4);
	atomic_block(fd_old, "before the clone", &f, 1, 5);
	verify(&f, "after FICLONE");
	verify(&g, "after FICLONE");

	/* H = FICLONE_RANGE of the first half of F2: F2's second half unshared */
	fd_f2 = atw_env_open(f2.name, O_DIRECT | O_TRUNC);
	fill_file(&f2, fd_f2, NBLK, 6);
	fd_h = atw_env_open(h.name, O_DIRECT | O_TRUNC);
	memset(&fcr, 0, sizeof(fcr));
	fcr.src_fd = fd_f2;
	fcr.src_length = (uint64_t)NBLK / 2 * bs;
	if (ioctl(fd_h, FICLONERANGE, &fcr))
		tap_bail("FICLONE_RANGE of F2's first %u blocks into H: %s", NBLK / 2,
			 strerror(errno));
	clone_copy(&h, &f2, NBLK / 2);
	same_as_fresh(fd_f2, "F2 after FICLONE_RANGE of its first half into H");
	same_as_fresh(fd_h, "H, FICLONE_RANGE of F2's first half");
	atomic_block(fd_f2, "before the clone", &f2, NBLK - 2, 7);
	atomic_block(fd_f2, "before the clone", &f2, 1, 7);
	atomic_block(fd_h, "before the clone (FICLONE_RANGE target)", &h, 2, 8);
	verify(&f2, "after FICLONE_RANGE");
	verify(&h, "after FICLONE_RANGE");

	/* G deleted: F shares nothing any more */
	close(fd_g);
	snprintf(path, sizeof(path), "%s/%s", atw_env()->dir, g.name);
	if (unlink(path))
		tap_bail("unlink %s: %s", path, strerror(errno));
	sync();
	for (i = 0, nshared = 0; i < NBLK; i++)
		nshared += !strcmp(sharing(fd_old, (off_t)i * bs), "shared");
	diag("F after G was deleted: %u of %u blocks shared", nshared, NBLK);
	same_as_fresh(fd_old, "F after its clone G was deleted");
	fd_new = atw_env_open(f.name, O_DIRECT);
	atomic_block(fd_new, "after G was deleted", &f, 4, 9);
	atomic_block(fd_mid, "while F shared blocks with G", &f, 5, 9);

	/* FALLOC_FL_UNSHARE_RANGE (XFS drops the inode's reflink flag) */
	if (fallocate(fd_old, FALLOC_FL_UNSHARE_RANGE, 0, (off_t)NBLK * bs))
		tap_bail("FALLOC_FL_UNSHARE_RANGE over all of F: %s", strerror(errno));
	same_as_fresh(fd_old, "F after FALLOC_FL_UNSHARE_RANGE");
	atomic_block(fd_mid, "while F shared blocks with G", &f, 6, 10);
	atomic_block(fd_new, "after G was deleted", &f, 7, 10);
	atomic_block(fd_old, "before the clone", &f, 0, 10);
	verify(&f, "after G was deleted and F unshared");
	close(fd_old);
	close(fd_mid);
	close(fd_new);
	close(fd_f2);
	close(fd_h);

	/* what is on the disk, and what statx says of it afterwards */
	wt_remount();
	verify(&f, "after a remount");
	verify(&f2, "after a remount");
	verify(&h, "after a remount");
	fd_old = atw_env_open(f.name, O_DIRECT);
	fd_f2 = atw_env_open(f2.name, O_DIRECT);
	fd_h = atw_env_open(h.name, O_DIRECT);
	same_as_fresh(fd_old, "F after a remount");
	same_as_fresh(fd_f2, "F2 after a remount");
	same_as_fresh(fd_h, "H after a remount");
	atomic_block(fd_f2, "after a remount", &f2, 2, 11);
	atomic_block(fd_h, "after a remount", &h, 3, 12);
	verify(&f2, "at the end");
	verify(&h, "at the end");
	close(fd_old);
	close(fd_f2);
	close(fd_h);
}

/*
 * Why path p cannot be run here, or NULL: statx must advertise one block
 * for it, and a trial atomic write of one block to an unshared file must be
 * accepted (the buffered query also answers for the write-through path, so
 * only the write tells wt from buf).
 */
static const char *path_unavailable(enum apath p)
{
	static char why[160];
	const char *name = "ra_trial";
	void *buf;
	ssize_t ret;
	int fd;

	if (!path_flags(p))
		return "uapi has no RWF_WRITETHROUGH";
	if (!lim_advertises(p, &fresh)) {
		snprintf(why, sizeof(why), "statx advertises no %s atomic unit of one block (%u)",
			 p == P_DIO ? "DIO" : "buffered", bs);
		return why;
	}
	buf = atw_alloc(bs);
	wt_pattern(buf, bs, 0, 1);
	fd = atw_env_open(name, O_DIRECT | O_TRUNC);
	ret = path_write(p, fd, buf, bs, 0);
	close(fd);
	atw_env_unlink(name);
	free(buf);
	if (ret == (ssize_t)bs)
		return NULL;
	snprintf(why, sizeof(why), "a one-block %s atomic write to an unshared file fails (%s)",
		 path_name[p], ret < 0 ? strerror(-ret) : "short");
	return why;
}

int main(int argc, char **argv)
{
	struct atw_env *e;
	const char *why;

	tap_start("reflink_atomic");
	e = atw_env_setup(argc, argv, "reflink_atomic DIR");
	bs = e->bs;
	fresh = e->lim;
	for (cur = 0; cur < NPATH; cur++) {
		why = path_unavailable(cur);
		if (why) {
			skip(why, "reflink_atomic: %s path", path_name[cur]);
			continue;
		}
		diag("%s path: RWF flags 0x%x", path_name[cur], (unsigned int)path_flags(cur));
		run();
	}
	return tap_done();
}
