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
 * The grid's leaves and hosts: each leaf with its hosts (its host groups,
 * and the hosts drawn alone whose first leaf it is) in a block under it,
 * in the same column. Leaves wrap into r rows of c columns; the blocks of
 * leaf row i are in host row r - 1 - i, so that in every column the
 * cables nest: each leaf's cables go out below it to a channel of their
 * own at the column's right (the top row's outermost), down it, and in
 * above their block. No leaf-host cable crosses another or runs through a
 * box (tests/drawscale.py, "blocks"); with every host in the row under its
 * leaves (as before), the cables of a wrapped leaf tier fanned out across
 * each other and through the other rows.
 */
#define HOST_PITCH 60.0  /* the rows of one block: a node (36 pt) and room for the cables coming in above it */
#define HOST_GAP 40.0    /* between two host rows */
#define CHAN_STEP 6.0    /* between two cables in a channel */

struct leafcol {
	size_t e;        /* the leaf's drawn endpoint */
	size_t *hosts, n_hosts, bc; /* its block's endpoints, in order; the block's columns */
	double bw;       /* the block's width */
};

/* A block's endpoint's width: a host drawn alone is an ellipse, wider than its label's box. */
static double block_width(const struct draw *d, size_t e, char **names)
{
	size_t chars;

	if (e >= d->f->n_nodes)
		return est_width(d, e, names) * 1.1;
	/* Its label is the node's own name ("node0005 mlx5_0"), not the host's. */
	chars = strlen(ibs_node_name(d->f->nodes[e]));
	return (6.0 * (double)(chars > 40 ? 40 : chars) + 18) * 1.1 * 1.45;
}

/* The block of each leaf of all[l0..l1) from the hosts of all[h0..h1): leaves by their position. */
static struct leafcol *leaf_blocks(struct draw *d, const struct ord *all, size_t l0, size_t l1, size_t h0, size_t h1,
				   char **names)
{
	size_t n_ep = d->f->n_nodes + d->n_groups, i, k, *col = xcalloc(n_ep, sizeof(*col));
	struct leafcol *v = xcalloc(l1 - l0 + 1, sizeof(*v));

	for (i = l0; i < l1; i++) {
		v[i - l0].e = all[i].e;
		col[all[i].e] = i - l0 + 1;
	}
	/* A host's block: its leaf first in the tier's order. */
	for (i = 0; i < d->n_links; i++) {
		const struct dlink *l = &d->links[i];
		size_t b;
		if (d->tier[l->u] != 1 || d->tier[l->w] != 0 || !col[l->u])
			continue;
		b = d->block_of[l->w];
		if (!b || col[l->u] < col[b - 1])
			d->block_of[l->w] = l->u + 1;
	}
	for (i = h0; i < h1; i++) {
		size_t b = d->block_of[all[i].e];
		struct leafcol *c;
		if (!b)
			continue;
		c = &v[col[b - 1] - 1];
		c->hosts = xrealloc(c->hosts, (c->n_hosts + 1) * sizeof(*c->hosts));
		c->hosts[c->n_hosts++] = all[i].e;
	}
	for (k = 0; k < l1 - l0; k++) {
		struct leafcol *c = &v[k];
		double rw = 0;
		c->bc = 1;
		while (c->bc * c->bc < c->n_hosts)
			c->bc++;
		for (i = 0; i < c->n_hosts; i++) {
			if (i % c->bc == 0)
				rw = 0;
			rw += block_width(d, c->hosts[i], names) + (i % c->bc ? NODESEP_PT : 0);
			if (rw > c->bw)
				c->bw = rw;
		}
		rw = est_width(d, c->e, names) * 1.1;
		if (rw > c->bw)
			c->bw = rw;
	}
	free(col);
	return v;
}

/*
 * A column's room at its left, for the drops of the cables from above into the leaves of its
 * rows under the first (the last row's outermost, DROP_STEP apart): none with one row.
 */
#define DROP_STEP 2.0 /* between two drops: each carries one leaf's cables; a third of a channel's step keeps a tall grid (29,938 nodes) within 16,000 px */

static double drop_room(size_t r)
{
	return r > 1 ? NODESEP_PT / 2 + DROP_STEP * (double)(r - 2) + 4 : 0;
}

