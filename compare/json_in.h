/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_in.h: reading the guests' JSON through libjansson: JSON-lines files
 * (bench.jsonl, fio.jsonl, probe.jsonl) line by line, and fields of one
 * object. A line that is not a JSON object is a bad input (bad_inputs.h)
 * naming the file and line, and is skipped. Defined in json_in.c.
 */
#ifndef ATW_REPORT_JSON_IN_H
#define ATW_REPORT_JSON_IN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Where a field comes from, for the bad-input messages. */
struct json_where {
	const char *path;
	int line;
};

typedef void (*jsonl_fn)(json_t *obj, const struct json_where *at, void *arg);

/*
 * Calls fn for every JSON object line of path (blank lines skipped).
 * Returns the number of object lines, or -1 with errno set when the file
 * cannot be opened (the caller decides whether that is bad).
 */
int jsonl_each(const char *path, jsonl_fn fn, void *arg);

/*
 * The string value of key, cut to len - 1 bytes; a value of another type
 * as its JSON text. False (and buf untouched) when key is absent.
 */
bool jfield_str(json_t *obj, const char *key, char *buf, size_t len);

/*
 * The number value of key, or of a string that holds one (the guests write
 * "ndelay":"20000"); "" is 0, as bench_io writes it when it dies before
 * knowing. NaN when absent; NaN and a bad input when not a number.
 */
double jfield_num(json_t *obj, const char *key, const struct json_where *at);

struct absent_files;
/*
 * jsonl_each() over a file that a plan may not write (bad_inputs.h,
 * absent_files): a missing one is noted in absent, one that cannot be read
 * is a bad input; *measured turns true once any boot had the file. Returns
 * the number of object lines, or -1.
 */
int jsonl_optional(const char *path, jsonl_fn fn, void *arg, struct absent_files *absent,
		   bool *measured);

/* jfield_num() of a key the line must carry: absent is a bad input too. */
double jneed_num(json_t *obj, const char *key, const struct json_where *at);

#endif
