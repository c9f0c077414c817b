// SPDX-License-Identifier: GPL-2.0
/*
 * atomic_page_writes.so: PostgreSQL's relation-page writes as buffered
 * atomic writes, without rebuilding PostgreSQL (LD_PRELOAD).
 *
 * PostgreSQL 15 writes a relation page (md.c through fd.c's FileWrite) with
 * one pwrite() of BLCKSZ = 8192 bytes at a multiple of 8192, and has no
 * option to pass RWF_* flags. This library interposes pwrite, pwrite64,
 * pwritev and pwritev64 in the server's processes ("postgres"; every other
 * program that inherits LD_PRELOAD runs untouched) and sends a write as
 * pwritev2(fd, ..., flags) when all of these hold:
 *   - it is 8192 bytes long at an offset that is a multiple of 8192;
 *   - the fd is a relation file: resolved through /proc/self/fd, its name is
 *     [tN_]N[_fsm|_vm|_init][.N] in base/N/, global/ or a tablespace's
 *     PG_<version>_<catversion>/N/ directory. WAL (pg_wal/), SLRUs
 *     (pg_xact/, ...), temporary files and everything else pass through.
 *
 * The flags are chosen by probing the file system, never by kernel name,
 * once per server (in the postmaster, before its first fork; a process
 * that writes before any fork probes at its first candidate write):
 * statx(STATX_WRITE_ATOMIC_BUF) on a scratch file must advertise a
 * buffered atomic unit range covering 8192, then a trial 8192-byte write to
 * that file with RWF_ATOMIC alone; accepted: mode "atomic" (the PG_atomic,
 * writeback-time design). Refused, but accepted with
 * RWF_ATOMIC|RWF_WRITETHROUGH: mode "atomic-wt". Otherwise mode "off". The
 * scratch file is $ATW_PG_PROBE_DIR/atw_probe.PID (default: the working
 * directory, which is the data directory in the server), unlinked at once.
 *
 * Environment:
 *   ATW_PG_MODE=auto|off|atomic|atomic-wt   auto (default) uses the probe's
 *       answer; off converts nothing (it still counts relation writes);
 *       atomic or atomic-wt use those flags whatever the probe said (the
 *       probe is still recorded), so a refusal can be provoked.
 *   ATW_PG_STATS=DIR    per-process counters go to DIR/PID.json, one JSON
 *       line rewritten in place every 64 counted writes, at the first
 *       refusal and at exit (processes that _exit() or are killed lose at
 *       most the last 63). Unset: no files.
 *       The probe's answer goes to DIR/probe (one JSON line: mode, reason,
 *       unit range, trial errnos) as soon as it is made, so that a driver
 *       learns the mode before any page is written (no .json suffix: it
 *       is no process's counters).
 *   ATW_PG_PROBE_DIR=DIR   where the probe's scratch file goes.
 *
 * An atomic write that fails as any write can (EIO: the device failed it or
 * lost power; ENOSPC, EDQUOT, EFBIG, EINTR) is not a refusal: it is counted
 * in "io_errors" with its errno ("first_io_errno") and the error goes back
 * to PostgreSQL as a plain write's would (no second, plain attempt, which
 * could tear the page the atomic write was for).
 *
 * A refused atomic write (pwritev2 failed with any other errno) is NOT silently
 * downgraded: it is counted with the first errno, the process's stats file
 * is rewritten at once with "claim":"void", and the page is then written
 * with a plain pwrite() so that PostgreSQL's own behaviour (and its error
 * reporting, should the plain write fail too) is unchanged. A run whose
 * stats show any refusal makes no atomic claim. Chosen over failing the
 * write because a failed write makes the checkpointer retry forever and
 * ends the run without telling what the kernel said.
 *
 * Safety: PostgreSQL 15's server is single-threaded but its postmaster
 * forks from signal handlers, and a write wrapper must not disturb errno on
 * success. Everything here past the constructor uses only system calls,
 * static buffers, its own number formatting and atomic counters; errno is
 * saved and restored around everything the library adds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/stat.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * The flag values come from the kernel variant's uapi headers (the Makefile
 * takes UAPI=); without them a mode cannot be offered and the probe says so.
 */
#ifdef RWF_ATOMIC
#define HAVE_RWF_ATOMIC 1
#else
#define HAVE_RWF_ATOMIC 0
#define RWF_ATOMIC 0
#endif
#ifdef RWF_WRITETHROUGH
#define HAVE_RWF_WRITETHROUGH 1
#else
#define HAVE_RWF_WRITETHROUGH 0
#define RWF_WRITETHROUGH 0
#endif
#if defined(STATX_WRITE_ATOMIC_BUF) && defined(STATX_ATTR_WRITE_ATOMIC_BUF)
#define HAVE_STATX_BUF 1
#else
#define HAVE_STATX_BUF 0
#endif