/* The columns' widths with r rows of leaves (cw[0..cols), each with its channel and drops); returns the total. */
static double leaf_columns(const struct leafcol *v, size_t n, size_t r, double *cw)
{
	size_t cols = (n + r - 1) / r, i;
	double total = 0, chan = NODESEP_PT + CHAN_STEP * (double)r + drop_room(r);

	for (i = 0; i < cols; i++)
		cw[i] = 0;
	for (i = 0; i < n; i++)
		if (v[i].bw > cw[i % cols])
			cw[i % cols] = v[i].bw;
	for (i = 0; i < cols; i++) {
		cw[i] += chan;
		total += cw[i];
	}
	return total;
}

/* The height of r rows of leaves and their blocks. */
static double leaf_height(const struct leafcol *v, size_t n, size_t r)
{
	size_t cols = (n + r - 1) / r, i, row;
	double h = (double)r * RANK_PT;

	for (row = 0; row < r; row++) {
		size_t deepest = 1;
		for (i = row * cols; i < n && i < (row + 1) * cols; i++) {
			size_t q = v[i].n_hosts ? (v[i].n_hosts + v[i].bc - 1) / v[i].bc : 1;
			if (q > deepest)
				deepest = q;
		}
		h += (double)deepest * HOST_PITCH + HOST_GAP;
	}
	return h;
}

/*
 * Leaves all[l0..l1) and hosts all[h0..h1) from y (the leaves' first row) down, at most as
 * wide as the rows above (width) or as the height allows; returns the y below the last
 * host row. Hosts in no leaf's block go in rows of their own at the bottom.
 */
static double grid_leaves(struct draw *d, const struct ord *all, size_t l0, size_t l1, size_t h0, size_t h1,
			  double y, double *width, char **names, double *tier_low)
{
	size_t n = l1 - l0, r, cols, i, q, row, lone = 0;
	struct leafcol *v = leaf_blocks(d, all, l0, l1, h0, h1, names);
	double *cw = xcalloc(n + 1, sizeof(*cw)), total = 0, x, hy;

	/*
	 * The fewest rows that make the leaves no wider than the rows above, or the drawing no
	 * wider than tall, and keep them within 11,500 pt (16,000 px less the margins).
	 */
	for (r = 1; r < n; r++) {
		double w = leaf_columns(v, n, r, cw), h = -y + leaf_height(v, n, r) + LEGEND_PT;
		if (w <= 11500 && (w <= *width || w / h <= ASPECT_TARGET))
			break;
	}
	total = leaf_columns(v, n, r, cw);
	cols = (n + r - 1) / r;
	if (total > *width)
		*width = total;
	tier_low[1] = y - (double)(r - 1) * RANK_PT;
	hy = y - (double)r * RANK_PT;
	for (row = r; row-- > 0;) {
		/* Host row r - 1 - row: the blocks of leaf row `row`. */
		size_t deepest = 1;
		for (i = row * cols; i < n && i < (row + 1) * cols; i++) {
			struct leafcol *c = &v[i];
			size_t col = i % cols, k;
			double left, cx, chan = NODESEP_PT + CHAN_STEP * (double)r, lm = drop_room(r);
			for (k = 0, left = -total / 2; k < col; k++)
				left += cw[k];
			cx = left + lm + (cw[col] - chan - lm) / 2;
			d->gx[c->e] = cx;
			d->gy[c->e] = y - (double)row * RANK_PT;
			d->exit_y[c->e] = d->gy[c->e] - RANK_PT / 2;
			/*
			 * Its cables from above: across the band above the leaves, down its drop (the first
			 * row's: straight down), and in above it, under the cables of the leaf above going out.
			 */
			d->leaf_row[c->e] = row + 1;
			d->drop_x[c->e] = row ? left + NODESEP_PT / 2 + DROP_STEP * (double)(r - 1 - row) : cx;
			d->in_y[c->e] = d->gy[c->e] + RANK_PT / 4;
			/* The top row's channel outermost: the cables of the rows under it come out inside it. */
			d->chan_x[c->e] = left + cw[col] - chan + NODESEP_PT / 2 + CHAN_STEP * (double)(r - row);
			for (q = 0; q * c->bc < c->n_hosts; q++) {
				size_t from = q * c->bc, to = from + c->bc < c->n_hosts ? from + c->bc : c->n_hosts;
				double rw = 0, hx;
				for (k = from; k < to; k++)
					rw += block_width(d, c->hosts[k], names) + (k > from ? NODESEP_PT : 0);
				hx = cx - rw / 2;
				for (k = from; k < to; k++) {
					double w = block_width(d, c->hosts[k], names);
					d->gx[c->hosts[k]] = hx + w / 2;
					d->gy[c->hosts[k]] = hy - (double)q * HOST_PITCH;
					d->feed_y[c->hosts[k]] = d->gy[c->hosts[k]] + HOST_PITCH / 2;
					hx += w + NODESEP_PT;
				}
			}
			if (q > deepest)
				deepest = q;
		}
		hy -= (double)deepest * HOST_PITCH + HOST_GAP;
	}
	/* Hosts on no leaf: a row of their own (wrapped at the width). */
	for (i = h0, x = 0; i < h1; i++) {
		double w;
		if (d->block_of[all[i].e])
			continue;
		w = block_width(d, all[i].e, names);
		if (lone && x + w > *width) {
			hy -= HOST_PITCH + HOST_GAP;
			x = 0;
		}
		d->gx[all[i].e] = -*width / 2 + x + w / 2;
		d->gy[all[i].e] = hy;
		x += w + NODESEP_PT;
		lone++;
	}
	for (i = 0; i < n; i++)
		free(v[i].hosts);
	free(v);
	free(cw);
	return hy;
}

