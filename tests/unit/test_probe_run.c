/*
 * Unit tests of the probe's data path (core/probe/run.c) over the fake
 * verbs, both sides in this process: latency and bandwidth runs of every
 * --op, the path-MTU message, big-endian atomics, and lost and failed
 * completions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "lib/probe_pair.h"
#include "../../core/base/clock.h"
#include "../../core/base/log.h"

/* A latency pair of 20 operations: the client's outcome, its error and hint (NULL: not looked at). */
static void pair_expect(enum ibs_ping_op op, unsigned size, enum ibs_err want, const char *err, const char *hint)
{
	struct side c, s;

	side_opts(&c, op, false, 20, size);
	side_opts(&s, op, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, want);
	if (err)
		has_text(c.err, err);
	if (hint)
		has_text(c.hint, hint);
	side_free(&c);
	side_free(&s);
}

/* Latency runs of every operation, end to end. */
static void test_latency_every_op(void **state)
{
	enum ibs_ping_op op;

	(void)state;
	for (op = IBS_OP_SEND; op < IBS_OP__COUNT; op++) {
		struct side c, s;
		fv_reset();
		side_opts(&c, op, false, 500, 100);
		side_opts(&s, op, false, 0, 0);
		run_pair(&c, &s);
		check_pair(&c, &s);
		check_latency(&c.res);
		/* Ping-pongs report half the round trip; reads and atomics the whole operation. */
		assert_int_equal(c.res.half_rtt, op == IBS_OP_SEND || op == IBS_OP_WRITE);
		assert_int_equal(c.res.size, op == IBS_OP_ATOMIC ? 8 : 100);
		assert_int_equal(c.res.bytes, 500ull * c.res.size);
		assert_false(c.res.use_grh);
		side_free(&c);
		side_free(&s);
	}
}

/* Bandwidth runs of every operation: more operations than queue depths, so queues wrap and refill. */
static void test_bandwidth_every_op(void **state)
{
	enum ibs_ping_op op;

	(void)state;
	for (op = IBS_OP_SEND; op < IBS_OP__COUNT; op++) {
		struct side c, s;
		fv_reset();
		side_opts(&c, op, true, 3000, 4096);
		side_opts(&s, op, false, 0, 0);
		run_pair(&c, &s);
		check_pair(&c, &s);
		assert_true(c.res.measured);
		assert_false(c.res.has_latency);
		assert_true(c.res.gbit_s > 0);
		assert_true(c.res.bw);
		assert_true(s.res.bw);
		/* perftest's selective signalling: one completion in 100, and the last (atomics: one more add). */
		/* ... and the path-MTU write. */
		assert_int_equal(fv.signaled, op == IBS_OP_ATOMIC ? 32 : 31);
		assert_false(fv.overrun);
		side_free(&c);
		side_free(&s);
	}
}

/*
 * What the path does to a probe: each port has its own MTU and the probe
 * runs at the smaller (a listener at 4096 would send 4096-byte packets the
 * client's 2048 port drops); a switch at a smaller MTU, or different P_Keys
 * at the two ends, make the peer's port drop the packets: RETRY_EXC_ERR.
 */
static void test_path(void **state)
{
	struct side c, s;

	(void)state;
	fv.port[1].mtu = 4; /* the client's port: 2048 */
	side_opts(&c, IBS_OP_SEND, false, 20, 4096);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_int_equal(c.res.mtu, 4);
	assert_int_equal(s.res.mtu, 4);
	side_free(&c);
	side_free(&s);
	/*
	 * A switch at 1024 between two 4096 ports: 1024-byte writes pass, the
	 * one message of the path MTU does not, and the probe fails saying so.
	 */
	fv_reset();
	fv.fabric_mtu = 3;
	pair_expect(IBS_OP_WRITE, 1024, IBS_E_STATUS,
		    "the path-MTU message (one RDMA write of 4096 bytes, after 20 operations that passed) completed with "
		    "status RETRY_EXC_ERR",
		    "both ports allow 4096-byte packets but something on the path carries less");
	/*
	 * The same with a --timeout shorter than the hardware's retries (rxe
	 * retries for ever on it): the message names the path-MTU write, not
	 * the run's operation, nor an index past --iters.
	 */
	fv_reset();
	fv.fabric_mtu = 3;
	fv.speedup = 1; /* the retries take their real 2 s: the timeout comes first */
	side_opts(&c, IBS_OP_WRITE, false, 20, 1024);
	side_opts(&s, IBS_OP_WRITE, false, 0, 0);
	c.o.timeout_ms = 300;
	s.o.timeout_ms = 600;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_TIMEOUT);
	has_text(c.err,
		 "the path-MTU message (one RDMA write of 4096 bytes, after 20 operations that passed) did not complete "
		 "within 300 ms (--timeout)");
	assert_null(strstr(c.err, "of 20"));
	has_text(c.hint, "both ports allow 4096-byte packets but something on the path carries less");
	side_free(&c);
	side_free(&s);
	/* The same for a 64-byte ping-pong, which alone fits in any MTU. */
	fv_reset();
	fv.fabric_mtu = 4;
	pair_expect(IBS_OP_SEND, 64, IBS_E_STATUS, "the path-MTU message (one RDMA write of 4096 bytes", NULL);
	/* Ports at 1024: the path MTU is 1024, which the switch carries. */
	fv_reset();
	fv.fabric_mtu = 3;
	fv.port[0].mtu = fv.port[1].mtu = 3;
	pair_expect(IBS_OP_SEND, 64, IBS_OK, NULL, NULL);
	fv_reset();
	fv.fabric_mtu = 3;
	side_opts(&c, IBS_OP_WRITE, false, 20, 2048);
	side_opts(&s, IBS_OP_WRITE, false, 0, 0);
	s.o.timeout_ms = 500; /* the listener waits on its CQ: it hears why only at its timeout */
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_STATUS);
	has_text(c.err, "RDMA write 1 of 20 completed with status RETRY_EXC_ERR");
	has_text(c.hint, "an MTU the path does not carry");
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.port[0].pkey = 0x8001; /* the listener in another partition */
	side_opts(&c, IBS_OP_READ, false, 20, 64);
	side_opts(&s, IBS_OP_READ, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_STATUS);
	has_text(c.err, "RDMA read 1 of 20 completed with status RETRY_EXC_ERR");
	side_free(&c);
	side_free(&s);
}

