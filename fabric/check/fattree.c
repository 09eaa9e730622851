/* Fat-tree structure checks: tiers, cable counts, degrees and rates (see fattree.h). */
#include "fattree.h"
#include "../model/levels.h"
#include "../model/names.h"
#include "../model/rate.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static bool is_switch(const struct ibs_node *n)
{
	return n && n->ni.node_type == IBS_NODE_SWITCH;
}

static bool is_host(const struct ibs_node *n)
{
	return n && n->ni.node_type == IBS_NODE_CA && !ibs_is_aggregation_node(n);
}

static const char *tier(unsigned level, bool plural)
{
	static const char *const one[] = { "host", "leaf", "spine", "core" };
	static const char *const many[] = { "hosts", "leaves", "spines", "cores" };

	if (level < 4)
		return plural ? many[level] : one[level];
	return plural ? "upper-tier switches" : "upper-tier switch";
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The most common value of v[0..n) (the lowest of a tie); 0 when n is 0. Sorts v. */
static size_t mode(size_t *v, size_t n)
{
	size_t best = 0, best_run = 0, i, j;

	qsort(v, n, sizeof(*v), size_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i > best_run) {
			best_run = j - i;
			best = v[i];
		}
	}
	return best;
}

struct ctx {
	const struct ibs_fabric *f;
	unsigned *level;
	unsigned max;
	struct ibs_findings *fs;
};

/*
 * A switch BFS put among the leaves because a host is cabled to it, whose
 * cables to other leaves outnumber its cables up: a spine with hosts on it.
 * Its host cables are findings; it is a spine for the rest.
 */
static void hosts_on_spines(struct ctx *c)
{
	const struct ibs_fabric *f = c->f;
	bool *spine = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*spine));
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_port *pt;
		size_t same = 0, up = 0;
		if (c->level[i] != 1)
			continue;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++)
			if (is_switch(pt->peer) && pt->peer != n) {
				same += c->level[pt->peer->index] == 1;
				up += c->level[pt->peer->index] == 2;
			}
		spine[i] = same >= 2 && same > up;
	}
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_port *pt;
		if (!spine[i])
			continue;
		c->level[i] = 2;
		if (c->max < 2)
			c->max = 2;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++)
			if (is_host(pt->peer))
				ibs_health_add(c->fs, CK_FABRIC_MISPLACED, IBS_SEV_WARNING, n, pt->num,
					       "host %s is cabled to %s port %u, a spine (cabled to leaves only): "
					       "move it to a free port of a leaf",
					       ibs_node_name(pt->peer), ibs_node_name(n), pt->num);
	}
	free(spine);
}

/* Cables inside a tier (leaf to leaf, spine to spine), each once. */
static void inside_tiers(struct ctx *c)
{
	const struct ibs_fabric *f = c->f;

	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_port *pt;
		if (!is_switch(n) || !c->level[i])
			continue;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			const struct ibs_node *p = pt->peer;
			if (!is_switch(p) || p == n || c->level[p->index] != c->level[i] || p->index < n->index)
				continue;
			ibs_health_add(c->fs, CK_FABRIC_MISPLACED, IBS_SEV_WARNING, n, pt->num,
				       "%s %s port %u is cabled to %s %s port %u: a fat tree cables a tier only to the "
				       "tiers above and below it",
				       tier(c->level[i], false), ibs_node_name(n), pt->num, tier(c->level[i], false),
				       ibs_node_name(p), pt->peer_port);
		}
	}
}

/* How many cables lower switch s has to each switch of the tier above: cnt[upper node index]. */
static void up_counts(const struct ctx *c, const struct ibs_node *s, size_t *cnt, uint8_t *first_port)
{
	const struct ibs_port *pt;

	for (pt = ibs_node_ports_from(s, 1); pt < ibs_node_ports_end(s); pt++) {
		const struct ibs_node *p = pt->peer;
		if (!is_switch(p) || c->level[p->index] != c->level[s->index] + 1)
			continue;
		if (!cnt[p->index]++)
			first_port[p->index] = pt->num;
	}
}

