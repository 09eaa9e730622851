/* The fabric drawing (output/draw.h) as Graphviz DOT. */
#ifndef IBSCAN_OUT_DOT_H
#define IBSCAN_OUT_DOT_H

#include <stdio.h>

#include "draw.h"
#include "../fabric/model/model.h"

/* Graphviz DOT of the drawing (o may be NULL); returns -1 on a write error. */
int render_dot(FILE *out, const struct ibs_fabric *f, const struct render_draw_opts *o);

#endif
