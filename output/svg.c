/*
 * SVG through libgvc: the DOT the drawing builds in memory is read with
 * agmemread, laid out with the dot engine and rendered to a string. Graphviz
 * warnings and errors are collected, not printed: an error is returned with
 * what Graphviz said.
 *
 * libgvc is loaded when an SVG is first drawn (dlopen, as libibverbs is for
 * the probe), not linked: its libraries (libgvc, libcgraph, libcdt,
 * libpathplan, libexpat, libz, libltdl) cost every other run about 1 MB of
 * resident memory, which put a walk's peak above ibnetdiscover's.
 */
#include "svg.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <dlfcn.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define LIBGVC "libgvc.so.6"

/* The calls made into libgvc and libcgraph (a dependency of libgvc: found through its handle). */
static struct {
	bool loaded;
	__typeof__(agseterr) *agseterr;
	__typeof__(agseterrf) *agseterrf;
	__typeof__(agmemread) *agmemread;
	__typeof__(agclose) *agclose;
	__typeof__(gvContext) *gvContext;
	__typeof__(gvLayout) *gvLayout;
	__typeof__(gvRenderData) *gvRenderData;
	__typeof__(gvFreeRenderData) *gvFreeRenderData;
	__typeof__(gvFreeLayout) *gvFreeLayout;
	__typeof__(gvFreeContext) *gvFreeContext;
} gv;

#define GV_LOAD(name)                                                    \
	do {                                                             \
		gv.name = (__typeof__(gv.name))dlsym(h, #name);           \
		if (!gv.name) {                                          \
			*err = xasprintf("graphviz: %s has no %s", LIBGVC, #name); \
			dlclose(h);                                      \
			return false;                                    \
		}                                                        \
	} while (0)

/* libgvc, loaded once (it stays loaded: its plugins keep state of their own). */
static bool gv_load(char **err)
{
	void *h;

	if (gv.loaded)
		return true;
	h = dlopen(LIBGVC, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		*err = xasprintf("graphviz: cannot load %s (%s): install Graphviz's libgvc (Debian: libgvc6)", LIBGVC,
				 e ? e : "not found");
		return false;
	}
	GV_LOAD(agseterr);
	GV_LOAD(agseterrf);
	GV_LOAD(agmemread);
	GV_LOAD(agclose);
	GV_LOAD(gvContext);
	GV_LOAD(gvLayout);
	GV_LOAD(gvRenderData);
	GV_LOAD(gvFreeRenderData);
	GV_LOAD(gvFreeLayout);
	GV_LOAD(gvFreeContext);
	gv.loaded = true;
	return true;
}

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
	if (!gv_load(err))
		return NULL;
	sb_reset(&gv_said);
	gv.agseterr(AGERR);
	gv.agseterrf(gv_collect);
	gvc = gv.gvContext();
	if (!gvc) {
		*err = gv_error("cannot start the layout library");
		goto out;
	}
	g = gv.agmemread(d->dot);
	if (!g) {
		*err = gv_error("cannot read the drawing");
		goto out_ctx;
	}
	if (gv.gvLayout(gvc, g, d->engine ? d->engine : "dot")) {
		*err = gv_error(d->engine && !strncmp(d->engine, "nop", 3) ? "nop layout failed (is libgvc's neato plugin installed?)"
									: "dot layout failed (is libgvc's dot plugin installed?)");
		goto out_graph;
	}
	if (gv.gvRenderData(gvc, g, "svg", &data, &n) || !data) {
		*err = gv_error("SVG rendering failed");
	} else {
		svg = xmalloc((size_t)n + 1);
		memcpy(svg, data, n);
		svg[n] = '\0';
		*len = n;
	}
	if (data)
		gv.gvFreeRenderData(data);
	gv.gvFreeLayout(gvc, g);
out_graph:
	gv.agclose(g);
out_ctx:
	if (gvc)
		gv.gvFreeContext(gvc);
out:
	gv.agseterrf(NULL);
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

char *render_status_svg(const char *line, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t chars = 0;
	const char *p;

	for (p = line; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	/* About 8 px a character of 14 px Helvetica, as Graphviz sizes a graph's label. */
	sb_addf(&sb,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zupt\" height=\"30pt\" viewBox=\"0 0 %zu 30\">\n"
		"<text x=\"8\" y=\"20\" font-family=\"Helvetica,sans-Serif\" font-size=\"14.00\">",
		chars * 8 + 16, chars * 8 + 16);
	for (p = line; *p; p++) {
		if (*p == '&')
			sb_adds(&sb, "&amp;");
		else if (*p == '<')
			sb_adds(&sb, "&lt;");
		else if (*p == '>')
			sb_adds(&sb, "&gt;");
		else if ((unsigned char)*p >= 0x20)
			sb_addc(&sb, *p);
	}
	sb_adds(&sb, "</text>\n</svg>\n");
	*len = sb.len;
	return sb_detach(&sb);
}
