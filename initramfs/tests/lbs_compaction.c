// SPDX-License-Identifier: GPL-2.0
/*
 * Large folio splits on a file system whose blocks are larger than a page
 * (XFS with 16 KiB blocks on 4 KiB pages), where the page cache must keep
 * every folio at or above the mapping's minimum order. Whoever asks to split
 * such a folio must ask for no less than that order; asking for order 0
 * makes 6.12 refuse with VM_WARN_ONCE "Cannot split mapped folio below
 * min-order", seen from kcompactd under fsstress.
 *
 * Page cache of NFILES files on DIR, written with large and with one-block
 * writes (folios of many orders, the smallest the minimum order), half of
 * them mapped shared and touched, and of NSPARSE sparse files read through
 * (large folios of zeros all over memory, no disk space), half of them
 * mapped; then three phases, each checked against the kernel log
 * (/dev/kmsg, from the start of the test):
 *  - compaction: shmem pages filling the free memory, every other one
 *    punched out again, leave only single free pages, so that migrating a
 *    large folio finds no destination and migration falls back to splitting
 *    it; then rounds of /proc/sys/vm/compact_memory (kcompactd made
 *    proactive), the sparse files read again after each;
 *  - madvise(MADV_COLD) of one page inside each mapped large folio, which
 *    splits a folio it covers in part (skipped without madvise());
 *  - debugfs split_huge_pages "1", which splits every large folio;
 * no phase may log "Cannot split" or any WARNING, and every file reads back
 * what was written, through read() and through its mapping. The mTHP split
 * counters moved by each phase are printed ("observed:"): they show that
 * the phase did reach the split code (a split that is refused because the
 * folio is already at the order asked for is not counted). VM_WARN_ONCE
 * reports only the first offender of a boot, so a later phase can only fail
 * if the earlier ones passed.
 *
 * Skipped when the file system block size is not larger than the page size
 * (no minimum folio order); a phase is skipped when its kernel interface is
 * missing.
 *
 * usage: lbs_compaction DIR
 */
#include "lib/wt_common.h"

#include <limits.h>
#include <linux/falloc.h>
#include <sys/mman.h>

#define NFILES 32
#define FILE_BYTES (4u << 20)
#define BIG_WRITE (1u << 20)
#define NSPARSE 8
#define SPARSE_BYTES (64u << 20)
#define COMPACT_ROUNDS 4

static unsigned int bs, ps;
static int kmsg = -1;
static char *map[NFILES];
static char *smap[NSPARSE];

static uint64_t file_gen(unsigned int i)
{
	return 0x1b5000 + i;
}

static void file_name(char *buf, size_t len, unsigned int i)
{
	snprintf(buf, len, "lbs_%02u", i);
}

/* Kernel log lines since the last call that name the split refusal or a WARN. */
static unsigned int kmsg_scan(const char *phase)
{
	static const char *const split[] = { "Cannot split", "WARNING:", "cut here", NULL };

	return wt_kmsg_scan(kmsg, split, phase, UINT_MAX);
}

/* Sum over the mTHP sizes of /sys/kernel/mm/transparent_hugepage/hugepages-*kB/stats/NAME. */
static long long mthp_stat(const char *name)
{
	char path[160], buf[64];
	long long sum = 0;
	unsigned int kb;

	for (kb = 8; kb <= 2048; kb *= 2) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/transparent_hugepage/hugepages-%ukB/stats/%s", kb, name);
		if (!kf_read(path, buf, sizeof(buf)))
			sum += strtoll(buf, NULL, 0);
	}
	return sum;
}

struct counters {
	long long split, failed;
};

static void counters(struct counters *c)
{
	c->split = mthp_stat("split");
	c->failed = mthp_stat("split_failed");
}

static void phase_end(const char *phase, const struct counters *before,
		      unsigned int bad)
{
	struct counters now;

	bad += kmsg_scan(phase);

	counters(&now);
	diag("observed: %s: mTHP splits +%lld, failed splits +%lld", phase,
	     now.split - before->split, now.failed - before->failed);
	check(bad == 0, "%s: no \"Cannot split\" or WARNING in the kernel log (%u lines)", phase,
	      bad);
}

