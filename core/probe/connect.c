/*
 * Connecting the run's QP: the hello each side sends, whether the two ports
 * can talk at all, and RTR and RTS with the peer's address.
 */
#include "probe.h"
#include "../base/gid.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void ping_make_hello(const struct ibs_ping *p, const struct ping_run *r, enum ibs_oob_type type, struct ibs_oob_msg *m)
{
	struct ibs_oob_hello *h = &m->hello;

	memset(m, 0, sizeof(*m));
	m->type = type;
	h->op = (uint8_t)r->op;
	h->bw = r->bw;
	h->link_layer = (uint8_t)p->info.link_layer;
	h->mtu = (uint8_t)(p->info.active_mtu >= 1 && p->info.active_mtu <= 5 ? p->info.active_mtu : 1);
	h->iters = r->iters;
	h->size = r->size;
	h->timeout_ms = r->timeout_ms;
	h->lid = p->info.lid;
	h->gid_index = (uint16_t)(p->gid_index > 0 ? p->gid_index : 0);
	h->qpn = r->qpn;
	h->psn = r->psn;
	h->rd_atomic = (uint8_t)(r->rd_resp > 255 ? 255 : r->rd_resp);
	h->gid_type = (uint8_t)p->gid_type;
	h->sl = (uint8_t)r->sl;
	h->sl_set = r->sl_set;
	h->tclass = (uint8_t)r->tclass;
	h->tclass_set = r->tclass_set;
	memcpy(h->gid, p->gid, 16);
	/* The peer writes into, reads from and adds to the exposed region. */
	h->addr = (uint64_t)(uintptr_t)(r->buf + r->stride);
	h->rkey = r->rkey;
	h->len = (uint32_t)r->stride;
}

static const char *type_or_unknown(enum ibs_gid_type t)
{
	return t ? ibs_gid_type_name(t) : "unknown";
}

/* Can these two ports talk at all? Checked on both sides before RTR. */
enum ibs_err ping_check_peer(struct ibs_ping *p, const struct ibs_oob_hello *h, const char *peer)
{
	static const char *const ll[] = { "unknown", "InfiniBand", "Ethernet (RoCE)" };
	char mine[48], theirs[48];

	if (h->link_layer != p->info.link_layer)
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_INVAL,
				 xstrdup("InfiniBand and RoCE ports cannot reach each other: pick matching ports with -C/-P"),
				 "the peer %s uses an %s port and this host %s port %u is %s", peer, ll[h->link_layer],
				 p->info.name, p->info.port, ll[p->info.link_layer]);
	if (p->info.link_layer == IBS_LL_ETH && ibs_gid_is_v4mapped(p->gid) != ibs_gid_is_v4mapped(h->gid)) {
		ibs_gid_str(p->gid, mine, sizeof(mine));
		ibs_gid_str(h->gid, theirs, sizeof(theirs));
		/* RoCE v2 carries IPv4 or IPv6 as the source GID says; neither end routes one to the other. */
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_INVAL,
				 xstrdup("both hosts must use GIDs of one address family: connect over an address of the "
					 "RoCE interface (the GID follows it), or pick the GIDs with --gid-index ('ibscan "
					 "local' lists them)"),
				 "this host uses an %s GID (index %d, %s) and the peer %s an %s GID (index %u, %s)",
				 ibs_gid_is_v4mapped(p->gid) ? "IPv4" : "IPv6", p->gid_index, mine, peer,
				 ibs_gid_is_v4mapped(h->gid) ? "IPv4" : "IPv6", h->gid_index, theirs);
	}
	if (p->info.link_layer == IBS_LL_ETH && h->gid_type && p->gid_type && h->gid_type != p->gid_type)
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_INVAL,
				 xstrdup("both hosts must use GIDs of the same RoCE version: pick them with --gid-index "
					 "('ibscan local' lists them)"),
				 "this host uses a %s GID (index %d) and the peer %s a %s GID (index %u)",
				 type_or_unknown(p->gid_type), p->gid_index, peer,
				 type_or_unknown((enum ibs_gid_type)h->gid_type), h->gid_index);
	if (p->info.link_layer == IBS_LL_ETH && (!h->gid_type || !p->gid_type))
		log_warn("the RoCE version of %s GID (index %d) is unknown (rdma-core before 32, and no sysfs "
			 "gid_attrs): a RoCE v1 GID at one end and v2 at the other would end in RETRY_EXC_ERR",
			 !p->gid_type ? "this host's" : "the peer's", !p->gid_type ? p->gid_index : (int)h->gid_index);
	if (!p->use_grh && (h->lid == 0 || h->lid >= 0xc000))
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_INVAL,
				 xstrdup("a subnet manager must assign LIDs (is opensm running?); 'ibscan local' "
					 "shows the LID and SM LID"),
				 "the peer %s has no unicast LID (0x%x)", peer, h->lid);
	/* The subnet prefix is GID 0's first half: another one is behind a router, which the peer's LID is not. */
	if (p->info.link_layer == IBS_LL_IB && !p->o.dlid && !ibs_gid_is_zero(h->gid) && !ibs_gid_is_zero(p->gid) &&
	    memcmp(p->gid, h->gid, 8)) {
		ibs_gid_str(p->gid, mine, sizeof(mine));
		ibs_gid_str(h->gid, theirs, sizeof(theirs));
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_INVAL,
				 xstrdup("packets to another subnet go to a router's LID: name it with --dlid on this "
					 "host (and the peer's router's on the peer), as perftest's --dlid"),
				 "the peer %s is in another InfiniBand subnet (its GID %s, this port's %s): its LID %u "
				 "means nothing here",
				 peer, theirs, mine, h->lid);
	}
	if (ibs_gid_is_zero(h->gid) && p->use_grh)
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_INVAL, NULL, "the peer %s sent an empty GID", peer);
	if (h->op == IBS_OP_ATOMIC && (h->addr & 7))
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_MALFORMED, NULL,
				 "the peer %s exposes a buffer at 0x%" PRIx64 ", not 8-byte aligned for atomics", peer, h->addr);
	return IBS_OK;
}

