/*
 * Text/JSON emitter. JSON is serialised as it is emitted (no document tree:
 * a 27,000-node topology must not cost gigabytes), in the layout of
 * jansson's JSON_INDENT(2), into the output stream or a buffer. Strings are
 * escaped per RFC 8259; bytes that are not valid UTF-8 (a NodeDescription is
 * whatever the device says) become U+FFFD.
 */
#include "emit.h"
#include "../core/mad/mad.h"
#include "../core/base/err.h"
#include "../core/base/strbuf.h"
#include "../core/base/text.h"
#include "../core/base/xalloc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Formats come from the renderers, each a literal there. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define EMIT_MAX_DEPTH 32
#define OBUF_SIZE 65536

struct emit {
	enum emit_mode mode;
	FILE *out;            /* streaming sink, or NULL: buffer in sb */
	struct strbuf sb;
	char *obuf;           /* streaming: batches small writes into large ones */
	size_t olen;
	bool failed;
	int depth;
	struct {
		bool array;
		size_t count;
	} st[EMIT_MAX_DEPTH];
};

struct emit *emit_new(enum emit_mode mode)
{
	struct emit *e = xcalloc(1, sizeof(*e));

	e->mode = mode;
	return e;
}

struct emit *emit_new_stream(enum emit_mode mode, FILE *out)
{
	struct emit *e = emit_new(mode);

	e->out = out;
	e->obuf = xmalloc(OBUF_SIZE);
	return e;
}

enum emit_mode emit_mode(const struct emit *e)
{
	return e->mode;
}

bool emit_is_json(const struct emit *e)
{
	return e->mode == EMIT_JSON;
}

static void flush_obuf(struct emit *e)
{
	if (e->olen && fwrite(e->obuf, 1, e->olen, e->out) != e->olen)
		e->failed = true;
	e->olen = 0;
}

static void put(struct emit *e, const char *s, size_t n)
{
	if (!n)
		return;
	if (!e->out) {
		sb_add(&e->sb, s, n);
		return;
	}
	if (e->olen + n > OBUF_SIZE)
		flush_obuf(e);
	if (n >= OBUF_SIZE) {
		if (fwrite(s, 1, n, e->out) != n)
			e->failed = true;
		return;
	}
	memcpy(e->obuf + e->olen, s, n);
	e->olen += n;
}

static void puts_(struct emit *e, const char *s)
{
	put(e, s, strlen(s));
}

/* printf into the output, through a stack buffer when the result is small. */
static void vput(struct emit *e, const char *fmt, va_list ap)
{
	char small[256], *p = small;
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0) {
		va_end(ap2);
		return;
	}
	if ((size_t)n >= sizeof(small)) {
		p = xmalloc((size_t)n + 1);
		vsnprintf(p, (size_t)n + 1, fmt, ap2);
	}
	va_end(ap2);
	put(e, p, (size_t)n);
	if (p != small)
		free(p);
}

static void putf(struct emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct emit *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(e, fmt, ap);
	va_end(ap);
}

static void indent(struct emit *e, int depth)
{
	static const char sp[] = "                                                                ";
	int n = depth * 2;

	while (n > 0) {
		int k = n > (int)sizeof(sp) - 1 ? (int)sizeof(sp) - 1 : n;
		put(e, sp, (size_t)k);
		n -= k;
	}
}

static void json_string(struct emit *e, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	uint32_t cp;

	put(e, "\"", 1);
	while (n) {
		size_t run = 0, l;
		/* Copy runs of plain characters at once. */
		while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
			run++;
		put(e, (const char *)p, run);
		p += run;
		n -= run;
		if (!n)
			break;
		switch (*p) {
		case '"':
			puts_(e, "\\\"");
			break;
		case '\\':
			puts_(e, "\\\\");
			break;
		case '\n':
			puts_(e, "\\n");
			break;
		case '\r':
			puts_(e, "\\r");
			break;
		case '\t':
			puts_(e, "\\t");
			break;
		case '\b':
			puts_(e, "\\b");
			break;
		case '\f':
			puts_(e, "\\f");
			break;
		default:
			if (*p < 0x20) {
				putf(e, "\\u%04x", *p);
				break;
			}
			l = ibs_utf8_decode(p, n, &cp);
			if (l) {
				put(e, (const char *)p, l);
				p += l;
				n -= l;
				continue;
			}
			puts_(e, "\\ufffd");
			break;
		}
		p++;
		n--;
	}
	put(e, "\"", 1);
}

