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

/* Longer digit runs do not fit in 64 bits: they are text, not numbers. */
#define HL_MAX_DIGITS 18
/* A run of hex digits this long with a letter in it is a GUID ("host-0002c90300f1c000"): text. */
#define HL_HEX_WORD 12

/*
 * Slurm's hostlist syntax (as scontrol show hostnames expands it, Slurm
 * 22.05): a name may hold several bracketed numbers, "E[1-20]_H[1]", but
 * must end in ']' once it holds one: "E[1-20]_H1" and "gpu[1-2]-ib" are
 * refused. So a name can be compressed on any of its numbers provided it
 * ends in a number, which is then written in brackets too.
 */

/* One name, with the digit runs it can be compressed on. */
struct hl_name {
	const char *s;
	size_t len;
	size_t *rs, *rl;    /* start and length of each number */
	size_t nr;
	char *shape;        /* s with every number replaced by '\1' */
	bool ends_in_number;
};

/* One name as a candidate of a range: the text around its number p. */
struct hl_item {
	const char *s;
	const struct hl_name *nm;
	size_t plen;        /* text before the number */
	size_t slen;        /* text after it */
	size_t dlen;
	unsigned long long v;
	size_t wlo, whi;    /* range widths that print the digits exactly as given */
};

struct hl_run {
	const struct hl_item *lo;
	unsigned long long hi;
	size_t wlo, whi;
	size_t n;
};

/* A piece of the output: one range group or one name, and the name it sorts by. */
struct hl_piece {
	char *text;
	const char *first;
};

