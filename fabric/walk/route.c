/* Route tracing through linear forwarding tables (IBA 18.2.4.3.2) and PathRecord queries (IBA 15.2.5.16). */
#include "route.h"
#include "../model/names.h"
#include "../../core/base/log.h"
#include "../../core/base/text.h"
#include "../../core/base/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HOPS 64

const char *ibs_route_result_str(enum ibs_route_result r)
{
	switch (r) {
	case IBS_ROUTE_OK:
		return "ok";
	case IBS_ROUTE_HOLE:
		return "hole";
	case IBS_ROUTE_LOOP:
		return "loop";
	case IBS_ROUTE_DEAD_END:
		return "dead-end";
	case IBS_ROUTE_WRONG:
		return "misrouted";
	case IBS_ROUTE_UNREAD:
		return "unread";
	}
	return "unknown";
}

struct one {
	bool done;
	enum ibs_outcome outcome;
	uint16_t status;
	uint8_t mad[IBS_MAD_SIZE];
	size_t len;
};

static void on_one(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct one *o = ctx;

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
static uint16_t lft_lid(const struct ibs_fabric *f, const uint32_t *own, const struct ibs_node *sw)
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
static void tbl_req(struct ibs_mad_req *req, const struct ibs_node *sw, uint16_t lid, uint16_t attr, uint32_t mod)
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
	tbl_req(req, sw, lid, IBS_ATTR_LFT, b);
}

/* One LFT block of a switch, synchronously: by LID, then by directed route if that fails. */
static enum ibs_err lft_block(struct ibs_engine *e, const struct ibs_fabric *f, const uint32_t *own,
			      const struct ibs_node *sw, unsigned block, uint8_t ports[64], enum ibs_outcome *oc)
{
	uint16_t lid = lft_lid(f, own, sw);
	struct ibs_mad_req req;
	struct one o;
	enum ibs_err rc;

	for (;;) {
		memset(&o, 0, sizeof(o));
		lft_req(&req, sw, lid, block);
		ibs_engine_submit(e, &req, on_one, &o);
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

static void set_why(struct ibs_route *r, enum ibs_route_result res, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_why(struct ibs_route *r, enum ibs_route_result res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r->why = xvasprintf(fmt, ap);
	va_end(ap);
	r->result = res;
}

static bool owns_lid(const struct ibs_port *p, uint16_t lid)
{
	return p && p->valid && p->pi.lid && lid >= p->pi.lid && lid < p->pi.lid + (1u << (p->pi.lmc & 7));
}

static enum ibs_err trace(struct ibs_engine *e, const struct ibs_fabric *f, const uint32_t *own,
			  const struct ibs_node *src, uint8_t src_port, uint16_t dlid, struct ibs_route *r)
{
	const struct ibs_node *cur;
	uint8_t in_port = 0;
	size_t cap = 0;
	struct ibs_node *dnode = NULL;
	struct ibs_port *dport;

	memset(r, 0, sizeof(*r));
	r->src = src;
	r->src_port = src_port;
	r->dlid = dlid;
	dport = ibs_fabric_find_lid(f, dlid, &dnode);
	if (dport) {
		r->dst = dnode;
		r->dst_port = dport->num;
	}
	if (src->ni.node_type != IBS_NODE_SWITCH) {
		const struct ibs_port *sp = ibs_node_port(src, src_port);
		if (owns_lid(sp, dlid))
			return IBS_OK; /* to itself */
		if (!sp || !sp->peer) {
			set_why(r, IBS_ROUTE_DEAD_END, "%s port %u has no cable", ibs_node_name(src), src_port);
			return IBS_OK;
		}
		cur = sp->peer;
		in_port = sp->peer_port;
	} else {
		cur = src;
	}
	for (;;) {
		uint8_t ports[64], out;
		enum ibs_outcome oc;
		size_t i;
		enum ibs_err rc;
		const struct ibs_port *op;

		if (cur->ni.node_type != IBS_NODE_SWITCH) {
			const struct ibs_port *pt;
			for (pt = ibs_node_ports_from(cur, 1); pt < ibs_node_ports_end(cur); pt++)
				if (owns_lid(pt, dlid))
					return IBS_OK;
			set_why(r, IBS_ROUTE_WRONG, "arrived at %s, which does not own LID %u", ibs_node_name(cur), dlid);
			return IBS_OK;
		}
		for (i = 0; i < r->n_hops; i++)
			if (r->hops[i].node == cur) {
				set_why(r, IBS_ROUTE_LOOP, "%s comes up twice: the forwarding tables loop", ibs_node_name(cur));
				return IBS_OK;
			}
		if (r->n_hops >= MAX_HOPS) {
			set_why(r, IBS_ROUTE_LOOP, "more than %d switches on the way", MAX_HOPS);
			return IBS_OK;
		}
		if (owns_lid(ibs_node_port(cur, 0), dlid)) {
			r->hops = xgrow(r->hops, &cap, r->n_hops + 1, sizeof(*r->hops));
			r->hops[r->n_hops].node = cur;
			r->hops[r->n_hops].in_port = in_port;
			r->hops[r->n_hops].out_port = 0;
			r->n_hops++;
			return IBS_OK;
		}
		rc = lft_block(e, f, own, cur, dlid / 64, ports, &oc);
		if (rc == IBS_E_DEADLINE || rc == IBS_E_TRANSPORT)
			return rc;
		if (rc) {
			set_why(r, IBS_ROUTE_UNREAD, "the forwarding table of %s could not be read (%s)", ibs_node_name(cur),
				ibs_outcome_str(oc));
			return IBS_OK;
		}
		out = ports[dlid % 64];
		r->hops = xgrow(r->hops, &cap, r->n_hops + 1, sizeof(*r->hops));
		r->hops[r->n_hops].node = cur;
		r->hops[r->n_hops].in_port = in_port;
		r->hops[r->n_hops].out_port = out;
		r->n_hops++;
		if (out == 0xff || out > cur->ni.num_ports) {
			set_why(r, IBS_ROUTE_HOLE, "%s has no route to LID %u (forwarding table entry %u)",
				ibs_node_name(cur), dlid, out);
			return IBS_OK;
		}
		if (out == 0) {
			set_why(r, IBS_ROUTE_WRONG, "%s forwards LID %u to itself (port 0)", ibs_node_name(cur), dlid);
			return IBS_OK;
		}
		op = ibs_node_port(cur, out);
		if (!op || !op->peer) {
			set_why(r, IBS_ROUTE_DEAD_END, "%s forwards LID %u to port %u, which has no cable (%s)",
				ibs_node_name(cur), dlid, out,
				op && op->valid ? ibs_phys_state_str(op->pi.phys_state) : "unread");
			return IBS_OK;
		}
		in_port = op->peer_port;
		cur = op->peer;
	}
}

enum ibs_err ibs_route_trace(struct ibs_engine *e, const struct ibs_fabric *f, const struct ibs_node *src,
			     uint8_t src_port, uint16_t dlid, struct ibs_route *r)
{
	uint32_t *own = ibs_fabric_lid_owners(f);
	enum ibs_err rc = trace(e, f, own, src, src_port, dlid, r);

	free(own);
	return rc;
}

void ibs_route_free(struct ibs_route *r)
{
	free(r->hops);
	free(r->why);
	memset(r, 0, sizeof(*r));
}

struct lctx {
	struct ibs_lft *l;
	unsigned block;
	const struct ibs_node *root; /* the local node, where every directed route starts */
	struct ibs_engine *e;        /* to ask again by directed route */
};

/* The switches a table read of sw is handled by: sw alone by LID, each switch on the way by directed route. */
static unsigned tbl_route(const struct ibs_node *sw, const struct ibs_node *root, const struct ibs_addr *a,
			  uint32_t *keys, unsigned max)
{
	if (a->lid) {
		if (!max)
			return 0;
		keys[0] = (uint32_t)sw->index;
		return 1;
	}
	return ibs_fabric_dr_route(root, a, keys, max);
}

/* The switches an LFT read is handled by, for the engine's per-node cap (ibs_route_fn). */
static unsigned lft_route(void *ctx, const struct ibs_addr *a, uint32_t *keys, unsigned max)
{
	const struct lctx *c = ctx;

	return tbl_route(c->l->node, c->root, a, keys, max);
}

/* A table read by LID that failed is asked again along sw's directed route (cb, ctx as before): whether it was. */
static bool again_by_dr(struct ibs_engine *e, const struct ibs_mad_req *req, const struct ibs_mad_result *r,
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
	tbl_req(&dr, sw, 0, req->attr_id, req->attr_mod);
	ibs_engine_submit(e, &dr, cb, ctx);
	return true;
}

static void on_lft(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct lctx *c = ctx;
	uint8_t ports[64];

	if (r->outcome == IBS_MAD_OK && ibs_decode_lft_block(r->mad, r->len, ports) == IBS_OK) {
		size_t base = (size_t)c->block * 64, k;
		for (k = 0; k < 64 && base + k < c->l->n; k++)
			c->l->ports[base + k] = ports[k];
	} else if (again_by_dr(c->e, req, r, c->l->node, on_lft, c)) {
		return;
	} else {
		c->l->ok = false;
	}
	free(c);
}

enum ibs_err ibs_read_lfts(struct ibs_engine *e, const struct ibs_fabric *f, struct ibs_lft **out, size_t *n)
{
	struct ibs_lft *v;
	const struct ibs_node *root = NULL;
	size_t nv = 0, i;
	enum ibs_err rc;
	uint32_t *own = ibs_fabric_lid_owners(f);

	/* Sized once: the requests in flight point into v. */
	for (i = 0; i < f->n_nodes; i++) {
		nv += f->nodes[i]->ni.node_type == IBS_NODE_SWITCH && f->nodes[i]->has_si;
		if (!f->nodes[i]->path.hops && !f->nodes[i]->path.lid)
			root = f->nodes[i];
	}
	v = xcalloc(nv ? nv : 1, sizeof(*v));
	nv = 0;
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *s = f->nodes[i];
		struct ibs_lft *l;
		unsigned b, blocks;
		uint16_t lid;
		if (s->ni.node_type != IBS_NODE_SWITCH || !s->has_si)
			continue;
		l = &v[nv++];
		l->node = s;
		l->ok = true;
		/* LinearFDBTop is the highest LID with an entry (IBA 14.2.5.4). */
		l->n = (size_t)s->si.lft_top + 1;
		if (l->n > s->si.lft_cap && s->si.lft_cap)
			l->n = s->si.lft_cap;
		l->ports = xmalloc(l->n);
		memset(l->ports, 0xff, l->n);
		blocks = (unsigned)((l->n + 63) / 64);
		lid = lft_lid(f, own, s); /* once a switch: it says why when it is 0 */
		for (b = 0; b < blocks; b++) {
			struct lctx *c = xmalloc(sizeof(*c));
			struct ibs_mad_req req;
			c->l = l;
			c->block = b;
			c->root = root;
			c->e = e;
			lft_req(&req, s, lid, b);
			ibs_engine_submit(e, &req, on_lft, c);
		}
	}
	free(own);
	*out = v;
	*n = nv;
	/* Every block of a switch at once would land on it and on each switch on its path: the cap applies. */
	ibs_engine_set_route(e, lft_route);
	rc = ibs_engine_run(e);
	ibs_engine_set_route(e, NULL);
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
static const struct ibs_node *dr_root(const struct ibs_fabric *f)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (!f->nodes[i]->path.hops && !f->nodes[i]->path.lid)
			return f->nodes[i];
	return NULL;
}

static bool sw_peer(const struct ibs_node *sw, unsigned port, const struct ibs_port **p)
{
	*p = port && port <= sw->ni.num_ports ? ibs_node_port(sw, port) : NULL;
	return *p && (*p)->peer && (*p)->peer->ni.node_type == IBS_NODE_SWITCH;
}

static void want_pair(struct ibs_sl2vl *v, unsigned in, unsigned out)
{
	size_t b = (size_t)in * v->np + out;

	if (!(v->want[b >> 6] & 1ull << (b & 63)))
		v->asked++;
	v->want[b >> 6] |= 1ull << (b & 63);
}

void ibs_sl2vl_pairs(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, uint8_t sl,
		     ibs_want_out_fn want_out, void *ctx, struct ibs_sl2vls *t)
{
	const struct ibs_lft **by = xcalloc(f->n_nodes + 1, sizeof(*by));
	struct ibs_sl2vl **slot = xcalloc(f->n_nodes + 1, sizeof(*slot));
	bool *owned = xcalloc(0xc000, sizeof(*owned));
	size_t i, k;

	memset(t, 0, sizeof(*t));
	t->sl = sl;
	for (i = 0; i < n; i++)
		if (lfts[i].node && lfts[i].node->index < f->n_nodes && f->nodes[lfts[i].node->index] == lfts[i].node)
			by[lfts[i].node->index] = &lfts[i];
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *nd = f->nodes[i];
		const struct ibs_port *p;
		t->n += nd->ni.node_type == IBS_NODE_SWITCH;
		for (p = nd->ports; p < ibs_node_ports_end(nd); p++) {
			unsigned l, span = 1u << (p->pi.lmc & 7);
			if (!p->valid || !p->pi.lid || (nd->ni.node_type == IBS_NODE_SWITCH) != (p->num == 0))
				continue;
			for (l = p->pi.lid; l < p->pi.lid + span && l < 0xc000; l++)
				owned[l] = true;
		}
	}
	t->v = xcalloc(t->n ? t->n : 1, sizeof(*t->v));
	for (i = 0, k = 0; i < f->n_nodes; i++) {
		struct ibs_sl2vl *v;
		if (f->nodes[i]->ni.node_type != IBS_NODE_SWITCH)
			continue;
		v = slot[i] = &t->v[k++];
		v->node = f->nodes[i];
		v->np = (unsigned)v->node->ni.num_ports + 1;
		v->vl = xmalloc((size_t)v->np * v->np);
		memset(v->vl, IBS_VL_UNREAD, (size_t)v->np * v->np);
		v->want = xcalloc(((size_t)v->np * v->np + 63) / 64, sizeof(*v->want));
	}
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_lft *l = by[i];
		struct ibs_sl2vl *v = slot[i];
		uint64_t outs[4] = { 0 }; /* out-ports to switches this table uses (ports are 1..254) */
		const struct ibs_port *p;
		size_t lid;
		if (!l || !v)
			continue;
		for (lid = 1; lid < l->n && lid < 0xc000; lid++) {
			const struct ibs_port *op, *np2;
			const struct ibs_lft *nl;
			uint8_t o = l->ports[lid], o2;
			if (!owned[lid] || !sw_peer(v->node, o, &op))
				continue;
			outs[o >> 6] |= 1ull << (o & 63);
			nl = by[op->peer->index];
			o2 = nl && lid < nl->n ? nl->ports[lid] : 0;
			if (nl && sw_peer(op->peer, o2, &np2) && (!want_out || want_out(ctx, op->peer, o2)))
				want_pair(slot[op->peer->index], op->peer_port, o2);
		}
		/* Routes from the CAs cabled here leave by any of those. */
		for (p = ibs_node_ports_from(v->node, 1); p < ibs_node_ports_end(v->node); p++) {
			unsigned o;
			if (!p->peer || p->peer->ni.node_type == IBS_NODE_SWITCH)
				continue;
			for (o = 1; o < v->np && o < 256; o++)
				if (outs[o >> 6] & 1ull << (o & 63) && (!want_out || want_out(ctx, v->node, o)))
					want_pair(v, p->num, o);
		}
	}
	for (k = 0; k < t->n; k++)
		t->asked += t->v[k].asked;
	free(by);
	free(slot);
	free(owned);
}

