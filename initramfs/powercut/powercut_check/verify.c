// SPDX-License-Identifier: GPL-2.0
/*
 * verify.c: reading every unit back after a cut: whole, torn, mixed or lost.
 */
#include "powercut_check.h"

static bool gen_of_unit(struct run *r, unsigned int u, uint64_t gen)
{
	if (gen == r->base_gen)
		return true;
	return gen > r->base_gen && gen - r->base_gen < r->ngen &&
	       r->gen_unit[gen - r->base_gen] == (int)u;
}

#define SECTOR_MIXED	((uint64_t)-1)	/* runs of bytes of several generations */
#define SECTOR_GARBAGE	((uint64_t)-2)	/* bytes no write to this unit carried */
#define MAX_RUNS	4

/*
 * A sector whose stamp does not verify may still consist of a few runs of
 * bytes each from one generation written to the unit: a buffered write
 * that changed the page while writeback was copying it (the disk does not
 * ask for stable pages). That is a tear inside the sector; anything else
 * is garbage. Greedy: at each byte take the generation matching longest.
 */
static uint64_t sector_mixed(struct run *r, unsigned int u, const unsigned char *p,
			     uint64_t off, uint64_t *oldest)
{
	unsigned char want[512];
	size_t i = 0, best, len;
	unsigned int k, runs = 0;
	uint64_t best_gen = 0;

	*oldest = UINT64_MAX;
	while (i < 512 && runs < MAX_RUNS) {
		best = 0;
		for (k = 0; k < r->ngen; k++) {
			if (k && r->gen_unit[k] != (int)u)
				continue;
			atw_fill(want, 512, off, r->base_gen + k);
			for (len = 0; i + len < 512 && want[i + len] == p[i + len]; len++)
				;
			if (len > best) {
				best = len;
				best_gen = r->base_gen + k;
			}
		}
		if (!best)
			break;
		*oldest = best_gen < *oldest ? best_gen : *oldest;
		i += best;
		runs++;
	}
	return i == 512 ? SECTOR_MIXED : SECTOR_GARBAGE;
}

/* The generation of one sector, SECTOR_MIXED or SECTOR_GARBAGE. */
static uint64_t sector_gen(struct run *r, unsigned int u, const unsigned char *p,
			   uint64_t off, uint64_t *oldest)
{
	uint64_t g;

	if (sector_stamp(p, off, &g) && gen_of_unit(r, u, g)) {
		*oldest = g;
		return g;
	}
	return sector_mixed(r, u, p, off, oldest);
}

/*
 * The device's record of the writes that touched a unit (the last 1024
 * writes of PCBLK_DIR/log), for a tear where none may be.
 */
static void dump_unit_log(struct run *r, off_t off)
{
	static char buf[1 << 17];
	uint64_t phys, first, last;
	char *line, *save;

	if (r->cfg->target == T_XFS) {
		if (atw_file_phys(r->fd, off, &phys))
			return;
	} else {
		phys = off;
	}
	first = phys / 512;
	last = (phys + r->unit) / 512;
	if (pcblk_get("log", buf, sizeof(buf)))
		return;
	diag("  device writes over sectors %llu..%llu (seq power op sector+bytes flags state):",
	     (unsigned long long)first, (unsigned long long)last - 1);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long seq, sec;
		unsigned int pw, len;

		if (sscanf(line, "%llu p%u WRITE %llu+%u", &seq, &pw, &sec, &len) == 4 &&
		    sec < last && sec + len / 512 > first)
			diag("  %s", line);
	}
}

/*
 * Classifies every unit: whole (one generation), torn (sectors of several
 * generations, or sectors mixing them), or bad (unreadable, or bytes no
 * write to this unit carried); and lost if any sector is older than the
 * unit's last acknowledged write. In a mixed case only the head (the
 * sectors before the tail) is judged whole or torn, and lost; the tail
 * must only hold what was written to it. Returns the torn units of this
 * round.
 */
unsigned long verify_units(struct run *r, unsigned int round)
{
	unsigned char *buf = atw_alloc(r->unit);
	unsigned long torn = 0;
	unsigned int u, shown = 0;

	for (u = 0; u < r->nunits; u++) {
		off_t off = r->base + (off_t)u * r->unit;
		ssize_t ret = atw_pread(r->fd, buf, r->unit, off);
		uint64_t first = 0, prev = 0, g, oldest, unit_oldest = UINT64_MAX;
		bool whole = true, garbage = false;
		unsigned int mixed = 0;
		char gens[256] = "";
		size_t i, n = 0;

		r->checked++;
		if (ret != (ssize_t)r->unit) {
			r->bad++;
			diag("%s cut %u: unit %u at %lld: read returned %zd", r->cfg->name,
			     round, u, (long long)off, ret);
			continue;
		}
		for (i = 0; i < r->unit; i += 512) {
			g = sector_gen(r, u, buf + i, off + i, &oldest);
			if (g == SECTOR_GARBAGE) {
				garbage = true;
				break;
			}
			/* A mixed case's tail: anything written to it. */
			if (i >= r->unit - r->tail)
				continue;
			mixed += g == SECTOR_MIXED;
			if (i == 0)
				first = g;
			if (g != first || g == SECTOR_MIXED)
				whole = false;
			unit_oldest = oldest < unit_oldest ? oldest : unit_oldest;
			/* "sector:gen" at each change, for the diagnostics. */
			if ((i == 0 || g != prev || g == SECTOR_MIXED) && n < sizeof(gens) - 24) {
				if (g == SECTOR_MIXED)
					n += snprintf(gens + n, sizeof(gens) - n, " %zu:mixed", i / 512);
				else
					n += snprintf(gens + n, sizeof(gens) - n, " %zu:+%llu", i / 512,
						      (unsigned long long)(g - r->base_gen));
			}
			prev = g;
		}
		if (garbage) {
			struct stamp st;

			memcpy(&st, buf + i, sizeof(st));
			r->bad++;
			diag("%s cut %u: unit %u at %lld: sector %zu holds no write to this unit (stamp off %llu gen %llu magic %#llx)",
			     r->cfg->name, round, u, (long long)off, i / 512,
			     (unsigned long long)st.off, (unsigned long long)st.gen,
			     (unsigned long long)st.magic);
			continue;
		}
		if (unit_oldest < r->ack_gen[u]) {
			r->lost++;
			diag("%s cut %u: unit %u holds gen +%llu, older than acknowledged gen +%llu",
			     r->cfg->name, round, u,
			     (unsigned long long)(unit_oldest - r->base_gen),
			     (unsigned long long)(r->ack_gen[u] - r->base_gen));
		}
		if (whole)
			continue;
		torn++;
		r->mixed += mixed > 0;
		/* Every tear where none may be, a sample otherwise. */
		if (r->cfg->expect == E_UNTORN || opt.verbose ||
		    (opt.cuts <= 8 && shown++ < 2))
			diag("%s cut %u: unit %u torn: sector:generation (baseline +0)%s",
			     r->cfg->name, round, u, gens);
		if (r->cfg->expect == E_UNTORN)
			dump_unit_log(r, off);
	}
	free(buf);
	r->torn += torn;
	return torn;
}

void parse_last_cut(unsigned long *torn, unsigned long *inflight,
			   char *line, size_t size)
{
	char *p;

	*torn = *inflight = 0;
	if (pcblk_get("last_cut", line, size))
		return;
	p = strstr(line, " torn=");
	if (p)
		*torn = strtoul(p + 6, NULL, 10);
	p = strstr(line, " inflight=");
	if (p)
		*inflight = strtoul(p + 10, NULL, 10);
}
