/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP-like reporting for the guest tests: one line per named check, a SKIP
 * with its reason when a feature is absent, and a closing line
 * "N passed, N failed, N skipped" that the harness reads.
 */
#ifndef ATW_TAP_H
#define ATW_TAP_H

#include <stdbool.h>

void tap_start(const char *suite);
/* Records one check; returns cond so callers can stop a dependent sequence. */
bool check(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void skip(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the closing line; returns the exit status (1 if anything failed). */
int tap_done(void);
/* A setup step that must work for the rest to mean anything. */
void tap_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif
