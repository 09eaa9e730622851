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


const char *ibs_ping_op_name(enum ibs_ping_op op)
{
	static const char *const names[IBS_OP__COUNT] = { "send", "write", "read", "atomic" };
	return (unsigned)op < IBS_OP__COUNT ? names[op] : "unknown";
}

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

/* Tell the peer why this side stops (best effort: it may be gone). */
static void tell_peer(struct ibs_ping *p, struct ping_run *r)
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
static char *peer_says(struct ping_run *r)
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

/* ---- the data path ---- */

static const char *op_verb(enum ibs_ping_op op)
{
	static const char *const v[] = { "send", "RDMA write", "RDMA read", "atomic fetch-and-add" };
	return (unsigned)op < IBS_OP__COUNT ? v[op] : "?";
}

static enum ibs_err wc_failed(struct ibs_ping *p, struct ping_run *r, const struct ibs_wc *wc)
{
	unsigned st = wc->status;
	const char *hint;
	const char *text = ping_wc_text(st, &hint);
	char *said = peer_says(r);
	enum ibs_err rc;

	rc = ping_fail(p, IBS_STEP_RUN, IBS_E_STATUS, hint ? xstrdup(hint) : NULL,
		  "%s %" PRIu64 " of %u completed with status %s (%s; vendor error 0x%x)%s%s",
		  wc->wr_id & RECV_TAG ? "receive" : op_verb(r->op), (uint64_t)((wc->wr_id & ~RECV_TAG) + 1), r->iters,
		  ibs_wc_status_name(st), text, wc->vendor_err, said ? "; the peer says: " : "", said ? said : "");
	free(said);
	return rc;
}

/*
 * The wait allowed now: --timeout, cut to what is left of the session. Each
 * message restarts --timeout, so without the session's own end a peer that
 * trickles keepalives would hold the listener and its pinned buffers forever.
 */
static int wait_ms(const struct ping_run *r)
{
	int left = ibs_ms_left(r->session_end);

	return left < (int)r->timeout_ms ? left : (int)r->timeout_ms;
}

static bool session_over(const struct ping_run *r)
{
	return ibs_mono_ns() >= r->session_end;
}

/* The session passed --deadline: stop, and (tell: here, not by the caller) tell the peer why. */
static enum ibs_err session_expired(struct ibs_ping *p, struct ping_run *r, enum ibs_ping_step step, bool tell)
{
	enum ibs_err rc = ping_fail(p, step, IBS_E_DEADLINE, xstrdup("a longer run needs a larger --deadline, on both hosts"),
			       "the probe session with %s did not end within --deadline %.3g s", r->peer,
			       r->session_ms / 1000.0);

	if (tell)
		tell_peer(p, r);
	return rc;
}

static enum ibs_err keepalive(struct ibs_ping *p, struct ping_run *r, uint64_t now)
{
	struct ibs_oob_msg m;
	char *msg = NULL;

	r->next_ka = now + (uint64_t)r->ka_ms * 1000000ull;
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_KEEPALIVE;
	if (ibs_oob_send(r->fd, &m, wait_ms(r), &msg) == IBS_OK)
		return IBS_OK;
	ping_fail(p, IBS_STEP_RUN, IBS_E_TRANSPORT, NULL, "lost the TCP connection to the peer %s: %s", r->peer, msg);
	free(msg);
	return IBS_E_TRANSPORT;
}

/*
 * Poll the CQ until want_send send and want_recv receive completions have
 * arrived (and *flag equals val, for RDMA write round trips), within the
 * timeout. Receives are reposted as they complete.
 */
static enum ibs_err wait_for(struct ibs_ping *p, struct ping_run *r, uint64_t want_send, uint64_t want_recv,
			     const volatile uint8_t *flag, uint8_t val, uint64_t iter)
{
	uint64_t now, deadline = ibs_mono_ns() + (uint64_t)r->timeout_ms * 1000000ull;
	struct ibs_wc wc[16];

	if (deadline > r->session_end)
		deadline = r->session_end;
	int i, n;

	for (;;) {
		if (r->send_done >= want_send && r->recv_done >= want_recv && (!flag || *flag == val))
			return IBS_OK;
		n = p->ops->poll_cq(r->cq, 16, wc);
		if (n < 0)
			return ping_fail(p, IBS_STEP_RUN, IBS_E_TRANSPORT, NULL, "polling the completion queue failed: %s",
				    strerror(-n));
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBS_WC_SUCCESS)
				return wc_failed(p, r, &wc[i]);
			if (!(wc[i].wr_id & RECV_TAG)) {
				r->send_done++;
				continue;
			}
			r->recv_done++;
			if (wc[i].byte_len != r->size)
				return ping_fail(p, IBS_STEP_RUN, IBS_E_MALFORMED, NULL,
					    "received a message of %u bytes, expected %u", wc[i].byte_len, r->size);
			if (r->recv_posted < r->recv_target && ping_post_recv(p, r))
				return IBS_E_TRANSPORT;
		}
		if (n)
			continue;
		now = ibs_mono_ns();
		if (r->ka_ms && now >= r->next_ka && keepalive(p, r, now))
			return IBS_E_TRANSPORT;
		if (now >= deadline && session_over(r))
			return session_expired(p, r, IBS_STEP_RUN, false);
		if (now >= deadline) {
			char *said = peer_says(r);
			enum ibs_err rc = ping_fail(
				p, IBS_STEP_RUN, IBS_E_TIMEOUT,
				xstrdup("the peer stopped answering or the network drops packets; on RoCE check that both "
					"hosts use GIDs of the same type and subnet (--gid-index, 'ibscan local'); "
					"raise --timeout for a slow path"),
				"no completion within %u ms (--timeout): %s %" PRIu64 " of %u%s%s", r->timeout_ms,
				op_verb(r->op), iter + 1, r->iters, said ? "; the peer says: " : "", said ? said : "");
			free(said);
			return rc;
		}
	}
}

