/*
 * The link probe's verbs operations on libibverbs, the only file that calls it.
 * libibverbs is loaded at run time (dlopen, as NCCL does): the rest of
 * libibscan, and the fuzz targets built from it, need no libibverbs at link
 * time, and a host without rdma-core gets a clear message, not a loader error.
 * The data-path calls (ibv_post_send, ibv_post_recv, ibv_poll_cq) are
 * libibverbs' inline functions, which dispatch through the context's ops.
 */
#define _GNU_SOURCE
#include "verbs.h"
#include "../base/xalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(IBS_ACCESS_LOCAL_WRITE, IBV_ACCESS_LOCAL_WRITE) && SAME(IBS_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE) &&
		       SAME(IBS_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_READ) &&
		       SAME(IBS_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_REMOTE_ATOMIC),
	       "access bits");
_Static_assert(SAME(IBS_WC_RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR) && SAME(IBS_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR) &&
		       SAME(IBS_WC_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR) &&
		       SAME(IBS_WC_RNR_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR),
	       "completion status numbering");

#define LIBIBVERBS "libibverbs.so.1"

static struct {
	bool loaded;
	struct ibv_device **(*get_device_list)(int *n);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_device)(struct ibv_context *ctx, struct ibv_device_attr *attr);
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr);
	int (*query_gid)(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid);
	/* rdma-core 32 and later: the GID with its type. */
	int (*query_gid_ex)(struct ibv_context *ctx, uint32_t port, uint32_t index, struct ibv_gid_entry *entry,
			    uint32_t flags, size_t entry_size);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe, void *cq_ctx, struct ibv_comp_channel *ch,
				    int vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
} fn;

static int errno_or(int dflt)
{
	return errno > 0 ? errno : dflt;
}

/* Keep the last cause only: *msg is NULL or owned by the caller. */
static void set_msg(char **msg, char *m)
{
	free(*msg);
	*msg = m;
}

/* The current symbol version first: libibverbs still exports IBVERBS_1.0 compatibility ones. */
static void *sym(void *h, const char *name, const char *version)
{
	void *p = dlvsym(h, name, version);
	return p ? p : dlsym(h, name);
}

#define LOAD(field, name, version)                                      \
	do {                                                            \
		fn.field = (__typeof__(fn.field))sym(h, name, version); \
		if (!fn.field) {                                        \
			missing = name;                                 \
			goto fail;                                      \
		}                                                       \
	} while (0)

static int load_ibverbs(char **msg)
{
	const char *missing = NULL;
	void *h;

	if (fn.loaded)
		return 0;
	h = dlopen(LIBIBVERBS, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		set_msg(msg, xasprintf("cannot load %s (%s): install rdma-core's libibverbs (Debian: libibverbs1)",
				       LIBIBVERBS, e ? e : "not found"));
		return ENOSYS;
	}
	LOAD(get_device_list, "ibv_get_device_list", "IBVERBS_1.1");
	LOAD(free_device_list, "ibv_free_device_list", "IBVERBS_1.1");
	LOAD(get_device_name, "ibv_get_device_name", "IBVERBS_1.1");
	LOAD(open_device, "ibv_open_device", "IBVERBS_1.1");
	LOAD(close_device, "ibv_close_device", "IBVERBS_1.1");
	LOAD(query_device, "ibv_query_device", "IBVERBS_1.1");
	LOAD(query_port, "ibv_query_port", "IBVERBS_1.1");
	LOAD(query_gid, "ibv_query_gid", "IBVERBS_1.1");
	LOAD(alloc_pd, "ibv_alloc_pd", "IBVERBS_1.1");
	LOAD(dealloc_pd, "ibv_dealloc_pd", "IBVERBS_1.1");
	LOAD(reg_mr, "ibv_reg_mr", "IBVERBS_1.1");
	LOAD(dereg_mr, "ibv_dereg_mr", "IBVERBS_1.1");
	LOAD(create_cq, "ibv_create_cq", "IBVERBS_1.1");
	LOAD(destroy_cq, "ibv_destroy_cq", "IBVERBS_1.1");
	LOAD(create_qp, "ibv_create_qp", "IBVERBS_1.1");
	LOAD(destroy_qp, "ibv_destroy_qp", "IBVERBS_1.1");
	LOAD(modify_qp, "ibv_modify_qp", "IBVERBS_1.1");
	fn.query_gid_ex = (__typeof__(fn.query_gid_ex))sym(h, "_ibv_query_gid_ex", "IBVERBS_1.11");
	fn.loaded = true;
	return 0;
fail:
	set_msg(msg, xasprintf("%s lacks %s: rdma-core is too old or broken", LIBIBVERBS, missing));
	dlclose(h);
	return ENOSYS;
}

