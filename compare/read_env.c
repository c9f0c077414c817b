// SPDX-License-Identifier: GPL-2.0
/* read_env.c: RESDIR/env.txt, KEY=VALUE lines written by scripts/compare. */
#include "readers.h"
#include "results.h"
#include "text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void read_env(void)
{
	char path[1024], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/env.txt", resdir);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) && nenv < MAX_ENV) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = 0;
		line[strcspn(line, "\n")] = 0;
		eq[1 + strcspn(eq + 1, "\n")] = 0;
		scopy(env_k[nenv], sizeof(env_k[0]), line);
		scopy(env_v[nenv], sizeof(env_v[0]), eq + 1);
		nenv++;
	}
	fclose(f);
}
