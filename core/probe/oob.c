/* The link probe's out-of-band messages over TCP: codec and deadline-bounded socket helpers. */
#define _GNU_SOURCE
#include "oob.h"
#include "ping.h"
#include "../base/clock.h"
#include "../base/text.h"
#include "../base/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const type_names[] = {
	[IBS_OOB_HELLO] = "hello",
	[IBS_OOB_HELLO_REPLY] = "hello reply",
	[IBS_OOB_KEEPALIVE] = "keepalive",
	[IBS_OOB_DONE] = "done",
	[IBS_OOB_ERROR] = "error",
};

const char *ibs_oob_type_name(unsigned type)
{
	if (type < sizeof(type_names) / sizeof(type_names[0]) && type_names[type])
		return type_names[type];
	return "unknown";
}

/* ---- codec ---- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

size_t ibs_oob_encode(const struct ibs_oob_msg *m, uint8_t *buf)
{
	uint8_t *p = buf + IBS_OOB_HDR_LEN;
	const struct ibs_oob_hello *h = &m->hello;
	size_t plen = 0;

	switch (m->type) {
	case IBS_OOB_HELLO:
	case IBS_OOB_HELLO_REPLY:
		memset(p, 0, IBS_OOB_HELLO_LEN);
		p[0] = h->op;
		p[1] = h->bw ? 1 : 0;
		p[2] = h->link_layer;
		p[3] = h->mtu;
		put32(p + 4, h->iters);
		put32(p + 8, h->size);
		put32(p + 12, h->timeout_ms);
		put16(p + 16, h->lid);
		put16(p + 18, h->gid_index);
		put32(p + 20, h->qpn);
		put32(p + 24, h->psn);
		p[28] = h->rd_atomic;
		p[29] = h->gid_type;
		memcpy(p + 32, h->gid, 16);
		put64(p + 48, h->addr);
		put32(p + 56, h->rkey);
		put32(p + 60, h->len);
		plen = IBS_OOB_HELLO_LEN;
		break;
	case IBS_OOB_ERROR:
		plen = strnlen(m->text, IBS_OOB_MAX_TEXT);
		if (plen == 0) {
			p[0] = '?';
			plen = 1;
		} else {
			memcpy(p, m->text, plen);
		}
		break;
	case IBS_OOB_KEEPALIVE:
	case IBS_OOB_DONE:
	default:
		break;
	}
	put32(buf, IBS_OOB_MAGIC);
	put16(buf + 4, IBS_OOB_VERSION);
	put16(buf + 6, (uint16_t)m->type);
	put32(buf + 8, (uint32_t)plen);
	return IBS_OOB_HDR_LEN + plen;
}

static enum ibs_err bad(char **msg, char *m)
{
	*msg = m;
	return IBS_E_MALFORMED;
}

/* Does what arrived so far start like a message? (A stranger is named as such, not as a timeout.) */
static bool magic_prefix_ok(const uint8_t *b, size_t n)
{
	uint8_t m[4];

	put32(m, IBS_OOB_MAGIC);
	return memcmp(b, m, n < 4 ? n : 4) == 0;
}

static char *bad_magic_msg(const uint8_t *b, size_t n)
{
	char hex[16] = "";
	size_t i, k = n < 4 ? n : 4;

	for (i = 0; i < k; i++)
		snprintf(hex + 2 * i, sizeof(hex) - 2 * i, "%02x", b[i]);
	return xasprintf("not an ibscan probe: the peer's first bytes are 0x%s, not \"IBSP\" "
			 "(is another program using that TCP port?)",
			 hex);
}

enum ibs_err ibs_oob_check_header(const uint8_t *hdr, size_t len, unsigned *type, uint32_t *plen, char **msg)
{
	unsigned version;
	uint32_t n;

