// SPDX-License-Identifier: GPL-2.0
/* text.c: fatal errors, string copies and the report's number format. */
#include "text.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void scopy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

const char *num(double v, char *buf)
{
	if (isnan(v))
		return strcpy(buf, "-");
	if (v >= 100000)
		sprintf(buf, "%.0fk", v / 1000);
	else if (v >= 10000)
		sprintf(buf, "%.1fk", v / 1000);
	else if (v >= 100)
		sprintf(buf, "%.0f", v);
	else if (v >= 10)
		sprintf(buf, "%.1f", v);
	else
		sprintf(buf, "%.2f", v);
	return buf;
}

void hr(FILE *out, const char *title)
{
	fprintf(out, "\n%s\n", title);
	for (size_t i = 0; i < strlen(title); i++)
		fputc('-', out);
	fputc('\n', out);
}

char kernel_letter(const char *kernel)
{
	if (strchr(kernel, '@'))
		return tolower((unsigned char)kernel[0]);
	return toupper((unsigned char)kernel[0]);
}

/* " KEY=" in line: its number; false when absent. */
bool kv_num(const char *line, const char *key, unsigned long *v)
{
	char pat[40];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	*v = strtoul(p + strlen(pat), NULL, 10);
	return true;
}

/* " KEY=" in line: its word; false (buf "") when absent. */
bool kv_word(const char *line, const char *key, char *buf, size_t len)
{
	char pat[40];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	buf[0] = 0;
	if (!p)
		return false;
	p += strlen(pat);
	n = strcspn(p, " \n");
	n = n < len - 1 ? n : len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return true;
}
