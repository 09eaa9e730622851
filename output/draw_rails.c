/*
 * A rail-optimized fabric drawn as one panel per rail (see draw.h): where
 * the leaves fall into two or more rails (a leaf's rail: the device most
 * of its host cables come from, "dgx001 mlx5_2" -> mlx5_2, each leaf's
 * majority more than half of them), the leaves are ordered by rail and each
 * rail's leaves and their hosts are drawn in a panel of their own (a DOT
 * cluster, "rail mlx5_2"), the spines above shared by every panel. In
 * dot's layout dot places the clusters; on ibscan's grid (a large or
 * wrapped fabric) draw_panels.c places each panel and its frame (bb, lp).
 */
#include "draw.h"
#include "draw_int.h"
#include "hostlist.h"
#include "../core/base/xalloc.h"
#include "../fabric/check/rails.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A leaf's vote for its rail, over its host cables in one pass (Boyer and
 * Moore's majority vote: the one device that can hold more than half), then
 * a second pass counts that device: time linear in the cables, memory one
 * vote per endpoint, whatever the descriptions say.
 */
struct vote {
	char dev[32];
	size_t n;     /* the vote's count, then the candidate's cables */
	size_t total; /* host cables (a grouped host each) */
};

/* fn(d, leaf endpoint, host node index, ctx) for each leaf's host cable (a group's hosts one by one). */
static void each_host_cable(const struct draw *d, void (*fn)(const struct draw *, size_t, size_t, void *), void *ctx)
{
	size_t i, k;

	for (i = 0; i < d->n_links; i++) {
		const struct dlink *l = &d->links[i];
		if (d->tier[l->u] != 1 || d->tier[l->w] != 0)
			continue;
		if (l->w >= d->f->n_nodes) {
			const struct dgroup *g = &d->groups[l->w - d->f->n_nodes];
			for (k = 0; k < g->n; k++)
				fn(d, l->u, g->hosts[k], ctx);
		} else {
			fn(d, l->u, l->w, ctx);
		}
	}
}

/* The vote's passes over each_host_cable: the host's device (NULL: none) into its leaf's vote. */
static void vote_cable(const struct draw *d, size_t leaf, size_t node, void *ctx,
		       void (*fn)(struct vote *, const char *))
{
	char dev[32];

	fn(&((struct vote *)ctx)[leaf], ibs_ca_device(d->f->nodes[node], dev, sizeof(dev)) ? dev : NULL);
}

static void vote_cast(struct vote *v, const char *dev)
{
	v->total++;
	if (!dev)
		return;
	if (!v->n) {
		snprintf(v->dev, sizeof(v->dev), "%s", dev);
		v->n = 1;
	} else if (!strcmp(v->dev, dev)) {
		v->n++;
	} else {
		v->n--;
	}
}

/* Second pass: n counts the candidate's cables (total is counted again from 0). */
static void vote_count(struct vote *v, const char *dev)
{
	v->total++;
	if (dev && v->dev[0] && !strcmp(v->dev, dev))
		v->n++;
}

static void cast_cable(const struct draw *d, size_t leaf, size_t node, void *ctx)
{
	vote_cable(d, leaf, node, ctx, vote_cast);
}

static void count_cable(const struct draw *d, size_t leaf, size_t node, void *ctx)
{
	vote_cable(d, leaf, node, ctx, vote_count);
}

/* Natural order, then bytes: names it calls equal ("mlx5_01", "mlx5_1") still have one place. */
static int name_cmp(const void *pa, const void *pb)
{
	int c = render_natcmp((const char *)pa, (const char *)pb);

	return c ? c : strcmp((const char *)pa, (const char *)pb);
}

bool render_draw_panels_parse(const char *s, enum render_draw_panels *out)
{
	static const char *const names[] = { "rail", "su", "none" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum render_draw_panels)i;
			return true;
		}
	return false;
}

