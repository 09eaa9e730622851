/* The verbs test double: the fake fabric of ports and queue pairs that fake_verbs.h describes. */
#include "fake_verbs.h"

#define FV_PSN_MASK 0xffffffu
#define FV_VENDOR_ERR 0x81 /* what mlx5 reports with RETRY_EXC_ERR; one value for every error here */

enum fv_qp_state { FV_QPS_RESET, FV_QPS_INIT, FV_QPS_RTR, FV_QPS_RTS, FV_QPS_ERR };

/* Where a send work request is. */
enum fv_stage {
	FV_POSTED,   /* not transmitted yet (or refused for now: receiver not ready, initiator depth) */
	FV_ANSWERED, /* executed or refused by the responder; its response arrives at the next step */
	FV_RETRYING, /* nothing came back: transport retries until due, then RETRY_EXC_ERR */
	FV_DONE,     /* completed; its slot is freed when its completion, or a later one, is polled */
};

struct fv_swqe {
	struct ibs_send_wr wr;
	uint32_t psn; /* first PSN */
	enum fv_stage stage;
	unsigned status; /* of the response, once answered */
	uint64_t due;    /* FV_RETRYING, or receiver-not-ready: when the retries run out (ns); 0: never */
	uint8_t *data;   /* RDMA read data or fetched atomic value, carried by the response */
	uint8_t *inl;    /* an inline send or write: its data, copied at post (no local key is looked at) */
	bool lost;       /* fault: never transmitted */
	unsigned inject; /* fault: completes with this status, untransmitted (0: none) */
};

/* What a send work request holds beyond its slot. */
static void fv_swqe_release(struct fv_swqe *e)
{
	free(e->data);
	free(e->inl);
	e->data = e->inl = NULL;
}

struct fv_rwqe {
	uint64_t wr_id;
	void *addr;
	uint32_t len, lkey;
};

struct fv_cqe {
	struct ibs_wc wc;
	struct ibs_vqp *qp; /* NULL once the queue pair is destroyed */
	bool send;
	unsigned slot; /* its queue entry: polling frees it and every entry before it */
};

struct ibs_vcq {
	struct fv_cqe *q;
	unsigned cap, head, n;
};

struct ibs_vdev {
	struct ibs_vdev_info info;
	struct fv_port *port;
};

struct ibs_vpd {
	struct fv_port *port;
};

struct ibs_vmr {
	struct ibs_vpd *pd;
	uint8_t *addr;
	size_t len;
	uint32_t key;
	unsigned access;
};

struct ibs_vqp {
	uint32_t qpn;
	enum fv_qp_state state;
	struct ibs_vpd *pd;
	struct fv_port *port;
	struct ibs_vcq *cq;
	unsigned access;         /* INIT: the remote operations this QP serves */
	unsigned pkey_index;     /* INIT: its P_Key table entry */
	unsigned max_inline;     /* bytes a send or write may carry inline */
	struct ibs_qp_conn path; /* RTR: address, path MTU, peer QPN, responder resources; RTS: timers, SQ PSN */
	uint32_t epsn;           /* responder: the PSN it expects next */
	uint32_t sq_psn;         /* requester: the PSN of the next packet */
	struct fv_swqe *sq;      /* ring: [sq_head, sq_head + sq_n) held until polled */
	unsigned max_send, sq_head, sq_n;
	struct fv_rwqe *rq; /* ring: [rq_head, rq_head + rq_n) posted, the first rq_used of them consumed */
	unsigned max_recv, rq_head, rq_n, rq_used;
};

struct fv_state fv = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Every port InfiniBand and Active, LID 7 + n, MTU 4096, P_Key 0xffff, GID 0 fe80::2:c903:a:n. */
void fv_reset(void)
{
	unsigned i;

	for (i = 0; i < FV_MAX_QPS; i++)
		fv.qps[i] = NULL;
	for (i = 0; i < FV_MAX_MRS; i++)
		fv.mrs[i] = NULL;
	memset((char *)&fv + offsetof(__typeof__(fv), next_qpn), 0, sizeof(fv) - offsetof(__typeof__(fv), next_qpn));
	fv.next_qpn = 0x100;
	fv.next_key = 0x1000;
	fv.speedup = 100;
	for (i = 0; i < FV_PORTS; i++) {
		static const uint8_t guid[8] = { 0, 0x02, 0xc9, 0x03, 0, 0x0a, 0, 0 };
		struct fv_port *p = &fv.port[i];
		p->ll = IBS_LL_IB;
		p->state = 4;
		p->lid = (uint16_t)(7 + i);
		p->mtu = 5;
		p->pkey = 0xffff;
		p->max_inline = 256;
		p->gids[0].gid[0] = 0xfe;
		p->gids[0].gid[1] = 0x80;
		memcpy(p->gids[0].gid + 8, guid, 8);
		p->gids[0].gid[15] = (uint8_t)i;
		p->gids[0].type = IBS_GID_IB_ROCE_V1;
	}
}

