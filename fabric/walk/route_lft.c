/* Reading the switches' linear forwarding tables (IBA 14.2.5.10): all of them, or one block. */
#include "route.h"
#include "route_int.h"
#include "smp_route.h"
#include "../model/names.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

void ibs_route_on_one(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct ibs_route_one *o = ctx;

	(void)req;
	o->done = true;
	o->outcome = r->outcome;
	o->status = r->status;
	o->len = r->mad && r->len <= sizeof(o->mad) ? r->len : 0;
	if (o->len)
		memcpy(o->mad, r->mad, o->len);
}

/*
 * The LID a switch's forwarding table is read at, or 0 for its directed
 * route: as the walk does, LID-routed (only the switch itself handles the
 * SMP) once the local port is Active under a subnet manager and the
 * switch's port 0 has an Active unicast LID that no other node claims
 * (own: lid_claims). A table carries no GUID: by a LID two nodes hold, it
 * would be whichever switch the forwarding tables lead to, so such a
 * switch is read by directed route, as the walk reads it. A read that
 * fails by LID is asked again by directed route (a capture recorded with
 * directed routes only still replays).
 */
uint16_t ibs_lft_lid(const struct ibs_fabric *f, const uint32_t *own, const struct ibs_node *sw)
{
	const struct ibs_port *p0 = ibs_node_port(sw, 0);

	if (f->local.state != IBS_PORT_ACTIVE || !f->local.sm_lid || !p0 || !p0->valid || !ibs_portinfo_active(&p0->pi) ||
	    !p0->pi.lid || p0->pi.lid >= IBS_LID_UNICAST_END)
		return 0;
	if (own[p0->pi.lid] != (uint32_t)sw->index + 1) {
		log_info("LID %u is claimed by another node too: the forwarding table of %s is read by directed route",
			 p0->pi.lid, ibs_node_name(sw));
		return 0;
	}
	return p0->pi.lid;
}

/* A table read of sw (attribute attr, modifier mod): at lid, else along sw's directed route. */
void ibs_tbl_req(struct ibs_mad_req *req, const struct ibs_node *sw, uint16_t lid, uint16_t attr, uint32_t mod)
{
	struct ibs_addr a;

	if (lid) {
		ibs_addr_lid(&a, lid, 0);
		ibs_req_get(req, &a, IBS_CLASS_SMI, attr, mod);
	} else {
		ibs_req_get(req, &sw->path, IBS_CLASS_SMI_DR, attr, mod);
	}
}

/* An LFT read of block b of sw. */
static void lft_req(struct ibs_mad_req *req, const struct ibs_node *sw, uint16_t lid, unsigned b)
{
	ibs_tbl_req(req, sw, lid, IBS_ATTR_LFT, b);
}

/* One LFT block of a switch, synchronously: by LID, then by directed route if that fails. */
enum ibs_err ibs_lft_block(struct ibs_engine *e, const struct ibs_fabric *f, const uint32_t *own,
			      const struct ibs_node *sw, unsigned block, uint8_t ports[64], enum ibs_outcome *oc)
{
	uint16_t lid = ibs_lft_lid(f, own, sw);
	struct ibs_mad_req req;
	struct ibs_route_one o;
	enum ibs_err rc;

	for (;;) {
		memset(&o, 0, sizeof(o));
		lft_req(&req, sw, lid, block);
		ibs_engine_submit(e, &req, ibs_route_on_one, &o);
		rc = ibs_engine_run(e);
		*oc = o.outcome;
		if (rc)
			return rc;
		if (o.outcome == IBS_MAD_OK && ibs_decode_lft_block(o.mad, o.len, ports) == IBS_OK)
			return IBS_OK;
		if (!lid)
			return IBS_E_TIMEOUT;
		log_debug("%s: LFT block %u by LID %u: %s; by directed route", ibs_node_name(sw), block, lid,
			  ibs_outcome_str(o.outcome));
		lid = 0;
	}
}

/*
 * One switch's table being read: its blocks are submitted a few at a time,
 * the next when one is answered, so that what waits in the engine is bounded
 * by the switches (LFT_QUEUED each), not by every block of every switch (on a
 * 27,000-node tree some 800,000 requests, 200 MB, queued at once).
 */
struct lsw {
	struct ibs_lft *l;
	const struct ibs_node *root; /* the local node, where every directed route starts */
	struct ibs_engine *e;        /* to ask again by directed route, and the next block */
	uint16_t lid;                /* 0: by directed route */
	unsigned next, blocks;       /* the next block to submit; how many there are */
};

struct lctx {
	struct lsw *sw;
	unsigned block;
};

/* Blocks queued per switch at least: more than the per-switch cap lets in flight. */
#define LFT_QUEUED 8
/* Blocks queued in all at least (when the switches are few), the engine's largest window. */
#define LFT_QUEUED_ALL IBS_ENGINE_MAX_WINDOW

/* The switches an LFT read is handled by, for the engine's per-node cap (ibs_route_fn). */
static unsigned lft_route(void *ctx, const struct ibs_addr *a, uint32_t *keys, unsigned max)
{
	const struct lctx *c = ctx;

	return ibs_smp_route(c->sw->l->node, c->sw->root, a, keys, max);
}

