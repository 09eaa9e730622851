/*
 * A run's resources before the hello: buffers, their registration, the CQ and
 * the RC QP taken to INIT, receives posted.
 */
#include "probe.h"
#include "../base/clock.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* what: the pinned thing ("registered memory is", "the ... ring is"); more: what else it may be, or "". */
static char *memlock_hint(const char *what, const char *more)
{
	struct rlimit rl;
	char now[64] = "unknown";

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(now, sizeof(now), "unlimited");
		else
			snprintf(now, sizeof(now), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	}
	return xasprintf("%s pinned and count%s against RLIMIT_MEMLOCK (now %s): raise it with "
			 "'ulimit -l unlimited' in the shell, a '* - memlock unlimited' line in "
			 "/etc/security/limits.conf, or LimitMEMLOCK=infinity for a systemd service%s",
			 what, strstr(what, " are") ? "" : "s", now, more);
}

/* Errors a pinning step gives when RLIMIT_MEMLOCK is reached. */
static bool pins(int e)
{
	return e == ENOMEM || e == EPERM || e == EAGAIN;
}

static uint32_t new_psn(void)
{
	uint64_t x = ibs_mono_ns() ^ ((uint64_t)getpid() << 32);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x & 0xffffff;
}

enum ibs_err ping_post_recv(struct ibs_ping *p, struct ping_run *r)
{
	int e = p->ops->post_recv(r->qp, RECV_TAG | r->recv_posted, r->buf + r->stride, r->size, r->lkey);

	if (e)
		return ping_fail(p, IBS_STEP_RUN, IBS_E_TRANSPORT, NULL, "posting a receive buffer failed: %s", strerror(e));
	r->recv_posted++;
	return IBS_OK;
}

/* Buffers, MR, CQ, QP to INIT, receives posted (if this side receives): everything before the hello. */
enum ibs_err ping_setup(struct ibs_ping *p, struct ping_run *r, bool receives)
{
	const struct ibs_vdev_info *d = &p->info;
	struct ibs_qp_caps caps;
	unsigned asked;
	struct ibs_qp_conn c;
	unsigned access = IBS_ACCESS_LOCAL_WRITE | IBS_ACCESS_REMOTE_WRITE | IBS_ACCESS_REMOTE_READ;
	size_t alloc;
	uint64_t t0;
	void *mem = NULL;
	int e;

