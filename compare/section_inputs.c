// SPDX-License-Identifier: GPL-2.0
/*
 * section_inputs.c: the inputs that could not be read (bad_inputs.h),
 * right after the environment, so that no figure missing from the tables
 * below passes for a zero or a refusal. Printed only when there is one.
 */
#include "bad_inputs.h"
#include "sections.h"
#include "text.h"

void section_inputs(FILE *out)
{
	int i, n = nbad_inputs();

	if (!n)
		return;
	hr(out, "Inputs that could not be read (their figures are missing below)");
	for (i = 0; i < n; i++)
		fprintf(out, "  %s\n", bad_input_text(i));
}