struct ibs_vdev {
	struct ibv_context *ctx;
	char *name;
	unsigned port;
};

/* ibv_query_port is an inline in verbs.h that prefers the extended call; do the same. */
static int port_query(struct ibv_context *ctx, unsigned port, struct ibv_port_attr *pa)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);

	memset(pa, 0, sizeof(*pa));
	if (vctx)
		return vctx->query_port(ctx, (uint8_t)port, pa, sizeof(*pa));
	return fn.query_port(ctx, (uint8_t)port, (struct _compat_ibv_port_attr *)pa);
}

/* A device with the port asked for (0: its first active port, else port 1); *active says whether it is. */
static int pick_port(struct ibv_context *ctx, unsigned nports, unsigned want, unsigned *port, bool *active)
{
	struct ibv_port_attr pa;
	unsigned p;

	if (want) {
		if (want > nports)
			return ENXIO;
		*port = want;
		*active = port_query(ctx, want, &pa) == 0 && pa.state == IBV_PORT_ACTIVE;
		return 0;
	}
	for (p = 1; p <= nports; p++)
		if (port_query(ctx, p, &pa) == 0 && pa.state == IBV_PORT_ACTIVE) {
			*port = p;
			*active = true;
			return 0;
		}
	*port = 1;
	*active = false;
	return nports ? 0 : ENXIO;
}