	if (r->op == IBS_OP_ATOMIC)
		access |= IBS_ACCESS_REMOTE_ATOMIC;
	r->stride = ((r->size < 8 ? 8 : r->size) + 63) & ~(size_t)63;
	/* Room for one message of the path MTU (at most the port's own) each way: the MTU check. */
	if (d->active_mtu >= 1 && d->active_mtu <= 5 && r->stride < (128u << d->active_mtu))
		r->stride = 128u << d->active_mtu;
	r->buflen = 2 * r->stride;
	alloc = (r->buflen + 4095) & ~(size_t)4095;
	e = posix_memalign(&mem, 4096, alloc);
	if (e)
		return ping_fail(p, IBS_STEP_MR, IBS_E_TRANSPORT, NULL, "cannot allocate %zu bytes for the buffers: %s", alloc,
				 strerror(e));
	r->buf = mem;
	memset(r->buf, 0, alloc);
	t0 = ibs_mono_ns();
	e = p->ops->reg_mr(p->pd, r->buf, r->buflen, access, &r->mr, &r->lkey, &r->rkey);
	r->reg_us = (double)(ibs_mono_ns() - t0) / 1000.0;
	if (e) {
		r->mr = NULL;
		return ping_fail(p, IBS_STEP_MR, IBS_E_TRANSPORT,
				 pins(e) ? memlock_hint("registered memory is", "") : NULL,
				 "memory registration of %zu bytes failed: %s", r->buflen, strerror(e));
	}
	r->tx_depth = ping_cap(r->bw ? MAX_TX_DEPTH : 4, d->max_qp_wr);
	/* Any tx_depth sends in a row hold a signaled one: the window always frees. */
	r->signal_every = r->bw ? ping_cap(SIGNAL_EVERY, r->tx_depth) : 1;
	r->rx_depth = 1;
	if (receives)
		r->rx_depth = ping_cap(r->bw ? (r->iters < MAX_RX_DEPTH ? r->iters : MAX_RX_DEPTH) : 4, d->max_qp_wr);
	e = p->ops->create_cq(p->dev, ping_cap(r->tx_depth + r->rx_depth, d->max_cqe), &r->cq);
	if (e) {
		r->cq = NULL;
		return ping_fail(p, IBS_STEP_CQ, IBS_E_TRANSPORT,
				 pins(e) ? memlock_hint("the completion queue ring is", "") : NULL,
				 "cannot create a completion queue of %u entries: %s",
				 r->tx_depth + r->rx_depth, strerror(e));
	}
	caps.max_send_wr = r->tx_depth;
	caps.max_recv_wr = r->rx_depth;
	/* Latency runs inline small sends and writes, as perftest: no DMA read of the buffer on the way out. */
	caps.max_inline = 0;
	if (!r->bw && ((r->op == IBS_OP_SEND && r->size <= INLINE_SEND) || (r->op == IBS_OP_WRITE && r->size <= INLINE_WRITE)))
		caps.max_inline = r->size;
	asked = caps.max_inline;
	e = p->ops->create_qp(p->pd, r->cq, &caps, &r->qp, &r->qpn);
	if (e == EINVAL && asked) {
		/* The device cannot carry that much inline (or none at all): without, as perftest falls back. */
		log_info("%s cannot send %u bytes inline; the probe sends them from its buffer", d->name, r->size);
		caps.max_inline = asked = 0;
		e = p->ops->create_qp(p->pd, r->cq, &caps, &r->qp, &r->qpn);
	}
	/* What the probe asked for, not what the provider gave: rxe writes back its capacity, also when none was asked. */
	r->inline_len = !e && asked && caps.max_inline >= r->size ? r->size : 0;
	if (e) {
		r->qp = NULL;
		return ping_fail(p, IBS_STEP_QP, IBS_E_TRANSPORT,
				 pins(e) ? memlock_hint("the queue pair's rings are",
							"; else the device may be out of queue pairs")
					 : xasprintf("the device allows %u work requests per queue; it may be out of queue pairs",
						     d->max_qp_wr),
				 "cannot create the RC queue pair (%u sends, %u receives): %s", caps.max_send_wr,
				 caps.max_recv_wr, strerror(e));
	}
	memset(&c, 0, sizeof(c));
	c.port = d->port;
	c.pkey_index = p->o.pkey_index;
	c.access = IBS_ACCESS_REMOTE_WRITE | IBS_ACCESS_REMOTE_READ |
		   (r->op == IBS_OP_ATOMIC ? IBS_ACCESS_REMOTE_ATOMIC : 0);
	e = p->ops->modify_qp(r->qp, IBS_QPS_INIT, &c);
	if (e)
		return ping_fail(p, IBS_STEP_INIT, IBS_E_TRANSPORT,
				 p->o.pkey_index ? xasprintf("is there a P_Key at index %u of the port's table (--pkey-index)? "
							     "'ibscan local' shows the port",
							     p->o.pkey_index)
						 : xstrdup("check the port (-P) and its state ('ibscan local')"),
				 "INIT failed: %s (%s port %u)", strerror(e), d->name, d->port);
	r->psn = new_psn();
	r->rd_resp = ping_cap(MAX_RD_DEPTH, d->max_rd_atom);
	if (!r->rd_resp)
		r->rd_resp = 1;
	if (receives) {
		r->recv_target = r->iters;
		while (r->recv_posted < r->rx_depth && r->recv_posted < r->recv_target)
			if (ping_post_recv(p, r))
				return IBS_E_TRANSPORT;
	}
	return IBS_OK;
}
