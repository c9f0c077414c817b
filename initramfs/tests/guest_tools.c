// SPDX-License-Identifier: GPL-2.0
/*
 * The host tools the guest borrows over 9p run unchanged: fio, mkfs.xfs,
 * xfs_io and xfs_repair start, and fio and xfs_io do real I/O on DIR.
 *
 * usage: guest_tools DIR
 */
#include "lib/tap.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Runs argv quietly; returns its exit status, or -1 if it could not run. */
static int run_quiet(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#define RUN(...) run_quiet((char *const[]){ __VA_ARGS__, NULL })

int main(int argc, char **argv)
{
	char file[512], fname[600], cmd[64];

	tap_start("guest_tools");
	if (argc < 2)
		tap_bail("usage: guest_tools DIR");
	snprintf(file, sizeof(file), "%s/guest_tools.dat", argv[1]);
	snprintf(fname, sizeof(fname), "--filename=%s", file);

	check(RUN("fio", "--version") == 0, "fio starts");
	check(RUN("mkfs.xfs", "-V") == 0, "mkfs.xfs starts");
	check(RUN("xfs_repair", "-V") == 0, "xfs_repair starts");
	snprintf(cmd, sizeof(cmd), "pwrite -S 0x5a 0 65536");
	check(RUN("xfs_io", "-f", "-c", cmd, "-c", "fsync", file) == 0,
	      "xfs_io writes and fsyncs a file");
	check(RUN("fio", "--name=guest_tools", fname, "--size=1M", "--bs=16k",
		  "--rw=randwrite", "--ioengine=pvsync2", "--direct=1",
		  "--verify=crc32c", "--output-format=terse") == 0,
	      "fio runs a verified O_DIRECT pvsync2 job");
	unlink(file);
	return tap_done();
}
