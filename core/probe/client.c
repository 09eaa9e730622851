/* The probe's client: connect to the listener, send the hello, run the test, and measure it. */
#include "probe.h"
#include "tcp.h"
#include "../base/clock.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum ibs_err ibs_ping_client_fd(struct ibs_ping *p, int fd, const char *peer, struct ibs_ping_result *res)
{
	struct ping_run *r = &p->r;
	struct ibs_oob_msg m;
	struct ibs_oob_hello *h;
	uint64_t *lat = NULL, t0, t1;
	enum ibs_err rc;
	char *msg = NULL;

	memset(res, 0, sizeof(*res));
	ping_run_init(p, fd, peer);
	r->op = p->o.op;
	r->bw = p->o.bw;
	r->iters = p->o.iters ? p->o.iters : IBS_PING_DEFAULT_ITERS;
	r->size = r->op == IBS_OP_ATOMIC ? IBS_PING_ATOMIC_SIZE : p->o.size ? p->o.size : IBS_PING_DEFAULT_SIZE;
	if (r->op == IBS_OP_ATOMIC && !p->info.atomics)
		return ping_fail(p, IBS_STEP_OPEN, IBS_E_INVAL, xstrdup("--op send, write or read work without atomics"),
				 "%s does not support atomic operations", p->info.name);
	ping_pick_gid(p, fd, NULL);
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
	if (rc == IBS_E_TRANSPORT && ping_peer_closed(r)) {
		free(msg);
		return ping_fail(p, IBS_STEP_EXCHANGE, rc,
				 xasprintf("an ibscan speaking probe protocol version %d (this one speaks %d) does so, "
					   "naming both in its own warning: run the same ibscan version on both hosts",
					   IBS_OOB_VERSION - 1, IBS_OOB_VERSION),
				 "the listener %s closed the setup connection without answering the hello", peer);
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
	rc = ping_qos_client(p, r, h, peer);
	if (!rc)
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
	if (!rc)
		rc = ping_client_mtu_check(p, r);
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
		/* The default listener hears both families; one given --bind, or on a host without IPv6, may not. */
		ping_fail(p, IBS_STEP_CONNECT, rc,
			  xasprintf("start 'ibscan ping --listen' on %s first (same --tcp-port%s); a firewall must let "
				    "TCP port %u through",
				    host,
				    strchr(host, ':') ? "; a listener given an IPv4 --bind, or on a host without IPv6, "
							"hears IPv4 only"
						      : "; a listener given --bind hears that address only",
				    tcp_port),
			  "%s", msg);
		free(msg);
		return rc;
	}
	peer = strchr(host, ':') ? xasprintf("[%s]:%u", host, tcp_port) : xasprintf("%s:%u", host, tcp_port);
	rc = ibs_ping_client_fd(p, fd, peer, r);
	ping_run_free(p);
	ibs_tcp_close(fd, 200);
	free(peer);
	return rc;
}
