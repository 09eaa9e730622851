/*
 * A verbs test double for the link probe: an in-process "fabric" whose RC
 * queue pairs deliver to each other (send/recv, RDMA write, RDMA read,
 * fetch-and-add) with memory-key and range checks, from any thread. Faults
 * are injected per operation: a setup call failing with an errno, work
 * requests lost (no completion ever), or one completing with an error status.
 * It also checks the engine: posting beyond a queue's depth, or overrunning a
 * completion queue, is recorded as a bug (fv.overrun).
 */
#ifndef IBSCAN_FAKE_VERBS_H
#define IBSCAN_FAKE_VERBS_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/probe/verbs.h"
#include "../../core/base/xalloc.h"

enum fv_op { FV_OPEN, FV_PD, FV_MR, FV_CQ, FV_QP, FV_INIT, FV_RTR, FV_RTS, FV__OPS };

#define FV_MAX_QPS 16
#define FV_MAX_MRS 64

struct fv_wc {
	struct ibs_wc wc;
	struct ibs_vqp *qp; /* whose send queue entry it frees, or NULL for a receive */
};

struct ibs_vcq {
	struct fv_wc *q;
	unsigned cap, head, n;
};

struct fv_recv {
	uint64_t wr_id;
	void *addr;
	uint32_t len, lkey;
};

struct fv_pending {
	struct ibs_vqp *from;
	uint64_t wr_id;
	bool signaled;
	uint8_t *data;
	uint32_t len;
};

struct ibs_vqp {
	uint32_t qpn;
	enum ibs_qp_target state;
	bool ready; /* reached at least INIT */
	struct ibs_qp_conn conn;
	uint32_t remote_qpn;
	struct ibs_vcq *cq;
	unsigned max_send, max_recv, sq_used;
	struct fv_recv *rq;
	unsigned rq_head, rq_n;
	struct fv_pending *pend;
	size_t n_pend, cap_pend;
};

struct ibs_vmr {
	uint8_t *addr;
	size_t len;
	uint32_t key;
	unsigned access;
};

struct ibs_vdev {
	struct ibs_vdev_info info;
};

struct ibs_vpd {
	int unused;
};

struct fv_gid {
	uint8_t gid[16];
	enum ibs_gid_type type;
};

static struct {
	pthread_mutex_t mu;
	struct ibs_vqp *qps[FV_MAX_QPS];
	struct ibs_vmr *mrs[FV_MAX_MRS];
	uint32_t next_qpn, next_key;
	unsigned opens;
	/* The devices: link layer, port state, GID table; atomics per device opened (index = open order). */
	enum ibs_link_layer ll;
	unsigned port_state;
	struct fv_gid gids[8];
	unsigned n_gids;
	bool no_atomics[4];
	/* Faults: op fails with err once `skip` calls of it have succeeded. */
	int fail_err[FV__OPS];
	unsigned fail_skip[FV__OPS], calls[FV__OPS];
	unsigned posts;   /* post_send calls, both sides */
	unsigned lose_from; /* this post and all later ones vanish (0: never) */
	unsigned err_at;    /* this post completes with err_status (0: never) */
	unsigned err_status;
	bool overrun; /* the engine overfilled a queue */
	struct ibs_qp_conn last_rtr;
} fv = { .mu = PTHREAD_MUTEX_INITIALIZER };

static inline void fv_reset(void)
{
	unsigned i;

	for (i = 0; i < FV_MAX_QPS; i++)
		fv.qps[i] = NULL;
	for (i = 0; i < FV_MAX_MRS; i++)
		fv.mrs[i] = NULL;
	memset((char *)&fv + offsetof(__typeof__(fv), next_qpn), 0, sizeof(fv) - offsetof(__typeof__(fv), next_qpn));
	fv.next_qpn = 0x100;
	fv.next_key = 0x1000;
	fv.ll = IBS_LL_IB;
	fv.port_state = 4;
}

static inline void fv_fail(enum fv_op op, int err, unsigned skip)
{
	fv.fail_err[op] = err;
	fv.fail_skip[op] = skip;
}

/* Does this call of op fail? (Called with the lock held or before threads start.) */
static inline int fv_check(enum fv_op op)
{
	unsigned n = fv.calls[op]++;
	return fv.fail_err[op] && n >= fv.fail_skip[op] ? fv.fail_err[op] : 0;
}

static inline int fv_open(const char *ca, unsigned port, struct ibs_vdev **dev, struct ibs_vdev_info *info, char **msg)
{
	struct ibs_vdev *d;
	unsigned id;
	int e;

	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_OPEN);
	id = fv.opens++;
	pthread_mutex_unlock(&fv.mu);
	if (e == ENODEV)
		*msg = xstrdup("the kernel has no RDMA support: ibv_get_device_list: Function not implemented");
	if (e == EACCES)
		*msg = xstrdup("cannot open fake0: Permission denied");
	if (e)
		return e;
	if (ca && strcmp(ca, "fake0"))
		return ENOENT;
	if (port > 1) {
		*msg = xasprintf("fake0 has no port %u (it has 1)", port);
		return ENXIO;
	}
	d = xcalloc(1, sizeof(*d));
	d->info.name = "fake0";
	d->info.port = 1;
	d->info.link_layer = fv.ll;
	d->info.state = fv.port_state;
	d->info.lid = fv.ll == IBS_LL_IB ? (uint16_t)(7 + id) : 0;
	d->info.active_mtu = 5;
	d->info.gid_tbl_len = fv.n_gids ? fv.n_gids : 1;
	d->info.max_qp_wr = 1024;
	d->info.max_cqe = 4096;
	d->info.max_rd_atom = 16;
	d->info.max_init_rd_atom = 16;
	d->info.atomics = !(id < 4 && fv.no_atomics[id]);
	*info = d->info;
	*dev = d;
	return 0;
}

static inline void fv_close(struct ibs_vdev *d)
{
	free(d);
}

static inline int fv_query_gid(struct ibs_vdev *d, unsigned index, uint8_t gid[16], enum ibs_gid_type *type)
{
	if (!fv.n_gids && index == 0 && d->info.link_layer == IBS_LL_IB) {
		memset(gid, 0, 16);
		gid[0] = 0xfe;
		gid[1] = 0x80;
		gid[15] = (uint8_t)d->info.lid;
		*type = IBS_GID_IB_ROCE_V1;
		return 0;
	}
	if (index >= fv.n_gids || ibs_gid_is_zero(fv.gids[index].gid))
		return ENODATA;
	memcpy(gid, fv.gids[index].gid, 16);
	*type = fv.gids[index].type;
	return 0;
}

static inline int fv_alloc_pd(struct ibs_vdev *d, struct ibs_vpd **pd)
{
	int e;

	(void)d;
	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_PD);
	pthread_mutex_unlock(&fv.mu);
	if (e)
		return e;
	*pd = xcalloc(1, sizeof(**pd));
	return 0;
}

static inline void fv_dealloc_pd(struct ibs_vpd *pd)
{
	free(pd);
}

static inline int fv_reg_mr(struct ibs_vpd *pd, void *addr, size_t len, unsigned access, struct ibs_vmr **mr,
			    uint32_t *lkey, uint32_t *rkey)
{
	struct ibs_vmr *m;
	unsigned i;
	int e;

	(void)pd;
	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_MR);
	if (e) {
		pthread_mutex_unlock(&fv.mu);
		return e;
	}
	m = xcalloc(1, sizeof(*m));
	m->addr = addr;
	m->len = len;
	m->access = access;
	m->key = fv.next_key++;
	for (i = 0; i < FV_MAX_MRS && fv.mrs[i]; i++)
		;
	if (i < FV_MAX_MRS)
		fv.mrs[i] = m;
	pthread_mutex_unlock(&fv.mu);
	*mr = m;
	*lkey = *rkey = m->key;
	return 0;
}