	if (len < IBS_OOB_HDR_LEN)
		return bad(msg, xasprintf("truncated message: %zu bytes, a header has %d", len, IBS_OOB_HDR_LEN));
	if (!magic_prefix_ok(hdr, 4))
		return bad(msg, bad_magic_msg(hdr, 4));
	version = get16(hdr + 4);
	if (version != IBS_OOB_VERSION)
		return bad(msg, xasprintf("the peer speaks probe protocol version %u, this ibscan speaks version %d "
					  "(run the same ibscan version on both hosts)",
					  version, IBS_OOB_VERSION));
	*type = get16(hdr + 6);
	n = get32(hdr + 8);
	if (n > IBS_OOB_MAX_PAYLOAD)
		return bad(msg, xasprintf("oversized message: the peer announces %" PRIu32 " bytes (at most %d)", n,
					  IBS_OOB_MAX_PAYLOAD));
	switch (*type) {
	case IBS_OOB_HELLO:
	case IBS_OOB_HELLO_REPLY:
		if (n != IBS_OOB_HELLO_LEN)
			goto badlen;
		break;
	case IBS_OOB_KEEPALIVE:
	case IBS_OOB_DONE:
		if (n != 0)
			goto badlen;
		break;
	case IBS_OOB_ERROR:
		if (n < 1 || n > IBS_OOB_MAX_TEXT)
			goto badlen;
		break;
	default:
		return bad(msg, xasprintf("unknown message type %u", *type));
	}
	*plen = n;
	return IBS_OK;
badlen:
	return bad(msg, xasprintf("malformed %s message: %" PRIu32 " bytes of payload", ibs_oob_type_name(*type), n));
}

static enum ibs_err decode_hello(const uint8_t *p, struct ibs_oob_hello *h, char **msg)
{
	const char *what = NULL;
	uint64_t v = 0;

	h->op = p[0];
	h->bw = p[1] & 1;
	h->link_layer = p[2];
	h->mtu = p[3];
	h->iters = get32(p + 4);
	h->size = get32(p + 8);
	h->timeout_ms = get32(p + 12);
	h->lid = get16(p + 16);
	h->gid_index = get16(p + 18);
	h->qpn = get32(p + 20);
	h->psn = get32(p + 24);
	h->rd_atomic = p[28];
	h->gid_type = p[29];
	memcpy(h->gid, p + 32, 16);
	h->addr = get64(p + 48);
	h->rkey = get32(p + 56);
	h->len = get32(p + 60);
	if (h->op >= IBS_OP__COUNT)
		what = "operation", v = h->op;
	else if (p[1] & ~1u)
		what = "flags", v = p[1];
	else if (h->link_layer < 1 || h->link_layer > 2)
		what = "link layer", v = h->link_layer;
	else if (h->mtu < 1 || h->mtu > 5)
		what = "path MTU", v = h->mtu;
	else if (h->iters < 1 || h->iters > IBS_PING_MAX_ITERS)
		what = "iterations", v = h->iters;
	else if (h->size < 1 || h->size > IBS_PING_MAX_SIZE)
		what = "size", v = h->size;
	else if (h->timeout_ms < 1 || h->timeout_ms > IBS_PING_MAX_TIMEOUT_MS)
		what = "timeout", v = h->timeout_ms;
	else if (h->qpn < 2 || h->qpn > 0xffffff)
		what = "QPN", v = h->qpn; /* 0 and 1 are the management QPs */
	else if (h->psn > 0xffffff)
		what = "PSN", v = h->psn;
	else if (h->gid_type > 2)
		what = "GID type", v = h->gid_type;
	else if (get16(p + 30))
		what = "reserved field", v = get16(p + 30);
	else if (h->len < 8 || h->len < h->size)
		what = "buffer length", v = h->len;
	if (what)
		return bad(msg, xasprintf("malformed hello: %s %" PRIu64 " out of range", what, v));
	return IBS_OK;
}

enum ibs_err ibs_oob_decode(const uint8_t *buf, size_t len, struct ibs_oob_msg *m, char **msg)
{
	const uint8_t *p = buf + IBS_OOB_HDR_LEN;
	enum ibs_err rc;
	unsigned type;
	uint32_t plen;

