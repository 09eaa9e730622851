/*
 * SVG of the fabric drawing, laid out in-process by Graphviz's C library
 * (libgvc, libcgraph): no `dot` process, no temporary file. Element ids and
 * the maps from nodes and ports to them: output/draw.h.
 */
#ifndef IBSCAN_SVG_H
#define IBSCAN_SVG_H

#include <stdio.h>

#include "draw.h"

/*
 * Lay out d->dot with dot and render it as SVG: the SVG (caller frees,
 * *len its length), or NULL with *err (caller frees) saying why.
 */
char *render_drawing_svg(const struct render_drawing *d, size_t *len, char **err);
/*
 * The drawing of f (and o's findings) as SVG. *ids, when not NULL, gets
 * the drawing (its maps of ids; render_drawing_free() it). NULL with *err
 * on a Graphviz failure.
 */
char *render_svg_string(const struct ibs_fabric *f, const struct render_draw_opts *o, struct render_drawing *ids,
			size_t *len, char **err);
/* The SVG to out: -1 with *err on a Graphviz failure, -1 without on a write error. */
int render_svg(FILE *out, const struct ibs_fabric *f, const struct render_draw_opts *o, char **err);
/*
 * An SVG of one line of text (health's UNKNOWN status line when there is
 * no fabric to draw), written here rather than laid out: libgvc is not
 * needed, nor asked for a layout it may not survive twice in one process.
 */
char *render_status_svg(const char *line, size_t *len);

#endif