static inline void fv_dereg_mr(struct ibs_vmr *m)
{
	unsigned i;

	pthread_mutex_lock(&fv.mu);
	for (i = 0; i < FV_MAX_MRS; i++)
		if (fv.mrs[i] == m)
			fv.mrs[i] = NULL;
	pthread_mutex_unlock(&fv.mu);
	free(m);
}

static inline int fv_create_cq(struct ibs_vdev *d, unsigned cqe, struct ibs_vcq **cq)
{
	struct ibs_vcq *c;
	int e;

	(void)d;
	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_CQ);
	pthread_mutex_unlock(&fv.mu);
	if (e)
		return e;
	c = xcalloc(1, sizeof(*c));
	c->cap = cqe;
	c->q = xcalloc(cqe, sizeof(*c->q));
	*cq = c;
	return 0;
}

static inline void fv_destroy_cq(struct ibs_vcq *c)
{
	free(c->q);
	free(c);
}

static inline int fv_create_qp(struct ibs_vpd *pd, struct ibs_vcq *cq, const struct ibs_qp_caps *caps,
			       struct ibs_vqp **qp, uint32_t *qpn)
{
	struct ibs_vqp *q;
	unsigned i;
	int e;

	(void)pd;
	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_QP);
	if (e) {
		pthread_mutex_unlock(&fv.mu);
		return e;
	}
	q = xcalloc(1, sizeof(*q));
	q->qpn = fv.next_qpn++;
	q->cq = cq;
	q->max_send = caps->max_send_wr;
	q->max_recv = caps->max_recv_wr;
	q->rq = xcalloc(q->max_recv ? q->max_recv : 1, sizeof(*q->rq));
	for (i = 0; i < FV_MAX_QPS && fv.qps[i]; i++)
		;
	if (i < FV_MAX_QPS)
		fv.qps[i] = q;
	pthread_mutex_unlock(&fv.mu);
	*qp = q;
	*qpn = q->qpn;
	return 0;
}

static inline void fv_destroy_qp(struct ibs_vqp *q)
{
	unsigned i;
	size_t k;

	pthread_mutex_lock(&fv.mu);
	for (i = 0; i < FV_MAX_QPS; i++)
		if (fv.qps[i] == q)
			fv.qps[i] = NULL;
	/* Sends still waiting on another QP for a receive lose their sender. */
	for (i = 0; i < FV_MAX_QPS; i++)
		if (fv.qps[i])
			for (k = 0; k < fv.qps[i]->n_pend; k++)
				if (fv.qps[i]->pend[k].from == q)
					fv.qps[i]->pend[k].from = NULL;
	pthread_mutex_unlock(&fv.mu);
	for (k = 0; k < q->n_pend; k++)
		free(q->pend[k].data);
	free(q->pend);
	free(q->rq);
	free(q);
}

static inline int fv_modify_qp(struct ibs_vqp *q, enum ibs_qp_target to, const struct ibs_qp_conn *c)
{
	static const enum fv_op ops[] = { FV_INIT, FV_RTR, FV_RTS };
	int e;

	pthread_mutex_lock(&fv.mu);
	e = fv_check(ops[to]);
	if (!e && ((to == IBS_QPS_RTR && (!q->ready || q->state != IBS_QPS_INIT)) ||
		   (to == IBS_QPS_RTS && q->state != IBS_QPS_RTR)))
		e = EINVAL; /* out of order */
	if (!e) {
		q->state = to;
		q->ready = true;
		if (to == IBS_QPS_RTR) {
			q->conn = *c;
			q->remote_qpn = c->remote_qpn;
			fv.last_rtr = *c;
		}
	}
	pthread_mutex_unlock(&fv.mu);
	return e;
}

/* ---- the data path (lock held) ---- */

static inline void fv_push(struct ibs_vcq *cq, struct ibs_vqp *sender, uint64_t wr_id, unsigned status, bool recv,
			   uint32_t len)
{
	struct fv_wc *w;

	if (cq->n == cq->cap) {
		fv.overrun = true;
		return;
	}
	w = &cq->q[(cq->head + cq->n++) % cq->cap];
	memset(w, 0, sizeof(*w));
	w->wc.wr_id = wr_id;
	w->wc.status = status;
	w->wc.is_recv = recv && status == IBS_WC_SUCCESS;
	w->wc.byte_len = len;
	w->wc.vendor_err = status ? 0x81 : 0;
	w->qp = sender;
}

