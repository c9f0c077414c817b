/* SPDX-License-Identifier: GPL-2.0 */
/*
 * text.h: small helpers shared by the units: fatal errors, bounded string
 * copies, the report's number format, headings and kernel letters.
 * Defined in text.c.
 */
#ifndef ATW_REPORT_TEXT_H
#define ATW_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* "report: ..." on stderr, exit 1. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* strlcpy: copies what fits, always terminated. */
void scopy(char *dst, size_t len, const char *src);
/* A figure in at most 5 characters ("-" for NaN) into buf (16 bytes). */
const char *num(double v, char *buf);
/* A section heading, underlined. */
void hr(FILE *out, const char *title);
/*
 * The one-letter name of a kernel in the tables: W, P, B, ...; lower case
 * for a bisect step NAME@N (scripts/compare --variants "writethrough
 * writethrough@9": W and w).
 */
char kernel_letter(const char *kernel);
/* In a "... KEY=VALUE ..." summary line: the number after " KEY=". */
bool kv_num(const char *line, const char *key, unsigned long *v);
/* ... or its word, cut to len - 1 bytes (buf "" when absent). */
bool kv_word(const char *line, const char *key, char *buf, size_t len);

#endif
