/* The link probe's engine: RC QP setup, the out-of-band hello, timed operations, all under deadlines. */
#include "probe.h"
#include "tcp.h"
#include "../base/clock.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>


static const char *port_state_name(unsigned s)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

const struct ibs_vdev_info *ibs_ping_device(const struct ibs_ping *p)
{
	return &p->info;
}

/* ---- GID choice ---- */

/* ---- open and close ---- */

enum ibs_err ibs_ping_open(const struct ibs_verbs_ops *ops, const struct ibs_ping_opts *o, struct ibs_ping **out)
{
	struct ibs_ping *p = xcalloc(1, sizeof(*p));
	char *msg = NULL;
	enum ibs_err rc;
	int e;

	*out = p;
	p->ops = ops;
	p->o = *o;
	p->ca = o->ca ? xstrdup(o->ca) : NULL;
	p->o.ca = p->ca;
	p->r.fd = -1;
	e = ops->open(o->ca, o->port, &p->dev, &p->info, &msg);
	if (e) {
		switch (e) {
		case ENODEV:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV,
				  xstrdup("this host has no RDMA device, or its driver is not loaded: 'ibscan local' "
					  "shows what the kernel offers (ls /sys/class/infiniband)"),
				  "no RDMA device found%s%s%s", msg ? " (" : "", msg ? msg : "", msg ? ")" : "");
			break;
		case ENOENT:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV, xstrdup("'ibscan local' lists the RDMA devices"),
				  "no RDMA device named '%s'", o->ca ? o->ca : "?");
			break;
		case ENXIO:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV, xstrdup("-P picks the port; 'ibscan local' lists them"),
				  "%s", msg ? msg : "no such port");
			break;
		case EACCES:
		case EPERM:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_PERM,
				  xstrdup("the probe needs read/write access to /dev/infiniband/uverbs*: run as root, "
					  "or give a group access with a udev rule (see README)"),
				  "%s", msg ? msg : strerror(e));
			break;
		default:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV, NULL, "cannot open the RDMA device: %s",
				  msg ? msg : strerror(e));
			break;
		}
		free(msg);
		return rc;
	}
	free(msg);
	if (p->info.state != 4)
		return ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV,
			    xstrdup("the link is down, or (InfiniBand) no subnet manager has brought the port up: "
				    "'ibscan local' shows every port's state; -C and -P pick another"),
			    "%s port %u is not active (state %s)", p->info.name, p->info.port,
			    port_state_name(p->info.state));
	rc = ping_choose_gid(p);
	if (rc)
		return rc;
	e = ops->alloc_pd(p->dev, &p->pd);
	if (e)
		return ping_fail(p, IBS_STEP_PD, IBS_E_TRANSPORT, NULL, "cannot allocate a protection domain on %s: %s",
			    p->info.name, strerror(e));
	return IBS_OK;
}

