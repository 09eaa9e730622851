/*
 * The drawing's cables in DOT: parallel cables that agree merged into one
 * edge ("18 × 4xEDR"), the label most switch-tier edges share said once in
 * the legend, every other cable drawn alone with its ports and what is
 * wrong with it (see draw.h). Fabric strings reach DOT only through
 * draw_dot_str().
 */
#include "draw.h"
#include "draw_int.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../fabric/model/names.h"
#include "../fabric/model/rate.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int link_cmp(const void *pa, const void *pb)
{
	const struct dlink *a = pa, *b = pb;

	if (a->u != b->u)
		return a->u < b->u ? -1 : 1;
	if (a->w != b->w)
		return a->w < b->w ? -1 : 1;
	if ((a->kind == K_OK) != (b->kind == K_OK))
		return a->kind == K_OK ? -1 : 1;
	return strcmp(a->rate, b->rate);
}

/* Ends of a cable in id order: the smaller GUID first. */
static void ends(const struct dlink *l, const struct ibs_node **x, unsigned *px, const struct ibs_node **y,
		 unsigned *py)
{
	bool swap = l->b->ni.node_guid < l->a->ni.node_guid ||
		    (l->b->ni.node_guid == l->a->ni.node_guid && l->b->index < l->a->index);

	*x = swap ? l->b : l->a;
	*px = swap ? l->pb : l->pa;
	*y = swap ? l->a : l->b;
	*py = swap ? l->pa : l->pb;
}

static void write_edge_attrs(struct strbuf *sb, const char *color, const char *style, double pen)
{
	if (color)
		sb_addf(sb, ", color=\"%s\", fontcolor=\"%s\"", color, color);
	if (style)
		sb_addf(sb, ", style=%s", style);
	if (pen != 1)
		sb_addf(sb, ", penwidth=%.1f", pen);
}

/*
 * The cables between one pair of drawn nodes start at links[i] (sorted):
 * returns where they end; *best, *best_n: the largest healthy set at one
 * rate, merged into one edge (*best_n 0 when every cable has a problem).
 */
size_t draw_merged_set(const struct draw *d, size_t i, size_t *best, size_t *best_n)
{
	size_t j, k, n;

	*best = i;
	*best_n = 0;
	for (j = i; j < d->n_links && d->links[j].u == d->links[i].u && d->links[j].w == d->links[i].w; j++)
		;
	for (k = i; k < j; k += n) {
		for (n = 0; k + n < j && d->links[k + n].kind == K_OK && !strcmp(d->links[k + n].rate, d->links[k].rate);
		     n++)
			;
		if (!n) {
			n = 1;
			continue;
		}
		if (n > *best_n) {
			*best = k;
			*best_n = n;
		}
	}
	return j;
}

/*
 * Two no-break spaces each side of an edge's xlabel: dot places an xlabel's
 * box against the edge's centre line without counting its penwidth, so a
 * merged edge (up to 5 points wide) would touch the text.
 */
#define XPAD "\xc2\xa0\xc2\xa0"

static void edge_label(char *buf, size_t len, size_t n, const char *rate)
{
	if (n > 1)
		snprintf(buf, len, "%zu × %s", n, rate[0] ? rate : "?");
	else
		snprintf(buf, len, "%s", rate[0] ? rate : "?");
}

/*
 * Between two switch tiers, the label most merged edges carry (every
 * leaf-spine pair "2 × 4xEDR"): dozens of identical labels crossing in the
 * middle say nothing, so such a label goes once into the legend and the
 * edges that differ keep theirs.
 */