	memset(m, 0, sizeof(*m));
	rc = ibs_oob_check_header(buf, len, &type, &plen, msg);
	if (rc)
		return rc;
	if (len < IBS_OOB_HDR_LEN + (size_t)plen)
		return bad(msg, xasprintf("truncated %s message: %zu of %zu bytes", ibs_oob_type_name(type), len,
					  IBS_OOB_HDR_LEN + (size_t)plen));
	if (len > IBS_OOB_HDR_LEN + (size_t)plen)
		return bad(msg, xasprintf("%zu stray bytes after a %s message", len - IBS_OOB_HDR_LEN - plen,
					  ibs_oob_type_name(type)));
	m->type = (enum ibs_oob_type)type;
	switch (type) {
	case IBS_OOB_HELLO:
	case IBS_OOB_HELLO_REPLY:
		return decode_hello(p, &m->hello, msg);
	case IBS_OOB_ERROR:
		/* Shown to the operator: cleaned like every string ibscan takes in. */
		ibs_text_clean_buf(m->text, sizeof(m->text), (const char *)p, plen);
		return IBS_OK;
	default:
		return IBS_OK;
	}
}

/* ---- deadlines ---- */

static uint64_t deadline_after(int timeout_ms)
{
	return ibs_mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
}

/* ---- sockets ---- */

static char *addr_str(const struct sockaddr *sa, socklen_t len)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV))
		return xstrdup("?");
	if (sa->sa_family == AF_INET6)
		return xasprintf("[%s]:%s", host, serv);
	return xasprintf("%s:%s", host, serv);
}

static void tune(int fd)
{
	int one = 1;

	/* Small request/answer messages: do not wait to coalesce them. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

enum ibs_err ibs_tcp_listen(const char *addr, unsigned port, int *fd, unsigned *bound, char **msg)
{
	struct addrinfo hints, *res = NULL, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char serv[16];
	const char *a = addr ? addr : "0.0.0.0";
	int s = -1, rc, err = 0, one = 1;

	*fd = -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(a, serv, &hints, &res);
	if (rc) {
		*msg = xasprintf("cannot listen on '%s': %s", a, gai_strerror(rc));
		return IBS_E_INVAL;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (s < 0) {
			err = errno;
			continue;
		}
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s, ai->ai_addr, ai->ai_addrlen) == 0 && listen(s, 4) == 0)
			break;
		err = errno;
		close(s);
		s = -1;
	}
	freeaddrinfo(res);
	if (s < 0) {
		*msg = xasprintf("cannot listen on %s port %u: %s", a, port, strerror(err ? err : EADDRNOTAVAIL));
		return IBS_E_TRANSPORT;
	}
	if (bound) {
		*bound = port;
		if (getsockname(s, (struct sockaddr *)&ss, &sl) == 0)
			*bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
								: ((struct sockaddr_in *)&ss)->sin_port);
	}
	*fd = s;
	return IBS_OK;
}

enum ibs_err ibs_tcp_accept(int lfd, int timeout_ms, int *fd, char **peer, char **msg)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct pollfd pfd = { lfd, POLLIN, 0 };
	uint64_t deadline = deadline_after(timeout_ms);
	int s, rc;

	*fd = -1;
	*peer = NULL;
	for (;;) {
		rc = poll(&pfd, 1, timeout_ms < 0 ? -1 : ibs_ms_left(deadline));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			*msg = xasprintf("waiting for a peer: %s", strerror(errno));
			return IBS_E_TRANSPORT;
		}
		if (rc == 0) {
			*msg = xasprintf("no peer connected within %d ms", timeout_ms);
			return IBS_E_TIMEOUT;
		}
		s = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
		if (s >= 0)
			break;
		/* The peer may have gone between poll and accept: wait for the next. */
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED && errno != EINTR) {
			*msg = xasprintf("accept: %s", strerror(errno));
			return IBS_E_TRANSPORT;
		}
	}
	tune(s);
	*peer = addr_str((struct sockaddr *)&ss, sl);
	*fd = s;
	return IBS_OK;
}

/*
 * Name resolution within the deadline: getaddrinfo itself may wait for DNS
 * for as long as resolv.conf allows, so names go through getaddrinfo_a.
 */
struct resolve_job {
	struct gaicb cb;
	struct addrinfo hints;
	char *host;
	char serv[16];
};