#define PAGE 8192
#define FLUSH_EVERY 64

enum mode { MODE_OFF, MODE_ATOMIC, MODE_ATOMIC_WT };
static const char *const mode_name[] = { "off", "atomic", "atomic-wt" };

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);

static pwrite_fn real_pwrite, real_pwrite64;
static pwritev_fn real_pwritev, real_pwritev64;

/* Set once by the constructor. */
static bool active;		/* this is a server process */
static int requested = -1;	/* ATW_PG_MODE, -1: auto */
static const char *stats_dir;
static const char *probe_dir = ".";
static char stats_path[512], probe_path[512];

/* The probe, done once and inherited by fork. */
static volatile int probed;
static enum mode mode = MODE_OFF;
static const char *reason = "not probed";
static uint32_t unit_min, unit_max;
static int err_atomic, err_wt;	/* trial write errnos, 0: accepted, -1: not tried */

/* Per process: reset in a forked child. */
static int my_pid;
static uint64_t converted, refused, passthrough, rel_other, rel_plain, io_errors;
static int first_errno, first_io_errno;
static int stats_fd = -1;
static int flushing;

static char page_buf[PAGE] __attribute__((aligned(4096)));

/* ---- small async-signal-safe helpers ---- */

struct out {
	char buf[768];
	size_t len;
};

static void put_s(struct out *o, const char *s)
{
	while (*s && o->len < sizeof(o->buf) - 1)
		o->buf[o->len++] = *s++;
}

static void put_u(struct out *o, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && o->len < sizeof(o->buf) - 1)
		o->buf[o->len++] = tmp[--n];
}

static void put_i(struct out *o, int64_t v)
{
	if (v < 0) {
		put_s(o, "-");
		put_u(o, (uint64_t)-v);
	} else {
		put_u(o, (uint64_t)v);
	}
}

/* A JSON string of printable ASCII from s (len bytes, NULs become spaces). */
static void put_json(struct out *o, const char *s, size_t len)
{
	size_t i;

	put_s(o, "\"");
	for (i = 0; i < len; i++) {
		char c = s[i] ? s[i] : ' ';

		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			c = '?';
		if (o->len < sizeof(o->buf) - 1)
			o->buf[o->len++] = c;
	}
	/* Trailing spaces from argv padding are noise. */
	while (o->len && o->buf[o->len - 1] == ' ')
		o->len--;
	put_s(o, "\"");
}

static long sys_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	/* The kernel takes the offset as two longs (low, high). */
	return syscall(SYS_pwritev2, fd, iov, cnt, (unsigned long)off,
		       (unsigned long)((uint64_t)off >> 32), flags);
}

static int flags_of(enum mode m)
{
	switch (m) {
	case MODE_ATOMIC:
		return RWF_ATOMIC;
	case MODE_ATOMIC_WT:
		return RWF_ATOMIC | RWF_WRITETHROUGH;
	default:
		return 0;
	}
}

/* ---- the probe ---- */

static int __attribute__((unused)) trial(int fd, int flags)
{
	struct iovec iov = { page_buf, PAGE };
	long ret = sys_pwritev2(fd, &iov, 1, 0, flags);

	if (ret == PAGE)
		return 0;
	return ret < 0 ? errno : EIO;
}

static void probe_file(int fd)
{
#if HAVE_STATX_BUF
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH,
		    STATX_BASIC_STATS | STATX_WRITE_ATOMIC_BUF, &stx) < 0) {
		reason = "statx failed";
		return;
	}
	if (!(stx.stx_mask & STATX_WRITE_ATOMIC_BUF) ||
	    !(stx.stx_attributes & stx.stx_attributes_mask &
	      STATX_ATTR_WRITE_ATOMIC_BUF)) {
		reason = "statx: no buffered atomic writes";
		return;
	}
	unit_min = stx.stx_atomic_write_unit_min;
	unit_max = stx.stx_atomic_write_unit_max;
	if (unit_min > PAGE || unit_max < PAGE) {
		reason = "statx: buffered atomic unit does not cover 8192";
		return;
	}
	if (!HAVE_RWF_ATOMIC) {
		reason = "uapi has no RWF_ATOMIC";
		return;
	}
	err_atomic = trial(fd, RWF_ATOMIC);
	if (!err_atomic) {
		mode = MODE_ATOMIC;
		reason = "RWF_ATOMIC accepted";
		return;
	}
	if (!HAVE_RWF_WRITETHROUGH) {
		reason = "RWF_ATOMIC refused, uapi has no RWF_WRITETHROUGH";
		return;
	}
	err_wt = trial(fd, RWF_ATOMIC | RWF_WRITETHROUGH);
	if (!err_wt) {
		mode = MODE_ATOMIC_WT;
		reason = "RWF_ATOMIC refused, RWF_ATOMIC|RWF_WRITETHROUGH accepted";
		return;
	}
	reason = "both trial writes refused";