/* Between tier t and t+1: cables per pair, the top tier reaching every switch below, degrees. */
static void tier_pair(struct ctx *c, unsigned t)
{
	const struct ibs_fabric *f = c->f;
	size_t nn = f->n_nodes, i, j, n_pairs = 0, cap_pairs = 0, n_low = 0, n_up = 0;
	size_t *cnt = xcalloc(nn, sizeof(*cnt)), *pairs = NULL, *deg = xcalloc(nn, sizeof(*deg));
	size_t *v = xcalloc(nn + 1, sizeof(*v)), expect;
	uint8_t *fp = xcalloc(nn, sizeof(*fp));
	bool *flagged = xcalloc(nn, sizeof(*flagged));
	/* A two-tier tree cables every leaf to every spine; above, a pod's switches reach only its part. */
	bool top = c->max == 2;

	/* The usual count of cables between a lower and an upper switch that are cabled at all. */
	for (i = 0; i < nn; i++) {
		if (c->level[i] != t || !is_switch(f->nodes[i]))
			continue;
		n_low++;
		memset(cnt, 0, nn * sizeof(*cnt));
		up_counts(c, f->nodes[i], cnt, fp);
		for (j = 0; j < nn; j++)
			if (cnt[j]) {
				pairs = xgrow(pairs, &cap_pairs, n_pairs + 1, sizeof(*pairs));
				pairs[n_pairs++] = cnt[j];
				deg[j] += cnt[j];
				deg[i] += cnt[j];
			}
	}
	for (j = 0; j < nn; j++)
		n_up += c->level[j] == t + 1 && is_switch(f->nodes[j]);
	expect = mode(pairs, n_pairs);
	if (!n_low || !n_up || !expect)
		goto out;
	for (i = 0; i < nn; i++) {
		const struct ibs_node *s = f->nodes[i];
		if (c->level[i] != t || !is_switch(s))
			continue;
		memset(cnt, 0, nn * sizeof(*cnt));
		up_counts(c, s, cnt, fp);
		for (j = 0; j < nn; j++) {
			const struct ibs_node *u = f->nodes[j];
			if (c->level[j] != t + 1 || !is_switch(u) || cnt[j] == expect)
				continue;
			/* Below the top tier a switch reaches only the upper switches of its pod. */
			if (!cnt[j] && !top)
				continue;
			flagged[i] = flagged[j] = true;
			if (!cnt[j])
				ibs_health_add(c->fs, CK_FABRIC_ASYMMETRIC, IBS_SEV_WARNING, s, 0,
					       "%s %s has no cable to %s %s: expected %zu, as between the other %s and %s",
					       tier(t, false), ibs_node_name(s), tier(t + 1, false), ibs_node_name(u),
					       expect, tier(t, true), tier(t + 1, true));
			else
				ibs_health_add(c->fs, CK_FABRIC_ASYMMETRIC, IBS_SEV_WARNING, s, fp[j],
					       "%s %s has %zu cable%s to %s %s: expected %zu, as between the other %s and %s",
					       tier(t, false), ibs_node_name(s), cnt[j], cnt[j] == 1 ? "" : "s",
					       tier(t + 1, false), ibs_node_name(u), expect, tier(t, true),
					       tier(t + 1, true));
		}
	}
	/* Degrees: each tier's switches the same number of cables between the two tiers. */
	for (unsigned side = 0; side < 2; side++) {
		unsigned lv = t + side;
		size_t n = 0, e;
		/* The usual degree among the switches no pair finding names already. */
		for (i = 0; i < nn; i++)
			if (c->level[i] == lv && is_switch(f->nodes[i]) && !flagged[i])
				v[n++] = deg[i];
		e = mode(v, n);
		for (i = 0; i < nn; i++) {
			const struct ibs_node *s = f->nodes[i];
			if (c->level[i] != lv || !is_switch(s) || deg[i] == e || flagged[i])
				continue;
			ibs_health_add(c->fs, CK_FABRIC_ASYMMETRIC, IBS_SEV_WARNING, s, 0,
				       "%s %s has %zu cable%s to %s: expected %zu, as the other %s have",
				       tier(lv, false), ibs_node_name(s), deg[i], deg[i] == 1 ? "" : "s",
				       tier(side ? t : t + 1, true), e, tier(lv, true));
		}
	}
out:
	free(cnt);
	free(pairs);
	free(deg);
	free(v);
	free(fp);
	free(flagged);
}

