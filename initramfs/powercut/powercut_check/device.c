// SPDX-License-Identifier: GPL-2.0
/*
 * device.c: the checks of the device model itself (pcblk: cache, cut,
 * replay, rejection).
 */
#include "powercut_check.h"

/* ---- the device model itself --------------------------------------- */

static int dev_fd;
static unsigned int dev_lbs;

static void dev_put(off_t off, size_t len, uint64_t gen, int rwf)
{
	void *buf = atw_alloc(len);

	atw_fill(buf, len, off, gen);
	if (atw_pwrite(dev_fd, buf, len, off, rwf) != (ssize_t)len)
		tap_bail("write of %zu bytes at %lld (flags %#x)", len, (long long)off, rwf);
	free(buf);
}

/* The generation of every block of [off, off + len), -1 where unstamped. */
static int dev_gens(off_t off, size_t len, uint64_t *gens)
{
	void *buf = atw_alloc(len);
	ssize_t ret = atw_pread(dev_fd, buf, len, off);
	size_t b;

	for (b = 0; ret == (ssize_t)len && b < len / dev_lbs; b++) {
		const char *p = (const char *)buf + b * dev_lbs;
		uint64_t g;

		gens[b] = sector_stamp(p, off + b * dev_lbs, &g) &&
			  atw_verify(p, dev_lbs, off + b * dev_lbs, g) ? g : (uint64_t)-1;
	}
	free(buf);
	return ret == (ssize_t)len ? 0 : (int)ret;
}

static bool dev_is(off_t off, size_t len, uint64_t gen)
{
	void *buf = atw_alloc(len);
	bool ok = atw_pread(dev_fd, buf, len, off) == (ssize_t)len &&
		  atw_verify(buf, len, off, gen);

	free(buf);
	return ok;
}

static void dev_cycle(void)
{
	if (pcblk_set("cut", "now"))
		tap_bail("cut now");
	if (pcblk_set("restore", "1"))
		tap_bail("restore");
}

static void dev_tunables(unsigned int survive, unsigned int tear)
{
	if (pcblk_set("survive_pct", "%u", survive) || pcblk_set("tear_pct", "%u", tear))
		tap_bail("cannot set survive_pct/tear_pct");
}

static void dev_limits(void)
{
	long long umin = atw_disk_queue_attr(opt.dev, "atomic_write_unit_min_bytes");
	long long umax = atw_disk_queue_attr(opt.dev, "atomic_write_unit_max_bytes");
	long long fua = atw_disk_queue_attr(opt.dev, "fua");
	char wc[32] = "", path[128];
	struct atw_limits l;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/write_cache",
		 strrchr(opt.dev, '/') + 1);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wc, sizeof(wc), f))
			wc[0] = '\0';
		fclose(f);
	}
	diag("%s: lbs %u, atomic unit [%lld..%lld], fua %lld, write_cache %s", opt.dev,
	     dev_lbs, umin, umax, fua, wc);
	check(umin >= dev_lbs && umax >= umin && atw_is_pow2(umin) && atw_is_pow2(umax),
	      "sysfs advertises atomic unit min/max as powers of two >= one block");
	check(!strncmp(wc, "write back", 10) && fua == 1,
	      "sysfs advertises a volatile write cache with FUA");
	check(!atw_statx_limits(-1, opt.dev, &l) && l.dio && l.dio_min == umin &&
	      l.dio_max == umax, "statx(STATX_WRITE_ATOMIC) on the device matches sysfs");
}

