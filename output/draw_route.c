/*
 * The routes of the grid's cables (see draw_grid.c), as straight pieces that Graphviz's nop2
 * draws as given: leaf-host cables down their column's channel, cables from above across the
 * band over the leaves and down a drop, and cables past the rows of a wrapped tier through
 * the gaps between its boxes.
 */
#include "draw.h"
#include "draw_int.h"
#include "../core/base/xalloc.h"

#include <stdlib.h>

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
