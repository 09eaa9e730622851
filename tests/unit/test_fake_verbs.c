/*
 * Unit tests of the verbs test double (fake_verbs.h) itself, on queue pairs
 * driven by hand: each mistake a probe could make (swapped PSNs, a wrong
 * address, sgid index, path MTU, P_Key, access flag, LOCAL_WRITE) fails with
 * the completion status or errno hardware gives, a correct setup works end
 * to end, and completions come as hardware delivers them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fake_verbs.h"

#define BUF 16384
#define HALF (BUF / 2) /* each end sends from buf and exposes buf + HALF */
#define ALL_REMOTE (IBS_ACCESS_REMOTE_WRITE | IBS_ACCESS_REMOTE_READ | IBS_ACCESS_REMOTE_ATOMIC)
#define FULL (IBS_ACCESS_LOCAL_WRITE | ALL_REMOTE)

/* One end of a hand-made connection: init and rtr are what connect_end() gives modify_qp. */
struct end {
	struct ibs_vdev *dev;
	struct ibs_vdev_info info;
	struct ibs_vpd *pd;
	struct ibs_vmr *mr;
	uint32_t lkey, rkey;
	struct ibs_vcq *cq;
	struct ibs_vqp *qp;
	uint32_t qpn;
	uint8_t *buf;
	struct ibs_qp_conn init, rtr;
};

/* Device (the next port), PD, MR with these rights over buf, CQ, QP with depth entries each way. */
static void open_end(struct end *e, unsigned mr_access, unsigned depth)
{
	struct ibs_qp_caps caps = { depth, depth, 64 };
	char *msg = NULL;

	memset(e, 0, sizeof(*e));
	e->buf = xcalloc(1, BUF);
	assert_int_equal(fake_verbs.open(NULL, 0, &e->dev, &e->info, &msg), 0);
	assert_int_equal(fake_verbs.alloc_pd(e->dev, &e->pd), 0);
	assert_int_equal(fake_verbs.reg_mr(e->pd, e->buf, BUF, mr_access, &e->mr, &e->lkey, &e->rkey), 0);
	assert_int_equal(fake_verbs.create_cq(e->dev, 4 * depth, &e->cq), 0);
	assert_int_equal(fake_verbs.create_qp(e->pd, e->cq, &caps, &e->qp, &e->qpn), 0);
}

/* What a correct connection to peer gives modify_qp (as the probe does: GRH on RoCE, GID index 0 or given). */
static void plan(struct end *e, const struct end *peer, unsigned sgid_index, uint32_t my_psn, uint32_t peer_psn)
{
	struct ibs_qp_conn *c = &e->rtr;

	memset(&e->init, 0, sizeof(e->init));
	e->init.port = 1;
	e->init.access = ALL_REMOTE;
	memset(c, 0, sizeof(*c));
	c->port = 1;
	c->remote_qpn = peer->qpn;
	c->remote_psn = peer_psn;
	c->local_psn = my_psn;
	c->remote_lid = peer->info.lid;
	c->use_grh = e->info.link_layer == IBS_LL_ETH;
	c->sgid_index = sgid_index;
	if (c->use_grh)
		assert_int_equal(fv_query_gid(peer->dev, sgid_index, c->remote_gid, &(enum ibs_gid_type){ 0 }), 0);
	c->hop_limit = 64;
	c->mtu = e->info.active_mtu < peer->info.active_mtu ? e->info.active_mtu : peer->info.active_mtu;
	c->max_dest_rd_atomic = c->max_rd_atomic = 4;
	c->min_rnr_timer = 12;
	c->timeout = 14;
	c->retry_cnt = 7;
	c->rnr_retry = 7;
}

/* INIT, RTR, RTS: 0, or the errno of the first that fails. */
static int connect_end(struct end *e)
{
	int err = fake_verbs.modify_qp(e->qp, IBS_QPS_INIT, &e->init);

	if (!err)
		err = fake_verbs.modify_qp(e->qp, IBS_QPS_RTR, &e->rtr);
	if (!err)
		err = fake_verbs.modify_qp(e->qp, IBS_QPS_RTS, &e->rtr);
	return err;
}

