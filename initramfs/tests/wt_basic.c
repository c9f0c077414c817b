// SPDX-License-Identifier: GPL-2.0
/*
 * Plain RWF_WRITETHROUGH buffered writes (docs/design.md, "RWF_WRITETHROUGH")
 * on the XFS mounted at DIR:
 *  - the flag has the value the spec gives it; a file system without
 *    write-through (tmpfs) refuses it with EOPNOTSUPP;
 *  - into a hole, an unwritten extent, a written extent, over dirty cached
 *    data, sub-block and unaligned ranges, several iovecs and 1 MiB: the
 *    call returns the full length, the call itself sent the data to the
 *    device, and when it returns the device holds it (read at the FIEMAP
 *    address with O_DIRECT on the disk, never through the file's cache),
 *    blocks around a sub-block write included; the range is allocated and
 *    written (no delalloc, no unwritten extent left);
 *  - the cached folios are uptodate (a read sends no device read) and clean
 *    (a following fdatasync sends no data write to the range);
 *  - a device write error (scsi_debug error injection) comes back from the
 *    call as -EIO, and a retry after it works.
 *
 * usage: wt_basic DIR   (the disk is $ATW_DISK, DIR its XFS mount point)
 */
#include "lib/wt_common.h"

#include <sys/uio.h>

#ifdef RWF_WRITETHROUGH

static uint8_t write_opcode = 0x8a;

enum prep { HOLE, UNWRITTEN, WRITTEN, DIRTY };
static const char *const prep_name[] = { "hole", "unwritten", "written", "dirty cache" };

struct wt_case {
	const char *name;
	enum prep prep;
	off_t off;	/* in units of the fs block size, plus a byte offset */
	size_t boff;
	size_t len;	/* 0: given in blocks by nblk */
	unsigned int nblk;
	int niov;
};

static off_t round_down(off_t v, off_t a)
{
	return v / a * a;
}

static off_t round_up(off_t v, off_t a)
{
	return (v + a - 1) / a * a;
}

/* Data writes the trace shows into the device blocks of file range [off, off+len). */
static unsigned int range_writes(int fd, const struct devcount *dc, off_t off, size_t len)
{
	unsigned int n = 0;
	size_t done = 0;

	while (done < len) {
		uint64_t phys, avail;
		size_t step = len - done;

		if (wt_map(fd, off + done, &phys, &avail)) {
			step = atw_env()->bs;
		} else {
			if (step > avail)
				step = avail;
			n += wt_writes_in(dc, phys, step);
		}
		done += step;
	}
	return n;
}

