/*
 * Topology diff. Nodes are matched by NodeGUID (nodes sharing a GUID are
 * paired in order, preferring the same type and description); cables are
 * compared end by end, and a cable that left one port for another is
 * reported once as moved rather than as a removal plus an addition.
 */
#include "diff.h"
#include "names.h"
#include "rate.h"
#include "../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

const char *ibs_change_kind_str(enum ibs_change_kind k)
{
	switch (k) {
	case IBS_CHG_NODE_REMOVED:
		return "node_removed";
	case IBS_CHG_NODE_ADDED:
		return "node_added";
	case IBS_CHG_LINK_REMOVED:
		return "link_removed";
	case IBS_CHG_LINK_ADDED:
		return "link_added";
	case IBS_CHG_LINK_MOVED:
		return "link_moved";
	case IBS_CHG_STATE:
		return "state_changed";
	case IBS_CHG_WIDTH:
		return "width_changed";
	case IBS_CHG_SPEED:
		return "speed_changed";
	}
	return "unknown";
}

static struct ibs_change *add(struct ibs_diff *d, enum ibs_change_kind k, const struct ibs_node *n, uint8_t port)
{
	struct ibs_change *c;

	d->v = xgrow(d->v, &d->cap, d->n + 1, sizeof(*d->v));
	c = &d->v[d->n++];
	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->node = n;
	c->port = port;
	return c;
}

/* One cable end, in the other fabric's terms. */
struct end {
	const struct ibs_node *n;
	uint8_t p;
};

struct cable {
	struct end x, y; /* x is the end in "this" fabric; y its peer */
	bool used;
};

static size_t cables(const struct ibs_fabric *f, struct cable **out)
{
	struct ibs_link *l;
	size_t n = ibs_fabric_links(f, &l), i;
	struct cable *c = xcalloc(n ? n : 1, sizeof(*c));

	for (i = 0; i < n; i++) {
		c[i].x.n = l[i].a;
		c[i].x.p = l[i].pa;
		c[i].y.n = l[i].b;
		c[i].y.p = l[i].pb;
	}
	free(l);
	*out = c;
	return n;
}

/*
 * Every cable end of one fabric, sorted by (node, port) and then by cable:
 * the cables at a port are found by binary search, in the order of the
 * cable list.
 */
struct at {
	size_t node;
	unsigned port;
	size_t cable;
	int end; /* 0: the cable's x, 1: its y */
};

static int at_cmp(const void *a, const void *b)
{
	const struct at *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->cable != y->cable)
		return x->cable < y->cable ? -1 : 1;
	return x->end - y->end;
}

static struct at *ends_of(const struct cable *c, size_t n)
{
	struct at *v = xcalloc(2 * n + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++) {
		v[2 * i] = (struct at){ c[i].x.n->index, c[i].x.p, i, 0 };
		v[2 * i + 1] = (struct at){ c[i].y.n->index, c[i].y.p, i, 1 };
	}
	if (n)
		qsort(v, 2 * n, sizeof(*v), at_cmp);
	return v;
}

/* The first of the n ends at node's port p, or v + n when there is none. */
static const struct at *ends_at(const struct at *v, size_t n, const struct ibs_node *node, unsigned p)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].node < node->index || (v[mid].node == node->index && v[mid].port < p))
			lo = mid + 1;
		else
			hi = mid;
	}
	return v + lo;
}

#define FOR_ENDS_AT(it, v, n, nd, p)                                                             \
	for (const struct at *it = ends_at(v, n, nd, p); it < (v) + (n) && it->node == (nd)->index && \
							 it->port == (p);                              \
	     it++)