static void close_end(struct end *e)
{
	fake_verbs.destroy_qp(e->qp);
	fake_verbs.destroy_cq(e->cq);
	fake_verbs.dereg_mr(e->mr);
	fake_verbs.dealloc_pd(e->pd);
	fake_verbs.close(e->dev);
	free(e->buf);
}

/* Two ends opened with these MR rights, planned correctly; the caller may change the plan, then connects. */
static void open_pair(struct end *a, struct end *b, unsigned a_mr, unsigned b_mr)
{
	open_end(a, a_mr, 8);
	open_end(b, b_mr, 8);
	plan(a, b, a->info.link_layer == IBS_LL_ETH ? 3 : 0, 0x123456, 0xabcdef);
	plan(b, a, b->info.link_layer == IBS_LL_ETH ? 3 : 0, 0xabcdef, 0x123456);
}

static void connect_pair(struct end *a, struct end *b)
{
	assert_int_equal(connect_end(a), 0);
	assert_int_equal(connect_end(b), 0);
}

/* Two ends with every right, connected correctly. */
static void open_connected(struct end *a, struct end *b)
{
	open_pair(a, b, FULL, FULL);
	connect_pair(a, b);
}

static void close_pair(struct end *a, struct end *b)
{
	close_end(a);
	close_end(b);
	assert_false(fv.overrun);
}

/* a posts op of len bytes to b's exposed region: from a's buf (send, write) or into a's exposed region. */
static int post(struct end *a, const struct end *b, enum ibs_wr_opcode op, uint32_t len, bool signaled, uint64_t id)
{
	struct ibs_send_wr w;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.addr = op == IBS_WR_RDMA_READ || op == IBS_WR_FETCH_ADD ? a->buf + HALF : a->buf;
	w.length = op == IBS_WR_FETCH_ADD ? 8 : len;
	w.lkey = a->lkey;
	w.remote_addr = (uint64_t)(uintptr_t)(b->buf + HALF);
	w.rkey = b->rkey;
	w.add = 1;
	w.signaled = signaled;
	return fake_verbs.post_send(a->qp, &w);
}

static void post_recv(struct end *e, uint64_t id, uint32_t len)
{
	assert_int_equal(fake_verbs.post_recv(e->qp, id, e->buf + HALF, len, e->lkey), 0);
}

/* The next completion on e's CQ, within 2 s (the fabric progresses as it polls); false if none came. */
static bool next_wc(struct end *e, struct ibs_wc *wc)
{
	uint64_t end = fv_now() + 2000000000ull;

	while (fv_now() < end)
		if (fake_verbs.poll_cq(e->cq, 1, wc) == 1)
			return true;
	return false;
}

static void expect(struct end *e, uint64_t id, unsigned status)
{
	struct ibs_wc wc;

	if (!next_wc(e, &wc))
		fail_msg("no completion for work request %llu (want %u)", (unsigned long long)id, status);
	if (wc.wr_id != id || wc.status != status)
		fail_msg("work request %llu completed with %u, want %llu with %u", (unsigned long long)wc.wr_id,
			 wc.status, (unsigned long long)id, status);
}

/* A 64-byte RDMA write from a to b, which completes with this status. */
static void write_expect(struct end *a, const struct end *b, unsigned status)
{
	assert_int_equal(post(a, b, IBS_WR_RDMA_WRITE, 64, true, 1), 0);
	expect(a, 1, status);
}

/* b posts a 64-byte receive, a sends 64 bytes: the receive completes with one status, the send with another. */
static void send_expect(struct end *a, struct end *b, unsigned recv_status, unsigned send_status)
{
	post_recv(b, 100, 64);
	assert_int_equal(post(a, b, IBS_WR_SEND, 64, true, 1), 0);
	expect(b, 100, recv_status);
	expect(a, 1, send_status);
}

/* Nothing more on e's CQ after polling for a while. */
static void expect_none(struct end *e)
{
	struct ibs_wc wc;
	int i;

	for (i = 0; i < 200; i++)
		if (fake_verbs.poll_cq(e->cq, 1, &wc))
			fail_msg("unexpected completion: work request %llu, status %u", (unsigned long long)wc.wr_id,
				 wc.status);
}

static int setup(void **state)
{
	(void)state;
	fv_reset();
	return 0;
}

