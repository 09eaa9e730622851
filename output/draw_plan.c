/*
 * What the fabric drawing shows and in which order (see draw.h): findings
 * on nodes and ports, each cable's kind, the hosts drawn as a group, and
 * the positions within each tier. output/draw.c writes it as DOT.
 */
#include "draw.h"
#include "draw_int.h"
#include "hostlist.h"
#include "../core/base/xalloc.h"
#include "../fabric/model/levels.h"
#include "../fabric/model/names.h"
#include "../fabric/model/rate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what is drawn ---- */

static void port_rate(const struct ibs_port *p, char *buf, size_t len)
{
	if (p && p->valid && p->pi.width_active)
		snprintf(buf, len, "%s%s", ibs_width_str(p->pi.width_active),
			 ibs_speed_str(p->pi.speed_active, p->pi.speed_ext_active));
	else
		buf[0] = '\0';
}

static int mark_cmp(const void *pa, const void *pb)
{
	const struct mark *a = pa, *b = pb;

	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->port < b->port ? -1 : a->port > b->port;
}

/* The worst finding on (node, port); port 0 finds the node's own. */
enum ibs_severity draw_mark_sev(const struct draw *d, const struct ibs_node *n, unsigned port)
{
	struct mark k = { n->index, port, IBS_SEV_OK, NULL };
	const struct mark *m = d->n_marks ? bsearch(&k, d->marks, d->n_marks, sizeof(k), mark_cmp) : NULL;
	enum ibs_severity s = IBS_SEV_OK;

	if (!m)
		return s;
	while (m > d->marks && !mark_cmp(m - 1, &k))
		m--;
	for (; m < d->marks + d->n_marks && !mark_cmp(m, &k); m++)
		if (m->sev > s && m->sev != IBS_SEV_UNKNOWN)
			s = m->sev;
	return s;
}

void draw_mark_msgs(const struct draw *d, struct strbuf *sb, const struct ibs_node *n, unsigned port)
{
	struct mark k = { n->index, port, IBS_SEV_OK, NULL };
	const struct mark *m = d->n_marks ? bsearch(&k, d->marks, d->n_marks, sizeof(k), mark_cmp) : NULL;

	if (!m)
		return;
	while (m > d->marks && !mark_cmp(m - 1, &k))
		m--;
	for (; m < d->marks + d->n_marks && !mark_cmp(m, &k); m++)
		sb_addf(sb, "\n%s: %s", ibs_severity_str(m->sev), m->msg);
}

/* A node's findings: on the node, or on a port with nothing cabled to it. */
void draw_collect_marks(struct draw *d)
{
	const struct ibs_findings *fs = d->o->fs;
	size_t i, cap = 0;

	if (!fs) {
		/* No health run: what the walk could not read is still worth a look. */
		for (i = 0; i < d->f->n_errors; i++) {
			const struct ibs_walk_error *w = &d->f->errors[i];
			if (!w->node)
				continue;
			d->marks = xgrow(d->marks, &cap, d->n_marks + 1, sizeof(*d->marks));
			d->marks[d->n_marks++] = (struct mark){ w->node->index, 0, IBS_SEV_WARNING,
								w->unreachable ? "a neighbour could not be discovered"
									       : "a query got no valid answer" };
		}
		if (d->n_marks)
			qsort(d->marks, d->n_marks, sizeof(*d->marks), mark_cmp);
		return;
	}
	for (i = 0; i < fs->n; i++) {
		const struct ibs_finding *x = &fs->v[i];
		const struct ibs_port *p;
		unsigned port = x->port;

		if (!x->node)
			continue;
		p = port ? ibs_node_port(x->node, port) : NULL;
		if (!p || !p->peer)
			port = 0;
		d->marks = xgrow(d->marks, &cap, d->n_marks + 1, sizeof(*d->marks));
		d->marks[d->n_marks++] = (struct mark){ x->node->index, port, x->severity, x->message };
		/* A finding about a cable is the other end's too. */
		if (port && p->peer) {
			d->marks = xgrow(d->marks, &cap, d->n_marks + 1, sizeof(*d->marks));
			d->marks[d->n_marks++] = (struct mark){ p->peer->index, p->peer_port, x->severity, x->message };
		}
	}
	if (d->n_marks)
		qsort(d->marks, d->n_marks, sizeof(*d->marks), mark_cmp);
}

