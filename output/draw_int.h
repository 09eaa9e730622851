/*
 * The drawing's own state, shared by output/draw.c and draw_edges.c (writing the DOT),
 * draw_plan.c (what is drawn, and in which order) and the other output/draw_*.c only. It
 * does not include draw.h: each includes it first, and including it here would make a cycle.
 */
#ifndef IBSCAN_OUT_DRAW_INT_H
#define IBSCAN_OUT_DRAW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/base/strbuf.h"
#include "../fabric/check/health.h"
#include "../fabric/model/hosts.h"
#include "../fabric/model/model.h"

struct render_draw_opts;
struct render_drawing;
struct render_draw_id;

/* The colours of what is wrong (the legend says which is which). */
#define COLOR_DOWN "#d62728"
#define COLOR_DEGRADED "#ff7f0e"
#define COLOR_RATE "#9467bd"
#define COLOR_WARN "#ff7f0e"
#define COLOR_CRIT "#d62728"

enum { K_OK, K_RATE, K_DEGRADED, K_DOWN, K_FINDING };

struct dlink {
	size_t u, w;          /* drawn endpoints (u above or before w): node index, or n_nodes + group */
	const struct ibs_node *a, *b;
	uint8_t pa, pb;
	char rate[16];        /* "4xEDR", or "" when unknown */
	int kind;
	enum ibs_severity sev; /* of the findings on either end */
};

struct dgroup {
	const struct ibs_node *leaf;
	char rate[16];
	size_t *hosts;        /* node indexes */
	size_t n, cap;
	char *id;
};

/* Findings about one port (port 0: the node). */
struct mark {
	size_t index;
	unsigned port;
	enum ibs_severity sev;
	const char *msg;
};

struct draw {
	const struct ibs_fabric *f;
	const struct render_draw_opts *o;
	struct strbuf sb;
	unsigned *level, max_level;
	int *tier;            /* rank from the bottom: hosts 0, leaves 1 ...; -1 unconstrained */
	char **key;           /* per drawn endpoint: GUID (or GUID-index), and group ids */
	char **id;            /* per drawn endpoint: element id */
	size_t *group_of;     /* node index -> group + 1, 0 when drawn alone */
	size_t *beside;       /* node index -> the switch it is drawn in + 1 (an Aggregation Node), or 0 */
	size_t *n_beside;     /* node index -> how many Aggregation Nodes are drawn in it */
	struct dgroup *groups;
	size_t n_groups, cap_groups;
	double *pos;          /* order within its tier */
	struct mark *marks;
	size_t n_marks;
	struct dlink *links;
	size_t n_links;
	struct ibs_hosts hosts;   /* which CAs are one server, and its name (fabric/model/hosts.h) */
	/* Director chassis: two or more switches that share a system image GUID, drawn in one box. */
	struct dchassis {
		uint64_t sysimg;
		size_t n;
	} *chassis;
	size_t n_chassis;
	size_t *chassis_of;       /* node index -> chassis + 1, 0 when in none */
	struct common {
		int tu, tw;
		char label[48];
		size_t n;
		bool shared;
	} *common;
	size_t n_common, cap_common;
	/* The heat map (draw_heat.c): node index -> route check switch + 1; the scale's ends (0 and the busiest). */
	struct dbundle {
		size_t *up, n_up;     /* drawn endpoints of the upper tier */
		size_t *down, n_down; /* and of the lower */
		char label[48];       /* each pair's: "2 × 4xEDR" */
		size_t n_cables;
		double jx, jy;        /* the junction's position, with grid */
	} *bundles;
	size_t n_bundles;
	size_t *bundle_of;    /* per link (sorted), its bundle + 1, or 0 (draw_find_bundles) */
	bool grid;            /* positions computed here (gx, gy per drawn endpoint, points), laid out by nop */
	double *gx, *gy, legend_y;
	/*
	 * The grid's leaf-host cables, routed (draw_grid.c, draw_route.c): per drawn endpoint, a
	 * host's (or group's) leaf + 1 (0: drawn as a straight line), the y above it where its
	 * cable comes in; a leaf's channel x and the y below it where its cables go out.
	 */
	size_t *block_of;
	double *chan_x, *feed_y, *exit_y;
	/*
	 * And the cables from above into the leaves (draw_grid.c): per drawn endpoint, a leaf's row
	 * + 1 (0: not routed), the x of its drop at its column's left and the y above it where its
	 * cables come in; the band above the leaves where each source's cables run across, at a y
	 * of their own (by the source's x, over the width bus_x0..bus_x1).
	 */
	size_t *leaf_row;
	double *drop_x, *in_y, bus_lo, bus_hi, bus_x0, bus_x1;
	/*
	 * The grid's other rows (the switch tiers above the leaves, each tier wrapped into rows or
	 * not): each row's y and its boxes' x-spans, left to right, as estimated when placed; the
	 * cables down from a row pass the rows under it through the gaps between their boxes.
	 */
	struct grow {
		double y, *x0, *x1;
		size_t n;
	} *grows;
	size_t n_grows;
	size_t *heat_sw;
	uint64_t heat_min, heat_max;
	/*
	 * Rails (draw_rails.c): per drawn endpoint, a leaf's rail + 1 (0: none); the rails' devices,
	 * in order. With panels per scalable unit, the units instead, each named by its hosts
	 * (rail_title: "rail " or "unit ").
	 */
	size_t *rail_of;
	char (*rail_name)[32];
	size_t n_rails;
	const char *rail_title;
	/* On the grid (draw_panels.c): per rail, its panel's frame (x0, y0, x1, y1) and its title's centre (x, y). */
	double (*panel_box)[6];
};

