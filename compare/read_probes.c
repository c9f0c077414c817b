// SPDX-License-Identifier: GPL-2.0
/*
 * read_probes.c: DIR/probe.jsonl, one bench_probe line per behaviour and
 * mode ({"probe":ID,"mode":M,"bs":B,"lbs":L,"result":R,"detail":TEXT}).
 * scripts/compare runs bench_probe in round 1 only: there it must exist.
 */
#include "bad_inputs.h"
#include "json_in.h"
#include "readers.h"
#include "results.h"
#include "text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void probe_line(json_t *obj, const struct json_where *at, void *arg)
{
	const char *kernel = arg;
	struct probe *p = &probes[nprobes];

	if (nprobes >= MAX_PROBES || !jfield_str(obj, "probe", p->id, sizeof(p->id)))
		return;
	scopy(p->kernel, sizeof(p->kernel), kernel);
	jfield_str(obj, "mode", p->mode, sizeof(p->mode));
	jfield_str(obj, "result", p->result, sizeof(p->result));
	jfield_str(obj, "detail", p->detail, sizeof(p->detail));
	p->bs = (int)jfield_num(obj, "bs", at);
	p->lbs = (int)jfield_num(obj, "lbs", at);
	nprobes++;
}

void read_probes(const char *dir, const char *kernel, int round)
{
	char path[1200];

	snprintf(path, sizeof(path), "%s/probe.jsonl", dir);
	if (jsonl_each(path, probe_line, (void *)kernel) < 0 && round == 1)
		bad_input(path, "missing (%s)", strerror(errno));
}