static enum ibs_err post(struct ibs_ping *p, struct ping_run *r, uint64_t i)
{
	const struct ibs_oob_hello *h = &r->peer_hello;
	struct ibs_send_wr w;
	int e;

	memset(&w, 0, sizeof(w));
	w.wr_id = i;
	w.signaled = true;
	w.lkey = r->lkey;
	w.length = r->size;
	w.addr = r->buf;
	w.remote_addr = h->addr;
	w.rkey = h->rkey;
	switch (r->op) {
	case IBS_OP_SEND:
		w.opcode = IBS_WR_SEND;
		break;
	case IBS_OP_WRITE:
		w.opcode = IBS_WR_RDMA_WRITE;
		break;
	case IBS_OP_READ:
		w.opcode = IBS_WR_RDMA_READ;
		w.addr = r->buf + r->stride;
		break;
	case IBS_OP_ATOMIC:
	default:
		w.opcode = IBS_WR_FETCH_ADD;
		w.addr = r->buf + r->stride;
		w.length = IBS_PING_ATOMIC_SIZE;
		w.add = 1;
		break;
	}
	e = p->ops->post_send(r->qp, &w);
	if (e)
		return ping_fail(p, IBS_STEP_RUN, IBS_E_TRANSPORT, NULL, "posting %s %" PRIu64 " of %u failed: %s",
			    op_verb(r->op), i + 1, r->iters, strerror(e));
	return IBS_OK;
}

static uint8_t seq_byte(uint64_t i)
{
	return (uint8_t)(i % 255 + 1);
}

/* The atomic counter, in either byte order: some HCAs do atomics big-endian. */
static bool counter_is(uint64_t v, uint64_t want)
{
	return v == want || __builtin_bswap64(v) == want;
}

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 31 + 7);
}

static enum ibs_err client_latency(struct ibs_ping *p, struct ping_run *r, uint64_t *lat)
{
	volatile uint8_t *flag = r->buf + r->stride + r->size - 1;
	uint64_t i, t0;
	enum ibs_err rc;

	for (i = 0; i < r->iters; i++) {
		if (r->op == IBS_OP_WRITE)
			r->buf[r->size - 1] = seq_byte(i);
		t0 = ibs_mono_ns();
		rc = post(p, r, i);
		if (!rc && r->op == IBS_OP_SEND)
			rc = wait_for(p, r, i + 1, i + 1, NULL, 0, i);
		else if (!rc && r->op == IBS_OP_WRITE)
			rc = wait_for(p, r, i, 0, flag, seq_byte(i), i);
		else if (!rc)
			rc = wait_for(p, r, i + 1, 0, NULL, 0, i);
		if (rc)
			return rc;
		lat[i] = ibs_mono_ns() - t0;
		if (r->op == IBS_OP_ATOMIC) {
			uint64_t v;
			memcpy(&v, r->buf + r->stride, sizeof(v));
			if (!counter_is(v, i))
				return ping_fail(p, IBS_STEP_RUN, IBS_E_MALFORMED, NULL,
					    "atomic fetch-and-add %" PRIu64 " returned %" PRIu64 ", expected %" PRIu64, i + 1,
					    v, i);
		}
	}
	if (r->op == IBS_OP_WRITE)
		return wait_for(p, r, r->iters, 0, NULL, 0, r->iters - 1);
	return IBS_OK;
}

static enum ibs_err client_bw(struct ibs_ping *p, struct ping_run *r)
{
	uint64_t posted = 0;
	enum ibs_err rc;

	while (r->send_done < r->iters) {
		while (posted < r->iters && posted - r->send_done < r->tx_depth) {
			rc = post(p, r, posted);
			if (rc)
				return rc;
			posted++;
		}
		rc = wait_for(p, r, r->send_done + 1, 0, NULL, 0, r->send_done);
		if (rc)
			return rc;
	}
	return IBS_OK;
}

/* What the data says after a run: a read brings the listener's pattern, atomics count. */
static enum ibs_err client_verify(struct ibs_ping *p, struct ping_run *r)
{
	size_t i;