void fv_set_gid(unsigned port, unsigned index, const uint8_t gid[16], enum ibs_gid_type type)
{
	memcpy(fv.port[port].gids[index].gid, gid, 16);
	fv.port[port].gids[index].type = type;
}

void fv_fail(enum fv_op op, int err, unsigned skip)
{
	fv.fail_err[op] = err;
	fv.fail_skip[op] = skip;
}

/* Does this call of op fail? (Called with the lock held or before threads start.) */
static int fv_check(enum fv_op op)
{
	unsigned n = fv.calls[op]++;
	return fv.fail_err[op] && n >= fv.fail_skip[op] ? fv.fail_err[op] : 0;
}

uint64_t fv_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t fv_mtu_bytes(unsigned mtu)
{
	return 128u << mtu;
}

static bool fv_gid_empty(const struct fv_port *p, unsigned index)
{
	return index >= FV_GIDS || ibs_gid_is_zero(p->gids[index].gid);
}

static int fv_open(const char *ca, unsigned port, struct ibs_vdev **dev, struct ibs_vdev_info *info, char **msg)
{
	struct ibs_vdev *d;
	struct fv_port *p;
	unsigned id;
	int e;

	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_OPEN);
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
	pthread_mutex_lock(&fv.mu);
	id = fv.opens++;
	pthread_mutex_unlock(&fv.mu);
	if (id >= FV_PORTS) {
		*msg = xasprintf("the fake fabric has %u ports: call fv_reset() between tests", FV_PORTS);
		return ENODEV;
	}
	p = &fv.port[id];
	d = xcalloc(1, sizeof(*d));
	d->port = p;
	d->info.name = "fake0";
	d->info.port = 1;
	d->info.link_layer = p->ll;
	d->info.state = p->state;
	d->info.lid = p->ll == IBS_LL_IB ? p->lid : 0;
	d->info.active_mtu = p->mtu;
	d->info.gid_tbl_len = FV_GIDS;
	d->info.pkey_tbl_len = FV_PKEYS;
	d->info.max_qp_wr = 1024;
	d->info.max_cqe = 4096;
	d->info.max_rd_atom = 16;
	d->info.max_init_rd_atom = 16;
	d->info.atomics = !p->no_atomics;
	d->info.iwarp = p->iwarp;
	*info = d->info;
	*dev = d;
	return 0;
}

static void fv_close(struct ibs_vdev *d)
{
	free(d);
}

/* As the kernel's GID cache (since 5.10): EINVAL beyond the table, ENODATA for an empty entry. */
int fv_query_gid(struct ibs_vdev *d, unsigned index, uint8_t gid[16], enum ibs_gid_type *type)
{
	if (index >= FV_GIDS)
		return EINVAL;
	if (fv_gid_empty(d->port, index))
		return ENODATA;
	memcpy(gid, d->port->gids[index].gid, 16);
	*type = d->port->gid_types_unknown ? IBS_GID_UNKNOWN : d->port->gids[index].type;
	return 0;
}

static int fv_gid_netdev(struct ibs_vdev *d, unsigned index, char name[IBS_NETDEV_LEN])
{
	if (fv_gid_empty(d->port, index) || d->port->gid_types_unknown || !d->port->gids[index].netdev[0])
		return ENODATA;
	memcpy(name, d->port->gids[index].netdev, IBS_NETDEV_LEN);
	return 0;
}

static int fv_alloc_pd(struct ibs_vdev *d, struct ibs_vpd **pd)
{
	int e;

	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_PD);
	pthread_mutex_unlock(&fv.mu);
	if (e)
		return e;
	*pd = xcalloc(1, sizeof(**pd));
	(*pd)->port = d->port;
	return 0;
}

static void fv_dealloc_pd(struct ibs_vpd *pd)
{
	free(pd);
}

static int fv_reg_mr(struct ibs_vpd *pd, void *addr, size_t len, unsigned access, struct ibs_vmr **mr, uint32_t *lkey,
		     uint32_t *rkey)
{
	struct ibs_vmr *m;
	unsigned i;
	int e;

	/* ibv_reg_mr(3): remote write or atomic access needs local write too. */
	if ((access & (IBS_ACCESS_REMOTE_WRITE | IBS_ACCESS_REMOTE_ATOMIC)) && !(access & IBS_ACCESS_LOCAL_WRITE))
		return EINVAL;
	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_MR);
	if (e) {
		pthread_mutex_unlock(&fv.mu);
		return e;
	}
	m = xcalloc(1, sizeof(*m));
	m->pd = pd;
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

