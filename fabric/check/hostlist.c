/* Slurm hostlist expansion (see hostlist.h): top-level commas split, brackets hold ranges. */
#include "hostlist.h"
#include "../../core/base/strbuf.h"
#include "../../core/base/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct names {
	char **v;
	size_t n, cap;
};

static bool push(struct names *s, const char *p, size_t len, char **msg)
{
	if (s->n >= IBS_HOSTLIST_MAX) {
		*msg = xasprintf("more than %d names in the hostlist", IBS_HOSTLIST_MAX);
		return false;
	}
	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = xstrndup(p, len);
	return true;
}

/* Expand one item (no top-level comma): prefix, then the first [..] group, recursively the rest. */
static bool item(struct names *s, const char *pre, size_t plen, const char *it, size_t len, char **msg)
{
	const char *lb = memchr(it, '[', len), *rb, *q;
	struct strbuf sb = STRBUF_INIT;

	if (!lb) {
		bool ok;
		sb_addf(&sb, "%.*s%.*s", (int)plen, pre, (int)len, it);
		ok = push(s, sb.buf ? sb.buf : "", sb.len, msg);
		free(sb_detach(&sb));
		return ok;
	}
	rb = memchr(lb, ']', len - (size_t)(lb - it));
	if (!rb || rb == lb + 1) {
		*msg = xasprintf("'%.*s': a '[' without its ']' or with nothing inside", (int)len, it);
		return false;
	}
	for (q = lb + 1; q < rb;) {
		const char *e = memchr(q, ',', (size_t)(rb - q)), *dash, *d;
		unsigned long lo, hi, v;
		int width;
		if (!e)
			e = rb;
		dash = memchr(q, '-', (size_t)(e - q));
		for (d = q; d < e; d++)
			if (!isdigit((unsigned char)*d) && d != dash) {
				*msg = xasprintf("'%.*s': want numbers and ranges inside brackets", (int)len, it);
				return false;
			}
		if (q == e || dash == q || dash == e - 1) {
			*msg = xasprintf("'%.*s': an empty number in brackets", (int)len, it);
			return false;
		}
		width = (int)((dash ? dash : e) - q);
		lo = strtoul(q, NULL, 10);
		hi = dash ? strtoul(dash + 1, NULL, 10) : lo;
		if (hi < lo || hi - lo >= IBS_HOSTLIST_MAX || width > 9 || (dash && e - dash - 1 > 9)) {
			*msg = xasprintf("'%.*s': a range that runs backwards or is too long", (int)len, it);
			return false;
		}
		for (v = lo; v <= hi; v++) {
			char *np;
			bool ok;
			sb_addf(&sb, "%.*s%.*s%0*lu", (int)plen, pre, (int)(lb - it), it, width, v);
			np = sb_detach(&sb);
			ok = item(s, np, strlen(np), rb + 1, len - (size_t)(rb + 1 - it), msg);
			free(np);
			if (!ok)
				return false;
		}
		q = e + (e < rb);
	}
	return true;
}

enum ibs_err ibs_hostlist_expand(const char *expr, char ***out, size_t *n, char **msg)
{
	struct names s = { NULL, 0, 0 };
	const char *p = expr;
	size_t i;

	*out = NULL;
	*n = 0;
	while (*p) {
		const char *q = p;
		int depth = 0;
		while (*q && (depth || *q != ',')) {
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
			if (depth < 0 || depth > 1)
				break;
			q++;
		}
		if (depth || (*q && *q != ',') || q == p) {
			*msg = xasprintf("'%s': not a hostlist (want e.g. node[001-040,042],login1)", expr);
			goto bad;
		}
		if (!item(&s, "", 0, p, (size_t)(q - p), msg))
			goto bad;
		p = *q ? q + 1 : q;
	}
	if (!s.n) {
		*msg = xstrdup("an empty hostlist");
		goto bad;
	}
	*out = s.v;
	*n = s.n;
	return IBS_OK;
bad:
	for (i = 0; i < s.n; i++)
		free(s.v[i]);
	free(s.v);
	return IBS_E_INVAL;
}
