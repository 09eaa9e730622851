/*
 * Unit tests of a probe run's set-up (core/probe/setup.c) over the fake
 * verbs: each failing step (PD, MR, CQ, QP, INIT) named with its hint,
 * what goes inline, and the P_Key index, service level and traffic class
 * the queue pair is made with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/probe_pair.h"
#include "../../core/base/log.h"

/* A client with no listener behind its socket: it gets as far as its own setup. */
static void client_alone(struct side *c)
{
	int sv[2];

	c->rc = ibs_ping_open(&fake_verbs, &c->o, &c->p);
	if (c->rc == IBS_OK) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		c->rc = ibs_ping_client_fd(c->p, sv[0], "listener", &c->res);
		close(sv[0]);
		close(sv[1]);
	}
	side_finish(c);
}

/* The client's device fails one setup step: the step is named, with its hint. */
static void client_setup_fails(enum fv_op op, int err, enum ibs_ping_step step, enum ibs_err want, const char *msg,
			       const char *hint)
{
	struct side c;

	fv_reset();
	fv_fail(op, err, 0);
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	client_alone(&c);
	assert_int_equal(c.rc, want);
	assert_int_equal(c.step, step);
	has_text(c.err, msg);
	if (hint)
		has_text(c.hint, hint);
	else
		assert_null(c.hint);
	side_free(&c);
}

static unsigned run_size; /* the size inline_run's client measured */

/* Run a pair of this op and size; returns the client's result's inline bytes, with fv.inlined of fv.posts inline. */
static unsigned inline_run(enum ibs_ping_op op, bool bw, unsigned size)
{
	struct side c, s;
	unsigned n;

	side_opts(&c, op, bw, 20, size);
	side_opts(&s, op, false, 0, 0);
	run_pair(&c, &s);
	check_pair(&c, &s);
	n = c.res.inline_len;
	run_size = c.res.size;
	assert_int_equal(s.res.inline_len, bw ? 0 : n);
	side_free(&c);
	side_free(&s);
	return n;
}

static void test_setup_failures(void **state)
{
	(void)state;
	client_setup_fails(FV_OPEN, ENODEV, IBS_STEP_OPEN, IBS_E_NODEV,
			   "no RDMA device found (the kernel has no RDMA support", "ibscan local");
	client_setup_fails(FV_OPEN, EACCES, IBS_STEP_OPEN, IBS_E_PERM, "cannot open fake0: Permission denied",
			   "/dev/infiniband/uverbs");
	client_setup_fails(FV_PD, ENOMEM, IBS_STEP_PD, IBS_E_TRANSPORT, "cannot allocate a protection domain on fake0",
			   NULL);
	client_setup_fails(FV_MR, ENOMEM, IBS_STEP_MR, IBS_E_TRANSPORT,
			   "memory registration of 8192 bytes failed: Cannot allocate memory",
			   "registered memory is pinned and counts against RLIMIT_MEMLOCK");
	client_setup_fails(FV_MR, EPERM, IBS_STEP_MR, IBS_E_TRANSPORT, "Operation not permitted", "ulimit -l");
	/* CQ and QP rings are pinned too: an unprivileged host's 64 KiB limit fails there first. */
	client_setup_fails(FV_CQ, ENOMEM, IBS_STEP_CQ, IBS_E_TRANSPORT, "cannot create a completion queue",
			   "completion queue ring is pinned and counts against RLIMIT_MEMLOCK");
	client_setup_fails(FV_CQ, EINVAL, IBS_STEP_CQ, IBS_E_TRANSPORT, "cannot create a completion queue", NULL);
	client_setup_fails(FV_QP, ENOMEM, IBS_STEP_QP, IBS_E_TRANSPORT, "cannot create the RC queue pair",
			   "queue pair's rings are pinned and count against RLIMIT_MEMLOCK");
	client_setup_fails(FV_QP, ENOMEM, IBS_STEP_QP, IBS_E_TRANSPORT, "cannot create the RC queue pair",
			   "out of queue pairs");
	client_setup_fails(FV_INIT, EINVAL, IBS_STEP_INIT, IBS_E_TRANSPORT,
			   "INIT failed: Invalid argument (fake0 port 1)", "check the port");
	assert_string_equal(ibs_ping_step_name(IBS_STEP_MR), "MR");
	assert_string_equal(ibs_ping_step_name(IBS_STEP_EXCHANGE), "exchange");
	assert_string_equal(ibs_ping_step_name((enum ibs_ping_step)99), "?");
}

/*
 * perftest's methods: latency sends up to 236 bytes and writes up to 220
 * go inline, both ways; a device that carries less (or none) gets them from
 * the buffer; bandwidth runs do not inline.
 */
