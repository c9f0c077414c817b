// SPDX-License-Identifier: GPL-2.0
/*
 * fsync makes the size of a buffered extension durable even when a
 * write-through wrote the EOF block in between (DIR an XFS).
 *
 * The file is written and fsynced up to S, inside a block. A buffered write
 * then extends it in the same block (dirty, past the on-disk size), and a
 * short write-through at the start of that block takes the block over: it
 * writes the whole block, the buffered bytes with it, and leaves it clean.
 * After fsync the file system is shut down without a log flush (as a power
 * cut would leave it: only what fsync forced is in the log) and mounted
 * again (log recovery):
 *  - the size is S plus the extension, as fsync returned it;
 *  - the block holds the write-through's bytes and the extension.
 * A control without the write-through shows the shutdown keeps what fsync
 * made durable.
 *
 * usage: wt_fsync_size DIR
 */
#include "lib/wt_common.h"

#ifdef RWF_WRITETHROUGH

#define WT_XFS_IOC_GOINGDOWN _IOR('X', 125, uint32_t)
#define WT_GOING_NOLOGFLUSH 0x2
#define EXT 2071	/* the buffered extension */
#define WLEN 173	/* the write-through at the block's start */

static void one(struct atw_env *e, bool wt)
{
	const char *what = wt ? "a write-through in the EOF block" : "no write-through (control)";
	size_t bs = e->bs, s = 26 * bs + 9000 % bs, i;
	uint32_t how = WT_GOING_NOLOGFLUSH;
	unsigned char *buf = atw_alloc(s + bs);
	off_t blk = s / bs * bs;
	char path[512];
	struct stat st;
	bool ok = true;
	ssize_t n;
	int fd;

	fd = atw_env_open("wt_fsync_size", O_TRUNC);
	memset(buf, 0x11, s);
	if (atw_pwrite(fd, buf, s, 0, 0) != (ssize_t)s || fsync(fd))
		tap_bail("pre-write: %s", strerror(errno));
	memset(buf, 0x22, EXT);
	if (atw_pwrite(fd, buf, EXT, s, 0) != EXT)
		tap_bail("extension: %s", strerror(errno));
	if (wt) {
		memset(buf, 0x33, WLEN);
		if (atw_pwrite(fd, buf, WLEN, blk, RWF_WRITETHROUGH) != WLEN)
			tap_bail("write-through: %s", strerror(errno));
	}
	if (fsync(fd))
		tap_bail("fsync: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/wt_fsync_size", e->dir);
	if (ioctl(fd, WT_XFS_IOC_GOINGDOWN, &how))
		tap_bail("shutdown: %s", strerror(errno));
	close(fd);
	if (wt_umount() || wt_mount())
		tap_bail("remount after the shutdown failed");
	if (stat(path, &st))
		tap_bail("stat: %s", strerror(errno));
	check((size_t)st.st_size == s + EXT,
	      "%s: after fsync, a shutdown and log recovery the size is %zu, as fsync left it (got %lld)",
	      what, s + EXT, (long long)st.st_size);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -errno : atw_pread(fd, buf, s + EXT - blk, blk);
	if (n < 0)
		tap_bail("read back: %s", strerror((int)-n));
	ok = n == (ssize_t)(s + EXT - blk);
	for (i = 0; ok && i < (size_t)n; i++) {
		unsigned char want = wt && i < WLEN ? 0x33 : blk + (off_t)i < (off_t)s ? 0x11 : 0x22;

		if (buf[i] != want) {
			ok = false;
			break;
		}
	}
	check(ok, "%s: the EOF block holds what was written (%zd bytes read; first bad byte at %zu)",
	      what, n, ok ? 0 : (size_t)(blk + i));
	close(fd);
	atw_env_unlink("wt_fsync_size");
	free(buf);
}

int main(int argc, char **argv)
{
	struct atw_env *e;

	tap_start("wt_fsync_size");
	e = atw_env_setup(argc, argv, "wt_fsync_size DIR");
	one(e, false);
	one(e, true);
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_fsync_size");
	skip(WT_UAPI_SKIP, "wt_fsync_size");
	return tap_done();
}

#endif
