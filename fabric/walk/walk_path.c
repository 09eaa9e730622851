/*
 * The ways into each node the walker knows: the directed route that first
 * reached it, others through other nodes one level up or a parallel cable,
 * which a query tries in turn when an attempt fails (see
 * fabric/walk/walk.c), and its LID, once no other node claims it and a
 * LID-routed NodeInfo confirmed it (walk_lid.c); and the nodes an attempt
 * passes, for the engine's per-node cap.
 */
#include "walk_int.h"
#include "smp_route.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <string.h>

struct uplinks *walk_uplinks(struct walker *w, const struct ibs_node *n)
{
	while (n->index >= w->n_up) {
		w->up = xgrow(w->up, &w->cap_up, w->n_up + 1, sizeof(*w->up));
		memset(&w->up[w->n_up], 0, sizeof(*w->up));
		w->up[w->n_up++].parent = NO_NODE;
	}
	return &w->up[n->index];
}

static struct ibs_node *node_at(const struct walker *w, uint32_t index)
{
	return w->f->nodes[index];
}

/*
 * A cable from from:port into n's port k, learnt from either end. When from
 * is one level above n it is another way into n, as short as the first: kept
 * for the queries that fail. A CA answers about the port a query enters by,
 * so only cables into that same port will do for it.
 */
void walk_add_uplink(struct walker *w, struct ibs_node *n, uint8_t k, struct ibs_node *from, uint8_t port)
{
	struct uplinks *u;
	unsigned i;

	if (from->path.hops + 1 != n->path.hops || (n->ni.node_type != IBS_NODE_SWITCH && k != n->entry_port))
		return;
	u = walk_uplinks(w, n);
	if (from->index == u->parent && port == n->path.path[n->path.hops])
		return; /* the cable that first reached n */
	if (from->index == u->parent) {
		if (!u->parallel)
			u->parallel = port;
		return;
	}
	for (i = 0; i < u->n_via; i++)
		if (u->via[i] == from->index)
			return;
	if (u->n_via < MAX_VIAS) {
		u->via[u->n_via] = (uint32_t)from->index;
		u->via_port[u->n_via++] = port;
	}
}

/*
 * How many paths lead into n, at most MAX_PATHS: the first, then through
 * other parents, then a parallel cable, then the first parent's other paths
 * followed by the same last cable (a host has one cable, its leaf many paths).
 */
static unsigned node_paths(struct walker *w, const struct ibs_node *n)
{
	const struct uplinks *u;
	unsigned k;

	if (n->index >= w->n_up)
		return 1;
	u = &w->up[n->index];
	k = 1 + u->n_via + (u->parallel != 0);
	if (u->parent != NO_NODE && k < MAX_PATHS)
		k += node_paths(w, node_at(w, u->parent)) - 1;
	return k < MAX_PATHS ? k : MAX_PATHS;
}

/* Path i into n (i < node_paths(n)), in the order node_paths() counts them. */
static void node_path(struct walker *w, const struct ibs_node *n, unsigned i, struct ibs_addr *out)
{
	const struct uplinks *u;
	unsigned own;

	if (i == 0) {
		*out = n->path;
		return;
	}
	u = &w->up[n->index];
	own = u->n_via + (u->parallel != 0);
	if (i <= u->n_via)
		ibs_addr_dr_extend(out, &node_at(w, u->via[i - 1])->path, u->via_port[i - 1]);
	else if (i <= own)
		ibs_addr_dr_extend(out, &node_at(w, u->parent)->path, u->parallel);
	else {
		node_path(w, node_at(w, u->parent), i - own, out);
		ibs_addr_dr_extend(out, out, n->path.path[n->path.hops]);
	}
}

static unsigned query_paths(struct qctx *c)
{
	unsigned n;

	if (c->is_fixed)
		return 1;
	n = node_paths(c->w, c->base);
	return n < MAX_PATHS ? n : MAX_PATHS;
}