void ibs_diff_fabrics(const struct ibs_fabric *a, const struct ibs_fabric *b, struct ibs_diff *d)
{
	const struct ibs_node **a2b = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof(*a2b));
	const struct ibs_node **b2a = xcalloc(b->n_nodes ? b->n_nodes : 1, sizeof(*b2a));
	struct cable *ca, *cb;
	struct at *eb;
	size_t nca, ncb, i, j;
	int pass;

	memset(d, 0, sizeof(*d));
	/* Match nodes: first same GUID + type + description, then same GUID. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < a->n_nodes; i++) {
			const struct ibs_node *x = a->nodes[i], *y;
			if (a2b[i])
				continue;
			for (y = ibs_fabric_find_guid(b, x->ni.node_guid); y; y = y->next_same_guid) {
				if (b2a[y->index])
					continue;
				if (pass == 0 && (y->ni.node_type != x->ni.node_type || strcmp(y->desc ? y->desc : "", x->desc ? x->desc : "")))
					continue;
				a2b[i] = y;
				b2a[y->index] = x;
				break;
			}
		}
	}
	for (i = 0; i < a->n_nodes; i++)
		if (!a2b[i])
			add(d, IBS_CHG_NODE_REMOVED, a->nodes[i], 0);
	for (i = 0; i < b->n_nodes; i++)
		if (!b2a[i])
			add(d, IBS_CHG_NODE_ADDED, b->nodes[i], 0);

	/* Cables of A that B also has (same matched ends, same ports): compare them. */
	nca = cables(a, &ca);
	ncb = cables(b, &cb);
	eb = ends_of(cb, ncb);
	for (i = 0; i < nca; i++) {
		const struct ibs_node *bx = a2b[ca[i].x.n->index], *by = a2b[ca[i].y.n->index];
		if (!bx || !by)
			continue;
		FOR_ENDS_AT(it, eb, 2 * ncb, bx, ca[i].x.p) {
			struct cable *o = &cb[it->cable];
			bool same = (o->x.n == bx && o->x.p == ca[i].x.p && o->y.n == by && o->y.p == ca[i].y.p) ||
				    (o->x.n == by && o->x.p == ca[i].y.p && o->y.n == bx && o->y.p == ca[i].x.p);
			const struct ibs_port *pa, *pb;
			if (o->used || !same)
				continue;
			ca[i].used = o->used = true;
			/* Both are cable ends, so both have records. */
			pa = ibs_node_port(ca[i].x.n, ca[i].x.p);
			pb = ibs_node_port(bx, ca[i].x.p);
			if (pa && pb && pa->valid && pb->valid) {
				struct ibs_change *c;
				if (pa->pi.state != pb->pi.state) {
					c = add(d, IBS_CHG_STATE, bx, ca[i].x.p);
					c->before = ibs_port_state_str(pa->pi.state);
					c->after = ibs_port_state_str(pb->pi.state);
				}
				if (pa->pi.width_active && pb->pi.width_active && pa->pi.width_active != pb->pi.width_active) {
					c = add(d, IBS_CHG_WIDTH, bx, ca[i].x.p);
					c->before = ibs_width_str(pa->pi.width_active);
					c->after = ibs_width_str(pb->pi.width_active);
				}
				if (ibs_speed_mbps(pa->pi.speed_active, pa->pi.speed_ext_active) &&
				    ibs_speed_mbps(pb->pi.speed_active, pb->pi.speed_ext_active) &&
				    strcmp(ibs_speed_str(pa->pi.speed_active, pa->pi.speed_ext_active),
					   ibs_speed_str(pb->pi.speed_active, pb->pi.speed_ext_active))) {
					c = add(d, IBS_CHG_SPEED, bx, ca[i].x.p);
					c->before = ibs_speed_str(pa->pi.speed_active, pa->pi.speed_ext_active);
					c->after = ibs_speed_str(pb->pi.speed_active, pb->pi.speed_ext_active);
				}
			}
			break;
		}
	}
	/* What is left: a cable that lost an end and gained another at the same port moved. */
	for (i = 0; i < nca; i++) {
		struct end e[2] = { ca[i].x, ca[i].y };
		int k;
		if (ca[i].used)
			continue;
		for (k = 0; k < 2 && !ca[i].used; k++) {
			const struct ibs_node *bn = a2b[e[k].n->index];
			if (!bn)
				continue;
			FOR_ENDS_AT(it, eb, 2 * ncb, bn, e[k].p) {
				struct ibs_change *c;
				struct end f[2] = { cb[it->cable].x, cb[it->cable].y };
				if (cb[it->cable].used)
					continue;
				c = add(d, IBS_CHG_LINK_MOVED, bn, e[k].p);
				c->was = e[1 - k].n;
				c->was_port = e[1 - k].p;
				c->now = f[1 - it->end].n;
				c->now_port = f[1 - it->end].p;
				ca[i].used = cb[it->cable].used = true;
				break;
			}
		}
		if (!ca[i].used) {
			/* Report it from the end that is still there, if any. */
			int k2 = a2b[ca[i].x.n->index] ? 0 : 1;
			struct ibs_change *c = add(d, IBS_CHG_LINK_REMOVED, e[k2].n, e[k2].p);
			c->was = e[1 - k2].n;
			c->was_port = e[1 - k2].p;
		}
	}
	for (j = 0; j < ncb; j++) {
		struct ibs_change *c;
		if (cb[j].used)
			continue;
		c = add(d, IBS_CHG_LINK_ADDED, cb[j].x.n, cb[j].x.p);
		c->now = cb[j].y.n;
		c->now_port = cb[j].y.p;
	}
	free(eb);
	free(ca);
	free(cb);
	free(a2b);
	free(b2a);
}

void ibs_diff_free(struct ibs_diff *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}