	if (r->op == IBS_OP_READ) {
		for (i = 0; i < r->size; i++)
			if (r->buf[r->stride + i] != pattern(i))
				return ping_fail(p, IBS_STEP_RUN, IBS_E_MALFORMED, NULL,
					    "RDMA read returned wrong data at byte %zu: 0x%02x, expected 0x%02x", i,
					    r->buf[r->stride + i], pattern(i));
	}
	if (r->op == IBS_OP_ATOMIC && r->bw) {
		/* Bandwidth completions land in any order: one more add shows the count. */
		uint64_t v;
		enum ibs_err rc = post(p, r, r->iters);
		if (!rc)
			rc = wait_for(p, r, r->iters + 1ull, 0, NULL, 0, r->iters);
		if (rc)
			return rc;
		memcpy(&v, r->buf + r->stride, sizeof(v));
		if (!counter_is(v, r->iters))
			return ping_fail(p, IBS_STEP_RUN, IBS_E_MALFORMED, NULL,
				    "after %u atomic fetch-and-adds the counter is %" PRIu64, r->iters, v);
	}
	return IBS_OK;
}

/* The listener's side of a run; for reads, atomics and RDMA write bandwidth it has nothing to do. */
static enum ibs_err server_run(struct ibs_ping *p, struct ping_run *r)
{
	volatile uint8_t *flag = r->buf + r->stride + r->size - 1;
	enum ibs_err rc = IBS_OK;
	uint64_t i;

	if (r->op == IBS_OP_SEND && r->bw) {
		while (!rc && r->recv_done < r->iters)
			rc = wait_for(p, r, 0, r->recv_done + 1, NULL, 0, r->recv_done);
		return rc;
	}
	if (r->bw || (r->op != IBS_OP_SEND && r->op != IBS_OP_WRITE))
		return IBS_OK;
	for (i = 0; i < r->iters && !rc; i++) {
		if (r->op == IBS_OP_SEND)
			rc = wait_for(p, r, i, i + 1, NULL, 0, i);
		else
			rc = wait_for(p, r, i, 0, flag, seq_byte(i), i);
		if (rc)
			break;
		if (r->op == IBS_OP_WRITE)
			r->buf[r->size - 1] = seq_byte(i);
		rc = post(p, r, i);
	}
	if (!rc)
		rc = wait_for(p, r, r->iters, 0, NULL, 0, r->iters - 1);
	return rc;
}

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

/* Wait for the peer's DONE (skipping keepalives), or its reason for stopping. */
static enum ibs_err await_done(struct ibs_ping *p, struct ping_run *r, enum ibs_ping_step step, bool answer)
{
	struct ibs_oob_msg m;
	enum ibs_err rc;
	char *msg = NULL;

	for (;;) {
		/* Checked before each message: a peer that floods keepalives never lets recv time out. */
		if (session_over(r))
			return session_expired(p, r, step, true);
		rc = ibs_oob_recv(r->fd, wait_ms(r), &m, &msg);
		if (rc == IBS_E_TIMEOUT && session_over(r)) {
			free(msg);
			return session_expired(p, r, step, true);
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
		rc = ibs_oob_send(r->fd, &m, wait_ms(r), &msg);
		if (rc) {
			ping_fail(p, step, rc, NULL, "the peer %s: %s", r->peer, msg);
			free(msg);
			return rc;
		}
	}
	return IBS_OK;
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
	rc = ibs_oob_send(fd, &m, wait_ms(r), &msg);
	if (!rc)
		rc = ibs_oob_recv(fd, wait_ms(r), &m, &msg);
	if (rc == IBS_E_TIMEOUT && session_over(r)) {
		free(msg);
		return session_expired(p, r, IBS_STEP_EXCHANGE, true);
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
		tell_peer(p, r);
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
	rc = r->bw ? client_bw(p, r) : client_latency(p, r, lat);
	t1 = ibs_mono_ns();
	if (!rc)
		rc = client_verify(p, r);
	if (rc) {
		free(lat);
		tell_peer(p, r);
		return rc;
	}
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_DONE;
	rc = ibs_oob_send(fd, &m, wait_ms(r), &msg);
	if (rc) {
		ping_fail(p, IBS_STEP_FINISH, rc, NULL, "the listener %s: %s", peer, msg);
		free(msg);
		free(lat);
		return rc;
	}
	r->ka_ms = 0;
	rc = await_done(p, r, IBS_STEP_FINISH, false);
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
	rc = ibs_oob_recv(fd, wait_ms(r), &m, &msg);
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
			r->buf[r->stride + i] = pattern(i);
	}
	if (!rc)
		rc = ping_connect_qp(p, r, &h);
	if (rc) {
		tell_peer(p, r);
		return rc;
	}
	ping_make_hello(p, r, IBS_OOB_HELLO_REPLY, &m);
	rc = ibs_oob_send(fd, &m, wait_ms(r), &msg);
	if (rc) {
		ping_fail(p, IBS_STEP_EXCHANGE, rc, NULL, "the peer %s: %s", peer, msg);
		free(msg);
		return rc;
	}
	rc = server_run(p, r);
	if (rc) {
		tell_peer(p, r);
		return rc;
	}
	rc = await_done(p, r, IBS_STEP_FINISH, true);
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
