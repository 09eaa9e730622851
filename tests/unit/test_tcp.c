/*
 * Unit tests of the link probe's sockets (core/probe/tcp.c): whole
 * out-of-band messages over a socket pair from good, hostile, slow and
 * vanished peers, and listen, accept and connect over loopback TCP.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/oob_hello.h"
#include "../../core/base/clock.h"
#include "../../core/base/log.h"
#include "../../core/probe/tcp.h"

/* ---- over a socket pair ---- */

static void pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static enum ibs_err recv_from(const void *data, size_t len, bool close_after, int timeout_ms, char **msg,
			      uint64_t *elapsed_ms)
{
	struct ibs_oob_msg m;
	enum ibs_err rc;
	uint64_t t0;
	int sv[2];

	pair(sv);
	if (len)
		assert_int_equal(write(sv[1], data, len), (ssize_t)len);
	if (close_after)
		close(sv[1]);
	t0 = ibs_mono_ns();
	rc = ibs_oob_recv(sv[0], timeout_ms, &m, msg);
	*elapsed_ms = (ibs_mono_ns() - t0) / 1000000;
	close(sv[0]);
	if (!close_after)
		close(sv[1]);
	return rc;
}

static void expect(enum ibs_err got, enum ibs_err want, char *msg, const char *text)
{
	assert_int_equal(got, want);
	assert_non_null(msg);
	if (!strstr(msg, text))
		fail_msg("'%s' lacks '%s'", msg, text);
	free(msg);
}

/*
 * A peer gone (EPIPE, ECONNRESET): the message says what failed once; its
 * callers name the peer ("lost the TCP connection to the peer X: ..."), so
 * it must not say "connection to the peer" again.
 */
static void test_socket_gone(void **state)
{
	struct ibs_oob_msg m;
	char *msg = NULL;
	int sv[2];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_KEEPALIVE;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	assert_int_equal(ibs_oob_send(sv[0], &m, 500, &msg), IBS_E_TRANSPORT);
	assert_non_null(msg);
	assert_string_equal(msg, "sending failed: Broken pipe");
	free(msg);
	close(sv[0]);
}

static void test_socket_good(void **state)
{
	struct ibs_oob_msg in, out;
	char *msg = NULL;
	int sv[2];

	(void)state;
	pair(sv);
	oob_hello(&in, IBS_OOB_HELLO_REPLY);
	assert_int_equal(ibs_oob_send(sv[1], &in, 1000, &msg), IBS_OK);
	assert_int_equal(ibs_oob_recv(sv[0], 1000, &out, &msg), IBS_OK);
	assert_int_equal(out.type, IBS_OOB_HELLO_REPLY);
	assert_memory_equal(&out.hello, &in.hello, sizeof(in.hello));
	close(sv[0]);
	close(sv[1]);
}

static void test_socket_hostile(void **state)
{
	uint8_t buf[IBS_OOB_MAX_MSG];
	size_t n = oob_encode_hello(buf);
	char *msg = NULL;
	uint64_t ms;
	enum ibs_err rc;

	(void)state;
	/* A stranger, even one that then goes quiet, is named at once. */
	rc = recv_from("GET / HTTP/1.1\r\n\r\n", 18, false, 2000, &msg, &ms);
	expect(rc, IBS_E_MALFORMED, msg, "not an ibscan probe");
	msg = NULL;
	rc = recv_from("GE", 2, false, 150, &msg, &ms);
	expect(rc, IBS_E_MALFORMED, msg, "the peer's first bytes are 0x4745, not \"IBSP\"");
	/* A newer version. */
	buf[5] = 7;
	msg = NULL;
	rc = recv_from(buf, n, false, 2000, &msg, &ms);
	expect(rc, IBS_E_MALFORMED, msg, "probe protocol version 7");
	buf[5] = IBS_OOB_VERSION;
	/* Oversized: refused from the header, without waiting for a payload that never comes. */
	buf[8] = 0x7f;
	msg = NULL;
	rc = recv_from(buf, IBS_OOB_HDR_LEN, false, 2000, &msg, &ms);
	expect(rc, IBS_E_MALFORMED, msg, "oversized message");
	assert_true(ms < 1000);
	buf[8] = 0;
	/* Truncated: half a hello, then the peer hangs up. */
	msg = NULL;
	rc = recv_from(buf, 40, true, 2000, &msg, &ms);
	expect(rc, IBS_E_MALFORMED, msg, "truncated message: the peer closed the connection after 40 of 76 bytes");
	/* Half a hello, then silence: the deadline. */
	msg = NULL;
	rc = recv_from(buf, 40, false, 100, &msg, &ms);
	expect(rc, IBS_E_TIMEOUT, msg, "only 40 of 76 bytes of a message arrived within 100 ms");
	/* Connects and says nothing. */
	msg = NULL;
	rc = recv_from(NULL, 0, false, 100, &msg, &ms);
	expect(rc, IBS_E_TIMEOUT, msg, "no message from the peer within 100 ms");
	assert_true(ms >= 90 && ms < 2000);
	/* Connects and hangs up. */
	msg = NULL;
	rc = recv_from(NULL, 0, true, 1000, &msg, &ms);
	expect(rc, IBS_E_TRANSPORT, msg, "the peer closed the connection");
	/* A malformed field in a whole message. */
	buf[IBS_OOB_HDR_LEN + 3] = 9;
	msg = NULL;
	rc = recv_from(buf, n, false, 1000, &msg, &ms);
	expect(rc, IBS_E_MALFORMED, msg, "malformed hello: path MTU 9 out of range");
}

