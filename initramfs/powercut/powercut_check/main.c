// SPDX-License-Identifier: GPL-2.0
/*
 * Power-cut torn-write checker on pcblk (initramfs/modules/powercut), a RAM
 * disk with a volatile write cache whose power can be cut mid-stream.
 *
 * Per configuration, each cut is one round:
 *   1. every unit (one atomic write unit: 16 KiB on the raw device, one fs
 *      block on XFS) gets a baseline generation, made durable by fsync;
 *   2. cut_after is armed at a random point of the stream and writer
 *      threads (disjoint units each, so per unit the order is known)
 *      write units stamped with (offset, generation) in every 512-byte
 *      sector (lib/atomic_io.c), logging what each call returned and
 *      which writes were acknowledged durable: RWF_DSYNC returned, or an
 *      fdatasync by the same thread returned 0 after the write returned;
 *   3. after the cut (or at the end of the stream if it never came) the
 *      power is restored, XFS is remounted (log recovery) or the raw
 *      device re-read, and every unit must be wholly one generation that
 *      was written to it, no older than its last acknowledged write.
 * The stamps cover every byte of a sector, so a unit is compared in full
 * against the generation its first sector names: stronger than a checksum.
 *
 * A configuration is one table entry (write flags, O_DIRECT or buffered,
 * sync method, expectation, what the kernel must advertise). Those the
 * kernel does not advertise (statx) or the uapi cannot express are
 * skipped with the reason. "device" checks the pcblk model itself.
 *
 * usage: powercut_check [-n CUTS] [-w WRITES] [-t THREADS] [-k SYNC_EVERY]
 *                       [-u UNIT] [-S SEED] [-d DEV] [-m MNT] [-v] CONFIG...
 *   CONFIG: device, raw-*, xfs-* (see -h), or "raw" / "xfs" for all of them
 *   -n CUTS per configuration (default 4; the full run uses 200)
 *   -u UNIT bytes per unit on XFS (default one fs block; more: several blocks)
 * Prints per configuration:
 *   # powercut: config=NAME ... cuts=N torn=N lost=N bad=N ...
 *     expect=untorn|torn|info result=pass|fail|skip
 *
 * The units: main.c (the configurations, options), writers.c (the writers
 * of one cut, baseline, recovery), verify.c (every unit read back),
 * round.c (one cut; one configuration), device.c (the device model's own
 * checks); powercut_check.h what they share.
 */
#include "powercut_check.h"

static const struct pc_config configs[] = {
	{ "device", "pcblk's cache, cut and rejection model", T_DEVICE,
	  0, true, S_NONE, E_INFO, 0, X_NONE },
	{ "raw-atomic", "raw device, O_DIRECT RWF_ATOMIC, fdatasync", T_RAW,
	  RWF_ATOMIC, true, S_FDATASYNC, E_UNTORN, N_DIO_ATOMIC, X_NONE },
	{ "raw-atomic-dsync", "raw device, O_DIRECT RWF_ATOMIC|RWF_DSYNC", T_RAW,
	  RWF_ATOMIC, true, S_DSYNC, E_UNTORN, N_DIO_ATOMIC, X_NONE },
	{ "raw-plain", "negative control: raw device, plain O_DIRECT, fdatasync",
	  T_RAW, 0, true, S_FDATASYNC, E_TORN, 0, X_NONE },
	{ "xfs-atomic", "XFS, O_DIRECT RWF_ATOMIC of one block, fdatasync", T_XFS,
	  RWF_ATOMIC, true, S_FDATASYNC, E_UNTORN, N_DIO_ATOMIC, X_NONE },
	{ "xfs-atomic-dsync", "XFS, O_DIRECT RWF_ATOMIC|RWF_DSYNC of one block",
	  T_XFS, RWF_ATOMIC, true, S_DSYNC, E_UNTORN, N_DIO_ATOMIC, X_NONE },
	{ "xfs-plain-dsync", "XFS, plain O_DIRECT RWF_DSYNC of one block", T_XFS,
	  0, true, S_DSYNC, E_INFO, 0, X_NONE },
	{ "xfs-wt-atomic", "XFS, buffered RWF_ATOMIC|RWF_WRITETHROUGH, fdatasync",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_FDATASYNC, E_UNTORN,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_NONE },
	{ "xfs-wt-atomic-dsync", "XFS, buffered RWF_ATOMIC|RWF_WRITETHROUGH|RWF_DSYNC",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_DSYNC, E_UNTORN,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_NONE },
	/*
	 * Mixed cases. Not judged without RWF_DSYNC on either design: a
	 * plain change of part of a block whose atomic write is not yet
	 * durable is written back as a plain write of the whole block,
	 * carrying the atomic data, and a cut can tear that write (the
	 * same mechanism would expose an O_DIRECT atomic write followed by
	 * a buffered overwrite; not measured). With RWF_DSYNC the atomic
	 * data is on the media before anything else can carry it.
	 */
	{ "xfs-wt-overwrite", "XFS, RWF_ATOMIC|RWF_WRITETHROUGH + plain overwrites of the tail",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_FDATASYNC, E_INFO,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_OVERWRITE },
	{ "xfs-wt-overwrite-dsync", "XFS, RWF_ATOMIC|RWF_WRITETHROUGH|RWF_DSYNC + plain overwrites",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_DSYNC, E_UNTORN,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_OVERWRITE },
	{ "xfs-wt-mmap", "XFS, RWF_ATOMIC|RWF_WRITETHROUGH + mmap stores into the tail",
	  T_XFS, RWF_ATOMIC | PC_RWF_WT, false, S_FDATASYNC, E_INFO,
	  N_BUF_ATOMIC | N_WRITETHROUGH, X_MMAP },
	{ "xfs-buf-atomic", "XFS, buffered RWF_ATOMIC (writeback-time), fdatasync",
	  T_XFS, RWF_ATOMIC, false, S_FDATASYNC, E_UNTORN, N_BUF_ATOMIC, X_NONE },
	{ "xfs-buf-atomic-nosync", "XFS, buffered RWF_ATOMIC, no sync (writeback kicked)",
	  T_XFS, RWF_ATOMIC, false, S_WRITEBACK, E_UNTORN, N_BUF_ATOMIC, X_NONE },
	/* The writeback-time design also drops atomicity on these by design. */
	{ "xfs-buf-overwrite", "XFS, buffered RWF_ATOMIC + plain overwrites of the tail",
	  T_XFS, RWF_ATOMIC, false, S_FDATASYNC, E_INFO, N_BUF_ATOMIC, X_OVERWRITE },
	{ "xfs-buf-overwrite-dsync", "XFS, buffered RWF_ATOMIC|RWF_DSYNC + plain overwrites",
	  T_XFS, RWF_ATOMIC, false, S_DSYNC, E_INFO, N_BUF_ATOMIC, X_OVERWRITE },
	{ "xfs-buf-mmap", "XFS, buffered RWF_ATOMIC + mmap stores into the tail",
	  T_XFS, RWF_ATOMIC, false, S_FDATASYNC, E_INFO, N_BUF_ATOMIC, X_MMAP },
	{ "xfs-buf-plain", "negative control: XFS, plain buffered, fdatasync",
	  T_XFS, 0, false, S_FDATASYNC, E_TORN, 0, X_NONE },
};