static void run_free(struct ibs_ping *p)
{
	struct ping_run *r = &p->r;

	if (r->qp)
		p->ops->destroy_qp(r->qp);
	if (r->cq)
		p->ops->destroy_cq(r->cq);
	if (r->mr)
		p->ops->dereg_mr(r->mr);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

void ibs_ping_close(struct ibs_ping *p)
{
	if (!p)
		return;
	run_free(p);
	if (p->pd)
		p->ops->dealloc_pd(p->pd);
	if (p->dev)
		p->ops->close(p->dev);
	free(p->ca);
	free(p->err);
	free(p->hint);
	free(p);
}

/* ---- setting up a run ---- */

/* ---- the data path ---- */

/* ---- the two roles ---- */

static void run_init(struct ibs_ping *p, int fd, const char *peer)
{
	run_free(p);
	p->r.fd = fd;
	p->r.peer = peer;
	p->r.timeout_ms = p->o.timeout_ms ? p->o.timeout_ms : IBS_PING_DEFAULT_TIMEOUT_MS;
	p->r.session_ms = p->o.session_ms ? p->o.session_ms : IBS_PING_DEFAULT_SESSION_MS;
	p->r.session_end = ibs_mono_ns() + (uint64_t)p->r.session_ms * 1000000ull;
}

enum ibs_err ibs_ping_client_fd(struct ibs_ping *p, int fd, const char *peer, struct ibs_ping_result *res)
{
	struct ping_run *r = &p->r;
	struct ibs_oob_msg m;
	struct ibs_oob_hello *h;
	uint64_t *lat = NULL, t0, t1;
	enum ibs_err rc;
	char *msg = NULL;

	memset(res, 0, sizeof(*res));
	run_init(p, fd, peer);
	r->op = p->o.op;
	r->bw = p->o.bw;
	r->iters = p->o.iters ? p->o.iters : IBS_PING_DEFAULT_ITERS;
	r->size = r->op == IBS_OP_ATOMIC ? IBS_PING_ATOMIC_SIZE : p->o.size ? p->o.size : IBS_PING_DEFAULT_SIZE;
	if (r->op == IBS_OP_ATOMIC && !p->info.atomics)
		return ping_fail(p, IBS_STEP_OPEN, IBS_E_INVAL, xstrdup("--op send, write or read work without atomics"),
			    "%s does not support atomic operations", p->info.name);
	rc = ping_setup(p, r, r->op == IBS_OP_SEND && !r->bw);
	if (rc)
		return rc;
	ping_make_hello(p, r, IBS_OOB_HELLO, &m);
	rc = ibs_oob_send(fd, &m, ping_wait_ms(r), &msg);
	if (!rc)
		rc = ibs_oob_recv(fd, ping_wait_ms(r), &m, &msg);
	if (rc == IBS_E_TIMEOUT && ping_session_over(r)) {
		free(msg);
		return ping_session_expired(p, r, IBS_STEP_EXCHANGE, true);
	}
	if (rc == IBS_E_TIMEOUT) {
		free(msg);
		return ping_fail(p, IBS_STEP_EXCHANGE, rc,
			    xstrdup("is it 'ibscan ping --listen', on this --tcp-port? a listener busy with another "
				    "peer answers after that one"),
			    "no answer from the listener %s within %u ms", peer, r->timeout_ms);
	}
	if (rc) {
		ping_fail(p, IBS_STEP_EXCHANGE, rc, NULL, "the listener %s: %s", peer, msg);
		free(msg);
		return rc;
	}
	if (m.type == IBS_OOB_ERROR)
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_TRANSPORT,
			    xstrdup("the listener's own messages say more"), "the listener %s refused the probe: %s",
			    peer, m.text);
	h = &m.hello;
	if (m.type != IBS_OOB_HELLO_REPLY)
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_MALFORMED, NULL, "the listener %s sent a %s message, not a "
			    "hello reply", peer, ibs_oob_type_name(m.type));
	if (h->op != r->op || h->bw != r->bw || h->iters != r->iters || h->size != r->size)
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_MALFORMED, NULL,
			    "the listener %s answered for another test (%s%s, %u x %u bytes)", peer,
			    ibs_ping_op_name((enum ibs_ping_op)h->op), h->bw ? " bandwidth" : "", h->iters, h->size);
	r->peer_hello = *h;
	rc = ping_check_peer(p, h, peer);
	if (!rc)
		rc = ping_connect_qp(p, r, h);
	if (rc) {
		ping_tell_peer(p, r);
		return rc;
	}
	/* The listener waits on TCP while we read, add or write-stream to it: keep it from dropping us. */
	if (r->op == IBS_OP_READ || r->op == IBS_OP_ATOMIC || (r->op == IBS_OP_WRITE && r->bw)) {
		unsigned t = r->timeout_ms < h->timeout_ms ? r->timeout_ms : h->timeout_ms;
		r->ka_ms = t / 3 ? t / 3 : 1;
		r->next_ka = ibs_mono_ns() + (uint64_t)r->ka_ms * 1000000ull;
	}
	if (!r->bw)
		lat = xmalloc((size_t)r->iters * sizeof(*lat));
	t0 = ibs_mono_ns();
	rc = r->bw ? ping_client_bw(p, r) : ping_client_latency(p, r, lat);
	t1 = ibs_mono_ns();
	if (!rc)
		rc = ping_client_verify(p, r);
	if (rc) {
		free(lat);
		ping_tell_peer(p, r);
		return rc;
	}
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_DONE;
	rc = ibs_oob_send(fd, &m, ping_wait_ms(r), &msg);
	if (rc) {
		ping_fail(p, IBS_STEP_FINISH, rc, NULL, "the listener %s: %s", peer, msg);
		free(msg);
		free(lat);
		return rc;
	}
	r->ka_ms = 0;
	rc = ping_await_done(p, r, IBS_STEP_FINISH, false);
	if (rc) {
		free(lat);
		return rc;
	}
	ping_fill_result(p, r, false, peer, res);
	res->measured = true;
	if (lat)
		ping_latency_stats(res, lat, r->iters, r->op == IBS_OP_SEND || r->op == IBS_OP_WRITE);
	free(lat);
	res->elapsed_s = (double)(t1 - t0) / 1e9;
	res->bytes = (uint64_t)r->iters * res->size;
	if (res->elapsed_s > 0) {
		res->msg_rate = r->iters / res->elapsed_s;
		res->gbit_s = (double)res->bytes * 8 / res->elapsed_s / 1e9;
	}
	return IBS_OK;
}

