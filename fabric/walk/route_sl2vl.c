/* Reading the switches' SLtoVLMappingTables (IBA 14.2.5.8) for the (in, out) pairs the routes use. */
#include "route.h"
#include "route_int.h"
#include "smp_route.h"
#include "../model/names.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

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

void ibs_sl2vl_pairs(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, ibs_want_out_fn want_out,
		     void *ctx, struct ibs_sl2vls *t)
{
	const struct ibs_lft **by = xcalloc(f->n_nodes + 1, sizeof(*by));
	struct ibs_sl2vl **slot = xcalloc(f->n_nodes + 1, sizeof(*slot));
	bool *owned = xcalloc(0xc000, sizeof(*owned));
	size_t i, k;

	memset(t, 0, sizeof(*t));
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
		v->vl = xmalloc((size_t)v->np * v->np * 16);
		memset(v->vl, IBS_VL_UNREAD, (size_t)v->np * v->np * 16);
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

	return ibs_smp_route(c->v->node, c->root, a, keys, max);
}

static void on_sl2vl(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct vctx *c = ctx;
	uint8_t vl[16];

	if (r->outcome == IBS_MAD_OK && ibs_decode_sl2vl(r->mad, r->len, vl) == IBS_OK) {
		memcpy(&c->v->vl[((size_t)c->in * c->v->np + c->out) * 16], vl, 16);
		c->v->answered++;
		c->t->answered++;
	} else if (ibs_again_by_dr(c->e, req, r, c->v->node, on_sl2vl, c)) {
		return;
	}
	free(c);
}

enum ibs_err ibs_read_sl2vl(struct ibs_engine *e, const struct ibs_fabric *f, struct ibs_sl2vls *t)
{
	const struct ibs_node *root = ibs_dr_root(f);
	uint32_t *own = ibs_fabric_lid_owners(f);
	size_t k, b;
	enum ibs_err rc;

	for (k = 0; k < t->n; k++) {
		struct ibs_sl2vl *v = &t->v[k];
		uint16_t lid = ibs_lft_lid(f, own, v->node); /* a table carries no GUID either */
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
			ibs_tbl_req(&req, v->node, lid, IBS_ATTR_SL2VL, ibs_sl2vl_mod(c->in, c->out));
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