static inline struct ibs_vqp *fv_qp(uint32_t qpn)
{
	unsigned i;

	for (i = 0; i < FV_MAX_QPS; i++)
		if (fv.qps[i] && fv.qps[i]->qpn == qpn)
			return fv.qps[i];
	return NULL;
}

/* A registered range with these rights, by key; NULL when the key or range is wrong. */
static inline uint8_t *fv_mem(uint32_t key, uint64_t addr, size_t len, unsigned access)
{
	unsigned i;

	for (i = 0; i < FV_MAX_MRS; i++) {
		struct ibs_vmr *m = fv.mrs[i];
		uint64_t base;
		if (!m || m->key != key)
			continue;
		base = (uint64_t)(uintptr_t)m->addr;
		if (addr < base || addr + len > base + m->len || (m->access & access) != access)
			return NULL;
		return (uint8_t *)(uintptr_t)addr;
	}
	return NULL;
}

static inline void fv_deliver(struct ibs_vqp *to, struct ibs_vqp *from, uint64_t wr_id, bool signaled,
			      const uint8_t *data, uint32_t len)
{
	struct fv_recv r = to->rq[to->rq_head];

	to->rq_head = (to->rq_head + 1) % to->max_recv;
	to->rq_n--;
	if (len > r.len) {
		fv_push(to->cq, NULL, r.wr_id, IBS_WC_LOC_LEN_ERR, true, 0);
		if (from)
			fv_push(from->cq, from, wr_id, IBS_WC_REM_INV_REQ_ERR, false, 0);
		return;
	}
	memcpy(r.addr, data, len);
	fv_push(to->cq, NULL, r.wr_id, IBS_WC_SUCCESS, true, len);
	if (from && signaled)
		fv_push(from->cq, from, wr_id, IBS_WC_SUCCESS, false, len);
	else if (from)
		from->sq_used--;
}

static inline int fv_post_send(struct ibs_vqp *q, const struct ibs_send_wr *w)
{
	struct ibs_vqp *peer;
	uint8_t *local, *remote;
	unsigned n, status = IBS_WC_SUCCESS;
	uint32_t len = w->opcode == IBS_WR_FETCH_ADD ? 8 : w->length;

	pthread_mutex_lock(&fv.mu);
	if (q->state != IBS_QPS_RTS) {
		pthread_mutex_unlock(&fv.mu);
		return EINVAL;
	}
	if (q->sq_used >= q->max_send) {
		fv.overrun = true;
		pthread_mutex_unlock(&fv.mu);
		return ENOMEM;
	}
	q->sq_used++;
	n = ++fv.posts;
	if (fv.lose_from && n >= fv.lose_from)
		goto out; /* lost: no completion, ever */
	if (fv.err_at && n == fv.err_at) {
		status = fv.err_status;
		goto complete;
	}
	peer = fv_qp(q->remote_qpn);
	if (!peer || peer->state == IBS_QPS_INIT || !peer->ready) {
		status = IBS_WC_RETRY_EXC_ERR;
		goto complete;
	}
	local = fv_mem(w->lkey, (uint64_t)(uintptr_t)w->addr, len, 0);
	if (!local) {
		status = IBS_WC_LOC_PROT_ERR;
		goto complete;
	}
	switch (w->opcode) {
	case IBS_WR_SEND:
		if (peer->rq_n) {
			fv_deliver(peer, q, w->wr_id, w->signaled, local, len);
			goto out;
		}
		/* No receive posted: RNR, retried until the peer posts one. */
		peer->pend = xgrow(peer->pend, &peer->cap_pend, peer->n_pend + 1, sizeof(*peer->pend));
		peer->pend[peer->n_pend].from = q;
		peer->pend[peer->n_pend].wr_id = w->wr_id;
		peer->pend[peer->n_pend].signaled = w->signaled;
		peer->pend[peer->n_pend].data = xmalloc(len ? len : 1);
		memcpy(peer->pend[peer->n_pend].data, local, len);
		peer->pend[peer->n_pend].len = len;
		peer->n_pend++;
		goto out;
	case IBS_WR_RDMA_WRITE:
		remote = fv_mem(w->rkey, w->remote_addr, len, IBS_ACCESS_REMOTE_WRITE);
		if (!remote)
			status = IBS_WC_REM_ACCESS_ERR;
		else
			memcpy(remote, local, len);
		break;
	case IBS_WR_RDMA_READ:
		remote = fv_mem(w->rkey, w->remote_addr, len, IBS_ACCESS_REMOTE_READ);
		if (!remote)
			status = IBS_WC_REM_ACCESS_ERR;
		else
			memcpy(local, remote, len);
		break;
	case IBS_WR_FETCH_ADD:
	default:
		remote = fv_mem(w->rkey, w->remote_addr, 8, IBS_ACCESS_REMOTE_ATOMIC);
		if (!remote || (w->remote_addr & 7)) {
			status = IBS_WC_REM_ACCESS_ERR;
		} else {
			uint64_t old;
			memcpy(&old, remote, 8);
			memcpy(local, &old, 8);
			old += w->add;
			memcpy(remote, &old, 8);
		}
		break;
	}
complete:
	if (w->signaled || status)
		fv_push(q->cq, q, w->wr_id, status, false, len);
	else
		q->sq_used--;
out:
	pthread_mutex_unlock(&fv.mu);
	return 0;
}

