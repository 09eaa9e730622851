/*
 * The probe's listener: accept peers one at a time, answer a valid hello,
 * serve its run, and drop peers that break the protocol.
 */
#include "probe.h"
#include "tcp.h"
#include "../base/clock.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A peer broke the protocol before its hello was accepted (m says how; owned): warn, keep listening. */
static enum ibs_err drop(struct ibs_ping *p, const char *peer, enum ibs_err rc, char *m)
{
	ping_set_error(p, IBS_STEP_EXCHANGE, m, NULL);
	log_warn("dropped peer %s: %s", peer, m);
	return rc;
}

/* Refuse a hello with a reason the client will show; the peer is dropped. */
static enum ibs_err refuse(struct ibs_ping *p, struct ping_run *r, const char *reason)
{
	struct ibs_oob_msg m;
	char *msg = NULL;

	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_ERROR;
	snprintf(m.text, sizeof(m.text), "%s", reason);
	ibs_oob_send(r->fd, &m, FINISH_TIMEOUT_MS, &msg);
	free(msg);
	return drop(p, r->peer, IBS_E_INVAL, xstrdup(reason));
}

/*
 * A client of an older protocol version: told so in a message framed in its
 * version, which it reads and shows (its ERROR is the same as ours). The
 * header and the type are all it has sent that we read.
 */
static void refuse_old(struct ping_run *r, unsigned version)
{
	struct ibs_oob_msg m;
	char *msg = NULL;

	memset(&m, 0, sizeof(m));
	m.version = version;
	m.type = IBS_OOB_ERROR;
	snprintf(m.text, sizeof(m.text),
		 "this listener speaks probe protocol version %d and the client version %u: run the same ibscan "
		 "version on both hosts",
		 IBS_OOB_VERSION, version);
	ibs_oob_send(r->fd, &m, FINISH_TIMEOUT_MS, &msg);
	free(msg);
}

enum ibs_err ibs_ping_serve_fd(struct ibs_ping *p, int fd, const char *peer, struct ibs_ping_result *res,
			       bool *accepted)
{
	struct ping_run *r = &p->r;
	struct ibs_oob_msg m;
	struct ibs_oob_hello h;
	enum ibs_err rc;
	char *msg = NULL, *why = NULL;

	memset(res, 0, sizeof(*res));
	*accepted = false;
	ping_run_init(p, fd, peer);
	rc = ibs_oob_recv(fd, ping_wait_ms(r), &m, &msg);
	if (rc && m.version >= 1 && m.version < IBS_OOB_VERSION)
		refuse_old(r, m.version);
	if (rc)
		return drop(p, peer, rc, msg);
	if (m.type != IBS_OOB_HELLO)
		return drop(p, peer, IBS_E_MALFORMED,
			    xasprintf("a %s message before any hello", ibs_oob_type_name(m.type)));
	h = m.hello;
	if (h.op == IBS_OP_ATOMIC && !p->info.atomics)
		return refuse(p, r, "the listener's device does not support atomic operations");
	if (h.op == IBS_OP_ATOMIC && h.size != IBS_PING_ATOMIC_SIZE)
		return refuse(p, r, "atomic operations move 8 bytes");
	if (h.link_layer != p->info.link_layer)
		return refuse(p, r,
			      h.link_layer == IBS_LL_ETH ? "the listener's port is InfiniBand, the client's is RoCE"
							 : "the listener's port is RoCE, the client's is InfiniBand");
	if (ping_qos_listener(p, r, &h, &why)) {
		rc = refuse(p, r, why);
		free(why);
		return rc;
	}
	*accepted = true;
	log_info("probe from %s: %s%s, %u x %u bytes", peer, ibs_ping_op_name((enum ibs_ping_op)h.op),
		 h.bw ? " bandwidth" : " latency", h.iters, h.size);
	r->op = (enum ibs_ping_op)h.op;
	r->bw = h.bw;
	r->iters = h.iters;
	r->size = h.size;
	r->peer_hello = h;
	rc = ping_reread_gids(p);
	if (!rc) {
		ping_pick_gid(p, fd, &h);
		rc = ping_check_peer(p, &h, peer);
	}
	if (!rc)
		rc = ping_setup(p, r, r->op == IBS_OP_SEND);
	if (!rc && r->op == IBS_OP_READ) {
		size_t i;
		for (i = 0; i < r->size; i++)
			r->buf[r->stride + i] = ping_pattern(i);
	}
	if (!rc)
		rc = ping_connect_qp(p, r, &h);
	if (rc) {
		ping_tell_peer(p, r);
		return rc;
	}
	ping_make_hello(p, r, IBS_OOB_HELLO_REPLY, &m);
	rc = ibs_oob_send(fd, &m, ping_wait_ms(r), &msg);
	if (rc) {
		ping_fail(p, IBS_STEP_EXCHANGE, rc, NULL, "the peer %s: %s", peer, msg);
		free(msg);
		return rc;
	}
	rc = ping_server_run(p, r);
	if (rc) {
		ping_tell_peer(p, r);
		return rc;
	}
	rc = ping_await_done(p, r, IBS_STEP_FINISH, true);
	if (rc)
		return rc;
	ping_fill_result(p, r, true, peer, res);
	return IBS_OK;
}

enum ibs_err ibs_ping_serve(struct ibs_ping *p, int lfd, int wait_ms, struct ibs_ping_result *res)
{
	uint64_t deadline = ibs_mono_ns() + (uint64_t)(wait_ms > 0 ? wait_ms : 0) * 1000000ull;
	enum ibs_err rc;
	char *msg = NULL, *peer = NULL;
	unsigned dropped = 0;
	bool accepted;
	int fd;

	for (;;) {
		int left = wait_ms < 0 ? -1 : ibs_ms_left(deadline);
		if (wait_ms >= 0 && left == 0)
			left = 1;
		rc = ibs_tcp_accept(lfd, left, &fd, &peer, &msg);
		if (rc == IBS_E_TIMEOUT) {
			free(msg);
			return ping_fail(p, IBS_STEP_CONNECT, rc,
					 xstrdup("start 'ibscan ping HOST' on the other host, or raise --wait"),
					 "no probe arrived within %.3g s (--wait)", wait_ms / 1000.0);
		}
		if (rc) {
			ping_fail(p, IBS_STEP_CONNECT, rc, NULL, "%s", msg);
			free(msg);
			return rc;
		}
		log_info("connection from %s", peer);
		rc = ibs_ping_serve_fd(p, fd, peer, res, &accepted);
		ping_run_free(p);
		ibs_tcp_close(fd, 200);
		free(peer);
		peer = NULL;
		if (rc == IBS_OK || accepted) {
			res->dropped = dropped;
			return rc;
		}
		dropped++;
		if (wait_ms >= 0 && ibs_ms_left(deadline) == 0)
			return ping_fail(p, IBS_STEP_CONNECT, IBS_E_TIMEOUT,
					 xstrdup("start 'ibscan ping HOST' on the other host, or raise --wait"),
					 "no probe completed within %.3g s (--wait)", wait_ms / 1000.0);
	}
}