/* A table read by LID that failed is asked again along sw's directed route (cb, ctx as before): whether it was. */
bool ibs_again_by_dr(struct ibs_engine *e, const struct ibs_mad_req *req, const struct ibs_mad_result *r,
			const struct ibs_node *sw, ibs_mad_cb cb, void *ctx)
{
	struct ibs_mad_req dr;

	if (!req->addr.lid || r->outcome == IBS_MAD_ABORTED)
		return false;
	if (req->attr_id == IBS_ATTR_LFT)
		log_debug("%s: LFT block %u by LID %u: %s; by directed route", ibs_node_name(sw), req->attr_mod,
			  req->addr.lid, ibs_outcome_str(r->outcome));
	else
		log_debug("%s: SL2VL in %u out %u by LID %u: %s; by directed route", ibs_node_name(sw),
			  req->attr_mod >> 8 & 0xff, req->attr_mod & 0xff, req->addr.lid, ibs_outcome_str(r->outcome));
	ibs_tbl_req(&dr, sw, 0, req->attr_id, req->attr_mod);
	ibs_engine_submit(e, &dr, cb, ctx);
	return true;
}

static void on_lft(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);

/* Submit the switch's next block, if one is left. */
static void lft_next(struct lsw *sw)
{
	struct lctx *c;
	struct ibs_mad_req req;

	if (sw->next >= sw->blocks)
		return;
	c = xmalloc(sizeof(*c));
	c->sw = sw;
	c->block = sw->next++;
	lft_req(&req, sw->l->node, sw->lid, c->block);
	ibs_engine_submit(sw->e, &req, on_lft, c);
}

static void on_lft(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct lctx *c = ctx;
	struct lsw *sw = c->sw;
	struct ibs_lft *l = sw->l;
	uint8_t ports[64];

	if (r->outcome == IBS_MAD_OK && ibs_decode_lft_block(r->mad, r->len, ports) == IBS_OK) {
		size_t base = (size_t)c->block * 64, k;
		for (k = 0; k < 64 && base + k < l->n; k++)
			l->ports[base + k] = ports[k];
	} else if (ibs_again_by_dr(sw->e, req, r, l->node, on_lft, c)) {
		return;
	} else {
		l->ok = false;
		if (r->outcome == IBS_MAD_ABORTED)
			sw->next = sw->blocks; /* the run is over (its deadline): ask nothing more */
	}
	free(c);
	lft_next(sw);
}

enum ibs_err ibs_read_lfts(struct ibs_engine *e, const struct ibs_fabric *f, struct ibs_lft **out, size_t *n)
{
	struct ibs_lft *v;
	struct lsw *sws;
	const struct ibs_node *root = NULL;
	size_t nv = 0, i;
	unsigned depth, b;
	enum ibs_err rc;
	uint32_t *own = ibs_fabric_lid_owners(f);

	/* Sized once: the requests in flight point into v and sws. */
	for (i = 0; i < f->n_nodes; i++) {
		nv += f->nodes[i]->ni.node_type == IBS_NODE_SWITCH && f->nodes[i]->has_si;
		if (!f->nodes[i]->path.hops && !f->nodes[i]->path.lid)
			root = f->nodes[i];
	}
	v = xcalloc(nv ? nv : 1, sizeof(*v));
	sws = xcalloc(nv ? nv : 1, sizeof(*sws));
	depth = nv && nv * LFT_QUEUED < LFT_QUEUED_ALL ? (unsigned)((LFT_QUEUED_ALL + nv - 1) / nv) : LFT_QUEUED;
	nv = 0;
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *s = f->nodes[i];
		struct ibs_lft *l;
		if (s->ni.node_type != IBS_NODE_SWITCH || !s->has_si)
			continue;
		l = &v[nv];
		l->node = s;
		l->ok = true;
		/* LinearFDBTop is the highest LID with an entry (IBA 14.2.5.4). */
		l->n = (size_t)s->si.lft_top + 1;
		if (l->n > s->si.lft_cap && s->si.lft_cap)
			l->n = s->si.lft_cap;
		l->ports = xmalloc(l->n);
		memset(l->ports, 0xff, l->n);
		sws[nv].l = l;
		sws[nv].root = root;
		sws[nv].e = e;
		sws[nv].blocks = (unsigned)((l->n + 63) / 64);
		sws[nv].lid = ibs_lft_lid(f, own, s); /* once a switch: it says why when it is 0 */
		nv++;
	}
	free(own);
	/* The first blocks of every switch, then of the next round: switches interleave as before. */
	for (b = 0; b < depth; b++)
		for (i = 0; i < nv; i++)
			lft_next(&sws[i]);
	*out = v;
	*n = nv;
	/* Every block of a switch at once would land on it and on each switch on its path: the cap applies. */
	ibs_engine_set_route(e, lft_route);
	rc = ibs_engine_run(e);
	ibs_engine_set_route(e, NULL);
	free(sws);
	return rc;
}

void ibs_lfts_free(struct ibs_lft *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].ports);
	free(v);
}

/* The node every directed route starts at (the local one). */
const struct ibs_node *ibs_dr_root(const struct ibs_fabric *f)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (!f->nodes[i]->path.hops && !f->nodes[i]->path.lid)
			return f->nodes[i];
	return NULL;
}
