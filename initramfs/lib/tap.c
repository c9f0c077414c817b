// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

static unsigned int n_pass, n_fail, n_skip;
static const char *suite_name = "test";

void tap_start(const char *suite)
{
	suite_name = suite;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# %s\n", suite);
}

static void line(const char *status, const char *fmt, va_list ap)
{
	printf("%s %u - ", status, n_pass + n_fail + n_skip);
	vprintf(fmt, ap);
}

bool check(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		n_pass++;
	else
		n_fail++;
	va_start(ap, fmt);
	line(cond ? "ok" : "not ok", fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

void skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	n_skip++;
	va_start(ap, fmt);
	line("ok", fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int tap_done(void)
{
	printf("# %s: done\n", suite_name);
	printf("%u passed, %u failed, %u skipped\n", n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	n_fail++;
	fputs("not ok - setup: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(tap_done());
}