void draw_find_common(struct draw *d)
{
	size_t i, j, c, best, best_n;

	if (d->n_links)
		qsort(d->links, d->n_links, sizeof(*d->links), link_cmp);
	for (i = 0; i < d->n_links; i = j) {
		const struct dlink *l;
		char label[48];

		j = draw_merged_set(d, i, &best, &best_n);
		l = &d->links[best];
		if (!best_n || d->tier[l->u] < 1 || d->tier[l->w] < 1)
			continue;
		edge_label(label, sizeof(label), best_n, l->rate);
		for (c = 0; c < d->n_common; c++)
			if (d->common[c].tu == d->tier[l->u] && d->common[c].tw == d->tier[l->w] &&
			    !strcmp(d->common[c].label, label))
				break;
		if (c == d->n_common) {
			d->common = xgrow(d->common, &d->cap_common, d->n_common + 1, sizeof(*d->common));
			memset(&d->common[c], 0, sizeof(d->common[c]));
			d->common[c].tu = d->tier[l->u];
			d->common[c].tw = d->tier[l->w];
			snprintf(d->common[c].label, sizeof(d->common[c].label), "%s", label);
			d->n_common++;
		}
		d->common[c].n++;
	}
	/* Per tier pair, the most frequent label is shared when it is on 4 edges or more. */
	for (c = 0; c < d->n_common; c++) {
		bool top = d->common[c].n >= 4;
		for (j = 0; j < d->n_common && top; j++)
			if (j != c && d->common[j].tu == d->common[c].tu && d->common[j].tw == d->common[c].tw &&
			    (d->common[j].n > d->common[c].n || (d->common[j].n == d->common[c].n && j < c)))
				top = false;
		d->common[c].shared = top;
	}
}

/* The busiest cable's value (its busier way) among n from links[i]; *least: the least busy one's. */
static uint64_t busiest(const struct draw *d, size_t i, size_t n, uint64_t *least)
{
	uint64_t hi = 0, lo = 0, up, down, v;
	size_t m;

	for (m = 0; m < n; m++) {
		draw_heat_cable(d, &d->links[i + m], &up, &down);
		v = up > down ? up : down;
		if (!m || v > hi)
			hi = v;
		if (!m || v < lo)
			lo = v;
	}
	if (least)
		*least = lo;
	return hi;
}

/* A merged edge's first tooltip line: its busiest cable's counts, and the spread over its cables. */
static void heat_head(const struct draw *d, struct strbuf *tip, size_t i, size_t n)
{
	uint64_t lo, hi = busiest(d, i, n, &lo);
	size_t m;

	for (m = 0; m < n; m++) {
		uint64_t up, down;
		draw_heat_cable(d, &d->links[i + m], &up, &down);
		if ((up > down ? up : down) == hi)
			break;
	}
	draw_heat_counts(d, tip, &d->links[i + (m < n ? m : 0)]);
	if (n > 1)
		sb_addf(tip, ", the busiest of %zu cables (their busier way: %" PRIu64 " to %" PRIu64 " routes)", n, lo, hi);
}

