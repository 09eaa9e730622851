/*
 * SVG through libgvc: the DOT the drawing builds in memory is read with
 * agmemread, laid out with the dot engine and rendered to a string. Graphviz
 * warnings and errors are collected, not printed: an error is returned with
 * what Graphviz said.
 */
#include "svg.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <stdlib.h>
#include <string.h>

/* What Graphviz said during one call (it reports through a global callback). */
static struct strbuf gv_said = STRBUF_INIT;

static int gv_collect(char *msg)
{
	sb_adds(&gv_said, msg);
	return 0;
}

static char *gv_error(const char *what)
{
	char *e;

	while (gv_said.len && (gv_said.buf[gv_said.len - 1] == '\n' || gv_said.buf[gv_said.len - 1] == ' '))
		gv_said.buf[--gv_said.len] = '\0';
	e = xasprintf("graphviz: %s%s%s", what, gv_said.len ? ": " : "", gv_said.len ? sb_str(&gv_said) : "");
	return e;
}

char *render_drawing_svg(const struct render_drawing *d, size_t *len, char **err)
{
	GVC_t *gvc;
	Agraph_t *g;
	char *data = NULL, *svg = NULL;
	unsigned int n = 0;

	*err = NULL;
	sb_reset(&gv_said);
	agseterr(AGERR);
	agseterrf(gv_collect);
	gvc = gvContext();
	if (!gvc) {
		*err = gv_error("cannot start the layout library");
		goto out;
	}
	g = agmemread(d->dot);
	if (!g) {
		*err = gv_error("cannot read the drawing");
		goto out_ctx;
	}
	if (gvLayout(gvc, g, "dot")) {
		*err = gv_error("dot layout failed (is libgvc's dot plugin installed?)");
		goto out_graph;
	}
	if (gvRenderData(gvc, g, "svg", &data, &n) || !data) {
		*err = gv_error("SVG rendering failed");
	} else {
		svg = xmalloc((size_t)n + 1);
		memcpy(svg, data, n);
		svg[n] = '\0';
		*len = n;
	}
	if (data)
		gvFreeRenderData(data);
	gvFreeLayout(gvc, g);
out_graph:
	agclose(g);
out_ctx:
	if (gvc)
		gvFreeContext(gvc);
out:
	agseterrf(NULL);
	sb_free(&gv_said);
	return svg;
}

char *render_svg_string(const struct ibs_fabric *f, const struct render_draw_opts *o, struct render_drawing *ids,
			size_t *len, char **err)
{
	struct render_drawing d;
	char *svg;

	render_drawing_build(&d, f, o);
	svg = render_drawing_svg(&d, len, err);
	if (ids)
		*ids = d;
	else
		render_drawing_free(&d);
	return svg;
}

int render_svg(FILE *out, const struct ibs_fabric *f, const struct render_draw_opts *o, char **err)
{
	size_t len = 0;
	char *svg = render_svg_string(f, o, NULL, &len, err);

	if (!svg)
		return -1;
	fwrite(svg, 1, len, out);
	free(svg);
	return ferror(out) ? -1 : 0;
}
