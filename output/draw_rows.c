/*
 * The rows of the fabric drawing (see draw.h): each tier on its own rank,
 * from the top (cores) down to the hosts; a tier too wide for one row
 * wrapped into several, so that the drawing keeps within DRAW_ASPECT_MAX
 * (wider than tall) however many switches a tier has; and the SHARP
 * Aggregation Nodes, which are CAs inside a switch, drawn in their switch.
 *
 * Widths are estimated here, before Graphviz lays anything out, from the
 * label lengths (Helvetica 10 pt: about 6 pt a character) and Graphviz's
 * own spacing (nodesep 0.3 in, ranksep 1.4 in): an estimate, and dot
 * spreads a wrapped row under the nodes it is cabled to, so the target is
 * 1:1, well inside the 4:1 the drawing promises.
 */
#include "draw.h"
#include "draw_int.h"
#include "../core/base/xalloc.h"
#include "../fabric/levels.h"

#include <stdlib.h>
#include <string.h>

/* What the rows aim at (width : height); the drawing promises at most 4:1. */
#define ASPECT_TARGET 1.0
#define NODESEP_PT 21.6  /* nodesep=0.3 (inches) */
#define RANK_PT 137.0    /* a rank: ranksep=1.4 in (100.8 pt) and a node of two lines (36 pt) */
#define LEGEND_PT 160.0  /* the legend, on its own rank at the top */
/*
 * No tier narrower than this is wrapped: a second row of a few spines costs
 * more crossings than the width it saves (fattree2-small's 9 spines in rows
 * of 5 and 4 read worse than one row).
 */
#define WRAP_MIN_PT 3000.0

/* The switch an Aggregation Node is inside (the switch on its port), or NULL. */
const struct ibs_node *draw_an_switch(const struct ibs_node *n)
{
	const struct ibs_port *pt;

	if (n->ni.node_type != IBS_NODE_CA || !ibs_is_aggregation_node(n))
		return NULL;
	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++)
		if (pt->peer && pt->peer->ni.node_type == IBS_NODE_SWITCH)
			return pt->peer;
	return NULL;
}

bool draw_is_beside(const struct draw *d, size_t e)
{
	return e < d->f->n_nodes && d->beside[e];
}

/*
 * An Aggregation Node is drawn inside its switch's box, as a line of its
 * label ("+ SHARP AN"), its name, GUID and LID in the switch's tooltip: not as
 * a node of its own (dot does not keep a node beside another on a rank, even
 * tied to it by an edge of weight 100: it was drawn 574 pt away).
 */
void draw_place_beside(struct draw *d)
{
	size_t i;

	for (i = 0; i < d->f->n_nodes; i++) {
		const struct ibs_node *sw = draw_an_switch(d->f->nodes[i]);
		if (!sw || d->tier[sw->index] < 0)
			continue;
		d->beside[i] = sw->index + 1;
		d->tier[i] = -2; /* not drawn */
		d->n_beside[sw->index]++;
	}
}

/* The estimated width of a drawn endpoint, in points. */
static double est_width(const struct draw *d, size_t e, char **names)
{
	size_t chars;
	double w;

	chars = strlen(names[e]);
	if (chars > 40)
		chars = 40;
	if (e >= d->f->n_nodes && chars < 16)
		chars = 16; /* a group's second line: "32 hosts, 4xHDR" */
	w = 6.0 * (double)chars + 18;
	return w < 54 ? 54 : w;
}

/* Rows of the tier all[0..n) (one tier) at most wmax wide: balanced, never breaking before a node drawn beside. */
static size_t split_tier(const struct draw *d, const struct ord *all, size_t n, const double *w, double wmax,
			 size_t *row_len)
{
	double total = 0;
	size_t rows, per, i, r = 0, in_row = 0;

	for (i = 0; i < n; i++)
		total += w[i] + (i ? NODESEP_PT : 0);
	rows = total <= wmax ? 1 : (size_t)(total / wmax) + 1;
	if (rows > n)
		rows = n;
	per = (n + rows - 1) / rows;
	if (!row_len)
		return rows;
	for (i = 0; i < n; i++) {
		if (in_row >= per && !draw_is_beside(d, all[i].e)) {
			r++;
			in_row = 0;
		}
		row_len[r]++;
		in_row++;
	}
	return r + 1;
}

