/*
 * Full meshes between two switch tiers drawn as bundles (see draw.h): where
 * a set of upper switches U is each cabled to every switch of a set of
 * lower ones L, every pair healthy and with the same cables ("2 × 4xEDR"),
 * the |U| x |L| edges (hundreds to thousands of crossing lines, a solid grey
 * band on a large fabric) become a junction point with one edge from each
 * switch of U to it and one from it to each switch of L: |U| + |L| lines,
 * the junction labelled "12 × 16 mesh, 2 × 4xEDR each". The uppers grouped
 * are those with the same lower neighbours (a pod's spines over the pod's
 * leaves, a core group over the spines it serves). A pair with a problem
 * cable is not in a bundle (it is drawn as before, the problem on its own).
 * Not with a heat map, which colours every cable.
 */
#include "draw.h"
#include "draw_int.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../fabric/model/names.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A bundle from this many switch pairs on (smaller meshes read well as they are). */
#define BUNDLE_MIN_PAIRS 64

/* One upper switch's healthy pairs to the tier below, all with one label. */
struct upper {
	size_t u;
	char *key;   /* "label|lower,lower,..." */
	size_t first, end; /* its links: links[first..end) */
};

static int upper_cmp(const void *pa, const void *pb)
{
	const struct upper *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	return c ? c : a->u < b->u ? -1 : a->u > b->u;
}

static void pair_label(char *buf, size_t len, size_t n, const char *rate)
{
	if (n > 1)
		snprintf(buf, len, "%zu × %s", n, rate[0] ? rate : "?");
	else
		snprintf(buf, len, "%s", rate[0] ? rate : "?");
}

/*
 * u's pairs from links[i] (sorted by u, then w): a key when every pair of u
 * to the tier below is healthy, merged whole and has one label; NULL else.
 * *end: where u's links end.
 */
static char *upper_key(const struct draw *d, size_t i, size_t *end)
{
	size_t u = d->links[i].u, j, best, best_n, n_pairs = 0;
	struct strbuf sb = STRBUF_INIT;
	char label[48] = "", l2[48];
	bool ok = u < d->f->n_nodes && d->tier[u] >= 2;

	for (; i < d->n_links && d->links[i].u == u; i = j) {
		const struct dlink *l = &d->links[i];
		j = draw_merged_set(d, i, &best, &best_n);
		if (d->tier[l->w] != d->tier[u] - 1)
			continue; /* a cable to another tier: drawn as usual, it does not stop the bundle */
		if (l->w >= d->f->n_nodes || best_n != j - i) {
			ok = false;
			continue;
		}
		pair_label(l2, sizeof(l2), best_n, l->rate);
		if (!n_pairs)
			memcpy(label, l2, sizeof(label));
		else if (strcmp(label, l2))
			ok = false;
		sb_addf(&sb, "%s%zu", n_pairs ? "," : "", l->w);
		n_pairs++;
	}
	*end = i;
	if (!ok || n_pairs < 2) {
		sb_free(&sb);
		return NULL;
	}
	{
		char *key = xasprintf("%s|%s", label, sb_str(&sb));
		sb_free(&sb);
		return key;
	}
}

size_t *draw_find_bundles(struct draw *d)
{
	size_t *bundle_of = xcalloc(d->n_links ? d->n_links : 1, sizeof(*bundle_of));
	struct upper *v = xcalloc(d->n_links ? d->n_links : 1, sizeof(*v));
	size_t n = 0, i, j, k, cap = 0;

	if (d->o->heat) {
		free(v);
		return bundle_of;
	}
	for (i = 0; i < d->n_links; i = j) {
		char *key = upper_key(d, i, &j);
		if (key)
			v[n++] = (struct upper){ d->links[i].u, key, i, j };
	}
	if (n)
		qsort(v, n, sizeof(*v), upper_cmp);
	for (i = 0; i < n; i = j) {
		struct dbundle *b;
		size_t n_down = 1;
		const char *bar = strchr(v[i].key, '|'), *p;
		for (j = i + 1; j < n && !strcmp(v[i].key, v[j].key); j++)
			;
		for (p = bar; *p; p++)
			n_down += *p == ',';
		if (j - i < 2 || (j - i) * n_down < BUNDLE_MIN_PAIRS)
			continue;
		d->bundles = xgrow(d->bundles, &cap, d->n_bundles + 1, sizeof(*d->bundles));
		b = &d->bundles[d->n_bundles++];
		memset(b, 0, sizeof(*b));
		snprintf(b->label, sizeof(b->label), "%.*s", (int)(bar - v[i].key), v[i].key);
		b->up = xcalloc(j - i, sizeof(*b->up));
		b->down = xcalloc(n_down, sizeof(*b->down));
		for (p = bar + 1; *p;) {
			char *e;
			b->down[b->n_down++] = (size_t)strtoull(p, &e, 10);
			p = *e ? e + 1 : e;
		}
		for (k = i; k < j; k++) {
			size_t m;
			b->up[b->n_up++] = v[k].u;
			for (m = v[k].first; m < v[k].end; m++)
				if (d->tier[d->links[m].w] == d->tier[v[k].u] - 1) {
					bundle_of[m] = d->n_bundles;
					b->n_cables++;
				}
		}
	}
	for (i = 0; i < n; i++)
		free(v[i].key);
	free(v);
	return bundle_of;
}

