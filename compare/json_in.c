// SPDX-License-Identifier: GPL-2.0
/* json_in.c: JSON-lines files and object fields through libjansson. */
#include "json_in.h"
#include "bad_inputs.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jsonl_each(const char *path, jsonl_fn fn, void *arg)
{
	struct json_where at = { path, 0 };
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) >= 0) {
		json_error_t err;
		json_t *obj;

		at.line++;
		if (line[strspn(line, " \t\r\n")] == 0)
			continue;
		obj = json_loads(line, 0, &err);
		if (!obj) {
			bad_input(path, "line %d: not JSON: %s (column %d)", at.line,
				  err.text, err.column);
			continue;
		}
		if (!json_is_object(obj)) {
			bad_input(path, "line %d: not a JSON object", at.line);
		} else {
			fn(obj, &at, arg);
			n++;
		}
		json_decref(obj);
	}
	if (ferror(f))
		bad_input(path, "read error: %s", strerror(errno));
	free(line);
	fclose(f);
	return n;
}

int jsonl_optional(const char *path, jsonl_fn fn, void *arg, struct absent_files *absent,
		   bool *measured)
{
	int n = jsonl_each(path, fn, arg);

	if (n < 0 && errno == ENOENT) {
		absent_note(absent, path);
		return -1;
	}
	*measured = true;
	if (n < 0)
		bad_input(path, "cannot read it (%s)", strerror(errno));
	return n;
}

bool jfield_str(json_t *obj, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(obj, key);
	char *text;

	if (!v)
		return false;
	if (json_is_string(v)) {
		scopy(buf, len, json_string_value(v));
		return true;
	}
	text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	if (!text)
		die("out of memory");
	scopy(buf, len, text);
	free(text);
	return true;
}

double jfield_num(json_t *obj, const char *key, const struct json_where *at)
{
	json_t *v = json_object_get(obj, key);
	const char *s;
	char *end;
	double d;

	if (!v)
		return NAN;
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v)) {
		s = json_string_value(v);
		if (!*s)
			return 0;
		d = strtod(s, &end);
		if (end != s && !*end)
			return d;
	}
	bad_input(at->path, "line %d: \"%s\" is not a number", at->line, key);
	return NAN;
}

double jneed_num(json_t *obj, const char *key, const struct json_where *at)
{
	double v = jfield_num(obj, key, at);

	if (!json_object_get(obj, key))
		bad_input(at->path, "line %d: no \"%s\"", at->line, key);
	return v;
}