struct ord {
	size_t e;             /* drawn endpoint */
	double key;
	const char *name;
};

/* Findings: the worst on (node, port) (port 0: the node's own), their lines for a tooltip, all of them sorted. */
enum ibs_severity draw_mark_sev(const struct draw *d, const struct ibs_node *n, unsigned port);
void draw_mark_msgs(const struct draw *d, struct strbuf *sb, const struct ibs_node *n, unsigned port);
void draw_collect_marks(struct draw *d);
/* A host (a CA that is no aggregation node). */
bool draw_is_host(const struct ibs_node *n);
/* A cable's rate, kind and severity. */
void draw_classify(struct draw *d, struct dlink *l);
/* The groups of hosts drawn as one node. */
void draw_make_groups(struct draw *d);
/* The name on a switch's label, a host's name for lists (caller frees). */
char *draw_label_name(const struct ibs_node *n);
/* struct ord by key, then names in natural order. */
int draw_ord_cmp(const void *pa, const void *pb);
/* Drawn endpoint of node index i. */
size_t draw_endpoint(const struct draw *d, size_t i);
/* Positions within each tier (d->pos). */
void draw_order_tiers(struct draw *d, char **names, size_t n_ep);
/* The chassis of the fabric's switches (d->chassis, d->chassis_of). */
void draw_find_chassis(struct draw *d);

/* draw_rows.c: the switch an Aggregation Node is in (NULL: n is none); whether node index e is drawn in one. */
const struct ibs_node *draw_an_switch(const struct ibs_node *n);
bool draw_is_beside(const struct draw *d, size_t e);
/* Aggregation Nodes drawn in their switch (d->beside, d->n_beside; their tier -2: not drawn). */
void draw_place_beside(struct draw *d);
/*
 * The rows of the drawing: all[0..n) are the drawn endpoints of every tier, from the top tier
 * down, each tier in its order; *row_len (caller frees) gets each row's length, rows in that
 * order, a tier wrapped into several when one row would make the drawing too wide for its
 * height; extra_ranks: ranks drawn besides the tiers' (bundles). Returns the number of rows.
 */
size_t draw_plan_rows(const struct draw *d, const struct ord *all, size_t n, char **names, size_t extra_ranks,
		      size_t **row_len);

/*
 * The measures the rows and the grid are planned in (points), estimated before Graphviz lays
 * anything out (draw_rows.c); what the rows aim at (width : height; the drawing promises at
 * most 4:1).
 */
#define ASPECT_TARGET 1.0
#define NODESEP_PT 21.6  /* nodesep=0.3 (inches) */
#define RANK_PT 137.0    /* a rank: ranksep=1.4 in (100.8 pt) and a node of two lines (36 pt) */
#define LEGEND_PT 160.0  /* the legend, on its own rank at the top */
/* draw_rows.c: the estimated width of drawn endpoint e, in points (names: each endpoint's label name). */
double draw_est_width(const struct draw *d, size_t e, char **names);

/*
 * With more drawn endpoints than this, or a tier wrapped into rows, the drawing is laid out by
 * ibscan (d->grid): dot's own layout of wrapped rows spreads each row under the nodes it is
 * cabled to (fattree3: 18,138 x 1,531 pt; 9,530 nodes: 38,881 px wide, 27 s).
 */
#define DRAW_GRID_MIN 600
/*
 * draw_grid.c: the grid's leaves, each with its hosts (its host groups, and the hosts drawn alone
 * whose first leaf it is) in a block under it, in the same column.
 */
#define HOST_PITCH 60.0  /* the rows of one block: a node (36 pt) and room for the cables coming in above it */
#define HOST_GAP 40.0    /* between two host rows */
#define CHAN_STEP 6.0    /* between two cables in a channel */
/*
 * Between two drops: each carries one leaf's cables; a third of a channel's step keeps a tall
 * grid (29,938 nodes) within 16,000 px.
 */
#define DROP_STEP 2.0

struct leafcol {
	size_t e;        /* the leaf's drawn endpoint */
	size_t *hosts, n_hosts, bc; /* its block's endpoints, in order; the block's columns */
	double bw;       /* the block's width */
};

/* The block of each leaf of all[l0..l1) from the hosts of all[h0..h1) (d->block_of); caller frees each hosts and v. */
struct leafcol *draw_leaf_blocks(struct draw *d, const struct ord *all, size_t l0, size_t l1, size_t h0, size_t h1,
				 char **names);
