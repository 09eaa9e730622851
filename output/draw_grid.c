/*
 * ibscan's own layout of a large or wrapped fabric drawing (see draw.h, draw_int.h's
 * DRAW_GRID_MIN): each row centred, the leaves with their hosts in blocks under them, the
 * bundles' junctions between the tiers, the legend on top. The widths are draw_rows.c's
 * estimates; the cables' routes past it are draw_route.c's.
 */
#include "draw.h"
#include "draw_int.h"
#include "../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

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
/* A block's endpoint's width: a host drawn alone is an ellipse, wider than its label's box. */
double draw_block_width(const struct draw *d, size_t e, char **names)
{
	size_t chars;

	if (e >= d->f->n_nodes)
		return draw_est_width(d, e, names) * 1.1;
	/* Its label is the node's own name ("node0005 mlx5_0"), not the host's. */
	chars = strlen(ibs_node_name(d->f->nodes[e]));
	return (6.0 * (double)(chars > 40 ? 40 : chars) + 18) * 1.1 * 1.45;
}

/* The block of each leaf of all[l0..l1) from the hosts of all[h0..h1): leaves by their position. */
struct leafcol *draw_leaf_blocks(struct draw *d, const struct ord *all, size_t l0, size_t l1, size_t h0, size_t h1,
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
			rw += draw_block_width(d, c->hosts[i], names) + (i % c->bc ? NODESEP_PT : 0);
			if (rw > c->bw)
				c->bw = rw;
		}
		rw = draw_est_width(d, c->e, names) * 1.1;
		if (rw > c->bw)
			c->bw = rw;
	}
	free(col);
	return v;
}

size_t draw_place_block(struct draw *d, const struct leafcol *c, double cx, double y, char **names)
{
	size_t q, k;

	for (q = 0; q * c->bc < c->n_hosts; q++) {
		size_t from = q * c->bc, to = from + c->bc < c->n_hosts ? from + c->bc : c->n_hosts;
		double rw = 0, hx;
		for (k = from; k < to; k++)
			rw += draw_block_width(d, c->hosts[k], names) + (k > from ? NODESEP_PT : 0);
		hx = cx - rw / 2;
		for (k = from; k < to; k++) {
			double w = draw_block_width(d, c->hosts[k], names);
			d->gx[c->hosts[k]] = hx + w / 2;
			d->gy[c->hosts[k]] = y - (double)q * HOST_PITCH;
			d->feed_y[c->hosts[k]] = d->gy[c->hosts[k]] + HOST_PITCH / 2;
			hx += w + NODESEP_PT;
		}
	}
	return q;
}

double draw_drop_room(size_t r)
{
	return r > 1 ? NODESEP_PT / 2 + DROP_STEP * (double)(r - 2) + 4 : 0;
}

/* The columns' widths with r rows of leaves (cw[0..cols), each with its channel and drops); returns the total. */
static double leaf_columns(const struct leafcol *v, size_t n, size_t r, double *cw)
{
	size_t cols = (n + r - 1) / r, i;
	double total = 0, chan = NODESEP_PT + CHAN_STEP * (double)r + draw_drop_room(r);

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
	size_t n = l1 - l0, r, cols, i, q, row;
	struct leafcol *v = draw_leaf_blocks(d, all, l0, l1, h0, h1, names);
	double *cw = xcalloc(n + 1, sizeof(*cw)), total = 0, hy;

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
			double left, cx, chan = NODESEP_PT + CHAN_STEP * (double)r, lm = draw_drop_room(r);
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
			q = draw_place_block(d, c, cx, hy, names);
			if (q > deepest)
				deepest = q;
		}
		hy -= (double)deepest * HOST_PITCH + HOST_GAP;
	}
	hy = draw_lone_hosts(d, all, h0, h1, hy, *width, names);
	for (i = 0; i < n; i++)
		free(v[i].hosts);
	free(v);
	free(cw);
	return hy;
}

double draw_lone_hosts(struct draw *d, const struct ord *all, size_t h0, size_t h1, double hy, double width,
		       char **names)
{
	size_t i, lone = 0;
	double x;

	for (i = h0, x = 0; i < h1; i++) {
		double w;
		if (d->block_of[all[i].e])
			continue;
		w = draw_block_width(d, all[i].e, names);
		if (lone && x + w > width) {
			hy -= HOST_PITCH + HOST_GAP;
			x = 0;
		}
		d->gx[all[i].e] = -width / 2 + x + w / 2;
		d->gy[all[i].e] = hy;
		x += w + NODESEP_PT;
		lone++;
	}
	return hy;
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
				y = d->n_rails ? draw_grid_panels(d, all, l0, l1, l1, h1, y, &tier_width, names, tier_low)
					       : grid_leaves(d, all, l0, l1, l1, h1, y, &tier_width, names, tier_low);
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
			width += draw_est_width(d, all[m].e, names) * 1.1 + (m > first ? NODESEP_PT : 0);
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
			double w = draw_est_width(d, all[m].e, names) * 1.1;
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
