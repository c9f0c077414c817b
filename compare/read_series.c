// SPDX-License-Identifier: GPL-2.0
/*
 * read_series.c: the cost in code of one series, from its patches
 * ROOT/series-NAME/[0-9]*.patch (not 0000-*, the cover letter): lines added
 * and deleted and files touched per subsystem, page flags added in
 * page-flags.h, iomap_folio_state bits per block, fields added to
 * include/linux/fs.h. A missing series directory is no series (no entry).
 */
#include "bad_inputs.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void subsys_of(const char *path, char *buf, size_t len)
{
	const char *s1 = strchr(path, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;

	if (!s1) {
		scopy(buf, len, path);
	} else if (!strncmp(path, "fs/", 3) || !strncmp(path, "include/", 8)) {
		if (s2 && !strncmp(path, "include/uapi/", 13))
			snprintf(buf, len, "uapi");
		else if (s2)
			snprintf(buf, len, "%.*s", (int)(s2 - path), path);
		else
			snprintf(buf, len, "%.*s", (int)(s1 - path), path);
	} else {
		snprintf(buf, len, "%.*s", (int)(s1 - path), path);
	}
}

void read_series(const char *name)
{
	char dir[1024], path[1400], line[4096], cur[256] = "", sub[24] = "";
	struct cost *c = &costs[ncosts];
	struct dirent **ents;
	int n, i, j, si = -1;

	snprintf(dir, sizeof(dir), "%s/series-%s", root, name);
	if (ncosts >= MAX_COSTS)
		die("more than %d series", MAX_COSTS);
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return;
	memset(c, 0, sizeof(*c));
	scopy(c->series, sizeof(c->series), name);
	for (i = 0; i < n; i++) {
		FILE *f;
		bool in_pf = false;

		if (!isdigit((unsigned char)ents[i]->d_name[0]) ||
		    !strncmp(ents[i]->d_name, "0000", 4) ||
		    !strstr(ents[i]->d_name, ".patch"))
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		f = fopen(path, "r");
		if (!f) {
			bad_input(path, "cannot open (%s)", strerror(errno));
			goto next;
		}
		while (fgets(line, sizeof(line), f)) {
			int bits;

			if (!strncmp(line, "diff --git a/", 13)) {
				sscanf(line + 13, "%255s", cur);
				subsys_of(cur, sub, sizeof(sub));
				for (si = 0; si < c->nsub; si++)
					if (!strcmp(c->subsys[si], sub))
						break;
				if (si == c->nsub && c->nsub < 16)
					scopy(c->subsys[c->nsub++], 24, sub);
				if (si < 16)
					c->files[si]++;
				in_pf = strstr(cur, "page-flags.h") != NULL;
				continue;
			}
			if (si < 0 || si >= 16 || !strncmp(line, "+++", 3) ||
			    !strncmp(line, "---", 3))
				continue;
			if (line[0] == '+')
				c->add[si]++;
			else if (line[0] == '-')
				c->del[si]++;
			if (line[0] == '+' && in_pf) {
				char flag[32];

				if (sscanf(line + 1, " PG_%31[a-z_0-9],", flag) == 1 &&
				    !strstr(c->pageflags, flag) &&
				    strlen(c->pageflags) + strlen(flag) + 5 < sizeof(c->pageflags)) {
					if (c->pageflags[0])
						strcat(c->pageflags, ",");
					strcat(c->pageflags, "PG_");
					strcat(c->pageflags, flag);
				}
			}
			if (strstr(line, "BITS_TO_LONGS(") &&
			    sscanf(strstr(line, "BITS_TO_LONGS(") + 14, "%d * nr_blocks", &bits) == 1) {
				if (line[0] == '-')
					c->ifs_bits_old = bits;
				else if (line[0] == '+')
					c->ifs_bits_new = bits;
			}
			if (line[0] == '+' && strstr(cur, "include/linux/fs.h")) {
				char type[32], field[64];

				if (sscanf(line + 1, " %31[a-z_0-9] %63[a-z_0-9];", type, field) == 2 &&
				    strchr(line, ';') && !strchr(line, '(') &&
				    strlen(c->mapping_fields) + strlen(field) + 40 <
					    sizeof(c->mapping_fields)) {
					j = strlen(c->mapping_fields);
					snprintf(c->mapping_fields + j, sizeof(c->mapping_fields) - j,
						 "%s%s %s", j ? ", " : "", type, field);
				}
			}
		}
		fclose(f);
next:
		free(ents[i]);
	}
	free(ents);
	ncosts++;
}