bool draw_is_host(const struct ibs_node *n)
{
	return n->ni.node_type == IBS_NODE_CA && !ibs_is_aggregation_node(n);
}

void draw_classify(struct draw *d, struct dlink *l)
{
	const struct ibs_port *pa = ibs_node_port(l->a, l->pa), *pb = ibs_node_port(l->b, l->pb);
	const struct ibs_port *src = pa && pa->valid ? pa : pb;
	enum ibs_severity sa = draw_mark_sev(d, l->a, l->pa), sb = draw_mark_sev(d, l->b, l->pb);

	port_rate(src, l->rate, sizeof(l->rate));
	l->sev = sa > sb ? sa : sb;
	if (!src || !src->valid || !ibs_portinfo_active(&src->pi) ||
	    (pa && pb && pa->valid && pb->valid && !ibs_portinfo_active(&pb->pi)))
		l->kind = K_DOWN;
	else if (ibs_node_link_degraded(l->a, l->pa, l->b, l->pb, NULL) ||
		 (pa && pb && (ibs_link_held_down(pa, pb, NULL) || ibs_link_held_down(pb, pa, NULL))))
		/* Orange: slower than both ends' hardware allows, by a fault or by configuration. */
		l->kind = K_DEGRADED;
	else if (l->sev > IBS_SEV_OK)
		l->kind = K_FINDING;
	else
		l->kind = K_OK;
}

/* A host that can be drawn in a group, and with which others: its leaves and rate. */
struct cand {
	size_t host;
	char *key;            /* "rate|leaf index,leaf index,..." */
	const struct ibs_node *leaf; /* its first leaf */
	char rate[16];
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	return a->host < b->host ? -1 : a->host > b->host;
}

/*
 * Whether host h can be in a group: every cable of it healthy, to a leaf,
 * at one rate, and no error or finding on it. Fills c (key owned by c).
 */
static bool groupable(struct draw *d, const struct ibs_node *h, struct cand *c)
{
	const struct ibs_port *pt;
	struct strbuf key = STRBUF_INIT;
	size_t n = 0;

	if (!draw_is_host(h) || h->error || draw_mark_sev(d, h, 0))
		return false;
	c->leaf = NULL;
	c->rate[0] = '\0';
	for (pt = ibs_node_ports_from(h, 1); pt < ibs_node_ports_end(h); pt++) {
		struct dlink l = { 0, 0, h, pt->peer, (uint8_t)pt->num, pt->peer_port, "", K_OK, IBS_SEV_OK };
		if (!pt->peer)
			continue;
		draw_classify(d, &l);
		if (pt->peer->ni.node_type != IBS_NODE_SWITCH || d->level[pt->peer->index] != 1 || l.kind != K_OK ||
		    !l.rate[0] || (c->rate[0] && strcmp(c->rate, l.rate))) {
			sb_free(&key);
			return false;
		}
		if (!c->leaf) {
			c->leaf = pt->peer;
			snprintf(c->rate, sizeof(c->rate), "%s", l.rate);
			sb_adds(&key, l.rate);
		}
		sb_addf(&key, "|%zu", pt->peer->index);
		n++;
	}
	if (!n) {
		sb_free(&key);
		return false;
	}
	c->host = h->index;
	c->key = sb_detach(&key);
	return true;
}

/*
 * Hosts cabled only to leaves, healthy, at one rate: those on the same
 * leaves (one leaf, or the same two of a dual-rail pair) at the same rate
 * are a group when there are group_min of them.
 */
