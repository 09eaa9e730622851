/* Rail-optimized cabling: which leaf each rail of each host is on (see rails.h). */
#include "rails.h"
#include "../../core/base/file.h"
#include "../../core/base/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 64
#define NUM_MAX 99999u

struct rail_item {
	char prefix[NAME_MAX_LEN + 1]; /* the name before its number, or the whole name */
	bool numbered;
	unsigned lo, hi;
};

struct ibs_rails {
	bool all;
	struct rail_item *v;
	size_t n, cap;
};

/* Split "mlx5_12" into "mlx5_" and 12; false when the name does not end in digits. */
static bool split_num(const char *s, size_t len, size_t *plen, unsigned *num)
{
	size_t k = len;
	unsigned long v = 0;

	while (k && isdigit((unsigned char)s[k - 1]))
		k--;
	if (k == len || len - k > 5)
		return false;
	for (size_t i = k; i < len; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	*plen = k;
	*num = (unsigned)v;
	return true;
}

static bool all_digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return len > 0;
}

/* The value of s[0..len), all digits and at most 5 of them (checked by the caller). */
static unsigned digits_value(const char *s, size_t len)
{
	unsigned v = 0;

	for (size_t i = 0; i < len; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	return v;
}

/* One item s[0..len): "name", "name3", "name0-3", "6" or "6-9" after a numbered item. */
static const char *add_item(struct ibs_rails *r, const char *s, size_t len)
{
	struct rail_item it = { .numbered = false };
	const char *dash = memchr(s, '-', len);
	size_t nlen = dash ? (size_t)(dash - s) : len, plen;
	unsigned lo, hi;

	if (len == 3 && !memcmp(s, "all", 3)) {
		r->all = true;
		return NULL;
	}
	for (size_t i = 0; i < nlen; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != ':')
			return "a device name has only letters, digits, '_', '.' and ':'";
	if (!nlen)
		return "an empty device name";
	if (nlen > NAME_MAX_LEN)
		return "a device name longer than 64 characters";
	if (r->n >= IBS_RAILS_MAX_ITEMS)
		return "more than 1024 items";
	if (all_digits(s, nlen)) {
		/* A number alone takes the prefix of the item before it. */
		if (!r->n || !r->v[r->n - 1].numbered)
			return "a number with no numbered device before it to take the name from";
		memcpy(it.prefix, r->v[r->n - 1].prefix, sizeof(it.prefix));
		if (nlen > 5)
			return "a device number above 99999";
		plen = 0;
		lo = digits_value(s, nlen); /* s[0..len) need not end in a NUL (a file's bytes) */
	} else if (split_num(s, nlen, &plen, &lo)) {
		memcpy(it.prefix, s, plen);
		it.prefix[plen] = 0;
	} else {
		if (dash)
			return "a range needs a numbered device before '-' (mlx5_0-3)";
		memcpy(it.prefix, s, nlen);
		it.prefix[nlen] = 0;
		goto store;
	}
	hi = lo;
	if (dash) {
		size_t rest = len - nlen - 1;
		if (!all_digits(dash + 1, rest) || rest > 5)
			return "a range ends in a number of at most 5 digits (mlx5_0-3)";
		hi = digits_value(dash + 1, rest);
		if (hi < lo)
			return "a range that ends below its start";
	}
	it.numbered = true;
	it.lo = lo;
	it.hi = hi;
store:
	r->v = xgrow(r->v, &r->cap, r->n + 1, sizeof(*r->v));
	r->v[r->n++] = it;
	return NULL;
}

/* Items separated by commas (and, in a file, blanks and lines; '#' to the line's end). */
static enum ibs_err parse_items(const char *name, const char *buf, size_t len, bool file, struct ibs_rails **out,
				char **msg)
{
	struct ibs_rails *r = xcalloc(1, sizeof(*r));
	size_t i = 0, line = 1;

	*out = NULL;
	if (len > IBS_RAILS_MAX_BYTES) {
		*msg = xasprintf("%s: larger than %u bytes", name, IBS_RAILS_MAX_BYTES);
		ibs_rails_free(r);
		return IBS_E_INPUT;
	}
	while (i < len) {
		size_t start;
		const char *why;
		char c = buf[i];
		if (c == '\n') {
			line++;
			i++;
			continue;
		}
		if (c == ',' || (file && (c == ' ' || c == '\t' || c == '\r'))) {
			i++;
			continue;
		}
		if (file && c == '#') {
			while (i < len && buf[i] != '\n')
				i++;
			continue;
		}
		start = i;
		while (i < len && buf[i] != ',' && buf[i] != '\n' && !(file && strchr(" \t\r#", buf[i])))
			i++;
		if ((why = add_item(r, buf + start, i - start))) {
			if (file)
				*msg = xasprintf("%s:%zu: %s", name, line, why);
			else
				*msg = xasprintf("rails '%s': %s", buf, why);
			ibs_rails_free(r);
			return IBS_E_INPUT;
		}
	}
	if (!r->all && !r->n) {
		*msg = file ? xasprintf("%s: names no device", name) : xstrdup("rails: names no device");
		ibs_rails_free(r);
		return IBS_E_INPUT;
	}
	*out = r;
	return IBS_OK;
}

enum ibs_err ibs_rails_parse_text(const char *name, const char *buf, size_t len, struct ibs_rails **out,
				  char **msg)
{
	if (memchr(buf, 0, len)) {
		*out = NULL;
		*msg = xasprintf("%s: a NUL byte: not a text file", name);
		return IBS_E_INPUT;
	}
	return parse_items(name, buf, len, true, out, msg);
}

enum ibs_err ibs_rails_parse(const char *spec, struct ibs_rails **out, char **msg)
{
	char *buf;
	size_t len;
	enum ibs_err rc;

	if (spec[0] != '@')
		return parse_items("rails", spec, strlen(spec), false, out, msg);
	*out = NULL;
	if ((rc = ibs_read_file(spec + 1, IBS_RAILS_MAX_BYTES, &buf, &len, msg)))
		return rc;
	rc = ibs_rails_parse_text(spec + 1, buf, len, out, msg);
	free(buf);
	return rc;
}

bool ibs_rails_has(const struct ibs_rails *r, const char *device)
{
	size_t len = strlen(device), plen;
	unsigned num;
	bool numbered = split_num(device, len, &plen, &num);

	if (r->all)
		return true;
	for (size_t i = 0; i < r->n; i++) {
		const struct rail_item *it = &r->v[i];
		if (!it->numbered) {
			if (!strcmp(it->prefix, device))
				return true;
		} else if (numbered && strlen(it->prefix) == plen && !memcmp(it->prefix, device, plen) &&
			   num >= it->lo && num <= it->hi) {
			return true;
		}
	}
	return false;
}

void ibs_rails_free(struct ibs_rails *r)
{
	if (!r)
		return;
	free(r->v);
	free(r);
}

bool ibs_ca_device(const struct ibs_node *n, char *buf, size_t len)
{
	const char *s = n->name ? n->name : n->desc, *w;
	size_t k;

	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	while (*s && !isspace((unsigned char)*s))
		s++;
	while (isspace((unsigned char)*s))
		s++;
	for (w = s; *w && !isspace((unsigned char)*w); w++)
		;
	k = (size_t)(w - s);
	if (!k || k >= len)
		return false;
	memcpy(buf, s, k);
	buf[k] = 0;
	return true;
}

/* ---- the check ---- */

/* One host cable of a rail device. */
struct ent {
	size_t host;              /* index in hosts->v */
	size_t su;                /* its scalable unit: the lowest node index among its leaves */
	char rail[NAME_MAX_LEN + 8]; /* "mlx5_3", or "mlx5_3/2" for port 2 */
	const struct ibs_node *ca, *leaf;
	uint8_t cport, lport;
};

struct leafinfo {
	const char *rail;         /* the rail of most of its host cables; NULL when none has most */
	size_t n_rail, n_all;
};

static size_t uf_find(size_t *up, size_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

static int ent_leaf_cmp(const void *a, const void *b)
{
	const struct ent *x = *(const struct ent *const *)a, *y = *(const struct ent *const *)b;

	if (x->leaf->index != y->leaf->index)
		return x->leaf->index < y->leaf->index ? -1 : 1;
	return strcmp(x->rail, y->rail);
}

static int ent_host_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	int c;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if ((c = strcmp(x->rail, y->rail)))
		return c;
	return x->leaf->index < y->leaf->index ? -1 : x->leaf->index > y->leaf->index;
}

struct ctx {
	const struct ibs_fabric *f;
	const struct ibs_hosts *hosts;
	struct ent *e;
	size_t n;
	struct leafinfo *leaf;    /* by node index */
	size_t *up;               /* union-find: nodes, then hosts */
};

static const char *hname(const struct ctx *c, size_t host)
{
	return c->hosts->v[host].name;
}

/* The leaf of rail r in the scalable unit su, lowest index first; NULL when none. */
static const struct ibs_node *su_leaf(const struct ctx *c, size_t su, const char *r)
{
	for (size_t i = 0; i < c->f->n_nodes; i++)
		if (c->leaf[i].rail && !strcmp(c->leaf[i].rail, r) && uf_find(c->up, i) == su)
			return c->f->nodes[i];
	return NULL;
}

static void leaf_rails(struct ctx *c)
{
	const struct ent **by = xcalloc(c->n ? c->n : 1, sizeof(*by));
	size_t i, j;

	for (i = 0; i < c->n; i++)
		by[i] = &c->e[i];
	qsort(by, c->n, sizeof(*by), ent_leaf_cmp);
	for (i = 0; i < c->n; i = j) {
		const struct ibs_node *l = by[i]->leaf;
		struct leafinfo *li = &c->leaf[l->index];
		size_t best = 0, k, run;
		const char *rail = NULL;
		for (j = i; j < c->n && by[j]->leaf == l; j++)
			;
		for (k = i; k < j; k += run) {
			for (run = 1; k + run < j && !strcmp(by[k + run]->rail, by[k]->rail); run++)
				;
			if (run > best) {
				best = run;
				rail = by[k]->rail;
			}
		}
		li->n_all = j - i;
		/* A leaf with a single cable, or none on more than half, has no rail to hold the others to. */
		if (best >= 2 && best * 2 > j - i) {
			li->rail = rail;
			li->n_rail = best;
		}
	}
	free(by);
}

/* Host h's entries are e[a..b), sorted by rail. */
static void host_cables(const struct ctx *c, size_t a, size_t b, struct ibs_findings *fs)
{
	for (size_t i = a; i < b; i++) {
		const struct ent *x = &c->e[i], *partner = NULL, *home = NULL;
		const struct leafinfo *li = &c->leaf[x->leaf->index];
		const struct ibs_node *to;
		const char *h = hname(c, x->host), *ln = ibs_node_name(x->leaf);
		size_t k;
		if (!li->rail) {
			/* A leaf with no rail of its own: two rails of one host on it still collide (the later one said). */
			for (k = a; k < i && !home; k++)
				if (c->e[k].leaf == x->leaf)
					home = &c->e[k];
			if (home) {
				to = su_leaf(c, x->su, x->rail);
				ibs_health_add(fs, CK_RAIL_COLLISION, IBS_SEV_WARNING, x->ca, x->cport,
					       "%s %s is cabled to leaf %s port %u, where %s %s already is (port %u): "
					       "move %s %s from leaf %s port %u to a free port of %s%s",
					       h, x->rail, ln, x->lport, h, home->rail, home->lport, h, x->rail, ln,
					       x->lport, to ? "leaf " : "a leaf of rail ", to ? ibs_node_name(to) : x->rail);
			}
			continue;
		}
		if (!strcmp(li->rail, x->rail))
			continue;
		for (k = a; k < b; k++) {
			const struct ent *y = &c->e[k];
			const struct leafinfo *lj = &c->leaf[y->leaf->index];
			if (k == i)
				continue;
			if (y->leaf == x->leaf && !strcmp(y->rail, li->rail))
				home = y;
			else if (!partner && !strcmp(y->rail, li->rail) && lj->rail && !strcmp(lj->rail, x->rail))
				partner = y;
		}
		to = su_leaf(c, uf_find(c->up, c->f->n_nodes + x->host), x->rail);
		if (home) {
			ibs_health_add(fs, CK_RAIL_COLLISION, IBS_SEV_WARNING, x->ca, x->cport,
				       "%s %s is cabled to leaf %s port %u, where %s %s already is (port %u): "
				       "move %s %s from leaf %s port %u to a free port of %s%s",
				       h, x->rail, ln, x->lport, h, home->rail, home->lport, h, x->rail, ln, x->lport,
				       to ? "leaf " : "a leaf of rail ", to ? ibs_node_name(to) : x->rail);
		} else if (partner) {
			/* Both ends of the swap name it in the same words: the lower rail first. */
			const struct ent *p = strcmp(x->rail, partner->rail) < 0 ? x : partner;
			const struct ent *q = p == x ? partner : x;
			ibs_health_add(fs, CK_RAIL_MISCABLED, IBS_SEV_WARNING, x->ca, x->cport,
				       "%s %s is cabled to leaf %s port %u, a leaf of rail %s (%zu of its %zu host cables): "
				       "swap the cables of %s %s (leaf %s port %u) and %s %s (leaf %s port %u)",
				       h, x->rail, ln, x->lport, li->rail, li->n_rail, li->n_all, h, p->rail,
				       ibs_node_name(p->leaf), p->lport, h, q->rail, ibs_node_name(q->leaf), q->lport);
		} else {
			ibs_health_add(fs, CK_RAIL_MISCABLED, IBS_SEV_WARNING, x->ca, x->cport,
				       "%s %s is cabled to leaf %s port %u, a leaf of rail %s (%zu of its %zu host cables): "
				       "move %s %s from leaf %s port %u to a free port of %s%s",
				       h, x->rail, ln, x->lport, li->rail, li->n_rail, li->n_all, h, x->rail, ln, x->lport,
				       to ? "leaf " : "a leaf of rail ", to ? ibs_node_name(to) : x->rail);
		}
	}
}

static int ent_su_cmp(const void *a, const void *b)
{
	const struct ent *x = *(const struct ent *const *)a, *y = *(const struct ent *const *)b;
	size_t sx = x->su, sy = y->su;
	int c;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	if ((c = strcmp(x->rail, y->rail)))
		return c;
	return x->host < y->host ? -1 : x->host > y->host;
}

/* rail.missing: hosts of a scalable unit without a rail that most of its hosts have. */
static void missing_rails(const struct ctx *c, struct ibs_findings *fs)
{
	size_t nh = c->hosts->n, i, j, k, h;
	size_t *su_hosts = xcalloc(c->f->n_nodes + nh, sizeof(*su_hosts));
	size_t *first = xcalloc(nh, sizeof(*first));
	bool *has = xcalloc(nh, sizeof(*has)), *got = xcalloc(nh, sizeof(*got));
	const struct ent **by = xcalloc(c->n, sizeof(*by));

	/* e[] is sorted by host: host h's first cable is e[first[h]]. */
	for (i = 0; i < c->n; i = j) {
		for (j = i; j < c->n && c->e[j].host == c->e[i].host; j++)
			;
		first[c->e[i].host] = i;
		has[c->e[i].host] = true;
		su_hosts[c->e[i].su]++;
	}
	for (i = 0; i < c->n; i++)
		by[i] = &c->e[i];
	qsort(by, c->n, sizeof(*by), ent_su_cmp);
	for (i = 0; i < c->n; i = j) {
		size_t su = by[i]->su, holders = 0;
		const struct ibs_node *to;
		for (j = i; j < c->n && by[j]->su == su && !strcmp(by[j]->rail, by[i]->rail); j++)
			holders += j == i || by[j]->host != by[j - 1]->host;
		if (holders * 2 <= su_hosts[su] || holders == su_hosts[su])
			continue;
		for (k = i; k < j; k++)
			got[by[k]->host] = true;
		to = su_leaf(c, su, by[i]->rail);
		for (h = 0; h < nh; h++) {
			if (!has[h] || got[h] || uf_find(c->up, c->f->n_nodes + h) != su)
				continue;
			ibs_health_add(fs, CK_RAIL_MISSING, IBS_SEV_WARNING, c->e[first[h]].ca, 0,
				       "%s has no cable on rail %s, which %zu of the %zu hosts of its scalable unit have: "
				       "cable %s %s to a free port of %s%s",
				       hname(c, h), by[i]->rail, holders, su_hosts[su], hname(c, h), by[i]->rail,
				       to ? "leaf " : "a leaf of rail ", to ? ibs_node_name(to) : by[i]->rail);
		}
		for (k = i; k < j; k++)
			got[by[k]->host] = false;
	}
	free(su_hosts);
	free(first);
	free(has);
	free(got);
	free(by);
}

void ibs_check_rails(const struct ibs_fabric *f, const struct ibs_hosts *hosts, const struct ibs_rails *r,
		     struct ibs_findings *fs)
{
	struct ctx c = { .f = f, .hosts = hosts };
	size_t cap = 0, i, j;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_host *h = ibs_host_of(hosts, n);
		const struct ibs_port *pt;
		char dev[NAME_MAX_LEN + 1];
		/* A CA whose description is a default names no host, and its second word no device. */
		if (!h || n->ni.node_type != IBS_NODE_CA || !ibs_ca_names_host(n) || !ibs_ca_device(n, dev, sizeof(dev)) ||
		    !ibs_rails_has(r, dev))
			continue;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			struct ent *x;
			if (!pt->peer || pt->peer->ni.node_type != IBS_NODE_SWITCH)
				continue;
			c.e = xgrow(c.e, &cap, c.n + 1, sizeof(*c.e));
			x = &c.e[c.n++];
			x->host = (size_t)(h - hosts->v);
			if (pt->num == 1)
				snprintf(x->rail, sizeof(x->rail), "%s", dev);
			else
				snprintf(x->rail, sizeof(x->rail), "%s/%u", dev, pt->num);
			x->ca = n;
			x->cport = pt->num;
			x->leaf = pt->peer;
			x->lport = pt->peer_port;
		}
	}
	if (!c.n)
		return;
	qsort(c.e, c.n, sizeof(*c.e), ent_host_cmp);
	c.leaf = xcalloc(f->n_nodes, sizeof(*c.leaf));
	c.up = xcalloc(f->n_nodes + hosts->n, sizeof(*c.up));
	for (i = 0; i < f->n_nodes + hosts->n; i++)
		c.up[i] = i;
	for (i = 0; i < c.n; i++) {
		size_t a = uf_find(c.up, c.e[i].leaf->index), b = uf_find(c.up, f->n_nodes + c.e[i].host);
		/* The root is the lower index: a leaf, so su_leaf() finds a unit by any of its leaves. */
		if (a != b)
			c.up[a > b ? a : b] = a < b ? a : b;
	}
	for (i = 0; i < c.n; i++)
		c.e[i].su = uf_find(c.up, f->n_nodes + c.e[i].host);
	leaf_rails(&c);
	for (i = 0; i < c.n; i = j) {
		for (j = i; j < c.n && c.e[j].host == c.e[i].host; j++)
			;
		host_cables(&c, i, j, fs);
	}
	missing_rails(&c, fs);
	free(c.e);
	free(c.leaf);
	free(c.up);
}
