/*
 * Names as operators write them: Slurm hostlist expressions
 * ("node[001-040,042]"), the order that compares numbers as numbers, and
 * the name inside a Mellanox switch description.
 */
#include "hostlist.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Longer digit runs do not fit in 64 bits: such names are kept whole. */
#define HL_MAX_DIGITS 18

struct hl_item {
	const char *s;
	size_t plen;        /* prefix: everything before the trailing digits */
	size_t dlen;        /* trailing digits, 0 when none */
	unsigned long long v;
	size_t wlo, whi;    /* range widths that print the digits exactly as given */
};

struct hl_run {
	const struct hl_item *lo;
	unsigned long long hi;
	size_t wlo, whi;
	size_t n;
};

static void hl_split(struct hl_item *it, const char *s)
{
	size_t len = strlen(s), d = 0;

	while (d < len && isdigit((unsigned char)s[len - 1 - d]))
		d++;
	it->s = s;
	if (d == 0 || d > HL_MAX_DIGITS) {
		it->plen = len;
		it->dlen = 0;
		return;
	}
	it->plen = len - d;
	it->dlen = d;
	it->v = strtoull(s + it->plen, NULL, 10);
	/*
	 * A range "lo-hi" expands to numbers zero-padded to strlen(lo) (Slurm's
	 * rule): "007" needs exactly width 3; "10" prints as itself with any
	 * width up to 2.
	 */
	if (d > 1 && s[it->plen] == '0') {
		it->wlo = d;
		it->whi = d;
	} else {
		it->wlo = 1;
		it->whi = d;
	}
}

static int hl_cmp(const void *pa, const void *pb)
{
	const struct hl_item *a = pa, *b = pb;
	size_t n = a->plen < b->plen ? a->plen : b->plen;
	int c = memcmp(a->s, b->s, n);

	if (c)
		return c;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	if ((a->dlen > 0) != (b->dlen > 0))
		return a->dlen > 0 ? 1 : -1;
	if (a->dlen && a->v != b->v)
		return a->v < b->v ? -1 : 1;
	if (a->dlen != b->dlen)
		return a->dlen < b->dlen ? -1 : 1;
	return strcmp(a->s, b->s);
}

static int run_cmp(const void *pa, const void *pb)
{
	const struct hl_run *a = pa, *b = pb;

	if (a->lo->v != b->lo->v)
		return a->lo->v < b->lo->v ? -1 : 1;
	return strcmp(a->lo->s, b->lo->s);
}

static bool same_prefix(const struct hl_item *a, const struct hl_item *b)
{
	return a->plen == b->plen && (a->dlen > 0) == (b->dlen > 0) && !memcmp(a->s, b->s, a->plen);
}

/* One prefix's numbered names, items[0..n), sorted: "prefix[r1,r2,...]" or a bare name. */
static void hl_group(struct strbuf *sb, const struct hl_item *items, size_t n)
{
	struct hl_run *runs = NULL;
	size_t *open = NULL, n_runs = 0, cap_runs = 0, n_open = 0, cap_open = 0, i, j;

	for (i = 0; i < n; i++) {
		const struct hl_item *it = &items[i];
		size_t k = 0;

		if (i && !strcmp(items[i - 1].s, it->s))
			continue;
		/* Runs that stopped below v - 1 cannot grow any more. */
		for (j = 0; j < n_open; j++)
			if (runs[open[j]].hi + 1 >= it->v)
				open[k++] = open[j];
		n_open = k;
		for (j = 0; j < n_open; j++) {
			struct hl_run *r = &runs[open[j]];
			size_t lo = r->wlo > it->wlo ? r->wlo : it->wlo;
			size_t hi = r->whi < it->whi ? r->whi : it->whi;

			if (r->hi + 1 == it->v && lo <= hi) {
				r->hi = it->v;
				r->wlo = lo;
				r->whi = hi;
				r->n++;
				break;
			}
		}
		if (j < n_open)
			continue;
		runs = xgrow(runs, &cap_runs, n_runs + 1, sizeof(*runs));
		runs[n_runs] = (struct hl_run){ it, it->v, it->wlo, it->whi, 1 };
		open = xgrow(open, &cap_open, n_open + 1, sizeof(*open));
		open[n_open++] = n_runs++;
	}
	if (n_runs == 1 && runs[0].n == 1) {
		sb_adds(sb, runs[0].lo->s);
	} else {
		qsort(runs, n_runs, sizeof(*runs), run_cmp);
		sb_add(sb, items[0].s, items[0].plen);
		sb_addc(sb, '[');
		for (i = 0; i < n_runs; i++) {
			const struct hl_run *r = &runs[i];

			if (i)
				sb_addc(sb, ',');
			if (r->n == 1)
				sb_adds(sb, r->lo->s + r->lo->plen);
			else
				sb_addf(sb, "%0*llu-%0*llu", (int)r->wlo, r->lo->v, (int)r->wlo, r->hi);
		}
		sb_addc(sb, ']');
	}
	free(runs);
	free(open);
}

char *render_hostlist(const char *const *names, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	struct hl_item *items;
	size_t i, j;

	if (n == 0)
		return xstrdup("");
	items = xcalloc(n, sizeof(*items));
	for (i = 0; i < n; i++)
		hl_split(&items[i], names[i]);
	qsort(items, n, sizeof(*items), hl_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && same_prefix(&items[i], &items[j]); j++)
			;
		if (sb.len)
			sb_addc(&sb, ',');
		if (items[i].dlen == 0)
			sb_adds(&sb, items[i].s); /* identical names sort together: one is enough */
		else
			hl_group(&sb, items + i, j - i);
	}
	free(items);
	return sb_detach(&sb);
}

/* Strings with numbers compared as numbers ("leaf9" < "leaf10"), then bytewise. */
int render_natcmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;

	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;
			int c;

			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = memcmp(a, b, la);
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return strcmp(a0, b0);
}

/* "L33", "S01" or "U2" at p[0..n): a director slot or an ASIC of a blade. */
static bool slot_token(const char *p, size_t n, char letter)
{
	size_t i;

	if (n < 2 || p[0] != letter)
		return false;
	for (i = 1; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return false;
	return true;
}

char *render_switch_name(const struct ibs_node *n)
{
	const char *semi, *colon, *p, *slot = NULL, *unit = NULL;
	size_t slot_len = 0, unit_len = 0;
	struct strbuf sb = STRBUF_INIT;

	if (n->name || !n->desc || !(semi = strchr(n->desc, ';')) || !(colon = strchr(semi + 1, ':')) ||
	    colon == semi + 1)
		return NULL;
	sb_add(&sb, semi + 1, (size_t)(colon - semi - 1));
	/* MODEL/SLOT/UNIT after the colon: "SX6536/L33/U1" is leaf 33, "CS7500/S01/U1" spine 1. */
	for (p = colon + 1; *p;) {
		size_t len = strcspn(p, "/");
		if (slot_token(p, len, 'L') || slot_token(p, len, 'S')) {
			slot = p;
			slot_len = len;
		} else if (slot && slot_token(p, len, 'U')) {
			unit = p;
			unit_len = len;
		}
		p += len;
		if (*p)
			p++;
	}
	if (slot) {
		sb_addc(&sb, '/');
		sb_add(&sb, slot, slot_len);
		/* The second ASIC of a blade is "/U2": kept, so the two stay apart; "/U1" says nothing. */
		if (unit && !(unit_len == 2 && unit[1] == '1'))
			sb_addf(&sb, "/%.*s", (int)unit_len, unit);
	}
	return sb_detach(&sb);
}
