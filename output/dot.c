/* Graphviz DOT of the fabric drawing (output/draw.c), for people who lay it out themselves. */
#include "dot.h"
#include "draw.h"

int render_dot(FILE *out, const struct ibs_fabric *f, const struct render_draw_opts *o)
{
	struct render_drawing d;

	render_drawing_build(&d, f, o);
	fwrite(d.dot, 1, d.dot_len, out);
	render_drawing_free(&d);
	return ferror(out) ? -1 : 0;
}