enum ibs_err ibs_ping_client(struct ibs_ping *p, const char *host, unsigned tcp_port, struct ibs_ping_result *r)
{
	unsigned timeout = p->o.timeout_ms ? p->o.timeout_ms : IBS_PING_DEFAULT_TIMEOUT_MS;
	enum ibs_err rc;
	char *msg = NULL, *peer;
	int fd;

	memset(r, 0, sizeof(*r));
	rc = ibs_tcp_connect(host, tcp_port, (int)timeout, &fd, &msg);
	if (rc) {
		ping_fail(p, IBS_STEP_CONNECT, rc,
		     xasprintf("start 'ibscan ping --listen' on %s first (same --tcp-port); a firewall must let TCP "
			       "port %u through",
			       host, tcp_port),
		     "%s", msg);
		free(msg);
		return rc;
	}
	peer = strchr(host, ':') ? xasprintf("[%s]:%u", host, tcp_port) : xasprintf("%s:%u", host, tcp_port);
	rc = ibs_ping_client_fd(p, fd, peer, r);
	run_free(p);
	close(fd);
	free(peer);
	return rc;
}

/* A peer broke the protocol before its hello was accepted: warn, keep listening. */
static enum ibs_err __attribute__((format(printf, 4, 5)))
drop(struct ibs_ping *p, const char *peer, enum ibs_err rc, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
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
	return drop(p, r->peer, IBS_E_INVAL, "%s", reason);
}

enum ibs_err ibs_ping_serve_fd(struct ibs_ping *p, int fd, const char *peer, struct ibs_ping_result *res,
			       bool *accepted)
{
	struct ping_run *r = &p->r;
	struct ibs_oob_msg m;
	struct ibs_oob_hello h;
	enum ibs_err rc;
	char *msg = NULL;

	memset(res, 0, sizeof(*res));
	*accepted = false;
	run_init(p, fd, peer);
	rc = ibs_oob_recv(fd, ping_wait_ms(r), &m, &msg);
	if (rc) {
		rc = drop(p, peer, rc, "%s", msg);
		free(msg);
		return rc;
	}
	if (m.type != IBS_OOB_HELLO)
		return drop(p, peer, IBS_E_MALFORMED, "a %s message before any hello", ibs_oob_type_name(m.type));
	h = m.hello;
	if (h.op == IBS_OP_ATOMIC && !p->info.atomics)
		return refuse(p, r, "the listener's device does not support atomic operations");
	if (h.op == IBS_OP_ATOMIC && h.size != IBS_PING_ATOMIC_SIZE)
		return refuse(p, r, "atomic operations move 8 bytes");
	if (h.link_layer != p->info.link_layer)
		return refuse(p, r,
			      h.link_layer == IBS_LL_ETH ? "the listener's port is InfiniBand, the client's is RoCE"
							 : "the listener's port is RoCE, the client's is InfiniBand");
	*accepted = true;
	log_info("probe from %s: %s%s, %u x %u bytes", peer, ibs_ping_op_name((enum ibs_ping_op)h.op),
		 h.bw ? " bandwidth" : " latency", h.iters, h.size);
	r->op = (enum ibs_ping_op)h.op;
	r->bw = h.bw;
	r->iters = h.iters;
	r->size = h.size;
	r->peer_hello = h;
	rc = ping_check_peer(p, &h, peer);
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
		run_free(p);
		close(fd);
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