/*
 * The hosts' rows (all[h0..h1)) follow their leaves' (all[l0..h0), rows row_len[..k)): a host,
 * or a group, in the row under its first leaf's, so that its cables stay short; a row of hosts
 * still too wide is wrapped again. Returns the rows added at row_len + k.
 */
static size_t split_hosts(const struct draw *d, const struct ord *all, size_t l0, size_t h0, size_t h1,
			  const double *w, double wmax, size_t *row_len, size_t k)
{
	size_t n_ep = d->f->n_nodes + d->n_groups, *leaf_row = xcalloc(n_ep, sizeof(*leaf_row));
	size_t i, r, m, first, made = 0, cur = 0, rows_l = 0, acc = 0, from;

	/* The leaves' rows: the rows before k whose total reaches back to l0. */
	for (r = k; r > 0 && acc < h0 - l0; r--)
		acc += row_len[r - 1];
	for (i = l0, m = r; m < k; m++, rows_l++)
		for (first = i; i < first + row_len[m]; i++)
			leaf_row[all[i].e] = rows_l + 1;
	/* A host's leaf row: of its first cable to a leaf. */
	for (i = 0; i < d->n_links; i++) {
		const struct dlink *l = &d->links[i];
		if (d->tier[l->u] == 1 && d->tier[l->w] == 0 && leaf_row[l->u] && leaf_row[l->w] == 0)
			leaf_row[l->w] = leaf_row[l->u]; /* hosts' entries: their leaf's row (1-based), kept apart by tier */
	}
	from = h0;
	cur = leaf_row[all[h0].e];
	for (i = h0 + 1; i <= h1; i++) {
		size_t lr = i < h1 ? leaf_row[all[i].e] : 0;
		if (i < h1 && lr <= cur)
			continue;
		made += split_tier(d, all + from, i - from, w + from, wmax * 1.5, row_len + k + made);
		from = i;
		cur = lr;
	}
	free(leaf_row);
	return made;
}

/* The tiers of all[0..n), each [start, end): returns how many. */
static size_t tier_spans(const struct draw *d, const struct ord *all, size_t n, size_t *start)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!i || d->tier[all[i].e] != d->tier[all[i - 1].e])
			start[k++] = i;
	start[k] = n;
	return k;
}

size_t draw_plan_rows(const struct draw *d, const struct ord *all, size_t n, char **names, size_t extra_ranks,
		      size_t **row_len)
{
	double *w = xcalloc(n ? n : 1, sizeof(*w)), wmax = 0, widest = 0;
	size_t *start = xcalloc(n + 2, sizeof(*start)), n_tiers, t, i, rows = 0, k;

	for (i = 0; i < n; i++) {
		w[i] = est_width(d, all[i].e, names);
		if (w[i] > widest)
			widest = w[i];
	}
	n_tiers = tier_spans(d, all, n, start);
	for (t = 0; t < n_tiers; t++) {
		double tw = 0;
		for (i = start[t]; i < start[t + 1]; i++)
			tw += w[i] + (i > start[t] ? NODESEP_PT : 0);
		if (tw > wmax)
			wmax = tw;
	}
	/* The widest row that keeps width : height at the target, shrinking by a tenth at a time. */
	for (;;) {
		double height, width = 0;
		rows = 0;
		for (t = 0; t < n_tiers; t++)
			rows += split_tier(d, all + start[t], start[t + 1] - start[t], w + start[t], wmax, NULL);
		height = (double)(rows + extra_ranks) * RANK_PT + LEGEND_PT;
		width = wmax;
		if (width / height <= ASPECT_TARGET || wmax * 0.9 < widest || wmax * 0.9 < WRAP_MIN_PT)
			break;
		wmax *= 0.9;
	}
	*row_len = xcalloc(rows + n + 1, sizeof(**row_len));
	for (t = k = 0; t < n_tiers; t++) {
		if (d->tier[all[start[t]].e] == 0 && t && d->tier[all[start[t - 1]].e] == 1)
			k += split_hosts(d, all, start[t - 1], start[t], start[t + 1], w, wmax, *row_len, k);
		else
			k += split_tier(d, all + start[t], start[t + 1] - start[t], w + start[t], wmax, *row_len + k);
	}
	free(w);
	free(start);
	return k;
}