void draw_make_groups(struct draw *d)
{
	const struct ibs_fabric *f = d->f;
	struct cand *v = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*v));
	size_t n = 0, i, j, k;

	for (i = 0; d->o->group_min && i < f->n_nodes; i++)
		if (groupable(d, f->nodes[i], &v[n]))
			n++;
	if (n)
		qsort(v, n, sizeof(*v), cand_cmp);
	for (i = 0; i < n; i = j) {
		struct dgroup *g;
		for (j = i + 1; j < n && !strcmp(v[i].key, v[j].key); j++)
			;
		if (j - i < d->o->group_min)
			continue;
		d->groups = xgrow(d->groups, &d->cap_groups, d->n_groups + 1, sizeof(*d->groups));
		g = &d->groups[d->n_groups++];
		memset(g, 0, sizeof(*g));
		g->leaf = v[i].leaf;
		snprintf(g->rate, sizeof(g->rate), "%s", v[i].rate);
		g->n = g->cap = j - i;
		g->hosts = xcalloc(g->n, sizeof(*g->hosts));
		for (k = i; k < j; k++)
			g->hosts[k - i] = v[k].host;
	}
	for (i = 0; i < n; i++)
		free(v[i].key);
	free(v);
}

/* The name on a node's label: a Mellanox switch description gives the operator's part, a director's ASIC its slot. */
char *draw_label_name(const struct ibs_node *n)
{
	char *part = render_switch_name(n);

	return part ? part : xstrdup(ibs_node_name(n));
}

/* ---- director chassis ---- */

static int sysimg_cmp(const void *pa, const void *pb)
{
	const struct ibs_node *a = *(const struct ibs_node *const *)pa, *b = *(const struct ibs_node *const *)pb;

	if (a->ni.system_image_guid != b->ni.system_image_guid)
		return a->ni.system_image_guid < b->ni.system_image_guid ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/*
 * The ASICs of a director switch (its spines and leaves) share the system
 * image GUID of the chassis, as libibnetdisc groups them for
 * `ibnetdiscover -g`: two or more switches with one system image GUID are
 * one chassis.
 */
void draw_find_chassis(struct draw *d)
{
	const struct ibs_fabric *f = d->f;
	const struct ibs_node **v = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*v));
	size_t n = 0, i, j, k, cap = 0;

	d->chassis_of = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*d->chassis_of));
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->ni.node_type == IBS_NODE_SWITCH && f->nodes[i]->ni.system_image_guid)
			v[n++] = f->nodes[i];
	if (n)
		qsort(v, n, sizeof(*v), sysimg_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j]->ni.system_image_guid == v[i]->ni.system_image_guid; j++)
			;
		if (j - i < 2)
			continue;
		d->chassis = xgrow(d->chassis, &cap, d->n_chassis + 1, sizeof(*d->chassis));
		d->chassis[d->n_chassis++] = (struct dchassis){ v[i]->ni.system_image_guid, j - i };
		for (k = i; k < j; k++)
			d->chassis_of[v[k]->index] = d->n_chassis;
	}
	free(v);
}

/* ---- order within tiers ---- */

int draw_ord_cmp(const void *pa, const void *pb)
{
	const struct ord *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return render_natcmp(a->name, b->name);
}

/* Drawn endpoint of node index i. */
size_t draw_endpoint(const struct draw *d, size_t i)
{
	if (d->beside && d->beside[i])
		return d->beside[i] - 1;
	return d->group_of[i] ? d->f->n_nodes + d->group_of[i] - 1 : i;
}

/*
 * The ASICs of one chassis side by side in their tier, where the first of
 * them stands: a chassis is drawn as one box (output/draw.c), which dot
 * can only draw around nodes that are next to each other.
 */
static void keep_chassis_together(struct draw *d, struct ord *v, size_t n)
{
	double *first = xcalloc(d->n_chassis + 1, sizeof(*first));
	size_t i;

	for (i = 0; i <= d->n_chassis; i++)
		first[i] = -1;
	for (i = 0; i < n; i++) {
		size_t c = v[i].e < d->f->n_nodes ? d->chassis_of[v[i].e] : 0;
		if (c && (first[c] < 0 || d->pos[v[i].e] < first[c]))
			first[c] = d->pos[v[i].e];
	}
	/* Sort key: the chassis's first position, then the node's own; ties keep the name order. */
	for (i = 0; i < n; i++) {
		size_t c = v[i].e < d->f->n_nodes ? d->chassis_of[v[i].e] : 0;
		v[i].key = (c ? first[c] : d->pos[v[i].e]) * (double)(n + 1) + d->pos[v[i].e];
	}
	if (n)
		qsort(v, n, sizeof(*v), draw_ord_cmp);
	for (i = 0; i < n; i++)
		d->pos[v[i].e] = (double)i;
	free(first);
}

