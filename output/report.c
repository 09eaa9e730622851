/*
 * `ibscan report`: one HTML file that opens anywhere, offline. The page is a
 * skeleton, the map (inline SVG), the JSON views' documents as data, and
 * the script and style of output/report/ (embedded at build time), which
 * draw the summary, search, details and findings from those documents.
 */
#include "report.h"
#include "counters.h"
#include "emit.h"
#include "health.h"
#include "topo.h"
#include <report_assets.h> /* generated from output/report/ (Makefile) */
#include "../core/base/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifndef IBSCAN_VERSION
#define IBSCAN_VERSION "0.0.0"
#endif

/*
 * JSON inside <script type="application/json">, compacted. In a script
 * element's text "</script" ends the element and "<!--" changes how the
 * rest is parsed; U+2028 and U+2029 end a line in older JavaScript. None
 * of '<', '>', '&', U+2028, U+2029 is left raw: in JSON they can only be
 * inside strings, where \uXXXX means the same character, so the document
 * parses to the same values and no NodeDescription can break out.
 */
static void put_script_json(FILE *out, const char *s, size_t n)
{
	bool in_str = false;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!in_str) {
			if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
				continue;
			in_str = c == '"';
			fputc(c, out);
			continue;
		}
		switch (c) {
		case '\\':
			fputc(c, out);
			if (i + 1 < n)
				fputc(s[++i], out);
			continue;
		case '"':
			in_str = false;
			break;
		case '<':
		case '>':
		case '&':
			fprintf(out, "\\u%04x", c);
			continue;
		case 0xe2:
			if (i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
			    ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
				fprintf(out, "\\u%04x", 0x2000 + ((unsigned char)s[i + 2] - 0x80));
				i += 2;
				continue;
			}
			break;
		default:
			break;
		}
		fputc(c, out);
	}
}

/*
 * A document's compacted text over this many bytes is stored deflated and
 * in base64: the 8,831-node fabric's topology is 36 MB of JSON, 1.6 MB so,
 * and its counters 28.5 MB, 0.4 MB (the page was 72 MB). Smaller ones stay
 * JSON that a person can read in the file.
 */
#define REPORT_DEFLATE_MIN (1024 * 1024)

static void put_base64(FILE *out, const unsigned char *p, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		fputc(b64[v >> 18], out);
		fputc(b64[v >> 12 & 63], out);
		fputc(b64[v >> 6 & 63], out);
		fputc(b64[v & 63], out);
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
		fputc(b64[v >> 18], out);
		fputc(b64[v >> 12 & 63], out);
		fputc(i + 1 < n ? b64[v >> 6 & 63] : '=', out);
		fputc('=', out);
	}
}

/* The compacted text t[0..n) deflated (zlib's format, which the browser's DecompressionStream("deflate") reads). */
static void put_deflated(FILE *out, const char *t, size_t n)
{
	uLongf zn = compressBound((uLong)n);
	unsigned char *z = xmalloc(zn);

	if (compress2(z, &zn, (const Bytef *)t, (uLong)n, 6) != Z_OK)
		xalloc_die(); /* the only way compress2 fails into a buffer of compressBound is memory */
	put_base64(out, z, zn);
	free(z);
}

/* One JSON document as the data of the element with that id; frees e. */
static void put_doc(FILE *out, const char *id, struct emit *e)
{
	char *buf = NULL, *cbuf = NULL;
	size_t len = 0, clen = 0;
	FILE *m = open_memstream(&buf, &len), *c;

	if (!m)
		xalloc_die();
	emit_write(e, m);
	if (fclose(m))
		xalloc_die();
	emit_free(e);
	c = open_memstream(&cbuf, &clen);
	if (!c)
		xalloc_die();
	put_script_json(c, buf, len);
	if (fclose(c))
		xalloc_die();
	free(buf);
	if (clen > REPORT_DEFLATE_MIN) {
		fprintf(out, "<script type=\"application/octet-stream\" id=\"%s\" data-encoding=\"deflate-base64\">", id);
		put_deflated(out, cbuf, clen);
	} else {
		fprintf(out, "<script type=\"application/json\" id=\"%s\">", id);
		fwrite(cbuf, 1, clen, out);
	}
	fputs("</script>\n", out);
	free(cbuf);
}