struct pc_opts opt = { 4, 256, 2, 32, 0, 0x5eedc0de, "/dev/pcblk0", NULL, false };

/* ---- main ---------------------------------------------------------- */

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: powercut_check [-n CUTS] [-w WRITES] [-t THREADS] [-k SYNC_EVERY]\n"
		   "       [-u UNIT] [-S SEED] [-d DEV] [-m MNT] [-v] CONFIG...\n"
		   "  -n cuts per configuration (default %u; the full run uses 200)\n"
		   "  -w writes per cut (default %u), -t writer threads (default %u)\n"
		   "  -k fdatasync every k writes per thread (default %u)\n"
		   "  -u bytes per unit on XFS (default: one file system block)\n"
		   "  -S seed (default %#llx), -d device (default %s), -m XFS mount on it\n"
		   "  -v every round and every tear; a round's device seed is printed so that\n"
		   "     a cut can be replayed (-t 1 makes the write stream deterministic)\n"
		   "configurations (raw, xfs: all of that kind):\n",
		opt.cuts, opt.writes, opt.threads, opt.sync_every, opt.seed, opt.dev);
	for (i = 0; i < ARRAY_SIZE(configs); i++)
		fprintf(f, "  %-20s %s\n", configs[i].name, configs[i].what);
}

int main(int argc, char **argv)
{
	size_t i;
	int c, a;
	bool any;

	while ((c = getopt(argc, argv, "n:w:t:k:u:S:d:m:vh")) != -1) {
		switch (c) {
		case 'n':
			opt.cuts = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			opt.writes = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.threads = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			opt.sync_every = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			opt.unit = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			opt.dev = optarg;
			break;
		case 'm':
			opt.mnt = optarg;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || !opt.cuts || !opt.threads || !opt.sync_every ||
	    opt.writes < opt.threads || (opt.unit && (opt.unit & (opt.unit - 1)))) {
		usage(stderr);
		return 2;
	}
	tap_start("powercut_check");
	if (access(PCBLK_DIR "/cut", W_OK))
		tap_bail("%s: no pcblk control directory (%s)", PCBLK_DIR, strerror(errno));
	for (a = optind; a < argc; a++) {
		any = false;
		for (i = 0; i < ARRAY_SIZE(configs); i++) {
			const struct pc_config *cf = &configs[i];
			size_t n = strlen(argv[a]);

			/* "raw" and "xfs" name every configuration of that kind. */
			if (strcmp(argv[a], cf->name) &&
			    !(cf->target != T_DEVICE && n == 3 &&
			      !strncmp(argv[a], cf->name, n) && cf->name[n] == '-'))
				continue;
			any = true;
			if (cf->target == T_DEVICE)
				run_device();
			else
				run_config(cf, i);
		}
		if (!any)
			tap_bail("unknown configuration '%s' (-h lists them)", argv[a]);
	}
	return tap_done();
}
