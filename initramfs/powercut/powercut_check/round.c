// SPDX-License-Identifier: GPL-2.0
/*
 * round.c: one cut, and one configuration's cuts with their summary line.
 */
#include "powercut_check.h"

static int one_round(struct run *r, unsigned int round)
{
	struct writer *w = calloc(opt.threads, sizeof(*w));
	pthread_t *tid = calloc(opt.threads, sizeof(*tid));
	pthread_t otid;
	unsigned long ok = 0, eio = 0, torn, dtorn, dinfl;
	long long a0, a1, w0, w1;
	uint64_t s = opt.seed ^ ((uint64_t)r->cfg_idx << 40) ^ round;
	unsigned int t, cut_at;
	char last[256];
	int ret;

	ret = write_baseline(r);
	if (ret) {
		check(0, "%s cut %u: baseline written and synced (%s)", r->cfg->name,
		      round, strerror(-ret));
		return ret;
	}
	r->round_seed = mix64(&s);
	/*
	 * Anywhere in the stream of device writes: as many as write calls
	 * at first, then as many as a stream that ended uncut produced
	 * (buffered writes reach the device merged, at writeback).
	 */
	cut_at = 1 + r->round_seed % r->stream_est;
	if (pcblk_set("seed", "%llu", (unsigned long long)r->round_seed) ||
	    pcblk_set("cut_after", "%u", cut_at))
		tap_bail("cannot arm the cut in " PCBLK_DIR);
	a0 = pcblk_stat("atomic_writes");
	w0 = pcblk_writes();

	for (t = 0; t < opt.threads; t++)
		r->busy[t] = r->last[t] = -1;
	r->stop = false;
	if (r->cfg->mix == X_MMAP) {
		r->map = mmap(NULL, (size_t)r->nunits * r->unit, PROT_READ | PROT_WRITE,
			      MAP_SHARED, r->fd, 0);
		if (r->map == MAP_FAILED)
			tap_bail("%s: mmap of %s: %s", r->cfg->name, r->path, strerror(errno));
	}
	for (t = 0; t < opt.threads; t++) {
		w[t] = (struct writer){ .r = r, .id = t,
					.nwrites = opt.writes / opt.threads };
		pthread_create(&tid[t], NULL, writer_main, &w[t]);
	}
	if (r->cfg->mix != X_NONE)
		pthread_create(&otid, NULL, overwriter_main, r);
	for (t = 0; t < opt.threads; t++) {
		pthread_join(tid[t], NULL);
		ok += w[t].ok;
		eio += w[t].eio;
		r->ok += w[t].ok;
		r->acked += w[t].acked;
		r->failed_eio += w[t].eio;
		r->failed_other += w[t].other;
		r->atomic_ok += w[t].atomic_ok;
		r->sync_eio += w[t].sync_eio;
		if (w[t].other)
			diag("%s cut %u: writer %u failed with %s", r->cfg->name, round,
			     t, strerror(w[t].first_err));
		if (w[t].again)
			diag("%s cut %u: writer %u: %lu atomic writes gave up with EAGAIN beside the stores",
			     r->cfg->name, round, t, w[t].again);
	}
	if (r->cfg->mix != X_NONE) {
		__atomic_store_n(&r->stop, true, __ATOMIC_SEQ_CST);
		pthread_join(otid, NULL);
	}
	if (r->map) {
		munmap(r->map, (size_t)r->nunits * r->unit);
		r->map = NULL;
	}
	w1 = pcblk_writes();
	if (pcblk_powered()) {
		r->notcut++;
		if (w1 > w0)
			r->stream_est = w1 - w0;
		pcblk_set("cut", "now");
	} else {
		r->midstream++;
	}
	a1 = pcblk_stat("atomic_writes");
	if (a0 >= 0 && a1 >= a0)
		r->dev_atomic += a1 - a0;
	parse_last_cut(&dtorn, &dinfl, last, sizeof(last));
	r->dev_torn += dtorn;
	r->dev_inflight += dinfl;

	ret = recover(r);
	if (ret) {
		check(0, "%s cut %u: power restored and %s reopened (%s)", r->cfg->name,
		      round, r->cfg->target == T_XFS ? "XFS remounted," : "the device",
		      strerror(-ret));
		free(w);
		free(tid);
		return ret;
	}
	torn = verify_units(r, round);
	if (opt.verbose || opt.cuts <= 8 || (torn && r->cfg->expect == E_UNTORN))
		diag("%s cut %u: seed %#llx cut_after %u: %lu ok, %lu EIO; device: %s; torn units %lu",
		     r->cfg->name, round, (unsigned long long)r->round_seed, cut_at,
		     ok, eio, last, torn);
	free(w);
	free(tid);
	return 0;
}