static void fv_dereg_mr(struct ibs_vmr *m)
{
	unsigned i;

	pthread_mutex_lock(&fv.mu);
	for (i = 0; i < FV_MAX_MRS; i++)
		if (fv.mrs[i] == m)
			fv.mrs[i] = NULL;
	pthread_mutex_unlock(&fv.mu);
	free(m);
}

static int fv_create_cq(struct ibs_vdev *d, unsigned cqe, struct ibs_vcq **cq)
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
	c->q = xcalloc(cqe ? cqe : 1, sizeof(*c->q));
	*cq = c;
	return 0;
}

static void fv_destroy_cq(struct ibs_vcq *c)
{
	free(c->q);
	free(c);
}

static int fv_create_qp(struct ibs_vpd *pd, struct ibs_vcq *cq, struct ibs_qp_caps *caps, struct ibs_vqp **qp,
			uint32_t *qpn)
{
	struct ibs_vqp *q;
	unsigned i;
	int e;

	pthread_mutex_lock(&fv.mu);
	e = fv_check(FV_QP);
	if (!e && caps->max_inline > pd->port->max_inline)
		e = EINVAL;
	if (e) {
		pthread_mutex_unlock(&fv.mu);
		return e;
	}
	q = xcalloc(1, sizeof(*q));
	if (pd->port->inline_writeback)
		caps->max_inline = pd->port->max_inline;
	q->max_inline = caps->max_inline;
	q->qpn = fv.next_qpn++;
	q->pd = pd;
	q->port = pd->port;
	q->cq = cq;
	q->max_send = caps->max_send_wr ? caps->max_send_wr : 1;
	q->max_recv = caps->max_recv_wr ? caps->max_recv_wr : 1;
	q->sq = xcalloc(q->max_send, sizeof(*q->sq));
	q->rq = xcalloc(q->max_recv, sizeof(*q->rq));
	for (i = 0; i < FV_MAX_QPS && fv.qps[i]; i++)
		;
	if (i < FV_MAX_QPS)
		fv.qps[i] = q;
	pthread_mutex_unlock(&fv.mu);
	*qp = q;
	*qpn = q->qpn;
	return 0;
}

static void fv_destroy_qp(struct ibs_vqp *q)
{
	unsigned i;

	pthread_mutex_lock(&fv.mu);
	for (i = 0; i < FV_MAX_QPS; i++)
		if (fv.qps[i] == q)
			fv.qps[i] = NULL;
	/* Its completions may outlive it in the CQ; they free nothing any more. */
	for (i = 0; i < q->cq->n; i++)
		if (q->cq->q[(q->cq->head + i) % q->cq->cap].qp == q)
			q->cq->q[(q->cq->head + i) % q->cq->cap].qp = NULL;
	pthread_mutex_unlock(&fv.mu);
	for (i = 0; i < q->max_send; i++)
		fv_swqe_release(&q->sq[i]);
	free(q->sq);
	free(q->rq);
	free(q);
}

/*
 * The address checks ib_modify_qp and the providers make at RTR: a path MTU
 * outside 256..4096 or above the port's active MTU (EINVAL; mlx4/mlx5 check
 * the range, hns and irdma the active MTU too); RoCE without a GRH (EINVAL);
 * an sgid index beyond the table (EINVAL) or on an empty entry (ENODATA).
 */
static int fv_check_rtr(const struct ibs_vqp *q, const struct ibs_qp_conn *c)
{
	if (c->mtu < 1 || c->mtu > 5 || c->mtu > q->port->mtu)
		return EINVAL;
	if (q->port->ll == IBS_LL_ETH && !c->use_grh)
		return EINVAL;
	if (c->use_grh && c->sgid_index >= FV_GIDS)
		return EINVAL;
	if (c->use_grh && fv_gid_empty(q->port, c->sgid_index))
		return ENODATA;
	return 0;
}