static void roce_port(unsigned n, uint8_t last, enum ibs_gid_type v4_type)
{
	uint8_t ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x0e, 0x42, 0xa1, 0xff, 0xfe, 0x5b, 0x3c, last };
	uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, last };

	fv.port[n].ll = IBS_LL_ETH;
	memset(fv.port[n].gids, 0, sizeof(fv.port[n].gids));
	fv_set_gid(n, 0, ll, IBS_GID_IB_ROCE_V1);
	fv_set_gid(n, 1, ll, IBS_GID_ROCE_V2);
	fv_set_gid(n, 3, v4, v4_type);
}

/*
 * Two RoCE v2 ports; a sends from its IPv4 GID to dgid (NULL: b's GID at
 * b_index) instead of b's IPv4 GID: the write is lost, RETRY_EXC_ERR.
 */
static void roce_write_lost(const uint8_t *dgid, unsigned b_index)
{
	struct end a, b;

	fv_reset();
	roce_port(0, 1, IBS_GID_ROCE_V2);
	roce_port(1, 2, IBS_GID_ROCE_V2);
	open_pair(&a, &b, FULL, FULL);
	if (dgid)
		memcpy(a.rtr.remote_gid, dgid, 16);
	else
		assert_int_equal(fv_query_gid(b.dev, b_index, a.rtr.remote_gid, &(enum ibs_gid_type){ 0 }), 0);
	connect_pair(&a, &b);
	write_expect(&a, &b, IBS_WC_RETRY_EXC_ERR);
	close_pair(&a, &b);
}

/* A correct connection carries every operation end to end, on InfiniBand and on RoCE. */
static void test_correct_setup(void **state)
{
	unsigned ll;

	(void)state;
	for (ll = 0; ll < 2; ll++) {
		struct end a, b;
		uint64_t v;
		fv_reset();
		if (ll) {
			roce_port(0, 1, IBS_GID_ROCE_V2);
			roce_port(1, 2, IBS_GID_ROCE_V2);
		}
		open_connected(&a, &b);
		memset(a.buf, 0x5a, 3000);
		post_recv(&b, 100, 4096);
		assert_int_equal(post(&a, &b, IBS_WR_SEND, 3000, true, 1), 0);
		expect(&a, 1, IBS_WC_SUCCESS);
		expect(&b, 100, IBS_WC_SUCCESS);
		assert_int_equal(b.buf[HALF + 2999], 0x5a);
		memset(a.buf, 0x33, 100);
		assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 100, true, 2), 0);
		expect(&a, 2, IBS_WC_SUCCESS);
		assert_int_equal(b.buf[HALF + 99], 0x33);
		b.buf[HALF + 7] = 0x77;
		assert_int_equal(post(&a, &b, IBS_WR_RDMA_READ, 8, true, 3), 0);
		expect(&a, 3, IBS_WC_SUCCESS);
		assert_int_equal(a.buf[HALF + 7], 0x77);
		v = 41;
		memcpy(b.buf + HALF, &v, 8);
		assert_int_equal(post(&a, &b, IBS_WR_FETCH_ADD, 8, true, 4), 0);
		expect(&a, 4, IBS_WC_SUCCESS);
		memcpy(&v, a.buf + HALF, 8);
		assert_int_equal(v, 41); /* the original value, in host order */
		memcpy(&v, b.buf + HALF, 8);
		assert_int_equal(v, 42);
		expect_none(&a);
		expect_none(&b);
		close_pair(&a, &b);
	}
}

/*
 * Completions come later than the post: the request reaches the responder
 * in one progress step, its acknowledgement comes back in the next.
 */
static void test_asynchronous(void **state)
{
	struct end a, b;
	struct ibs_wc wc;

	(void)state;
	open_connected(&a, &b);
	post_recv(&b, 100, 64);
	assert_int_equal(post(&a, &b, IBS_WR_SEND, 64, true, 1), 0);
	assert_int_equal(fake_verbs.poll_cq(a.cq, 1, &wc), 0); /* empty right after the post */
	assert_int_equal(fake_verbs.poll_cq(b.cq, 1, &wc), 1); /* the message has landed */
	assert_true(wc.is_recv);
	assert_int_equal(wc.byte_len, 64);
	assert_int_equal(fake_verbs.poll_cq(a.cq, 1, &wc), 1); /* and is acknowledged */
	assert_int_equal(wc.wr_id, 1);
	close_pair(&a, &b);
}