static void dev_cache_model(void)
{
	off_t a = 0, b = 4 * 16384;
	size_t unit = 4 * dev_lbs;
	uint64_t g[64];
	unsigned int i, old = 0, new = 0, other = 0;
	void *w = atw_alloc(dev_lbs);
	char buf[256];

	dev_tunables(0, 0);
	dev_put(a, dev_lbs, 1, 0);
	check(!fdatasync(dev_fd), "fdatasync after a write returns 0");
	dev_put(a, dev_lbs, 2, 0);
	check(dev_is(a, dev_lbs, 2), "before the cut, reads see the unflushed write");
	check(!pcblk_set("cut", "now") && !pcblk_powered(), "cut now: power off");
	check(atw_pread(dev_fd, w, dev_lbs, a) == -EIO, "a read after the cut fails with EIO");
	check(atw_pwrite(dev_fd, w, dev_lbs, a, 0) == -EIO, "a write after the cut fails with EIO");
	check(fdatasync(dev_fd) == -1 && errno == EIO, "a flush after the cut fails with EIO");
	check(!pcblk_set("restore", "1") && pcblk_powered(), "restore: power on");
	check(dev_is(a, dev_lbs, 1), "survive_pct=0: the unflushed write is gone, the flushed one stays");

	dev_put(a, dev_lbs, 3, RWF_DSYNC);
	dev_cycle();
	check(dev_is(a, dev_lbs, 3), "an RWF_DSYNC (FUA) write survives the cut");

	dev_tunables(100, 0);
	dev_put(a, dev_lbs, 4, 0);
	dev_cycle();
	check(dev_is(a, dev_lbs, 4), "survive_pct=100: the unflushed write survives whole");

	/* Tears: a plain multi-block write lands in part; an atomic one never. */
	dev_tunables(0, 100);
	dev_put(b, unit, 10, 0);
	fdatasync(dev_fd);
	dev_put(b, unit, 11, 0);
	dev_cycle();
	if (!dev_gens(b, unit, g))
		for (i = 0; i < unit / dev_lbs; i++) {
			old += g[i] == 10;
			new += g[i] == 11;
			other += g[i] != 10 && g[i] != 11;
		}
	check(old && new && !other, "tear_pct=100: a plain %zu-byte write lands torn at block boundaries (%u old, %u new blocks)",
	      unit, old, new);
	dev_put(b, unit, 12, RWF_ATOMIC);
	fdatasync(dev_fd);
	dev_put(b, unit, 13, RWF_ATOMIC);
	dev_cycle();
	check(dev_is(b, unit, 12), "tear_pct=100, survive_pct=0: an atomic write is lost whole, never torn");
	dev_tunables(100, 100);
	dev_put(b, unit, 14, RWF_ATOMIC);
	dev_cycle();
	check(dev_is(b, unit, 14), "survive_pct=100: an atomic write survives whole");

	/* An unflushed write followed by a FUA write to the same block. */
	dev_tunables(100, 0);
	dev_put(a, dev_lbs, 20, 0);
	dev_put(a, dev_lbs, 21, RWF_DSYNC);
	dev_cycle();
	check(dev_is(a, dev_lbs, 21), "an older unflushed write surviving does not overwrite a later FUA write");

	check(!pcblk_get("last_cut", buf, sizeof(buf)) && !strncmp(buf, "how=now", 7),
	      "last_cut reports the cut (%s)", buf);
	free(w);
}

/* The same log and the same seed resolve the same way. */
static void dev_replay(void)
{
	size_t unit = 4 * dev_lbs, span = 32 * unit;
	off_t base = 1 << 20;
	void *snap[2];
	unsigned int pass, i;

	dev_tunables(50, 50);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 32; i++)
			dev_put(base + i * unit, unit, 100, 0);
		fdatasync(dev_fd);
		for (i = 0; i < 64; i++)
			dev_put(base + (i * 7 % 32) * unit, unit, 101 + i, 0);
		pcblk_set("seed", "12345");
		dev_cycle();
		snap[pass] = atw_alloc(span);
		if (atw_pread(dev_fd, snap[pass], span, base) != (ssize_t)span)
			tap_bail("read back the replay area");
	}
	check(!memcmp(snap[0], snap[1], span), "the same writes cut with the same seed leave the same media");
	free(snap[0]);
	free(snap[1]);
}