/* Which element of the map each node and each cabled port is drawn as (output/draw.h). */
static struct emit *map_doc(const struct render_drawing *d)
{
	struct emit *e = emit_new(EMIT_JSON);
	size_t i;

	emit_obj_open(e, NULL);
	emit_arr_open(e, "nodes");
	for (i = 0; i < d->n_nodes; i++) {
		if (!d->nodes[i].id)
			continue;
		emit_obj_open(e, NULL);
		emit_uint(e, "index", NULL, d->nodes[i].index);
		emit_str(e, "id", NULL, d->nodes[i].id);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_arr_open(e, "ports");
	for (i = 0; i < d->n_ports; i++) {
		if (!d->ports[i].id)
			continue;
		emit_obj_open(e, NULL);
		emit_uint(e, "index", NULL, d->ports[i].index);
		emit_uint(e, "port", NULL, d->ports[i].port);
		emit_str(e, "id", NULL, d->ports[i].id);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
	return e;
}

static struct emit *meta_doc(const struct report_in *in)
{
	struct emit *e = emit_new(EMIT_JSON);
	char when[32];
	struct tm tm;

	if (!gmtime_r(&in->when, &tm) || !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(when, sizeof(when), "unknown");
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_REPORT_SCHEMA);
	emit_str(e, "ibscan", NULL, IBSCAN_VERSION);
	emit_str(e, "generated", NULL, when);
	emit_obj_open(e, "source");
	emit_str(e, "kind", NULL, in->source_kind);
	emit_str(e, "what", NULL, in->source);
	emit_obj_close(e);
	emit_bool(e, "counters", NULL, in->counters);
	emit_bool(e, "map", NULL, in->svg != NULL);
	emit_obj_close(e);
	return e;
}

int render_report(FILE *out, const struct report_in *in)
{
	struct emit *e, *tips;

	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		/* Only this page's own script and style run; nothing is fetched. */
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"script-src 'sha256-%s'; style-src 'sha256-%s'; img-src data:\">\n"
		"<meta name=\"generator\" content=\"ibscan %s\">\n"
		"<title>ibscan fabric report</title>\n<style>",
		report_js_sha256, report_css_sha256, IBSCAN_VERSION);
	fputs(report_css, out);
	fputs("</style>\n</head>\n<body>\n"
	      "<noscript><p>This report draws itself with JavaScript; its data are the JSON documents in "
	      "this file (the large ones deflated, in base64).</p></noscript>\n"
	      "<header id=\"summary\"></header>\n"
	      "<main>\n<section id=\"mapbox\">\n<div id=\"toolbar\"></div>\n<div id=\"map\">",
	      out);
	report_put_svg(out, in->svg, &tips);
	fputs("</div>\n</section>\n<aside id=\"details\"></aside>\n</main>\n"
	      "<section id=\"findings\"></section>\n",
	      out);
	put_doc(out, "ibs-meta", meta_doc(in));
	e = emit_new(EMIT_JSON);
	render_topology(e, in->f, in->run);
	put_doc(out, "ibs-topology", e);
	e = emit_new(EMIT_JSON);
	render_health(e, in->f, in->fs);
	put_doc(out, "ibs-health", e);
	if (in->counters) {
		e = emit_new(EMIT_JSON);
		render_counters(e, in->f, in->run, in->fs);
		put_doc(out, "ibs-counters", e);
	}
	if (in->svg && in->drawing)
		put_doc(out, "ibs-map", map_doc(in->drawing));
	if (tips)
		put_doc(out, "ibs-tips", tips);
	if (in->routes)
		put_doc(out, "ibs-routes", report_routes_doc(in));
	fputs("<script>", out);
	fputs(report_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
	return ferror(out) ? -1 : 0;
}
