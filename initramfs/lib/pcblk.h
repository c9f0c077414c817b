/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcblk.h: the control files of pcblk (initramfs/modules/powercut), the RAM
 * disk with a volatile write cache whose power a test cuts, in
 * /sys/kernel/debug/pcblk: cut ("now", or reads "on"/"off"), cut_after N
 * (device writes), restore, seed, stats, log, ... (see the module).
 */
#ifndef ATW_PCBLK_H
#define ATW_PCBLK_H

#include <stdbool.h>
#include <stddef.h>

#define PCBLK_DIR "/sys/kernel/debug/pcblk"

/* Writes the formatted value into PCBLK_DIR/FILE; 0 or -errno. */
int pcblk_set(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads PCBLK_DIR/FILE into buf, trailing newlines and blanks cut; 0 or -errno. */
int pcblk_get(const char *file, char *buf, size_t size);
/* One counter of PCBLK_DIR/stats, or -1. */
long long pcblk_stat(const char *name);
/* Writes the device completed so far (atomic and plain). */
long long pcblk_writes(void);
/* Whether the device has power. */
bool pcblk_powered(void);

#endif