static int resolve(const char *host, unsigned port, int timeout_ms, struct addrinfo **res)
{
	struct addrinfo hints;
	struct resolve_job *j;
	struct gaicb *list[1];
	uint64_t deadline = deadline_after(timeout_ms);
	char serv[16];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, res);
	if (rc != EAI_NONAME)
		return rc;
	j = xcalloc(1, sizeof(*j));
	j->host = xstrdup(host);
	snprintf(j->serv, sizeof(j->serv), "%u", port);
	j->hints.ai_family = AF_UNSPEC;
	j->hints.ai_socktype = SOCK_STREAM;
	j->hints.ai_flags = AI_NUMERICSERV;
	j->cb.ar_name = j->host;
	j->cb.ar_service = j->serv;
	j->cb.ar_request = &j->hints;
	list[0] = &j->cb;
	rc = getaddrinfo_a(GAI_NOWAIT, list, 1, NULL);
	if (rc) {
		free(j->host);
		free(j);
		return rc;
	}
	for (;;) {
		int left = ibs_ms_left(deadline);
		struct timespec ts = { left / 1000, (long)(left % 1000) * 1000000L };
		rc = gai_error(&j->cb);
		if (rc != EAI_INPROGRESS)
			break;
		if (left <= 0) {
			/* A request still running owns j: leave it to the resolver thread. */
			if (gai_cancel(&j->cb) == EAI_NOTCANCELED)
				return EAI_AGAIN;
			break;
		}
		gai_suspend((const struct gaicb *const *)list, 1, &ts);
	}
	rc = gai_error(&j->cb);
	if (rc == 0)
		*res = j->cb.ar_result;
	else if (rc == EAI_INPROGRESS || rc == EAI_CANCELED)
		rc = EAI_AGAIN;
	free(j->host);
	free(j);
	return rc;
}

enum ibs_err ibs_tcp_connect(const char *host, unsigned port, int timeout_ms, int *fd, char **msg)
{
	struct addrinfo *res = NULL, *ai;
	uint64_t deadline = deadline_after(timeout_ms);
	enum ibs_err ret = IBS_E_TRANSPORT;
	int s = -1, rc, err = 0;