/*
 * Swapped PSNs: a gives its QP the peer's PSN as its send PSN and its own as
 * the one to expect, while b does it right. b never executes a's request;
 * a retries for (retry_cnt + 1) ACK timeouts and ends in RETRY_EXC_ERR, the
 * rest of its queue flushed.
 */
static void test_swapped_psns(void **state)
{
	struct end a, b;
	uint64_t t0, ms;

	(void)state;
	fv.speedup = 1; /* real time: 4 x 4.096 us << 12 = 67 ms */
	open_pair(&a, &b, FULL, FULL);
	a.rtr.local_psn = 0xabcdef;
	a.rtr.remote_psn = 0x123456;
	a.rtr.timeout = 12;
	a.rtr.retry_cnt = 3;
	connect_pair(&a, &b);
	post_recv(&b, 100, 64);
	t0 = fv_now();
	assert_int_equal(post(&a, &b, IBS_WR_SEND, 64, true, 1), 0);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 64, false, 2), 0);
	expect(&a, 1, IBS_WC_RETRY_EXC_ERR);
	ms = (fv_now() - t0) / 1000000;
	if (ms < 60 || ms > 1500)
		fail_msg("RETRY_EXC_ERR after %llu ms, want about 67", (unsigned long long)ms);
	expect(&a, 2, IBS_WC_WR_FLUSH_ERR); /* unsignaled, but failed: it completes */
	expect_none(&b); /* the receive was never consumed */
	close_pair(&a, &b);
}

/* Addresses: a DLID or DGID that is not the peer's, or a return address that is not the requester's. */
static void test_wrong_address(void **state)
{
	static const uint8_t nobody[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 99 };
	struct end a, b;

	(void)state;
	open_pair(&a, &b, FULL, FULL);
	a.rtr.remote_lid = 99;
	connect_pair(&a, &b);
	write_expect(&a, &b, IBS_WC_RETRY_EXC_ERR);
	close_pair(&a, &b);
	/* The right QPN is not enough: a's address must lead to it. */
	roce_write_lost(nobody, 0);
	/* The responder answers to its own RTR address: wrong there, the send lands but is never acknowledged. */
	fv_reset();
	open_pair(&a, &b, FULL, FULL);
	b.rtr.remote_lid = 99;
	connect_pair(&a, &b);
	send_expect(&a, &b, IBS_WC_SUCCESS, IBS_WC_RETRY_EXC_ERR);
	close_pair(&a, &b);
}

/* The sgid index is checked at RTR, as the kernel's GID cache does it; RoCE needs a GRH. */
static void test_sgid_index(void **state)
{
	struct end a, b;
	uint8_t gid[16];
	enum ibs_gid_type type;

	(void)state;
	roce_port(0, 1, IBS_GID_ROCE_V2);
	roce_port(1, 2, IBS_GID_ROCE_V2);
	open_pair(&a, &b, FULL, FULL);
	assert_int_equal(fake_verbs.query_gid(a.dev, 2, gid, &type), ENODATA);
	assert_int_equal(fake_verbs.query_gid(a.dev, FV_GIDS, gid, &type), EINVAL);
	a.rtr.sgid_index = FV_GIDS; /* beyond the table */
	assert_int_equal(connect_end(&a), EINVAL);
	a.rtr.sgid_index = 2; /* inside it, but empty */
	assert_int_equal(fake_verbs.modify_qp(a.qp, IBS_QPS_RTR, &a.rtr), ENODATA);
	a.rtr.sgid_index = 3;
	a.rtr.use_grh = false;
	assert_int_equal(fake_verbs.modify_qp(a.qp, IBS_QPS_RTR, &a.rtr), EINVAL);
	a.rtr.use_grh = true;
	assert_int_equal(fake_verbs.modify_qp(a.qp, IBS_QPS_RTR, &a.rtr), 0);
	close_pair(&a, &b);
}

/*
 * Each GID has a type: a RoCE v1 packet does not reach a peer whose address
 * is a RoCE v2 GID only, whether or not rdma-core can say which type it is.
 */
