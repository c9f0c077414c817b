// SPDX-License-Identifier: GPL-2.0
/*
 * section_matrix.c: the semantics matrix, each cell from bench_probe in
 * round 1 (the first of the WT, PG_atomic, DIO modes a kernel accepts),
 * two rows from the series patches (page flags, memory per folio), and
 * the probes' details.
 */
#include "results.h"
#include "sections.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

struct row {
	const char *label, *id;
	int bs, lbs;
};

static const struct row rows[] = {
	{ "atomic 4 KiB block", "atomic_unit", 4096, 4096 },
	{ "atomic 16 KiB block", "atomic_unit", 16384, 4096 },
	{ "bs < ps (1 KiB blocks)", "atomic_unit", 1024, 512 },
	{ "largest unit, 4K blk", "max_unit", 4096, 4096 },
	{ "largest unit, 16K blk", "max_unit", 16384, 4096 },
	{ "largest unit, 1K blk", "max_unit", 1024, 512 },
	{ "on device at return", "on_device_at_return", 4096, 4096 },
	{ "error from the call", "error_returned", 4096, 4096 },
	{ "RWF_DSYNC durable", "dsync_durable", 4096, 4096 },
	{ "plain overwrite keeps", "overwrite_keeps_atomic", 4096, 4096 },
	{ "mmap store keeps", "mmap_store", 4096, 4096 },
	{ "adjacent units merged", "merge", 4096, 4096 },
	{ "short copy impossible", "short_copy", 4096, 4096 },
	{ "io_uring, no io-wq", "uring_no_punt", 4096, 4096 },
	{ "RWF_NOWAIT", "nowait", 4096, 4096 },
	{ "io_uring, no io-wq *", "uring_no_punt_nocmtime", 4096, 4096 },
	{ "RWF_NOWAIT *", "nowait_nocmtime", 4096, 4096 },
};

static const struct probe *find_probe(const char *kernel, const char *mode,
				      const char *id, int bs, int lbs)
{
	int i;

	for (i = 0; i < nprobes; i++) {
		const struct probe *p = &probes[i];

		if (!strcmp(p->kernel, kernel) && !strcmp(p->mode, mode) &&
		    !strcmp(p->id, id) && p->bs == bs && p->lbs == lbs)
			return p;
	}
	return NULL;
}

/* The atomic write path a kernel offers, from its probes: wt, pga or dio. */
static const char *kernel_mode(const char *kernel)
{
	static const char *const pref[] = { "wt", "pga", "dio" };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		const struct probe *p = find_probe(kernel, pref[i], "atomic_unit", 4096, 4096);

		if (p && strcmp(p->result, "n/a") && strcmp(p->result, "no"))
			return pref[i];
	}
	return NULL;
}

static void cell(const struct probe *p, char *buf, size_t len)
{
	const char *d;
	unsigned int a, b;

	if (!p) {
		snprintf(buf, len, "not run");
		return;
	}
	d = p->detail;
	if (!strcmp(p->id, "max_unit") && !strcmp(p->result, "yes") &&
	    sscanf(d, "%u B (%u blocks)", &a, &b) == 2)
		snprintf(buf, len, "%u KiB (%u blk)", a / 1024, b);
	else if (!strcmp(p->id, "merge") && sscanf(d, "8 units: %u commands (%u", &a, &b) == 2)
		snprintf(buf, len, "%s %u/8", a < 8 ? "yes" : "no", a);
	else if (!strcmp(p->id, "dsync_durable") && !strcmp(p->result, "yes"))
		snprintf(buf, len, "yes (%s)", strstr(d, "FUA") ? "FUA" : "flush");
	else if (!strcmp(p->id, "on_device_at_return") && !strcmp(p->result, "no"))
		snprintf(buf, len, "no (fdatasync)");
	else if (!strcmp(p->id, "error_returned") && strstr(d, "fdatasync"))
		snprintf(buf, len, "no (fdatasync)");
	else if (!strncmp(p->id, "nowait", 6) && !strcmp(p->result, "yes"))
		snprintf(buf, len, "yes (%s)", strstr(d, "EAGAIN") ? "EAGAIN" : "len");
	else if (!strncmp(p->id, "uring_no_punt", 13) && !strcmp(p->result, "no"))
		snprintf(buf, len, "no (io-wq)");
	else if (!strcmp(p->id, "short_copy") && !strcmp(p->result, "yes"))
		snprintf(buf, len, "yes (%.8s)", strchr(d, ':') ? strchr(d, ':') + 2 : d);
	else
		snprintf(buf, len, "%s", p->result);
	buf[17] = 0;
}

