/*
 * The session with one peer over TCP: its deadline, keepalives, telling and
 * hearing why a side stops, and the closing DONE.
 */
#include "probe.h"
#include "tcp.h"
#include "../base/clock.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * The wait allowed now: --timeout, cut to what is left of the session. Each
 * message restarts --timeout, so without the session's own end a peer that
 * trickles keepalives would hold the listener and its pinned buffers forever.
 */
int ping_wait_ms(const struct ping_run *r)
{
	int left = ibs_ms_left(r->session_end);

	return left < (int)r->timeout_ms ? left : (int)r->timeout_ms;
}

bool ping_session_over(const struct ping_run *r)
{
	return ibs_mono_ns() >= r->session_end;
}

/* The session passed --deadline: stop, and (tell: here, not by the caller) tell the peer why. */
enum ibs_err ping_session_expired(struct ibs_ping *p, struct ping_run *r, enum ibs_ping_step step, bool tell)
{
	enum ibs_err rc = ping_fail(p, step, IBS_E_DEADLINE, xstrdup("a longer run needs a larger --deadline, on both hosts"),
				    "the probe session with %s did not end within --deadline %.3g s", r->peer,
				    r->session_ms / 1000.0);

	if (tell)
		ping_tell_peer(p, r);
	return rc;
}

enum ibs_err ping_keepalive(struct ibs_ping *p, struct ping_run *r, uint64_t now)
{
	struct ibs_oob_msg m;
	char *msg = NULL;

	r->next_ka = now + (uint64_t)r->ka_ms * 1000000ull;
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_KEEPALIVE;
	if (ibs_oob_send(r->fd, &m, ping_wait_ms(r), &msg) == IBS_OK)
		return IBS_OK;
	ping_fail(p, IBS_STEP_RUN, IBS_E_TRANSPORT, NULL, "lost the TCP connection to the peer %s: %s", r->peer, msg);
	free(msg);
	return IBS_E_TRANSPORT;
}

/* Tell the peer why this side stops (best effort: it may be gone). */
void ping_tell_peer(struct ibs_ping *p, struct ping_run *r)
{
	struct ibs_oob_msg m;
	char *msg = NULL;

	if (r->fd < 0 || !p->err)
		return;
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_ERROR;
	snprintf(m.text, sizeof(m.text), "%s", p->err);
	ibs_oob_send(r->fd, &m, FINISH_TIMEOUT_MS, &msg);
	free(msg);
}

/* If the peer has already said why it stopped, the text (owned), else NULL. */
char *ping_peer_says(struct ping_run *r)
{
	struct pollfd pfd = { r->fd, POLLIN, 0 };
	struct ibs_oob_msg m;
	char *msg = NULL;

	if (r->fd < 0 || poll(&pfd, 1, 100) <= 0)
		return NULL;
	if (ibs_oob_recv(r->fd, 100, &m, &msg) == IBS_OK && m.type == IBS_OOB_ERROR)
		return xstrdup(m.text);
	free(msg);
	return NULL;
}

bool ping_peer_closed(struct ping_run *r)
{
	struct pollfd pfd = { r->fd, POLLIN, 0 };
	char c;
	ssize_t n;

	if (r->fd < 0 || poll(&pfd, 1, 0) <= 0)
		return false;
	if (pfd.revents & (POLLHUP | POLLERR))
		return true;
	n = recv(r->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Wait for the peer's DONE (skipping keepalives), or its reason for stopping. */
enum ibs_err ping_await_done(struct ibs_ping *p, struct ping_run *r, enum ibs_ping_step step, bool answer)
{
	struct ibs_oob_msg m;
	enum ibs_err rc;
	char *msg = NULL;

	for (;;) {
		/* Checked before each message: a peer that floods keepalives never lets recv time out. */
		if (ping_session_over(r))
			return ping_session_expired(p, r, step, true);
		rc = ibs_oob_recv(r->fd, ping_wait_ms(r), &m, &msg);
		if (rc == IBS_E_TIMEOUT && ping_session_over(r)) {
			free(msg);
			return ping_session_expired(p, r, step, true);
		}
		if (rc == IBS_E_TIMEOUT) {
			free(msg);
			return ping_fail(p, step, rc,
					 xstrdup("the peer's run may take longer than this side's --timeout: give both "
						 "hosts the same --timeout"),
					 "the peer %s went silent for %u ms", r->peer, r->timeout_ms);
		}
		if (rc) {
			ping_fail(p, step, rc, NULL, "the peer %s: %s", r->peer, msg);
			free(msg);
			return rc;
		}
		if (m.type == IBS_OOB_KEEPALIVE)
			continue;
		if (m.type == IBS_OOB_ERROR)
			return ping_fail(p, step, IBS_E_TRANSPORT, NULL, "the peer %s stopped: %s", r->peer, m.text);
		if (m.type != IBS_OOB_DONE)
			return ping_fail(p, step, IBS_E_MALFORMED, NULL, "unexpected %s message from the peer %s",
					 ibs_oob_type_name(m.type), r->peer);
		break;
	}
	if (answer) {
		memset(&m, 0, sizeof(m));
		m.type = IBS_OOB_DONE;
		rc = ibs_oob_send(r->fd, &m, ping_wait_ms(r), &msg);
		if (rc) {
			ping_fail(p, step, rc, NULL, "the peer %s: %s", r->peer, msg);
			free(msg);
			return rc;
		}
	}
	return IBS_OK;
}
