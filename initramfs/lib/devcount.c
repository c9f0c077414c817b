// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devcount.h"
#include "kfile.h"

#define TRACEFS "/sys/kernel/tracing"
#define EVENT TRACEFS "/events/scsi/scsi_dispatch_cmd_start"

int devcount_start(void)
{
	return devcount_start_kb(8192);
}

int devcount_start_kb(unsigned int kb)
{
	char size[16];
	int ret;

	ret = kf_write(EVENT "/enable", "0", 0);
	if (ret)
		return ret;
	snprintf(size, sizeof(size), "%u", kb);
	ret = kf_write(TRACEFS "/buffer_size_kb", size, 0);
	if (ret)
		return ret;
	/* Opening "trace" with O_TRUNC clears every CPU's buffer. */
	ret = kf_write(TRACEFS "/trace", "", O_TRUNC);
	if (ret)
		return ret;
	ret = kf_write(TRACEFS "/tracing_on", "1", 0);
	if (ret)
		return ret;
	return kf_write(EVENT "/enable", "1", 0);
}

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | *p++;
	return v;
}

void devcount_decode(struct devcmd *c, const uint8_t *cdb, int len,
		     unsigned int lbs)
{
	c->opcode = cdb[0];
	c->fua = 0;
	c->offset = 0;
	c->bytes = 0;
	if (len < 1) {
		c->kind = DEVCMD_OTHER;
		return;
	}
	switch (cdb[0]) {
	case 0x28: /* READ(10) */
		c->kind = DEVCMD_READ;
		if (len >= 10) {
			c->offset = be(cdb + 2, 4) * lbs;
			c->bytes = be(cdb + 7, 2) * lbs;
		}
		break;
	case 0x88: /* READ(16) */
		c->kind = DEVCMD_READ;
		if (len >= 16) {
			c->offset = be(cdb + 2, 8) * lbs;
			c->bytes = be(cdb + 10, 4) * lbs;
		}
		break;
	case 0x2a: /* WRITE(10) */
		if (len < 10)
			goto other;
		c->kind = DEVCMD_WRITE;
		c->fua = !!(cdb[1] & 0x08);
		c->offset = be(cdb + 2, 4) * lbs;
		c->bytes = be(cdb + 7, 2) * lbs;
		break;
	case 0x8a: /* WRITE(16) */
		if (len < 16)
			goto other;
		c->kind = DEVCMD_WRITE;
		c->fua = !!(cdb[1] & 0x08);
		c->offset = be(cdb + 2, 8) * lbs;
		c->bytes = be(cdb + 10, 4) * lbs;
		break;
	case 0x9c: /* WRITE ATOMIC(16) */
		if (len < 16)
			goto other;
		c->kind = DEVCMD_ATOMIC;
		c->fua = !!(cdb[1] & 0x08);
		c->offset = be(cdb + 2, 8) * lbs;
		c->bytes = be(cdb + 12, 2) * lbs;
		break;
	case 0x35: /* SYNCHRONIZE CACHE(10) */
	case 0x91: /* SYNCHRONIZE CACHE(16) */
		c->kind = DEVCMD_FLUSH;
		break;
	default:
other:
		c->kind = DEVCMD_OTHER;
	}
}

static void account(struct devcount *dc, const struct devcmd *c)
{
	switch (c->kind) {
	case DEVCMD_READ:
		dc->reads++;
		break;
	case DEVCMD_WRITE:
		dc->writes++;
		dc->write_bytes += c->bytes;
		break;
	case DEVCMD_ATOMIC:
		dc->atomics++;
		dc->atomic_bytes += c->bytes;
		break;
	case DEVCMD_FLUSH:
		dc->flushes++;
		break;
	case DEVCMD_OTHER:
		dc->others++;
		break;
	}
	if (c->fua)
		dc->fuas++;
	if (dc->ncmd < DEVCOUNT_MAX_CMDS)
		dc->cmd[dc->ncmd++] = *c;
}

int devcount_parse_raw(const char *line, uint8_t *cdb, int max)
{
	const char *p = strstr(line, "raw=");
	int n = 0;

	if (!p)
		return -1;
	p += 4;
	while (n < max) {
		char *end;
		unsigned long v;

		while (*p == ' ')
			p++;
		v = strtoul(p, &end, 16);
		if (end == p || end - p > 2)
			break;
		cdb[n++] = v;
		p = end;
	}
	return n;
}

static int lost_events(void)
{
	char path[128], buf[256];
	long cpu;
	int lost = 0;

	for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%ld/stats", cpu);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(buf, sizeof(buf), f)) {
			unsigned long v;

			if (sscanf(buf, "overrun: %lu", &v) == 1 && v)
				lost = 1;
			if (sscanf(buf, "dropped events: %lu", &v) == 1 && v)
				lost = 1;
		}
		fclose(f);
	}
	return lost;
}

int devcount_stop(struct devcount *dc, unsigned int lbs)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int ret;

	memset(dc, 0, sizeof(*dc));
	ret = kf_write(EVENT "/enable", "0", 0);
	if (ret)
		return ret;
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		uint8_t cdb[32];
		struct devcmd c;
		int n;

		if (line[0] == '#' || !strstr(line, "scsi_dispatch_cmd_start:"))
			continue;
		n = devcount_parse_raw(line, cdb, sizeof(cdb));
		if (n <= 0)
			continue;
		devcount_decode(&c, cdb, n, lbs);
		account(dc, &c);
	}
	free(line);
	fclose(f);
	if (lost_events())
		return -EOVERFLOW;
	return 0;
}

unsigned int devcount_writes_in(const struct devcount *dc, uint64_t off,
				uint64_t len)
{
	unsigned int i, n = 0;

	for (i = 0; i < dc->ncmd; i++) {
		const struct devcmd *c = &dc->cmd[i];

		if (c->kind != DEVCMD_WRITE && c->kind != DEVCMD_ATOMIC)
			continue;
		if (c->offset < off + len && off < c->offset + c->bytes)
			n++;
	}
	return n;
}

void devcount_print(const struct devcount *dc)
{
	unsigned int i;

	printf("# device: %u atomic (%llu B), %u write (%llu B), %u fua, %u flush, %u read, %u other\n",
	       dc->atomics, (unsigned long long)dc->atomic_bytes, dc->writes,
	       (unsigned long long)dc->write_bytes, dc->fuas, dc->flushes,
	       dc->reads, dc->others);
	for (i = 0; i < dc->ncmd && i < 16; i++)
		printf("#   op 0x%02x%s off %llu len %llu\n", dc->cmd[i].opcode,
		       dc->cmd[i].fua ? " FUA" : "",
		       (unsigned long long)dc->cmd[i].offset,
		       (unsigned long long)dc->cmd[i].bytes);
}