static bool hexletter(char c)
{
	return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void hl_parse(struct hl_name *nm, const char *s)
{
	size_t i = 0, cap = 0;
	struct strbuf sh = STRBUF_INIT;

	memset(nm, 0, sizeof(*nm));
	nm->s = s;
	nm->len = strlen(s);
	while (i < nm->len) {
		size_t j = i, h0 = i, h1 = i;
		bool letter = false;
		if (!isdigit((unsigned char)s[i])) {
			sb_addc(&sh, s[i++]);
			continue;
		}
		while (j < nm->len && isdigit((unsigned char)s[j]))
			j++;
		/* The hex word around it, when there is one. */
		while (h0 > 0 && isxdigit((unsigned char)s[h0 - 1]))
			letter |= hexletter(s[--h0]);
		for (h1 = i; h1 < nm->len && isxdigit((unsigned char)s[h1]); h1++)
			letter |= hexletter(s[h1]);
		if (j - i > HL_MAX_DIGITS || (letter && h1 - h0 >= HL_HEX_WORD)) {
			sb_add(&sh, s + i, j - i);
			i = j;
			continue;
		}
		nm->rs = xgrow(nm->rs, &cap, nm->nr + 1, sizeof(*nm->rs));
		nm->rl = xrealloc(nm->rl, cap * sizeof(*nm->rl));
		nm->rs[nm->nr] = i;
		nm->rl[nm->nr++] = j - i;
		sb_addc(&sh, '\1');
		nm->ends_in_number = j == nm->len;
		i = j;
	}
	nm->shape = sb_detach(&sh);
}

static void hl_item_of(struct hl_item *it, const struct hl_name *nm, size_t p)
{
	size_t d = nm->rl[p];
	const char *digits = nm->s + nm->rs[p];

	it->s = nm->s;
	it->nm = nm;
	it->plen = nm->rs[p];
	it->slen = nm->len - nm->rs[p] - d;
	it->dlen = d;
	it->v = strtoull(digits, NULL, 10);
	/*
	 * A range "lo-hi" expands to numbers zero-padded to strlen(lo) (Slurm's
	 * rule): "007" needs exactly width 3; "10" prints as itself with any
	 * width up to 2.
	 */
	if (d > 1 && digits[0] == '0') {
		it->wlo = d;
		it->whi = d;
	} else {
		it->wlo = 1;
		it->whi = d;
	}
}

/* Same text around the number: one range group. */
static int item_text_cmp(const struct hl_item *a, const struct hl_item *b)
{
	int c;

	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	if ((c = memcmp(a->s, b->s, a->plen)))
		return c;
	if (a->slen != b->slen)
		return a->slen < b->slen ? -1 : 1;
	return memcmp(a->s + a->plen + a->dlen, b->s + b->plen + b->dlen, a->slen);
}

static int item_cmp(const void *pa, const void *pb)
{
	const struct hl_item *a = pa, *b = pb;
	int c = item_text_cmp(a, b);

	if (c)
		return c;
	if (a->v != b->v)
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

/* The text after the number, its last number in brackets: "_H1" is written "_H[1]". */
static void add_suffix(struct strbuf *sb, const struct hl_item *it)
{
	const char *suf = it->s + it->plen + it->dlen;
	size_t last;

	if (!it->slen)
		return;
	last = it->nm->rl[it->nm->nr - 1];
	sb_add(sb, suf, it->slen - last);
	sb_addc(sb, '[');
	sb_add(sb, suf + it->slen - last, last);
	sb_addc(sb, ']');
}

/* One group's names, items[0..n), sorted: "prefix[r1,r2,...]suffix" (no duplicates in items). */
static char *hl_group(const struct hl_item *items, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	struct hl_run *runs = NULL;
	size_t *open = NULL, n_runs = 0, cap_runs = 0, n_open = 0, cap_open = 0, i, j;

	for (i = 0; i < n; i++) {
		const struct hl_item *it = &items[i];
		size_t k = 0;

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
	qsort(runs, n_runs, sizeof(*runs), run_cmp);
	sb_add(&sb, items[0].s, items[0].plen);
	sb_addc(&sb, '[');
	for (i = 0; i < n_runs; i++) {
		const struct hl_run *r = &runs[i];

		if (i)
			sb_addc(&sb, ',');
		if (r->n == 1)
			sb_add(&sb, r->lo->s + r->lo->plen, r->lo->dlen);
		else
			sb_addf(&sb, "%0*llu-%0*llu", (int)r->wlo, r->lo->v, (int)r->wlo, r->hi);
	}
	sb_addc(&sb, ']');
	add_suffix(&sb, &items[0]);
	free(runs);
	free(open);
	return sb_detach(&sb);
}

static int shape_cmp(const void *pa, const void *pb)
{
	const struct hl_name *a = *(const struct hl_name *const *)pa, *b = *(const struct hl_name *const *)pb;
	int c = strcmp(a->shape, b->shape);

	return c ? c : strcmp(a->s, b->s);
}

static int piece_cmp(const void *pa, const void *pb)
{
	const struct hl_piece *a = pa, *b = pb;

	return render_natcmp(a->first, b->first);
}

static void add_piece(struct hl_piece **v, size_t *n, size_t *cap, char *text, const char *first)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct hl_piece){ text, first };
}

/*
 * Names of one shape (the same text between the same count of numbers),
 * ending in a number: compress them on the number that leaves the fewest
 * groups (the last one on a tie), one piece per group.
 */
static void hl_shape(struct hl_name **v, size_t n, struct hl_piece **out, size_t *n_out, size_t *cap_out)
{
	size_t nr = v[0]->nr, p, best_p = nr - 1, best = (size_t)-1, i, j;
	struct hl_item *items = xcalloc(n, sizeof(*items));

	for (p = nr; p-- > 0;) {
		size_t groups = 0;
		for (i = 0; i < n; i++)
			hl_item_of(&items[i], v[i], p);
		qsort(items, n, sizeof(*items), item_cmp);
		for (i = 0; i < n; i++)
			groups += !i || item_text_cmp(&items[i - 1], &items[i]);
		if (groups < best) {
			best = groups;
			best_p = p;
		}
	}
	for (i = 0; i < n; i++)
		hl_item_of(&items[i], v[i], best_p);
	qsort(items, n, sizeof(*items), item_cmp);
	for (i = 0; i < n; i = j) {
		const char *first = items[i].s;
		size_t k;
		for (j = i + 1; j < n && !item_text_cmp(&items[i], &items[j]); j++)
			;
		for (k = i + 1; k < j; k++)
			if (render_natcmp(items[k].s, first) < 0)
				first = items[k].s;
		add_piece(out, n_out, cap_out, j - i == 1 ? xstrdup(items[i].s) : hl_group(items + i, j - i), first);
	}
	free(items);
}

char *render_hostlist(const char *const *names, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	struct hl_name *nm, **ord;
	struct hl_piece *pieces = NULL;
	size_t n_pieces = 0, cap_pieces = 0, i, j, k = 0;

	if (n == 0)
		return xstrdup("");
	nm = xcalloc(n, sizeof(*nm));
	ord = xcalloc(n, sizeof(*ord));
	for (i = 0; i < n; i++) {
		hl_parse(&nm[i], names[i]);
		ord[i] = &nm[i];
	}
	/* Identical names sort together (same shape, same text): one is enough. */
	qsort(ord, n, sizeof(*ord), shape_cmp);
	for (i = 0; i < n; i++)
		if (!k || strcmp(ord[k - 1]->s, ord[i]->s))
			ord[k++] = ord[i];
	for (i = 0; i < k; i = j) {
		for (j = i + 1; j < k && !strcmp(ord[i]->shape, ord[j]->shape); j++)
			;
		if (!ord[i]->ends_in_number) {
			size_t m;
			for (m = i; m < j; m++)
				add_piece(&pieces, &n_pieces, &cap_pieces, xstrdup(ord[m]->s), ord[m]->s);
			continue;
		}
		hl_shape(ord + i, j - i, &pieces, &n_pieces, &cap_pieces);
	}
	/* Numbers as numbers: E1_H1 before E10_H1, and groups where their first name stands. */
	qsort(pieces, n_pieces, sizeof(*pieces), piece_cmp);
	for (i = 0; i < n_pieces; i++) {
		if (i)
			sb_addc(&sb, ',');
		sb_adds(&sb, pieces[i].text);
		free(pieces[i].text);
	}
	free(pieces);
	for (i = 0; i < n; i++) {
		free(nm[i].rs);
		free(nm[i].rl);
		free(nm[i].shape);
	}
	free(nm);
	free(ord);
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
