// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring works in the guest: the ring sets up, the probe lists the ops the
 * tests use, and a write then a read through the ring move the data.
 *
 * usage: uring_basic DIR
 */
#include "lib/atomic_io.h"
#include "lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int one_op(struct io_uring *ring, int write, int fd, void *buf,
		  unsigned int len, off_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	if (write)
		io_uring_prep_write(sqe, fd, buf, len, off);
	else
		io_uring_prep_read(sqe, fd, buf, len, off);
	sqe->user_data = 42;
	ret = io_uring_submit(ring);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->user_data == 42 ? cqe->res : -EBADMSG;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct { int op; const char *name; } ops[] = {
		{ IORING_OP_WRITE, "WRITE" }, { IORING_OP_READ, "READ" },
		{ IORING_OP_WRITEV, "WRITEV" }, { IORING_OP_FSYNC, "FSYNC" },
	};
	const unsigned int len = 16384;
	struct io_uring_probe *probe;
	struct io_uring ring;
	char path[512];
	void *wbuf, *rbuf;
	unsigned int i;
	int fd, ret;

	tap_start("uring_basic");
	if (argc < 2)
		tap_bail("usage: uring_basic DIR");
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret == -ENOSYS) {
		skip("kernel without io_uring", "io_uring_setup");
		return tap_done();
	}
	if (!check(ret == 0, "io_uring_queue_init (%d)", ret))
		return tap_done();

	probe = io_uring_get_probe_ring(&ring);
	if (check(probe != NULL, "io_uring probe")) {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			check(io_uring_opcode_supported(probe, ops[i].op),
			      "probe lists IORING_OP_%s", ops[i].name);
		io_uring_free_probe(probe);
	}

	snprintf(path, sizeof(path), "%s/uring_basic", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	wbuf = atw_alloc(len);
	rbuf = atw_alloc(len);
	atw_fill(wbuf, len, 8192, 7);
	ret = one_op(&ring, 1, fd, wbuf, len, 8192);
	check(ret == (int)len, "write through the ring returns %u (got %d)", len, ret);
	ret = one_op(&ring, 0, fd, rbuf, len, 8192);
	check(ret == (int)len && atw_verify(rbuf, len, 8192, 7),
	      "read through the ring returns the data (got %d)", ret);
	close(fd);
	io_uring_queue_exit(&ring);
	free(wbuf);
	free(rbuf);
	return tap_done();
}