static int v_open(const char *ca, unsigned port, struct ibs_vdev **out, struct ibs_vdev_info *info, char **msg)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL, *fallback = NULL;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	unsigned chosen = 0, fb_port = 0;
	int i, n = 0, rc;

	*out = NULL;
	rc = load_ibverbs(msg);
	if (rc)
		return rc;
	errno = 0;
	list = fn.get_device_list(&n);
	if (!list) {
		/* ENOSYS: the kernel has no RDMA support at all (no uverbs). */
		rc = errno;
		if (rc == ENOSYS)
			set_msg(msg, xstrdup("the kernel has no RDMA support: ibv_get_device_list: Function not implemented"));
		else
			set_msg(msg, xasprintf("ibv_get_device_list: %s", strerror(rc ? rc : ENODEV)));
		return ENODEV;
	}
	rc = ca ? ENOENT : ENODEV;
	for (i = 0; i < n; i++) {
		const char *name = fn.get_device_name(list[i]);
		struct ibv_context *c;
		unsigned p;
		bool act;
		int prc;

		if (ca && (!name || strcmp(name, ca)))
			continue;
		c = fn.open_device(list[i]);
		if (!c) {
			rc = errno_or(EIO);
			set_msg(msg, xasprintf("cannot open %s: %s", name ? name : "?", strerror(rc)));
			if (ca)
				break;
			continue;
		}
		if (fn.query_device(c, &da)) {
			rc = errno_or(EIO);
			fn.close_device(c);
			continue;
		}
		prc = pick_port(c, da.phys_port_cnt, port, &p, &act);
		if (prc) {
			rc = prc;
			set_msg(msg, xasprintf("%s has no port %u (it has %u)", name, port, (unsigned)da.phys_port_cnt));
			fn.close_device(c);
			if (ca)
				break;
			continue;
		}
		if (act || ca) {
			ctx = c;
			chosen = p;
			break;
		}
		if (!fallback) {
			fallback = c;
			fb_port = p;
		} else {
			fn.close_device(c);
		}
	}
	if (!ctx && fallback) {
		ctx = fallback;
		chosen = fb_port;
		fallback = NULL;
	}
	if (fallback)
		fn.close_device(fallback);
	if (!ctx) {
		fn.free_device_list(list);
		return n == 0 ? ENODEV : rc;
	}
	memset(info, 0, sizeof(*info));
	*out = xcalloc(1, sizeof(**out));
	(*out)->ctx = ctx;
	(*out)->name = xstrdup(ctx->device->name);
	(*out)->port = chosen;
	fn.free_device_list(list);
	if (fn.query_device(ctx, &da) || port_query(ctx, chosen, &pa)) {
		rc = errno_or(EIO);
		set_msg(msg, xasprintf("cannot query %s port %u: %s", (*out)->name, chosen, strerror(rc)));
		free((*out)->name);
		fn.close_device(ctx);
		free(*out);
		*out = NULL;
		return rc;
	}
	info->name = (*out)->name;
	info->port = chosen;
	info->link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? IBS_LL_ETH : IBS_LL_IB;
	info->state = pa.state;
	info->lid = pa.lid;
	info->active_mtu = pa.active_mtu;
	info->gid_tbl_len = pa.gid_tbl_len > 0 ? (unsigned)pa.gid_tbl_len : 0;
	info->pkey_tbl_len = pa.pkey_tbl_len;
	info->max_qp_wr = da.max_qp_wr > 0 ? (unsigned)da.max_qp_wr : 0;
	info->max_cqe = da.max_cqe > 0 ? (unsigned)da.max_cqe : 0;
	info->max_rd_atom = da.max_qp_rd_atom > 0 ? (unsigned)da.max_qp_rd_atom : 0;
	info->max_init_rd_atom = da.max_qp_init_rd_atom > 0 ? (unsigned)da.max_qp_init_rd_atom : 0;
	info->atomics = da.atomic_cap != IBV_ATOMIC_NONE;
	info->iwarp = ctx->device->transport_type == IBV_TRANSPORT_IWARP;
	return 0;
}

static void v_close(struct ibs_vdev *d)
{
	if (!d)
		return;
	fn.close_device(d->ctx);
	free(d->name);
	free(d);
}

static int v_query_gid(struct ibs_vdev *d, unsigned index, uint8_t gid[16], enum ibs_gid_type *type)
{
	union ibv_gid g;

	*type = IBS_GID_UNKNOWN;
	if (fn.query_gid_ex) {
		struct ibv_gid_entry e;
		int rc = fn.query_gid_ex(d->ctx, d->port, index, &e, 0, sizeof(e));
		if (rc)
			return rc > 0 ? rc : errno_or(ENODATA);
		memcpy(gid, e.gid.raw, 16);
		*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? IBS_GID_ROCE_V2 : IBS_GID_IB_ROCE_V1;
		return 0;
	}
	if (fn.query_gid(d->ctx, (uint8_t)d->port, (int)index, &g))
		return errno_or(ENODATA);
	memcpy(gid, g.raw, 16);
	return 0;
}

/* rdma-core 32 and later name the entry's interface; before, the probe reads sysfs (ENODATA). */
static int v_gid_netdev(struct ibs_vdev *d, unsigned index, char name[IBS_NETDEV_LEN])
{
	struct ibv_gid_entry e;
	char buf[IF_NAMESIZE];

	*name = '\0';
	if (!fn.query_gid_ex || fn.query_gid_ex(d->ctx, d->port, index, &e, 0, sizeof(e)) || !e.ndev_ifindex ||
	    !if_indextoname(e.ndev_ifindex, buf))
		return ENODATA;
	snprintf(name, IBS_NETDEV_LEN, "%s", buf);
	return 0;
}