static void test_roce_types(void **state)
{
	struct end a, b;
	uint8_t gid[16];
	enum ibs_gid_type type;
	unsigned i;

	(void)state;
	roce_port(0, 1, IBS_GID_IB_ROCE_V1);
	roce_port(1, 2, IBS_GID_ROCE_V2);
	fv.port[0].gid_types_unknown = true; /* an old rdma-core cannot tell, the packets still are v1 */
	open_connected(&a, &b);
	assert_int_equal(fake_verbs.query_gid(a.dev, 3, gid, &type), 0);
	assert_int_equal(type, IBS_GID_UNKNOWN);
	write_expect(&a, &b, IBS_WC_RETRY_EXC_ERR);
	close_pair(&a, &b);
	/* A v2 packet from an IPv4 GID does not reach the peer's IPv6 one. */
	roce_write_lost(NULL, 1);
	/* a sends v1 (b answers v2): fine on one Ethernet segment, lost through a router. */
	for (i = 0; i < 2; i++) {
		fv_reset();
		fv.routed = i;
		roce_port(0, 1, IBS_GID_ROCE_V2);
		roce_port(1, 2, IBS_GID_ROCE_V2);
		open_pair(&a, &b, FULL, FULL);
		assert_int_equal(fv_query_gid(b.dev, 0, a.rtr.remote_gid, &(enum ibs_gid_type){ 0 }), 0);
		a.rtr.sgid_index = 0; /* fe80:: as RoCE v1, to the peer's fe80:: as RoCE v1 */
		connect_pair(&a, &b);
		write_expect(&a, &b, i ? IBS_WC_RETRY_EXC_ERR : IBS_WC_SUCCESS);
		close_pair(&a, &b);
	}
}

/*
 * Path MTU: RTR refuses one above the port's own active MTU; a packet above
 * the peer's active MTU, or a switch's, is dropped (RETRY_EXC_ERR); messages
 * are cut into packets of the path MTU, so a long one at the right MTU goes.
 */
static void test_path_mtu(void **state)
{
	struct end a, b;

	(void)state;
	fv.port[1].mtu = 3; /* b: 1024 */
	open_pair(&a, &b, FULL, FULL);
	assert_int_equal(b.info.active_mtu, 3);
	b.rtr.mtu = 5;
	assert_int_equal(connect_end(&b), EINVAL);
	a.rtr.mtu = b.rtr.mtu = 6;
	assert_int_equal(connect_end(&a), EINVAL);
	a.rtr.mtu = 5; /* a's own port carries 4096, the peer's does not */
	b.rtr.mtu = 3;
	assert_int_equal(fake_verbs.modify_qp(a.qp, IBS_QPS_RTR, &a.rtr), 0);
	assert_int_equal(fake_verbs.modify_qp(a.qp, IBS_QPS_RTS, &a.rtr), 0);
	assert_int_equal(fake_verbs.modify_qp(b.qp, IBS_QPS_RTR, &b.rtr), 0);
	assert_int_equal(fake_verbs.modify_qp(b.qp, IBS_QPS_RTS, &b.rtr), 0);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 1024, true, 1), 0);
	expect(&a, 1, IBS_WC_SUCCESS);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 2048, true, 2), 0);
	expect(&a, 2, IBS_WC_RETRY_EXC_ERR);
	close_pair(&a, &b);
	/* Both ports at 4096, a switch between them at 1024; then both at the path MTU 1024. */
	fv_reset();
	fv.fabric_mtu = 3;
	open_connected(&a, &b);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 4096, true, 1), 0);
	expect(&a, 1, IBS_WC_RETRY_EXC_ERR);
	close_pair(&a, &b);
	fv_reset();
	fv.fabric_mtu = 3;
	open_pair(&a, &b, FULL, FULL);
	a.rtr.mtu = b.rtr.mtu = 3;
	connect_pair(&a, &b);
	memset(a.buf, 0x42, 4096);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 4096, true, 1), 0);
	expect(&a, 1, IBS_WC_SUCCESS);
	assert_int_equal(b.buf[HALF + 4095], 0x42);
	b.buf[HALF + 4000] = 0x24;
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_READ, 4096, true, 2), 0); /* 4 response packets */
	expect(&a, 2, IBS_WC_SUCCESS);
	assert_int_equal(a.buf[HALF + 4000], 0x24);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 64, true, 3), 0); /* the PSNs still agree */
	expect(&a, 3, IBS_WC_SUCCESS);
	close_pair(&a, &b);
}