static int fv_modify_qp(struct ibs_vqp *q, enum ibs_qp_target to, const struct ibs_qp_conn *c)
{
	static const enum fv_op ops[] = { FV_INIT, FV_RTR, FV_RTS };
	int e;

	pthread_mutex_lock(&fv.mu);
	e = fv_check(ops[to]);
	if (!e && ((to == IBS_QPS_INIT && q->state != FV_QPS_RESET && q->state != FV_QPS_INIT) ||
		   (to == IBS_QPS_RTR && q->state != FV_QPS_INIT) || (to == IBS_QPS_RTS && q->state != FV_QPS_RTR)))
		e = EINVAL; /* out of order */
	if (!e && to == IBS_QPS_INIT && (c->port != 1 || c->pkey_index >= FV_PKEYS))
		e = EINVAL;
	if (!e && to == IBS_QPS_RTR)
		e = fv_check_rtr(q, c);
	if (!e) {
		switch (to) {
		case IBS_QPS_INIT:
			q->access = c->access;
			q->pkey_index = c->pkey_index;
			q->state = FV_QPS_INIT;
			break;
		case IBS_QPS_RTR:
			q->path.remote_qpn = c->remote_qpn;
			q->path.remote_lid = c->remote_lid;
			q->path.use_grh = c->use_grh;
			memcpy(q->path.remote_gid, c->remote_gid, 16);
			q->path.sgid_index = c->sgid_index;
			q->path.hop_limit = c->hop_limit;
			q->path.mtu = c->mtu;
			q->path.max_dest_rd_atomic = c->max_dest_rd_atomic;
			q->path.min_rnr_timer = c->min_rnr_timer;
			q->path.sl = c->sl;
			q->path.traffic_class = c->traffic_class;
			q->epsn = c->remote_psn & FV_PSN_MASK;
			q->state = FV_QPS_RTR;
			fv.last_rtr = *c;
			fv.rtr[q->port - fv.port] = *c;
			break;
		case IBS_QPS_RTS:
		default:
			q->path.timeout = c->timeout;
			q->path.retry_cnt = c->retry_cnt;
			q->path.rnr_retry = c->rnr_retry;
			q->path.max_rd_atomic = c->max_rd_atomic;
			q->sq_psn = c->local_psn & FV_PSN_MASK;
			q->state = FV_QPS_RTS;
			break;
		}
	}
	pthread_mutex_unlock(&fv.mu);
	return e;
}

/* ---- the data path (lock held) ---- */

static void fv_push(struct ibs_vqp *q, bool send, unsigned slot, uint64_t wr_id, unsigned status, uint32_t len)
{
	struct ibs_vcq *cq = q->cq;
	struct fv_cqe *c;

	if (cq->n == cq->cap) {
		fv.overrun = true;
		return;
	}
	c = &cq->q[(cq->head + cq->n++) % cq->cap];
	memset(c, 0, sizeof(*c));
	c->wc.wr_id = wr_id;
	c->wc.status = status;
	c->wc.is_recv = !send && status == IBS_WC_SUCCESS;
	c->wc.byte_len = status == IBS_WC_SUCCESS ? len : 0;
	c->wc.vendor_err = status ? FV_VENDOR_ERR : 0;
	c->qp = q;
	c->send = send;
	c->slot = slot;
}

static struct ibs_vqp *fv_qp(uint32_t qpn)
{
	unsigned i;

	for (i = 0; i < FV_MAX_QPS; i++)
		if (fv.qps[i] && fv.qps[i]->qpn == qpn)
			return fv.qps[i];
	return NULL;
}

/* A registered range of this protection domain with these rights, by key; NULL when any of it is wrong. */
static uint8_t *fv_mem(const struct ibs_vpd *pd, uint32_t key, uint64_t addr, size_t len, unsigned access)
{
	unsigned i;

	for (i = 0; i < FV_MAX_MRS; i++) {
		struct ibs_vmr *m = fv.mrs[i];
		uint64_t base;
		if (!m || m->key != key)
			continue;
		base = (uint64_t)(uintptr_t)m->addr;
		if (m->pd != pd || addr < base || addr + len > base + m->len || (m->access & access) != access)
			return NULL;
		return (uint8_t *)(uintptr_t)addr;
	}
	return NULL;
}

/* Entry i of a port's P_Key table. */
static uint16_t fv_pkey_at(const struct fv_port *p, unsigned i)
{
	return i ? p->pkey_more[i - 1] : p->pkey;
}

/* The IBA's P_Key match: the same key (low 15 bits, not 0), and at least one end a full member. */
static bool fv_pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) && ((a | b) & 0x8000);
}

static bool fv_port_has_gid(const struct fv_port *p, const uint8_t gid[16], enum ibs_gid_type type)
{
	unsigned i;

	for (i = 0; i < FV_GIDS; i++)
		if (!fv_gid_empty(p, i) && p->gids[i].type == type && !memcmp(p->gids[i].gid, gid, 16))
			return true;
	return false;
}

/*
 * The queue pair that q's packets with this payload reach, by q's RTR
 * address, or NULL where the fabric drops them: no port with that DLID (IB)
 * or with that DGID as a GID of the sender's type (a RoCE v1 packet never
 * reaches a v2-only entry, nor crosses a router; a v2 packet goes as IPv4 or
 * IPv6 by its source GID), no such QPN there, a P_Key that does not match,
 * or a packet larger than the receiving port's active MTU or a switch's. A
 * port takes either RoCE version whatever its own QP sends (mlx4: the ICRC
 * check on receive does not depend on the QP's RoCE mode).
 */
