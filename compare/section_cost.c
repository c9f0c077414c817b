// SPDX-License-Identifier: GPL-2.0
/*
 * section_cost.c: Cost in code, per series (read_series.c): lines by
 * subsystem, page flags, folio state bits, new fields in fs.h; each series
 * also goes to results.json.
 */
#include "json_out.h"
#include "results.h"
#include "sections.h"
#include "text.h"

void section_cost(FILE *out)
{
	int i;

	hr(out, "Cost in code (from series-*/ patches of this tree)");
	for (i = 0; i < ncosts; i++) {
		struct cost *c = &costs[i];
		int ta = 0, td = 0, j;

		for (j = 0; j < c->nsub; j++) {
			ta += c->add[j];
			td += c->del[j];
		}
		fprintf(out, "series-%s: +%d -%d lines\n", c->series, ta, td);
		for (j = 0; j < c->nsub; j++)
			fprintf(out, "  %-18s %2d files  +%-5d -%d\n", c->subsys[j], c->files[j],
				c->add[j], c->del[j]);
		fprintf(out, "  page flags added: %s\n", c->pageflags[0] ? c->pageflags : "none");
		if (c->ifs_bits_new)
			fprintf(out, "  folio state: iomap_folio_state bitmap %d -> %d bits per\n"
				"    block (+%d bits per fs block of every folio with an ifs)\n",
				c->ifs_bits_old, c->ifs_bits_new,
				c->ifs_bits_new - c->ifs_bits_old);
		else
			fprintf(out, "  folio state: no iomap_folio_state bits added\n");
		if (c->mapping_fields[0])
			fprintf(out, "  new fields in include/linux/fs.h: %.50s\n", c->mapping_fields);
		json_out_cost(c, ta, td);
	}
}

