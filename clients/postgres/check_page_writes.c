// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side checks of atomic_page_writes.so (make check): which paths are
 * relation files, and, run under the name "postgres" with the library
 * preloaded in a scratch data directory, which writes it converts, counts
 * and passes through, that a refused atomic write still writes the page and
 * voids the claim, and that a forked child counts for itself.
 *
 *   postgres LIBRARY            the checks (TAP-like, closing N passed...)
 *   postgres --writer DIR       (internal) the writes, with LIBRARY preloaded
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;

static void check(bool ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", passed + failed + 1, what);
	if (ok)
		passed++;
	else
		failed++;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static const struct {
	const char *path;
	bool rel;
} paths[] = {
	{ "/d/base/5/16384", true },
	{ "/d/base/5/16384.1", true },
	{ "/d/base/5/16384_fsm", true },
	{ "/d/base/5/16384_vm.2", true },
	{ "/d/base/5/16384_init", true },
	{ "/d/base/5/t3_16390", true },
	{ "/d/global/1262", true },
	{ "/ts/PG_15_202209061/5/16400", true },
	{ "base/1/1259", true },
	{ "/d/pg_wal/000000010000000000000001", false },
	{ "/d/pg_xact/0000", false },
	{ "/d/base/pgsql_tmp/pgsql_tmp123.0", false },
	{ "/d/base/5/pg_filenode.map", false },
	{ "/d/global/pg_control", false },
	{ "/d/base/5/16384_foo", false },
	{ "/d/base/5/16384.", false },
	{ "/d/base/x5/16384", false },
	{ "/d/base/5/16384 (deleted)", false },
	{ "/d/pg_tblspc/16399", false },
	{ "16384", false },
};

static void check_paths(const char *lib)
{
	bool (*is_rel)(const char *, size_t);
	char what[160];
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		exit(2);
	}
	is_rel = (bool (*)(const char *, size_t))dlsym(h, "atw_pg_is_relation_path");
	if (!is_rel)
		die("dlsym atw_pg_is_relation_path");
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(what, sizeof(what), "%s is %sa relation file", paths[i].path,
			 paths[i].rel ? "" : "not ");
		check(is_rel(paths[i].path, strlen(paths[i].path)) == paths[i].rel, what);
	}
}

static void write_at(const char *path, size_t len, off_t off, int gen, bool vec)
{
	char buf[16384];
	struct iovec iov[2] = { { buf, len / 2 }, { buf + len / 2, len - len / 2 } };
	int fd = open(path, O_WRONLY | O_CREAT, 0600);
	ssize_t ret;

	if (fd < 0)
		die(path);
	memset(buf, 'a' + gen, len);
	ret = vec ? pwritev(fd, iov, 2, off) : pwrite(fd, buf, len, off);
	if (ret != (ssize_t)len)
		die("write");
	close(fd);
}

/* In DIR, with the library preloaded: the writes of one server process. */
static int writer(const char *dir)
{
	pid_t pid;
	int st;

	if (chdir(dir))
		die(dir);
	write_at("base/5/16384", 8192, 0, 1, false);		/* converted */
	write_at("base/5/16384", 8192, 8192, 2, true);		/* converted (pwritev) */
	write_at("global/1262", 8192, 8192, 3, false);		/* converted */
	write_at("base/5/16384", 4096, 16384, 4, false);	/* rel_other: short */
	write_at("base/5/16384", 8192, 4096, 5, false);		/* rel_other: unaligned */
	write_at("pg_wal/000000010000000000000001", 8192, 0, 6, false);	/* passthrough */
	write_at("pg_xact/0000", 8192, 0, 7, false);		/* passthrough */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		write_at("base/5/16385", 8192, 0, 8, false);	/* the child's own */
		exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("%d %d\n", (int)getpid(), (int)pid);
	return 0;
}

static long field(const char *json, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(json, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static bool read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = 0;
	return true;
}

static bool page_is(const char *path, off_t off, int gen)
{
	char buf[8192];
	int fd = open(path, O_RDONLY);
	bool ok;
	int i;

	ok = fd >= 0 && pread(fd, buf, sizeof(buf), off) == (ssize_t)sizeof(buf);
	for (i = 0; ok && i < (int)sizeof(buf); i++)
		ok = buf[i] == 'a' + gen;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Runs the writer under MODE; checks its and its child's stats. */
static void run_mode(const char *self, const char *lib, const char *mode)
{
	char dir[] = "/tmp/atw-pgcheck.XXXXXX", cmd[10240], json[1024], what[160];
	char path[256];
	int parent = 0, child = 0;
	long conv, ref, plain, other, pass;
	FILE *p;

	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir -p base/5 global pg_wal pg_xact stats && "
		 "ATW_PG_MODE=%s ATW_PG_STATS=%s/stats LD_PRELOAD=%s %s --writer %s",
		 dir, mode, dir, lib, self, dir);
	p = popen(cmd, "r");
	if (!p || fscanf(p, "%d %d", &parent, &child) != 2)
		die("writer");
	pclose(p);

	snprintf(path, sizeof(path), "%s/stats/%d.json", dir, parent);
	if (!read_file(path, json, sizeof(json)))
		json[0] = 0;
	printf("# %s: %s", mode, json);
	conv = field(json, "converted");
	ref = field(json, "refused");
	plain = field(json, "rel_plain");
	other = field(json, "rel_other");
	pass = field(json, "passthrough");
	snprintf(what, sizeof(what), "%s: 3 relation pages, each converted, refused or plain (%ld+%ld+%ld)",
		 mode, conv, ref, plain);
	check(conv + ref + plain == 3, what);
	if (!strcmp(mode, "off")) {
		check(conv == 0 && ref == 0 && strstr(json, "\"claim\":\"none\""),
		      "off: nothing converted, no claim");
	} else if (!strcmp(mode, "auto")) {
		check(ref == 0, "auto: the probe's mode is never refused");
	} else {
		check(plain == 0, "requested mode: no relation page written plain unasked");
		check(!ref || (field(json, "first_errno") > 0 && strstr(json, "\"claim\":\"void\"")),
		      "requested mode: a refusal records its errno and voids the claim");
	}
	snprintf(what, sizeof(what), "%s: short and unaligned relation writes left alone (%ld)", mode, other);
	check(other == 2, what);
	snprintf(what, sizeof(what), "%s: WAL and SLRU writes pass through (%ld)", mode, pass);
	check(pass >= 2, what);
	snprintf(path, sizeof(path), "%s/global/1262", dir);
	check(page_is(path, 8192, 3),
	      "the page's data is on file whatever the kernel said");

	snprintf(path, sizeof(path), "%s/stats/%d.json", dir, child);
	if (!read_file(path, json, sizeof(json)))
		json[0] = 0;
	conv = field(json, "converted");
	ref = field(json, "refused");
	plain = field(json, "rel_plain");
	snprintf(what, sizeof(what), "%s: the forked child counts its one page itself", mode);
	check(conv + ref + plain == 1 && field(json, "passthrough") == 0, what);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		die("rm");
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "off", "auto", "atomic", "atomic-wt" };
	char self[4096];
	ssize_t n;
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "--writer"))
		return writer(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: postgres LIBRARY\n");
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		die("readlink");
	self[n] = 0;
	/* dlopen runs the constructor here too: keep its probe file out of the way. */
	setenv("ATW_PG_PROBE_DIR", "/tmp", 1);
	check_paths(argv[1]);
	unsetenv("ATW_PG_PROBE_DIR");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		run_mode(self, argv[1], modes[i]);
	printf("%d passed, %d failed, 0 skipped\n", passed, failed);
	return failed != 0;
}