/* One rate per tier of cables (host-leaf, leaf-spine, ...): links that run at another rate. */
static void tier_rates(struct ctx *c)
{
	const struct ibs_fabric *f = c->f;
	struct ibs_link *l = NULL;
	size_t nl = ibs_fabric_links(f, &l), i, t;
	size_t *key = xcalloc(nl + 1, sizeof(*key)), *v = xcalloc(nl + 1, sizeof(*v));
	unsigned *tr = xcalloc(nl + 1, sizeof(*tr));

	for (i = 0; i < nl; i++) {
		const struct ibs_port *pa = ibs_node_port(l[i].a, l[i].pa);
		struct ibs_link_rate r;
		unsigned la = is_switch(l[i].a) ? c->level[l[i].a->index] : 0;
		unsigned lb = is_switch(l[i].b) ? c->level[l[i].b->index] : 0;
		const char *why;
		tr[i] = (la < lb ? la : lb) + 1; /* 1: host-leaf, 2: leaf-spine, ... 0: not in the tree */
		if ((is_switch(l[i].a) && !la) || (is_switch(l[i].b) && !lb) || la == lb || !pa || !pa->valid ||
		    ibs_node_link_degraded(l[i].a, l[i].pa, l[i].b, l[i].pb, &why)) {
			tr[i] = 0; /* link.degraded says it already, or it is outside the tree */
			continue;
		}
		ibs_port_active_rate(pa, &r);
		key[i] = (size_t)ibs_width_lanes(r.width) * ibs_speed_mbps(r.speed, r.speed_ext);
	}
	for (t = 1; t <= c->max; t++) {
		size_t n = 0, e;
		for (i = 0; i < nl; i++)
			if (tr[i] == t && key[i])
				v[n++] = key[i];
		e = mode(v, n);
		for (i = 0; i < nl; i++) {
			const struct ibs_port *pa = ibs_node_port(l[i].a, l[i].pa);
			struct ibs_link_rate r;
			if (tr[i] != t || !key[i] || key[i] == e)
				continue;
			ibs_port_active_rate(pa, &r);
			ibs_health_add(c->fs, CK_FABRIC_RATE, IBS_SEV_WARNING, l[i].a, l[i].pa,
				       "%s port %u to %s port %u runs %s%s, unlike the other %s-%s cables",
				       ibs_node_name(l[i].a), l[i].pa, ibs_node_name(l[i].b), l[i].pb,
				       ibs_width_str(r.width), ibs_speed_str(r.speed, r.speed_ext), tier(t - 1, false),
				       tier(t, false));
		}
	}
	free(l);
	free(key);
	free(v);
	free(tr);
}

void ibs_check_fat_tree(const struct ibs_fabric *f, struct ibs_findings *fs)
{
	struct ctx c = { .f = f, .fs = fs };

	c.level = ibs_fabric_levels(f, &c.max);
	/* One tier (a switch or two with hosts on each) is no tree to check. */
	if (c.max >= 2) {
		hosts_on_spines(&c);
		inside_tiers(&c);
		for (unsigned t = 1; t < c.max; t++)
			tier_pair(&c, t);
		tier_rates(&c);
	}
	free(c.level);
}