static int jx_cmp(const void *pa, const void *pb)
{
	const struct dbundle *a = *(const struct dbundle *const *)pa, *b = *(const struct dbundle *const *)pb;

	if (a->jy != b->jy)
		return a->jy < b->jy ? -1 : 1;
	return a->jx < b->jx ? -1 : a->jx > b->jx;
}

/*
 * The junctions of one rank (the pods' meshes, the core groups') would sit
 * on top of each other at their switches' mean x: spread evenly over the
 * widest row, in the order of those means.
 */
static void spread_junctions(struct draw *d, double width)
{
	struct dbundle **v = xcalloc(d->n_bundles ? d->n_bundles : 1, sizeof(*v));
	size_t i, j, k;

	for (i = 0; i < d->n_bundles; i++)
		v[i] = &d->bundles[i];
	if (d->n_bundles)
		qsort(v, d->n_bundles, sizeof(*v), jx_cmp);
	for (i = 0; i < d->n_bundles; i = j) {
		for (j = i + 1; j < d->n_bundles && v[j]->jy == v[i]->jy; j++)
			;
		if (j - i < 2)
			continue;
		for (k = i; k < j; k++)
			v[k]->jx = -width / 2 + width * ((double)(k - i) + 0.5) / (double)(j - i);
	}
	free(v);
}

/*
 * The grid: each row centred on x = 0, its nodes side by side at their
 * estimated widths (a tenth more, for safety) and nodesep apart; rows from
 * the top down RANK_PT apart, a rank more between two tiers (where the
 * bundles' junctions go, half-way, at the mean x of their switches); the
 * legend above the top row.
 */
void draw_grid_positions(struct draw *d, const struct ord *all, size_t n_rows, const size_t *row_len, char **names)
{
	size_t r, m, first = 0, b, k;
	double y = 0, *tier_low = xcalloc(66, sizeof(*tier_low)), *tier_high = xcalloc(66, sizeof(*tier_high));
	double tier_width = 0;
	int t, prev = -3;

	for (r = 0; r < n_rows; r++) {
		double width = 0, x;
		t = d->tier[all[first].e];
		if (r && t != prev)
			y -= RANK_PT; /* the junctions' rank */
		if (t >= 0 && t < 64) {
			if (t != prev)
				tier_high[t] = y;
			tier_low[t] = y;
		}
		for (m = first; m < first + row_len[r]; m++)
			width += est_width(d, all[m].e, names) * 1.1 + (m > first ? NODESEP_PT : 0);
		x = -width / 2;
		if (width > tier_width)
			tier_width = width;
		for (m = first; m < first + row_len[r]; m++) {
			double w = est_width(d, all[m].e, names) * 1.1;
			d->gx[all[m].e] = x + w / 2;
			d->gy[all[m].e] = y;
			x += w + NODESEP_PT;
		}
		prev = t;
		first += row_len[r];
		y -= RANK_PT;
	}
	d->legend_y = LEGEND_PT / 2 + RANK_PT / 2;
	for (b = 0; b < d->n_bundles; b++) {
		struct dbundle *x = &d->bundles[b];
		double sum = 0;
		t = d->tier[x->up[0]];
		for (k = 0; k < x->n_up; k++)
			sum += d->gx[x->up[k]];
		for (k = 0; k < x->n_down; k++)
			sum += d->gx[x->down[k]];
		x->jx = sum / (double)(x->n_up + x->n_down);
		x->jy = t >= 1 && t < 64 ? (tier_low[t] + tier_high[t - 1]) / 2 : 0;
	}
	spread_junctions(d, tier_width);
	free(tier_low);
	free(tier_high);
}
