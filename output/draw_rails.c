/*
 * A rail-optimized fabric drawn as one panel per rail (see draw.h): where
 * the leaves fall into two or more rails (a leaf's rail: the device most
 * of its host cables come from, "dgx001 mlx5_2" -> mlx5_2, each leaf's
 * majority more than half of them), the leaves are ordered by rail and each
 * rail's leaves and their hosts are drawn in a panel of their own (a DOT
 * cluster, "rail mlx5_2"), the spines above shared by every panel. Only
 * in dot's layout: on ibscan's grid (a large or wrapped fabric) the leaves
 * keep their columns.
 */
#include "draw.h"
#include "draw_int.h"
#include "hostlist.h"
#include "../core/base/xalloc.h"
#include "../fabric/check/rails.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tally {
	char dev[32];
	size_t n;
};

/* Count device dev into t[0..*n) (at most cap). */
static void tally_add(struct tally *t, size_t *n, size_t cap, const char *dev)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(t[i].dev, dev)) {
			t[i].n++;
			return;
		}
	if (*n < cap) {
		snprintf(t[*n].dev, sizeof(t[*n].dev), "%s", dev);
		t[(*n)++].n = 1;
	}
}

#define TALLY_MAX 16

/* The majority device of leaf endpoint e's host cables into buf; false when none has more than half. */
static bool leaf_rail(const struct draw *d, size_t e, char *buf, size_t len)
{
	struct tally t[TALLY_MAX];
	size_t n = 0, total = 0, i, k, best = 0;
	char dev[32];

	for (i = 0; i < d->n_links; i++) {
		const struct dlink *l = &d->links[i];
		if (l->u != e || d->tier[l->w] != 0)
			continue;
		if (l->w >= d->f->n_nodes) {
			const struct dgroup *g = &d->groups[l->w - d->f->n_nodes];
			for (k = 0; k < g->n; k++, total++)
				if (ibs_ca_device(d->f->nodes[g->hosts[k]], dev, sizeof(dev)))
					tally_add(t, &n, TALLY_MAX, dev);
		} else {
			total++;
			if (ibs_ca_device(d->f->nodes[l->w], dev, sizeof(dev)))
				tally_add(t, &n, TALLY_MAX, dev);
		}
	}
	for (i = 1; i < n; i++)
		if (t[i].n > t[best].n)
			best = i;
	if (!n || 2 * t[best].n <= total)
		return false;
	snprintf(buf, len, "%s", t[best].dev);
	return true;
}

static int name_cmp(const void *pa, const void *pb)
{
	return render_natcmp((const char *)pa, (const char *)pb);
}

void draw_find_rails(struct draw *d)
{
	size_t n_ep = d->f->n_nodes + d->n_groups, e, r, n_leaves = 0;
	char (*name)[32] = xcalloc(n_ep ? n_ep : 1, sizeof(*name)), dev[32];
	bool *has = xcalloc(n_ep ? n_ep : 1, sizeof(*has));

	d->rail_of = xcalloc(n_ep ? n_ep : 1, sizeof(*d->rail_of));
	for (e = 0; e < n_ep; e++) {
		if (d->tier[e] != 1)
			continue;
		n_leaves++;
		if (!leaf_rail(d, e, dev, sizeof(dev)))
			continue;
		has[e] = true;
		memcpy(name[e], dev, sizeof(dev));
		for (r = 0; r < d->n_rails && strcmp(d->rail_name[r], dev); r++)
			;
		if (r == d->n_rails) {
			d->rail_name = xrealloc(d->rail_name, (d->n_rails + 1) * sizeof(*d->rail_name));
			memcpy(d->rail_name[d->n_rails++], dev, sizeof(dev));
		}
	}
	/* Panels only when the leaves with hosts all have a rail, in two rails or more (not a fat tree of one device). */
	for (e = 0; e < n_ep && d->n_rails >= 2; e++)
		if (d->tier[e] == 1 && !has[e]) {
			size_t i;
			for (i = 0; i < d->n_links; i++)
				if (d->links[i].u == e && d->tier[d->links[i].w] == 0)
					break;
			if (i < d->n_links)
				d->n_rails = 0; /* a leaf with hosts and no rail */
		}
	if (d->n_rails < 2 || n_leaves < 2) {
		free(d->rail_name);
		d->rail_name = NULL;
		d->n_rails = 0;
	} else {
		qsort(d->rail_name, d->n_rails, sizeof(*d->rail_name), name_cmp);
		for (e = 0; e < n_ep; e++)
			for (r = 0; has[e] && r < d->n_rails; r++)
				if (!strcmp(d->rail_name[r], name[e]))
					d->rail_of[e] = r + 1;
	}
	free(name);
	free(has);
}

/* How many leaves host endpoint h is cabled to. */
static size_t host_leaves(const struct draw *d, size_t h)
{
	size_t i, n = 0;

	for (i = 0; i < d->n_links; i++)
		if (d->links[i].w == h && d->tier[d->links[i].u] == 1 && (!i || d->links[i - 1].u != d->links[i].u ||
									  d->links[i - 1].w != h))
			n++;
	return n;
}

void draw_write_panels(struct draw *d)
{
	size_t r, e, i, n_ep = d->f->n_nodes + d->n_groups;

	if (d->grid)
		return;
	for (r = 0; r < d->n_rails; r++) {
		sb_addf(&d->sb, "\tsubgraph \"cluster_rail-%zu\" {\n\t\tid=\"rail-%zu\"; style=\"rounded\"; "
				"color=\"#999999\"; fontsize=14; label=", r + 1, r + 1);
		{
			char label[48];
			snprintf(label, sizeof(label), "rail %s", d->rail_name[r]);
			draw_dot_str(&d->sb, label);
		}
		sb_adds(&d->sb, ";\n");
		for (e = 0; e < n_ep; e++) {
			if (d->rail_of[e] != r + 1)
				continue;
			sb_addf(&d->sb, "\t\t\"%s\";\n", d->id[e]);
			/* Its hosts: the groups and the hosts drawn alone whose only leaf it is. */
			for (i = 0; i < d->n_links; i++) {
				const struct dlink *l = &d->links[i];
				if (l->u == e && d->tier[l->w] == 0 && host_leaves(d, l->w) == 1)
					sb_addf(&d->sb, "\t\t\"%s\";\n", d->id[l->w]);
			}
		}
		sb_adds(&d->sb, "\t}\n");
	}
}

void draw_rails_free(struct draw *d)
{
	free(d->rail_of);
	free(d->rail_name);
	d->rail_of = NULL;
	d->rail_name = NULL;
	d->n_rails = 0;
}