#else
	(void)fd;
	reason = "uapi has no STATX_WRITE_ATOMIC_BUF";
#endif
}

/* The probe's answer as JSON fields: "mode", "reason", units, trial errnos. */
static void put_probe_fields(struct out *o)
{
	put_s(o, "\"mode\":\"");
	put_s(o, mode_name[mode]);
	put_s(o, "\",\"reason\":\"");
	put_s(o, reason);
	put_s(o, "\",\"unit_min\":");
	put_u(o, unit_min);
	put_s(o, ",\"unit_max\":");
	put_u(o, unit_max);
	put_s(o, ",\"trial_atomic_errno\":");
	put_i(o, err_atomic);
	put_s(o, ",\"trial_wt_errno\":");
	put_i(o, err_wt);
}

/* The probe's answer, for a driver that must know it before the run. */
static void write_probe(void)
{
	struct out o = { .len = 0 };
	int fd;

	if (!stats_dir)
		return;
	put_s(&o, stats_dir);
	put_s(&o, "/probe");
	o.buf[o.len] = 0;
	fd = open(o.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	o.len = 0;
	put_s(&o, "{");
	put_probe_fields(&o);
	put_s(&o, "}\n");
	if (real_pwrite(fd, o.buf, o.len, 0) != (ssize_t)o.len) {
		/* best effort: the driver then finds no answer */
	}
	close(fd);
}

static void probe(void)
{
	struct out path = { .len = 0 };
	int saved = errno, fd;

	if (probed)
		return;
	probed = 1;
	err_atomic = err_wt = -1;
	put_s(&path, probe_dir);
	put_s(&path, "/atw_probe.");
	put_u(&path, (uint64_t)getpid());
	path.buf[path.len] = 0;
	fd = open(path.buf, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		reason = "cannot create the probe file";
	} else {
		probe_file(fd);
		close(fd);
		unlink(path.buf);
	}
	if (requested >= 0) {
		mode = (enum mode)requested;
		reason = requested == MODE_OFF ? "ATW_PG_MODE=off" : "ATW_PG_MODE requested";
	}
	write_probe();
	errno = saved;
}

/* ---- per-process counters ---- */

static void flush_stats(void)
{
	struct out o = { .len = 0 };
	char cmd[64];
	ssize_t n;
	int saved = errno, fd;

	if (!stats_dir || __atomic_exchange_n(&flushing, 1, __ATOMIC_ACQUIRE))
		return;
	if (stats_fd < 0) {
		put_s(&o, stats_dir);
		put_s(&o, "/");
		put_u(&o, (uint64_t)my_pid);
		put_s(&o, ".json");
		o.buf[o.len] = 0;
		stats_fd = open(o.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		o.len = 0;
	}
	if (stats_fd >= 0) {
		/* The process title: postgres rewrites argv, e.g. "postgres: checkpointer". */
		n = 0;
		fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, cmd, sizeof(cmd));
			close(fd);
		}
		put_s(&o, "{\"pid\":");
		put_u(&o, (uint64_t)my_pid);
		put_s(&o, ",\"proc\":");
		put_json(&o, cmd, n > 0 ? (size_t)n : 0);
		put_s(&o, ",\"flags\":");
		put_u(&o, (uint64_t)flags_of(mode));
		put_s(&o, ",");
		put_probe_fields(&o);
		put_s(&o, ",\"converted\":");
		put_u(&o, __atomic_load_n(&converted, __ATOMIC_RELAXED));
		put_s(&o, ",\"refused\":");
		put_u(&o, __atomic_load_n(&refused, __ATOMIC_RELAXED));
		put_s(&o, ",\"first_errno\":");
		put_i(&o, first_errno);
		put_s(&o, ",\"io_errors\":");
		put_u(&o, __atomic_load_n(&io_errors, __ATOMIC_RELAXED));
		put_s(&o, ",\"first_io_errno\":");
		put_i(&o, first_io_errno);
		put_s(&o, ",\"rel_plain\":");
		put_u(&o, __atomic_load_n(&rel_plain, __ATOMIC_RELAXED));
		put_s(&o, ",\"rel_other\":");
		put_u(&o, __atomic_load_n(&rel_other, __ATOMIC_RELAXED));
		put_s(&o, ",\"passthrough\":");
		put_u(&o, __atomic_load_n(&passthrough, __ATOMIC_RELAXED));
		put_s(&o, ",\"claim\":\"");
		put_s(&o, __atomic_load_n(&refused, __ATOMIC_RELAXED) ? "void" :
		      mode == MODE_OFF ? "none" : "ok");
		put_s(&o, "\"}\n");
		/* One line, rewritten in place: cut what a longer one left. */
		if (real_pwrite(stats_fd, o.buf, o.len, 0) == (ssize_t)o.len &&
		    ftruncate(stats_fd, (off_t)o.len)) {
			/* best effort: nothing to report to */
		}
	}
	__atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
	errno = saved;
}