/* A requester that gets fetched values big-endian (ConnectX-3, MOFED's reply-BE mode) still counts right. */
static void test_atomic_big_endian(void **state)
{
	unsigned bw;

	(void)state;
	for (bw = 0; bw < 2; bw++) {
		struct side c, s;
		fv_reset();
		fv.port[1].atomic_be = true;
		side_opts(&c, IBS_OP_ATOMIC, bw, 300, 8);
		side_opts(&s, IBS_OP_ATOMIC, false, 0, 0);
		run_pair(&c, &s);
		check_pair(&c, &s);
		side_free(&c);
		side_free(&s);
	}
}

/* A completion that never comes: the deadline ends the run with a clear error on both sides. */
static void test_lost_completion(void **state)
{
	struct side c, s;
	uint64_t t0 = ibs_mono_ns();

	(void)state;
	fv.lose_from = 7; /* the client's 4th send, as posts alternate */
	side_opts(&c, IBS_OP_SEND, false, 100, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.timeout_ms = s.o.timeout_ms = 500;
	run_pair(&c, &s);
	assert_true((ibs_mono_ns() - t0) / 1000000 < 20000);
	assert_int_equal(c.rc, IBS_E_TIMEOUT);
	assert_int_equal(c.step, IBS_STEP_RUN);
	/* 500 ms is shorter than the hardware's retries (0.54 to 2.1 s): the peer stopped answering. */
	has_text(c.err, "the peer stopped answering: no completion within 500 ms (--timeout, shorter than the "
			"transport's own retries): send 4 of 100");
	has_text(c.hint, "above 2147 ms");
	assert_true(s.accepted);
	assert_int_not_equal(s.rc, IBS_OK);
	assert_int_equal(s.step, IBS_STEP_RUN);
	side_free(&c);
	side_free(&s);
	/* Longer: the hardware would have said RETRY_EXC_ERR had the request left; nothing came at all. */
	fv_reset();
	fv.lose_from = 7;
	side_opts(&c, IBS_OP_SEND, false, 100, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.timeout_ms = s.o.timeout_ms = 2200;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_TIMEOUT);
	has_text(c.err, "no completion within 2200 ms (--timeout): send 4 of 100");
	assert_null(strstr(c.err, "stopped answering"));
	has_text(c.hint, "did not leave this host");
	/*
	 * The listener had every request of its own completed and waited for
	 * the client's 4th message: it says nothing came from the peer, never
	 * that its own request did not leave (or the client says why first).
	 */
	assert_int_equal(s.rc, IBS_E_TIMEOUT);
	if (!strstr(s.err, "the peer says:")) {
		has_text(s.err, "nothing arrived from the peer within 2200 ms (--timeout): send 4 of 100");
		assert_null(strstr(s.hint, "did not leave this host"));
	}
	side_free(&c);
	side_free(&s);
}

/* A completion with an error status: named, with a hint; the listener is told why. */
static void test_error_completion(void **state)
{
	struct side c, s;

	(void)state;
	fv.err_at = 5;
	fv.err_status = IBS_WC_RETRY_EXC_ERR;
	side_opts(&c, IBS_OP_READ, false, 100, 64);
	side_opts(&s, IBS_OP_READ, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_STATUS);
	assert_int_equal(c.step, IBS_STEP_RUN);
	has_text(c.err, "RDMA read 5 of 100 completed with status RETRY_EXC_ERR (transport retry counter exceeded; "
			"vendor error 0x81)");
	has_text(c.hint, "on RoCE try --gid-index N");
	assert_int_equal(s.rc, IBS_E_TRANSPORT);
	has_text(s.err, "the peer client stopped: RDMA read 5 of 100 completed with status RETRY_EXC_ERR");
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.err_at = 2;
	fv.err_status = IBS_WC_REM_ACCESS_ERR;
	side_opts(&c, IBS_OP_WRITE, true, 100, 64);
	side_opts(&s, IBS_OP_WRITE, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_STATUS);
	has_text(c.err, "status REM_ACCESS_ERR (remote access error");
	has_text(c.hint, "rkey");
	side_free(&c);
	side_free(&s);
	assert_string_equal(ibs_wc_status_name(IBS_WC_WR_FLUSH_ERR), "WR_FLUSH_ERR");
	assert_string_equal(ibs_wc_status_name(99), "UNKNOWN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_latency_every_op, side_setup),
		cmocka_unit_test_setup(test_bandwidth_every_op, side_setup),
		cmocka_unit_test_setup(test_path, side_setup),
		cmocka_unit_test_setup(test_atomic_big_endian, side_setup),
		cmocka_unit_test_setup(test_lost_completion, side_setup),
		cmocka_unit_test_setup(test_error_completion, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe_run", tests, NULL, NULL);
}
