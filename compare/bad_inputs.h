/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bad_inputs.h: the inputs that could not be read (missing, malformed, a
 * field absent or of the wrong type). Each is said on stderr when found,
 * listed in report.txt after the environment and in results.json under
 * "bad_inputs"; the report then exits 3. Defined in bad_inputs.c.
 */
#ifndef ATW_REPORT_BAD_INPUTS_H
#define ATW_REPORT_BAD_INPUTS_H

#include <stdbool.h>

/* Records "PATH: WHY" (PATH relative to the results directory if under it). */
void bad_input(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int nbad_inputs(void);
/* The i-th record, "PATH: WHY". */
const char *bad_input_text(int i);

/*
 * A result file that a plan may not write at all (an older plan): missing
 * on every boot means "not measured", missing on some boots while others
 * have it is a bad input. Note each missing path, then settle at the end.
 */
#define MAX_ABSENT 1024
struct absent_files {
	char *path[MAX_ABSENT];
	int n;
};
void absent_note(struct absent_files *a, const char *path);
/* Reports the noted paths as bad inputs if measured (another boot had it). */
void absent_settle(struct absent_files *a, bool measured);

#endif
