// SPDX-License-Identifier: GPL-2.0
/* wt_common.c: the write-through tests' helpers (wt_common.h). */
#include "wt_common.h"

#include <sys/resource.h>
#include <time.h>

int wt_map(int fd, off_t off, uint64_t *phys, uint64_t *avail)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[1];
	} req;
	struct fiemap_extent *x = &req.fm.fm_extents[0];

	memset(&req, 0, sizeof(req));
	req.fm.fm_start = off;
	req.fm.fm_length = 1;
	req.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &req.fm) < 0)
		return WT_MAP_ERROR;
	if (req.fm.fm_mapped_extents != 1 || x->fe_logical > (uint64_t)off ||
	    x->fe_logical + x->fe_length <= (uint64_t)off)
		return WT_MAP_HOLE;
	if (x->fe_flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN))
		return WT_MAP_DELALLOC;
	*phys = x->fe_physical + (off - x->fe_logical);
	*avail = x->fe_logical + x->fe_length - off;
	if (x->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
		return WT_MAP_UNWRITTEN;
	return 0;
}

ssize_t wt_dev_pread(void *buf, size_t len, uint64_t phys)
{
	int fd = open(atw_env()->disk, O_RDONLY | O_DIRECT);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = pread(fd, buf, len, phys);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

ssize_t wt_dev_pwrite(const void *buf, size_t len, uint64_t phys)
{
	int fd = open(atw_env()->disk, O_WRONLY | O_DIRECT);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = pwrite(fd, buf, len, phys);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int wt_dev_read_range(int fd, void *out, off_t off, size_t len)
{
	unsigned int lbs = atw_env()->lbs;
	unsigned char *bounce;
	size_t done = 0;
	int flags = 0;

	bounce = atw_alloc(len);
	while (done < len) {
		uint64_t phys = 0, avail = 0;
		int m = wt_map(fd, off + done, &phys, &avail);
		size_t n = len - done;

		if (m == WT_MAP_HOLE || m == WT_MAP_DELALLOC || m == WT_MAP_ERROR) {
			flags |= m;
			n = lbs;
			memset((char *)out + done, 0, n);
			done += n;
			continue;
		}
		flags |= m;
		if (n > avail)
			n = avail;
		if (m == WT_MAP_UNWRITTEN) {
			memset((char *)out + done, 0, n);
		} else if (wt_dev_pread(bounce, n, phys) != (ssize_t)n) {
			flags |= WT_MAP_ERROR;
			memset((char *)out + done, 0, n);
		} else {
			memcpy((char *)out + done, bounce, n);
		}
		done += n;
	}
	free(bounce);
	return flags;
}

int wt_phys(int fd, off_t off, uint64_t *phys)
{
	uint64_t avail;

	return wt_map(fd, off, phys, &avail);
}

long wt_pattern_bad(const void *buf, size_t len, uint64_t off,
				  uint64_t gen)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != wt_byte(off + i, gen))
			return i;
	return -1;
}

long wt_nonzero(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return i;
	return -1;
}

enum wt_version wt_version_of(const void *buf, size_t len,
					    uint64_t off, uint64_t *gen)
{
	uint64_t s[3];

	if (wt_nonzero(buf, len) < 0)
		return WT_V_ZERO;
	memcpy(s, buf, sizeof(s));
	if (s[2] != WT_STAMP_MAGIC || s[0] != off)
		return WT_V_MIXED;
	*gen = s[1];
	return atw_verify(buf, len, off, s[1]) ? WT_V_ONE : WT_V_MIXED;
}

const char *wt_version_name(enum wt_version v)
{
	return v == WT_V_ZERO ? "zeros" : v == WT_V_ONE ? "one version" : "mixed";
}

