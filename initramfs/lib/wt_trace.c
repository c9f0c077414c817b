// SPDX-License-Identifier: GPL-2.0
/* wt_trace.c: the ordered device trace (wt_trace.h). */
#include "wt_trace.h"

struct wt_trace *wt_tr(void)
{
	static struct wt_trace t = { .marker_fd = -1 };

	return &t;
}

int wt_tr_start(void)
{
	struct wt_trace *t = wt_tr();
	int ret;

	kf_write(WT_EV_SCSI "enable", "0", 0);
	ret = kf_write(WT_TRACEFS "/buffer_size_kb", "16384", 0);
	if (!ret)
		ret = kf_write(WT_TRACEFS "/trace_clock", "global", 0);
	if (!ret)
		ret = kf_write(WT_TRACEFS "/trace", "", O_TRUNC);
	if (!ret)
		ret = kf_write(WT_TRACEFS "/tracing_on", "1", 0);
	if (!ret)
		ret = kf_write(WT_EV_SCSI "scsi_dispatch_cmd_start/enable", "1", 0);
	if (!ret)
		ret = kf_write(WT_EV_SCSI "scsi_dispatch_cmd_done/enable", "1", 0);
	if (ret)
		return ret;
	if (t->marker_fd < 0)
		t->marker_fd = open(WT_TRACEFS "/trace_marker", O_WRONLY);
	return t->marker_fd < 0 ? -errno : 0;
}

void wt_mark(const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "atw ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	if (wt_tr()->marker_fd >= 0 && write(wt_tr()->marker_fd, buf, n) < 0)
		return;
}

void wt_tr_classify(struct wt_ev *e, unsigned int lbs)
{
	struct devcmd c;

	devcount_decode(&c, e->cdb, e->cdblen, lbs);
	e->cmd = (enum wt_cmd_kind)c.kind;
	e->fua = c.fua;
	e->off = c.offset;
	e->bytes = c.bytes;
}

int wt_tr_field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? atoi(p + strlen(key)) : -1;
}

void wt_tr_add(struct wt_trace *t, const struct wt_ev *e)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
		if (!t->ev) {
			perror("realloc");
			abort();
		}
	}
	t->ev[t->n++] = *e;
}

int wt_tr_stop(unsigned int lbs)
{
	struct wt_trace *t = wt_tr();
	char *line = NULL;
	size_t cap = 0;
	int i, j;
	FILE *f;

	kf_write(WT_EV_SCSI "scsi_dispatch_cmd_start/enable", "0", 0);
	kf_write(WT_EV_SCSI "scsi_dispatch_cmd_done/enable", "0", 0);
	t->n = 0;
	f = fopen(WT_TRACEFS "/trace", "r");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct wt_ev e;
		const char *m;

		if (line[0] == '#')
			continue;
		memset(&e, 0, sizeof(e));
		e.pair = -1;
		if (strstr(line, "scsi_dispatch_cmd_start:"))
			e.kind = WT_EV_START;
		else if (strstr(line, "scsi_dispatch_cmd_done:"))
			e.kind = WT_EV_DONE;
		else if ((m = strstr(line, "tracing_mark_write: atw ")))
			e.kind = WT_EV_MARK;
		else
			continue;
		if (e.kind == WT_EV_MARK) {
			snprintf(e.mark, sizeof(e.mark), "%s", m + strlen("tracing_mark_write: atw "));
			e.mark[strcspn(e.mark, "\n")] = 0;
		} else {
			e.tag = wt_tr_field(line, "driver_tag=");
			e.cdblen = devcount_parse_raw(line, e.cdb, sizeof(e.cdb));
			if (e.cdblen < 0)
				e.cdblen = 0;
			wt_tr_classify(&e, lbs);
			if (e.kind == WT_EV_DONE)
				e.failed = !strstr(line, "status=SAM_STAT_GOOD");
		}
		wt_tr_add(t, &e);
	}
	free(line);
	fclose(f);
	kf_write(WT_TRACEFS "/trace_clock", "local", 0);
	/* Pair each dispatch with the next completion of the same tag and CDB. */
	for (i = 0; i < t->n; i++) {
		if (t->ev[i].kind != WT_EV_START)
			continue;
		for (j = i + 1; j < t->n; j++) {
			struct wt_ev *d = &t->ev[j];

			if (d->kind == WT_EV_DONE && d->pair < 0 && d->tag == t->ev[i].tag &&
			    d->cdblen == t->ev[i].cdblen &&
			    !memcmp(d->cdb, t->ev[i].cdb, d->cdblen)) {
				d->pair = i;
				t->ev[i].pair = j;
				break;
			}
		}
	}
	return 0;
}

