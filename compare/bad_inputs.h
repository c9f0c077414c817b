/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bad_inputs.h: the inputs that could not be read (missing, malformed, a
 * field absent or of the wrong type). Each is said on stderr when found,
 * listed in report.txt after the environment and in results.json under
 * "bad_inputs"; the report then exits 3. Defined in bad_inputs.c.
 */
#ifndef ATW_REPORT_BAD_INPUTS_H
#define ATW_REPORT_BAD_INPUTS_H

/* Records "PATH: WHY" (PATH relative to the results directory if under it). */
void bad_input(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int nbad_inputs(void);
/* The i-th record, "PATH: WHY". */
const char *bad_input_text(int i);

#endif