size_t draw_bundle_ranks(const struct draw *d)
{
	size_t b, n = 0;
	int seen[64] = { 0 };

	for (b = 0; b < d->n_bundles; b++) {
		int t = d->tier[d->bundles[b].up[0]];
		if (t >= 0 && t < 64 && !seen[t]++)
			n++;
	}
	return n;
}

/* One edge between switch s and bundle b's junction: its cables in the tooltip, their ports mapped to it. */
static void write_arm(struct draw *d, struct render_drawing *out, size_t *cap_ports, const size_t *bundle_of,
		      size_t b, size_t s, bool up)
{
	struct strbuf tip = STRBUF_INIT;
	size_t i, n = 0;
	char *id = up ? xasprintf("e-%s-b%zu", d->key[s], b + 1) : xasprintf("e-b%zu-%s", b + 1, d->key[s]);

	for (i = 0; i < d->n_links; i++) {
		const struct dlink *c = &d->links[i];
		if (bundle_of[i] != b + 1 || (up ? c->u : c->w) != s)
			continue;
		sb_addf(&tip, "%s", n++ ? "\n" : "");
		sb_adds(&tip, ibs_node_name(c->a));
		sb_addf(&tip, " [%u] -- [%u] ", c->pa, c->pb);
		sb_adds(&tip, ibs_node_name(c->b));
		sb_addf(&tip, " %s", c->rate);
		/* Each end of a cable is drawn as the arm at its own switch. */
		if (c->a->index == s)
			draw_add_id(&out->ports, &out->n_ports, cap_ports, c->a, c->pa, id);
		else
			draw_add_id(&out->ports, &out->n_ports, cap_ports, c->b, c->pb, id);
	}
	if (up) {
		sb_addf(&d->sb, "\t\"%s\" -- \"b%zu\" [id=\"%s\", ", d->id[s], b + 1, id);
		draw_grid_route_to(d, s, d->bundles[b].jx, d->bundles[b].jy, &d->sb);
		sb_addf(&d->sb, "penwidth=%.1f, tooltip=", fmin(1 + log2((double)(n ? n : 1)), 3));
	} else {
		sb_addf(&d->sb, "\t\"b%zu\" -- \"%s\" [id=\"%s\", ", b + 1, d->id[s], id);
		draw_grid_route_from(d, d->bundles[b].jx, d->bundles[b].jy, s, &d->sb);
		sb_addf(&d->sb, "penwidth=%.1f, tooltip=", fmin(1 + log2((double)(n ? n : 1)), 3));
	}
	draw_dot_str(&d->sb, sb_str(&tip));
	sb_adds(&d->sb, "];\n");
	sb_free(&tip);
	free(id);
	out->n_drawn_edges++;
}

void draw_write_bundles(struct draw *d, struct render_drawing *out, size_t *cap_ports, const size_t *bundle_of)
{
	size_t b, k;

	for (b = 0; b < d->n_bundles; b++) {
		const struct dbundle *x = &d->bundles[b];
		char what[128];
		snprintf(what, sizeof(what), "%zu × %zu mesh: %s each, %zu cables", x->n_up, x->n_down, x->label,
			 x->n_cables);
		sb_addf(&d->sb, "\t\"b%zu\" [id=\"b%zu\", shape=point, width=0.12, color=\"#555555\", ", b + 1, b + 1);
		if (d->grid)
			sb_addf(&d->sb, "pos=\"%.1f,%.1f!\", ", x->jx, x->jy);
		sb_adds(&d->sb, "xlabel=");
		draw_dot_str(&d->sb, what);
		sb_adds(&d->sb, ", tooltip=");
		draw_dot_str(&d->sb, what);
		sb_adds(&d->sb, "];\n");
		out->n_drawn_nodes++;
		for (k = 0; k < x->n_up; k++)
			write_arm(d, out, cap_ports, bundle_of, b, x->up[k], true);
		for (k = 0; k < x->n_down; k++)
			write_arm(d, out, cap_ports, bundle_of, b, x->down[k], false);
	}
	for (b = 0; b < d->n_bundles; b++) {
		free(d->bundles[b].up);
		free(d->bundles[b].down);
	}
	free(d->bundles);
	d->bundles = NULL;
	d->n_bundles = 0;
}