static void dev_cut_after(void)
{
	void *w = atw_alloc(dev_lbs);
	ssize_t ret[5];
	char buf[256];
	unsigned int i;

	dev_tunables(50, 50);
	check(!pcblk_set("cut_after", "3"), "cut_after 3 arms");
	for (i = 0; i < 5; i++) {
		atw_fill(w, dev_lbs, 2 << 20, 200 + i);
		ret[i] = atw_pwrite(dev_fd, w, dev_lbs, (2 << 20) + i * dev_lbs, 0);
	}
	check(ret[0] == dev_lbs && ret[1] == dev_lbs && ret[2] == dev_lbs &&
	      ret[3] == -EIO && ret[4] == -EIO,
	      "cut_after 3: three writes complete, the next ones fail with EIO (%zd %zd %zd %zd %zd)",
	      ret[0], ret[1], ret[2], ret[3], ret[4]);
	check(!pcblk_powered(), "cut_after: the power is off");
	check(!pcblk_get("last_cut", buf, sizeof(buf)) && strstr(buf, "how=after") &&
	      strstr(buf, "inflight=1"), "last_cut: a cut_after cut with one write caught in flight (%s)", buf);
	check(!pcblk_set("restore", "1") && pcblk_powered(), "restore after cut_after");
	free(w);
}

static void dev_reject(void)
{
	long long umin = atw_disk_queue_attr(opt.dev, "atomic_write_unit_min_bytes");
	long long umax = atw_disk_queue_attr(opt.dev, "atomic_write_unit_max_bytes");
	long long r0, m0, p0;
	char cmd[64];
	int ret;

	r0 = pcblk_stat("rejected_atomic");
	m0 = pcblk_stat("rej_misaligned");
	p0 = pcblk_stat("rej_not_pow2");
	ret = pcblk_set("inject_atomic", "0 %lld", umin);
	check(!ret, "a valid in-kernel REQ_ATOMIC bio of %lld bytes completes (%s)", umin,
	      strerror(-ret));
	ret = pcblk_set("inject_atomic", "%lld %lld", umin, 2 * umin);
	check(ret == -EINVAL && pcblk_stat("rej_misaligned") == m0 + 1,
	      "a misaligned REQ_ATOMIC bio reaches the driver and fails with EINVAL (%s)",
	      strerror(-ret));
	if (umax >= 4 * umin) {
		ret = pcblk_set("inject_atomic", "0 %lld", 3 * umin);
		check(ret == -EINVAL && pcblk_stat("rej_not_pow2") == p0 + 1,
		      "a non-power-of-two REQ_ATOMIC bio fails with EINVAL in the driver (%s)",
		      strerror(-ret));
	} else {
		skip("unit max < 4 x unit min", "non-power-of-two REQ_ATOMIC bio");
	}
	check(pcblk_stat("rejected_atomic") == r0 + 1 + (umax >= 4 * umin),
	      "the driver counts every rejected atomic write");
	snprintf(cmd, sizeof(cmd), "0 %lld", 2 * umax);
	ret = pcblk_set("inject_atomic", "%s", cmd);
	diag("a REQ_ATOMIC bio above unit max: %s, %s", strerror(-ret),
	     pcblk_stat("rejected_atomic") == r0 + 1 + (umax >= 4 * umin) ?
	     "stopped by the block layer before the driver" : "rejected by the driver");
	check(ret == -EINVAL, "a REQ_ATOMIC bio above unit max fails with EINVAL");
}

static void dev_log(void)
{
	static char buf[1 << 16];
	int fd = open(PCBLK_DIR "/log", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	check(n > 0 && strstr(buf, "ATOMIC") && strstr(buf, "FUA") && strstr(buf, "FLUSH") &&
	      strstr(buf, " durable") && strstr(buf, " rejected") && strstr(buf, " torn"),
	      "the log shows ATOMIC, FUA and FLUSH records, durable, torn and rejected writes");
}

bool run_device(void)
{
	long long v = atw_disk_queue_attr(opt.dev, "logical_block_size");
	char seed[32] = "";

	dev_lbs = v > 0 ? v : 512;
	if (access(PCBLK_DIR "/cut", W_OK))
		tap_bail("%s: no pcblk control directory (%s)", PCBLK_DIR, strerror(errno));
	if (!pcblk_powered())
		pcblk_set("restore", "1");
	dev_fd = open(opt.dev, O_RDWR | O_DIRECT);
	if (dev_fd < 0)
		tap_bail("open %s: %s", opt.dev, strerror(errno));
	pcblk_get("seed", seed, sizeof(seed));
	dev_limits();
	dev_cache_model();
	dev_replay();
	dev_cut_after();
	dev_reject();
	dev_log();
	dev_tunables(50, 50);
	pcblk_set("seed", "%s", seed);
	close(dev_fd);
	return true;
}