/* P_Keys: the same key with at least one full member talks; anything else is dropped. */
static void test_pkey(void **state)
{
	static const struct {
		uint16_t a, b;
		unsigned status;
	} cases[] = {
		{ 0xffff, 0xffff, IBS_WC_SUCCESS },
		{ 0xffff, 0x7fff, IBS_WC_SUCCESS },       /* a full and a limited member */
		{ 0x8001, 0xffff, IBS_WC_RETRY_EXC_ERR }, /* another partition */
		{ 0x7fff, 0x7fff, IBS_WC_RETRY_EXC_ERR }, /* two limited members */
		{ 0x8000, 0x8000, IBS_WC_RETRY_EXC_ERR }, /* the invalid key */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct end a, b;
		fv_reset();
		fv.port[0].pkey = cases[i].a;
		fv.port[1].pkey = cases[i].b;
		open_connected(&a, &b);
		write_expect(&a, &b, cases[i].status);
		close_pair(&a, &b);
	}
}

/*
 * The responder's QP must allow the operation (its INIT access flags): if
 * not, NAK Invalid Request, REM_INV_REQ_ERR at the requester, and the
 * responder's QP fails too (its receive is flushed). The MR's rights are a
 * separate check: REM_ACCESS_ERR.
 */
static void test_qp_access(void **state)
{
	static const struct {
		enum ibs_wr_opcode op;
		unsigned qp_access, mr_access, status;
	} cases[] = {
		{ IBS_WR_RDMA_WRITE, IBS_ACCESS_REMOTE_READ | IBS_ACCESS_REMOTE_ATOMIC, ALL_REMOTE,
		  IBS_WC_REM_INV_REQ_ERR },
		{ IBS_WR_RDMA_READ, IBS_ACCESS_REMOTE_WRITE | IBS_ACCESS_REMOTE_ATOMIC, ALL_REMOTE,
		  IBS_WC_REM_INV_REQ_ERR },
		{ IBS_WR_FETCH_ADD, IBS_ACCESS_REMOTE_WRITE | IBS_ACCESS_REMOTE_READ, ALL_REMOTE,
		  IBS_WC_REM_INV_REQ_ERR },
		{ IBS_WR_RDMA_WRITE, ALL_REMOTE, IBS_ACCESS_REMOTE_READ, IBS_WC_REM_ACCESS_ERR },
		{ IBS_WR_RDMA_READ, ALL_REMOTE, IBS_ACCESS_REMOTE_WRITE, IBS_WC_REM_ACCESS_ERR },
		{ IBS_WR_FETCH_ADD, ALL_REMOTE, IBS_ACCESS_REMOTE_WRITE, IBS_WC_REM_ACCESS_ERR },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct end a, b;
		fv_reset();
		open_pair(&a, &b, FULL, IBS_ACCESS_LOCAL_WRITE | cases[i].mr_access);
		b.init.access = cases[i].qp_access;
		connect_pair(&a, &b);
		post_recv(&b, 100, 64);
		assert_int_equal(post(&a, &b, cases[i].op, 64, true, 1), 0);
		expect(&a, 1, cases[i].status);
		expect(&b, 100, IBS_WC_WR_FLUSH_ERR);
		close_pair(&a, &b);
	}
}

/*
 * LOCAL_WRITE: an RDMA read or atomic lands in local memory, which must
 * allow it (LOC_PROT_ERR, after the responder has executed it); ibv_reg_mr
 * refuses remote write or atomic rights without it; a receive buffer
 * without it fails when a message arrives (the sender sees REM_OP_ERR).
 */