int wt_disk_hctl(char *out, size_t len)
{
	const char *name = strrchr(atw_env()->disk, '/');
	char path[256], link[512];
	ssize_t n;

	name = name ? name + 1 : atw_env()->disk;
	snprintf(path, sizeof(path), "/sys/block/%s/device", name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = 0;
	snprintf(out, len, "%s", basename(link));
	return 0;
}

int wt_inject_path(char *path, size_t len)
{
	char hctl[64];
	int ret = wt_disk_hctl(hctl, sizeof(hctl));

	if (ret)
		return ret;
	snprintf(path, len, "/sys/kernel/debug/scsi_debug/%s/error", hctl);
	return access(path, W_OK) ? -errno : 0;
}

int wt_inject(uint8_t opcode, int times)
{
	char path[256], cmd[128];
	int ret = wt_inject_path(path, sizeof(path));

	if (ret)
		return ret;
	snprintf(cmd, sizeof(cmd), "2 %d 0x%x 0x0 0x0 0x2 0x3 0xc 0x0", -times, opcode);
	return kf_write(path, cmd, 0);
}

int wt_inject_once(uint8_t opcode)
{
	char path[256], cmd[128];
	int ret = wt_inject_path(path, sizeof(path));

	if (ret)
		return ret;
	snprintf(cmd, sizeof(cmd), "2 -1 0x%x 0x0 0x0 0x2 0x3 0x11 0x0", opcode);
	return kf_write(path, cmd, 0);
}

void wt_inject_clear(uint8_t opcode)
{
	char path[256], cmd[64];

	if (wt_inject_path(path, sizeof(path)))
		return;
	snprintf(cmd, sizeof(cmd), "- 2 0x%x", opcode);
	kf_write(path, cmd, 0);	/* -EINVAL when already used up */
}

int wt_inject_arm(struct wt_injected *inj)
{
	int ret;

	sync();
	inj->traced = wt_tr_start() == 0;
	ret = inj->once ? wt_inject_once(inj->opcode) : wt_inject(inj->opcode, WT_INJECT_TIMES);
	if (ret && inj->traced)
		wt_tr_stop(atw_env()->lbs);
	inj->tries += !ret;
	return ret;
}

int wt_inject_done(struct wt_injected *inj, uint64_t phys, uint64_t len)
{
	int i;

	wt_inject_clear(inj->opcode);
	inj->mine = inj->others = 0;
	if (!inj->traced || wt_tr_stop(atw_env()->lbs)) {
		inj->traced = 0;
		return 1;
	}
	for (i = 0; i < wt_tr()->n; i++) {
		const struct wt_ev *x = &wt_tr()->ev[i];

		if (x->kind != WT_EV_DONE || !x->failed || !x->cdblen || x->cdb[0] != inj->opcode)
			continue;
		if (inj->bytes ? x->bytes == inj->bytes && !x->fua :
				 x->off < phys + len && x->off + x->bytes > phys) {
			inj->mine++;
		} else if (!inj->others++) {
			inj->other_off = x->off;
		}
	}
	if (inj->others && inj->mine < (inj->once ? 1 : WT_INJECT_TIMES)) {
		diag("injected error, attempt %d: %d failures hit the call's range, %d hit other 0x%x commands (first at device byte %llu)",
		     inj->tries, inj->mine, inj->others, inj->opcode,
		     (unsigned long long)inj->other_off);
		return inj->tries >= WT_INJECT_TRIES;
	}
	return 1;
}

bool wt_thread_in(pid_t tid, const char *fn)
{
	char path[64], stack[4096], needle[96];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", (int)tid);
	f = open(path, O_RDONLY);
	if (f < 0)
		return false;
	n = read(f, stack, sizeof(stack) - 1);
	close(f);
	stack[n > 0 ? n : 0] = 0;
	snprintf(needle, sizeof(needle), " %s", fn);
	return strstr(stack, needle) != NULL;
}

long wt_thread_nvcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		tap_bail("getrusage: %s", strerror(errno));
	return ru.ru_nvcsw;
}

