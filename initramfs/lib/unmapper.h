/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread that munmap()s a buffer while the main thread writes from it:
 * started before the write, it spins until go is set, then for spin loop
 * iterations (varied per round, so the unmap lands at different points of
 * the call), then unmaps [addr, addr + len).
 */
#ifndef ATW_UNMAPPER_H
#define ATW_UNMAPPER_H

#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

struct unmapper {
	void *addr;
	size_t len;
	atomic_int go;
	unsigned int spin;
};

static inline void *unmap_thread(void *arg)
{
	struct unmapper *u = arg;
	volatile unsigned int i;

	while (!atomic_load(&u->go))
		;
	for (i = 0; i < u->spin; i++)
		;
	munmap(u->addr, u->len);
	return NULL;
}

#endif
