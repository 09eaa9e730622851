/*
 * Unit tests of the probe's session with its peer (core/probe/session.c):
 * a peer that keeps the session alive with keepalives is cut off at
 * --deadline, told why, and the listener unpins its buffers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/probe_pair.h"
#include "../../core/base/clock.h"
#include "../../core/base/log.h"
#include "../../core/probe/oob.h"
#include "../../core/probe/tcp.h"

static unsigned mrs_registered(void)
{
	unsigned i, n = 0;

	pthread_mutex_lock(&fv.mu);
	for (i = 0; i < FV_MAX_MRS; i++)
		n += fv.mrs[i] != NULL;
	pthread_mutex_unlock(&fv.mu);
	return n;
}

/*
 * After a valid hello, a peer that trickles keepalives (each well within
 * --timeout, which every message restarts) is cut off at the session's
 * --deadline: the listener tells it why, fails, and unpins its buffers.
 */
static void test_listener_session_deadline(void **state)
{
	struct ping_listener l;
	struct ibs_oob_msg m, ka;
	struct ibs_ping_opts o;
	pthread_t th;
	char *msg = NULL;
	unsigned port = 0, sent = 0, pinned;
	bool told = false;
	uint64_t t0, ms;
	int fd, i;

	(void)state;
	memset(&l, 0, sizeof(l));
	memset(&o, 0, sizeof(o));
	o.gid_index = -1;
	o.timeout_ms = 300;
	o.session_ms = 1000;
	assert_int_equal(ibs_ping_open(&fake_verbs, &o, &l.p), IBS_OK);
	assert_int_equal(ibs_tcp_listen("127.0.0.1", 0, &l.lfd, &port, &msg), IBS_OK);
	l.wait_ms = 10000;
	assert_int_equal(pthread_create(&th, NULL, ping_listen_main, &l), 0);
	t0 = ibs_mono_ns();
	assert_int_equal(ibs_tcp_connect("127.0.0.1", port, 2000, &fd, &msg), IBS_OK);
	/* A valid hello for an RDMA read run: the listener has nothing to do but wait on TCP. */
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_HELLO;
	m.hello.op = IBS_OP_READ;
	m.hello.link_layer = IBS_LL_IB;
	m.hello.mtu = 5;
	m.hello.iters = 10;
	m.hello.size = 4096;
	m.hello.timeout_ms = 300;
	m.hello.lid = 42;
	m.hello.qpn = 0x999;
	m.hello.psn = 0x42;
	m.hello.rd_atomic = 1;
	m.hello.len = 4096;
	assert_int_equal(ibs_oob_send(fd, &m, 2000, &msg), IBS_OK);
	if (ibs_oob_recv(fd, 2000, &m, &msg) != IBS_OK || m.type != IBS_OOB_HELLO_REPLY)
		fail_msg("no hello reply: %s %s", msg ? msg : "", m.type == IBS_OOB_ERROR ? m.text : "");
	pinned = mrs_registered();
	assert_true(pinned > 0);
	/* A keepalive every 100 ms, for up to 10 s, until the listener speaks or hangs up. */
	memset(&ka, 0, sizeof(ka));
	ka.type = IBS_OOB_KEEPALIVE;
	for (i = 0; i < 100; i++) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		if (poll(&pfd, 1, 100) > 0) {
			if (ibs_oob_recv(fd, 1000, &m, &msg) == IBS_OK && m.type == IBS_OOB_ERROR) {
				told = true;
				has_text(m.text, "did not end within --deadline 1 s");
			}
			break;
		}
		if (ibs_oob_send(fd, &ka, 1000, &msg) != IBS_OK)
			break;
		sent++;
	}
	ms = (ibs_mono_ns() - t0) / 1000000;
	free(msg);
	close(fd); /* ends the listener even if the deadline did not */
	pthread_join(th, NULL);
	assert_true(told);
	assert_true(sent >= 5); /* the peer kept the connection busy past --timeout several times */
	assert_true(ms >= 900);
	assert_true(ms < 5000);
	assert_int_equal(l.rc, IBS_E_DEADLINE);
	assert_int_equal(ibs_ping_failed_step(l.p), IBS_STEP_FINISH);
	has_text(ibs_ping_error(l.p), "the probe session with 127.0.0.1:");
	has_text(ibs_ping_hint(l.p), "--deadline");
	assert_int_equal(mrs_registered(), 0);
	close(l.lfd);
	ibs_ping_close(l.p);
	assert_false(fv.overrun);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_listener_session_deadline, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe_session", tests, NULL, NULL);
}
