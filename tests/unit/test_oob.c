/* Unit tests of the link probe's out-of-band protocol: codec, hostile peers over socketpair, loopback TCP. */
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

#include "../../core/base/clock.h"
#include "../../core/base/log.h"
#include "../../core/probe/oob.h"
#include "../../core/probe/tcp.h"
#include "../../core/probe/ping.h"
#include "../../core/probe/verbs.h"

static void hello(struct ibs_oob_msg *m, enum ibs_oob_type type)
{
	struct ibs_oob_hello *h = &m->hello;

	memset(m, 0, sizeof(*m));
	m->type = type;
	h->op = IBS_OP_WRITE;
	h->bw = true;
	h->link_layer = IBS_LL_ETH;
	h->mtu = 5;
	h->iters = 1000;
	h->size = 4096;
	h->timeout_ms = 5000;
	h->lid = 0x1234;
	h->gid_index = 3;
	h->qpn = 0xabcdef;
	h->psn = 0x123456;
	h->rd_atomic = 16;
	h->gid_type = IBS_GID_ROCE_V2;
	h->gid[10] = h->gid[11] = 0xff;
	h->gid[12] = 192;
	h->gid[15] = 7;
	h->addr = 0x00007f0012345000ull;
	h->rkey = 0xdeadbeef;
	h->len = 4096;
	h->sl = 5;
	h->sl_set = true;
	h->tclass = 106;
	h->tclass_set = true;
}

static size_t encode_hello(uint8_t *buf)
{
	struct ibs_oob_msg m;

	hello(&m, IBS_OOB_HELLO);
	return ibs_oob_encode(&m, buf);
}

/* Decoding fails with a message containing want. */
static void decode_fails(const uint8_t *buf, size_t len, const char *want)
{
	struct ibs_oob_msg m;
	char *msg = NULL;

	assert_int_equal(ibs_oob_decode(buf, len, &m, &msg), IBS_E_MALFORMED);
	assert_non_null(msg);
	if (!strstr(msg, want))
		fail_msg("'%s' lacks '%s'", msg, want);
	free(msg);
}

static void test_roundtrip(void **state)
{
	uint8_t buf[IBS_OOB_MAX_MSG];
	struct ibs_oob_msg in, out;
	enum ibs_oob_type t;
	char *msg = NULL;
	size_t n;

	(void)state;
	for (t = IBS_OOB_HELLO; t <= IBS_OOB_HELLO_REPLY; t++) {
		hello(&in, t);
		n = ibs_oob_encode(&in, buf);
		assert_int_equal(n, IBS_OOB_HDR_LEN + IBS_OOB_HELLO_LEN);
		assert_memory_equal(buf, "IBSP", 4);
		assert_int_equal(ibs_oob_decode(buf, n, &out, &msg), IBS_OK);
		assert_int_equal(out.type, t);
		assert_memory_equal(&out.hello, &in.hello, sizeof(in.hello));
	}
	memset(&in, 0, sizeof(in));
	in.type = IBS_OOB_KEEPALIVE;
	n = ibs_oob_encode(&in, buf);
	assert_int_equal(n, IBS_OOB_HDR_LEN);
	assert_int_equal(ibs_oob_decode(buf, n, &out, &msg), IBS_OK);
	assert_int_equal(out.type, IBS_OOB_KEEPALIVE);
	in.type = IBS_OOB_DONE;
	n = ibs_oob_encode(&in, buf);
	assert_int_equal(ibs_oob_decode(buf, n, &out, &msg), IBS_OK);
	assert_int_equal(out.type, IBS_OOB_DONE);
	in.type = IBS_OOB_ERROR;
	snprintf(in.text, sizeof(in.text), "RTR failed: Network is unreachable");
	n = ibs_oob_encode(&in, buf);
	assert_int_equal(ibs_oob_decode(buf, n, &out, &msg), IBS_OK);
	assert_string_equal(out.text, "RTR failed: Network is unreachable");
	assert_null(msg);
}