static void test_local_write(void **state)
{
	struct end a, b;
	struct ibs_vmr *mr;
	uint32_t lkey, rkey;
	uint64_t v;

	(void)state;
	open_pair(&a, &b, IBS_ACCESS_REMOTE_READ, FULL);
	connect_pair(&a, &b);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_READ, 64, true, 1), 0);
	expect(&a, 1, IBS_WC_LOC_PROT_ERR);
	close_pair(&a, &b);
	fv_reset();
	open_pair(&a, &b, IBS_ACCESS_REMOTE_READ, FULL);
	connect_pair(&a, &b);
	assert_int_equal(post(&a, &b, IBS_WR_FETCH_ADD, 8, true, 1), 0);
	expect(&a, 1, IBS_WC_LOC_PROT_ERR);
	memcpy(&v, b.buf + HALF, 8);
	assert_int_equal(v, 1); /* the add was done all the same */
	assert_int_equal(fake_verbs.reg_mr(a.pd, a.buf, 64, IBS_ACCESS_REMOTE_WRITE, &mr, &lkey, &rkey), EINVAL);
	assert_int_equal(fake_verbs.reg_mr(a.pd, a.buf, 64, IBS_ACCESS_REMOTE_ATOMIC, &mr, &lkey, &rkey), EINVAL);
	close_pair(&a, &b);
	fv_reset();
	open_pair(&a, &b, FULL, IBS_ACCESS_REMOTE_READ);
	connect_pair(&a, &b);
	/* post_recv accepts the buffer: hardware looks at it only when a message lands. */
	send_expect(&a, &b, IBS_WC_LOC_PROT_ERR, IBS_WC_REM_OP_ERR);
	close_pair(&a, &b);
}

/*
 * Selective signalling: an unsignaled work request gives no completion but
 * holds its send queue slot until a later signaled one's completion is
 * polled.
 */
static void test_unsignaled(void **state)
{
	struct end a, b;
	unsigned i;

	(void)state;
	open_connected(&a, &b); /* 8 send slots */
	for (i = 0; i < 7; i++)
		assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 64, false, i), 0);
	expect_none(&a); /* all done, nothing to say */
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 64, true, 7), 0);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 64, true, 8), ENOMEM); /* the queue is full */
	assert_true(fv.overrun);
	fv.overrun = false;
	expect(&a, 7, IBS_WC_SUCCESS);
	for (i = 0; i < 8; i++) /* the completion freed every slot */
		assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 64, i == 7, 10 + i), 0);
	expect(&a, 17, IBS_WC_SUCCESS);
	close_pair(&a, &b);
}

/*
 * Inline data: copied when posted (the buffer may change at once, and its
 * local key is not looked at); beyond what the queue pair was created with,
 * or on a read, post_send refuses it; create_qp refuses more than the device carries.
 */
static void test_inline(void **state)
{
	struct ibs_qp_caps caps = { 4, 4, 257 };
	struct ibs_send_wr w;
	struct ibs_vqp *qp;
	uint32_t qpn;
	struct end a, b;

	(void)state;
	open_connected(&a, &b); /* max_inline 64 */
	memset(a.buf, 0x5a, 64);
	memset(&w, 0, sizeof(w));
	w.wr_id = 1;
	w.opcode = IBS_WR_RDMA_WRITE;
	w.addr = a.buf;
	w.length = 64;
	w.lkey = 0xdead; /* no such key: inline data needs none */
	w.remote_addr = (uint64_t)(uintptr_t)(b.buf + HALF);
	w.rkey = b.rkey;
	w.signaled = true;
	w.inline_data = true;
	assert_int_equal(fake_verbs.post_send(a.qp, &w), 0);
	memset(a.buf, 0, 64); /* after the post: what was posted lands */
	expect(&a, 1, IBS_WC_SUCCESS);
	assert_int_equal(b.buf[HALF], 0x5a);
	assert_int_equal(b.buf[HALF + 63], 0x5a);
	w.length = 65;
	assert_int_equal(fake_verbs.post_send(a.qp, &w), EINVAL);
	w.length = 8;
	w.opcode = IBS_WR_RDMA_READ;
	assert_int_equal(fake_verbs.post_send(a.qp, &w), EINVAL);
	assert_int_equal(fake_verbs.create_qp(a.pd, a.cq, &caps, &qp, &qpn), EINVAL); /* the port carries 256 */
	close_pair(&a, &b);
}

