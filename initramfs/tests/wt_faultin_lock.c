// SPDX-License-Identifier: GPL-2.0
/*
 * A write-through must not take the mmap lock (fault in its source) while it
 * holds a folio under writeback that someone holding the mmap lock may be
 * waiting for (docs/design.md, "No task waits for I/O it has not
 * submitted": no task waits, holding what others need, for something that
 * needs them).
 *
 * The write-through A covers [2 MiB - 1 page, 2 MiB + 1 page) of a file on
 * DIR: the last page of one folio F (folios are naturally aligned and at
 * most 2 MiB, so F ends at 2 MiB and the copy works on it first) and the
 * first page of the next. The source page for the second half is a
 * userfaultfd "missing" page, so A's fault on it parks until the test
 * answers it. Meanwhile:
 *   B  read()s one byte from a pipe into a shared mapping of F: a write
 *      fault from the kernel, which holds the mmap lock and, in
 *      ->page_mkwrite, waits for F's writeback to end (stable pages);
 *   R  mmap()s with MAP_FIXED elsewhere: it queues for the mmap lock for
 *      writing behind B;
 * and then the page is supplied (UFFDIO_COPY, under the VMA lock). A,
 * woken, retries its fault and queues for the mmap lock behind R. If A
 * still holds F under writeback in a bio it has not submitted, A waits for
 * R, R for B and B for A: a deadlock any user can make with a plain
 * RWF_WRITETHROUGH (randops' source-page remapper can make it by chance).
 * Checks, in a child process that the test kills at the end if it is stuck
 * (A's and R's waits are killable, which then frees B):
 *  - A's fault is seen (a userfaultfd event for the second source page);
 *  - B's store into F finishes while A waits for its source page (A does
 *    not hold F under writeback across the fault);
 *  - R's mmap, A's write (the whole length) and B's read return;
 *  - the file holds the written bytes.
 *
 * usage: wt_faultin_lock DIR
 */
#include "lib/wt_common.h"

#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#ifdef RWF_WRITETHROUGH

#define BOUNDARY (2u << 20)	/* end of folio F, start of the next */
#define GEN 91
#define STEP_MS 5000		/* how long a step that should finish may take */
#define DEADLINE 90		/* seconds for the child's report */

/* What the child reports, once, at the end. */
struct report {
	int32_t setup_err;	/* errno of a failed setup step, or 0 */
	int32_t setup_step;
	int32_t fault_seen;	/* the uffd event for source page 1 came */
	int32_t b_before_copy;	/* B returned before the page was supplied */
	int32_t b_done, r_done, a_done, u_done;
	int64_t a_ret, b_ret;
	int64_t fault_addr;
	int64_t page1_addr;	/* where source page 1 is */
};

static long ps;
static int fd, uffd, pipefd[2];
static unsigned char *src, *fmap, *scratch;
static atomic_int a_done, b_done, r_done, u_done;
static ssize_t a_ret, b_ret;
static struct uffdio_copy copy;	/* source page 1, for supplier_u() */

static void *writer_a(void *arg)
{
	(void)arg;
	a_ret = atw_pwrite(fd, src, 2 * ps, BOUNDARY - ps, RWF_WRITETHROUGH);
	atomic_store(&a_done, 1);
	return NULL;
}

/* A store into F by the kernel (copy_to_user), under the mmap lock. */
static void *storer_b(void *arg)
{
	(void)arg;
	b_ret = read(pipefd[0], fmap, 1);
	atomic_store(&b_done, 1);
	return NULL;
}

