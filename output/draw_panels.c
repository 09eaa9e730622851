/*
 * A rail-optimized fabric on ibscan's grid (see draw_grid.c, draw_rails.c): one panel per rail,
 * its leaves in one row with each leaf's block of hosts right under it, framed, the rail's name
 * at the panel's left; the panels side by side in rows of panels, as many side by side as keep
 * the drawing within its width and aspect, the spines above shared by all. Every leaf column
 * runs through every row of panels (columns as wide as their widest leaf's block): the cables
 * from above into a leaf come down at its column's left, past the panels above between their
 * blocks, and the leaf-host cables of a panel stay inside it.
 */
#include "draw.h"
#include "draw_int.h"
#include "../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define PANEL_PAD 16.0  /* between two panels' frames, and from a frame to its columns */
#define PANEL_HEAD 48.0 /* a frame's top to its leaves' centres: their boxes, and the cables coming in above them */
#define PANEL_FOOT 30.0 /* the lowest host's centre to the frame's bottom */
#define PANEL_GAP 30.0  /* between two rows of panels */
#define SUB_GAP 66.0    /* a block's lowest host's centre to the leaves of the next row in its panel */
#define LEAF_HOST 110.0 /* a leaf's centre to its block's first row */
/* A rail's leaves kept in one row, the panels one under another, up to this wide for its height (4:1 promised). */
#define PANEL_ASPECT 2.5
#define TITLE_PT 8.0 /* a character of a panel's title (14 pt) */

struct panels {
	size_t n, n_leaves, lpr; /* panels (the last one unframed: leaves of no rail), leaves, per row of a panel */
	size_t *panel, *col;     /* per leaf: its panel, its place in it (row col / lpr, column col % lpr) */
	size_t *cnt;             /* per panel: its leaves */
	double title_w, *cw;     /* the title's room at each panel's left; per column of a panel slot, its width */
};

/* The rows of leaves in each row of panels, pc side by side: the most of its panels'. */
static size_t panel_subrows(const struct panels *p, size_t pc, size_t row)
{
	size_t k, most = 1;

	for (k = row * pc; k < (row + 1) * pc && k < p->n; k++)
		if ((p->cnt[k] + p->lpr - 1) / p->lpr > most)
			most = (p->cnt[k] + p->lpr - 1) / p->lpr;
	return most;
}

/* All the rows of leaves, pc panels side by side. */
static size_t leaf_rows(const struct panels *p, size_t pc)
{
	size_t row, rows = 0;

	for (row = 0; row * pc < p->n; row++)
		rows += panel_subrows(p, pc, row);
	return rows;
}

/* The columns' widths, pc panels side by side (cw: slot s's column c at s * lpr + c); returns the total. */
static double panel_columns(const struct panels *p, const struct leafcol *v, size_t pc, double *cw)
{
	size_t i, c;
	double total = 0, chan = NODESEP_PT + CHAN_STEP + draw_drop_room(leaf_rows(p, pc));

	for (c = 0; c < pc * p->lpr; c++)
		cw[c] = 0;
	for (i = 0; i < p->n_leaves; i++) {
		c = (p->panel[i] % pc) * p->lpr + p->col[i] % p->lpr;
		if (v[i].bw > cw[c])
			cw[c] = v[i].bw;
	}
	for (c = 0; c < pc * p->lpr; c++) {
		cw[c] += chan;
		total += cw[c];
	}
	return total + (double)pc * (2 * PANEL_PAD + p->title_w);
}

/* The block rows under row sub of the leaves of a row of panels: its deepest block's (1 at least). */
static size_t panel_depth(const struct panels *p, const struct leafcol *v, size_t pc, size_t row, size_t sub)
{
	size_t i, deepest = 1;

	for (i = 0; i < p->n_leaves; i++) {
		size_t q = v[i].n_hosts ? (v[i].n_hosts + v[i].bc - 1) / v[i].bc : 1;
		if (p->panel[i] / pc == row && p->col[i] / p->lpr == sub && q > deepest)
			deepest = q;
	}
	return deepest;
}

/* A row of leaves down to its blocks' lowest hosts. */
static double subrow_height(size_t deepest)
{
	return LEAF_HOST + (double)(deepest - 1) * HOST_PITCH;
}

/* The height of the panels, pc side by side. */
static double panels_height(const struct panels *p, const struct leafcol *v, size_t pc)
{
	size_t row, sub;
	double h = 0;

	for (row = 0; row * pc < p->n; row++) {
		h += PANEL_HEAD + PANEL_FOOT + PANEL_GAP - SUB_GAP;
		for (sub = 0; sub < panel_subrows(p, pc, row); sub++)
			h += subrow_height(panel_depth(p, v, pc, row, sub)) + SUB_GAP;
	}
	return h;
}

/* Leaf i, its block under it, at column left .. left + cw, leaves' y ly, in panel row `row` of rows. */
static void place_leaf(struct draw *d, const struct leafcol *c, double left, double cw, double ly, size_t row,
		       size_t rows, char **names)
{
	double lm = draw_drop_room(rows), chan = NODESEP_PT + CHAN_STEP, cx = left + lm + (cw - chan - lm) / 2;

	d->gx[c->e] = cx;
	d->gy[c->e] = ly;
	d->exit_y[c->e] = ly - (LEAF_HOST - HOST_PITCH / 2) / 2 - 10;
	d->leaf_row[c->e] = row + 1;
	d->drop_x[c->e] = row ? left + NODESEP_PT / 2 + DROP_STEP * (double)(rows - 1 - row) : cx;
	d->in_y[c->e] = ly + RANK_PT / 4;
	/* A block of one row is fed straight down from its leaf; a deeper one down the channel at the column's right. */
	d->chan_x[c->e] = c->n_hosts <= c->bc ? cx : left + cw - chan + NODESEP_PT / 2 + CHAN_STEP;
	draw_place_block(d, c, cx, ly - LEAF_HOST, names);
}