struct vctx {
	struct ibs_sl2vls *t;
	struct ibs_sl2vl *v;
	uint8_t in, out;
	const struct ibs_node *root;
	struct ibs_engine *e;
};

static unsigned sl2vl_route(void *ctx, const struct ibs_addr *a, uint32_t *keys, unsigned max)
{
	const struct vctx *c = ctx;

	return tbl_route(c->v->node, c->root, a, keys, max);
}

static void on_sl2vl(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct vctx *c = ctx;
	uint8_t vl[16];

	if (r->outcome == IBS_MAD_OK && ibs_decode_sl2vl(r->mad, r->len, vl) == IBS_OK) {
		c->v->vl[(size_t)c->in * c->v->np + c->out] = vl[c->t->sl & 15];
		c->v->answered++;
		c->t->answered++;
	} else if (again_by_dr(c->e, req, r, c->v->node, on_sl2vl, c)) {
		return;
	}
	free(c);
}

enum ibs_err ibs_read_sl2vl(struct ibs_engine *e, const struct ibs_fabric *f, struct ibs_sl2vls *t)
{
	const struct ibs_node *root = dr_root(f);
	uint32_t *own = ibs_fabric_lid_owners(f);
	size_t k, b;
	enum ibs_err rc;

	for (k = 0; k < t->n; k++) {
		struct ibs_sl2vl *v = &t->v[k];
		uint16_t lid = lft_lid(f, own, v->node); /* a table carries no GUID either */
		size_t nb = (size_t)v->np * v->np;
		for (b = 0; b < nb; b++) {
			struct ibs_mad_req req;
			struct vctx *c;
			if (!(v->want[b >> 6] & 1ull << (b & 63)))
				continue;
			c = xmalloc(sizeof(*c));
			c->t = t;
			c->v = v;
			c->in = (uint8_t)(b / v->np);
			c->out = (uint8_t)(b % v->np);
			c->root = root;
			c->e = e;
			tbl_req(&req, v->node, lid, IBS_ATTR_SL2VL, ibs_sl2vl_mod(c->in, c->out));
			ibs_engine_submit(e, &req, on_sl2vl, c);
		}
	}
	free(own);
	ibs_engine_set_route(e, sl2vl_route);
	rc = ibs_engine_run(e);
	ibs_engine_set_route(e, NULL);
	return rc;
}

