// SPDX-License-Identifier: GPL-2.0
/* bad_inputs.c: the list of inputs that could not be read. */
#include "bad_inputs.h"
#include "results.h"
#include "text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BAD 256

static char *bad[MAX_BAD];
static int nbad;

void bad_input(const char *path, const char *fmt, ...)
{
	size_t rl = resdir ? strlen(resdir) : 0;
	char why[512], *text;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "report: %s: %s\n", path, why);
	if (rl && !strncmp(path, resdir, rl) && path[rl] == '/')
		path += rl + 1;
	if (nbad >= MAX_BAD)
		return;
	if (asprintf(&text, "%s: %s", path, why) < 0)
		die("out of memory");
	bad[nbad++] = text;
}

int nbad_inputs(void)
{
	return nbad;
}

const char *bad_input_text(int i)
{
	return bad[i];
}

void absent_note(struct absent_files *a, const char *path)
{
	if (a->n < MAX_ABSENT && !(a->path[a->n++] = strdup(path)))
		die("out of memory");
}

void absent_settle(struct absent_files *a, bool measured)
{
	int i;

	for (i = 0; i < a->n; i++) {
		if (measured)
			bad_input(a->path[i], "missing (%s), while other boots have it",
				  strerror(ENOENT));
		free(a->path[i]);
	}
	a->n = 0;
}
