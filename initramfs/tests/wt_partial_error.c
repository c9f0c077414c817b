// SPDX-License-Identifier: GPL-2.0
/*
 * A write-through whose first part reaches the device and is completed, and
 * whose last part fails (DIR an XFS): what the call returns, where it leaves
 * the caller's iov_iter, what fsync says, what the file holds.
 *
 * The write is LEN = 8 MiB + one unit (a block, or a page if larger). Its
 * last source page is a userfaultfd "missing" page, so the copy stops there
 * until this test supplies it; by then everything before it has been
 * written and completed (the write completes what it holds before it faults
 * the source in, and holds at most 8 MiB). The test then makes the next data
 * write commands fail (scsi_debug error injection, with the midlayer's
 * retries) and supplies the page: the last unit's bio fails. The device
 * trace must show the failures at the last unit's command (at its address,
 * or, where the write allocates, of its length); a round whose failures went
 * to other writes (the log, another file) is made again, up to four times.
 *  - over a written file, pwritev2: the call returns the 8 MiB completed
 *    (not -EIO: they are part of the file); the last unit reads the old data
 *    through the cache and from the device, the 8 MiB the new data;
 *  - the same with a dirty block of an earlier buffered write in the 8 MiB,
 *    which the write-through took over and wrote: fsync returns 0 (that
 *    block is on the device: an error there would be spurious);
 *  - through io_uring (the write is issued from a worker, as it is too long
 *    for a non-blocking issue): the CQE carries the same count, or the
 *    whole length if io_uring retried the rest from where the write left
 *    the iov_iter, and the file agrees with it: new data up to the count,
 *    old data after it;
 *  - into an empty file (the write extends it): the call returns the 8 MiB,
 *    and the size is 8 MiB.
 * A write that returns without faulting on its last source page fails the
 * round (it is not waited for: the userfaultfd is polled, non-blocking).
 *
 * usage: wt_partial_error DIR
 */
#include "lib/wt_common.h"

#include <linux/userfaultfd.h>
#include <liburing.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifdef RWF_WRITETHROUGH

#define HEAD	(8u << 20)	/* the part that is written */
#define STEP_MS	60000		/* a hang, not a measurement */

enum mode { M_CLEAN, M_DIRTY, M_URING, M_EXTEND, NMODES };
static const char *const mode_name[] = {
	"over written data", "with a dirty block taken over", "through io_uring",
	"extending an empty file",
};

static int fd, uffd;
static size_t bs, ps, unit, len;
static unsigned char *src;	/* len bytes; its last page is uffd-missing */
static ssize_t w_ret;
static enum mode w_mode;
static volatile int w_done;	/* the writer has returned */

/* The write-through of src, by pwritev2 or through io_uring: its result. */
static ssize_t write_src(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct iovec iov = { src, len };
	ssize_t res;
	int ret;

	if (w_mode != M_URING)
		return atw_pwrite(fd, src, len, 0, RWF_WRITETHROUGH);
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)	/* the harness's failure, not the write-through's */
		tap_bail("io_uring_queue_init: %s", strerror(-ret));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_writev2(sqe, fd, &iov, 1, 0, RWF_WRITETHROUGH);
	ret = io_uring_submit(&ring);
	if (ret == 1)
		ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret >= 0) {
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	} else {
		res = ret;
	}
	io_uring_queue_exit(&ring);
	return res;
}

