// SPDX-License-Identifier: GPL-2.0
/*
 * xfs_refdrop: a finding in XFS itself (docs/findings.md, "XFS: a dropped
 * reflink reference comes back after a power cut with another range's
 * data"); the plan xfs-refdrop runs it on pcblk, the test plans do not (it
 * fails on every kernel). Block D is shared by A[0,L) and B[0,L), both
 * fsynced. B drops its reference (MODE: clone another file over it,
 * truncate, punch; "none" is the control) and nothing syncs B; A is
 * overwritten with O_DIRECT (in place: D is no longer shared) and, with
 * PCR_FDATASYNC set, fdatasync'ed; then the power is cut with every
 * unflushed write surviving, and XFS recovers its log. B must not read A's
 * new data: it held its own fsynced data, or (if its drop reached the log)
 * C's or nothing.
 *   xfs_refdrop MODE DIR DISK
 */
#include "lib/pcblk.h"
#include "lib/tap.h"
#include "lib/wt_common.h"
#include "lib/test_env.h"

#include <linux/falloc.h>
#include <sys/mount.h>

#define L 65536
#define GOINGDOWN _IOR('X', 125, uint32_t)

static const char *dir, *disk;

static int op(const char *n, int fl)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, n);
	fd = open(p, fl | O_CREAT, 0644);
	if (fd < 0)
		tap_bail("open %s: %s", p, strerror(errno));
	return fd;
}

static int which(const unsigned char *b, size_t n)
{
	int g;

	for (g = 1; g <= 3; g++)
		if (wt_pattern_bad(b, n, 0, g) < 0)
			return g;
	if (wt_nonzero(b, n) < 0)
		return 0;
	return -1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "clone";
	unsigned char *buf;
	struct file_clone_range r = { .src_length = L };
	uint32_t how = 2;	/* XFS_FSOP_GOING_FLAGS_NOLOGFLUSH */
	int a, b, c, ad, ret, gb, ga;
	static char lg[256 << 10];
	long long w0;
	char *ln;
	struct stat st;

	if (argc < 4)
		tap_bail("usage: xfs_refdrop MODE DIR DISK");
	dir = argv[2];
	disk = argv[3];
	tap_start("xfs_refdrop");
	if (posix_memalign((void **)&buf, 4096, L))
		tap_bail("memory");
	a = op("a", O_RDWR | O_TRUNC);
	b = op("b", O_RDWR | O_TRUNC);
	c = op("c", O_RDWR | O_TRUNC);
	wt_pattern(buf, L, 0, 1);
	if (pwrite(a, buf, L, 0) != L || fsync(a))
		tap_bail("write a");
	r.src_fd = a;
	if (ioctl(b, FICLONERANGE, &r) || fsync(b) || fsync(a))
		tap_bail("clone a -> b: %s", strerror(errno));
	wt_pattern(buf, L, 0, 3);
	if (pwrite(c, buf, L, 0) != L || fsync(c))
		tap_bail("write c");
	sync();
	w0 = pcblk_writes();
	/* B drops its reference to A's blocks; nothing syncs it */
	if (!strcmp(mode, "clone")) {
		r.src_fd = c;
		ret = ioctl(b, FICLONERANGE, &r);
	} else if (!strcmp(mode, "trunc")) {
		ret = ftruncate(b, 0);
	} else if (!strcmp(mode, "punch")) {
		ret = fallocate(b, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, L);
	} else {
		ret = 0;
	}
	if (ret)
		tap_bail("%s: %s", mode, strerror(errno));
	/* A overwritten in place (its blocks are no longer shared) */
	ad = op("a", O_RDWR | O_DIRECT);
	wt_pattern(buf, L, 0, 2);
	if (pwrite(ad, buf, L, 0) != L)
		tap_bail("O_DIRECT write a: %s", strerror(errno));
	if (getenv("PCR_FDATASYNC") && fdatasync(ad))
		tap_bail("fdatasync a");
	diag("%s: A rewritten with O_DIRECT%s; B's %s not synced; cutting with survive_pct=100",
	     mode, getenv("PCR_FDATASYNC") ? " and fdatasync'ed" : "", mode);
	if (!pcblk_get("log", lg, sizeof(lg)))
		for (ln = strtok(lg, "\n"); ln; ln = strtok(NULL, "\n"))
			if (atoll(ln) > w0)
				diag("  pcblk: %s", ln);
	if (pcblk_set("survive_pct", "100") || pcblk_set("cut", "now"))
		tap_bail("cut");
	if (ioctl(a, GOINGDOWN, &how))
		tap_bail("goingdown: %s", strerror(errno));
	close(a);
	close(ad);
	close(b);
	close(c);
	while (umount2(dir, 0))
		usleep(100000);
	if (pcblk_set("survive_pct", "50") || pcblk_set("restore", "1") || mount(disk, dir, "xfs", 0, NULL))
		tap_bail("restore/mount: %s", strerror(errno));
	a = op("a", O_RDONLY);
	b = op("b", O_RDONLY);
	memset(buf, 0, L);
	fstat(b, &st);
	ret = pread(b, buf, L, 0);
	gb = which(buf, L);
	memset(buf, 0, L);
	pread(a, buf, L, 0);
	ga = which(buf, L);
	diag("after recovery: B size %lld, B[0,%d) is %s (read %d); A is %s", (long long)st.st_size,
	     L, gb == 1 ? "gen 1: B's fsynced data" : gb == 2 ? "gen 2: A's new data" :
	     gb == 3 ? "gen 3: C's data (B's clone durable)" : gb == 0 ? "zeros" : "mixed",
	     ret, ga == 1 ? "gen 1 (old)" : ga == 2 ? "gen 2 (new)" : "other");
	check(gb != 2, "%s: B does not show the data written to A after the cut", mode);
	return tap_done();
}