void draw_write_edges(struct draw *d, struct render_drawing *out, size_t *cap_ports)
{
	struct strbuf *sb = &d->sb;
	size_t i, j, k;
	const size_t *bundle_of = d->bundle_of;

	draw_write_bundles(d, out, cap_ports, bundle_of);
	for (i = 0; i < d->n_links; i = j) {
		size_t best, best_n;
		const char *common = NULL;

		j = draw_merged_set(d, i, &best, &best_n);
		if (bundle_of[i])
			continue; /* drawn in its bundle */
		if (best_n) {
			const struct dlink *l = &d->links[best];
			char label[48];
			size_t c;
			edge_label(label, sizeof(label), best_n, l->rate);
			for (c = 0; c < d->n_common; c++)
				if (d->common[c].tu == d->tier[l->u] && d->common[c].tw == d->tier[l->w] &&
				    !strcmp(d->common[c].label, label) && d->common[c].shared)
					common = d->common[c].label;
		}
		for (k = i; k < j; k++) {
			const struct dlink *l = &d->links[k];
			const struct ibs_node *x, *y;
			unsigned px, py;
			char *id;
			struct strbuf tip = STRBUF_INIT;
			bool merged = best_n && k >= best && k < best + best_n;
			size_t m;

			ends(l, &x, &px, &y, &py);
			if (merged && k != best)
				continue;
			if (merged && (l->u >= d->f->n_nodes || l->w >= d->f->n_nodes))
				id = xasprintf("e-%s-%s", d->key[l->u], d->key[l->w]);
			else if (merged)
				id = xasprintf("e-%s-%s", d->key[x->index], d->key[y->index]);
			else
				id = xasprintf("e-%s-%u-%s-%u", d->key[x->index], px, d->key[y->index], py);
			sb_addf(sb, "\t\"%s\" -- \"%s\" [id=\"%s\", ", d->id[l->u], d->id[l->w], id);
			draw_grid_route(d, l->u, l->w, sb);
			if (merged) {
				char label[48];
				edge_label(label, sizeof(label), best_n, l->rate);
				/* The label most edges between two switch tiers share is said once, in the legend. */
				/* An Aggregation Node's cable is inside its switch: its rate is in the tooltip. */
				/* A routed cable ends at its group, which says its hosts and rate: no label by the channel. */
				if (common || (d->grid && d->block_of && d->block_of[l->w] == l->u + 1 && l->w >= d->f->n_nodes))
					sb_addf(sb, "comment=\"%s\", weight=%zu", label, best_n);
				else
					sb_addf(sb, "xlabel=\"" XPAD "%s" XPAD "\", weight=%zu", label, best_n);
				if (d->o->heat)
					heat_head(d, &tip, best, best_n);
				for (m = 0; m < best_n; m++) {
					const struct dlink *c = &d->links[best + m];
					sb_addf(&tip, "%s", m || d->o->heat ? "\n" : "");
					sb_adds(&tip, ibs_node_name(c->a));
					sb_addf(&tip, " [%u] -- [%u] ", c->pa, c->pb);
					sb_adds(&tip, ibs_node_name(c->b));
					sb_addf(&tip, " %s", c->rate);
					if (d->o->heat) {
						sb_adds(&tip, ": ");
						draw_heat_counts(d, &tip, c);
					}
					draw_add_id(&out->ports, &out->n_ports, cap_ports, c->a, c->pa, id);
					draw_add_id(&out->ports, &out->n_ports, cap_ports, c->b, c->pb, id);
				}
				if (d->o->heat) {
					char col[8];
					uint64_t v = busiest(d, best, best_n, NULL);
					/* The label stays grey: light green text would not read on white. */
					sb_addf(sb, ", color=\"%s\", penwidth=%.1f", draw_heat_color(d, v, col),
						draw_heat_pen(d, v));
				} else if (best_n > 1) {
					/* A routed cable runs in a channel beside others (draw_rows.c, CHAN_STEP apart): thinner. */
					bool routed = d->grid && d->block_of && d->block_of[l->w] == l->u + 1;
					write_edge_attrs(sb, NULL, NULL, fmin(1 + log2((double)best_n), routed ? 2 : 5));
				}
			} else {
				const char *color = COLOR_RATE, *style = NULL, *what = "other rate than its siblings";
				if (l->kind == K_DOWN) {
					color = COLOR_DOWN;
					style = "dashed";
					what = "not Active";
				} else if (l->kind == K_DEGRADED) {
					color = COLOR_DEGRADED;
					style = "bold";
					what = ibs_node_link_degraded(l->a, l->pa, l->b, l->pb, NULL)
						       ? "degraded"
						       : "held down by configuration";
				} else if (l->kind == K_FINDING) {
					color = l->sev >= IBS_SEV_CRITICAL ? COLOR_CRIT : COLOR_WARN;
					what = "finding";
				}
				sb_addf(sb, "xlabel=\"" XPAD "%u:%u %s" XPAD "\"", l->pa, l->pb, l->rate);
				sb_adds(&tip, ibs_node_name(l->a));
				sb_addf(&tip, " [%u] -- [%u] ", l->pa, l->pb);
				sb_adds(&tip, ibs_node_name(l->b));
				sb_addf(&tip, " %s: %s", l->rate[0] ? l->rate : "rate unknown", what);
				if (d->o->heat) {
					sb_adds(&tip, "\n");
					draw_heat_counts(d, &tip, l);
				}
				draw_mark_msgs(d, &tip, l->a, l->pa);
				draw_mark_msgs(d, &tip, l->b, l->pb);
				write_edge_attrs(sb, color, style, 2);
				draw_add_id(&out->ports, &out->n_ports, cap_ports, l->a, l->pa, id);
				draw_add_id(&out->ports, &out->n_ports, cap_ports, l->b, l->pb, id);
			}
			sb_adds(sb, ", tooltip=");
			draw_dot_str(sb, sb_str(&tip));
			sb_adds(sb, "];\n");
			sb_free(&tip);
			free(id);
			out->n_drawn_edges++;
		}
	}
}
