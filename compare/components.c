// SPDX-License-Identifier: GPL-2.0
/*
 * components.c: which part of the I/O stack a profile sample's CPU time
 * belongs to, from its kernel stack (components.h). The innermost frame
 * that names a known part decides; a copy routine at the leaf is the copy
 * unless the first known frame above it is the emulated disk's (scsi_debug
 * copying a command's data into its RAM store is the device's work, which
 * hardware does without the CPU). The walk never crosses an interrupt
 * entry: a sample taken in an interrupt or softirq whose own frames name no
 * known part is "interrupts", not whatever the interrupted task was doing.
 * That much is exact. What it cannot move: perf's cpu-clock, an hrtimer,
 * records the registers it interrupted, so time the host stalls a vCPU, or
 * time a CPU spends with interrupts off, lands on the frame the sample
 * interrupted, whose stack has no interrupt entry. Under a contended TCG
 * host that charged scsi_debug's schedule_resp (which submitting tasks
 * run) 8x its own cost in one run; profiles are taken on an idle host, and
 * bench_disk_cost times the disk's calls without sampling.
 */
#include "components.h"

#include <stdbool.h>
#include <string.h>

const char *const component_name[NR_COMPONENTS] = {
	"copy", "series' own code", "filesystem", "page cache & mm",
	"block & SCSI", "emulated disk", "interrupts", "rest of kernel & user",
};

static bool any_prefix(const char *sym, const char *const *list)
{
	for (; *list; list++)
		if (!strncmp(sym, *list, strlen(*list)))
			return true;
	return false;
}

static const char *const copy_syms[] = {
	"copy_page_from_iter", "copy_page_to_iter", "_copy_from_iter",
	"_copy_to_iter", "copy_user_", "rep_movs_alternative", "rep_stos_",
	"__memcpy", "memcpy", "memmove", "__memmove", "copy_from_user",
	"copy_to_user", "_copy_from_user", "_copy_to_user", "copy_mc_",
	/* lib/scatterlist.c: how scsi_debug moves data to and from its store */
	"sg_copy_buffer", "sg_copy_from_buffer", "sg_copy_to_buffer",
	"sg_pcopy_", "sg_zero_buffer", NULL,
};

/* drivers/scsi/scsi_debug.c's functions (the prefixes cover all in 6.12). */
static const char *const disk_syms[] = {
	"resp_", "sdebug_", "sdeb_", "scsi_debug_", "do_device_access",
	"do_dout_fetch", "fill_from_dev_buffer", "p_fill_from_dev_buffer",
	"fetch_to_dev_buffer", "lba2fake_store", "schedule_resp", "map_region",
	"unmap_region", "map_state", "lba_to_map_index", "map_index_to_lba",
	"comp_write_worker", "dif_", "prot_verify_", "mk_sense_",
	"check_zbc_access_params", "devip2sip", "inject_on_this_cmd", NULL,
};

/*
 * Functions the two series add: series-writethrough's iomap_wt_* and
 * *writethrough*, series-pgatomic's ifs_*atomic* and iomap_*atomic*.
 */
static bool series_sym(const char *sym)
{
	if (strstr(sym, "writethrough") || !strncmp(sym, "iomap_wt_", 9))
		return true;
	return (!strncmp(sym, "ifs_", 4) || !strncmp(sym, "iomap_", 6)) &&
	       strstr(sym, "atomic");
}

static const char *const fs_syms[] = {
	"xfs", "xlog", "iomap_", "__iomap_", NULL,
};

static const char *const mm_syms[] = {
	"filemap_", "__filemap_", "folio_", "__folio_", "folios_", "page_",
	"__page_", "mapping_", "lru_", "__lru_", "balance_dirty_pages",
	"pin_user_pages", "unpin_user_page", "gup_", "__gup_", "__get_user_pages",
	"get_user_pages", "follow_page", "try_grab_", "kmem_cache_", "kmalloc",
	"__kmalloc", "kfree", "mempool_", "__alloc_pages", "alloc_pages",
	"get_page_from_freelist", "free_unref_", "release_pages", "__free_pages",
	"invalidate_", "truncate_", "xas_", "xa_", "pagecache_", "workingset_",
	"__mod_lruvec", "mod_lruvec", "__lruvec", "lruvec_", "mem_cgroup_",
	"__mem_cgroup", "count_memcg", "node_dirty_", "wb_", "__wb_",
	"writeback_", "__writeback_", "set_page_dirty", "rmqueue", "clear_page",
	"wait_on_page", "__set_page_dirty",
	/* a page fault (a user copy's source, a mapping's store) */
	"handle_mm_fault", "__handle_mm_fault", "do_user_addr_fault", "exc_page_fault",
	"asm_exc_page_fault", "do_fault", "do_anonymous_page", "do_wp_page", NULL,
};

static const char *const blk_syms[] = {
	"blk_", "__blk_", "bio_", "__bio_", "submit_bio", "bvec_", "scsi_",
	"__scsi_", "sd_", "dd_", "elv_", "__elv_", "sbitmap_", "__sbitmap",
	"sg_", "__sg_", "bdev_", "mempool_alloc_bio", "blkcg_", "rq_qos_",
	"__rq_qos_", NULL,
};

/* Where an interrupt or softirq was entered: the walk stops there. */
static const char *const irq_syms[] = {
	"asm_sysvec_", "sysvec_", "asm_common_interrupt", "common_interrupt",
	"__irq_exit_rcu", "irq_exit_rcu", "handle_softirqs", "__do_softirq",
	"do_softirq", "__sysvec_", NULL,
};

static enum component part_of(const char *sym)
{
	if (any_prefix(sym, disk_syms))
		return COMP_DISK;
	if (series_sym(sym))
		return COMP_SERIES;
	if (any_prefix(sym, fs_syms))
		return COMP_FS;
	if (any_prefix(sym, mm_syms))
		return COMP_MM;
	if (any_prefix(sym, blk_syms))
		return COMP_BLOCK;
	return COMP_OTHER;
}

enum component classify_stack(char frames[][64], int n)
{
	int i;

	if (n > 0 && any_prefix(frames[0], copy_syms)) {
		/* the copy's caller: the first known frame above the leaf */
		for (i = 1; i < n; i++) {
			if (any_prefix(frames[i], irq_syms))
				break;
			if (part_of(frames[i]) == COMP_DISK)
				return COMP_DISK;
			if (!any_prefix(frames[i], copy_syms) && part_of(frames[i]) != COMP_OTHER)
				break;
		}
		return COMP_COPY;
	}
	for (i = 0; i < n; i++) {
		enum component c;

		if (any_prefix(frames[i], irq_syms))
			return COMP_IRQ;
		c = part_of(frames[i]);
		if (c != COMP_OTHER)
			return c;
	}
	return COMP_OTHER;
}