/* Directed-route path i of a query. */
static bool query_dr_path(struct qctx *c, unsigned i, struct ibs_addr *out)
{
	if (i && i >= query_paths(c)) /* every query has path 0: no need to count */
		return false;
	if (c->is_fixed) {
		*out = *c->fixed;
		return true;
	}
	node_path(c->w, c->base, i, out);
	/* One hop longer than a path as long as the base's own: within the limit, as that one is. */
	if (c->ext)
		ibs_addr_dr_extend(out, out, c->ext);
	return true;
}

/*
 * Path i of a query, for the engine's retries (ibs_path_fn): a LID-routed
 * query has its LID first, then the directed routes, so that a LID that
 * does not answer falls back to them.
 */
bool walk_query_path(void *ctx, unsigned i, struct ibs_addr *out)
{
	struct qctx *c = ctx;

	if (!c->lid)
		return query_dr_path(c, i, out);
	if (i == 0) {
		ibs_addr_lid(out, c->lid, 0);
		return true;
	}
	return query_dr_path(c, i - 1, out);
}

void walk_query_canon(struct qctx *c, struct ibs_addr *out)
{
	query_dr_path(c, 0, out);
}

void walk_lid_claim(struct walker *w, const struct ibs_node *n, const struct ibs_port *p)
{
	unsigned l, span;
	uint32_t me = (uint32_t)n->index + 1;

	if (!w->lid_owner || !p->pi.lid || (n->ni.node_type == IBS_NODE_SWITCH && p->num != 0))
		return;
	span = 1u << (p->pi.lmc & 7);
	for (l = p->pi.lid; l < (unsigned)p->pi.lid + span && l < IBS_LID_UNICAST_END; l++) {
		if (!w->lid_owner[l])
			w->lid_owner[l] = me;
		else if (w->lid_owner[l] != me && w->lid_owner[l] != LID_DUP) {
			log_info("LID %u is claimed by two nodes: both are read by directed route", l);
			w->lid_owner[l] = LID_DUP;
		}
	}
}

uint16_t walk_node_lid(struct walker *w, const struct ibs_node *n)
{
	const struct ibs_port *p;

	if (!w->lid_route || !n->path.hops)
		return 0;
	if (w->lid_bad >= 8 && !w->lid_good)
		return 0; /* LIDs do not answer here: directed routes only */
	if (n->ni.node_type != IBS_NODE_SWITCH)
		return 0; /* CAs and routers by directed route: see the top of walk_lid.c */
	p = &n->ports[0];
	if (!p->valid || !ibs_portinfo_active(&p->pi) || !p->pi.lid || p->pi.lid >= IBS_LID_UNICAST_END)
		return 0;
	if (w->lid_owner && w->lid_owner[p->pi.lid] != (uint32_t)n->index + 1)
		return 0; /* another node claims it too */
	return p->pi.lid;
}

/*
 * A node can be asked by LID once the subnet manager has given it one and
 * routes to it: the local port is Active with an SM, and the node is a
 * switch whose port 0 is read, Active, with a LID. Only queries about the
 * node itself (not through one of its ports), and not the local node (no
 * switch serves those anyway). CAs go by directed route (walk_lid.c).
 */
uint16_t walk_lid_for(const struct qctx *c)
{
	struct walker *w = c->w;
	const struct ibs_node *n = c->node;

	if (!w->lid_route || c->is_fixed || c->ext || !n || c->base != n || !n->path.hops)
		return 0;
	/* Only once a LID-routed NodeInfo said this LID leads to this node (walk_lid.c). */
	if (n->index >= w->n_up || w->up[n->index].lid_state != LID_CONFIRMED)
		return 0;
	return walk_node_lid(w, n);
}

/*
 * The nodes an attempt is served by (ibs_smp_route): by LID the node asked,
 * by directed route every switch on its path and its destination. A path's
 * last hop into a node not known yet counts nowhere: every such path starts
 * at the switch next to the local node, which counts it.
 */
unsigned walk_route(void *ctx, const struct ibs_addr *a, uint32_t *keys, unsigned max)
{
	const struct qctx *c = ctx;

	return ibs_smp_route(c->node, c->w->root, a, keys, max);
}