static void count(uint64_t *c)
{
	uint64_t total;

	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
	total = __atomic_load_n(&converted, __ATOMIC_RELAXED) +
		__atomic_load_n(&refused, __ATOMIC_RELAXED) +
		__atomic_load_n(&rel_plain, __ATOMIC_RELAXED) +
		__atomic_load_n(&rel_other, __ATOMIC_RELAXED);
	if (c != &passthrough && total % FLUSH_EVERY == 0)
		flush_stats();
}

/* ---- which writes ---- */

static bool digits(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* [tN_]N[_fsm|_vm|_init][.N] */
static bool relation_name(const char *s, size_t n)
{
	const char *end = s + n, *p;

	if (n && s[0] == 't') {
		p = memchr(s, '_', n);
		if (!p || !digits(s + 1, (size_t)(p - s - 1)))
			return false;
		s = p + 1;
	}
	for (p = s; p < end && *p >= '0' && *p <= '9'; p++)
		;
	if (p == s)
		return false;
	if (p < end && *p == '_') {
		const char *q = p + 1;
		size_t left;

		while (p < end && *p != '.')
			p++;
		left = (size_t)(p - q);
		if (!((left == 3 && !memcmp(q, "fsm", 3)) ||
		      (left == 2 && !memcmp(q, "vm", 2)) ||
		      (left == 4 && !memcmp(q, "init", 4))))
			return false;
	}
	if (p < end && *p == '.')
		return digits(p + 1, (size_t)(end - p - 1));
	return p == end;
}

/* Component i from the end of path (0: the file name). */
static bool component(const char *path, size_t len, int i, const char **s, size_t *n)
{
	size_t end = len, start;

	for (;;) {
		start = end;
		while (start && path[start - 1] != '/')
			start--;
		if (!i--)
			break;
		if (!start)
			return false;
		end = start - 1;
	}
	*s = path + start;
	*n = end - start;
	return true;
}

bool atw_pg_is_relation_path(const char *path, size_t len);
bool atw_pg_is_relation_path(const char *path, size_t len)
{
	const char *name, *dir, *up;
	size_t nn, nd, nu;

	if (!component(path, len, 0, &name, &nn) || !relation_name(name, nn) ||
	    !component(path, len, 1, &dir, &nd))
		return false;
	if (nd == 6 && !memcmp(dir, "global", 6))
		return true;
	if (!digits(dir, nd) || !component(path, len, 2, &up, &nu))
		return false;
	return (nu == 4 && !memcmp(up, "base", 4)) || (nu > 3 && !memcmp(up, "PG_", 3));
}

static bool is_relation_fd(int fd)
{
	char link[32], path[4096];
	struct out o = { .len = 0 };
	ssize_t n;

	put_s(&o, "/proc/self/fd/");
	put_u(&o, (uint64_t)fd);
	if (o.len >= sizeof(link))
		return false;
	memcpy(link, o.buf, o.len);
	link[o.len] = 0;
	n = readlink(link, path, sizeof(path));
	return n > 0 && n < (ssize_t)sizeof(path) && atw_pg_is_relation_path(path, (size_t)n);
}

/*
 * Returns true and sets *ret when the write was handled here (converted, or
 * refused and then written plain); false: the caller does the plain write.
 */
static bool atomic_write(int fd, const struct iovec *iov, int cnt, size_t len,
			 off_t off, ssize_t *ret)
{
	int saved = errno, flags;
	long r;

	if (!is_relation_fd(fd)) {
		count(&passthrough);
		errno = saved;
		return false;
	}
	if (len != PAGE || off % PAGE) {
		count(&rel_other);
		errno = saved;
		return false;
	}
	if (!probed)
		probe();
	flags = flags_of(mode);
	if (mode == MODE_OFF) {
		count(&rel_plain);
		errno = saved;
		return false;
	}
	/* A mode this build's uapi cannot name is refused like the kernel would. */
	if ((mode == MODE_ATOMIC && !HAVE_RWF_ATOMIC) ||
	    (mode == MODE_ATOMIC_WT && !(HAVE_RWF_ATOMIC && HAVE_RWF_WRITETHROUGH))) {
		r = -1;
		errno = EOPNOTSUPP;
	} else {
		r = sys_pwritev2(fd, iov, cnt, off, flags);
	}
	if (r >= 0) {
		count(&converted);
		errno = saved;
		*ret = r;
		return true;
	}
	if (errno == EIO || errno == ENOSPC || errno == EDQUOT || errno == EFBIG ||
	    errno == EINTR) {
		int err = errno;

		if (!__atomic_fetch_add(&io_errors, 1, __ATOMIC_RELAXED))
			first_io_errno = err;
		flush_stats();
		*ret = -1;
		errno = err;	/* PostgreSQL sees the write's own error */
		return true;
	}
	if (!__atomic_fetch_add(&refused, 1, __ATOMIC_RELAXED))
		first_errno = errno;
	flush_stats();
	errno = saved;
	return false;	/* written plain by the caller: the claim is void */
}

/* ---- the interposed calls ---- */

static ssize_t page_pwrite(pwrite_fn real, int fd, const void *buf, size_t len, off_t off)
{
	struct iovec iov = { (void *)buf, len };
	ssize_t ret;

	if (active && atomic_write(fd, &iov, 1, len, off, &ret))
		return ret;
	return real(fd, buf, len, off);
}

static ssize_t page_pwritev(pwritev_fn real, int fd, const struct iovec *iov, int cnt, off_t off)
{
	size_t len = 0;
	ssize_t ret;
	int i;

	if (active && cnt > 0) {
		for (i = 0; i < cnt; i++)
			len += iov[i].iov_len;
		if (atomic_write(fd, iov, cnt, len, off, &ret))
			return ret;
	}
	return real(fd, iov, cnt, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return page_pwrite(real_pwrite, fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return page_pwrite(real_pwrite64, fd, buf, len, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return page_pwritev(real_pwritev, fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return page_pwritev(real_pwritev64, fd, iov, cnt, off);
}

/* ---- process life ---- */

static void before_fork(void)
{
	/* The postmaster probes in its data directory before its first child. */
	if (active && !probed)
		probe();
}

static void in_child(void)
{
	my_pid = getpid();
	converted = refused = passthrough = rel_other = rel_plain = io_errors = 0;
	first_errno = first_io_errno = 0;
	if (stats_fd >= 0)
		close(stats_fd);
	stats_fd = -1;
	flushing = 0;
}

static void at_exit(void)
{
	if (converted || refused || rel_plain || rel_other || io_errors)
		flush_stats();
}

static void __attribute__((constructor)) init(void)
{
	const char *m = getenv("ATW_PG_MODE"), *d;

	real_pwrite = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite");
	real_pwrite64 = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite64");
	real_pwritev = (pwritev_fn)dlsym(RTLD_NEXT, "pwritev");
	real_pwritev64 = (pwritev_fn)dlsym(RTLD_NEXT, "pwritev64");
	if (!real_pwrite || !real_pwrite64 || !real_pwritev || !real_pwritev64) {
		fprintf(stderr, "atomic_page_writes: dlsym failed; library inactive\n");
		abort();
	}
	if (strcmp(program_invocation_short_name, "postgres") &&
	    strcmp(program_invocation_short_name, "postmaster"))
		return;
	if (m && *m && strcmp(m, "auto")) {
		if (!strcmp(m, "off"))
			requested = MODE_OFF;
		else if (!strcmp(m, "atomic"))
			requested = MODE_ATOMIC;
		else if (!strcmp(m, "atomic-wt"))
			requested = MODE_ATOMIC_WT;
		else {
			fprintf(stderr, "atomic_page_writes: ATW_PG_MODE=%s: want auto, off, atomic or atomic-wt\n", m);
			abort();
		}
	}
	/*
	 * Copies: the postmaster moves environ and overwrites the original
	 * strings with its process title.
	 */
	d = getenv("ATW_PG_STATS");
	if (d && *d && strlen(d) < sizeof(stats_path) - 32) {
		strcpy(stats_path, d);
		stats_dir = stats_path;
	}
	d = getenv("ATW_PG_PROBE_DIR");
	if (d && *d && strlen(d) < sizeof(probe_path) - 32) {
		strcpy(probe_path, d);
		probe_dir = probe_path;
	}
	my_pid = getpid();
	pthread_atfork(before_fork, NULL, in_child);
	atexit(at_exit);
	active = true;
}
