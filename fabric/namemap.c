/* Node-name-map parser (the infiniband-diags format). */
#include "namemap.h"
#include "model.h"
#include "../core/file.h"
#include "../core/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	uint64_t guid;
	char *name;
};

struct ibs_namemap {
	struct entry *v;
	size_t n, cap;

};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
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
		char tmp[IBS_NAMEMAP_MAX_LINE + 1], *p, *end, *q;
		unsigned long long g;

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
		errno = 0;
		g = strtoull(p, &end, 0);
		if (errno || end == p || !isspace((unsigned char)*end)) {
			ibs_namemap_free(m);
			return fail(msg, name, line, "expected a GUID followed by a quoted name");
		}
		for (p = end; isspace((unsigned char)*p); p++)
			;
		if (*p == '"') {
			q = strchr(p + 1, '"');
			if (!q) {
				ibs_namemap_free(m);
				return fail(msg, name, line, "unterminated quoted name");
			}
			*q = '\0';
			p++;
		} else {
			/* Unquoted: up to the first blank, as infiniband-diags accepts. */
			for (q = p; *q && !isspace((unsigned char)*q); q++)
				;
			*q = '\0';
		}
		if (!*p) {
			ibs_namemap_free(m);
			return fail(msg, name, line, "empty name");
		}
		m->v = xgrow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
		m->v[m->n].guid = (uint64_t)g;
		m->v[m->n].name = xstrdup(p);
		m->n++;
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), entry_cmp);
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
	struct entry key = { guid, NULL }, *e;

	if (!m || !m->n)
		return NULL;
	e = bsearch(&key, m->v, m->n, sizeof(*m->v), entry_cmp);
	return e ? e->name : NULL;
}

size_t ibs_namemap_count(const struct ibs_namemap *m)
{
	return m ? m->n : 0;
}

void ibs_namemap_free(struct ibs_namemap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].name);
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