/* Straight pieces as Bezier segments (each a point, its end twice), from (x, y) through pts[0..n). */
static void put_route(struct strbuf *sb, double x, double y, const double (*pts)[2], size_t n)
{
	size_t i;

	sb_addf(sb, "pos=\"%.1f,%.1f", x, y);
	for (i = 0; i < n; i++) {
		sb_addf(sb, " %.1f,%.1f %.1f,%.1f %.1f,%.1f", x, y, pts[i][0], pts[i][1], pts[i][0], pts[i][1]);
		x = pts[i][0];
		y = pts[i][1];
	}
	sb_adds(sb, "\", ");
}

/*
 * Cables down past the grid's rows (d->grows): where a row lies between a cable's ends and a
 * box of it is in the way (a tier wrapped into rows: the spines' upper row over the lower,
 * the cores' rows over each other), the cable goes aside just under the row above (each source
 * at a y of its own there) to the nearest gap between two boxes and down through it; elsewhere
 * it keeps its x. Straight pieces only, none through a box.
 */
#define BOX_HALF 28.0   /* half a box's height: a switch of three lines, with room */
#define PASS_CLEAR 4.0  /* a cable passing a row keeps this far from its boxes */

struct route {
	double (*pts)[2];
	size_t n, cap;
	double x0, y0;  /* where it starts */
};

static void route_add(struct route *r, double x, double y)
{
	if (r->n && r->pts[r->n - 1][0] == x && r->pts[r->n - 1][1] == y)
		return;
	r->pts = xgrow(r->pts, &r->cap, r->n + 1, sizeof(*r->pts));
	r->pts[r->n][0] = x;
	r->pts[r->n][1] = y;
	r->n++;
}

static double route_x(const struct route *r)
{
	return r->n ? r->pts[r->n - 1][0] : r->x0;
}

