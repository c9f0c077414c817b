// SPDX-License-Identifier: GPL-2.0
/*
 * One-block O_DIRECT RWF_ATOMIC writes and statx(STATX_WRITE_ATOMIC) on
 * files that share blocks (reflink), on the XFS mounted at DIR. Skipped
 * when statx advertises no DIO atomic writes, or a unit range without the
 * file system block size.
 *
 * Files: F, written and opened (the "old" fd) before anything is cloned;
 * G = FICLONE of F; F2 and H = FICLONE_RANGE of the first half of F2. Then
 * G is deleted and F unshared with FALLOC_FL_UNSHARE_RANGE, and everything
 * is remounted. At every step:
 *  - statx of each file advertises the DIO atomic limits that any regular
 *    file on this file system advertises: sharing blocks, having shared
 *    them, or being a clone does not change what a file can do (fsx and
 *    databases read statx once, when they open the file);
 *  - every one-block atomic write, to a shared block and to an unshared one,
 *    through an fd opened before the clone, after it, or after the unshare,
 *    agrees with statx at that moment: advertised -> it succeeds and reaches
 *    the device as exactly one WRITE ATOMIC(16) of that block at the block's
 *    address after the write (the new one when the write went out of place);
 *    not advertised -> it fails with EOPNOTSUPP;
 *  - every block of every file reads what was last written to it (a write
 *    to a shared block never shows through the other file), also after a
 *    remount.
 * "observed:" diag lines give statx and the write result of every step.
 *
 * usage: base_reflink_atomic DIR
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

static unsigned int bs;
static struct atw_limits fresh;	/* what a new regular file advertises */
static struct devcount dc;

static struct tfile f = { .name = "bra_f" };
static struct tfile g = { .name = "bra_g" };
static struct tfile f2 = { .name = "bra_f2" };
static struct tfile h = { .name = "bra_h" };

/* statx of fd; true if it advertises one-block O_DIRECT atomic writes. */
static bool advertises(int fd, const char *what, struct atw_limits *l)
{
	int ret = atw_statx_limits(fd, NULL, l);

	if (ret)
		tap_bail("statx %s: %s", what, strerror(-ret));
	return l->dio && l->dio_min <= bs && bs <= l->dio_max;
}

/* statx of fd advertises what a fresh regular file does. */
static void same_as_fresh(int fd, const char *what)
{
	struct atw_limits l;
	bool adv = advertises(fd, what, &l);

	atw_print_limits(what, &l);
	check(adv && l.dio_min == fresh.dio_min && l.dio_max == fresh.dio_max &&
	      l.dio_segs == fresh.dio_segs,
	      "%s: statx advertises DIO atomic writes [%u..%u] like any regular file here (got %s [%u..%u])",
	      what, fresh.dio_min, fresh.dio_max, l.dio ? "yes" : "no", l.dio_min,
	      l.dio_max);
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

	snprintf(what, sizeof(what), "%s block %u (%s), fd opened %s", t->name, blk,
		 sharing(fd, off), via);
	adv = advertises(fd, what, &l);
	wt_pattern(buf, bs, off, gen);
	err = devcount_start();
	ret = atw_pwrite(fd, buf, bs, off, RWF_ATOMIC);
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

static void verify(const struct tfile *t, const char *when)
{
	int fd = atw_env_open(t->name, O_DIRECT);
	void *buf = atw_alloc(bs);
	long bad = -1;
	unsigned int i;

	for (i = 0; i < t->nblk && bad < 0; i++) {
		if (atw_pread(fd, buf, bs, (off_t)i * bs) != (ssize_t)bs ||
		    wt_pattern_bad(buf, bs, t->off[i], t->gen[i]) >= 0)
			bad = i;
	}
	check(bad < 0, "%s %s: every block reads what was last written to it (first bad block %ld)",
	      t->name, when, bad);
	free(buf);
	close(fd);
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
	struct file_clone_range fcr;
	int fd_old, fd_mid, fd_new, fd_g, fd_f2, fd_h;
	unsigned int i, nshared;
	char path[512];

	/* F, opened before anything is cloned */
	fd_old = atw_env_open(f.name, O_DIRECT | O_TRUNC);
	fill_file(&f, fd_old, NBLK, 1);
	same_as_fresh(fd_old, "F before any clone");
	atomic_block(fd_old, "before the clone", &f, 0, 2);

	/* G = FICLONE of F: every block of both is shared */
	fd_g = atw_env_open(g.name, O_DIRECT | O_TRUNC);
	if (ioctl(fd_g, FICLONE, fd_old) < 0) {
		skip(strerror(errno), "FICLONE (no reflink on this file system)");
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

int main(int argc, char **argv)
{
	struct atw_env *e;

	tap_start("base_reflink_atomic");
	e = atw_env_setup(argc, argv, "base_reflink_atomic DIR");
	bs = e->bs;
	fresh = e->lim;
	if (!fresh.dio) {
		skip("statx advertises no DIO atomic writes", "base_reflink_atomic");
		return tap_done();
	}
	if (bs < fresh.dio_min || bs > fresh.dio_max) {
		skip("block size outside the DIO atomic unit range",
		     "base_reflink_atomic: %u not in [%u..%u]", bs, fresh.dio_min,
		     fresh.dio_max);
		return tap_done();
	}
	run();
	return tap_done();
}