static void run_case(int fd, const struct wt_case *c, unsigned char *shadow,
		     off_t file_base)
{
	const struct atw_env *e = atw_env();
	off_t off = file_base + c->off * e->bs + c->boff;
	size_t len = c->len ? c->len : (size_t)c->nblk * e->bs;
	off_t a0 = round_down(off, e->bs), a1 = round_up(off + len, e->bs);
	size_t alen = a1 - a0;
	unsigned char *buf = atw_alloc(len), *dev = atw_alloc(alen), *rd = atw_alloc(alen);
	unsigned char *exp = shadow + (a0 - file_base);
	struct iovec iov[4];
	struct devcount dc;
	ssize_t ret;
	int err, m, i;
	long bad;

	/* The range's starting state. */
	if (c->prep == UNWRITTEN && fallocate(fd, 0, a0, alen))
		check(0, "%s: fallocate: %s", c->name, strerror(errno));
	if (c->prep == WRITTEN || c->prep == DIRTY) {
		wt_pattern(exp, alen, a0, 1);
		if (atw_pwrite(fd, exp, alen, a0, 0) != (ssize_t)alen)
			check(0, "%s: pre-write", c->name);
	}
	if (c->prep != DIRTY)
		fdatasync(fd);

	wt_pattern(buf, len, off, 2);
	memcpy(shadow + (off - file_base), buf, len);
	for (i = 0; i < c->niov; i++) {
		size_t piece = len / c->niov;

		iov[i].iov_base = buf + i * piece;
		iov[i].iov_len = i == c->niov - 1 ? len - i * piece : piece;
	}

	err = wt_trace_start();
	ret = pwritev2(fd, iov, c->niov, off, RWF_WRITETHROUGH);
	ret = ret < 0 ? -errno : ret;
	err = err ? err : devcount_stop(&dc, e->lbs);
	if (!check(ret == (ssize_t)len, "%s (%s, %zu bytes at %lld, %d iovec): returns the length (got %zd%s%s)",
		   c->name, prep_name[c->prep], len, (long long)off, c->niov, ret,
		   ret < 0 ? " " : "", ret < 0 ? strerror(-ret) : ""))
		goto out;
	if (check(!err, "%s: device trace complete (%d)", c->name, err)) {
		uint64_t want = round_up(off + len, e->lbs) - round_down(off, e->lbs);

		if (!check(dc.write_bytes + dc.atomic_bytes >= want,
			   "%s: the call itself sent the data to the device (%llu of >= %llu bytes)",
			   c->name, (unsigned long long)(dc.write_bytes + dc.atomic_bytes),
			   (unsigned long long)want))
			devcount_print(&dc);
		if (write_opcode == 0x8a && wt_first_write_opcode(&dc))
			write_opcode = wt_first_write_opcode(&dc);
	}
	m = wt_dev_read_range(fd, dev, a0, alen);
	check(m == 0, "%s: range allocated and written when the call returns (map flags 0x%x%s%s%s)",
	      c->name, m, m & WT_MAP_DELALLOC ? " delalloc" : "",
	      m & WT_MAP_UNWRITTEN ? " unwritten" : "", m & WT_MAP_HOLE ? " hole" : "");
	bad = memcmp(dev, exp, alen) ? 1 : -1;
	if (bad >= 0)
		for (bad = 0; bad < (long)alen && dev[bad] == exp[bad]; bad++)
			;
	check(bad < 0, "%s: device holds the data (and the old bytes around it) when the call returns%s",
	      c->name, bad < 0 ? "" : " -- first difference at file offset below");
	if (bad >= 0)
		diag("%s: device differs at file offset %lld (device 0x%02x, expected 0x%02x)",
		     c->name, (long long)(a0 + bad), dev[bad], exp[bad]);

	/* Uptodate: the read is served from the cache. */
	posix_fadvise(fd, a0, alen, POSIX_FADV_RANDOM);
	err = wt_trace_start();
	ret = atw_pread(fd, rd, alen, a0);
	err = err ? err : devcount_stop(&dc, e->lbs);
	check(ret == (ssize_t)alen && !memcmp(rd, exp, alen),
	      "%s: buffered read returns the data", c->name);
	check(!err && dc.reads == 0, "%s: cached folios uptodate (the read sent %u device reads)",
	      c->name, err ? 0 : dc.reads);

	/* Clean: nothing left to write back. */
	err = wt_trace_start();
	ret = fdatasync(fd);
	err = err ? err : devcount_stop(&dc, e->lbs);
	if (!check(ret == 0 && !err && range_writes(fd, &dc, a0, alen) == 0,
		   "%s: cached folios clean (fdatasync sent %u data writes to the range)",
		   c->name, err ? 0 : range_writes(fd, &dc, a0, alen)))
		devcount_print(&dc);
out:
	free(buf);
	free(dev);
	free(rd);
}

static void not_supported_elsewhere(void)
{
	char path[] = "/tmp/wt_basic_tmpfs";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	char buf[4096] = { 1 };
	ssize_t ret;

	if (fd < 0) {
		skip("no /tmp", "tmpfs refuses RWF_WRITETHROUGH");
		return;
	}
	ret = atw_pwrite(fd, buf, sizeof(buf), 0, RWF_WRITETHROUGH);
	check(ret == -EOPNOTSUPP, "a file system without write-through (tmpfs) refuses it with EOPNOTSUPP (got %zd %s)",
	      ret, atw_err(ret));
	close(fd);
	unlink(path);
}