int wt_tr_is_write(const struct wt_ev *e)
{
	return e->kind == WT_EV_START && (e->cmd == WT_CMD_WRITE || e->cmd == WT_CMD_ATOMIC);
}

void wt_tr_writes(struct devcount *atomics, struct devcount *plain)
{
	const struct wt_trace *t = wt_tr();
	int i;

	memset(atomics, 0, sizeof(*atomics));
	memset(plain, 0, sizeof(*plain));
	for (i = 0; i < t->n; i++) {
		const struct wt_ev *ev = &t->ev[i];
		struct devcount *dc = ev->cmd == WT_CMD_ATOMIC ? atomics : plain;

		if (!wt_tr_is_write(ev) || dc->ncmd >= DEVCOUNT_MAX_CMDS)
			continue;
		dc->cmd[dc->ncmd].kind = (enum devcmd_kind)ev->cmd;
		dc->cmd[dc->ncmd].offset = ev->off;
		dc->cmd[dc->ncmd].bytes = ev->bytes;
		dc->ncmd++;
		if (ev->cmd == WT_CMD_ATOMIC)
			dc->atomics++;
		else
			dc->writes++;
	}
}

int wt_tr_end(int i)
{
	struct wt_trace *t = wt_tr();

	return t->ev[i].pair >= 0 ? t->ev[i].pair : t->n;
}

int wt_tr_find_mark(int from, const char *text)
{
	struct wt_trace *t = wt_tr();
	int i;

	for (i = from < 0 ? 0 : from; i < t->n; i++)
		if (t->ev[i].kind == WT_EV_MARK && !strcmp(t->ev[i].mark, text))
			return i;
	return -1;
}

int wt_tr_overlap(const struct wt_ev *a, const struct wt_ev *b)
{
	return a->off < b->off + b->bytes && b->off < a->off + a->bytes;
}

int wt_tr_concurrent_overlaps(uint64_t lo, uint64_t hi)
{
	struct wt_trace *t = wt_tr();
	int i, j, n = 0;

	for (i = 0; i < t->n; i++) {
		const struct wt_ev *a = &t->ev[i];

		if (!wt_tr_is_write(a) || a->off + a->bytes <= lo || a->off >= hi)
			continue;
		for (j = i + 1; j < wt_tr_end(i); j++) {
			const struct wt_ev *b = &t->ev[j];

			if (!wt_tr_is_write(b) || !wt_tr_overlap(a, b))
				continue;
			if (n++ < 4)
				printf("#   in flight together: write %llu+%llu (event %d) and %llu+%llu (event %d)\n",
				       (unsigned long long)a->off, (unsigned long long)a->bytes, i,
				       (unsigned long long)b->off, (unsigned long long)b->bytes, j);
		}
	}
	return n;
}

int wt_tr_max_inflight_writes(void)
{
	struct wt_trace *t = wt_tr();
	int i, cur = 0, max = 0;

	for (i = 0; i < t->n; i++) {
		const struct wt_ev *e = &t->ev[i];

		if (wt_tr_is_write(e)) {
			if (++cur > max)
				max = cur;
		} else if (e->kind == WT_EV_DONE && e->pair >= 0 &&
			   wt_tr_is_write(&t->ev[e->pair])) {
			cur--;
		}
	}
	return max;
}