/* One of --sl and --tclass for the listener: its own value if given, else the client's. */
static bool qos_pick(const char *opt, unsigned mine, bool mine_set, unsigned theirs, bool theirs_set, unsigned *use,
		     bool *use_set, char **why)
{
	if (mine_set && theirs_set && mine != theirs) {
		*why = xasprintf("the client asks for --%s %u and this listener was started with --%s %u: give both "
				 "hosts the same, or leave it out on one (it then takes the other's)",
				 opt, theirs, opt, mine);
		return false;
	}
	*use = mine_set ? mine : theirs;
	*use_set = mine_set || theirs_set;
	return true;
}

enum ibs_err ping_qos_listener(const struct ibs_ping *p, struct ping_run *r, const struct ibs_oob_hello *h,
			       char **why)
{
	if (!qos_pick("sl", p->o.sl, p->o.sl_set, h->sl, h->sl_set, &r->sl, &r->sl_set, why) ||
	    !qos_pick("tclass", p->o.tclass, p->o.tclass_set, h->tclass, h->tclass_set, &r->tclass, &r->tclass_set,
		      why))
		return IBS_E_INVAL;
	if (h->sl_set && !p->o.sl_set && h->sl != p->o.sl)
		log_info("the client's --sl %u: this listener answers in it too", h->sl);
	if (h->tclass_set && !p->o.tclass_set && h->tclass != p->o.tclass)
		log_info("the client's --tclass %u: this listener answers in it too", h->tclass);
	return IBS_OK;
}

enum ibs_err ping_qos_client(struct ibs_ping *p, struct ping_run *r, const struct ibs_oob_hello *h, const char *peer)
{
	/* A listener answers with the client's values when the client gave them: another is a broken peer. */
	if ((p->o.sl_set && h->sl != p->o.sl) || (p->o.tclass_set && h->tclass != p->o.tclass))
		return ping_fail(p, IBS_STEP_EXCHANGE, IBS_E_MALFORMED, NULL,
				 "the listener %s answered with --sl %u --tclass %u, not this client's --sl %u --tclass %u",
				 peer, h->sl, h->tclass, p->o.sl, p->o.tclass);
	if (!p->o.sl_set)
		r->sl = h->sl;
	if (!p->o.tclass_set)
		r->tclass = h->tclass;
	r->sl_set = p->o.sl_set || h->sl_set;
	r->tclass_set = p->o.tclass_set || h->tclass_set;
	return IBS_OK;
}

/* RTR with the peer's address, then RTS. */
enum ibs_err ping_connect_qp(struct ibs_ping *p, struct ping_run *r, const struct ibs_oob_hello *h)
{
	struct ibs_qp_conn c;
	char gid[64];
	int e;

	memset(&c, 0, sizeof(c));
	c.port = p->info.port;
	c.remote_qpn = h->qpn;
	c.remote_psn = h->psn;
	c.local_psn = r->psn;
	c.remote_lid = p->o.dlid ? (uint16_t)p->o.dlid : h->lid;
	c.use_grh = p->use_grh;
	c.sl = (uint8_t)r->sl;
	c.traffic_class = (uint8_t)r->tclass;
	memcpy(c.remote_gid, h->gid, 16);
	c.sgid_index = p->gid_index > 0 ? (unsigned)p->gid_index : 0;
	c.hop_limit = 64;
	r->mtu = p->info.active_mtu < h->mtu ? p->info.active_mtu : h->mtu;
	if (r->mtu < 1 || r->mtu > 5)
		r->mtu = 1;
	c.mtu = r->mtu;
	c.max_dest_rd_atomic = r->rd_resp;
	c.max_rd_atomic = ping_cap(ping_cap(MAX_RD_DEPTH, p->info.max_init_rd_atom), h->rd_atomic ? h->rd_atomic : 1);
	c.min_rnr_timer = 12; /* 0.64 ms */
	c.timeout = ACK_TIMEOUT;
	c.retry_cnt = RETRY_CNT;
	c.rnr_retry = 7; /* 7: retry forever on receiver-not-ready; our own deadlines end a run */
	e = p->ops->modify_qp(r->qp, IBS_QPS_RTR, &c);
	if (e) {
		ibs_gid_str(h->gid, gid, sizeof(gid));
		if (p->use_grh)
			return ping_fail(p, IBS_STEP_RTR, IBS_E_TRANSPORT,
					 xasprintf("on RoCE try --gid-index N (ibscan local lists them; this host uses "
						   "index %d)",
						   p->gid_index),
					 "RTR failed: remote GID %s unreachable from GID index %d (%s)", gid, p->gid_index,
					 strerror(e));
		return ping_fail(p, IBS_STEP_RTR, IBS_E_TRANSPORT,
				 xstrdup("check that both ports are Active with a LID ('ibscan local'), or route by GID "
					 "with --gid-index 0"),
				 "RTR failed: remote LID %u, QPN 0x%x: %s", h->lid, h->qpn, strerror(e));
	}
	e = p->ops->modify_qp(r->qp, IBS_QPS_RTS, &c);
	if (e)
		return ping_fail(p, IBS_STEP_RTS, IBS_E_TRANSPORT, NULL, "RTS failed: %s", strerror(e));
	return IBS_OK;
}