double draw_grid_panels(struct draw *d, const struct ord *all, size_t l0, size_t l1, size_t h0, size_t h1, double y,
			double *width, char **names, double *tier_low)
{
	struct panels p = { .n = d->n_rails, .n_leaves = l1 - l0 };
	struct leafcol *v = draw_leaf_blocks(d, all, l0, l1, h0, h1, names);
	size_t *cnt = xcalloc(d->n_rails + 2, sizeof(*cnt)), i, k, pc = 1, rows, row, lr, most = 0;
	double total = 0, yt, hy = y, *x_at;

	p.panel = xcalloc(p.n_leaves + 1, sizeof(*p.panel));
	p.col = xcalloc(p.n_leaves + 1, sizeof(*p.col));
	p.cnt = cnt;
	for (i = 0; i < p.n_leaves; i++) {
		size_t r = d->rail_of[v[i].e];
		p.panel[i] = r ? r - 1 : d->n_rails; /* a leaf of no rail (it has no hosts): after the rails, unframed */
		p.col[i] = cnt[p.panel[i]]++;
	}
	if (cnt[d->n_rails])
		p.n++;
	for (k = 0; k < p.n; k++) {
		size_t chars = k < d->n_rails ? strlen(d->rail_name[k]) + strlen(d->rail_title) : 0;
		double tw = chars ? TITLE_PT * (double)chars + 12 : 0;
		if (cnt[k] > most)
			most = cnt[k];
		if (tw > p.title_w)
			p.title_w = tw;
	}
	p.cw = xcalloc(p.n * most + 1, sizeof(*p.cw));
	/*
	 * Each rail's leaves in one row, the most panels side by side that keep within the rows
	 * above, or within the aspect, and 11,500 pt (the panels one under another: within
	 * PANEL_ASPECT); where none does, a rail's leaves in rows of fewer (the most that do).
	 */
	for (p.lpr = most; p.lpr >= 1; p.lpr--) {
		for (pc = p.n; pc >= 1; pc--) {
			double w = panel_columns(&p, v, pc, p.cw), h = -y + LEGEND_PT + panels_height(&p, v, pc);
			if (w <= 11500 && (w <= *width || w / h <= (pc == 1 ? PANEL_ASPECT : ASPECT_TARGET)))
				break;
		}
		if (pc || p.lpr == 1)
			break;
	}
	if (!pc)
		pc = 1;
	/* Rows of a rail's leaves as even as they go: 40 leaves in rows of 14, 14, 12 rather than 19, 19, 2. */
	if (p.lpr < most) {
		size_t subs = (most + p.lpr - 1) / p.lpr;
		p.lpr = (most + subs - 1) / subs;
	}
	rows = leaf_rows(&p, pc);
	total = panel_columns(&p, v, pc, p.cw);
	if (total > *width)
		*width = total;
	/* Each column's left: a panel slot's frame pad and title room, then its columns. */
	x_at = xcalloc(pc * p.lpr + 1, sizeof(*x_at));
	for (k = 0, yt = -total / 2; k < pc * p.lpr; k++) {
		if (k % p.lpr == 0)
			yt += PANEL_PAD + p.title_w;
		x_at[k] = yt;
		yt += p.cw[k];
		if (k % p.lpr == p.lpr - 1)
			yt += PANEL_PAD;
	}
	d->panel_box = xcalloc(d->n_rails + 1, sizeof(*d->panel_box));
	yt = y + PANEL_HEAD / 2; /* the first row's frames' top: under the band the cables from above run across */
	for (row = 0, lr = 0; row * pc < p.n; row++) {
		size_t subs = panel_subrows(&p, pc, row), sub;
		double ly = yt - PANEL_HEAD, first = ly, bottom = ly;
		for (sub = 0; sub < subs; sub++, lr++) {
			size_t deepest = panel_depth(&p, v, pc, row, sub);
			for (i = 0; i < p.n_leaves; i++) {
				size_t c = (p.panel[i] % pc) * p.lpr + p.col[i] % p.lpr;
				if (p.panel[i] / pc == row && p.col[i] / p.lpr == sub)
					place_leaf(d, &v[i], x_at[c], p.cw[c], ly, lr, rows, names);
			}
			bottom = ly - subrow_height(deepest) - PANEL_FOOT;
			tier_low[1] = ly;
			ly -= subrow_height(deepest) + SUB_GAP;
		}
		for (k = row * pc; k < (row + 1) * pc && k < d->n_rails; k++) {
			double *b = d->panel_box[k], x0 = x_at[(k % pc) * p.lpr] - p.title_w - PANEL_PAD / 2;
			size_t last = (k % pc) * p.lpr + (cnt[k] < p.lpr ? cnt[k] : p.lpr) - 1;
			b[0] = x0;
			b[1] = bottom;
			b[2] = x_at[last] + p.cw[last] + PANEL_PAD / 2;
			b[3] = yt;
			b[4] = x0 + PANEL_PAD / 2 + p.title_w / 2;
			b[5] = first;
		}
		hy = bottom - PANEL_GAP;
		yt = hy;
	}
	hy = draw_lone_hosts(d, all, h0, h1, hy - HOST_PITCH / 2, *width, names);
	for (i = 0; i < p.n_leaves; i++)
		free(v[i].hosts);
	free(v);
	free(x_at);
	free(cnt);
	free(p.panel);
	free(p.col);
	free(p.cw);
	return hy;
}
