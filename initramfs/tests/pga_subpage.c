// SPDX-License-Identifier: GPL-2.0
/*
 * Block size < page size (the PG_atomic series, "iomap: add bs<ps buffered
 * atomic writes support"), on the XFS mounted at DIR, checked at the device.
 * A = dirty atomic block, D = dirty non-atomic block, _ = clean block, for
 * the first four blocks of one page:
 *
 *   A A D D                                  -> WRITE ATOMIC 0, 1; WRITE 2-3
 *   A A D D, non-atomic write to blocks 0-3  -> D D D D: one WRITE 0-3
 *   A A A A, non-atomic write to blocks 1-2  -> A D D A: WRITE ATOMIC 0, 3;
 *                                               WRITE 1-2
 *   A A A A, non-atomic write to part of 1   -> A D A A
 *   A A _ _, mmap store to block 2           -> D D D D: one WRITE 0-3
 *
 * and every time the device ends up with exactly the data written. SKIP
 * unless the filesystem block is smaller than the page and statx advertises
 * one-block buffered atomic writes.
 *
 * usage: pga_subpage DIR
 */
#include "lib/pga_common.h"

#include <sys/mman.h>

#ifdef RWF_ATOMIC

static unsigned int bs, ps;
static int fd;
static off_t page_off;		/* the page of the current case */
static unsigned char *want;	/* what the page should hold */
static uint64_t gen = 100;

/* Starts a case on a fresh page: written, synced and clean. */
static void fresh_page(void)
{
	page_off += 2 * (off_t)ps;
	atw_fill(want, ps, page_off, ++gen);
	pga_write_or_bail(fd, want, ps, page_off, 0);
	if (fdatasync(fd))
		tap_bail("fdatasync: %s", strerror(errno));
}

/* Writes blocks [first, first + n) of the page (or len bytes at byte off). */
static void put(unsigned int off, unsigned int len, int flags)
{
	pga_put(fd, want, page_off, off, len, flags, ++gen);
}

static void blocks(unsigned int first, unsigned int n, int flags)
{
	put(first * bs, n * bs, flags);
}

/* One expected command: kind, first block, number of blocks. */
struct want_cmd {
	enum devcmd_kind kind;
	unsigned int first, n;
};

static void expect(const char *name, const struct want_cmd *cmds, unsigned int ncmds)
{
	uint64_t phys;
	struct devcount dc;
	unsigned int i, found = 0, in_page = 0;

	pga_sync_counted(fd, &dc);
	phys = pga_phys(fd, page_off);
	for (i = 0; i < dc.ncmd; i++) {
		const struct devcmd *c = &dc.cmd[i];
		unsigned int k;

		if (c->kind != DEVCMD_WRITE && c->kind != DEVCMD_ATOMIC)
			continue;
		if (!(c->offset < phys + ps && phys < c->offset + c->bytes))
			continue;
		in_page++;
		for (k = 0; k < ncmds; k++)
			if (c->kind == cmds[k].kind && c->offset == phys + cmds[k].first * bs &&
			    c->bytes == (uint64_t)cmds[k].n * bs)
				found++;
	}
	if (!check(found == ncmds && in_page == ncmds,
		   "%s: the device gets exactly the expected %u commands (%u of them, %u in the page)",
		   name, ncmds, found, in_page))
		devcount_print(&dc);
	check(pga_dev_equals(fd, want, page_off, ps), "%s: the device holds the data written", name);
}

static void a_a_d_d(void)
{
	const struct want_cmd cmds[] = {
		{ DEVCMD_ATOMIC, 0, 1 }, { DEVCMD_ATOMIC, 1, 1 }, { DEVCMD_WRITE, 2, 2 },
	};

	fresh_page();
	blocks(0, 1, RWF_ATOMIC);
	blocks(1, 1, RWF_ATOMIC);
	blocks(2, 2, 0);
	expect("A A D D", cmds, 3);
}

static void a_a_d_d_overwritten(void)
{
	const struct want_cmd cmds[] = { { DEVCMD_WRITE, 0, 4 } };

	fresh_page();
	blocks(0, 1, RWF_ATOMIC);
	blocks(1, 1, RWF_ATOMIC);
	blocks(2, 2, 0);
	blocks(0, 4, 0);
	expect("A A D D + non-atomic write 0-3 -> D D D D", cmds, 1);
}

static void a_a_a_a_middle(void)
{
	const struct want_cmd cmds[] = {
		{ DEVCMD_ATOMIC, 0, 1 }, { DEVCMD_WRITE, 1, 2 }, { DEVCMD_ATOMIC, 3, 1 },
	};
	unsigned int b;

	fresh_page();
	for (b = 0; b < 4; b++)
		blocks(b, 1, RWF_ATOMIC);
	blocks(1, 2, 0);
	expect("A A A A + non-atomic write 1-2 -> A D D A", cmds, 3);
}

static void a_a_a_a_partial(void)
{
	const struct want_cmd cmds[] = {
		{ DEVCMD_ATOMIC, 0, 1 }, { DEVCMD_WRITE, 1, 1 },
		{ DEVCMD_ATOMIC, 2, 1 }, { DEVCMD_ATOMIC, 3, 1 },
	};
	unsigned int b;

	fresh_page();
	for (b = 0; b < 4; b++)
		blocks(b, 1, RWF_ATOMIC);
	put(bs + bs / 4, bs / 2, 0);	/* inside block 1 only */
	expect("A A A A + non-atomic write to part of block 1 -> A D A A", cmds, 4);
}

static void a_a_mmap(void)
{
	const struct want_cmd cmds[] = { { DEVCMD_WRITE, 0, 4 } };
	unsigned char *map;

	fresh_page();
	blocks(0, 1, RWF_ATOMIC);
	blocks(1, 1, RWF_ATOMIC);
	map = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, page_off);
	if (map == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	map[2 * bs + 7] ^= 0x5a;
	want[2 * bs + 7] ^= 0x5a;
	if (munmap(map, ps))
		tap_bail("munmap: %s", strerror(errno));
	expect("A A _ _ + mmap store to block 2 -> D D D D", cmds, 1);
}

static void run(void)
{
	const struct atw_env *e = atw_env();

	if (!pga_supported("pga_subpage"))
		return;
	bs = e->bs;
	ps = e->ps;
	if (bs >= ps || ps / bs < 4) {
		skip("needs at least 4 filesystem blocks per page", "pga_subpage (block %u, page %u)",
		     bs, ps);
		return;
	}
	if (e->lim.buf_min != bs) {
		skip("buffered atomic unit is not one block", "pga_subpage (unit %u, block %u)",
		     e->lim.buf_min, bs);
		return;
	}
	want = atw_alloc(ps);
	fd = atw_env_open("pga_subpage", O_TRUNC);
	page_off = 0;
	a_a_d_d();
	a_a_d_d_overwritten();
	a_a_a_a_middle();
	a_a_a_a_partial();
	a_a_mmap();
	close(fd);
	free(want);
}
#endif

int main(int argc, char **argv)
{
	tap_start("pga_subpage");
	pga_setup(argc, argv);
#ifdef RWF_ATOMIC
	run();
#else
	skip("uapi has no RWF_ATOMIC", "pga_subpage");
#endif
	return tap_done();
}