long long wt_sdebug_param(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), "/sys/module/scsi_debug/parameters/%s", name);
	if (kf_read(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

int wt_sdebug_set_delay(const char *attr, long long v)
{
	char num[32], path[128];
	int i, ret = -EBUSY;

	snprintf(num, sizeof(num), "%lld", v);
	snprintf(path, sizeof(path), "/sys/bus/pseudo/drivers/scsi_debug/%s", attr);
	for (i = 0; i < 50 && ret == -EBUSY; i++) {
		sync();
		ret = kf_write(path, num, 0);
		if (ret == -EBUSY)
			usleep(10000);
	}
	return ret;
}

long wt_inflight_writes(void)
{
	const char *disk = strrchr(atw_env()->disk, '/');
	char path[128], buf[64];
	long reads, writes;

	snprintf(path, sizeof(path), "/sys/block/%s/inflight",
		 disk ? disk + 1 : atw_env()->disk);
	if (kf_read(path, buf, sizeof(buf)) || sscanf(buf, "%ld %ld", &reads, &writes) != 2)
		return -1;
	return writes;
}

long long wt_sdebug_slow(long long ns, long long *saved_jdelay)
{
	long long ndelay = wt_sdebug_param("ndelay");
	int ret;

	*saved_jdelay = wt_sdebug_param("delay");
	ret = wt_sdebug_set_delay("ndelay", ns);
	if (ret)
		return ret;
	return ndelay < 0 ? 0 : ndelay;
}

int wt_sdebug_restore_delay(long long ndelay, long long jdelay)
{
	/* writing ndelay 0 would set scsi_debug's default jiffy delay */
	if (ndelay > 0)
		return wt_sdebug_set_delay("ndelay", ndelay);
	return wt_sdebug_set_delay("delay", jdelay < 0 ? 0 : jdelay);
}

int wt_umount(void)
{
	sync();
	if (chdir("/"))
		return -errno;
	if (umount(atw_env()->dir))
		return -errno;
	return 0;
}

int wt_mount(void)
{
	if (mount(atw_env()->disk, atw_env()->dir, "xfs", 0, NULL))
		return -errno;
	return 0;
}

int wt_aligned_file(const char *name, int flags, off_t off, size_t len, bool *aligned)
{
	static unsigned int nsteer;
	const char *dir = atw_env()->dir;
	struct atw_extent x[64];
	int tries, n, fd;

	*aligned = false;
	for (tries = 0; tries < 32; tries++) {
		char from[512], to[512];
		uint64_t miss = 0;

		atw_env_unlink(name);
		fd = atw_env_open(name, flags | O_TRUNC);
		if (fallocate(fd, 0, off, len))
			tap_bail("fallocate %zu: %s", len, strerror(errno));
		n = atw_file_extents(fd, off, len, x, 64);
		if (n == 1 && x[0].length == len && x[0].physical % len == 0) {
			*aligned = true;
			return fd;
		}
		if (n >= 1)
			miss = (len - (x[n - 1].physical + x[n - 1].length) % len) % len;
		if (miss && fallocate(fd, 0, off + len, miss))
			tap_bail("fallocate %llu: %s", (unsigned long long)miss, strerror(errno));
		fsync(fd);
		close(fd);
		snprintf(from, sizeof(from), "%s/%s", dir, name);
		snprintf(to, sizeof(to), "%s/%s_steer%u", dir, name, nsteer++);
		if (rename(from, to))
			tap_bail("rename %s: %s", from, strerror(errno));
	}
	diag("%s: no extent of %zu aligned to it in %d attempts", name, len, tries);
	atw_env_unlink(name);
	fd = atw_env_open(name, flags | O_TRUNC);
	if (fallocate(fd, 0, off, len))
		tap_bail("fallocate %zu: %s", len, strerror(errno));
	return fd;
}

void wt_remount(void)
{
	int ret = wt_umount();

	if (ret)
		tap_bail("umount %s: %s", atw_env()->dir, strerror(-ret));
	ret = wt_mount();
	if (ret)
		tap_bail("mount %s on %s: %s", atw_env()->disk, atw_env()->dir,
			 strerror(-ret));
}

void wt_drop_caches(void)
{
	sync();
	kf_write("/proc/sys/vm/drop_caches", "3", 0);
}

int wt_spawn(char *const argv[])
{
	extern char **environ;
	posix_spawn_file_actions_t fa;
	char line[256];
	int status, ret;
	pid_t pid;
	FILE *f;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/tmp/wt_spawn.log",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return -1;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		ret = -1;
	else
		ret = WEXITSTATUS(status);
	if (ret) {
		f = fopen("/tmp/wt_spawn.log", "r");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			diag("%s: %s", argv[0], line);
		}
		if (f)
			fclose(f);
	}
	return ret;
}

pid_t wt_fork_quiet(int pfd[2])
{
	pid_t pid = fork();

	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!pid) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(nul, 1);
		dup2(nul, 2);
		close(pfd[0]);
	} else {
		close(pfd[1]);
	}
	return pid;
}

void wt_diag_stacks(pid_t pid)
{
	char path[300], line[256];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", (int)pid, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		diag("thread %s of %d waits in:", de->d_name, (int)pid);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			diag("  %s", line);
		}
		fclose(f);
	}
	if (d)
		closedir(d);
}

