/* A cabling plan (CSV, UFM NDT columns) and its comparison with a fabric by names (see plan.h). */
#include "plan.h"
#include "../model/names.h"
#include "../model/rate.h"
#include "../../core/base/file.h"
#include "../../core/base/text.h"
#include "../../core/base/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FIELDS 5 /* the columns read; further ones are skipped */
#define MAX_ROWS 1000000

/* ---- reading ---- */

struct field {
	char buf[IBS_PLAN_MAX_LINE + 1];
	size_t len;
};

/*
 * Split one row (s[0..len), no newline) into fields; quoted fields may hold
 * commas and "" for a quote. Returns the field count (at most MAX_FIELDS
 * kept), or -1 with *why.
 */
static int split_row(const char *s, size_t len, struct field *f, const char **why)
{
	size_t i = 0;
	int n = 0;

	for (;;) {
		struct field *cur = n < MAX_FIELDS ? &f[n] : NULL;
		size_t k = 0;
		/* Leading blanks of a field are not part of it. */
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < len && s[i] == '"') {
			for (i++;; i++) {
				if (i >= len) {
					*why = "a quoted field is not closed on its line";
					return -1;
				}
				if (s[i] == '"') {
					if (i + 1 < len && s[i + 1] == '"') {
						i++;
					} else {
						i++;
						break;
					}
				}
				if (cur)
					cur->buf[k++] = s[i];
			}
			while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
				i++;
			if (i < len && s[i] != ',') {
				*why = "text after a quoted field";
				return -1;
			}
		} else {
			for (; i < len && s[i] != ','; i++) {
				if (s[i] == '"') {
					*why = "a quote inside an unquoted field";
					return -1;
				}
				if (cur)
					cur->buf[k++] = s[i];
			}
			while (k && cur && (cur->buf[k - 1] == ' ' || cur->buf[k - 1] == '\t' || cur->buf[k - 1] == '\r'))
				k--;
		}
		if (cur) {
			cur->buf[k] = 0;
			cur->len = k;
		}
		n++;
		if (i >= len)
			return n;
		i++; /* the comma */
	}
}

/* "3", "Port 3", "p3": a port 1..255; 0 when it is none. */
static unsigned port_of(const char *s)
{
	unsigned long v;
	char *end;

	if (!strncasecmp(s, "port", 4))
		s += 4;
	else if (*s == 'p' || *s == 'P')
		s++;
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	v = strtoul(s, &end, 10);
	return *end || v < 1 || v > 255 ? 0 : (unsigned)v;
}