/* Leaf c's block, centred on cx, its rows from y down (gx, gy, feed_y of its hosts); returns its rows. */
size_t draw_place_block(struct draw *d, const struct leafcol *c, double cx, double y, char **names);
/* A block's endpoint's width: a host drawn alone is an ellipse, wider than its label's box. */
double draw_block_width(const struct draw *d, size_t e, char **names);
/*
 * A column's room at its left, for the drops of the cables from above into the leaves of its
 * rows under the first (the last row's outermost, DROP_STEP apart): none with one row of r.
 */
double draw_drop_room(size_t r);
/*
 * The hosts of all[h0..h1) in no leaf's block: rows of their own from hy down, wrapped at
 * width; returns the last row's y.
 */
double draw_lone_hosts(struct draw *d, const struct ord *all, size_t h0, size_t h1, double hy, double width,
		       char **names);
/*
 * draw_panels.c: with rails (d->n_rails), the grid's leaves all[l0..l1) and hosts all[h0..h1)
 * as one panel per rail (d->panel_box) from y down, as grid_leaves in draw_grid.c does without;
 * returns the y below the last host row.
 */
double draw_grid_panels(struct draw *d, const struct ord *all, size_t l0, size_t l1, size_t h0, size_t h1, double y,
			double *width, char **names, double *tier_low);
/* draw_grid.c: the grid's positions of the rows (d->gx, d->gy, d->legend_y, each bundle's junction). */
void draw_grid_positions(struct draw *d, const struct ord *all, size_t n_rows, const size_t *row_len, char **names);
/*
 * draw_route.c: the route of a cable from drawn endpoint u down to w, as `pos="...", `
 * (nothing when it has none): a leaf-host cable, or one from a switch above into a leaf; and
 * from the point (x, y) (a bundle's junction) down into leaf w.
 */
void draw_grid_route(const struct draw *d, size_t u, size_t w, struct strbuf *sb);
void draw_grid_route_from(const struct draw *d, double x, double y, size_t w, struct strbuf *sb);
/* And from drawn endpoint u down to the point (x, y) (a bundle's junction). */
void draw_grid_route_to(const struct draw *d, size_t u, double x, double y, struct strbuf *sb);
/* draw_grid.c: freeing the grid's rows. */
void draw_grid_free(struct draw *d);

/* draw.c: s as a DOT string (escaped, control bytes dropped); a port's element id for the page. */
void draw_dot_str(struct strbuf *sb, const char *s);
void draw_add_id(struct render_draw_id **v, size_t *n, size_t *cap, const struct ibs_node *nd, unsigned port,
		 const char *id);
/* draw_edges.c: the cables between one pair of drawn nodes from links[i] (sorted): where they end; the merged set. */
size_t draw_merged_set(const struct draw *d, size_t i, size_t *best, size_t *best_n);
/*
 * draw_bundle.c: the full meshes between two switch tiers, each drawn as one bundle (a junction
 * point, one edge from each upper switch to it and one from it to each lower switch) instead of
 * every pair's edge: per link index, its bundle + 1 (0: drawn as usual; caller frees); writing them.
 */
size_t *draw_find_bundles(struct draw *d);
/* The ranks the bundles add (one between each two tiers that have any). */
size_t draw_bundle_ranks(const struct draw *d);
void draw_write_bundles(struct draw *d, struct render_drawing *out, size_t *cap_ports, const size_t *bundle_of);
/* draw_edges.c: find the label most switch-tier edges share (said once, in the legend); write the cables. */
void draw_find_common(struct draw *d);
void draw_write_edges(struct draw *d, struct render_drawing *out, size_t *cap_ports);

/*
 * draw_rails.c: a rail-optimized fabric's rails (each leaf's, d->rail_of; none unless two or
 * more); its panels, one DOT cluster per rail (its leaves and their hosts): in dot's layout
 * placed by dot, on the grid framed where draw_panels.c placed them.
 */
void draw_find_rails(struct draw *d);
void draw_write_panels(struct draw *d);
void draw_rails_free(struct draw *d);

/* draw_heat.c, with d->o->heat: the scale; a cable's routes each way (up: from its lower end, w's side). */
void draw_heat_init(struct draw *d);
void draw_heat_free(struct draw *d);
void draw_heat_cable(const struct draw *d, const struct dlink *l, uint64_t *up, uint64_t *down);
/* The colour of v on the scale ("#rrggbb", into buf of 8), and the pen width. */
const char *draw_heat_color(const struct draw *d, uint64_t v, char *buf);
double draw_heat_pen(const struct draw *d, uint64_t v);
/* "routes: N (up U, down D)" of one cable. */
void draw_heat_counts(const struct draw *d, struct strbuf *sb, const struct dlink *l);
/* The legend's rows for the scale. */
void draw_heat_legend(const struct draw *d, struct strbuf *sb);

#endif