static size_t uf_find(size_t *up, size_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* Each leaf's unit (rail_of) and the units' names (their hosts' hostlist), numbered by their first host. */
static void name_units(struct draw *d, size_t *up, size_t n_ep)
{
	size_t e, k, n_units = 0, n_all = n_ep + d->hosts.n;
	size_t *unit = xcalloc(n_all + 1, sizeof(*unit)), *root = xcalloc(n_all + 1, sizeof(*root));
	bool *has_leaf = xcalloc(n_all + 1, sizeof(*has_leaf));
	const char **names = xcalloc(d->hosts.n + 1, sizeof(*names));

	for (e = 0; e < n_ep; e++)
		if (d->tier[e] == 1)
			has_leaf[uf_find(up, e)] = true;
	for (k = 0; k < d->hosts.n; k++) {
		size_t r = uf_find(up, n_ep + k);
		if (has_leaf[r] && !unit[r]) {
			unit[r] = ++n_units;
			root[n_units - 1] = r;
		}
	}
	if (n_units >= 2) {
		d->rail_name = xcalloc(n_units, sizeof(*d->rail_name));
		for (k = 0; k < n_units; k++) {
			size_t m = 0, h;
			char *list;
			for (h = 0; h < d->hosts.n; h++)
				if (uf_find(up, n_ep + h) == root[k])
					names[m++] = d->hosts.v[h].name;
			list = render_hostlist(names, m);
			snprintf(d->rail_name[k], sizeof(d->rail_name[k]), "%s", list);
			free(list);
		}
		for (e = 0; e < n_ep; e++)
			if (d->tier[e] == 1)
				d->rail_of[e] = unit[uf_find(up, e)];
		d->n_rails = n_units;
		d->rail_title = "unit ";
	}
	free(unit);
	free(root);
	free(has_leaf);
	free(names);
}

/* A host cable joins its leaf and its server (up: the union over endpoints, then hosts). */
static void join_cable(const struct draw *d, size_t leaf, size_t node, void *ctx)
{
	size_t *up = ctx, n_ep = d->f->n_nodes + d->n_groups;

	if (d->hosts.host_of[node])
		up[uf_find(up, leaf)] = uf_find(up, n_ep + d->hosts.host_of[node] - 1);
}

/*
 * Scalable units: the leaves and the servers their host cables join (a server's CAs on
 * several leaves join those leaves: every rail of a unit); a panel each, from two units on.
 */
static void find_units(struct draw *d)
{
	size_t n_ep = d->f->n_nodes + d->n_groups, i, *up = xcalloc(n_ep + d->hosts.n + 1, sizeof(*up));

	for (i = 0; i < n_ep + d->hosts.n; i++)
		up[i] = i;
	each_host_cable(d, join_cable, up);
	name_units(d, up, n_ep);
	free(up);
}

void draw_find_rails(struct draw *d)
{
	size_t n_ep = d->f->n_nodes + d->n_groups, e, r, n_leaves = 0, n_names = 0;
	struct vote *v;
	bool ok = true;

	d->rail_of = xcalloc(n_ep ? n_ep : 1, sizeof(*d->rail_of));
	d->rail_title = "rail ";
	if (d->o->panels == RENDER_PANELS_NONE)
		return;
	if (d->o->panels == RENDER_PANELS_SU) {
		find_units(d);
		return;
	}
	v = xcalloc(n_ep ? n_ep : 1, sizeof(*v));
	each_host_cable(d, cast_cable, v);
	for (e = 0; e < n_ep; e++) {
		if (!v[e].n)
			v[e].dev[0] = 0;
		v[e].n = v[e].total = 0;
	}
	each_host_cable(d, count_cable, v);
	d->rail_name = xcalloc(n_ep ? n_ep : 1, sizeof(*d->rail_name));
	for (e = 0; e < n_ep; e++) {
		if (d->tier[e] != 1)
			continue;
		n_leaves++;
		if (v[e].n && 2 * v[e].n > v[e].total) {
			memcpy(d->rail_name[n_names++], v[e].dev, sizeof(v[e].dev));
		} else {
			v[e].dev[0] = 0;
			if (v[e].total)
				ok = false; /* a leaf with hosts and no rail: no panels */
		}
	}
	/* The rails: the leaves' devices, sorted, each once. */
	qsort(d->rail_name, n_names, sizeof(*d->rail_name), name_cmp);
	for (e = r = 0; e < n_names; e++)
		if (!r || strcmp(d->rail_name[r - 1], d->rail_name[e]))
			memmove(d->rail_name[r++], d->rail_name[e], sizeof(*d->rail_name));
	d->n_rails = r;
	/* Panels only when the leaves with hosts all have a rail, in two rails or more (not a fat tree of one device). */
	if (!ok || d->n_rails < 2 || n_leaves < 2) {
		free(d->rail_name);
		d->rail_name = NULL;
		d->n_rails = 0;
	} else {
		for (e = 0; e < n_ep; e++) {
			char (*hit)[32];
			if (d->tier[e] != 1 || !v[e].dev[0])
				continue;
			hit = bsearch(v[e].dev, d->rail_name, d->n_rails, sizeof(*d->rail_name), name_cmp);
			if (hit)
				d->rail_of[e] = (size_t)(hit - d->rail_name) + 1;
		}
	}
	free(v);
}

void draw_write_panels(struct draw *d)
{
	size_t r, e, i, k, n_ep = d->f->n_nodes + d->n_groups;
	size_t *leaves, *first, *by_leaf, *order, *at;

	if (!d->n_rails || (d->grid && !d->panel_box))
		return;
	/*
	 * In one pass each: how many leaves a host is cabled to (a run of one
	 * leaf's cables to it counted once), each leaf's cables in their order,
	 * and the leaves by rail (each rail's in endpoint order).
	 */
	leaves = xcalloc(n_ep, sizeof(*leaves));
	first = xcalloc(n_ep + 1, sizeof(*first));
	by_leaf = xcalloc(d->n_links ? d->n_links : 1, sizeof(*by_leaf));
	order = xcalloc(n_ep, sizeof(*order));
	at = xcalloc(d->n_rails + 2, sizeof(*at));
	for (i = 0; i < d->n_links; i++) {
		const struct dlink *l = &d->links[i];
		if (d->tier[l->u] == 1 &&
		    (!i || d->links[i - 1].u != l->u || d->links[i - 1].w != l->w))
			leaves[l->w]++;
		first[l->u + 1]++;
	}
	for (e = 0; e < n_ep; e++)
		first[e + 1] += first[e];
	{
		size_t *fill = xcalloc(n_ep, sizeof(*fill));
		for (i = 0; i < d->n_links; i++)
			by_leaf[first[d->links[i].u] + fill[d->links[i].u]++] = i;
		free(fill);
	}
	for (e = 0; e < n_ep; e++)
		if (d->rail_of[e])
			at[d->rail_of[e] + 1]++;
	for (r = 1; r <= d->n_rails; r++)
		at[r + 1] += at[r];
	for (e = 0; e < n_ep; e++)
		if (d->rail_of[e])
			order[at[d->rail_of[e]]++] = e;
	/* at[r] is now the end of rail r's leaves (rail r + 1 starts there). */
	for (r = 0, k = 0; r < d->n_rails; r++) {
		sb_addf(&d->sb, "\tsubgraph \"cluster_rail-%zu\" {\n\t\tid=\"rail-%zu\"; style=\"rounded\"; "
				"color=\"#999999\"; fontsize=14; label=", r + 1, r + 1);
		{
			char label[48];
			snprintf(label, sizeof(label), "%s%s", d->rail_title, d->rail_name[r]);
			draw_dot_str(&d->sb, label);
		}
		if (d->grid) {
			const double *b = d->panel_box[r];
			sb_addf(&d->sb, "; bb=\"%.1f,%.1f,%.1f,%.1f\"; lp=\"%.1f,%.1f\"", b[0], b[1], b[2], b[3], b[4],
				b[5]);
		}
		sb_adds(&d->sb, ";\n");
		for (; k < at[r + 1]; k++) {
			e = order[k];
			sb_addf(&d->sb, "\t\t\"%s\";\n", d->id[e]);
			/* Its hosts: the groups and the hosts drawn alone whose only leaf it is. */
			for (i = first[e]; i < first[e + 1]; i++) {
				const struct dlink *l = &d->links[by_leaf[i]];
				if (d->tier[l->w] == 0 && leaves[l->w] == 1)
					sb_addf(&d->sb, "\t\t\"%s\";\n", d->id[l->w]);
			}
		}
		sb_adds(&d->sb, "\t}\n");
	}
	free(leaves);
	free(first);
	free(by_leaf);
	free(order);
	free(at);
}

void draw_rails_free(struct draw *d)
{
	free(d->rail_of);
	free(d->rail_name);
	free(d->panel_box);
	d->panel_box = NULL;
	d->rail_of = NULL;
	d->rail_name = NULL;
	d->n_rails = 0;
}
