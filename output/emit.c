/* Text/JSON emitter: JSON is built with jansson, text in a string buffer. */
#include "emit.h"
#include "../core/strbuf.h"
#include "../core/xalloc.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Formats come from the renderers, each a literal there. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define EMIT_MAX_DEPTH 32

struct emit {
	enum emit_mode mode;
	struct strbuf text;
	json_t *root;
	json_t *stack[EMIT_MAX_DEPTH];
	int depth;
};

struct emit *emit_new(enum emit_mode mode)
{
	struct emit *e = xcalloc(1, sizeof(*e));

	e->mode = mode;
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

static void oom_check(const void *p)
{
	if (!p) {
		fputs("ibscan: fatal: out of memory building JSON\n", stderr);
		exit(3);
	}
}

/* Attach v under key in the current container (or make it the root). */
static void put(struct emit *e, const char *key, json_t *v)
{
	json_t *top;

	oom_check(v);
	if (e->depth == 0) {
		if (e->root)
			json_decref(e->root);
		e->root = v;
		return;
	}
	top = e->stack[e->depth - 1];
	if (json_is_array(top))
		json_array_append_new(top, v);
	else
		json_object_set_new(top, key ? key : "?", v);
}

static void open_container(struct emit *e, const char *key, json_t *v)
{
	if (e->depth >= EMIT_MAX_DEPTH) {
		fputs("ibscan: fatal: JSON nesting too deep\n", stderr);
		exit(3);
	}
	put(e, key, v); /* the parent (or root) owns v from here */
	e->stack[e->depth++] = v;
}

void emit_obj_open(struct emit *e, const char *key)
{
	if (e->mode == EMIT_JSON)
		open_container(e, key, json_object());
}

void emit_arr_open(struct emit *e, const char *key)
{
	if (e->mode == EMIT_JSON)
		open_container(e, key, json_array());
}

void emit_obj_close(struct emit *e)
{
	if (e->mode == EMIT_JSON && e->depth > 0)
		e->depth--;
}

void emit_arr_close(struct emit *e)
{
	emit_obj_close(e);
}

void emit_str(struct emit *e, const char *key, const char *fmt, const char *val)
{
	if (e->mode == EMIT_JSON) {
		put(e, key, val ? json_string(val) : json_null());
		return;
	}
	if (fmt)
		sb_addf(&e->text, fmt, val ? val : "-");
}

void emit_uint(struct emit *e, const char *key, const char *fmt, uint64_t v)
{
	if (e->mode == EMIT_JSON) {
		put(e, key, json_integer((json_int_t)v));
		return;
	}
	if (fmt)
		sb_addf(&e->text, fmt, v);
}

void emit_int(struct emit *e, const char *key, const char *fmt, int64_t v)
{
	if (e->mode == EMIT_JSON) {
		put(e, key, json_integer((json_int_t)v));
		return;
	}
	if (fmt)
		sb_addf(&e->text, fmt, v);
}

void emit_double(struct emit *e, const char *key, const char *fmt, double v)
{
	if (e->mode == EMIT_JSON) {
		put(e, key, json_real(v));
		return;
	}
	if (fmt)
		sb_addf(&e->text, fmt, v);
}

void emit_bool(struct emit *e, const char *key, const char *fmt, bool v)
{
	if (e->mode == EMIT_JSON) {
		put(e, key, json_boolean(v));
		return;
	}
	if (fmt)
		sb_addf(&e->text, fmt, v ? "yes" : "no");
}

void emit_guid(struct emit *e, const char *key, const char *fmt, uint64_t guid)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, guid);
	emit_str(e, key, fmt, buf);
}

void emit_null(struct emit *e, const char *key, const char *fmt)
{
	emit_str(e, key, fmt, NULL);
}

void emit_text(struct emit *e, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (e->mode != EMIT_TEXT)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb_add(&e->text, s, (size_t)n);
	free(s);
}

int emit_write(struct emit *e, FILE *out)
{
	if (e->mode == EMIT_JSON) {
		if (!e->root)
			return 0;
		if (json_dumpf(e->root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0)
			return -1;
		if (fputc('\n', out) == EOF)
			return -1;
		return 0;
	}
	if (e->text.len && fwrite(e->text.buf, 1, e->text.len, out) != e->text.len)
		return -1;
	return 0;
}

void emit_free(struct emit *e)
{
	if (!e)
		return;
	if (e->root)
		json_decref(e->root);
	sb_free(&e->text);
	free(e);
}
