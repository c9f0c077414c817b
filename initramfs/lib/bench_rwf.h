/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the bench_* programs only: the RWF_ values of docs/design.md ("Flags
 * and uapi values") even when the variant's uapi lacks them, so one binary
 * tries every workload and reports the kernel's refusal (n/a). The tests
 * do not include this: they SKIP on a uapi without the flag.
 */
#ifndef ATW_BENCH_RWF_H
#define ATW_BENCH_RWF_H

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040
#endif
#ifndef RWF_WRITETHROUGH
#define RWF_WRITETHROUGH 0x00000200
#endif

#endif
