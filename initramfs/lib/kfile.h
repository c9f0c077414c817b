/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfile.h: the kernel's small control files (/proc, /sys, tracefs,
 * debugfs), written and read in one call each. Defined in kfile.c.
 */
#ifndef ATW_KFILE_H
#define ATW_KFILE_H

#include <stddef.h>
#include <stdint.h>

/* Writes val to path (opened O_WRONLY | flags, e.g. O_TRUNC); 0 or -errno. */
int kf_write(const char *path, const char *val, int flags);
/* Reads path into buf (len bytes with the NUL), trailing blanks and newlines cut; 0 or -errno. */
int kf_read(const char *path, char *buf, size_t len);
/* The value of one /proc/meminfo line ("MemAvailable"...), in KiB; -1 if absent. */
long long kf_meminfo_kb(const char *key);
/* The u64 entry at index i of an open /proc table (pagemap, kpageflags), or 0. */
uint64_t kf_u64_at(int fd, uint64_t i);

#endif
