/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread that munmap()s a buffer while the main thread writes from it:
 * started before the write, it spins until go is set, then for spin loop
 * iterations (varied per round, so the unmap lands at different points of
 * the call), then unmaps [addr, addr + len); unmapper_write() does one
 * such write.
 * Defined in unmapper.c.
 */
#ifndef ATW_UNMAPPER_H
#define ATW_UNMAPPER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/mman.h>

struct unmapper {
	void *addr;
	size_t len;
	atomic_int go;
	unsigned int spin;
};

void *unmap_thread(void *arg);

/*
 * One write of len bytes at off (atw_pwrite with flags) from a fresh
 * anonymous buffer holding generation gen (atw_fill) that an unmap thread
 * unmaps meanwhile, after spin loop iterations: the write's result.
 */
ssize_t unmapper_write(int fd, size_t len, off_t off, uint64_t gen, int flags,
		       unsigned int spin);

#endif