static void *writer(void *arg)
{
	(void)arg;
	w_ret = write_src();
	__atomic_store_n(&w_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Waits (up to STEP_MS) for the writer's fault on the last source page: 1,
 * or 0 if the writer returned first, or -1 at the deadline. The uffd is
 * O_NONBLOCK: on a blocking one poll() reports EPOLLERR at once and read()
 * waits for a fault that a writer which returned early never makes.
 */
static int wait_fault(struct pollfd *pf)
{
	struct uffd_msg msg;
	int ms;

	for (ms = 0; ms < STEP_MS; ms += 100) {
		if (poll(pf, 1, 100) == 1 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT)
			return 1;
		if (__atomic_load_n(&w_done, __ATOMIC_ACQUIRE))
			return 0;
	}
	return -1;
}

/* Whether buf (file range [off, off + n)) is generation gen throughout. */
static bool is_gen(const unsigned char *buf, size_t n, off_t off, uint64_t gen)
{
	return wt_pattern_bad(buf, n, off, gen) < 0;
}

/*
 * One round; 0 if it proves nothing: the injected failures hit commands of
 * other writes (the log, another file), and the last unit's went through.
 */
static int round_once(enum mode m, uint8_t opcode)
{
	const char *what = mode_name[m];
	struct uffdio_register reg = { 0 };
	struct uffdio_copy copy = { 0 };
	struct pollfd pf = { .events = POLLIN };
	unsigned char *page, *buf;
	struct stat st;
	pthread_t t;
	off_t last = len - unit, dirty_off = HEAD / 2;
	size_t map_len = len - ps;	/* the part of src mapped normally */
	int armed = -1, err, judged = 1, faulted;
	unsigned char resident = 0;
	struct wt_injected inj = { .opcode = opcode };
	uint64_t lphys = 0;
	long bad;

	buf = atw_alloc(len);
	if (ftruncate(fd, 0))
		tap_bail("ftruncate: %s", strerror(errno));
	if (m != M_EXTEND) {
		/* The file: generation 1, written and on the device. */
		wt_pattern(buf, len, 0, 1);
		if (atw_pwrite(fd, buf, len, 0, 0) != (ssize_t)len || fsync(fd))
			tap_bail("pre-write: %s", strerror(errno));
		if (wt_phys(fd, last, &lphys))
			tap_bail("no extent under the last unit");
	}
	wt_drop_caches();
	/* An earlier buffered write leaves one block dirty in the head. */
	if (m == M_DIRTY) {
		wt_pattern(buf, bs, dirty_off, 2);
		if (atw_pwrite(fd, buf, bs, dirty_off, 0) != (ssize_t)bs)
			tap_bail("dirtying write: %s", strerror(errno));
	}

	/* The source: generation 3; its last page comes from userfaultfd. */
	src = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	/*
	 * Registered before the rest is filled: that splits the last page off
	 * into a VMA of its own. Filled first, a source whose end is 2 MiB
	 * aligned got a transparent huge page over its last 2 MiB, the last
	 * page with it, and the write never faulted.
	 */
	reg.range.start = (unsigned long)(src + map_len);
	reg.range.len = ps;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		tap_bail("UFFDIO_REGISTER: %s", strerror(errno));
	wt_pattern(src, map_len, 0, 3);	/* the last page never touched */
	if (mincore(src + map_len, ps, &resident))
		tap_bail("mincore: %s", strerror(errno));
	if (resident & 1)
		tap_bail("the last source page is resident before the write: it cannot fault");
	page = atw_alloc(ps);
	wt_pattern(page, ps, map_len, 3);

	w_mode = m;
	w_done = 0;
	/*
	 * The trace starts before the write, not while its copy waits for the
	 * page (resizing the trace buffer then stalled the io_uring round for
	 * minutes); only failed completions are counted.
	 */
	inj.traced = wt_tr_start() == 0;
	if (pthread_create(&t, NULL, writer, NULL))
		tap_bail("pthread_create");
	pf.fd = uffd;
	faulted = wait_fault(&pf);
	if (faulted == 1) {
		/* Everything before the page is on the device: fail what is next. */
		armed = wt_inject(opcode, WT_INJECT_TIMES);
		inj.tries++;
	}
	copy.dst = (unsigned long)(src + map_len);
	copy.src = (unsigned long)page;
	copy.len = ps;
	if (ioctl(uffd, UFFDIO_COPY, &copy) && errno != EEXIST)
		tap_bail("UFFDIO_COPY: %s", strerror(errno));
	if (wt_join_by(t, wt_deadline(STEP_MS / 1000)))
		tap_bail("%s: the write-through did not return", what);
	if (faulted == 0) {
		wt_tr_stop(atw_env()->lbs);
		check(false, "%s: the write-through reads its last source page (it returned %zd%s%s before)",
		      what, w_ret, w_ret < 0 ? ", " : "", w_ret < 0 ? strerror((int)-w_ret) : "");
		goto out;
	}
	/* the last unit's command: at its address, or of its length if new */
	if (m == M_EXTEND)
		inj.bytes = unit;
	/*
	 * Made again when other commands took some of the failures and the
	 * last unit's command did not fail all six times: it went through on
	 * a retry, and the write rightly returned everything.
	 */
	if (!wt_inject_done(&inj, lphys, unit) || (!armed && inj.traced && !inj.mine)) {
		diag("%s: the injected failures hit %d other commands (first at device byte %llu), %d the last unit's: the round is made again",
		     what, inj.others, (unsigned long long)inj.other_off, inj.mine);
		judged = 0;
		goto out;
	}

	if (armed) {
		check(false, "%s: the write stops at its last source page and an error is injected (%s)",
		      what, armed < 0 ? "no userfaultfd event" : strerror(-armed));
		goto out;
	}
	if (m == M_URING) {
		check(w_ret == HEAD || w_ret == (ssize_t)len,
		      "%s: the CQE carries the %u bytes completed, or all %zu after a retry of the rest (got %zd%s)",
		      what, HEAD, len, w_ret, w_ret < 0 ? ", an error" : "");
	} else {
		check(w_ret == HEAD,
		      "%s: a write-through whose last bio fails returns the %u bytes completed before (got %zd%s)",
		      what, HEAD, w_ret, w_ret < 0 ? ", an error" : "");
	}
	if (m == M_EXTEND) {
		if (fstat(fd, &st))
			tap_bail("fstat: %s", strerror(errno));
		check(st.st_size == HEAD, "%s: the size is the bytes returned (%lld)", what,
		      (long long)st.st_size);
	} else if (m != M_URING) {
		if (atw_pread(fd, buf, unit, last) != (ssize_t)unit)
			tap_bail("read: %s", strerror(errno));
		check(!is_gen(buf, unit, last, 3) && is_gen(buf, unit, last, 1),
		      "%s: the failed unit reads the old data through the cache", what);
	}
	err = fsync(fd) ? -errno : 0;
	if (m == M_DIRTY)
		check(!err, "%s: fsync returns 0: the dirty block lay in the part that was written (%s)",
		      what, atw_err(err));
	wt_drop_caches();
	if (atw_pread(fd, buf, len, 0) < HEAD)
		tap_bail("read: %s", strerror(errno));
	if (m == M_CLEAN || m == M_DIRTY || (m == M_URING && w_ret == HEAD))
		check(is_gen(buf + last, unit, last, 1),
		      "%s: the failed unit reads the old data after a dropped cache", what);
	bad = wt_pattern_bad(buf, m == M_URING && w_ret > 0 ? (size_t)w_ret : HEAD, 0, 3);
	check(bad < 0, "%s: the bytes written read the new data after a dropped cache (first bad byte %ld)",
	      what, bad);
out:
	munmap(src, len);
	free(page);
	free(buf);
	return judged;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct atw_env *e;
	uint8_t opcode;
	char path[256];
	int m;

	tap_start("wt_partial_error");
	e = atw_env_setup(argc, argv, "wt_partial_error DIR");
	bs = e->bs;
	ps = e->ps;
	unit = bs > ps ? bs : ps;
	len = HEAD + unit;
	if (wt_inject_path(path, sizeof(path))) {
		skip("no scsi_debug error injection", "wt_partial_error");
		return tap_done();
	}
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		skip("userfaultfd unavailable", "wt_partial_error (%s)", strerror(errno));
		return tap_done();
	}
	opcode = wt_find_write_opcode();
	fd = atw_env_open("wt_partial_error", O_TRUNC);
	for (m = M_CLEAN; m < NMODES; m++) {
		int tries = 0;

		while (!round_once(m, opcode) && ++tries < WT_INJECT_TRIES)
			;
		if (tries == WT_INJECT_TRIES)
			skip("the injected failures hit other commands every time",
			     "%s: %d rounds", mode_name[m], tries);
	}
	close(fd);
	close(uffd);
	atw_env_unlink("wt_partial_error");
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_partial_error");
	skip(WT_UAPI_SKIP, "wt_partial_error");
	return tap_done();
}

#endif