struct trickle {
	int fd;
	uint8_t buf[IBS_OOB_MAX_MSG];
	size_t n;
};

/* A slow peer: one byte of a valid hello every 20 ms. */
static void *trickle(void *arg)
{
	struct trickle *t = arg;
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (send(t->fd, t->buf + i, 1, MSG_NOSIGNAL) != 1)
			break;
		usleep(20000);
	}
	return NULL;
}

/* The deadline covers the whole message: a peer dribbling bytes cannot keep us forever. */
static void test_socket_slow_peer(void **state)
{
	struct trickle t;
	struct ibs_oob_msg m;
	pthread_t th;
	char *msg = NULL;
	uint64_t t0, ms;
	enum ibs_err rc;
	int sv[2];

	(void)state;
	pair(sv);
	t.fd = sv[1];
	t.n = oob_encode_hello(t.buf);
	assert_int_equal(pthread_create(&th, NULL, trickle, &t), 0);
	t0 = ibs_mono_ns();
	rc = ibs_oob_recv(sv[0], 200, &m, &msg);
	ms = (ibs_mono_ns() - t0) / 1000000;
	close(sv[0]);
	pthread_join(th, NULL);
	close(sv[1]);
	assert_true(ms < 5000);
	expect(rc, IBS_E_TIMEOUT, msg, "bytes of a message arrived within 200 ms");
}

/* ---- loopback TCP (127.0.0.1 only) ---- */

static void test_tcp_loopback(void **state)
{
	struct ibs_oob_msg in, out;
	char *msg = NULL, *peer = NULL;
	unsigned port = 0;
	int lfd, cfd, sfd;

	(void)state;
	assert_int_equal(ibs_tcp_listen("127.0.0.1", 0, &lfd, &port, &msg), IBS_OK);
	assert_true(port > 0);
	assert_int_equal(ibs_tcp_connect("127.0.0.1", port, 2000, &cfd, &msg), IBS_OK);
	assert_int_equal(ibs_tcp_accept(lfd, 2000, &sfd, &peer, &msg), IBS_OK);
	assert_non_null(strstr(peer, "127.0.0.1:"));
	free(peer);
	oob_hello(&in, IBS_OOB_HELLO);
	assert_int_equal(ibs_oob_send(cfd, &in, 1000, &msg), IBS_OK);
	assert_int_equal(ibs_oob_recv(sfd, 1000, &out, &msg), IBS_OK);
	assert_memory_equal(&out.hello, &in.hello, sizeof(in.hello));
	close(sfd);
	close(cfd);
	/* Names are resolved too (within the deadline). */
	if (ibs_tcp_connect("localhost", port, 2000, &cfd, &msg) == IBS_OK) {
		assert_int_equal(ibs_tcp_accept(lfd, 2000, &sfd, &peer, &msg), IBS_OK);
		free(peer);
		close(sfd);
		close(cfd);
	} else {
		free(msg); /* a host without "localhost" in /etc/hosts */
		msg = NULL;
	}
	close(lfd);
	assert_null(msg);
}

/* Connect to host:port and accept it on lfd; the peer's text as the listener says it. */
static char *accept_from(int lfd, const char *host, unsigned port)
{
	char *msg = NULL, *peer = NULL;
	int cfd, sfd;

	assert_int_equal(ibs_tcp_connect(host, port, 2000, &cfd, &msg), IBS_OK);
	assert_int_equal(ibs_tcp_accept(lfd, 2000, &sfd, &peer, &msg), IBS_OK);
	close(sfd);
	close(cfd);
	return peer;
}

