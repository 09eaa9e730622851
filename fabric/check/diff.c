/*
 * Topology diff. Nodes are matched by NodeGUID (nodes sharing a GUID are
 * paired in order, preferring the same type and description); cables are
 * compared end by end, and a cable that left one port for another is
 * reported once as moved rather than as a removal plus an addition.
 */
#include "diff.h"
#include "../model/names.h"
#include "../model/rate.h"
#include "../../core/base/xalloc.h"

#include <stdint.h>
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

/* B's nodes sorted by GUID, then (pass 0) type and description, then place in the GUID's chain. */
struct cand {
	const struct ibs_node *n;
	size_t rank; /* place in its GUID's chain (ibs_fabric_find_guid, then next_same_guid) */
};

static int by_guid(const struct ibs_node *x, const struct ibs_node *y)
{
	return x->ni.node_guid < y->ni.node_guid ? -1 : x->ni.node_guid > y->ni.node_guid;
}

static int by_key(const struct ibs_node *x, const struct ibs_node *y)
{
	int c = by_guid(x, y);

	if (!c)
		c = (int)x->ni.node_type - (int)y->ni.node_type;
	if (!c)
		c = strcmp(x->desc ? x->desc : "", y->desc ? y->desc : "");
	return c;
}

static int sort_key(const void *pa, const void *pb)
{
	const struct cand *x = pa, *y = pb;
	int c = by_key(x->n, y->n);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static int sort_guid(const void *pa, const void *pb)
{
	const struct cand *x = pa, *y = pb;
	int c = by_guid(x->n, y->n);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

/* The first of v[0..n) not before x by cmp (v sorted by it). */
static size_t lower(const struct cand *v, size_t n, const struct ibs_node *x,
		    int (*cmp)(const struct ibs_node *, const struct ibs_node *))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp(v[mid].n, x) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Match nodes: first same GUID + type + description, then same GUID; each
 * node of A, in A's order, takes the first unmatched node of B's that
 * qualifies, in the order of B's GUID chain. Through cursors over B sorted
 * by key, so that n nodes sharing one GUID cost n log n, not n^2.
 */
static void match_nodes(const struct ibs_fabric *a, const struct ibs_fabric *b, const struct ibs_node **a2b,
			const struct ibs_node **b2a)
{
	size_t i, k = 0, n = b->n_nodes;
	struct cand *v = xcalloc(n ? n : 1, sizeof(*v));
	size_t *cur = xcalloc(n ? n : 1, sizeof(*cur));
	int pass;

	/* Each chain once, from its first node: its members in chain order. */
	for (i = 0; i < n; i++) {
		const struct ibs_node *y = b->nodes[i], *h = ibs_fabric_find_guid(b, y->ni.node_guid);
		size_t r = 0;
		if (h != y)
			continue;
		for (; h; h = h->next_same_guid) {
			v[k].n = h;
			v[k++].rank = r++;
		}
	}
	n = k; /* every node is on its GUID's chain */
	for (pass = 0; pass < 2; pass++) {
		int (*cmp)(const struct ibs_node *, const struct ibs_node *) = pass ? by_guid : by_key;
		qsort(v, n, sizeof(*v), pass ? sort_guid : sort_key);
		/* cur[g]: the next candidate of the group that starts at g (SIZE_MAX: not yet used). */
		for (i = 0; i < n; i++)
			cur[i] = SIZE_MAX;
		for (i = 0; i < a->n_nodes; i++) {
			const struct ibs_node *x = a->nodes[i];
			size_t g, *c;
			if (a2b[i])
				continue;
			g = lower(v, n, x, cmp);
			if (g == n || cmp(v[g].n, x))
				continue;
			c = &cur[g];
			if (*c == SIZE_MAX)
				*c = g;
			while (*c < n && !cmp(v[*c].n, x) && b2a[v[*c].n->index])
				(*c)++;
			if (*c < n && !cmp(v[*c].n, x)) {
				a2b[i] = v[*c].n;
				b2a[v[*c].n->index] = x;
				(*c)++;
			}
		}
	}
	free(v);
	free(cur);
}

void ibs_diff_fabrics(const struct ibs_fabric *a, const struct ibs_fabric *b, struct ibs_diff *d)
{
	const struct ibs_node **a2b = xcalloc(a->n_nodes ? a->n_nodes : 1, sizeof(*a2b));
	const struct ibs_node **b2a = xcalloc(b->n_nodes ? b->n_nodes : 1, sizeof(*b2a));
	struct cable *ca, *cb;
	struct at *eb;
	size_t nca, ncb, i, j;

	memset(d, 0, sizeof(*d));
	match_nodes(a, b, a2b, b2a);
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
