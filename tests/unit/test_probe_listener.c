/*
 * Unit tests of the probe's listener (core/probe/listener.c) over the fake
 * verbs and loopback TCP: its own set-up failing, peers it refuses or
 * drops (silent, strangers, an older protocol), --wait.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/probe_pair.h"
#include "../../core/base/clock.h"
#include "../../core/base/log.h"
#include "../../core/probe/oob.h"
#include "../../core/probe/tcp.h"

/* The listener's own setup fails: the client hears why. */
static void test_listener_fails(void **state)
{
	struct side c, s;

	(void)state;
	fv_fail(FV_MR, ENOMEM, 1); /* the client registers first, then the listener */
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(s.rc, IBS_E_TRANSPORT);
	assert_int_equal(s.step, IBS_STEP_MR);
	has_text(s.hint, "RLIMIT_MEMLOCK");
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has_text(c.err, "the listener listener refused the probe: memory registration of 8192 bytes failed");
	side_free(&c);
	side_free(&s);
	/* A listener without atomics refuses an atomic probe; a client without them does not start one. */
	fv_reset();
	fv.port[0].no_atomics = true;
	side_opts(&c, IBS_OP_ATOMIC, false, 10, 8);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_false(s.accepted);
	assert_int_equal(s.rc, IBS_E_INVAL);
	has_text(c.err, "refused the probe: the listener's device does not support atomic operations");
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.port[1].no_atomics = true;
	side_opts(&c, IBS_OP_ATOMIC, false, 10, 8);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.step, IBS_STEP_OPEN);
	has_text(c.err, "fake0 does not support atomic operations");
	assert_false(s.accepted);
	side_free(&c);
	side_free(&s);
}

/*
 * The listener over loopback TCP serves one peer at a time: a silent peer is
 * dropped after --timeout, a stranger at once, and then a real probe runs.
 */
static void test_listener_drops_bad_peers(void **state)
{
	struct ping_listener l;
	struct side c, s;
	pthread_t th;
	char *msg = NULL;
	unsigned port = 0;
	int silent, stranger;
	uint64_t t0;

	(void)state;
	memset(&l, 0, sizeof(l));
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	s.o.timeout_ms = 300;
	assert_int_equal(ibs_ping_open(&fake_verbs, &s.o, &l.p), IBS_OK);
	assert_int_equal(ibs_tcp_listen("127.0.0.1", 0, &l.lfd, &port, &msg), IBS_OK);
	l.wait_ms = 10000;
	assert_int_equal(pthread_create(&th, NULL, ping_listen_main, &l), 0);
	t0 = ibs_mono_ns();
	assert_int_equal(ibs_tcp_connect("127.0.0.1", port, 2000, &silent, &msg), IBS_OK);
	assert_int_equal(ibs_tcp_connect("127.0.0.1", port, 2000, &stranger, &msg), IBS_OK);
	assert_int_equal(send(stranger, "GET / HTTP/1.0\r\n\r\n", 18, MSG_NOSIGNAL), 18);
	side_opts(&c, IBS_OP_WRITE, false, 200, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_OK);
	c.rc = ibs_ping_client(c.p, "127.0.0.1", port, &c.res);
	side_finish(&c);
	pthread_join(th, NULL);
	/* The silent peer held the listener for its timeout, not longer. */
	assert_true((ibs_mono_ns() - t0) / 1000000 >= 250);
	assert_true((ibs_mono_ns() - t0) / 1000000 < 30000);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(l.rc, IBS_OK);
	assert_int_equal(l.res.dropped, 2);
	assert_true(l.res.server);
	check_latency(&c.res);
	close(silent);
	close(stranger);
	side_free(&c);
	ibs_ping_result_free(&l.res);
	/* Nobody comes: --wait ends the listener. */
	l.wait_ms = 100;
	l.rc = ibs_ping_serve(l.p, l.lfd, l.wait_ms, &l.res);
	assert_int_equal(l.rc, IBS_E_TIMEOUT);
	assert_int_equal(ibs_ping_failed_step(l.p), IBS_STEP_CONNECT);
	has_text(ibs_ping_error(l.p), "no probe arrived within 0.1 s (--wait)");
	close(l.lfd);
	ibs_ping_close(l.p);
	/* Nobody listens: the client names the step and says what to start. */
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_OK);
	c.rc = ibs_ping_client(c.p, "127.0.0.1", port, &c.res);
	side_finish(&c);
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_CONNECT);
	has_text(c.err, "Connection refused");
	has_text(c.hint, "start 'ibscan ping --listen' on 127.0.0.1 first");
	side_free(&c);
	/* An IPv6 address: the hint says what may hear IPv4 only (an IPv4 --bind, a host without IPv6). */
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_OK);
	c.rc = ibs_ping_client(c.p, "::1", port, &c.res);
	side_finish(&c);
	assert_int_equal(c.step, IBS_STEP_CONNECT);
	has_text(c.hint,
		 "start 'ibscan ping --listen' on ::1 first (same --tcp-port; a listener given an IPv4 --bind, or on a "
		 "host without IPv6, hears IPv4 only)");
	side_free(&c);
	assert_false(fv.overrun);
}

/* A client of probe protocol version 1 (before --sl and --tclass travelled): refused in words it can read. */
static void test_old_client(void **state)
{
	struct side s;
	struct ibs_oob_msg m;
	uint8_t buf[IBS_OOB_MAX_MSG];
	pthread_t th;
	ssize_t n;
	size_t len;
	int sv[2];

	(void)state;
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	assert_int_equal(ibs_ping_open(&fake_verbs, &s.o, &s.p), IBS_OK);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	s.fd = sv[1];
	assert_int_equal(pthread_create(&th, NULL, side_serve, &s), 0);
	/* A version 1 hello: the same 64 bytes, bytes 30-31 reserved (zero). */
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_HELLO;
	m.hello.op = IBS_OP_SEND;
	m.hello.link_layer = IBS_LL_IB;
	m.hello.mtu = 5;
	m.hello.iters = 10;
	m.hello.size = 64;
	m.hello.timeout_ms = 300;
	m.hello.lid = 42;
	m.hello.qpn = 0x999;
	m.hello.len = 64;
	len = ibs_oob_encode(&m, buf);
	buf[4] = 0;
	buf[5] = 1;
	assert_int_equal(write(sv[0], buf, len), (ssize_t)len);
	/* What comes back is framed as version 1, so that ibscan reads it: an error, and why. */
	n = read(sv[0], buf, sizeof(buf) - 1);
	assert_true(n > IBS_OOB_HDR_LEN);
	assert_memory_equal(buf, "IBSP\0\1\0\5", 8);
	assert_int_equal(buf[8] << 24 | buf[9] << 16 | buf[10] << 8 | buf[11], n - IBS_OOB_HDR_LEN);
	buf[n] = 0;
	has_text((char *)buf + IBS_OOB_HDR_LEN,
		 "this listener speaks probe protocol version 2 and the client version 1: run the same ibscan version on "
		 "both hosts");
	close(sv[0]);
	pthread_join(th, NULL);
	side_finish(&s);
	assert_false(s.accepted);
	has_text(s.err, "the peer speaks probe protocol version 1, this ibscan speaks version 2");
	side_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_listener_fails, side_setup),
		cmocka_unit_test_setup(test_listener_drops_bad_peers, side_setup),
		cmocka_unit_test_setup(test_old_client, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe_listener", tests, NULL, NULL);
}