/* "4xEDR" (any case of the x): copied as ibscan writes it; false when it is no rate. */
static bool rate_of(const char *s, char *out, size_t cap)
{
	const char *x = strpbrk(s, "xX");
	char w[8], sp[8];
	unsigned speed, ext, width;

	if (!x || x == s || (size_t)(x - s) > 2 || strlen(x + 1) >= sizeof(sp) || !x[1])
		return false;
	snprintf(w, sizeof(w), "%.*sx", (int)(x - s), s);
	snprintf(sp, sizeof(sp), "%s", x + 1);
	for (char *c = sp; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	if (!(width = ibs_width_code(w)) || !ibs_speed_code(sp, &speed, &ext))
		return false;
	snprintf(out, cap, "%s%s", ibs_width_str(width), sp);
	return true;
}

enum ibs_err ibs_plan_parse(const char *name, const char *buf, size_t len, struct ibs_plan **out, char **msg)
{
	struct ibs_plan *p = xcalloc(1, sizeof(*p));
	struct field *f = xmalloc(MAX_FIELDS * sizeof(*f));
	size_t pos = 0, line = 0;
	bool first = true;
	enum ibs_err rc = IBS_OK;

	*out = NULL;
	if (len > IBS_PLAN_MAX_BYTES) {
		*msg = xasprintf("%s: larger than %u MiB", name, IBS_PLAN_MAX_BYTES >> 20);
		rc = IBS_E_INPUT;
		goto out;
	}
	if (memchr(buf, 0, len)) {
		*msg = xasprintf("%s:%u: a NUL byte: not a text file", name, ibs_text_line_of(buf, memchr(buf, 0, len)));
		rc = IBS_E_INPUT;
		goto out;
	}
	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos, k;
		const char *why = NULL;
		struct ibs_plan_cable *c;
		int nf;
		pos += l + (nl != NULL);
		line++;
		if (l > IBS_PLAN_MAX_LINE) {
			*msg = xasprintf("%s:%zu: a row longer than %u bytes", name, line, IBS_PLAN_MAX_LINE);
			rc = IBS_E_INPUT;
			goto out;
		}
		for (k = 0; k < l && isspace((unsigned char)s[k]); k++)
			;
		if (k == l || s[k] == '#')
			continue;
		if (first && l >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) { /* a spreadsheet's byte order mark */
			s += 3;
			l -= 3;
		}
		nf = split_row(s, l, f, &why);
		if (nf < 0) {
			*msg = xasprintf("%s:%zu: %s", name, line, why);
			rc = IBS_E_INPUT;
			goto out;
		}
		if (nf < 4) {
			*msg = xasprintf("%s:%zu: %d field%s: a cable is start device, start port, end device, end port"
					 " (and optionally its rate)", name, line, nf, nf == 1 ? "" : "s");
			rc = IBS_E_INPUT;
			goto out;
		}
		/* The first row is a header when its ports are not numbers. */
		if (first && !port_of(f[1].buf) && !port_of(f[3].buf)) {
			first = false;
			continue;
		}
		first = false;
		if (!f[0].len || !f[2].len) {
			*msg = xasprintf("%s:%zu: an empty device name", name, line);
			rc = IBS_E_INPUT;
			goto out;
		}
		if (!port_of(f[1].buf) || !port_of(f[3].buf)) {
			*msg = xasprintf("%s:%zu: port '%s' is not a number from 1 to 255", name, line,
					 port_of(f[1].buf) ? f[3].buf : f[1].buf);
			rc = IBS_E_INPUT;
			goto out;
		}
		if (p->n >= MAX_ROWS) {
			*msg = xasprintf("%s:%zu: more than %u cables", name, line, MAX_ROWS);
			rc = IBS_E_INPUT;
			goto out;
		}
		p->v = xgrow(p->v, &p->cap, p->n + 1, sizeof(*p->v));
		c = &p->v[p->n++];
		memset(c, 0, sizeof(*c));
		c->a = ibs_text_clean(f[0].buf, f[0].len);
		c->b = ibs_text_clean(f[2].buf, f[2].len);
		c->pa = port_of(f[1].buf);
		c->pb = port_of(f[3].buf);
		c->line = line;
		/* A fifth column that is no rate (NDT's link type, say) is not one. */
		if (nf >= 5 && f[4].len && !rate_of(f[4].buf, c->rate, sizeof(c->rate)))
			c->rate[0] = 0;
	}
out:
	free(f);
	if (rc) {
		ibs_plan_free(p);
		return rc;
	}
	*out = p;
	return IBS_OK;
}

enum ibs_err ibs_plan_load(const char *path, struct ibs_plan **out, char **msg)
{
	char *buf;
	size_t len;
	enum ibs_err rc;

	*out = NULL;
	if ((rc = ibs_read_file(path, IBS_PLAN_MAX_BYTES, &buf, &len, msg)))
		return rc;
	rc = ibs_plan_parse(path, buf, len, out, msg);
	free(buf);
	return rc;
}

void ibs_plan_free(struct ibs_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].a);
		free(p->v[i].b);
	}
	free(p->v);
	free(p);
}

/* ---- comparing ---- */

struct named {
	const char *name;
	const struct ibs_node *n;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->n->index < y->n->index ? -1 : x->n->index > y->n->index;
}

/* The one node called name; NULL when none, *many when more than one is. */
static const struct ibs_node *by_name(const struct named *v, size_t n, const char *name, size_t *many)
{
	size_t lo = 0, hi = n;

	*many = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < n && !strcmp(v[hi].name, name); hi++)
		;
	*many = hi - lo;
	return hi - lo == 1 ? v[lo].n : NULL;
}

static void rate_str(const struct ibs_port *p, char *out, size_t cap)
{
	struct ibs_link_rate r;

	ibs_port_active_rate(p, &r);
	snprintf(out, cap, "%s%s", ibs_width_str(r.width), ibs_speed_str(r.speed, r.speed_ext));
}

/* Whether the live cable at node n port p is accounted for (planned, or paired with a planned one). */
struct seen {
	uint8_t *v;    /* a bit by node index * 256 + port: 32 bytes a node */
};

static bool seen_get(const struct seen *s, const struct ibs_node *n, unsigned p)
{
	size_t k = n->index * 256 + (p & 255);

	return s->v[k >> 3] & (1u << (k & 7));
}

static void seen_set(struct seen *s, const struct ibs_node *n, unsigned p)
{
	size_t k = n->index * 256 + (p & 255);

	s->v[k >> 3] |= (uint8_t)(1u << (k & 7));
}