/* Needs the mmap lock for writing. */
static void *mapper_r(void *arg)
{
	(void)arg;
	if (mmap(scratch, ps, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		_exit(3);
	atomic_store(&r_done, 1);
	return NULL;
}

/*
 * Supplies source page 1 (UFFDIO_COPY, under the VMA lock if it can, else
 * the mmap lock): in a thread of its own, so that the child's main thread
 * can still report if this blocks.
 */
static void *supplier_u(void *arg)
{
	(void)arg;
	ioctl(uffd, UFFDIO_COPY, &copy);
	atomic_store(&u_done, 1);
	return NULL;
}

/* Waits up to ms for *flag; returns it. */
static int wait_flag(atomic_int *flag, int ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (; ms > 0 && !atomic_load(flag); ms -= 10)
		nanosleep(&ts, NULL);
	return atomic_load(flag);
}

#define SETUP(cond, step) do { \
	if (!(cond)) { r->setup_err = errno ? errno : EIO; r->setup_step = (step); return; } \
} while (0)

static void run_child(struct report *r)
{
	unsigned char *data = atw_alloc(BOUNDARY + ps);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	unsigned char *page1 = atw_alloc(ps);
	struct uffd_msg msg;
	struct pollfd pf;
	pthread_t ta, tb, tr, tu;
	unsigned char byte;

	/* the file: 2 MiB + 1 page of generation GEN - 1, on disk */
	fd = atw_env_open("wt_faultin_lock", O_TRUNC);
	SETUP(fd >= 0, 1);
	wt_pattern(data, BOUNDARY + ps, 0, GEN - 1);
	SETUP(atw_pwrite(fd, data, BOUNDARY + ps, 0, 0) == (ssize_t)(BOUNDARY + ps), 2);
	SETUP(!fsync(fd), 3);

	/* source: page 0 present, page 1 missing and handled by userfaultfd */
	src = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	scratch = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	SETUP(src != MAP_FAILED && scratch != MAP_FAILED, 4);
	r->page1_addr = (int64_t)(uintptr_t)(src + ps);
	wt_pattern(src, ps, BOUNDARY - ps, GEN);
	wt_pattern(page1, ps, BOUNDARY, GEN);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	SETUP(uffd >= 0, 5);
	SETUP(!ioctl(uffd, UFFDIO_API, &api), 6);
	reg.range.start = (unsigned long)(src + ps);
	reg.range.len = ps;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	SETUP(!ioctl(uffd, UFFDIO_REGISTER, &reg), 7);

	/* B's target: F's last page, mapped shared; the byte B stores is the
	 * one A writes there, so that the data does not depend on the order */
	fmap = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, BOUNDARY - ps);
	SETUP(fmap != MAP_FAILED, 8);
	SETUP(!pipe(pipefd), 9);
	byte = src[0];
	SETUP(write(pipefd[1], &byte, 1) == 1, 10);

	/* A copies into F, then faults on source page 1 and parks */
	SETUP(!pthread_create(&ta, NULL, writer_a, NULL), 11);
	pf.fd = uffd;
	pf.events = POLLIN;
	if (poll(&pf, 1, STEP_MS) == 1 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	    msg.event == UFFD_EVENT_PAGEFAULT) {
		r->fault_seen = 1;
		r->fault_addr = (int64_t)msg.arg.pagefault.address;
	}

	/* B stores into F; R queues for the mmap lock behind it if B waits */
	SETUP(!pthread_create(&tb, NULL, storer_b, NULL), 12);
	r->b_before_copy = wait_flag(&b_done, STEP_MS);
	SETUP(!pthread_create(&tr, NULL, mapper_r, NULL), 13);
	wait_flag(&r_done, 1000);

	/* supply source page 1: A goes on */
	copy.dst = (unsigned long)(src + ps);
	copy.src = (unsigned long)page1;
	copy.len = ps;
	SETUP(!pthread_create(&tu, NULL, supplier_u, NULL), 14);
	r->a_done = wait_flag(&a_done, 2 * STEP_MS);
	r->b_done = wait_flag(&b_done, STEP_MS);
	r->r_done = wait_flag(&r_done, STEP_MS);
	r->a_ret = a_ret;
	r->b_ret = b_ret;
	r->u_done = wait_flag(&u_done, STEP_MS);
	if (r->a_done && r->b_done && r->r_done && r->u_done) {
		pthread_join(tu, NULL);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		pthread_join(tr, NULL);
	}
}

int main(int argc, char **argv)
{
	unsigned char *want, *rd;
	struct report r = { 0 };
	int pfd[2], status = 0, i;
	struct pollfd pf;
	pid_t pid;
	ssize_t got;

	tap_start("wt_faultin_lock");
	atw_env_setup(argc, argv, "wt_faultin_lock DIR");
	ps = atw_env()->ps;
	want = atw_alloc(2 * ps);
	rd = atw_alloc(2 * ps);

	if (pipe(pfd))
		tap_bail("pipe: %s", strerror(errno));
	pid = wt_fork_quiet(pfd);
	if (!pid) {
		run_child(&r);
		if (write(pfd[1], &r, sizeof(r)) != sizeof(r))
			_exit(2);
		_exit(0);
	}

	pf.fd = pfd[0];
	pf.events = POLLIN;
	got = poll(&pf, 1, DEADLINE * 1000) == 1 ? read(pfd[0], &r, sizeof(r)) : -1;
	if (!check(got == sizeof(r), "the test child reports within %d s", DEADLINE)) {
		wt_diag_stacks(pid);
		kill(pid, SIGKILL);
		return tap_done();
	}
	if (r.setup_err == ENOSYS || r.setup_err == EPERM) {
		skip("userfaultfd unavailable", "setup step %d: %s", r.setup_step,
		     strerror(r.setup_err));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return tap_done();
	}
	if (r.setup_err)
		tap_bail("setup step %d: %s", r.setup_step, strerror(r.setup_err));

	if (!r.a_done || !r.b_done || !r.r_done || !r.u_done)
		wt_diag_stacks(pid);
	check(r.fault_seen && r.fault_addr == r.page1_addr,
	      "the write-through faults on its missing source page (event %d at %#llx, page at %#llx)",
	      r.fault_seen, (unsigned long long)r.fault_addr, (unsigned long long)r.page1_addr);
	check(r.b_before_copy,
	      "a store into the folio just written finishes while the write-through waits for its source page");
	check(r.r_done, "an mmap(MAP_FIXED) meanwhile returns");
	check(r.u_done, "the source page is supplied (UFFDIO_COPY returns)");
	check(r.a_done && r.a_ret == 2 * ps, "the write-through returns the whole length (%s, %lld)",
	      r.a_done ? "returned" : "still in the kernel", (long long)r.a_ret);
	check(r.b_done && r.b_ret == 1, "the store (read() into the mapping) returns 1 (%s, %lld)",
	      r.b_done ? "returned" : "still in the kernel", (long long)r.b_ret);

	/* a stuck child: its killable waits end, which frees the others */
	kill(pid, SIGKILL);
	for (i = 0; i < 300 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(100 * 1000);
	if (!check(i < 300, "the test child can be reaped after SIGKILL"))
		return tap_done();

	if (r.a_done) {
		int rfd = atw_env_open("wt_faultin_lock", 0);

		wt_pattern(want, 2 * ps, BOUNDARY - ps, GEN);
		check(rfd >= 0 && pread(rfd, rd, 2 * ps, BOUNDARY - ps) == 2 * ps &&
		      !memcmp(rd, want, 2 * ps), "the file holds the written bytes");
		close(rfd);
	}
	atw_env_unlink("wt_faultin_lock");
	return tap_done();
}

#else

int main(void)
{
	tap_start("wt_faultin_lock");
	skip(WT_UAPI_SKIP, "wt_faultin_lock");
	return tap_done();
}

#endif