static struct ibs_vqp *fv_reach(const struct ibs_vqp *q, uint32_t payload)
{
	const struct fv_port *s = q->port, *d;
	const struct ibs_qp_conn *a = &q->path;
	struct ibs_vqp *t = fv_qp(a->remote_qpn);
	enum ibs_gid_type type = IBS_GID_IB_ROCE_V1;

	if (!t)
		return NULL;
	d = t->port;
	if (s->state != 4 || d->state != 4 || s->ll != d->ll)
		return NULL;
	if (a->use_grh)
		type = s->gids[a->sgid_index].type;
	if (s->ll == IBS_LL_IB && memcmp(s->gids[0].gid, d->gids[0].gid, 8)) {
		if (!fv.router_lid || a->remote_lid != fv.router_lid || !a->use_grh)
			return NULL;
	} else if (s->ll == IBS_LL_IB && a->remote_lid != d->lid) {
		return NULL;
	}
	if (a->use_grh && !fv_port_has_gid(d, a->remote_gid, type))
		return NULL;
	if (s->ll == IBS_LL_ETH && type == IBS_GID_ROCE_V2 &&
	    ibs_gid_is_v4mapped(s->gids[a->sgid_index].gid) != ibs_gid_is_v4mapped(a->remote_gid))
		return NULL;
	if (s->ll == IBS_LL_ETH && type != IBS_GID_ROCE_V2 && fv.routed)
		return NULL;
	if (!fv_pkey_match(fv_pkey_at(s, q->pkey_index), fv_pkey_at(d, t->pkey_index)))
		return NULL;
	if (payload > fv_mtu_bytes(d->mtu) || (fv.fabric_mtu && payload > fv_mtu_bytes(fv.fabric_mtu)))
		return NULL;
	return t;
}

static uint32_t fv_len(const struct ibs_send_wr *w)
{
	return w->opcode == IBS_WR_FETCH_ADD ? 8 : w->length;
}

/* Packets (PSNs) a message of len bytes takes at this path MTU; at least one. */
static uint32_t fv_packets(uint32_t len, unsigned mtu)
{
	return len ? (len + fv_mtu_bytes(mtu) - 1) / fv_mtu_bytes(mtu) : 1;
}

/* PSNs a work request takes: its request packets, or for an RDMA read its response packets. */
static uint32_t fv_psns(const struct ibs_send_wr *w, unsigned mtu)
{
	return w->opcode == IBS_WR_FETCH_ADD ? 1 : fv_packets(w->length, mtu);
}

/* Transport retries: retry_cnt + 1 Local ACK Timeouts of 4.096 us << timeout (0: forever). */
static uint64_t fv_retry_due(const struct ibs_vqp *q, uint64_t now)
{
	if (!q->path.timeout)
		return 0;
	return now + (uint64_t)(q->path.retry_cnt + 1) * (4096ull << q->path.timeout) / (fv.speedup ? fv.speedup : 1);
}

/* Receiver-not-ready retries: rnr_retry + 1 of the responder's RNR timer (the IBA's encoding); 7: forever. */
static uint64_t fv_rnr_due(const struct ibs_vqp *q, const struct ibs_vqp *t, uint64_t now)
{
	static const uint32_t timer_10us[32] = { 65536, 1,    2,    3,    4,    6,     8,     12,    16,    24,   32,
						 48,    64,   96,   128,  192,  256,   384,   512,   768,   1024, 1536,
						 2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152 };

	if (q->path.rnr_retry >= 7)
		return 0;
	return now + (uint64_t)(q->path.rnr_retry + 1) * timer_10us[t->path.min_rnr_timer & 31] * 10000ull /
			     (fv.speedup ? fv.speedup : 1);
}

/* Reads and atomics of q answered by the responder whose response has not arrived yet. */
static unsigned fv_reads_out(const struct ibs_vqp *q)
{
	unsigned k, n = 0;

	for (k = 0; k < q->sq_n; k++) {
		const struct fv_swqe *e = &q->sq[(q->sq_head + k) % q->max_send];
		n += e->stage == FV_ANSWERED && (e->wr.opcode == IBS_WR_RDMA_READ || e->wr.opcode == IBS_WR_FETCH_ADD);
	}
	return n;
}