/* The source's place (0 .. 1) across the drawing: its own y where it runs across, its own x in a gap. */
static double source_frac(const struct draw *d, double x)
{
	double f = d->bus_x1 > d->bus_x0 ? (x - d->bus_x0) / (d->bus_x1 - d->bus_x0) : 0.5;

	return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* Where a cable at x passes row g: x when no box is in the way, else the middle of the nearest gap (by f, a little aside). */
static double row_gap(const struct grow *g, double x, double f)
{
	size_t i;
	double left, right;

	for (i = 0; i < g->n; i++)
		if (x > g->x0[i] - PASS_CLEAR && x < g->x1[i] + PASS_CLEAR)
			break;
	if (i == g->n)
		return x;
	left = i ? (g->x1[i - 1] + g->x0[i]) / 2 : g->x0[i] - NODESEP_PT / 2;
	right = i + 1 < g->n ? (g->x1[i] + g->x0[i + 1]) / 2 : g->x1[i] + NODESEP_PT / 2;
	return (x - left <= right - x ? left : right) + (f - 0.5) * 8;
}

/* r (from (x0, y0)) past every row strictly between y0 and y_end; returns the lowest of those rows' y (y0: none). */
static double route_pass(const struct draw *d, struct route *r, double y_end, double f)
{
	size_t k;
	double low = r->y0;

	for (k = 0; k < d->n_grows; k++) {
		const struct grow *g = &d->grows[k];
		double x = route_x(r), gx, hy;
		if (g->y >= r->y0 - 1 || g->y <= y_end + 1)
			continue;
		if (g->y < low)
			low = g->y;
		gx = row_gap(g, x, f);
		if (gx == x)
			continue;
		/* Aside just under the row above (a rank up): not as if into the box it passes. */
		hy = g->y + RANK_PT - BOX_HALF - 8 - 40 * f;
		route_add(r, x, hy);
		route_add(r, gx, hy);
	}
	return low;
}

/* Whether the straight line from (x0, y0) to (x1, y1) runs through a box of a row, other than its ends' own. */
static bool line_hits(const struct draw *d, double x0, double y0, double x1, double y1)
{
	size_t k, i;
	double lo = (y0 < y1 ? y0 : y1) - BOX_HALF, hi = (y0 > y1 ? y0 : y1) + BOX_HALF;

	for (k = 0; k < d->n_grows; k++) {
		const struct grow *g = &d->grows[k];
		double bl = g->y - BOX_HALF * 0.75, bh = g->y + BOX_HALF * 0.75;
		if (g->y < lo || g->y > hi)
			continue;
		for (i = 0; i < g->n; i++) {
			double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0, p[4], q[4];
			int j;
			if ((x0 >= g->x0[i] && x0 <= g->x1[i] && y0 >= bl && y0 <= bh) ||
			    (x1 >= g->x0[i] && x1 <= g->x1[i] && y1 >= bl && y1 <= bh))
				continue; /* an end's own box */
			p[0] = -dx, q[0] = x0 - g->x0[i], p[1] = dx, q[1] = g->x1[i] - x0;
			p[2] = -dy, q[2] = y0 - bl, p[3] = dy, q[3] = bh - y0;
			for (j = 0; j < 4 && t0 < t1; j++) {
				if (p[j] == 0) {
					if (q[j] < 0)
						t1 = -1;
				} else if (p[j] < 0) {
					if (q[j] / p[j] > t0)
						t0 = q[j] / p[j];
				} else if (q[j] / p[j] < t1)
					t1 = q[j] / p[j];
			}
			if (t0 < t1)
				return true;
		}
	}
	return false;
}

/*
 * From (x, y) down into drawn endpoint w of a row (not a routed leaf): nothing when the straight
 * line runs through no box; else down past the rows between, across just above w's row, and in.
 */
static void route_to_node(const struct draw *d, double x, double y, size_t w, struct strbuf *sb)
{
	struct route r = { .x0 = x, .y0 = y };
	double f = source_frac(d, x), hy = d->gy[w] + BOX_HALF + 6 + 30 * f;

	if (!line_hits(d, x, y, d->gx[w], d->gy[w]))
		return;
	route_pass(d, &r, d->gy[w], f);
	route_add(&r, route_x(&r), hy);
	route_add(&r, d->gx[w], hy);
	route_add(&r, d->gx[w], d->gy[w]);
	put_route(sb, x, y, r.pts, r.n);
	free(r.pts);
}

void draw_grid_route_to(const struct draw *d, size_t u, double x, double y, struct strbuf *sb)
{
	struct route r = { .x0 = 0 };
	double f, low;

	if (!d->grid || !d->gx)
		return;
	r.x0 = d->gx[u];
	r.y0 = d->gy[u];
	if (!line_hits(d, r.x0, r.y0, x, y))
		return;
	/* Straight down out of its row, past the rows under it, and on to the point. */
	f = source_frac(d, r.x0);
	route_add(&r, r.x0, r.y0 - BOX_HALF - 6);
	low = route_pass(d, &r, y, f);
	route_add(&r, route_x(&r), low - BOX_HALF - 6);
	route_add(&r, x, y);
	put_route(sb, r.x0, r.y0, r.pts, r.n);
	free(r.pts);
}

void draw_grid_route_from(const struct draw *d, double x, double y, size_t w, struct strbuf *sb)
{
	struct route r = { .x0 = x, .y0 = y };
	double by, f;

	if (!d->grid)
		return;
	if (!d->leaf_row || !d->leaf_row[w]) {
		route_to_node(d, x, y, w, sb);
		return;
	}
	/* Each source's own y in the band, by its x: two sources' pieces across never lie on one line. */
	f = source_frac(d, x);
	by = d->bus_hi - (d->bus_hi - d->bus_lo) * (0.1 + 0.8 * f);
	if (by > y)
		by = y;
	route_pass(d, &r, by, f);
	route_add(&r, route_x(&r), by);
	route_add(&r, d->drop_x[w], by);
	route_add(&r, d->drop_x[w], d->in_y[w]);
	route_add(&r, d->gx[w], d->in_y[w]);
	route_add(&r, d->gx[w], d->gy[w]);
	put_route(sb, x, y, r.pts, r.n);
	free(r.pts);
}

void draw_grid_route(const struct draw *d, size_t u, size_t w, struct strbuf *sb)
{
	double ux, uy, wx, wy, cx, ey, fy;

	if (d->grid && d->tier[u] > d->tier[w] && !(d->block_of && d->block_of[w] == u + 1)) {
		draw_grid_route_from(d, d->gx[u], d->gy[u], w, sb);
		return;
	}
	if (!d->grid || !d->block_of || d->block_of[w] != u + 1)
		return;
	ux = d->gx[u], uy = d->gy[u], wx = d->gx[w], wy = d->gy[w];
	cx = d->chan_x[u], ey = d->exit_y[u], fy = d->feed_y[w];
	/* Straight pieces as Bezier segments (each a point, its end twice): down, across, down the channel, across, down. */
	sb_addf(sb, "pos=\"%.1f,%.1f", ux, uy);
	sb_addf(sb, " %.1f,%.1f %.1f,%.1f %.1f,%.1f", ux, uy, ux, ey, ux, ey);
	sb_addf(sb, " %.1f,%.1f %.1f,%.1f %.1f,%.1f", ux, ey, cx, ey, cx, ey);
	sb_addf(sb, " %.1f,%.1f %.1f,%.1f %.1f,%.1f", cx, ey, cx, fy, cx, fy);
	sb_addf(sb, " %.1f,%.1f %.1f,%.1f %.1f,%.1f", cx, fy, wx, fy, wx, fy);
	sb_addf(sb, " %.1f,%.1f %.1f,%.1f %.1f,%.1f\", ", wx, fy, wx, wy, wx, wy);
}

void draw_grid_free(struct draw *d)
{
	size_t k;

	for (k = 0; k < d->n_grows; k++) {
		free(d->grows[k].x0);
		free(d->grows[k].x1);
	}
	free(d->grows);
	d->grows = NULL;
	d->n_grows = 0;
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
		struct grow *gr;
		t = d->tier[all[first].e];
		if (t == 1 && r + 1 < n_rows) {
			/* The leaves, and the hosts under them (when every row left is of one of the two). */
			size_t l0 = first, l1 = first, h1, q;
			for (q = r; q < n_rows && d->tier[all[l1].e] == 1; q++)
				l1 += row_len[q];
			for (h1 = l1; q < n_rows && d->tier[all[h1].e] == 0; q++)
				h1 += row_len[q];
			if (q == n_rows && h1 > l1) {
				if (r && t != prev)
					y -= RANK_PT;
				tier_high[1] = y;
				d->block_of = xcalloc(d->f->n_nodes + d->n_groups, sizeof(*d->block_of));
				d->chan_x = xcalloc(d->f->n_nodes + d->n_groups, sizeof(*d->chan_x));
				d->exit_y = xcalloc(d->f->n_nodes + d->n_groups, sizeof(*d->exit_y));
				d->feed_y = xcalloc(d->f->n_nodes + d->n_groups, sizeof(*d->feed_y));
				d->leaf_row = xcalloc(d->f->n_nodes + d->n_groups, sizeof(*d->leaf_row));
				d->drop_x = xcalloc(d->f->n_nodes + d->n_groups, sizeof(*d->drop_x));
				d->in_y = xcalloc(d->f->n_nodes + d->n_groups, sizeof(*d->in_y));
				y = grid_leaves(d, all, l0, l1, l1, h1, y, &tier_width, names, tier_low);
				/* The band between the leaves' first row (a node: 36 pt) and the junctions' rank above it. */
				d->bus_lo = tier_high[1] + 30;
				d->bus_hi = tier_high[1] + RANK_PT - 12;
				break;
			}
		}
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
		d->grows = xrealloc(d->grows, (d->n_grows + 1) * sizeof(*d->grows));
		gr = &d->grows[d->n_grows++];
		gr->y = y;
		gr->n = row_len[r];
		gr->x0 = xcalloc(gr->n ? gr->n : 1, sizeof(*gr->x0));
		gr->x1 = xcalloc(gr->n ? gr->n : 1, sizeof(*gr->x1));
		for (m = first; m < first + row_len[r]; m++) {
			double w = est_width(d, all[m].e, names) * 1.1;
			d->gx[all[m].e] = x + w / 2;
			d->gy[all[m].e] = y;
			gr->x0[m - first] = x;
			gr->x1[m - first] = x + w;
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
	d->bus_x0 = -tier_width / 2;
	d->bus_x1 = tier_width / 2;
	free(tier_low);
	free(tier_high);
}