void ibs_sl2vls_free(struct ibs_sl2vls *t)
{
	size_t k;

	for (k = 0; k < t->n; k++) {
		free(t->v[k].vl);
		free(t->v[k].want);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

enum ibs_err ibs_query_path(struct ibs_engine *e, const struct ibs_fabric *f, uint16_t slid, uint16_t dlid,
			    struct ibs_path_record *out, enum ibs_outcome *outcome, uint16_t *status)
{
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint8_t data[IBS_SA_PR_SIZE];
	struct one o;
	enum ibs_err rc;

	memset(&o, 0, sizeof(o));
	ibs_addr_lid(&a, f->local.sm_lid, 1);
	a.sl = f->local.sm_sl; /* the SL the SM set for reaching it, as libibmad's sa_call uses */
	ibs_req_get(&req, &a, IBS_CLASS_SA, IBS_ATTR_SA_PATH_RECORD, 0);
	ibs_path_record_query(data, slid, dlid);
	req.data = data;
	req.data_len = sizeof(data);
	req.sa_mask = IBS_PR_COMPMASK_SLID | IBS_PR_COMPMASK_DLID | IBS_PR_COMPMASK_NUMBPATH;
	ibs_engine_submit(e, &req, on_one, &o);
	rc = ibs_engine_run(e);
	*outcome = o.outcome;
	*status = o.status;
	if (rc)
		return rc;
	if (o.outcome != IBS_MAD_OK)
		return o.outcome == IBS_MAD_STATUS ? IBS_E_STATUS : IBS_E_TIMEOUT;
	return ibs_decode_path_record(o.mad, o.len, out) == IBS_OK ? IBS_OK : IBS_E_MALFORMED;
}

/* The first port of a CA that has a LID (the port a name or node GUID means). */
static uint8_t first_lid_port(const struct ibs_node *n)
{
	const struct ibs_port *pt;

	if (n->ni.node_type == IBS_NODE_SWITCH)
		return 0;
	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++)
		if (pt->valid && pt->pi.lid)
			return pt->num;
	return 0;
}

enum ibs_err ibs_fabric_resolve(const struct ibs_fabric *f, const char *spec, const struct ibs_node **node,
				uint8_t *port, uint16_t *lid, char **msg)
{
	const struct ibs_node *hit = NULL;
	uint8_t hport = 0;
	size_t i, nhits = 0;
	char *end;
	bool is_guid = spec[0] == '0' && (spec[1] == 'x' || spec[1] == 'X');

	*node = NULL;
	if (!*spec) {
		*msg = xstrdup("an empty endpoint");
		return IBS_E_INVAL;
	}
	if (spec[0] >= '0' && spec[0] <= '9' && !is_guid) {
		unsigned long l = strtoul(spec, &end, 10);
		struct ibs_node *n;
		struct ibs_port *pt;
		if (*end || !l || l > 0xbfff) {
			*msg = xasprintf("'%s' is not a unicast LID (1-49151)", spec);
			return IBS_E_INVAL;
		}
		pt = ibs_fabric_find_lid(f, (uint16_t)l, &n);
		if (!pt) {
			*msg = xasprintf("no port has LID %lu", l);
			return IBS_E_NOTFOUND;
		}
		*node = n;
		*port = pt->num;
		*lid = (uint16_t)l;
		return IBS_OK;
	}
	if (is_guid) {
		uint64_t g;
		if (!ibs_guid_parse_all(spec, &g)) {
			*msg = xasprintf("'%s' is not a GUID (want " IBS_GUID_WANT ")", spec);
			return IBS_E_INVAL;
		}
		for (i = 0; i < f->n_nodes; i++) {
			const struct ibs_node *n = f->nodes[i];
			const struct ibs_port *pt;
			if (n->ni.node_guid == g) {
				nhits += hit != n;
				hit = n;
				hport = first_lid_port(n);
				continue;
			}
			for (pt = n->ports; pt < ibs_node_ports_end(n); pt++)
				if (pt->guid == g && (n->ni.node_type != IBS_NODE_SWITCH || pt->num == 0)) {
					nhits += hit != n;
					hit = n;
					hport = pt->num;
				}
		}
	} else {
		size_t sl = strlen(spec);
		for (i = 0; i < f->n_nodes; i++) {
			const struct ibs_node *n = f->nodes[i];
			const char *name = ibs_node_name(n);
			/* A name, or the host part of a description like "node0001 mlx5_0". */
			if (!strcmp(name, spec) || (!strncmp(name, spec, sl) && name[sl] == ' ')) {
				nhits++;
				hit = n;
				hport = first_lid_port(n);
			}
		}
	}
	if (!nhits) {
		*msg = xasprintf("no node or port matches '%s' (give a LID, a GUID or a node name)", spec);
		return IBS_E_NOTFOUND;
	}
	if (nhits > 1) {
		*msg = xasprintf("'%s' matches %zu nodes: give a LID or a port GUID", spec, nhits);
		return IBS_E_INVAL;
	}
	*node = hit;
	*port = hport;
	{
		const struct ibs_port *pt = ibs_node_port(hit, hport);
		*lid = pt && pt->valid ? pt->pi.lid : 0;
	}
	if (!*lid) {
		*msg = xasprintf("'%s' has no LID (is a subnet manager running?)", spec);
		return IBS_E_NOTFOUND;
	}
	return IBS_OK;
}
