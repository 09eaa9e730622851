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
#include "../fabric/model/levels.h"

#include <stdlib.h>
#include <string.h>

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

double draw_est_width(const struct draw *d, size_t e, char **names)
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
		w[i] = draw_est_width(d, all[i].e, names);
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
