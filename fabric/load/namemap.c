/* Node-name-map parser (the infiniband-diags format). */
#include "namemap.h"
#include "../model/model.h"
#include "../../core/base/file.h"
#include "../../core/base/text.h"
#include "../../core/base/xalloc.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	uint64_t guid;
	char *name;     /* cleaned (core/base/text.h) */
	unsigned line;
};

/* Warnings kept about one map; past that only counted. */
#define MAX_WARNINGS 20

struct ibs_namemap {
	struct entry *v;
	size_t n, cap;
	char **warn;
	size_t n_warn, cap_warn, n_more;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* By GUID, then by line: the first entry of a GUID comes first. */
static int entry_line_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = entry_cmp(a, b);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

static void warn(struct ibs_namemap *m, char *msg)
{
	if (m->n_warn >= MAX_WARNINGS) {
		m->n_more++;
		free(msg);
		return;
	}
	m->warn = xgrow(m->warn, &m->cap_warn, m->n_warn + 1, sizeof(*m->warn));
	m->warn[m->n_warn++] = msg;
}

/* A GUID named twice: the first entry wins, as in infiniband-diags, and the file says so. */
static void drop_duplicates(struct ibs_namemap *m, const char *name)
{
	size_t i, k = 0;

	if (m->n) /* qsort wants a non-NULL array even for none (regress/namemap) */
		qsort(m->v, m->n, sizeof(*m->v), entry_line_cmp);
	for (i = 0; i < m->n; i++) {
		if (k && m->v[k - 1].guid == m->v[i].guid) {
			warn(m, xasprintf("%s:%u: GUID 0x%016" PRIx64 " is named again; the name on line %u ('%s') is kept",
					  name, m->v[i].line, m->v[i].guid, m->v[k - 1].line, m->v[k - 1].name));
			free(m->v[i].name);
			continue;
		}
		m->v[k++] = m->v[i];
	}
	m->n = k;
	if (m->n_more)
		warn(m, xasprintf("%s: %zu more warnings", name, m->n_more));
}

static enum ibs_err fail(char **msg, const char *name, unsigned line, const char *why)
{
	if (msg)
		*msg = xasprintf("%s:%u: %s", name, line, why);
	return IBS_E_INPUT;
}

enum ibs_err ibs_namemap_parse(const char *name, const char *buf, size_t len, struct ibs_namemap **out,
			       char **msg)
{
	struct ibs_namemap *m = xcalloc(1, sizeof(*m));
	size_t pos = 0;
	unsigned line = 0;

	*out = NULL;
	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - s) : len - pos;
		char tmp[IBS_NAMEMAP_MAX_LINE + 1], *p, *q, *rest;
		const char *end;
		uint64_t g;

		line++;
		pos += ll + (nl ? 1 : 0);
		if (ll > IBS_NAMEMAP_MAX_LINE) {
			ibs_namemap_free(m);
			return fail(msg, name, line, "line too long");
		}
		if (memchr(s, '\0', ll)) {
			ibs_namemap_free(m);
			return fail(msg, name, line, "NUL byte (binary file?)");
		}
		memcpy(tmp, s, ll);
		tmp[ll] = '\0';
		for (p = tmp; isspace((unsigned char)*p); p++)
			;
		if (!*p || *p == '#')
			continue;
		/* The one strict GUID parser: no sign, no blanks, no overflow (strtoull takes all three). */
		end = ibs_guid_parse(p, 0, &g);
		if (!end || !isspace((unsigned char)*end)) {
			ibs_namemap_free(m);
			return fail(msg, name, line, "expected a GUID (" IBS_GUID_WANT ") followed by a name");
		}
		for (p = tmp + (end - tmp); isspace((unsigned char)*p); p++)
			;
		if (*p == '"') {
			q = strchr(p + 1, '"');
			if (!q) {
				ibs_namemap_free(m);
				return fail(msg, name, line, "unterminated quoted name");
			}
			*q = '\0';
			rest = q + 1;
			p++;
		} else {
			/* Unquoted: one word, as infiniband-diags reads it. */
			for (q = p; *q && !isspace((unsigned char)*q); q++)
				;
			rest = *q ? q + 1 : q;
			*q = '\0';
		}
		if (!*p) {
			ibs_namemap_free(m);
			return fail(msg, name, line, "empty name");
		}
		/* Only blanks or a '#' comment may follow: anything else was meant to be part of the name. */
		while (isspace((unsigned char)*rest))
			rest++;
		if (*rest && *rest != '#') {
			ibs_namemap_free(m);
			return fail(msg, name, line, "text after the name (put a name with blanks in double quotes)");
		}
		m->v = xgrow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
		m->v[m->n].guid = g;
		m->v[m->n].name = ibs_text_clean(p, strlen(p));
		m->v[m->n].line = line;
		m->n++;
	}
	drop_duplicates(m, name);
	*out = m;
	return IBS_OK;
}

enum ibs_err ibs_namemap_load(const char *path, struct ibs_namemap **out, char **msg)
{
	char *buf;
	size_t n;
	enum ibs_err rc;

	*out = NULL;
	rc = ibs_read_file(path, IBS_NAMEMAP_MAX_BYTES, &buf, &n, msg);
	if (rc)
		return rc;
	rc = ibs_namemap_parse(path, buf, n, out, msg);
	free(buf);
	return rc;
}

const char *ibs_namemap_get(const struct ibs_namemap *m, uint64_t guid)
{
	struct entry key = { .guid = guid }, *e;

	if (!m || !m->n)
		return NULL;
	e = bsearch(&key, m->v, m->n, sizeof(*m->v), entry_cmp);
	return e ? e->name : NULL;
}

size_t ibs_namemap_count(const struct ibs_namemap *m)
{
	return m ? m->n : 0;
}

const char *ibs_namemap_entry(const struct ibs_namemap *m, size_t i, uint64_t *guid)
{
	*guid = m->v[i].guid;
	return m->v[i].name;
}

size_t ibs_namemap_warnings(const struct ibs_namemap *m, const char *const **out)
{
	*out = m ? (const char *const *)m->warn : NULL;
	return m ? m->n_warn : 0;
}

void ibs_namemap_free(struct ibs_namemap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].name);
	for (i = 0; i < m->n_warn; i++)
		free(m->warn[i]);
	free(m->warn);
	free(m->v);
	free(m);
}

void ibs_namemap_apply(const struct ibs_namemap *m, struct ibs_fabric *f)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		const char *n = ibs_namemap_get(m, f->nodes[i]->ni.node_guid);
		if (n) {
			free(f->nodes[i]->name);
			f->nodes[i]->name = xstrdup(n);
		}
	}
}