static void make_files(void)
{
	void *buf = atw_alloc(FILE_BYTES);
	unsigned int i;
	size_t chunk;
	off_t off;
	char name[32];
	int fd;

	for (i = 0; i < NFILES; i++) {
		file_name(name, sizeof(name), i);
		fd = atw_env_open(name, O_TRUNC);
		wt_pattern(buf, FILE_BYTES, 0, file_gen(i));
		/* even files: large writes (large folios); odd: one block each */
		chunk = i % 2 ? bs : BIG_WRITE;
		for (off = 0; off < FILE_BYTES; off += chunk)
			if (pwrite(fd, (char *)buf + off, chunk, off) != (ssize_t)chunk)
				tap_bail("writing %s: %s", name, strerror(errno));
		if (fsync(fd))
			tap_bail("fsync %s: %s", name, strerror(errno));
		if (i % 4 < 2) {
			map[i] = mmap(NULL, FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (map[i] == MAP_FAILED)
				tap_bail("mmap %s: %s", name, strerror(errno));
		}
		close(fd);
	}
	free(buf);
}

/* Reads all of the sparse files through the page cache. */
static void read_sparse(void)
{
	size_t chunk = 1u << 20;
	void *buf = atw_alloc(chunk);
	unsigned int i;
	char name[32];
	off_t off;
	int fd;

	for (i = 0; i < NSPARSE; i++) {
		snprintf(name, sizeof(name), "lbs_sparse_%u", i);
		fd = atw_env_open(name, 0);
		for (off = 0; off < SPARSE_BYTES; off += chunk)
			if (pread(fd, buf, chunk, off) != (ssize_t)chunk)
				tap_bail("reading %s: %s", name, strerror(errno));
		close(fd);
	}
	free(buf);
}

/*
 * Sparse files read through the page cache: folios of zeros, no disk space,
 * so that large folios of the mapping are everywhere in memory; the even
 * ones stay mapped.
 */
static void make_sparse(void)
{
	unsigned int i;
	char name[32];
	int fd;

	for (i = 0; i < NSPARSE; i++) {
		snprintf(name, sizeof(name), "lbs_sparse_%u", i);
		fd = atw_env_open(name, O_TRUNC);
		if (ftruncate(fd, SPARSE_BYTES))
			tap_bail("ftruncate %s: %s", name, strerror(errno));
		if (i % 2 == 0) {
			smap[i] = mmap(NULL, SPARSE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
			if (smap[i] == MAP_FAILED)
				tap_bail("mmap %s: %s", name, strerror(errno));
		}
		close(fd);
	}
	read_sparse();
}

/* Touches every page of the mapped files: reads them, and stores the same byte back. */
static void touch_maps(void)
{
	unsigned int i;
	size_t off;
	char sum = 0;

	for (i = 0; i < NSPARSE; i++)
		if (smap[i])
			for (off = 0; off < SPARSE_BYTES; off += ps)
				sum |= ((volatile char *)smap[i])[off];
	if (sum)
		diag("a sparse file reads non-zero through its mapping");

	for (i = 0; i < NFILES; i++) {
		if (!map[i])
			continue;
		for (off = 0; off < FILE_BYTES; off += ps) {
			volatile char *p = map[i] + off;

			*p = *p;
		}
	}
}

static void verify_files(const char *when)
{
	void *buf = atw_alloc(FILE_BYTES);
	unsigned int i, bad_read = 0, bad_map = 0;
	char name[32];
	int fd;

	for (i = 0; i < NFILES; i++) {
		file_name(name, sizeof(name), i);
		fd = atw_env_open(name, 0);
		if (pread(fd, buf, FILE_BYTES, 0) != FILE_BYTES ||
		    wt_pattern_bad(buf, FILE_BYTES, 0, file_gen(i)) >= 0)
			bad_read++;
		close(fd);
		if (map[i] && wt_pattern_bad(map[i], FILE_BYTES, 0, file_gen(i)) >= 0)
			bad_map++;
	}
	check(!bad_read && !bad_map,
	      "%s: every file reads back what was written (%u bad by read, %u bad by mapping)",
	      when, bad_read, bad_map);
	free(buf);
}

/*
 * Nearly all free memory filled with shmem pages of a memfd (order 0, no
 * size limit, unreclaimable without swap), then every other page punched
 * out again: what is free afterwards is single pages between used ones, so
 * that a migration target for a large folio cannot be found and migration
 * falls back to splitting it.
 */
static int fragment(size_t *len)
{
	size_t chunk = 1u << 20, off;
	void *buf;
	int fd;

	*len = 0;
	fd = memfd_create("lbs_fragment", 0);
	if (fd < 0)
		return -1;
	buf = atw_alloc(chunk);
	memset(buf, 0x5a, chunk);
	/* keep some headroom so that reclaim does not take all the page cache */
	while (kf_meminfo_kb("MemFree") > 96 * 1024) {
		if (pwrite(fd, buf, chunk, *len) != (ssize_t)chunk)
			break;
		*len += chunk;
	}
	free(buf);
	for (off = 0; off < *len; off += 2 * ps)
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, ps))
			break;
	return fd;
}

static const char *const vmstat_keys[] = {
	"compact_migrate_scanned", "compact_free_scanned", "compact_isolated",
	"pgmigrate_success", "pgmigrate_fail", "thp_split_page", "thp_split_page_failed",
};
#define NVMSTAT (sizeof(vmstat_keys) / sizeof(vmstat_keys[0]))