static void injected_error(void)
{
	const struct atw_env *e = atw_env();
	size_t len = 4 * (size_t)e->bs;
	off_t off = 64 * (off_t)e->bs;
	unsigned char *buf = atw_alloc(len), *dev = atw_alloc(len);
	struct wt_injected inj = { .opcode = write_opcode };
	uint64_t phys;
	char path[256];
	ssize_t ret = 0;
	int fd, armed;

	if (wt_inject_path(path, sizeof(path))) {
		skip("no scsi_debug error injection in debugfs", "injected write error comes back as -EIO");
		free(buf);
		free(dev);
		return;
	}
	fd = atw_env_open("wt_basic_eio", O_TRUNC);
	wt_pattern(buf, len, off, 1);
	if (atw_pwrite(fd, buf, len, off, 0) != (ssize_t)len || fsync(fd))
		tap_bail("eio: pre-write");
	wt_pattern(buf, len, off, 3);
	if (wt_phys(fd, off, &phys))
		tap_bail("eio: no device address after the pre-write");
	while (!(armed = wt_inject_arm(&inj))) {
		ret = atw_pwrite(fd, buf, len, off, RWF_WRITETHROUGH);
		if (wt_inject_done(&inj, phys, len))
			break;
	}
	check(!armed && ret == -EIO && (inj.mine || !inj.traced),
	      "device write error (opcode 0x%x fails) comes back from the call as -EIO (got %zd %s; %d failures on its range, attempt %d)",
	      write_opcode, ret, atw_err(ret), inj.mine, inj.tries);

	wt_pattern(buf, len, off, 4);
	ret = atw_pwrite(fd, buf, len, off, RWF_WRITETHROUGH);
	check(ret == (ssize_t)len, "after the error, a new write-through of the range works (got %zd %s)",
	      ret, atw_err(ret));
	check(wt_dev_read_range(fd, dev, off, len) == 0 && wt_pattern_bad(dev, len, off, 4) < 0,
	      "after the error, the device holds the new write-through's data");
	close(fd);
	free(buf);
	free(dev);
}

static void odd_combinations(void)
{
	const struct atw_env *e = atw_env();
	unsigned char *buf = atw_alloc(e->bs);
	ssize_t ret;
	int fd;

	fd = atw_env_open("wt_basic_direct", O_TRUNC | O_DIRECT);
	ret = atw_pwrite(fd, buf, e->bs, 0, RWF_WRITETHROUGH);
	diag("RWF_WRITETHROUGH on an O_DIRECT fd: %zd (%s)", ret, atw_err(ret));
	close(fd);
	free(buf);
}

static void run(void)
{
	const struct atw_env *e = atw_env();
	size_t sub = e->bs / 2 < 1000 ? e->bs / 2 : 1000;
	const struct wt_case cases[] = {
		{ "one block into a hole", HOLE, 0, 0, 0, 1, 1 },
		{ "four blocks into a hole", HOLE, 4, 0, 0, 4, 1 },
		{ "one block over an unwritten extent", UNWRITTEN, 12, 0, 0, 1, 1 },
		{ "four blocks over a written extent", WRITTEN, 16, 0, 0, 4, 1 },
		{ "four blocks over dirty cached data", DIRTY, 24, 0, 0, 4, 1 },
		{ "sub-block over a written block", WRITTEN, 32, e->bs / 4 + 3, sub, 0, 1 },
		{ "sub-block into a hole", HOLE, 36, e->bs / 4 + 5, sub, 0, 1 },
		{ "sub-block over an unwritten block", UNWRITTEN, 40, 7, sub, 0, 1 },
		{ "unaligned three blocks over written", WRITTEN, 44, e->bs / 2, 3 * e->bs, 0, 1 },
		{ "three iovecs over written", WRITTEN, 52, 0, 0, 4, 3 },
		{ "1 MiB into a hole", HOLE, 64, 0, 1 << 20, 0, 1 },
	};
	size_t span = (64 * (size_t)e->bs) + (1 << 20) + 2 * e->bs;
	unsigned char *shadow = atw_alloc(span), *rd = atw_alloc(span);
	off_t base = 1 << 20;
	unsigned int i;
	int fd;

	check(RWF_WRITETHROUGH == WT_SPEC_VALUE, "uapi RWF_WRITETHROUGH is 0x%x (got 0x%x)",
	      WT_SPEC_VALUE, (unsigned int)RWF_WRITETHROUGH);
	not_supported_elsewhere();

	fd = atw_env_open("wt_basic", O_TRUNC);
	if (ftruncate(fd, base + span))
		tap_bail("ftruncate: %s", strerror(errno));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(fd, &cases[i], shadow, base);
	close(fd);

	wt_remount();
	fd = atw_env_open("wt_basic", 0);
	check(atw_pread(fd, rd, span, base) == (ssize_t)span && !memcmp(rd, shadow, span),
	      "after a remount the file holds every write-through's data");
	close(fd);

	injected_error();
	odd_combinations();
	free(shadow);
	free(rd);
}
#endif

int main(int argc, char **argv)
{
	tap_start("wt_basic");
#ifdef RWF_WRITETHROUGH
	atw_env_setup(argc, argv, "wt_basic DIR");
	run();
#else
	(void)argc;
	(void)argv;
	skip(WT_UAPI_SKIP, "wt_basic");
#endif
	return tap_done();
}