/* Separator, indentation and key before a value in the current container. */
static void prefix(struct emit *e, const char *key)
{
	if (e->depth == 0)
		return;
	put(e, e->st[e->depth - 1].count ? ",\n" : "\n", e->st[e->depth - 1].count ? 2 : 1);
	e->st[e->depth - 1].count++;
	indent(e, e->depth);
	if (!e->st[e->depth - 1].array) {
		json_string(e, key ? key : "?");
		put(e, ": ", 2);
	}
}

static void open_container(struct emit *e, const char *key, bool array)
{
	if (e->depth >= EMIT_MAX_DEPTH)
		BUG("JSON nested deeper than %d: a renderer opens more than it closes", EMIT_MAX_DEPTH);
	prefix(e, key);
	put(e, array ? "[" : "{", 1);
	e->st[e->depth].array = array;
	e->st[e->depth].count = 0;
	e->depth++;
}

void emit_obj_open(struct emit *e, const char *key)
{
	if (e->mode == EMIT_JSON)
		open_container(e, key, false);
}

void emit_arr_open(struct emit *e, const char *key)
{
	if (e->mode == EMIT_JSON)
		open_container(e, key, true);
}

void emit_obj_close(struct emit *e)
{
	bool array;

	if (e->mode != EMIT_JSON || e->depth == 0)
		return;
	e->depth--;
	array = e->st[e->depth].array;
	if (e->st[e->depth].count) {
		put(e, "\n", 1);
		indent(e, e->depth);
	}
	put(e, array ? "]" : "}", 1);
	if (e->depth == 0)
		put(e, "\n", 1);
}

void emit_arr_close(struct emit *e)
{
	emit_obj_close(e);
}

void emit_str(struct emit *e, const char *key, const char *fmt, const char *val)
{
	if (e->mode == EMIT_JSON) {
		prefix(e, key);
		if (val)
			json_string(e, val);
		else
			puts_(e, "null");
		return;
	}
	if (fmt)
		putf(e, fmt, val ? val : "-");
}

void emit_uint(struct emit *e, const char *key, const char *fmt, uint64_t v)
{
	if (e->mode == EMIT_JSON) {
		char buf[24], *q = buf + sizeof(buf);
		prefix(e, key);
		do {
			*--q = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		put(e, q, (size_t)(buf + sizeof(buf) - q));
		return;
	}
	if (fmt)
		putf(e, fmt, v);
}

void emit_int(struct emit *e, const char *key, const char *fmt, int64_t v)
{
	if (e->mode == EMIT_JSON) {
		prefix(e, key);
		putf(e, "%" PRId64, v);
		return;
	}
	if (fmt)
		putf(e, fmt, v);
}

void emit_double(struct emit *e, const char *key, const char *fmt, double v)
{
	if (e->mode == EMIT_JSON) {
		char buf[64];
		prefix(e, key);
		/* The shortest form that reads back as v (%.17g wrote 2249.3159999999998), with a '.' or exponent. */
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		if (!strpbrk(buf, ".eEn"))
			strncat(buf, ".0", sizeof(buf) - strlen(buf) - 1);
		puts_(e, buf);
		return;
	}
	if (fmt)
		putf(e, fmt, v);
}

void emit_bool(struct emit *e, const char *key, const char *fmt, bool v)
{
	if (e->mode == EMIT_JSON) {
		prefix(e, key);
		puts_(e, v ? "true" : "false");
		return;
	}
	if (fmt)
		putf(e, fmt, v ? "yes" : "no");
}

void emit_guid(struct emit *e, const char *key, const char *fmt, uint64_t guid)
{
	char buf[IBS_GUID_STR_LEN];

	if (e->mode != EMIT_JSON && !fmt)
		return;
	emit_str(e, key, fmt, ibs_guid_str(guid, buf));
}

void emit_null(struct emit *e, const char *key, const char *fmt)
{
	emit_str(e, key, fmt, NULL);
}

void emit_text(struct emit *e, const char *fmt, ...)
{
	va_list ap;

	if (e->mode != EMIT_TEXT)
		return;
	va_start(ap, fmt);
	vput(e, fmt, ap);
	va_end(ap);
}

int emit_write(struct emit *e, FILE *out)
{
	if (e->out) {
		flush_obuf(e);
		return e->failed || ferror(e->out) ? -1 : 0;
	}
	if (e->sb.len && fwrite(e->sb.buf, 1, e->sb.len, out) != e->sb.len)
		return -1;
	return 0;
}

void emit_free(struct emit *e)
{
	if (!e)
		return;
	if (e->out)
		flush_obuf(e);
	free(e->obuf);
	sb_free(&e->sb);
	free(e);
}
