// SPDX-License-Identifier: GPL-2.0
/*
 * read_fio.c: DIR/fio.jsonl, one line per fio job the plan ran
 * ({"fio":NAME,"ndelay":"NS","status":"ok","file":F} or status "n/a" with
 * a reason), and for each ok line fio's own JSON output DIR/F: the first
 * job's (group_reporting: all threads) write iops and clat percentiles.
 * A missing or malformed fio output makes the sample's status "error" (the
 * tables show it n/a) and is a bad input naming the file.
 */
#include "bad_inputs.h"
#include "json_in.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fio_ctx {
	const char *dir, *kernel;
	int round, n;
};

/* jobs[0].write.KEYS... of fio's output, a number; NaN and a bad input if not. */
static double write_value(json_t *write, const char *path, const char *key1,
			  const char *key2, const char *key3)
{
	const char *keys[] = { key1, key2, key3 };
	json_t *v = write;
	unsigned int i;

	for (i = 0; i < 3 && keys[i] && v; i++)
		v = json_object_get(v, keys[i]);
	if (json_is_number(v))
		return json_number_value(v);
	bad_input(path, "no number at jobs[0].write.%s%s%s%s%s", key1,
		  key2 ? "." : "", key2 ? key2 : "", key3 ? "." : "", key3 ? key3 : "");
	return NAN;
}

/* The whole file; NULL (and a bad input) when it cannot be read. */
static char *slurp(const char *path)
{
	char buf[65536], *text = NULL;
	size_t len = 0, n;
	FILE *f, *m;
	bool ok;

	f = fopen(path, "r");
	if (!f) {
		bad_input(path, "missing (%s)", strerror(errno));
		return NULL;
	}
	m = open_memstream(&text, &len);
	if (!m)
		die("out of memory");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	ok = !ferror(f);
	if (!ok)
		bad_input(path, "read error: %s", strerror(errno));
	fclose(f);
	if (fclose(m))
		die("out of memory");
	if (ok)
		return text;
	free(text);
	return NULL;
}

/*
 * fio's JSON output; NULL (and a bad input) when missing or malformed.
 * fio may put notes before the JSON in its output file: lines before the
 * first one that starts with '{' are skipped.
 */
static json_t *load_fio_output(const char *path)
{
	char *text = slurp(path);
	const char *p = text;
	json_error_t err;
	int skipped = 0;
	json_t *j;

	if (!text)
		return NULL;
	while (*p && *p != '{') {
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
		skipped++;
	}
	if (!p || !*p) {
		bad_input(path, "not fio JSON output: no line starts with '{'");
		free(text);
		return NULL;
	}
	j = json_loads(p, 0, &err);
	if (!j)
		bad_input(path, "not fio JSON output: %s (line %d, column %d)", err.text,
			  err.line + skipped, err.column);
	free(text);
	return j;
}

static void fio_output(struct sample *s, const char *path)
{
	json_t *j = load_fio_output(path), *write;

	if (!j) {
		snprintf(s->status, sizeof(s->status), "error");
		return;
	}
	write = json_object_get(json_array_get(json_object_get(j, "jobs"), 0), "write");
	if (!json_is_object(write)) {
		bad_input(path, "no jobs[0].write object");
		snprintf(s->status, sizeof(s->status), "error");
		json_decref(j);
		return;
	}
	s->v[OPS] = write_value(write, path, "iops", NULL, NULL);
	s->v[P50] = write_value(write, path, "clat_ns", "percentile", "50.000000") / 1000;
	s->v[P99] = write_value(write, path, "clat_ns", "percentile", "99.000000") / 1000;
	s->v[P999] = write_value(write, path, "clat_ns", "percentile", "99.900000") / 1000;
	json_decref(j);
}

static void fio_line(json_t *obj, const struct json_where *at, void *arg)
{
	struct fio_ctx *c = arg;
	char name[48], nd[16], file[128], path[1400];
	struct sample *s;
	int m;

	if (!jfield_str(obj, "fio", name, sizeof(name)) ||
	    !jfield_str(obj, "ndelay", nd, sizeof(nd)))
		return;
	c->n++;
	s = new_sample(c->kernel, c->round);
	s->fio = true;
	scopy(s->bench, sizeof(s->bench), name);
	s->ndelay = (int)jfield_num(obj, "ndelay", at);
	jfield_str(obj, "status", s->status, sizeof(s->status));
	jfield_str(obj, "reason", s->reason, sizeof(s->reason));
	for (m = 0; m < NR_METRICS; m++)
		s->v[m] = NAN;
	if (strcmp(s->status, "ok"))
		return;
	if (jfield_str(obj, "file", file, sizeof(file)))
		snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	else
		snprintf(path, sizeof(path), "%s/fio-%s-%s.json", c->dir, name, nd);
	fio_output(s, path);
}

void read_fio(const char *dir, const char *kernel, int round)
{
	struct fio_ctx c = { dir, kernel, round, 0 };
	char path[1200];

	snprintf(path, sizeof(path), "%s/fio.jsonl", dir);
	if (jsonl_each(path, fio_line, &c) < 0)
		bad_input(path, "missing (%s)", strerror(errno));
	else if (!c.n && !workload_filter())
		bad_input(path, "holds no fio job line");
}
