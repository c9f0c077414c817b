// SPDX-License-Identifier: GPL-2.0
/*
 * writers.c: the writer threads of one cut, the overwriter of the mixed
 * configurations, the baseline, recovery after a cut.
 */
#include "powercut_check.h"

/* ---- small helpers ------------------------------------------------- */

uint64_t mix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

bool sector_stamp(const void *p, uint64_t off, uint64_t *gen)
{
	struct stamp s;

	memcpy(&s, p, sizeof(s));
	if (s.magic != STAMP_MAGIC || s.off != off ||
	    !atw_verify(p, 512, off, s.gen))
		return false;
	*gen = s.gen;
	return true;
}

/* ---- one configuration --------------------------------------------- */

static uint64_t new_gen(struct run *r)
{
	return __atomic_fetch_add(&r->next_gen, 1, __ATOMIC_RELAXED);
}

static uint64_t max_gen(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct run *r = w->r;
	const struct pc_config *c = r->cfg;
	uint64_t rng = r->round_seed ^ ((uint64_t)w->id << 48);
	unsigned int own = (r->nunits + opt.threads - 1 - w->id) / opt.threads;
	unsigned int *pend_u = calloc(opt.sync_every + 1, sizeof(*pend_u));
	uint64_t *pend_g = calloc(opt.sync_every + 1, sizeof(*pend_g));
	int rwf = c->rwf | (c->sync == S_DSYNC ? RWF_DSYNC : 0);
	void *buf = atw_alloc(r->unit);
	unsigned int i, npend = 0;

	for (i = 0; i < w->nwrites && own; i++) {
		unsigned int u = w->id + opt.threads * (mix64(&rng) % own);
		off_t off = r->base + (off_t)u * r->unit;
		uint64_t gen = new_gen(r);
		ssize_t ret;

		if (gen - r->base_gen < r->ngen)
			r->gen_unit[gen - r->base_gen] = u;
		atw_fill(buf, r->unit, off, gen);
		__atomic_store_n(&r->busy[w->id], (int)u, __ATOMIC_SEQ_CST);
		ret = atw_pwrite(r->fd, buf, r->unit, off, rwf);
		__atomic_store_n(&r->busy[w->id], -1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r->last[w->id], (int)u, __ATOMIC_SEQ_CST);
		/*
		 * An atomic write-through gives up with EAGAIN, writing
		 * nothing, when mmap stores keep dirtying its unit
		 * (docs/design.md, "Atomic write-throughs over dirty data").
		 */
		if (ret == -EAGAIN && (c->rwf & RWF_ATOMIC) && c->mix == X_MMAP) {
			w->again++;
			continue;
		}
		if (ret != (ssize_t)r->unit) {
			w->first_err = ret < 0 ? (int)-ret : EIO;
			if (ret == -EIO)
				w->eio++;
			else
				w->other++;
			break;
		}
		w->ok++;
		if (c->rwf & RWF_ATOMIC)
			w->atomic_ok++;
		if (c->sync == S_DSYNC) {
			r->ack_gen[u] = gen;
			w->acked++;
		} else if (c->sync == S_FDATASYNC) {
			pend_u[npend] = u;
			pend_g[npend++] = gen;
			if (npend == opt.sync_every) {
				if (fdatasync(r->fd)) {
					w->first_err = errno;
					if (errno == EIO)
						w->sync_eio++;
					else
						w->other++;
					break;
				}
				/* Per unit, later writes carry higher gens. */
				for (; npend; npend--)
					r->ack_gen[pend_u[npend - 1]] =
						max_gen(r->ack_gen[pend_u[npend - 1]],
							pend_g[npend - 1]);
				w->acked += opt.sync_every;
			}
		} else if (c->sync == S_WRITEBACK && (i + 1) % opt.sync_every == 0) {
			/* Starts writeback, waits for nothing, flushes nothing. */
			sync_file_range(r->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		}
	}
	free(buf);
	free(pend_u);
	free(pend_g);
	return NULL;
}

static __thread sigjmp_buf store_fault;
static __thread volatile sig_atomic_t storing;

/* An mmap store into a file whose filesystem shut down at the cut. */
void on_sigbus(int sig)
{
	if (!storing) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	siglongjmp(store_fault, 1);
}

/* One plain tail write of unit u with a new generation; false: no gens left. */
static bool tail_write(struct run *r, unsigned int u, void *buf)
{
	off_t off = r->base + (off_t)u * r->unit + (r->unit - r->tail);
	uint64_t gen = new_gen(r);

	if (gen - r->base_gen >= r->ngen)
		return false;
	r->gen_unit[gen - r->base_gen] = u;
	atw_fill(buf, r->tail, off, gen);
	if (r->cfg->mix == X_MMAP) {
		if (sigsetjmp(store_fault, 1)) {
			storing = 0;
			r->tail_sigbus++;
			return true;
		}
		storing = 1;
		memcpy(r->map + off, buf, r->tail);
		storing = 0;
	} else if (atw_pwrite(r->fd, buf, r->tail, off, 0) != (ssize_t)r->tail) {
		r->tail_failed++;
	}
	r->tail_writes++;
	return true;
}

/*
 * Overwrites tails while the writers run, paced by a short sleep and
 * bounded by the round's generations: alternately the unit a writer has
 * in flight (during; counted when that write was still in flight after
 * the overwrite) and the unit it wrote last (after).
 */
void *overwriter_main(void *arg)
{
	struct run *r = arg;
	uint64_t rng = r->round_seed ^ 0x6f766572ULL;
	void *buf = atw_alloc(r->tail);
	unsigned long n, done = 0;

	/* Two tail writes per atomic write at most: run_config sized ngen so. */
	for (n = 0; !__atomic_load_n(&r->stop, __ATOMIC_SEQ_CST) &&
	     done < 2 * opt.writes; n++) {
		unsigned int t = mix64(&rng) % opt.threads;
		int u = __atomic_load_n(n & 1 ? &r->last[t] : &r->busy[t], __ATOMIC_SEQ_CST);

		if (u < 0) {
			usleep(50);
			continue;
		}
		if (!tail_write(r, u, buf))
			break;
		done++;
		if (!(n & 1) && __atomic_load_n(&r->busy[t], __ATOMIC_SEQ_CST) == u)
			r->tail_during++;
		usleep(200);
	}
	free(buf);
	return NULL;
}

int open_target(struct run *r)
{
	int flags = O_RDWR | (r->cfg->direct ? O_DIRECT : 0);

	if (r->cfg->target == T_XFS)
		flags |= O_CREAT;
	r->fd = open(r->path, flags, 0644);
	return r->fd < 0 ? -errno : 0;
}

int write_baseline(struct run *r)
{
	void *buf = atw_alloc(r->unit);
	bool split = !r->laid_out && r->fsblock && r->unit > r->fsblock;
	char pad[sizeof(r->path) + 8];
	off_t padoff = 0;
	unsigned int u;
	int pfd = -1, ret = 0;

	if (split) {
		snprintf(pad, sizeof(pad), "%s.pad", r->path);
		pfd = open(pad, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (pfd < 0)
			split = false;
	}
	r->base_gen = new_gen(r);
	for (u = 0; u < r->nunits && !ret; u++) {
		off_t off = r->base + (off_t)u * r->unit;

		atw_fill(buf, r->unit, off, r->base_gen);
		if (split && (u & 1)) {
			/*
			 * The first time, odd units of several blocks a block
			 * at a time with a block of a pad file after each: one
			 * extent per block, so their atomic writes start out of
			 * place.
			 */
			size_t b;

			for (b = 0; b < r->unit / r->fsblock && !ret; b++) {
				if (atw_pwrite(r->fd, (char *)buf + b * r->fsblock,
					       r->fsblock, off + b * r->fsblock, 0) !=
				    (ssize_t)r->fsblock)
					ret = -EIO;
				else if (fallocate(pfd, 0, padoff, r->fsblock))
					ret = -errno;
				padoff += r->fsblock;
			}
		} else if (atw_pwrite(r->fd, buf, r->unit, off, 0) != (ssize_t)r->unit) {
			ret = -EIO;
		}
		r->ack_gen[u] = r->base_gen;
	}
	if (!ret && fsync(r->fd))
		ret = -errno;
	if (pfd >= 0)
		close(pfd);
	r->laid_out = !ret;
	free(buf);
	return ret;
}

/* Power back, and the target reopened as a fresh boot would see it. */
int recover(struct run *r)
{
	int i, ret;

	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->cfg->target == T_XFS) {
		/* Unmount with the power still off: nothing may reach the media. */
		for (i = 0; i < 50 && umount2(opt.mnt, 0); i++)
			usleep(100000);
		if (i == 50)
			return -errno;
	}
	ret = pcblk_set("restore", "1");
	if (ret)
		return ret;
	if (r->cfg->target == T_XFS) {
		if (mount(opt.dev, opt.mnt, "xfs", 0, NULL))
			return -errno;
	} else {
		int fd = open(opt.dev, O_RDONLY);

		if (fd >= 0) {
			ioctl(fd, BLKFLSBUF, 0);
			close(fd);
		}
	}
	return open_target(r);
}