static int v_alloc_pd(struct ibs_vdev *d, struct ibs_vpd **pd)
{
	struct ibv_pd *p;

	errno = 0;
	p = fn.alloc_pd(d->ctx);
	*pd = (struct ibs_vpd *)p;
	return p ? 0 : errno_or(ENOMEM);
}

static void v_dealloc_pd(struct ibs_vpd *pd)
{
	if (pd)
		fn.dealloc_pd((struct ibv_pd *)pd);
}

static int v_reg_mr(struct ibs_vpd *pd, void *addr, size_t len, unsigned access, struct ibs_vmr **mr, uint32_t *lkey,
		    uint32_t *rkey)
{
	struct ibv_mr *m;

	errno = 0;
	m = fn.reg_mr((struct ibv_pd *)pd, addr, len, (int)access);
	*mr = (struct ibs_vmr *)m;
	if (!m)
		return errno_or(ENOMEM);
	*lkey = m->lkey;
	*rkey = m->rkey;
	return 0;
}

static void v_dereg_mr(struct ibs_vmr *mr)
{
	if (mr)
		fn.dereg_mr((struct ibv_mr *)mr);
}

static int v_create_cq(struct ibs_vdev *d, unsigned cqe, struct ibs_vcq **cq)
{
	struct ibv_cq *c;

	errno = 0;
	c = fn.create_cq(d->ctx, (int)cqe, NULL, NULL, 0);
	*cq = (struct ibs_vcq *)c;
	return c ? 0 : errno_or(ENOMEM);
}

static void v_destroy_cq(struct ibs_vcq *cq)
{
	if (cq)
		fn.destroy_cq((struct ibv_cq *)cq);
}

static int v_create_qp(struct ibs_vpd *pd, struct ibs_vcq *cq, struct ibs_qp_caps *caps, struct ibs_vqp **qp,
		       uint32_t *qpn)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *q;

	memset(&a, 0, sizeof(a));
	a.send_cq = (struct ibv_cq *)cq;
	a.recv_cq = (struct ibv_cq *)cq;
	a.cap.max_send_wr = caps->max_send_wr;
	a.cap.max_recv_wr = caps->max_recv_wr;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = caps->max_inline;
	a.qp_type = IBV_QPT_RC;
	errno = 0;
	q = fn.create_qp((struct ibv_pd *)pd, &a);
	*qp = (struct ibs_vqp *)q;
	if (!q)
		return errno_or(ENOMEM);
	*qpn = q->qp_num;
	caps->max_inline = a.cap.max_inline_data; /* the provider writes back what it gave */
	return 0;
}

static void v_destroy_qp(struct ibs_vqp *qp)
{
	if (qp)
		fn.destroy_qp((struct ibv_qp *)qp);
}

