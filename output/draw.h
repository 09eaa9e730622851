/*
 * The fabric drawing: one Graphviz graph built in memory, laid out by the
 * caller (`dot`, or libgvc for SVG in output/svg.c). Tiers from the bottom:
 * hosts, leaves, spines, cores (fabric/model/levels.c), each on ranks of its own,
 * a wide tier wrapped into rows (output/draw_rows.c), the legend above;
 * parallel cables that agree drawn as one edge with a count; the hosts of a
 * leaf (or of a dual-rail pair of leaves) drawn as one group node from a
 * threshold on; anything with a problem (a cable down, degraded or at another
 * rate, a node or port with a finding) drawn on its own, in colour.
 *
 * Element ids (Graphviz `id`, which SVG output keeps), for pages that find
 * nodes and cables in the SVG (the HTML report):
 *   n-<GUID>                   a node (GUID as 16 hex digits); a second node
 *                              with the same GUID gets n-<GUID>-<index>
 *   g-<leaf GUID>              a group of hosts under that leaf (their first
 *                              leaf, for dual-rail hosts; a second group
 *                              there: g-<leaf GUID>-2 ...)
 *   e-<A>-<B>                  the cables between two nodes that agree,
 *                              merged (A the node with the smaller GUID)
 *   e-<A>-<pA>-<B>-<pB>        a cable drawn on its own (a problem, or a rate
 *                              that differs from its siblings'), ports decimal
 *   e-<leaf GUID>-g-<...>      the cables from a leaf to a group of hosts
 *   legend                     the legend
 *   rail-<K>                   a rail-optimized fabric's panel of rail K (1..,
 *                              in the devices' order; with RENDER_PANELS_SU
 *                              of scalable unit K, by their first hosts); a
 *                              cluster: placed by dot, or on ibscan's grid by
 *                              output/draw_panels.c
 * With a heat map (render_draw_opts.heat) every cable's tooltip has a line
 * "routes: N (up U, down D)" (N the larger way; a merged edge: its busiest
 * cable's, then the spread).
 *   b<N>                       a bundle's junction: a full mesh between two
 *                              switch tiers (output/draw_bundle.c)
 *   e-<A>-b<N>, e-b<N>-<B>     its arms: from upper switch A, to lower B
 *                              (each cable's end maps to the arm at its switch)
 * A SHARP Aggregation Node is drawn inside its switch (a "+ SHARP AN" line):
 * it has no element (its id in the node map is NULL), its cable's ports map
 * to the switch's.
 * The maps below say which element each node and each cabled port is drawn
 * as, so a page need not parse ids.
 */
#ifndef IBSCAN_DRAW_H
#define IBSCAN_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../fabric/check/health.h"
#include "../fabric/model/model.h"
#include "../fabric/check/routecheck.h"

/* Hosts on one leaf at one rate from which they are drawn as a group, by default. */
#define RENDER_DRAW_GROUP_DEFAULT 4

/* The panels of a rail-optimized fabric's drawing (`--panels`): one per rail (the default), per scalable unit, none. */
enum render_draw_panels { RENDER_PANELS_RAIL, RENDER_PANELS_SU, RENDER_PANELS_NONE };
/* "rail", "su", "none" as the enum (false: s is none of them). */
bool render_draw_panels_parse(const char *s, enum render_draw_panels *out);

struct render_draw_opts {
	const struct ibs_findings *fs; /* health findings to put on the picture, or NULL */
	unsigned group_min;            /* group a leaf's hosts from this many on; 0: draw every host */
	/*
	 * A route check run with every CA in its job (ibs_rc_opts.job), or NULL:
	 * each cable coloured by the host-to-host routes crossing it (a heat map,
	 * output/draw_heat.c), its counts in the tooltip.
	 */
	const struct ibs_routecheck *heat;
	enum render_draw_panels panels;
};

/* One node (port 0) or one cabled port, and the element it is drawn as. */
struct render_draw_id {
	uint64_t guid; /* the node's GUID */
	unsigned port; /* 0 in the node map */
	size_t index;  /* the node's index in the fabric (GUIDs can repeat) */
	char *id;      /* owned by the drawing; NULL: not drawn as an element of its own */
};

struct render_drawing {
	char *dot;                     /* the graph in DOT */
	size_t dot_len;
	struct render_draw_id *nodes;  /* every node, by index */
	size_t n_nodes;
	struct render_draw_id *ports;  /* every cabled port, by node index then port */
	size_t n_ports;
	size_t n_drawn_nodes, n_drawn_edges;
	/*
	 * The Graphviz layout engine it is made for: "dot", or "nop" for a large
	 * fabric, whose positions ibscan computes (output/draw_grid.c; the DOT
	 * says layout=nop, as `neato -n`).
	 */
	const char *engine;
};

/* Build the drawing of f (o may be NULL: defaults, no findings). Free with render_drawing_free(). */
void render_drawing_build(struct render_drawing *d, const struct ibs_fabric *f, const struct render_draw_opts *o);
/* A drawing of no fabric, only a line of text (health's UNKNOWN status line when there is nothing to draw). */
void render_drawing_status(struct render_drawing *d, const char *line);
void render_drawing_free(struct render_drawing *d);

#endif