/*
 * The default listener (no --bind) hears IPv4 and IPv6 on one socket (it
 * turns IPV6_V6ONLY off itself, whatever net.ipv6.bindv6only says: the
 * description reads the option back), and says an IPv4 peer as IPv4, not
 * ::ffff:127.0.0.1.
 */
static void test_tcp_dual_stack(void **state)
{
	char *msg = NULL, *peer, *where;
	unsigned port = 0;
	int lfd, cfd;

	(void)state;
	assert_int_equal(ibs_tcp_listen(NULL, 0, &lfd, &port, &msg), IBS_OK);
	where = ibs_tcp_listen_where(lfd);
	assert_string_equal(where, ":: (every IPv4 and IPv6 address)");
	free(where);
	peer = accept_from(lfd, "127.0.0.1", port);
	assert_non_null(strstr(peer, "127.0.0.1:"));
	assert_null(strstr(peer, "ffff"));
	free(peer);
	peer = accept_from(lfd, "::1", port);
	assert_non_null(strstr(peer, "[::1]:"));
	free(peer);
	close(lfd);
	/* An address given is that address only. */
	assert_int_equal(ibs_tcp_listen("127.0.0.1", 0, &lfd, &port, &msg), IBS_OK);
	where = ibs_tcp_listen_where(lfd);
	assert_string_equal(where, "127.0.0.1");
	free(where);
	assert_int_equal(ibs_tcp_connect("::1", port, 1000, &cfd, &msg), IBS_E_TRANSPORT);
	assert_non_null(strstr(msg, "Connection refused"));
	free(msg);
	msg = NULL;
	close(lfd);
	assert_int_equal(ibs_tcp_listen("0.0.0.0", 0, &lfd, &port, &msg), IBS_OK);
	where = ibs_tcp_listen_where(lfd);
	assert_string_equal(where, "0.0.0.0 (every IPv4 address)");
	free(where);
	close(lfd);
	/* A port already taken is said as such, never hidden behind an IPv4-only listener. */
	assert_int_equal(ibs_tcp_listen(NULL, 0, &lfd, &port, &msg), IBS_OK);
	{
		int lfd2 = -1;
		unsigned port2 = 0;
		assert_int_equal(ibs_tcp_listen(NULL, port, &lfd2, &port2, &msg), IBS_E_TRANSPORT);
		assert_non_null(strstr(msg, "Address already in use"));
		assert_int_equal(lfd2, -1);
		free(msg);
		msg = NULL;
	}
	close(lfd);
}

static void test_tcp_errors(void **state)
{
	char *msg = NULL, *peer = NULL;
	unsigned port = 0;
	enum ibs_err rc;
	uint64_t t0;
	int lfd, fd;

	(void)state;
	/* Nobody connects: the wait ends at its deadline. */
	assert_int_equal(ibs_tcp_listen("127.0.0.1", 0, &lfd, &port, &msg), IBS_OK);
	t0 = ibs_mono_ns();
	rc = ibs_tcp_accept(lfd, 50, &fd, &peer, &msg);
	expect(rc, IBS_E_TIMEOUT, msg, "no peer connected within 50 ms");
	assert_true((ibs_mono_ns() - t0) / 1000000 < 1000);
	close(lfd);
	/* Nobody listens: refused. */
	msg = NULL;
	rc = ibs_tcp_connect("127.0.0.1", port, 1000, &fd, &msg);
	expect(rc, IBS_E_TRANSPORT, msg, "Connection refused");
	msg = NULL;
	rc = ibs_tcp_listen("300.1.1.1", 0, &lfd, &port, &msg);
	expect(rc, IBS_E_INVAL, msg, "cannot listen on '300.1.1.1'");
	/* An unknown name fails, or (no resolver here) times out: either way within the deadline. */
	msg = NULL;
	t0 = ibs_mono_ns();
	rc = ibs_tcp_connect("no-such-host.invalid", 1, 500, &fd, &msg);
	assert_true((ibs_mono_ns() - t0) / 1000000 < 2000);
	expect(rc, rc == IBS_E_TIMEOUT ? IBS_E_TIMEOUT : IBS_E_TRANSPORT, msg, "cannot resolve 'no-such-host.invalid'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket_good),      cmocka_unit_test(test_socket_hostile),
		cmocka_unit_test(test_socket_slow_peer), cmocka_unit_test(test_tcp_loopback),
		cmocka_unit_test(test_tcp_dual_stack),   cmocka_unit_test(test_tcp_errors),
		cmocka_unit_test(test_socket_gone),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("tcp", tests, NULL, NULL);
}