void wt_check_repair(const char *what)
{
	char *argv[] = { "xfs_repair", "-n", (char *)atw_env()->disk, NULL };
	int ret = wt_umount();

	if (ret)
		tap_bail("umount %s: %s", atw_env()->dir, strerror(-ret));
	ret = wt_spawn(argv);
	check(ret == 0, "%s: xfs_repair -n is clean (status %d)", what, ret);
	ret = wt_mount();
	if (ret)
		tap_bail("mount %s after xfs_repair: %s", atw_env()->disk, strerror(-ret));
}

int wt_trace_start(void)
{
	return devcount_start();
}

unsigned int wt_writes_in(const struct devcount *dc, uint64_t phys,
					uint64_t len)
{
	return devcount_writes_in(dc, phys, len);
}

unsigned int wt_atomics_exact(const struct devcount *dc, uint64_t phys,
					    uint64_t len)
{
	unsigned int i, n = 0;

	for (i = 0; i < dc->ncmd; i++)
		if (dc->cmd[i].kind == DEVCMD_ATOMIC && dc->cmd[i].offset == phys &&
		    dc->cmd[i].bytes == len)
			n++;
	return n;
}

unsigned int wt_atomics_containing(const struct devcount *dc, uint64_t phys,
						 uint64_t len)
{
	unsigned int i, n = 0;

	for (i = 0; i < dc->ncmd; i++)
		if (dc->cmd[i].kind == DEVCMD_ATOMIC && dc->cmd[i].offset <= phys &&
		    dc->cmd[i].offset + dc->cmd[i].bytes >= phys + len)
			n++;
	return n;
}

uint64_t wt_bytes_covered(const struct devcount *dc, uint64_t phys,
					uint64_t len)
{
	unsigned char *hit = calloc(1, len / 512 + 1);
	uint64_t covered = 0, s;
	unsigned int i;

	if (!hit)
		return 0;
	for (i = 0; i < dc->ncmd; i++) {
		const struct devcmd *c = &dc->cmd[i];

		if (c->kind != DEVCMD_WRITE && c->kind != DEVCMD_ATOMIC)
			continue;
		for (s = c->offset; s < c->offset + c->bytes; s += 512)
			if (s >= phys && s < phys + len)
				hit[(s - phys) / 512] = 1;
	}
	for (s = 0; s < len / 512; s++)
		covered += hit[s] ? 512 : 0;
	free(hit);
	return covered;
}

uint8_t wt_first_write_opcode(const struct devcount *dc)
{
	unsigned int i;

	for (i = 0; i < dc->ncmd; i++)
		if (dc->cmd[i].kind == DEVCMD_WRITE)
			return dc->cmd[i].opcode;
	return 0;
}

uint64_t wt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

unsigned int wt_rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245 + 12345;
	return (*seed >> 8) % n;
}

int wt_join_by(pthread_t t, time_t deadline)
{
	struct timespec ts = { deadline, 0 };

	return pthread_timedjoin_np(t, NULL, &ts);
}

time_t wt_deadline(unsigned int secs)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec + secs;
}

#ifdef RWF_WRITETHROUGH
uint8_t wt_find_write_opcode(void)
{
	const struct atw_env *e = atw_env();
	unsigned char *buf = atw_alloc(e->bs);
	int fd = atw_env_open("wt_write_opcode_probe", O_TRUNC), err;
	uint8_t op = 0x8a;
	struct devcount dc;

	wt_pattern(buf, e->bs, 0, 9);
	err = devcount_start();
	if (atw_pwrite(fd, buf, e->bs, 0, RWF_WRITETHROUGH) != (ssize_t)e->bs)
		tap_bail("write-through of the opcode probe failed");
	if (!err && !devcount_stop(&dc, e->lbs) && wt_first_write_opcode(&dc))
		op = wt_first_write_opcode(&dc);
	diag("plain writes go to the disk as opcode 0x%x", op);
	close(fd);
	atw_env_unlink("wt_write_opcode_probe");
	free(buf);
	return op;
}
#endif

unsigned int wt_kmsg_scan(int fd, const char *const *needles, const char *what,
			  unsigned int max_diag)
{
	char rec[1024];
	unsigned int bad = 0;
	const char *const *w;
	ssize_t n;

	if (fd < 0)
		return 0;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
		if (n <= 0)
			break;
		rec[n] = 0;
		for (w = needles; *w && !strstr(rec, *w); w++)
			;
		if (*w) {
			char *msg = strchr(rec, ';');

			msg = msg ? msg + 1 : rec;
			msg[strcspn(msg, "\n")] = 0;
			if (bad++ < max_diag)
				diag("%s: kernel log: %s", what, msg);
		}
	}
	return bad;
}