static int v_modify_qp(struct ibs_vqp *qp, enum ibs_qp_target to, const struct ibs_qp_conn *c)
{
	struct ibv_qp_attr a;
	int mask, rc;

	memset(&a, 0, sizeof(a));
	switch (to) {
	case IBS_QPS_INIT:
		a.qp_state = IBV_QPS_INIT;
		a.pkey_index = (uint16_t)c->pkey_index;
		a.port_num = (uint8_t)c->port;
		a.qp_access_flags = c->access;
		mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBS_QPS_RTR:
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = (enum ibv_mtu)c->mtu;
		a.dest_qp_num = c->remote_qpn;
		a.rq_psn = c->remote_psn;
		a.max_dest_rd_atomic = (uint8_t)c->max_dest_rd_atomic;
		a.min_rnr_timer = c->min_rnr_timer;
		a.ah_attr.dlid = c->remote_lid;
		a.ah_attr.sl = c->sl;
		a.ah_attr.src_path_bits = 0;
		a.ah_attr.port_num = (uint8_t)c->port;
		if (c->use_grh) {
			a.ah_attr.is_global = 1;
			memcpy(a.ah_attr.grh.dgid.raw, c->remote_gid, 16);
			a.ah_attr.grh.sgid_index = (uint8_t)c->sgid_index;
			a.ah_attr.grh.hop_limit = c->hop_limit;
			a.ah_attr.grh.traffic_class = c->traffic_class;
		}
		mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	case IBS_QPS_RTS:
	default:
		a.qp_state = IBV_QPS_RTS;
		a.timeout = c->timeout;
		a.retry_cnt = c->retry_cnt;
		a.rnr_retry = c->rnr_retry;
		a.sq_psn = c->local_psn;
		a.max_rd_atomic = (uint8_t)c->max_rd_atomic;
		mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		       IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	}
	errno = 0;
	rc = fn.modify_qp((struct ibv_qp *)qp, &a, mask);
	if (rc < 0)
		return errno_or(EINVAL);
	return rc;
}

static int v_post_send(struct ibs_vqp *qp, const struct ibs_send_wr *w)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;

	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)w->addr;
	sge.length = w->length;
	sge.lkey = w->lkey;
	wr.wr_id = w->wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = (w->signaled ? IBV_SEND_SIGNALED : 0) | (w->inline_data ? IBV_SEND_INLINE : 0);
	switch (w->opcode) {
	case IBS_WR_SEND:
		wr.opcode = IBV_WR_SEND;
		break;
	case IBS_WR_RDMA_WRITE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = w->remote_addr;
		wr.wr.rdma.rkey = w->rkey;
		break;
	case IBS_WR_RDMA_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = w->remote_addr;
		wr.wr.rdma.rkey = w->rkey;
		break;
	case IBS_WR_FETCH_ADD:
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = w->remote_addr;
		wr.wr.atomic.rkey = w->rkey;
		wr.wr.atomic.compare_add = w->add;
		break;
	}
	return ibv_post_send((struct ibv_qp *)qp, &wr, &bad);
}

static int v_post_recv(struct ibs_vqp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_recv_wr wr, *bad = NULL;
	struct ibv_sge sge;

	sge.addr = (uintptr_t)addr;
	sge.length = len;
	sge.lkey = lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv((struct ibv_qp *)qp, &wr, &bad);
}

static int v_poll_cq(struct ibs_vcq *cq, int n, struct ibs_wc *out)
{
	struct ibv_wc wc[16];
	int i, got;

	if (n > 16)
		n = 16;
	got = ibv_poll_cq((struct ibv_cq *)cq, n, wc);
	if (got < 0)
		return -EIO;
	for (i = 0; i < got; i++) {
		out[i].wr_id = wc[i].wr_id;
		out[i].status = wc[i].status;
		/* The opcode is valid on success only. */
		out[i].is_recv = wc[i].status == IBV_WC_SUCCESS && (wc[i].opcode & IBV_WC_RECV);
		out[i].byte_len = wc[i].byte_len;
		out[i].vendor_err = wc[i].vendor_err;
	}
	return got;
}

const struct ibs_verbs_ops ibs_verbs_ibv = {
	.name = "libibverbs",
	.open = v_open,
	.close = v_close,
	.query_gid = v_query_gid,
	.gid_netdev = v_gid_netdev,
	.alloc_pd = v_alloc_pd,
	.dealloc_pd = v_dealloc_pd,
	.reg_mr = v_reg_mr,
	.dereg_mr = v_dereg_mr,
	.create_cq = v_create_cq,
	.destroy_cq = v_destroy_cq,
	.create_qp = v_create_qp,
	.destroy_qp = v_destroy_qp,
	.modify_qp = v_modify_qp,
	.post_send = v_post_send,
	.post_recv = v_post_recv,
	.poll_cq = v_poll_cq,
};
