/*
 * The probe's TCP side: listening, accepting and connecting, and sending
 * and receiving whole out-of-band messages, every wait under a deadline.
 */
#define _GNU_SOURCE
#include "tcp.h"
#include "../base/clock.h"
#include "../base/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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
	/* An IPv4 peer of a dual-stack listener comes mapped (::ffff:a.b.c.d): say it as IPv4. */
	if (sa->sa_family == AF_INET6 && !strncmp(host, "::ffff:", 7) && strchr(host + 7, '.'))
		return xasprintf("%s:%s", host + 7, serv);
	if (sa->sa_family == AF_INET6)
		return xasprintf("[%s]:%s", host, serv);
	return xasprintf("%s:%s", host, serv);
}

/* The interface that holds this address (IPv4, or IPv6 without a scope). */
static void iface_of(int family, const void *addr, char *ifname, size_t len)
{
	struct ifaddrs *list = NULL, *i;

	if (getifaddrs(&list))
		return;
	for (i = list; i; i = i->ifa_next) {
		const struct sockaddr *a = i->ifa_addr;
		if (!a || a->sa_family != family)
			continue;
		if ((family == AF_INET && !memcmp(&((const struct sockaddr_in *)(const void *)a)->sin_addr, addr, 4)) ||
		    (family == AF_INET6 && !memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr, addr, 16))) {
			snprintf(ifname, len, "%s", i->ifa_name);
			break;
		}
	}
	freeifaddrs(list);
}

bool ibs_tcp_local_end(int fd, uint8_t gid[16], char *text, size_t text_len, char *ifname, size_t if_len)
{
	static const uint8_t v4pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char name[IF_NAMESIZE];

	*text = *ifname = '\0';
	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return false;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
		memcpy(gid, v4pfx, 12);
		memcpy(gid + 12, &a->sin_addr, 4);
	} else if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
		memcpy(gid, &a->sin6_addr, 16);
		/* A link-local address names its interface; an IPv4 one on a dual-stack socket comes mapped. */
		if (a->sin6_scope_id && if_indextoname(a->sin6_scope_id, name))
			snprintf(ifname, if_len, "%s", name);
	} else {
		return false;
	}
	if (!memcmp(gid, v4pfx, 12)) {
		inet_ntop(AF_INET, gid + 12, text, (socklen_t)text_len);
		if (!*ifname)
			iface_of(AF_INET, gid + 12, ifname, if_len);
	} else {
		inet_ntop(AF_INET6, gid, text, (socklen_t)text_len);
		if (!*ifname)
			iface_of(AF_INET6, gid, ifname, if_len);
	}
	return true;
}

static void tune(int fd)
{
	int one = 1;

	/* Small request/answer messages: do not wait to coalesce them. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* One socket bound to ai and listening, or -1 with *err set. dual: an IPv6 wildcard that hears IPv4 too. */
static int listen_on(const struct addrinfo *ai, bool dual, int *err)
{
	int s, one = 1, zero = 0;

	s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	if (s < 0) {
		*err = errno;
		return -1;
	}
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Whatever net.ipv6.bindv6only says: the default listener hears both families. */
	if (dual && setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) != 0) {
		*err = errno;
		close(s);
		return -1;
	}
	if (bind(s, ai->ai_addr, ai->ai_addrlen) == 0 && listen(s, 4) == 0)
		return s;
	*err = errno;
	close(s);
	return -1;
}

enum ibs_err ibs_tcp_listen(const char *addr, unsigned port, int *fd, unsigned *bound, char **msg)
{
	struct addrinfo hints, *res = NULL, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char serv[16];
	const char *a = addr ? addr : "::";
	int s = -1, rc, err = 0;

	*fd = -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = addr ? AF_UNSPEC : AF_INET6;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV | (addr ? 0 : AI_NUMERICHOST);
	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(a, serv, &hints, &res);
	if (rc && addr) {
		*msg = xasprintf("cannot listen on '%s': %s", a, gai_strerror(rc));
		return IBS_E_INVAL;
	}
	for (ai = rc ? NULL : res; ai && s < 0; ai = ai->ai_next)
		s = listen_on(ai, !addr, &err);
	if (res)
		freeaddrinfo(res);
	/*
	 * No address given and no IPv6 on this host (ipv6.disable=1: no AF_INET6
	 * sockets; IPV6_V6ONLY refused): every IPv4 address. Not when the port
	 * is taken: that is said as it is, not hidden behind an IPv4-only listener.
	 */
	if (s < 0 && !addr && (rc || err == EAFNOSUPPORT || err == EPROTONOSUPPORT || err == EADDRNOTAVAIL ||
			       err == ENOPROTOOPT || err == EINVAL)) {
		struct sockaddr_in any4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
		struct addrinfo ai4 = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP,
					.ai_addr = (struct sockaddr *)&any4, .ai_addrlen = sizeof(any4) };

		a = "0.0.0.0";
		s = listen_on(&ai4, false, &err);
	}
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

char *ibs_tcp_listen_where(int lfd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[NI_MAXHOST];
	int v6only = 1;
	socklen_t ol = sizeof(v6only);

	if (getsockname(lfd, (struct sockaddr *)&ss, &sl))
		return xstrdup("?");
	if (ss.ss_family == AF_INET6 &&
	    !memcmp(&((struct sockaddr_in6 *)&ss)->sin6_addr, &in6addr_any, sizeof(in6addr_any))) {
		getsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &ol);
		return xstrdup(v6only ? ":: (every IPv6 address)" : ":: (every IPv4 and IPv6 address)");
	}
	if (ss.ss_family == AF_INET && ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_ANY))
		return xstrdup("0.0.0.0 (every IPv4 address)");
	if (getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), NULL, 0, NI_NUMERICHOST))
		return xstrdup("?");
	return xstrdup(host);
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

static enum ibs_err short_read(enum ibs_err rc, size_t got, size_t want, int err, int timeout_ms, char **msg)
{
	if (rc == IBS_E_TIMEOUT && got == 0)
		*msg = xasprintf("no message from the peer within %d ms", timeout_ms);
	else if (rc == IBS_E_TIMEOUT)
		*msg = xasprintf("only %zu of %zu bytes of a message arrived within %d ms", got, want, timeout_ms);
	else if (err)
		*msg = xasprintf("receiving failed: %s", strerror(err));
	else if (got == 0)
		*msg = xstrdup("the peer closed the connection");
	else
	{
		*msg = xasprintf("truncated message: the peer closed the connection after %zu of %zu bytes", got, want);
		return IBS_E_MALFORMED;
	}
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

	m->version = 0; /* none known until a header arrives */
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
			*msg = xasprintf("sending failed: %s", strerror(errno));
			return IBS_E_TRANSPORT;
		}
		w = send(fd, buf + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue;
		if (w < 0) {
			*msg = xasprintf("sending failed: %s", strerror(errno));
			return IBS_E_TRANSPORT;
		}
		off += (size_t)w;
	}
	return IBS_OK;
}

void ibs_tcp_close(int fd, int linger_ms)
{
	uint64_t deadline = ibs_mono_ns() + (uint64_t)(linger_ms > 0 ? linger_ms : 0) * 1000000ull;
	char sink[512];

	if (shutdown(fd, SHUT_WR) == 0) {
		for (;;) {
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			int left = ibs_ms_left(deadline);
			ssize_t n;
			if (left <= 0 || poll(&pf, 1, left) <= 0)
				break;
			n = read(fd, sink, sizeof(sink));
			if (n <= 0)
				break; /* the peer closed too (or the connection is gone) */
		}
	}
	close(fd);
}