/*
 * Positions within each tier: leaves by their first host's name (hosts
 * named in order sit under leaves in order), hosts under their leaf, each
 * switch tier above by the mean position of its neighbours below. Good
 * enough for dot's own crossing reduction to start from.
 */
void draw_order_tiers(struct draw *d, char **names, size_t n_ep)
{
	struct ord *v = xcalloc(n_ep ? n_ep : 1, sizeof(*v));
	double *sum = xcalloc(n_ep ? n_ep : 1, sizeof(*sum));
	size_t *cnt = xcalloc(n_ep ? n_ep : 1, sizeof(*cnt)), i, n;
	unsigned lv;

	/* Leaves: the natural-order-first name among their hosts. */
	for (lv = 1; lv <= d->max_level; lv++) {
		for (i = 0; i < d->n_links; i++) {
			const struct dlink *l = &d->links[i];
			size_t up = l->u, dn = l->w;
			if (d->tier[up] != (int)lv || d->tier[dn] != (int)lv - 1)
				continue;
			sum[up] += lv == 1 ? 0 : d->pos[dn];
			cnt[up]++;
		}
		for (i = n = 0; i < n_ep; i++)
			if (d->tier[i] == (int)lv) {
				v[n].e = i;
				v[n].name = names[i];
				/* Leaves by rail first (a rail's panel), when the fabric has rails. */
				v[n].key = lv == 1 ? (d->rail_of ? (double)d->rail_of[i] : 0)
						   : cnt[i] ? sum[i] / (double)cnt[i] : 1e300;
				n++;
			}
		if (lv == 1) {
			/* A leaf's sort name is the natural-order-first name among its hosts. */
			const char **best = xcalloc(n_ep, sizeof(*best));
			for (i = 0; i < d->n_links; i++) {
				const struct dlink *l = &d->links[i];
				if (d->tier[l->u] == 1 && d->tier[l->w] == 0 &&
				    (!best[l->u] || render_natcmp(names[l->w], best[l->u]) < 0))
					best[l->u] = names[l->w];
			}
			/*
			 * A scalable unit's leaves (panels per unit) share their hosts: by their own names
			 * there ("su1-r0", "su1-r1" ...), not by a first host that ties.
			 */
			bool own = d->o->panels == RENDER_PANELS_SU && d->n_rails;
			for (i = 0; i < n; i++)
				if (best[v[i].e] && !own)
					v[i].name = best[v[i].e];
			free(best);
		}
		if (n)
			qsort(v, n, sizeof(*v), draw_ord_cmp);
		for (i = 0; i < n; i++)
			d->pos[v[i].e] = (double)i;
		keep_chassis_together(d, v, n);
		if (lv == 1) {
			/* Hosts: by their leaf, then by name. */
			size_t m = 0, k;
			memset(sum, 0, n_ep * sizeof(*sum));
			memset(cnt, 0, n_ep * sizeof(*cnt));
			for (k = 0; k < d->n_links; k++) {
				const struct dlink *l = &d->links[k];
				if (d->tier[l->u] == 1 && d->tier[l->w] == 0) {
					sum[l->w] += d->pos[l->u];
					cnt[l->w]++;
				}
			}
			for (i = 0; i < n_ep; i++)
				if (d->tier[i] == 0) {
					v[m].e = i;
					v[m].name = names[i];
					v[m].key = cnt[i] ? sum[i] / (double)cnt[i] : 1e300;
					m++;
				}
			if (m)
				qsort(v, m, sizeof(*v), draw_ord_cmp);
			for (i = 0; i < m; i++)
				d->pos[v[i].e] = (double)i;
		}
		memset(sum, 0, n_ep * sizeof(*sum));
		memset(cnt, 0, n_ep * sizeof(*cnt));
	}
	free(v);
	free(sum);
	free(cnt);
}

