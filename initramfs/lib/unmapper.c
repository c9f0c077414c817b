// SPDX-License-Identifier: GPL-2.0
/* unmapper.c: the thread that unmaps a source page (unmapper.h). */
#include "atomic_io.h"
#include "tap.h"
#include "unmapper.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

void *unmap_thread(void *arg)
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

ssize_t unmapper_write(int fd, size_t len, off_t off, uint64_t gen, int flags,
		       unsigned int spin)
{
	struct unmapper u = { .len = len, .spin = spin };
	pthread_t t;
	ssize_t ret;
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	atw_fill(buf, len, off, gen);
	u.addr = buf;
	pthread_create(&t, NULL, unmap_thread, &u);
	atomic_store(&u.go, 1);
	ret = atw_pwrite(fd, buf, len, off, flags);
	pthread_join(t, NULL);
	return ret;
}