	*fd = -1;
	rc = resolve(host, port, timeout_ms, &res);
	if (rc) {
		if (rc == EAI_AGAIN)
			*msg = xasprintf("cannot resolve '%s' within %d ms", host, timeout_ms);
		else
			*msg = xasprintf("cannot resolve '%s': %s", host, gai_strerror(rc));
		return rc == EAI_AGAIN ? IBS_E_TIMEOUT : IBS_E_TRANSPORT;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		struct pollfd pfd;
		socklen_t el = sizeof(err);

		s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (s < 0) {
			err = errno;
			continue;
		}
		if (connect(s, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (errno != EINPROGRESS) {
			err = errno;
			goto next;
		}
		pfd.fd = s;
		pfd.events = POLLOUT;
		pfd.revents = 0;
		do
			rc = poll(&pfd, 1, ibs_ms_left(deadline));
		while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			err = ETIMEDOUT;
			ret = IBS_E_TIMEOUT;
			goto next;
		}
		if (rc < 0 || getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			err = errno;
		if (err == 0)
			break;
	next:
		close(s);
		s = -1;
	}
	freeaddrinfo(res);
	if (s < 0) {
		if (ret == IBS_E_TIMEOUT)
			*msg = xasprintf("cannot connect to %s port %u within %d ms", host, port, timeout_ms);
		else
			*msg = xasprintf("cannot connect to %s port %u: %s", host, port, strerror(err ? err : EIO));
		return ret;
	}
	tune(s);
	*fd = s;
	return IBS_OK;
}

void ibs_oob_rx_init(struct ibs_oob_rx *rx)
{
	rx->got = 0;
	rx->want = IBS_OOB_HDR_LEN;
}

size_t ibs_oob_rx_need(const struct ibs_oob_rx *rx)
{
	return rx->want - rx->got;
}

enum ibs_err ibs_oob_rx_feed(struct ibs_oob_rx *rx, const uint8_t *p, size_t n, struct ibs_oob_msg *m, char **msg)
{
	unsigned type;
	uint32_t plen;
	enum ibs_err rc;

	if (n > rx->want - rx->got) {
		*msg = xasprintf("%zu bytes fed where the message needs %zu", n, rx->want - rx->got);
		rx->want = rx->got; /* spent */
		return IBS_E_INVAL;
	}
	memcpy(rx->buf + rx->got, p, n);
	rx->got += n;
	/* A stranger is named as one from its first bytes, even if it then goes quiet or hangs up. */
	if (!magic_prefix_ok(rx->buf, rx->got)) {
		rx->want = rx->got;
		return bad(msg, bad_magic_msg(rx->buf, rx->got));
	}
	if (rx->got < rx->want)
		return IBS_E_AGAIN;
	if (rx->want == IBS_OOB_HDR_LEN) {
		/* The header is checked before reading on: an oversized length is refused, not waited for. */
		rc = ibs_oob_check_header(rx->buf, rx->got, &type, &plen, msg);
		if (rc) {
			rx->want = rx->got;
			return rc;
		}
		rx->want = IBS_OOB_HDR_LEN + plen;
		if (plen)
			return IBS_E_AGAIN;
	}
	return ibs_oob_decode(rx->buf, rx->got, m, msg);
}

static enum ibs_err short_read(enum ibs_err rc, size_t got, size_t want, int err, int timeout_ms, char **msg)
{
	if (rc == IBS_E_TIMEOUT && got == 0)
		*msg = xasprintf("no message from the peer within %d ms", timeout_ms);
	else if (rc == IBS_E_TIMEOUT)
		*msg = xasprintf("only %zu of %zu bytes of a message arrived within %d ms", got, want, timeout_ms);
	else if (err)
		*msg = xasprintf("connection to the peer failed: %s", strerror(err));
	else if (got == 0)
		*msg = xstrdup("the peer closed the connection");
	else
		return bad(msg, xasprintf("truncated message: the peer closed the connection after %zu of %zu bytes",
					  got, want));
	return rc;
}

enum ibs_err ibs_oob_recv(int fd, int timeout_ms, struct ibs_oob_msg *m, char **msg)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	uint64_t deadline = deadline_after(timeout_ms);
	uint8_t piece[IBS_OOB_MAX_MSG];
	struct ibs_oob_rx rx;
	enum ibs_err rc;
	ssize_t r;
	int prc;

	ibs_oob_rx_init(&rx);
	for (;;) {
		prc = poll(&pfd, 1, ibs_ms_left(deadline));
		if (prc < 0 && errno == EINTR)
			continue;
		if (prc < 0)
			return short_read(IBS_E_TRANSPORT, rx.got, rx.want, errno, timeout_ms, msg);
		if (prc == 0)
			return short_read(IBS_E_TIMEOUT, rx.got, rx.want, 0, timeout_ms, msg);
		/* Never past this message: the next one's bytes stay in the socket. */
		r = recv(fd, piece, ibs_oob_rx_need(&rx), MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue;
		if (r <= 0)
			return short_read(IBS_E_TRANSPORT, rx.got, rx.want, r < 0 ? errno : 0, timeout_ms, msg);
		rc = ibs_oob_rx_feed(&rx, piece, (size_t)r, m, msg);
		if (rc != IBS_E_AGAIN)
			return rc;
	}
}

enum ibs_err ibs_oob_send(int fd, const struct ibs_oob_msg *m, int timeout_ms, char **msg)
{
	uint8_t buf[IBS_OOB_MAX_MSG];
	struct pollfd pfd = { fd, POLLOUT, 0 };
	uint64_t deadline = deadline_after(timeout_ms);
	size_t n = ibs_oob_encode(m, buf), off = 0;
	ssize_t w;
	int rc;

	while (off < n) {
		rc = poll(&pfd, 1, ibs_ms_left(deadline));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0) {
			*msg = xasprintf("the peer accepted no data within %d ms", timeout_ms);
			return IBS_E_TIMEOUT;
		}
		if (rc < 0) {
			*msg = xasprintf("connection to the peer failed: %s", strerror(errno));
			return IBS_E_TRANSPORT;
		}
		w = send(fd, buf + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue;
		if (w < 0) {
			*msg = xasprintf("connection to the peer failed: %s", strerror(errno));
			return IBS_E_TRANSPORT;
		}
		off += (size_t)w;
	}
	return IBS_OK;
}