/* The queue pair fails: every work request it still holds completes with WR_FLUSH_ERR. */
static void fv_qp_error(struct ibs_vqp *q)
{
	unsigned k;

	q->state = FV_QPS_ERR;
	for (k = 0; k < q->sq_n; k++) {
		unsigned slot = (q->sq_head + k) % q->max_send;
		struct fv_swqe *e = &q->sq[slot];
		if (e->stage == FV_DONE)
			continue;
		e->stage = FV_DONE;
		fv_swqe_release(e);
		fv_push(q, true, slot, e->wr.wr_id, IBS_WC_WR_FLUSH_ERR, 0);
	}
	for (; q->rq_used < q->rq_n; q->rq_used++) {
		unsigned slot = (q->rq_head + q->rq_used) % q->max_recv;
		fv_push(q, false, slot, q->rq[slot].wr_id, IBS_WC_WR_FLUSH_ERR, 0);
	}
}

/* A send work request completes: a completion if signaled or failed; a failure fails the queue pair. */
static void fv_complete(struct ibs_vqp *q, unsigned slot, unsigned status)
{
	struct fv_swqe *e = &q->sq[slot];

	e->stage = FV_DONE;
	fv_swqe_release(e);
	if (e->wr.signaled || status != IBS_WC_SUCCESS)
		fv_push(q, true, slot, e->wr.wr_id, status, fv_len(&e->wr));
	if (status != IBS_WC_SUCCESS)
		fv_qp_error(q);
}

/*
 * The responder t executes q's request e (src: what q gathered for a send or
 * write), checking in the order rxe_resp.c does: the QP's access flags and
 * responder resources (NAK Invalid Request), packet length against its path
 * MTU (Invalid Request), the R_Key (NAK Remote Access Error), a receive for
 * a send (RNR NAK; its buffer: Remote Operational Error, or Invalid Request
 * when too small). NAKs other than RNR fail the responder's QP too. Returns
 * the status its response carries; *rnr: not ready, retry later.
 */
static unsigned fv_respond(struct ibs_vqp *q, struct fv_swqe *e, const uint8_t *src, struct ibs_vqp *t, bool *rnr)
{
	const struct ibs_send_wr *w = &e->wr;
	uint32_t len = fv_len(w), pkt = len < fv_mtu_bytes(q->path.mtu) ? len : fv_mtu_bytes(q->path.mtu);
	unsigned need = w->opcode == IBS_WR_RDMA_WRITE ? IBS_ACCESS_REMOTE_WRITE :
			w->opcode == IBS_WR_RDMA_READ  ? IBS_ACCESS_REMOTE_READ :
			w->opcode == IBS_WR_FETCH_ADD  ? IBS_ACCESS_REMOTE_ATOMIC :
							 0;
	bool rd = w->opcode == IBS_WR_RDMA_READ || w->opcode == IBS_WR_FETCH_ADD;
	uint8_t *dst;

	*rnr = false;
	if ((need & ~t->access) || (w->opcode == IBS_WR_FETCH_ADD && t->port->no_atomics) ||
	    (rd && fv_reads_out(q) >= t->path.max_dest_rd_atomic) ||
	    (w->opcode != IBS_WR_RDMA_READ && pkt > fv_mtu_bytes(t->path.mtu)) ||
	    (w->opcode == IBS_WR_FETCH_ADD && (w->remote_addr & 7)))
		goto inv_req;
	if (need) {
		dst = fv_mem(t->pd, w->rkey, w->remote_addr, len, need);
		if (!dst) {
			fv_qp_error(t);
			return IBS_WC_REM_ACCESS_ERR;
		}
		if (w->opcode == IBS_WR_RDMA_WRITE) {
			memcpy(dst, src, len);
		} else if (w->opcode == IBS_WR_RDMA_READ) {
			e->data = xmalloc(len ? len : 1);
			memcpy(e->data, dst, len);
		} else {
			uint64_t old, sum;
			memcpy(&old, dst, 8);
			sum = old + w->add;
			memcpy(dst, &sum, 8);
			if (q->port->atomic_be)
				old = __builtin_bswap64(old);
			e->data = xmalloc(8);
			memcpy(e->data, &old, 8);
		}
	} else {
		struct fv_rwqe *r;
		unsigned slot;
		if (t->rq_used == t->rq_n) {
			*rnr = true;
			return IBS_WC_SUCCESS;
		}
		slot = (t->rq_head + t->rq_used++) % t->max_recv;
		r = &t->rq[slot];
		dst = fv_mem(t->pd, r->lkey, (uint64_t)(uintptr_t)r->addr, r->len, IBS_ACCESS_LOCAL_WRITE);
		if (!dst || len > r->len) {
			fv_push(t, false, slot, r->wr_id, dst ? IBS_WC_LOC_LEN_ERR : IBS_WC_LOC_PROT_ERR, 0);
			fv_qp_error(t);
			return dst ? IBS_WC_REM_INV_REQ_ERR : IBS_WC_REM_OP_ERR;
		}
		memcpy(dst, src, len);
		fv_push(t, false, slot, r->wr_id, IBS_WC_SUCCESS, len);
	}
	t->epsn = (t->epsn + (w->opcode == IBS_WR_RDMA_READ ? fv_packets(len, t->path.mtu) : fv_psns(w, q->path.mtu))) &
		  FV_PSN_MASK;
	return IBS_WC_SUCCESS;
inv_req:
	fv_qp_error(t);
	return IBS_WC_REM_INV_REQ_ERR;
}