/* Why the configuration cannot run here, or NULL. Sets unit. */
static const char *config_skip(struct run *r, char *why, size_t size)
{
	const struct pc_config *c = r->cfg;
	struct atw_limits l;
	struct statfs sfs;
	int ret;

	if (c->target == T_XFS) {
		if (!opt.mnt)
			return "no XFS mount given (-m)";
		if (statfs(opt.mnt, &sfs) || sfs.f_type != XFS_SUPER_MAGIC)
			return "the -m directory is not an XFS mount";
		r->fsblock = sfs.f_bsize;
		r->unit = opt.unit ? opt.unit : r->fsblock;
		if (r->unit < (size_t)sfs.f_bsize)
			return "the -u unit is smaller than a file system block";
	}
	if ((c->needs & N_WRITETHROUGH) && !PC_RWF_WT)
		return "the uapi headers define no RWF_WRITETHROUGH";
	ret = atw_statx_limits(-1, c->target == T_XFS ? r->path : opt.dev, &l);
	if (ret) {
		snprintf(why, size, "statx: %s", strerror(-ret));
		return why;
	}
	if (c->target == T_RAW) {
		r->unit = RAW_UNIT;
		if (l.dio && r->unit < l.dio_min)
			r->unit = l.dio_min;
		if (l.dio && r->unit > l.dio_max)
			r->unit = l.dio_max;
	}
	if ((c->needs & N_DIO_ATOMIC) &&
	    (!l.dio || r->unit < l.dio_min || r->unit > l.dio_max)) {
		snprintf(why, size, "statx advertises no DIO atomic write of %zu bytes (%s [%u..%u])",
			 r->unit, l.dio ? "limits" : "none", l.dio_min, l.dio_max);
		return why;
	}
	if ((c->needs & N_BUF_ATOMIC) &&
	    (!l.buf || r->unit < l.buf_min || r->unit > l.buf_max)) {
		snprintf(why, size, "statx advertises no buffered atomic write of %zu bytes (%s)",
			 r->unit, !l.buf_known ? "uapi has no STATX_WRITE_ATOMIC_BUF" :
			 l.buf ? "outside its limits" : "none");
		return why;
	}
	if (c->expect == E_TORN && r->unit <= r->lbs)
		return "a one-block unit cannot tear at block boundaries on this disk";
	return NULL;
}

/*
 * One write of the configuration's kind before the rounds. Buffered
 * RWF_ATOMIC without RWF_WRITETHROUGH is refused on the write-through
 * design (EOPNOTSUPP) even though statx advertises buffered atomic limits:
 * that is the design's rule, so it is a skip. Any other failure of an
 * advertised write is a failure.
 */
static int probe_write(struct run *r, char *why, size_t size)
{
	const struct pc_config *c = r->cfg;
	void *buf = atw_alloc(r->unit);
	ssize_t ret;

	atw_fill(buf, r->unit, r->base, 0);
	ret = atw_pwrite(r->fd, buf, r->unit, r->base, c->rwf);
	free(buf);
	if (ret == (ssize_t)r->unit)
		return 0;
	if (ret == -EOPNOTSUPP && PC_RWF_WT && !c->direct &&
	    (c->rwf & RWF_ATOMIC) && !(c->rwf & PC_RWF_WT)) {
		snprintf(why, size, "buffered RWF_ATOMIC without RWF_WRITETHROUGH is refused here (EOPNOTSUPP)");
		return 1;
	}
	check(0, "%s: a first %zu-byte write with flags %#x succeeds (%s)", c->name,
	      r->unit, c->rwf, strerror(ret < 0 ? (int)-ret : EIO));
	return -1;
}