static void test_malformed(void **state)
{
	uint8_t buf[IBS_OOB_MAX_MSG + 64], save[IBS_OOB_MAX_MSG];
	size_t n;

	(void)state;
	n = encode_hello(buf);
	memcpy(save, buf, n);
	/* Not ours at all. */
	memcpy(buf, "GET / HTTP/1.1\r\n", 16);
	decode_fails(buf, 16, "not an ibscan probe: the peer's first bytes are 0x47455420");
	memcpy(buf, save, n);
	/* Another protocol version. */
	buf[5] = 3;
	decode_fails(buf, n, "the peer speaks probe protocol version 3, this ibscan speaks version 2");
	/* Version 1 did not carry --sl and --tclass: an old peer is named as one. */
	buf[5] = 1;
	decode_fails(buf, n, "the peer speaks probe protocol version 1, this ibscan speaks version 2");
	memcpy(buf, save, n);
	buf[7] = 9;
	decode_fails(buf, n, "unknown message type 9");
	memcpy(buf, save, n);
	/* Oversized: refused from the header alone. */
	buf[8] = 0x40;
	decode_fails(buf, IBS_OOB_HDR_LEN, "oversized message: the peer announces 1073741888 bytes (at most 256)");
	memcpy(buf, save, n);
	buf[11] = 63;
	decode_fails(buf, n, "malformed hello message: 63 bytes of payload");
	memcpy(buf, save, n);
	/* Truncated: fewer bytes than the header, or than the header announces. */
	decode_fails(buf, 7, "truncated message: 7 bytes");
	decode_fails(buf, n - 1, "truncated hello message: 75 of 76 bytes");
	/* Trailing bytes. */
	buf[n] = 0;
	decode_fails(buf, n + 1, "1 stray bytes after a hello message");
	/* Keepalive and done carry nothing; an error carries 1 to 256 bytes. */
	memcpy(buf, save, n);
	buf[7] = IBS_OOB_KEEPALIVE;
	decode_fails(buf, n, "malformed keepalive message: 64 bytes of payload");
	buf[7] = IBS_OOB_ERROR;
	buf[11] = 0;
	decode_fails(buf, IBS_OOB_HDR_LEN, "malformed error message: 0 bytes of payload");
}

/* Every hello field out of its range is refused, by name. */
static void test_hello_fields(void **state)
{
	static const struct {
		unsigned off, len;
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, 1, 4, "operation 4" },
		{ 1, 1, 8, "flags 8" },
		{ 2, 1, 0, "link layer 0" },
		{ 2, 1, 3, "link layer 3" },
		{ 3, 1, 0, "path MTU 0" },
		{ 3, 1, 6, "path MTU 6" },
		{ 4, 4, 0, "iterations 0" },
		{ 4, 4, IBS_PING_MAX_ITERS + 1ull, "iterations 10000001" },
		{ 8, 4, 0, "size 0" },
		{ 8, 4, IBS_PING_MAX_SIZE + 1ull, "size 16777217" },
		{ 12, 4, 0, "timeout 0" },
		{ 20, 4, 1, "QPN 1" },
		{ 20, 4, 0x1000000, "QPN 16777216" },
		{ 24, 4, 0x1000000, "PSN 16777216" },
		{ 29, 1, 3, "GID type 3" },
		{ 30, 1, 16, "service level 16" },
		{ 60, 4, 4, "buffer length 4" },
		{ 60, 4, 4095, "buffer length 4095" }, /* shorter than the size */
	};
	uint8_t buf[IBS_OOB_MAX_MSG], save[IBS_OOB_MAX_MSG];
	size_t n, i, k;

	(void)state;
	n = encode_hello(save);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *p = buf + IBS_OOB_HDR_LEN + cases[i].off;
		char want[96];
		memcpy(buf, save, n);
		for (k = 0; k < cases[i].len; k++)
			p[k] = (uint8_t)(cases[i].v >> (8 * (cases[i].len - 1 - k)));
		snprintf(want, sizeof(want), "malformed hello: %s out of range", cases[i].want);
		decode_fails(buf, n, want);
	}
}

/* An error text is shown to the operator: control bytes never get through. */
static void test_error_text_sanitized(void **state)
{
	uint8_t buf[IBS_OOB_MAX_MSG];
	struct ibs_oob_msg m;
	char *msg = NULL;

	(void)state;
	memcpy(buf, "IBSP\0\2\0\5\0\0\0\x08", 12);
	memcpy(buf + 12, "a\x1b[2Jb\n\xff", 8);
	assert_int_equal(ibs_oob_decode(buf, 20, &m, &msg), IBS_OK);
	assert_string_equal(m.text, "a\\x1b[2Jb\\x0a\\xff");
}

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
	hello(&in, IBS_OOB_HELLO_REPLY);
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
	size_t n = encode_hello(buf);
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
	t.n = encode_hello(t.buf);
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
	hello(&in, IBS_OOB_HELLO);
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
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_hello_fields),
		cmocka_unit_test(test_error_text_sanitized),
		cmocka_unit_test(test_socket_good),
		cmocka_unit_test(test_socket_hostile),
		cmocka_unit_test(test_socket_slow_peer),
		cmocka_unit_test(test_tcp_loopback),
		cmocka_unit_test(test_tcp_dual_stack),
		cmocka_unit_test(test_tcp_errors),
		cmocka_unit_test(test_socket_gone),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("oob", tests, NULL, NULL);
}