void section_matrix(FILE *out)
{
	const char *mode[MAX_KERNELS];
	unsigned int r;
	int k, i;

	hr(out, "Semantics (each cell: bench_probe in this run, round 1)");
	fprintf(out, "%-22s", "behaviour");
	for (k = 0; k < nkernels && k < 3; k++) {
		char h[40];

		mode[k] = kernel_mode(kernels[k]);
		snprintf(h, sizeof(h), "%c:%s", kernel_letter(kernels[k]),
			 mode[k] ? (!strcmp(mode[k], "wt") ? "WT atomic" :
				    !strcmp(mode[k], "pga") ? "PG_atomic" : "DIO atomic") :
				   "no probe");
		fprintf(out, " %-18s", h);
	}
	fputc('\n', out);
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		fprintf(out, "%-22s", rows[r].label);
		for (k = 0; k < nkernels && k < 3; k++) {
			char c[40];

			cell(mode[k] ? find_probe(kernels[k], mode[k], rows[r].id,
						  rows[r].bs, rows[r].lbs) : NULL,
			     c, sizeof(c));
			fprintf(out, " %-18s", c);
		}
		fputc('\n', out);
	}
	/* From the patches of this tree, not from a probe. */
	fprintf(out, "%-22s", "page flags added (src)");
	for (k = 0; k < nkernels && k < 3; k++) {
		const char *pf = "none";

		for (i = 0; i < ncosts; i++)
			if (!strcmp(costs[i].series, kernels[k]) && costs[i].pageflags[0])
				pf = costs[i].pageflags;
		fprintf(out, " %-18.18s", pf);
	}
	fputc('\n', out);
	fprintf(out, "%-22s", "memory/folio (src)");
	for (k = 0; k < nkernels && k < 3; k++) {
		char c[40] = "none";

		for (i = 0; i < ncosts; i++)
			if (!strcmp(costs[i].series, kernels[k]) && costs[i].ifs_bits_new)
				snprintf(c, sizeof(c), "+%d bit/block ifs",
					 costs[i].ifs_bits_new - costs[i].ifs_bits_old);
		fprintf(out, " %-18s", c);
	}
	fputc('\n', out);
	fprintf(out, "Probe modes: WT = buffered RWF_ATOMIC|RWF_WRITETHROUGH, PG_atomic =\n"
		"buffered RWF_ATOMIC then fdatasync, DIO = O_DIRECT RWF_ATOMIC. A column\n"
		"shows the first of WT, PG_atomic, DIO that the kernel accepted. 'mmap\n"
		"store keeps' stores after the call, before the durable point (the\n"
		"store *during* a write-through's I/O is wt_stable's test, not here).\n"
		"On 6.12 a NOWAIT write that must update mtime gets EAGAIN on every\n"
		"path (file_modified_flags()), so io_uring punts it to io-wq: the\n"
		"unstarred io_uring/NOWAIT rows. Starred (*) rows: the same probe on\n"
		"an FMODE_NOCMTIME open (XFS open-by-handle), no timestamp update\n"
		"due, so the write path itself decides. Details:\n");
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		for (k = 0; k < nkernels && k < 3; k++) {
			const struct probe *p = mode[k] ?
				find_probe(kernels[k], mode[k], rows[r].id, rows[r].bs,
					   rows[r].lbs) : NULL;

			char tag[32], lbl[16], *nocm;

			if (!p)
				continue;
			/* "nowait_nocmtime" -> "nowait*", as the starred rows */
			scopy(tag, sizeof(tag), rows[r].id);
			nocm = strstr(tag, "_nocmtime");
			if (nocm)
				*nocm = 0;
			snprintf(lbl, sizeof(lbl), "%.9s%s", tag, nocm ? "*" : "");
			fprintf(out, " %c %-10s %.65s\n", kernel_letter(kernels[k]), lbl,
				p->detail);
		}
}