/* Fetched values as a ConnectX delivers them: host order (mlx5), or big-endian (ConnectX-3, MOFED's reply-BE mode). */
static void test_atomic_byte_order(void **state)
{
	unsigned be;

	(void)state;
	for (be = 0; be < 2; be++) {
		struct end a, b;
		uint64_t v = 0x0102030405060708ull;
		fv_reset();
		fv.port[0].atomic_be = be;
		open_connected(&a, &b);
		memcpy(b.buf + HALF, &v, 8);
		assert_int_equal(post(&a, &b, IBS_WR_FETCH_ADD, 8, true, 1), 0);
		expect(&a, 1, IBS_WC_SUCCESS);
		memcpy(&v, a.buf + HALF, 8);
		assert_int_equal(v, be ? 0x0807060504030201ull : 0x0102030405060708ull);
		memcpy(&v, b.buf + HALF, 8);
		assert_int_equal(v, 0x0102030405060709ull);
		close_pair(&a, &b);
	}
}

/*
 * Receiver not ready: retried forever with rnr_retry 7 (the send lands once
 * a receive is posted), else RNR_RETRY_EXC_ERR after rnr_retry + 1 RNR timers.
 */
static void test_rnr(void **state)
{
	struct end a, b;
	uint64_t t0, us;

	(void)state;
	open_connected(&a, &b);
	assert_int_equal(post(&a, &b, IBS_WR_SEND, 64, true, 1), 0);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_WRITE, 64, true, 2), 0); /* waits behind the send */
	expect_none(&a);
	post_recv(&b, 100, 64);
	expect(&a, 1, IBS_WC_SUCCESS);
	expect(&a, 2, IBS_WC_SUCCESS);
	expect(&b, 100, IBS_WC_SUCCESS);
	close_pair(&a, &b);
	fv_reset();
	open_pair(&a, &b, FULL, FULL);
	fv.speedup = 1;
	a.rtr.rnr_retry = 2;
	connect_pair(&a, &b);
	t0 = fv_now();
	assert_int_equal(post(&a, &b, IBS_WR_SEND, 64, true, 1), 0);
	expect(&a, 1, IBS_WC_RNR_RETRY_EXC_ERR);
	us = (fv_now() - t0) / 1000;
	if (us < 1900) /* 3 x 0.64 ms, the responder's min_rnr_timer 12 */
		fail_msg("RNR_RETRY_EXC_ERR after %llu us, want 1920 or more", (unsigned long long)us);
	close_pair(&a, &b);
}

/* Responder resources: reads or atomics beyond max_dest_rd_atomic get NAK Invalid Request. */
static void test_responder_resources(void **state)
{
	struct end a, b;
	unsigned i;

	(void)state;
	open_pair(&a, &b, FULL, FULL);
	b.rtr.max_dest_rd_atomic = 0;
	connect_pair(&a, &b);
	write_expect(&a, &b, IBS_WC_SUCCESS);
	assert_int_equal(post(&a, &b, IBS_WR_RDMA_READ, 64, true, 2), 0);
	expect(&a, 2, IBS_WC_REM_INV_REQ_ERR);
	close_pair(&a, &b);
	/* The requester's initiator depth keeps within the peer's resources: many reads, all served. */
	fv_reset();
	open_pair(&a, &b, FULL, FULL);
	a.rtr.max_rd_atomic = b.rtr.max_dest_rd_atomic = 2;
	connect_pair(&a, &b);
	for (i = 0; i < 8; i++)
		assert_int_equal(post(&a, &b, IBS_WR_RDMA_READ, 64, true, i), 0);
	for (i = 0; i < 8; i++)
		expect(&a, i, IBS_WC_SUCCESS);
	close_pair(&a, &b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_correct_setup, setup),
		cmocka_unit_test_setup(test_asynchronous, setup),
		cmocka_unit_test_setup(test_swapped_psns, setup),
		cmocka_unit_test_setup(test_wrong_address, setup),
		cmocka_unit_test_setup(test_sgid_index, setup),
		cmocka_unit_test_setup(test_roce_types, setup),
		cmocka_unit_test_setup(test_path_mtu, setup),
		cmocka_unit_test_setup(test_pkey, setup),
		cmocka_unit_test_setup(test_inline, setup),
		cmocka_unit_test_setup(test_qp_access, setup),
		cmocka_unit_test_setup(test_local_write, setup),
		cmocka_unit_test_setup(test_unsignaled, setup),
		cmocka_unit_test_setup(test_atomic_byte_order, setup),
		cmocka_unit_test_setup(test_rnr, setup),
		cmocka_unit_test_setup(test_responder_resources, setup),
	};
	return cmocka_run_group_tests_name("fake_verbs", tests, NULL, NULL);
}