static void vmstat(long long *v)
{
	char key[64];
	long long val;
	unsigned int i;
	FILE *f = fopen("/proc/vmstat", "r");

	for (i = 0; i < NVMSTAT; i++)
		v[i] = 0;
	if (!f)
		return;
	while (fscanf(f, "%63s %lld", key, &val) == 2)
		for (i = 0; i < NVMSTAT; i++)
			if (!strcmp(key, vmstat_keys[i]))
				v[i] = val;
	fclose(f);
}

static void phase_compaction(void)
{
	const char *proactive = "/proc/sys/vm/compaction_proactiveness";
	const char *phase = "compaction over fragmented memory";
	long long v0[NVMSTAT], v1[NVMSTAT];
	unsigned int i, bad = 0;
	char old[32] = "", line[512];
	struct counters c;
	size_t hog_len, n;
	int r, hog;

	if (access("/proc/sys/vm/compact_memory", W_OK)) {
		skip("no /proc/sys/vm/compact_memory (CONFIG_COMPACTION off)", "compaction");
		return;
	}
	counters(&c);
	hog = fragment(&hog_len);
	diag("compaction: %zu MiB of shmem, every other page punched out (MemFree %lld kB)",
	     hog_len >> 20, kf_meminfo_kb("MemFree"));
	vmstat(v0);
	if (!kf_read(proactive, old, sizeof(old)))
		kf_write(proactive, "100", 0);
	/*
	 * Compaction leaves the bottom of the zone, where its migration
	 * scanner starts, free and contiguous: drop the unmapped page cache
	 * and read the sparse files again so that their large folios land
	 * there, in the way of the next round, while the free pages near the
	 * top, where it looks for migration targets, are still single ones.
	 */
	for (r = 0; r < COMPACT_ROUNDS && !bad; r++) {
		if (kf_write("/proc/sys/vm/compact_memory", "1", 0))
			diag("compaction: writing compact_memory failed");
		usleep(200 * 1000);	/* let kcompactd run too */
		bad = kmsg_scan(phase);
		kf_write("/proc/sys/vm/drop_caches", "1", 0);
		read_sparse();
		touch_maps();
	}
	diag("compaction: %d rounds", r);
	if (old[0])
		kf_write(proactive, old, 0);
	vmstat(v1);
	for (i = 0, n = 0; i < NVMSTAT; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s +%lld", vmstat_keys[i],
			      v1[i] - v0[i]);
	diag("observed: compaction: vmstat%s", line);
	if (hog >= 0)
		close(hog);
	phase_end(phase, &c, bad);
	verify_files("after compaction");
}

static void phase_madvise(void)
{
	struct counters c;
	unsigned int i, calls = 0, fails = 0;
	size_t off;

	counters(&c);
	touch_maps();
	for (i = 0; i < NFILES; i++) {
		if (!map[i])
			continue;
		/* one page inside each block: a folio of a block or more is covered in part */
		for (off = 0; off < FILE_BYTES; off += bs) {
			calls++;
			if (madvise(map[i] + off + ps, ps, MADV_COLD))
				fails++;
		}
	}
	if (calls && fails == calls && errno == ENOSYS) {
		skip("no madvise() (CONFIG_ADVISE_SYSCALLS off)", "MADV_COLD of one page per block");
		return;
	}
	diag("madvise: %u MADV_COLD calls, %u failed", calls, fails);
	phase_end("MADV_COLD of one page per block", &c, 0);
	verify_files("after MADV_COLD");
}

static void phase_debugfs(void)
{
	const char *knob = "/sys/kernel/debug/split_huge_pages";
	struct counters c;

	if (access(knob, W_OK)) {
		skip("no debugfs split_huge_pages", "debugfs split of all large folios");
		return;
	}
	counters(&c);
	touch_maps();
	if (kf_write(knob, "1", 0))
		diag("debugfs: writing %s failed", knob);
	phase_end("debugfs split_huge_pages of every large folio", &c, 0);
	verify_files("after the debugfs split");
}

int main(int argc, char **argv)
{
	struct atw_env *e;
	unsigned int i;
	char name[32];

	tap_start("lbs_compaction");
	e = atw_env_setup(argc, argv, "lbs_compaction DIR");
	bs = e->bs;
	ps = e->ps;
	if (bs <= ps) {
		skip("file system block size not larger than the page size",
		     "lbs_compaction: block %u, page %u", bs, ps);
		return tap_done();
	}
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0)
		tap_bail("/dev/kmsg: %s", strerror(errno));

	make_files();
	make_sparse();
	touch_maps();
	verify_files("after writing");
	phase_compaction();
	phase_madvise();
	phase_debugfs();

	for (i = 0; i < NFILES; i++) {
		if (map[i])
			munmap(map[i], FILE_BYTES);
		file_name(name, sizeof(name), i);
		atw_env_unlink(name);
	}
	for (i = 0; i < NSPARSE; i++) {
		if (smap[i])
			munmap(smap[i], SPARSE_BYTES);
		snprintf(name, sizeof(name), "lbs_sparse_%u", i);
		atw_env_unlink(name);
	}
	close(kmsg);
	return tap_done();
}