/*
 * Transmit q's request at slot: lost in the fabric (retried until
 * RETRY_EXC_ERR), refused for now (RNR), or answered. A request is executed
 * only when it reaches a QP in RTR or RTS that expects its PSN: one that does
 * not (a wrong or swapped PSN) gets a PSN sequence error NAK or a duplicate
 * ACK carrying the responder's PSN, which lies outside the requester's window
 * and is dropped there, so it is retried like a lost one. The response must
 * reach q back by the responder's own RTR address.
 */
static void fv_transmit(struct ibs_vqp *q, unsigned slot, uint64_t now)
{
	struct fv_swqe *e = &q->sq[slot];
	const struct ibs_send_wr *w = &e->wr;
	uint32_t len = fv_len(w), qmtu = fv_mtu_bytes(q->path.mtu);
	bool sends = w->opcode == IBS_WR_SEND || w->opcode == IBS_WR_RDMA_WRITE;
	const uint8_t *src = NULL;
	struct ibs_vqp *t;
	uint32_t back = 0;
	unsigned status;
	bool rnr;

	if (e->inject) {
		fv_complete(q, slot, e->inject);
		return;
	}
	/* The requester gathers what it sends first: a bad local key fails before anything leaves. */
	src = e->inl;
	if (sends && !src && !(src = fv_mem(q->pd, w->lkey, (uint64_t)(uintptr_t)w->addr, len, 0))) {
		fv_complete(q, slot, IBS_WC_LOC_PROT_ERR);
		return;
	}
	t = fv_reach(q, sends ? (len < qmtu ? len : qmtu) : 0);
	if (!t || (t->state != FV_QPS_RTR && t->state != FV_QPS_RTS) || e->psn != t->epsn) {
		e->stage = FV_RETRYING;
		e->due = fv_retry_due(q, now);
		return;
	}
	status = fv_respond(q, e, src, t, &rnr);
	if (w->opcode == IBS_WR_RDMA_READ && status == IBS_WC_SUCCESS)
		back = len < fv_mtu_bytes(t->path.mtu) ? len : fv_mtu_bytes(t->path.mtu);
	if (fv_reach(t, back) != q) {
		e->stage = FV_RETRYING;
		e->due = fv_retry_due(q, now);
		return;
	}
	if (rnr) {
		if (!e->due)
			e->due = fv_rnr_due(q, t, now);
		if (e->due && now >= e->due)
			fv_complete(q, slot, IBS_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	e->status = status;
	e->stage = FV_ANSWERED;
}

/* The response to slot arrives: read data and fetched values land in a local buffer that must allow local write. */
static void fv_answer(struct ibs_vqp *q, unsigned slot)
{
	struct fv_swqe *e = &q->sq[slot];
	const struct ibs_send_wr *w = &e->wr;
	unsigned status = e->status;

	if (!status && e->data) {
		uint8_t *dst = fv_mem(q->pd, w->lkey, (uint64_t)(uintptr_t)w->addr, fv_len(w), IBS_ACCESS_LOCAL_WRITE);
		if (dst)
			memcpy(dst, e->data, fv_len(w));
		else
			status = IBS_WC_LOC_PROT_ERR;
	}
	fv_complete(q, slot, status);
}

/* One step of q's send queue, in order: responses arrive, then new requests go out. */
static void fv_step(struct ibs_vqp *q, uint64_t now)
{
	unsigned k;

	if (q->state == FV_QPS_ERR) {
		fv_qp_error(q); /* what was posted since */
		return;
	}
	for (k = 0; k < q->sq_n && q->state == FV_QPS_RTS; k++) {
		unsigned slot = (q->sq_head + k) % q->max_send;
		struct fv_swqe *e = &q->sq[slot];
		bool rd = e->wr.opcode == IBS_WR_RDMA_READ || e->wr.opcode == IBS_WR_FETCH_ADD;
		if (e->stage == FV_DONE)
			continue;
		if (e->stage == FV_ANSWERED) {
			fv_answer(q, slot);
			continue;
		}
		if (e->stage == FV_RETRYING) {
			if (e->due && now >= e->due)
				fv_complete(q, slot, IBS_WC_RETRY_EXC_ERR);
			break; /* later requests wait behind it */
		}
		/* Posted: the initiator depth holds back reads and atomics; RC keeps order. */
		if (e->lost || (rd && fv_reads_out(q) >= q->path.max_rd_atomic))
			break;
		fv_transmit(q, slot, now);
		if (e->stage != FV_ANSWERED)
			break;
	}
}

static void fv_progress(void)
{
	uint64_t now = fv_now();
	unsigned i;

	for (i = 0; i < FV_MAX_QPS; i++)
		if (fv.qps[i])
			fv_step(fv.qps[i], now);
}

static int fv_post_send(struct ibs_vqp *q, const struct ibs_send_wr *w)
{
	struct fv_swqe *e;
	unsigned n;

	pthread_mutex_lock(&fv.mu);
	if (q->state != FV_QPS_RTS && q->state != FV_QPS_ERR) {
		pthread_mutex_unlock(&fv.mu);
		return EINVAL;
	}
	/* mlx5 and rxe refuse inline data beyond what the QP was created with, and on a read or atomic. */
	if (w->inline_data &&
	    (w->length > q->max_inline || (w->opcode != IBS_WR_SEND && w->opcode != IBS_WR_RDMA_WRITE))) {
		pthread_mutex_unlock(&fv.mu);
		return EINVAL;
	}
	if (q->sq_n >= q->max_send) {
		fv.overrun = true;
		pthread_mutex_unlock(&fv.mu);
		return ENOMEM;
	}
	e = &q->sq[(q->sq_head + q->sq_n++) % q->max_send];
	memset(e, 0, sizeof(*e));
	e->wr = *w;
	e->psn = q->sq_psn;
	q->sq_psn = (q->sq_psn + fv_psns(w, q->path.mtu)) & FV_PSN_MASK;
	if (w->inline_data) {
		e->inl = xmalloc(w->length ? w->length : 1);
		memcpy(e->inl, w->addr, w->length);
		fv.inlined++;
	}
	n = ++fv.posts;
	fv.signaled += w->signaled;
	e->lost = fv.lose_from && n >= fv.lose_from;
	if (fv.err_at && n == fv.err_at)
		e->inject = fv.err_status;
	pthread_mutex_unlock(&fv.mu);
	return 0;
}

/* Hardware does not look at the buffer until a message lands in it. */
static int fv_post_recv(struct ibs_vqp *q, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	pthread_mutex_lock(&fv.mu);
	if (q->state == FV_QPS_RESET) {
		pthread_mutex_unlock(&fv.mu);
		return EINVAL;
	}
	if (q->rq_n >= q->max_recv) {
		fv.overrun = true;
		pthread_mutex_unlock(&fv.mu);
		return ENOMEM;
	}
	q->rq[(q->rq_head + q->rq_n++) % q->max_recv] = (struct fv_rwqe){ wr_id, addr, len, lkey };
	pthread_mutex_unlock(&fv.mu);
	return 0;
}

/* Polling frees the queue entries up to the one completed, unsignaled ones before it included. */
static void fv_release(struct fv_cqe *c)
{
	struct ibs_vqp *q = c->qp;
	unsigned n;

	if (!q)
		return;
	if (c->send) {
		n = (c->slot + q->max_send - q->sq_head) % q->max_send + 1;
		q->sq_head = (q->sq_head + n) % q->max_send;
		q->sq_n -= n;
	} else {
		n = (c->slot + q->max_recv - q->rq_head) % q->max_recv + 1;
		q->rq_head = (q->rq_head + n) % q->max_recv;
		q->rq_n -= n;
		q->rq_used -= n;
	}
}

/* One progress step of the whole fabric, then what this CQ holds: a poll right after a post finds nothing. */
static int fv_poll_cq(struct ibs_vcq *cq, int n, struct ibs_wc *wc)
{
	int k = 0;

	pthread_mutex_lock(&fv.mu);
	fv_progress();
	while (k < n && cq->n) {
		struct fv_cqe *c = &cq->q[cq->head];
		wc[k++] = c->wc;
		fv_release(c);
		cq->head = (cq->head + 1) % cq->cap;
		cq->n--;
	}
	pthread_mutex_unlock(&fv.mu);
	/* Both ends of a probe spin in one process: let the other run (a real CQ is filled by the HCA). */
	if (!k)
		sched_yield();
	return k;
}

const struct ibs_verbs_ops fake_verbs = {
	.name = "fake",
	.open = fv_open,
	.close = fv_close,
	.query_gid = fv_query_gid,
	.gid_netdev = fv_gid_netdev,
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
