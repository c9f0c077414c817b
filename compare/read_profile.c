// SPDX-License-Identifier: GPL-2.0
/*
 * read_profile.c: DIR/profile.jsonl of a benchmark boot (initramfs/plans/
 * bench with ATW_BENCH_PROFILE=1): per profiled workload
 *   {"profile":NAME,"status":"ok","ndelay":"NS","ops":N,"hz":999,
 *    "stacks":"profile-NAME.stacks"}   (or status n/a / error and a reason)
 * and the stacks file, perf script -F comm,ip,sym output: a header line
 * (the task's name) and one "IP SYMBOL" line per frame, leaf first, a blank
 * line after each sample. Samples of the idle task (swapper) are left out.
 * Each profile's stacks are folded (comm;root;...;leaf 1 per sample, as
 * flame graph tools read them) into RESDIR/profiles/KERNEL-NAME.folded,
 * and the samples of each leaf symbol counted. Absent profile.jsonl: not
 * profiled, no bad input; a named stacks file that cannot be read is one.
 */
#include "bad_inputs.h"
#include "json_in.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct prof_ctx {
	const char *dir, *kernel;
	int round;
};

static void count_leaf(struct profile *p, const char *sym)
{
	int i;

	for (i = 0; i < p->nsyms; i++)
		if (!strcmp(p->syms[i].name, sym)) {
			p->syms[i].self++;
			return;
		}
	if (p->nsyms == MAX_PROF_SYMS) {	/* the rest, together */
		p->other++;
		return;
	}
	scopy(p->syms[p->nsyms].name, sizeof(p->syms[0].name), sym);
	p->syms[p->nsyms++].self = 1;
}

/* One frame line "  ffffffff81000000 sym+0x1f": the symbol, or NULL. */
static char *frame_sym(char *line)
{
	char *p = line, *q;

	while (*p == ' ' || *p == '\t')
		p++;
	if (p == line || !isxdigit((unsigned char)*p))
		return NULL;
	while (isxdigit((unsigned char)*p))
		p++;
	if (*p != ' ')
		return NULL;
	while (*p == ' ')
		p++;
	q = p + strcspn(p, " \n");	/* drop " (dso)" if perf adds it */
	*q = 0;
	return p;
}

/* Folds one sample (frames leaf first) into out; counts its leaf. */
static void fold(struct profile *p, FILE *out, const char *comm, char frames[][64], int n)
{
	int i;

	if (!strncmp(comm, "swapper", 7))
		return;
	p->samples++;
	p->comp[classify_stack(frames, n)]++;
	count_leaf(p, n ? frames[0] : "[unknown]");
	if (!out)
		return;
	fputs(comm, out);
	for (i = n - 1; i >= 0; i--)
		fprintf(out, ";%s", frames[i]);
	fputs(" 1\n", out);
}

static void read_stacks(struct profile *p, const char *path)
{
	char *line = NULL, comm[64] = "", frames[128][64], out_path[1400];
	size_t cap = 0;
	int n = 0;
	FILE *in = fopen(path, "r"), *out;

	if (!in) {
		bad_input(path, "cannot open (%s)", strerror(errno));
		return;
	}
	snprintf(out_path, sizeof(out_path), "%s/profiles", resdir);
	mkdir(out_path, 0755);
	snprintf(out_path, sizeof(out_path), "%s/profiles/%s-%s.folded", resdir, p->kernel,
		 p->name);
	out = fopen(out_path, "w");
	while (getline(&line, &cap, in) >= 0) {
		char *sym;

		if (line[0] == '\n' || !line[0]) {
			if (comm[0])
				fold(p, out, comm, frames, n);
			comm[0] = 0;
			n = 0;
			continue;
		}
		sym = frame_sym(line);
		if (sym) {
			if (n < 128)
				scopy(frames[n++], sizeof(frames[0]), sym[0] ? sym : "[unknown]");
			continue;
		}
		if (comm[0])	/* a sample without its blank line */
			fold(p, out, comm, frames, n);
		n = 0;
		line[strcspn(line, "\n")] = 0;
		scopy(comm, sizeof(comm), line + strspn(line, " "));
		/* perf pads the task name; the first word is enough */
		comm[strcspn(comm, " ")] = 0;
	}
	if (comm[0])
		fold(p, out, comm, frames, n);
	free(line);
	fclose(in);
	if (out)
		fclose(out);
}

static void profile_line(json_t *obj, const struct json_where *at, void *arg)
{
	struct prof_ctx *c = arg;
	struct profile *p;
	char stacks[128] = "", path[1400];

	if (nprofiles == MAX_PROFILES)
		die("more than %d profiles", MAX_PROFILES);
	p = &profiles[nprofiles++];
	memset(p, 0, sizeof(*p));
	scopy(p->kernel, sizeof(p->kernel), c->kernel);
	p->round = c->round;
	if (!jfield_str(obj, "profile", p->name, sizeof(p->name)))
		bad_input(at->path, "line %d: no \"profile\"", at->line);
	jfield_str(obj, "status", p->status, sizeof(p->status));
	jfield_str(obj, "reason", p->reason, sizeof(p->reason));
	if (strcmp(p->status, "ok"))
		return;
	p->ndelay = (int)jneed_num(obj, "ndelay", at);
	p->ops = (unsigned long)jneed_num(obj, "ops", at);
	p->hz = (int)jneed_num(obj, "hz", at);
	if (!jfield_str(obj, "stacks", stacks, sizeof(stacks))) {
		bad_input(at->path, "line %d: profile %s without \"stacks\"", at->line, p->name);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", c->dir, stacks);
	read_stacks(p, path);
}

void read_profile(const char *dir, const char *kernel, int round)
{
	struct prof_ctx c = { dir, kernel, round };
	char path[1200];

	snprintf(path, sizeof(path), "%s/profile.jsonl", dir);
	jsonl_each(path, profile_line, &c);	/* absent: not profiled */
}