static inline int fv_post_recv(struct ibs_vqp *q, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	pthread_mutex_lock(&fv.mu);
	if (!q->ready || q->rq_n >= q->max_recv) {
		if (q->rq_n >= q->max_recv)
			fv.overrun = true;
		pthread_mutex_unlock(&fv.mu);
		return ENOMEM;
	}
	if (!fv_mem(lkey, (uint64_t)(uintptr_t)addr, len, IBS_ACCESS_LOCAL_WRITE)) {
		pthread_mutex_unlock(&fv.mu);
		return EINVAL;
	}
	q->rq[(q->rq_head + q->rq_n++) % q->max_recv] = (struct fv_recv){ wr_id, addr, len, lkey };
	if (q->n_pend) {
		struct fv_pending p = q->pend[0];
		memmove(q->pend, q->pend + 1, (q->n_pend - 1) * sizeof(*q->pend));
		q->n_pend--;
		fv_deliver(q, p.from, p.wr_id, p.signaled, p.data, p.len);
		free(p.data);
	}
	pthread_mutex_unlock(&fv.mu);
	return 0;
}

static inline int fv_poll_cq(struct ibs_vcq *cq, int n, struct ibs_wc *wc)
{
	int k = 0;

	pthread_mutex_lock(&fv.mu);
	while (k < n && cq->n) {
		struct fv_wc *w = &cq->q[cq->head];
		wc[k++] = w->wc;
		if (w->qp)
			w->qp->sq_used--;
		cq->head = (cq->head + 1) % cq->cap;
		cq->n--;
	}
	pthread_mutex_unlock(&fv.mu);
	/* Both ends of a probe spin in one process: let the other run (a real CQ is filled by the HCA). */
	if (!k)
		sched_yield();
	return k;
}

static const struct ibs_verbs_ops fake_verbs = {
	.name = "fake",
	.open = fv_open,
	.close = fv_close,
	.query_gid = fv_query_gid,
	.alloc_pd = fv_alloc_pd,
	.dealloc_pd = fv_dealloc_pd,
	.reg_mr = fv_reg_mr,
	.dereg_mr = fv_dereg_mr,
	.create_cq = fv_create_cq,
	.destroy_cq = fv_destroy_cq,
	.create_qp = fv_create_qp,
	.destroy_qp = fv_destroy_qp,
	.modify_qp = fv_modify_qp,
	.post_send = fv_post_send,
	.post_recv = fv_post_recv,
	.poll_cq = fv_poll_cq,
};

#endif
