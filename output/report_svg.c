/*
 * The map as the report inlines it (see report.h). On the 8,831-node fabric
 * the SVG was 4.8 of the page's 7 MB and the browser's parse of it the
 * largest part of the time before the map pans and zooms: every node and
 * edge carried its id three times (the group, its <title>, its tooltip's
 * anchor), the tooltip's text, and the font and anchor of every label.
 * Graphviz writes one element a line, the lines relied on here.
 */
#include "report.h"
#include "emit.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One UTF-8 code point. */
static void put_utf8(struct strbuf *sb, unsigned long c)
{
	if (c < 0x80) {
		sb_addc(sb, (char)c);
	} else if (c < 0x800) {
		sb_addc(sb, (char)(0xc0 | c >> 6));
		sb_addc(sb, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		sb_addc(sb, (char)(0xe0 | c >> 12));
		sb_addc(sb, (char)(0x80 | (c >> 6 & 0x3f)));
		sb_addc(sb, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x110000) {
		sb_addc(sb, (char)(0xf0 | c >> 18));
		sb_addc(sb, (char)(0x80 | (c >> 12 & 0x3f)));
		sb_addc(sb, (char)(0x80 | (c >> 6 & 0x3f)));
		sb_addc(sb, (char)(0x80 | (c & 0x3f)));
	}
}

/* An attribute's value s[0..n) with its XML references read (Graphviz's: &amp; &lt; &gt; &quot; &#N; &#xH;). */
static void xml_text(struct strbuf *sb, const char *s, size_t n)
{
	static const struct {
		const char *ref;
		char c;
	} named[] = { { "amp;", '&' }, { "lt;", '<' }, { "gt;", '>' }, { "quot;", '"' }, { "apos;", '\'' } };
	size_t i = 0, k;

	while (i < n) {
		const char *semi;
		if (s[i] != '&' || !(semi = memchr(s + i, ';', n - i))) {
			sb_addc(sb, s[i++]);
			continue;
		}
		if (s[i + 1] == '#') {
			bool x = s[i + 2] == 'x' || s[i + 2] == 'X';
			char *end;
			unsigned long c = strtoul(s + i + 2 + x, &end, x ? 16 : 10);
			if (end == semi && c) {
				put_utf8(sb, c);
				i = (size_t)(semi - s) + 1;
				continue;
			}
		}
		for (k = 0; k < sizeof(named) / sizeof(named[0]); k++)
			if ((size_t)(semi - s - i) == strlen(named[k].ref) && !strncmp(s + i + 1, named[k].ref, strlen(named[k].ref)))
				break;
		if (k < sizeof(named) / sizeof(named[0])) {
			sb_addc(sb, named[k].c);
			i = (size_t)(semi - s) + 1;
		} else {
			sb_addc(sb, s[i++]);
		}
	}
}

/* The svg from "<svg" on, without comments (Graphviz writes one before each node and edge). Caller frees. */
static char *without_comments(const char *p)
{
	struct strbuf sb = STRBUF_INIT;
	const char *c, *end;

	while ((c = strstr(p, "<!--"))) {
		sb_add(&sb, p, (size_t)(c - p));
		end = strstr(c + 4, "-->");
		if (!end)
			return sb_detach(&sb);
		p = end + 3;
		/* The line the comment stood on. */
		if (*p == '\n')
			p++;
	}
	sb_adds(&sb, p);
	return sb_detach(&sb);
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	return n >= strlen(prefix) && !strncmp(s, prefix, strlen(prefix));
}

/* The attributes every label or node shares (the page's style sets them on the map), dropped from a tag. */
static const char *const shared_attrs[] = {
	" font-family=\"Helvetica,sans-Serif\"",
	" font-size=\"10.00\"",
	" text-anchor=\"middle\"",
};

/* Line s[0..n) with the shared attributes left out of its tag (up to its first '>', not into its text). */
static void put_tag(FILE *out, const char *s, size_t n)
{
	const char *gt = memchr(s, '>', n);
	size_t tag = gt ? (size_t)(gt - s) : n, i = 0, k;

	while (i < tag) {
		for (k = 0; k < sizeof(shared_attrs) / sizeof(shared_attrs[0]); k++) {
			size_t l = strlen(shared_attrs[k]);
			if (i + l <= tag && !strncmp(s + i, shared_attrs[k], l))
				break;
		}
		if (k < sizeof(shared_attrs) / sizeof(shared_attrs[0])) {
			i += strlen(shared_attrs[k]);
			continue;
		}
		fputc(s[i++], out);
	}
	fwrite(s + tag, 1, n - tag, out);
}

void report_put_svg(FILE *out, const char *svg, struct emit **tips)
{
	const char *p = svg ? strstr(svg, "<svg") : NULL, *ln, *nl;
	static const char anchor[] = "\"><a xlink:title=\"";
	char *text, *group = NULL;
	bool tipped = false;
	int anchors = 0, close_g = 0;

	*tips = NULL;
	if (!p) {
		fputs("<p class=\"empty\">No map in this report.</p>", out);
		return;
	}
	*tips = emit_new(EMIT_JSON);
	emit_obj_open(*tips, NULL);
	text = without_comments(p);
	for (ln = text; *ln; ln = nl) {
		const char *a;
		size_t n;
		nl = strchr(ln, '\n');
		nl = nl ? nl + 1 : ln + strlen(ln);
		n = (size_t)(nl - ln);
		if (starts(ln, n, "<title>"))
			continue;
		if (starts(ln, n, "<g id=\"") && !starts(ln, n, "<g id=\"a_") &&
		    (strstr(ln, "\" class=\"node\">") || strstr(ln, "\" class=\"edge\">") ||
		     strstr(ln, "\" class=\"cluster\">")) && memchr(ln + 7, '"', n - 7)) {
			const char *q = memchr(ln + 7, '"', n - 7);
			struct strbuf id = STRBUF_INIT;
			free(group);
			/* As the page's DOM has it: Graphviz writes '-' as &#45; there. */
			xml_text(&id, ln + 7, (size_t)(q - ln - 7));
			group = sb_detach(&id);
			tipped = false;
		}
		/* <g id="a_ID"><a xlink:title="TIP">: the tooltip, kept once per element; the anchor dropped. */
		if (starts(ln, n, "<g id=\"a_") && (a = strstr(ln, anchor)) && a < nl && n > 2 &&
		    !strncmp(nl - 3, "\">\n", 3) && !memchr(a + sizeof(anchor) - 1, '"', (size_t)(nl - 3 - a - sizeof(anchor) + 1))) {
			if (group && !tipped) {
				struct strbuf tip = STRBUF_INIT;
				xml_text(&tip, a + sizeof(anchor) - 1, (size_t)(nl - 3 - a - sizeof(anchor) + 1));
				emit_str(*tips, group, NULL, sb_str(&tip));
				sb_free(&tip);
				tipped = true;
			}
			anchors++;
			continue;
		}
		if (anchors && starts(ln, n, "</a>")) {
			anchors--;
			close_g++;
			continue;
		}
		if (close_g && starts(ln, n, "</g>")) {
			close_g--;
			continue;
		}
		put_tag(out, ln, n);
	}
	emit_obj_close(*tips);
	free(group);
	free(text);
}