static void summary(struct run *r, const char *result, const char *why)
{
	printf("# powercut: config=%s dev=%s lbs=%u unit=%zu cuts=%u midstream=%lu writes=%lu acked=%lu eio=%lu torn=%lu mixed=%lu lost=%lu bad=%lu tailw=%lu during=%lu expect=%s result=%s%s%s%s\n",
	       r->cfg->name, opt.dev, r->lbs, r->unit, r->rounds,
	       r->midstream, r->ok, r->acked, r->failed_eio + r->sync_eio,
	       r->torn, r->mixed, r->lost, r->bad, r->tail_writes, r->tail_during,
	       r->cfg->expect == E_UNTORN ? "untorn" : r->cfg->expect == E_TORN ? "torn" : "info",
	       result, why ? " reason=\"" : "", why ? why : "",
	       why ? "\"" : "");
}

bool run_config(const struct pc_config *c, int idx)
{
	/* Generations are unique across rounds and configurations. */
	struct run r = { .cfg = c, .cfg_idx = idx, .fd = -1,
			 .next_gen = ((uint64_t)idx << 40) + 1 };
	const char *why;
	char whybuf[192];
	unsigned int round;
	bool pass = true;
	long long v;

	v = atw_disk_queue_attr(opt.dev, "logical_block_size");
	r.lbs = v > 0 ? v : 512;
	r.nunits = NR_UNITS;
	if (c->target == T_XFS)
		snprintf(r.path, sizeof(r.path), "%s/powercut-%s.dat",
			 opt.mnt ? opt.mnt : ".", c->name);
	else
		snprintf(r.path, sizeof(r.path), "%s", opt.dev);
	r.base = c->target == T_RAW ? RAW_BASE : 0;

	/* Files must exist for statx to describe them. */
	if (c->target == T_XFS && opt.mnt && open_target(&r) == 0) {
		close(r.fd);
		r.fd = -1;
	}
	why = config_skip(&r, whybuf, sizeof(whybuf));
	if (!why && open_target(&r))
		why = "cannot open the target";
	if (!why) {
		int ret = probe_write(&r, whybuf, sizeof(whybuf));

		if (ret < 0) {
			summary(&r, "fail", "the first write failed");
			close(r.fd);
			return false;
		}
		if (ret > 0)
			why = whybuf;
	}
	if (why) {
		skip(why, "%s: %s", c->name, c->what);
		summary(&r, "skip", why);
		if (r.fd >= 0)
			close(r.fd);
		return true;
	}
	if (!pcblk_powered())
		pcblk_set("restore", "1");

	r.ngen = opt.writes + 2 * opt.threads + 2;
	if (c->mix != X_NONE) {
		r.tail = r.unit / 4 < 512 ? 512 : r.unit / 4;
		r.ngen += 2 * opt.writes;	/* the tail writes' */
		signal(SIGBUS, on_sigbus);
	}
	r.stream_est = opt.writes;
	r.ack_gen = calloc(r.nunits, sizeof(*r.ack_gen));
	r.gen_unit = calloc(r.ngen, sizeof(*r.gen_unit));
	r.busy = calloc(opt.threads, sizeof(*r.busy));
	r.last = calloc(opt.threads, sizeof(*r.last));
	diag("%s: %s; %u units of %zu bytes on %s (lbs %u), %u writes x %u threads per cut, seed %#llx",
	     c->name, c->what, r.nunits, r.unit, r.path, r.lbs, opt.writes,
	     opt.threads, opt.seed);

	/*
	 * A negative control gets up to four times the cuts until it sees a
	 * tear: a few cuts can all land where no plain write was in the
	 * volatile cache, and a checker blind to tears sees none in any.
	 */
	for (round = 1; round <= opt.cuts ||
	     (c->expect == E_TORN && !r.torn && round <= 4 * opt.cuts); round++) {
		memset(r.gen_unit, 0xff, r.ngen * sizeof(*r.gen_unit));
		if (one_round(&r, round)) {
			r.broken = true;
			break;
		}
		r.rounds++;
	}
	if (r.fd >= 0)
		close(r.fd);

	pass &= check(!r.broken, "%s: %u of %u cuts, each followed by a restore and a full re-read",
		      c->name, r.rounds, opt.cuts);
	pass &= check(!r.failed_other, "%s: writes failed only with EIO after the cut (%lu other failures)",
		      c->name, r.failed_other);
	pass &= check(!r.bad, "%s: every unit holds a generation written to it (%lu bad)",
		      c->name, r.bad);
	pass &= check(!r.lost, "%s: no acknowledged-durable write lost (%lu acknowledged, %lu lost)",
		      c->name, r.acked, r.lost);
	if (c->expect == E_UNTORN)
		pass &= check(!r.torn, "%s: no torn unit (%lu units checked, %lu torn)",
			      c->name, r.checked, r.torn);
	else if (c->expect == E_TORN)
		pass &= check(r.torn > 0, "%s (negative control): the checker sees torn units (%lu of %lu; device tore %lu writes)",
			      c->name, r.torn, r.checked, r.dev_torn);
	else
		diag("%s: %lu torn units of %lu (not judged: plain writes)", c->name,
		     r.torn, r.checked);
	/*
	 * A write can complete at the device and still fail the call (the
	 * RWF_DSYNC flush after it meets the cut), so the device count lies
	 * between the calls that succeeded and those that were issued.
	 */
	/*
	 * A unit of several blocks is one REQ_ATOMIC write where the file's
	 * extent allows it and otherwise written out of place with plain
	 * writes (docs/design.md, "Units above one block"): at most one.
	 */
	if (c->direct && (c->rwf & RWF_ATOMIC) && r.fsblock && r.unit > r.fsblock) {
		pass &= check(r.dev_atomic <= r.atomic_ok + r.failed_eio,
			      "%s: at most one REQ_ATOMIC write at the device per RWF_ATOMIC call (%lu at the device: in place; %lu calls succeeded, %lu failed)",
			      c->name, r.dev_atomic, r.atomic_ok, r.failed_eio);
	} else if (c->direct && (c->rwf & RWF_ATOMIC))
		pass &= check(r.dev_atomic >= r.atomic_ok &&
			      r.dev_atomic <= r.atomic_ok + r.failed_eio,
			      "%s: one REQ_ATOMIC write at the device per RWF_ATOMIC call (%lu at the device, %lu calls succeeded, %lu failed)",
			      c->name, r.dev_atomic, r.atomic_ok, r.failed_eio);
	if (c->mix != X_NONE) {
		pass &= check(r.tail_writes > 0, "%s: the tails were overwritten (%lu %s of %zu bytes, %lu during an atomic write of the unit)",
			      c->name, r.tail_writes, c->mix == X_MMAP ? "mmap stores" : "plain writes",
			      r.tail, r.tail_during);
		if (r.tail_failed || r.tail_sigbus)
			diag("%s: %lu tail writes failed, %lu stores got SIGBUS (after the cut)",
			     c->name, r.tail_failed, r.tail_sigbus);
	}
	if (r.midstream < opt.cuts)
		diag("%s: %lu of %u cuts landed mid-stream (%lu at the end of the stream)",
		     c->name, r.midstream, opt.cuts, r.notcut);
	summary(&r, pass ? "pass" : "fail", NULL);
	free(r.ack_gen);
	free(r.gen_unit);
	free(r.busy);
	free(r.last);
	return pass;
}