void ibs_check_plan(const struct ibs_fabric *f, const struct ibs_plan *plan, struct ibs_findings *fs)
{
	struct named *v = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*v));
	struct seen seen = { xcalloc(f->n_nodes ? f->n_nodes * 32 : 1, 1) };
	bool *open = xcalloc(plan->n ? plan->n : 1, sizeof(*open));
	struct ibs_link *l = NULL;
	size_t i, nl;

	for (i = 0; i < f->n_nodes; i++) {
		v[i].n = f->nodes[i];
		v[i].name = ibs_node_name(f->nodes[i]);
	}
	qsort(v, f->n_nodes, sizeof(*v), named_cmp);
	/* Cables as planned. */
	for (i = 0; i < plan->n; i++) {
		const struct ibs_plan_cable *c = &plan->v[i];
		size_t ma, mb;
		const struct ibs_node *a = by_name(v, f->n_nodes, c->a, &ma), *b = by_name(v, f->n_nodes, c->b, &mb);
		const struct ibs_port *pa = a ? ibs_node_port(a, c->pa) : NULL;
		char live[32];
		if (ma > 1 || mb > 1) {
			ibs_health_add(fs, CK_PLAN_MISSING, IBS_SEV_WARNING, NULL, 0,
				       "plan line %zu: %zu nodes are called '%s': the plan cannot name one (give them a "
				       "--node-name-map)", c->line, ma > 1 ? ma : mb, ma > 1 ? c->a : c->b);
			continue;
		}
		if (!pa || !pa->peer || pa->peer != b || pa->peer_port != c->pb) {
			open[i] = true;
			continue;
		}
		seen_set(&seen, a, c->pa);
		seen_set(&seen, b, c->pb);
		if (c->rate[0] && pa->valid) {
			rate_str(pa, live, sizeof(live));
			if (strcmp(live, c->rate))
				ibs_health_add(fs, CK_PLAN_MISCABLED, IBS_SEV_WARNING, a, (uint8_t)c->pa,
					       "%s port %u to %s port %u runs %s, the plan says %s (line %zu)", c->a, c->pa,
					       c->b, c->pb, live, c->rate, c->line);
		}
	}
	/* A planned cable with one end where planned and the other elsewhere: moved, one finding with the move. */
	for (i = 0; i < plan->n; i++) {
		const struct ibs_plan_cable *c = &plan->v[i];
		size_t m;
		if (!open[i])
			continue;
		for (unsigned side = 0; side < 2 && open[i]; side++) {
			const char *hn = side ? c->b : c->a, *on = side ? c->a : c->b;
			unsigned hp = side ? c->pb : c->pa, op = side ? c->pa : c->pb;
			const struct ibs_node *h = by_name(v, f->n_nodes, hn, &m);
			const struct ibs_port *pt = h ? ibs_node_port(h, hp) : NULL;
			if (!pt || !pt->peer || seen_get(&seen, h, hp))
				continue;
			seen_set(&seen, h, hp);
			seen_set(&seen, pt->peer, pt->peer_port);
			open[i] = false;
			ibs_health_add(fs, CK_PLAN_MISCABLED, IBS_SEV_WARNING, h, (uint8_t)hp,
				       "%s port %u is cabled to %s port %u, the plan says %s port %u (line %zu): move that "
				       "end from %s port %u to %s port %u",
				       hn, hp, ibs_node_name(pt->peer), pt->peer_port, on, op, c->line,
				       ibs_node_name(pt->peer), pt->peer_port, on, op);
		}
	}
	for (i = 0; i < plan->n; i++) {
		const struct ibs_plan_cable *c = &plan->v[i];
		size_t m;
		const struct ibs_node *a;
		if (!open[i])
			continue;
		a = by_name(v, f->n_nodes, c->a, &m);
		if (!a)
			a = by_name(v, f->n_nodes, c->b, &m);
		ibs_health_add(fs, CK_PLAN_MISSING, IBS_SEV_WARNING, a, 0,
			       "%s port %u to %s port %u is not there (plan line %zu): cable it", c->a, c->pa, c->b,
			       c->pb, c->line);
	}
	/* Live cables the plan has nowhere. */
	nl = ibs_fabric_links(f, &l);
	for (i = 0; i < nl; i++) {
		if (seen_get(&seen, l[i].a, l[i].pa) || seen_get(&seen, l[i].b, l[i].pb))
			continue;
		ibs_health_add(fs, CK_PLAN_EXTRA, IBS_SEV_WARNING, l[i].a, l[i].pa,
			       "%s port %u to %s port %u is not in the plan: remove it, or add it to the plan",
			       ibs_node_name(l[i].a), l[i].pa, ibs_node_name(l[i].b), l[i].pb);
	}
	free(l);
	free(v);
	free(seen.v);
	free(open);
}