static void test_inline(void **state)
{
	(void)state;
	assert_int_equal(inline_run(IBS_OP_SEND, false, 236), 236);
	assert_int_equal(fv.inlined, 40);
	assert_int_equal(fv.posts, 41); /* the path-MTU write is not inline */
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_WRITE, false, 220), 220);
	assert_int_equal(fv.inlined, fv.posts - 1);
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_SEND, false, 237), 0);
	assert_int_equal(fv.inlined, 0);
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_READ, false, 64), 0);
	assert_int_equal(inline_run(IBS_OP_WRITE, true, 64), 0);
	assert_int_equal(fv.inlined, 0);
	/* No --size: 64 bytes, and 64 KiB for bandwidth, as ib_write_bw. */
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_WRITE, false, 0), 64);
	assert_int_equal(run_size, 64);
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_WRITE, true, 0), 0);
	assert_int_equal(run_size, 65536);
	fv_reset();
	fv.port[0].max_inline = fv.port[1].max_inline = 0; /* no inline at all: create_qp refuses any */
	assert_int_equal(inline_run(IBS_OP_SEND, false, 64), 0);
	assert_int_equal(fv.inlined, 0);
	/*
	 * A provider that gives more than asked (rxe writes back its whole
	 * capacity, also when none was asked): what is reported is what the
	 * probe sends inline, never the capacity. Atomics and reads, never.
	 */
	fv_reset();
	fv.port[0].inline_writeback = fv.port[1].inline_writeback = true;
	assert_int_equal(inline_run(IBS_OP_ATOMIC, false, 8), 0);
	assert_int_equal(fv.inlined, 0);
	fv_reset();
	fv.port[0].inline_writeback = fv.port[1].inline_writeback = true;
	assert_int_equal(inline_run(IBS_OP_READ, false, 64), 0);
	fv_reset();
	fv.port[0].inline_writeback = fv.port[1].inline_writeback = true;
	assert_int_equal(inline_run(IBS_OP_SEND, false, 64), 64);
}

/*
 * --sl, --tclass and --pkey-index reach the queue pair; a P_Key index the
 * table lacks fails INIT as on mlx5; the partition is the entry's, not entry 0's.
 */
static void test_qos_options(void **state)
{
	struct side c, s;

	(void)state;
	fv.port[0].pkey = 0x8001; /* entry 0 of the listener: another partition */
	fv.port[0].pkey_more[1] = 0xffff;
	fv.port[1].pkey_more[1] = 0x7fff; /* a limited member: reaches the listener's full one */
	side_opts(&c, IBS_OP_WRITE, false, 20, 64);
	side_opts(&s, IBS_OP_WRITE, false, 0, 0);
	c.o.pkey_index = s.o.pkey_index = 2;
	c.o.sl = s.o.sl = 5;
	c.o.gid_index = s.o.gid_index = 0; /* a GRH, for the traffic class */
	c.o.tclass = s.o.tclass = 106;     /* DSCP 26, ECN 2 */
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_int_equal(fv.last_rtr.sl, 5);
	assert_int_equal(fv.last_rtr.traffic_class, 106);
	assert_int_equal(c.res.pkey_index, 2);
	side_free(&c);
	side_free(&s);
	/* Entry 0, as before the option: the partitions differ and nothing arrives. */
	fv_reset();
	fv.port[0].pkey = 0x8001;
	side_opts(&c, IBS_OP_WRITE, false, 20, 64);
	side_opts(&s, IBS_OP_WRITE, false, 0, 0);
	run_pair_lost(&c, &s);
	fv_reset();
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.pkey_index = FV_PKEYS;
	client_alone(&c);
	/* Past the table: refused before any connection, with the table's length. */
	assert_int_equal(c.rc, IBS_E_INVAL);
	assert_int_equal(c.step, IBS_STEP_INIT);
	has_text(c.err, "--pkey-index 4 is out of range: fake0 port 1 has 4 P_Key entries (0-3)");
	side_free(&c);
	/* Inside it, an entry the device refuses at INIT: the hint asks about the entry. */
	fv_reset();
	fv_fail(FV_INIT, EINVAL, 0);
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.pkey_index = 3;
	client_alone(&c);
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_INIT);
	has_text(c.hint, "P_Key at index 3 of the port's table (--pkey-index)");
	side_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_setup_failures, side_setup),
		cmocka_unit_test_setup(test_inline, side_setup),
		cmocka_unit_test_setup(test_qos_options, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe_setup", tests, NULL, NULL);
}
