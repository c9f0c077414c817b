// SPDX-License-Identifier: GPL-2.0
/*
 * model.c: random numbers, the operation log, failures, the model of the
 * files and the checks against it, opening the files.
 */
#include "randops.h"

/* --- random numbers (splitmix64) --- */
uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

uint64_t rup(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

uint64_t rdown(uint64_t v, uint64_t a)
{
	return v / a * a;
}

uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- the operation log --- */
void op_str(const struct op *o, char *s, size_t n)
{
	int k = snprintf(s, n, "#%u %s f%u f%u sub=%u n=%u gen=%llu off=%llu len=%llu off2=%llu bufoff=%u",
			 o->seq, kinds[o->kind].name, o->file, o->file2, o->sub, o->n,
			 (unsigned long long)o->gen, (unsigned long long)o->off,
			 (unsigned long long)o->len, (unsigned long long)o->off2, o->bufoff);

	if (o->grp && k > 0 && (size_t)k < n)
		snprintf(s + k, n - k, " [group %u, +%u us]", o->grp - 1, o->delay);
}

void log_op(const struct op *o)
{
	if (nops == capops) {
		capops = capops ? 2 * capops : 4096;
		ops = realloc(ops, capops * sizeof(*ops));
		if (!ops)
			tap_bail("out of memory for the operation log");
	}
	ops[nops++] = *o;
}

void print_last(void)
{
	size_t i = nops > NLAST ? nops - NLAST : 0;
	char s[256];

	diag("last %zu operations:", nops - i);
	for (; i < nops; i++) {
		op_str(&ops[i], s, sizeof(s));
		diag("  %s", s);
	}
}

void write_log(const char *why)
{
	char path[512];
	size_t i;
	FILE *f;

	if (logpath)
		snprintf(path, sizeof(path), "%s", logpath);
	else
		snprintf(path, sizeof(path), "%s/randops-s%llu-bs%u-sd%u.log",
			 access("/results", W_OK) ? "." : "/results",
			 (unsigned long long)cur_seed, bs, lbs);
	f = fopen(path, "w");
	if (!f) {
		diag("cannot write the log %s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "# randops log: seed %llu, %zu ops, fs block %u, sector %u: %s\n",
		(unsigned long long)cur_seed, nops, bs, lbs, why);
	fprintf(f, "# params lo=%llu maxf=%llu\n", (unsigned long long)lo,
		(unsigned long long)maxf);
	for (i = 0; i < nops; i++) {
		const struct op *o = &ops[i];

		fprintf(f, "%u %s %u %u %u %u %llu %llu %llu %llu %u %u %u\n", o->seq,
			kinds[o->kind].name, o->file, o->file2, o->sub, o->n,
			(unsigned long long)o->gen, (unsigned long long)o->off,
			(unsigned long long)o->len, (unsigned long long)o->off2, o->bufoff,
			o->grp, o->delay);
	}
	fclose(f);
	diag("operation log: %s (replay: randops -r %s DIR)", path, path);
}

/* Records the first failure of the current sequence; returns -1. */
int bad(const struct op *o, const char *fmt, ...)
{
	char s[256], m[800];
	va_list ap;

	/* in a power-cut round, what fails once the power is off is the cut's */
	if (cutting && !pcblk_powered()) {
		cut_seen = true;
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	op_str(o, s, sizeof(s));
	diag("MISMATCH in %s: %s", s, m);
	if (!failed)
		snprintf(failmsg, sizeof(failmsg), "op #%u %s: %s", o->seq, kinds[o->kind].name, m);
	failed = true;
	kinds[o->kind].failed++;
	return -1;
}

/* --- data and model --- */
void fill(unsigned char *b, uint64_t off, uint64_t len, uint64_t gen)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		b[i] = wt_byte(off + i, gen);
}

void model_write(struct rfile *f, uint64_t off, const unsigned char *b, uint64_t len)
{
	memmove(f->data + off, b, len);
	if (off + len > f->size)
		f->size = off + len;
}

void model_zero(struct rfile *f, uint64_t off, uint64_t len)
{
	if (off >= f->size)
		return;
	memset(f->data + off, 0, min64(len, f->size - off));
}

void model_truncate(struct rfile *f, uint64_t size)
{
	if (size < f->size)
		memset(f->data + size, 0, f->size - size);
	f->size = size;
}

static void hex(char *s, const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(s + 3 * i, "%02x ", b[i]);
	if (n)
		s[3 * n - 1] = 0;
	else
		s[0] = 0;
}

/* Compares got (file range [off, off + n) of file fi) with the model. */
int cmp_model(const struct op *o, int fi, uint64_t off, const unsigned char *got,
		     uint64_t n, const char *how)
{
	const unsigned char *want = files[fi].data + off;
	char w[64], g[64];
	uint64_t i, k;

	if (!memcmp(want, got, n))
		return 0;
	for (i = 0; want[i] == got[i]; i++)
		;
	k = min64(n - i, 16);
	hex(w, want + i, k);
	hex(g, got + i, k);
	return bad(o, "%s: file %d byte %llu (of [%llu, +%llu)): expected %s, found %s", how, fi,
		   (unsigned long long)(off + i), (unsigned long long)off, (unsigned long long)n,
		   w, g);
}

/* pread [off, off + len) of file fi through the cache and compare. */
int check_read(const struct op *o, int fi, uint64_t off, uint64_t len, const char *how)
{
	struct rfile *f = &files[fi];
	uint64_t want = off >= f->size ? 0 : min64(len, f->size - off);
	ssize_t ret = pread(f->fd, rdbuf, len, off);

	if (ret < 0)
		return bad(o, "%s: read %llu at %llu: %s", how, (unsigned long long)len,
			   (unsigned long long)off, strerror(errno));
	if ((uint64_t)ret != want)
		return bad(o, "%s: read %llu at %llu returned %zd, size %llu says %llu", how,
			   (unsigned long long)len, (unsigned long long)off, ret,
			   (unsigned long long)f->size, (unsigned long long)want);
	return cmp_model(o, fi, off, rdbuf, want, how);
}

int check_sizes(const struct op *o)
{
	struct stat st;
	int i;

	for (i = 0; i < NFILES; i++) {
		if (fstat(files[i].fd, &st))
			return bad(o, "fstat file %d: %s", i, strerror(errno));
		if ((uint64_t)st.st_size != files[i].size)
			return bad(o, "file %d size is %lld, model says %llu", i,
				   (long long)st.st_size, (unsigned long long)files[i].size);
	}
	return 0;
}

int verify_file(const struct op *o, int fi, const char *how)
{
	uint64_t off;

	for (off = lo; off < files[fi].size; off += MAXW)
		if (check_read(o, fi, off, MAXW, how))
			return -1;
	return 0;
}


/* --- files --- */
void open_files(void)
{
	char path[512];
	int i;

	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/randops.%d", atw_env()->dir, i);
		unlink(path);
		files[i].fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		files[i].dfd = open(path, O_RDWR | O_DIRECT);
		files[i].afd = open(path, O_WRONLY | O_APPEND);
		if (files[i].fd < 0 || files[i].dfd < 0 || files[i].afd < 0)
			tap_bail("open %s: %s", path, strerror(errno));
		if (!files[i].data)
			files[i].data = malloc(maxf + MAXW);
		if (!files[i].data)
			tap_bail("out of memory");
		memset(files[i].data, 0, maxf + MAXW);
		files[i].size = 0;
		files[i].shared = false;
	}
	if (lo) {	/* file 0's head: the mmap thread's */
		if (ftruncate(files[0].fd, lo))
			tap_bail("ftruncate: %s", strerror(errno));
		files[0].size = lo;
		if (files[1].size < lo && ftruncate(files[1].fd, lo) == 0)
			files[1].size = lo;
	}
}

void close_files(void)
{
	int i;

	for (i = 0; i < NFILES; i++) {
		close(files[i].fd);
		close(files[i].dfd);
		close(files[i].afd);
	}
}

/* Reopens the files as they are (after a power cut and a remount). */
void reopen_files(void)
{
	char path[512];
	int i;

	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/randops.%d", atw_env()->dir, i);
		files[i].fd = open(path, O_RDWR);
		files[i].dfd = open(path, O_RDWR | O_DIRECT);
		files[i].afd = open(path, O_WRONLY | O_APPEND);
		if (files[i].fd < 0 || files[i].dfd < 0 || files[i].afd < 0)
			tap_bail("reopen %s after the power cut: %s", path, strerror(errno));
	}
}
