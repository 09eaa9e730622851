/*
 * Slurm topology.conf for the topology/tree plugin: one SwitchName line per
 * switch of the fabric's tree, hosts compressed into hostlist ranges.
 *
 * The rules (docs/slurm.md explains them for operators):
 *
 * Names. Slurm reads Nodes= and Switches= with its hostlist parser, so a
 * name must not hold whitespace, '#' (comment), '=', ',', '[' or ']'.
 * Every run of characters outside [A-Za-z0-9._-] becomes one '_', and '_'
 * at either end is dropped. A host's name is fabric/model/hosts.h's: the first
 * word of its CA's node-name-map entry or node description ("node0001
 * mlx5_0" is host node0001, as rdma-ndd writes descriptions), unless that
 * is a factory or distribution default ("MT4129 ConnectX7   Mellanox
 * Technologies", "localhost HCA-1"), then "host-<system image GUID>"; the
 * CAs of one server (one system image GUID) are one host. A switch's name is its
 * node-name-map entry, else its description, where the Mellanox form
 * "MF0;leaf01:MSB7800/U1" gives the part between ';' and ':' (the name the
 * operator gave the switch), and a director's ASIC keeps its slot
 * ("MF0;ibcore1:SX6536/L33/U1" is ibcore1_L33); a switch with nothing left is "switch-<GUID>".
 * Switches that end up with the same name all get "-<GUID>" appended (then
 * "-2", "-3" ... where that is taken too), so every SwitchName is unique for
 * any input (unique_names() says why).
 *
 * Levels (fabric/model/levels.c). A leaf is a switch with a CA cabled to it: level 1. Any other
 * switch's level is 1 + the lowest level among the switches cabled to it,
 * i.e. breadth-first distance from the nearest leaf. On a fat tree that is
 * leaves 1, spines 2, cores 3. Switches= lists the neighbours exactly one
 * level down, so every child is in the line of each of its parents, as
 * Slurm counts levels (a switch with Nodes= is a leaf to Slurm too).
 * Switches that no CA can be reached from have no level and are left out.
 *
 * Hosts. Each host is listed under exactly one leaf: of its CAs (by name,
 * then GUID) the first, and of that CA's ports the lowest-numbered one that
 * is cabled to a switch. A dual-rail host (port 1 on one leaf, port 2 on
 * another) is under its port 1 leaf. A switch with nothing to list (a
 * second-rail leaf, or a spine above only such leaves) is left out with a
 * comment, because Slurm rejects a switch without children.
 *
 * Output order: levels from the bottom, switches by name (numbers compared
 * as numbers), so the file does not depend on the walk.
 */
#include "slurm.h"
#include "slurm_int.h"
#include "hostlist.h"
#include "../fabric/model/hosts.h"
#include "../fabric/model/levels.h"
#include "../core/base/err.h"
#include "../core/base/htab.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

/* s[0..len) with every run of other characters made one '_', trimmed; NULL when nothing is left. */
char *slurm_sanitize(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < len; i++) {
		if (name_char(s[i]))
			sb_addc(&sb, s[i]);
		else if (sb.len && sb.buf[sb.len - 1] != '_')
			sb_addc(&sb, '_');
	}
	while (sb.len && sb.buf[sb.len - 1] == '_')
		sb.buf[--sb.len] = '\0';
	while (sb.len && sb.buf[0] == '_') {
		memmove(sb.buf, sb.buf + 1, sb.len);
		sb.len--;
	}
	if (!sb.len) {
		sb_free(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

/* The name the node is known by, if any: map entry, else description (never the GUID). */
static const char *given_name(const struct ibs_node *n)
{
	if (n->name && n->name[0])
		return n->name;
	if (n->desc && n->desc[0])
		return n->desc;
	return NULL;
}

#define sanitize slurm_sanitize

/* The name of the host CA n is on (fabric/model/hosts.h), made fit for a hostlist. */
static char *host_name(const struct ibs_hosts *hs, const struct ibs_node *n)
{
	const struct ibs_host *h = ibs_host_of(hs, n);

	return h ? sanitize(h->name, strlen(h->name)) : NULL;
}

static char *switch_name(const struct ibs_node *n)
{
	const char *s = given_name(n);
	char *r = NULL, *part = render_switch_name(n);

	/* "ibcore1/L33" becomes "ibcore1_L33": the names Slurm takes (docs/slurm.md). */
	if (part)
		r = sanitize(part, strlen(part));
	free(part);
	if (!r && s)
		r = sanitize(s, strlen(s));
	if (!r)
		r = xasprintf("switch-%016" PRIx64, n->ni.node_guid);
	return r;
}

/* ---- the tree ---- */

struct sw {
	const struct ibs_node *n;
	char *name;
	unsigned level;     /* 0: no CA can be reached from it */
	bool listed;        /* has a SwitchName line */
	char **hosts;       /* borrowed from struct attach */
	size_t n_hosts, cap_hosts;
	char **parts;       /* the names of the further lines a list too long for one took */
	size_t n_parts;
};

/* A CA port cabled to a switch: where a host could be listed. */
struct attach {
	char *host;
	const struct ibs_node *ca;
	unsigned port;
	size_t sw;
};

struct slurm {
	struct sw *sws;
	size_t n_sws;
	size_t *sw_of;      /* node index -> switch index + 1, 0 for CAs and routers */
};

/*
 * Names taken so far (core/base/htab.h). Each name counts how often it was
 * given as a switch's name, and, when it was the base of suffixed names,
 * the next counter to try from it.
 */
struct name_ent {
	const char *name;         /* borrowed */
	size_t uses;
	unsigned long next;
};

struct nameset {
	struct ibs_htab tab;
	struct name_ent *pool;    /* every entry: at most two per switch (its name and one made) */
	size_t n, cap;
};

static bool same_name(const void *entry, const void *key)
{
	return !strcmp(((const struct name_ent *)entry)->name, key);
}

static struct name_ent *ns_find(struct nameset *ns, const char *s, bool add)
{
	uint64_t h = ibs_hash_str(s);
	struct name_ent *e = ibs_htab_find(&ns->tab, h, same_name, s);

	if (e || !add)
		return e;
	if (ns->n >= ns->cap)
		BUG("the Slurm writer's name pool is full (%zu names)", ns->cap);
	e = &ns->pool[ns->n++];
	e->name = s;
	ibs_htab_add(&ns->tab, h, e);
	return e;
}

/*
 * Make switch names unique, whatever the input. Every given name is taken
 * first; a name given to two or more switches is replaced on each by
 * "NAME-<GUID>", or "NAME-<GUID>-K" with the lowest K from 2 that nothing
 * has taken (two switches sharing a GUID too, or a name crafted to look like
 * a suffixed one). A suffixed name ends in "-<16 hex digits>[-K]", so it
 * comes from one base only, and each base remembers its next K: every probe
 * that fails hits a different taken name, and the work is linear.
 */
static void unique_names(struct sw *sws, size_t n)
{
	struct nameset taken = { IBS_HTAB_INIT, xcalloc(2 * n + 1, sizeof(struct name_ent)), 0, 2 * n + 1 };
	char **made = xcalloc(n ? n : 1, sizeof(*made));
	size_t i;

	for (i = 0; i < n; i++)
		ns_find(&taken, sws[i].name, true)->uses++;
	for (i = 0; i < n; i++) {
		char *base, *nn;
		struct name_ent *b;

		if (ns_find(&taken, sws[i].name, false)->uses < 2)
			continue;
		base = xasprintf("%s-%016" PRIx64, sws[i].name, sws[i].n->ni.node_guid);
		nn = base;
		b = ns_find(&taken, base, false);
		if (b) {
			unsigned long k = b->next ? b->next : 2;
			nn = NULL;
			do {
				free(nn);
				nn = xasprintf("%s-%lu", base, k++);
			} while (ns_find(&taken, nn, false));
			ns_find(&taken, nn, true);
			b->next = k;
			free(base);
		} else {
			ns_find(&taken, nn, true);
		}
		made[i] = nn;
	}
	/* The table borrows the old names: replace them only now. */
	for (i = 0; i < n; i++)
		if (made[i]) {
			free(sws[i].name);
			sws[i].name = made[i];
		}
	ibs_htab_free(&taken.tab);
	free(taken.pool);
	free(made);
}

/* Levels are the fabric's (fabric/model/levels.c): the Slurm view and the drawing agree. */
static void compute_levels(struct slurm *st, const struct ibs_fabric *f)
{
	unsigned max, *level = ibs_fabric_levels(f, &max);
	size_t i;

	for (i = 0; i < st->n_sws; i++)
		st->sws[i].level = level[st->sws[i].n->index];
	free(level);
}

static int attach_cmp(const void *pa, const void *pb)
{
	const struct attach *a = pa, *b = pb;
	int c = strcmp(a->host, b->host);

	if (c)
		return c;
	c = strcmp(ibs_node_name(a->ca), ibs_node_name(b->ca));
	if (c)
		return c;
	if (a->ca->index != b->ca->index)
		return a->ca->index < b->ca->index ? -1 : 1;
	return a->port < b->port ? -1 : a->port > b->port;
}

/* Children of s: the switches one level down that have a line, each once, in node order. */
static size_t children(const struct slurm *st, const struct sw *s, char ***out)
{
	char **v = NULL;
	bool *seen = xcalloc(st->n_sws ? st->n_sws : 1, sizeof(*seen));
	size_t n = 0, cap = 0;
	const struct ibs_port *pt;

	for (pt = ibs_node_ports_from(s->n, 1); pt < ibs_node_ports_end(s->n); pt++) {
		const struct ibs_node *peer = pt->peer;
		size_t k;
		if (!peer || !st->sw_of[peer->index])
			continue;
		k = st->sw_of[peer->index] - 1;
		if (seen[k] || !st->sws[k].listed || st->sws[k].level + 1 != s->level)
			continue;
		seen[k] = true;
		v = xgrow(v, &cap, n + 1 + st->sws[k].n_parts, sizeof(*v));
		v[n++] = st->sws[k].name;
		if (st->sws[k].n_parts)
			memcpy(v + n, st->sws[k].parts, st->sws[k].n_parts * sizeof(*v));
		n += st->sws[k].n_parts;
	}
	free(seen);
	*out = v;
	return n;
}

/*
 * Slurm reads topology.conf a line at a time into a buffer of 4096 bytes
 * (BUFFER_SIZE in Slurm's src/common/parse_config.c, read with fgets, so
 * 4095 with the newline; a continued line shares the buffer): a longer line
 * is cut, and its rest read as a line of its own. So no line is longer.
 */
#define SLURM_LINE_MAX 4094

static int natcmp_p(const void *a, const void *b)
{
	return render_natcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "SwitchName=NAME KEY=LIST  # level L, 0xGUID": its length. */
static size_t line_len(const char *name, const char *key, const char *list, const struct sw *s)
{
	return strlen("SwitchName=") + strlen(name) + 1 + strlen(key) + 1 + strlen(list) +
	       (size_t)snprintf(NULL, 0, "  # level %u, 0x%016" PRIx64, s->level, s->n->ni.node_guid);
}

/* A name for part k of s that no switch has taken. */
static char *part_name(const struct slurm *st, const struct sw *s, unsigned long *k)
{
	for (;;) {
		char *nm = xasprintf("%s-part%lu", s->name, (*k)++);
		size_t i;
		bool taken = false;
		for (i = 0; i < st->n_sws && !taken; i++) {
			size_t j;
			taken = !strcmp(st->sws[i].name, nm);
			for (j = 0; j < st->sws[i].n_parts && !taken; j++)
				taken = !strcmp(st->sws[i].parts[j], nm);
		}
		if (!taken)
			return nm;
		free(nm);
	}
}

/*
 * The line of s listing v[0..n) as KEY=, split into several lines, each
 * of its own switch "NAME-partK" at the same level, where one would be too
 * long for Slurm; the parts are listed by the switches above as s is.
 */
static void write_list(FILE *out, struct slurm *st, struct sw *s, const char *key, char **v, size_t n)
{
	char *list = render_hostlist((const char *const *)v, n);
	size_t i = 0;
	unsigned long k = 2;

	if (line_len(s->name, key, list, s) <= SLURM_LINE_MAX) {
		fprintf(out, "SwitchName=%s %s=%s  # level %u, 0x%016" PRIx64 "\n", s->name, key, list, s->level,
			s->n->ni.node_guid);
		free(list);
		return;
	}
	free(list);
	{
		/* A name that cannot fit in a line even alone is left out, said without it (Slurm would cut that too). */
		char **copy = xmalloc(n * sizeof(*copy));
		size_t m = 0;
		for (i = 0; i < n; i++) {
			if (line_len(s->name, key, v[i], s) > SLURM_LINE_MAX)
				fprintf(out, "# left out: a name of %zu characters under %s: longer than Slurm's line\n",
					strlen(v[i]), s->n->guid_name);
			else
				copy[m++] = v[i];
		}
		v = copy;
		n = m;
		i = 0;
	}
	qsort(v, n, sizeof(*v), natcmp_p);
	while (i < n) {
		char *name = i ? part_name(st, s, &k) : xstrdup(s->name), *best = NULL;
		size_t j = i + 1;
		/* As many names as fit, in natural order (one always does: names are short). */
		for (; j <= n; j++) {
			char *l = render_hostlist((const char *const *)v + i, j - i);
			if (best && line_len(name, key, l, s) > SLURM_LINE_MAX) {
				free(l);
				break;
			}
			free(best);
			best = l;
		}
		fprintf(out, "SwitchName=%s %s=%s  # level %u, 0x%016" PRIx64 "\n", name, key, best, s->level,
			s->n->ni.node_guid);
		free(best);
		if (i) {
			s->parts = xrealloc(s->parts, (s->n_parts + 1) * sizeof(*s->parts));
			s->parts[s->n_parts++] = name;
		} else {
			free(name);
		}
		i = j - 1;
	}
	free(v);
}

/* Hosts listed under switch k or any listed switch below it. */
static size_t hosts_below(const struct slurm *st, size_t k, bool *seen, size_t *stack)
{
	size_t n = 0, top = 0;
	const struct ibs_port *pt;

	memset(seen, 0, st->n_sws * sizeof(*seen));
	seen[k] = true;
	stack[top++] = k;
	while (top) {
		const struct sw *s = &st->sws[stack[--top]];
		n += s->n_hosts;
		for (pt = ibs_node_ports_from(s->n, 1); pt < ibs_node_ports_end(s->n); pt++) {
			const struct ibs_node *peer = pt->peer;
			size_t j;
			if (!peer || !st->sw_of[peer->index])
				continue;
			j = st->sw_of[peer->index] - 1;
			if (!seen[j] && st->sws[j].listed && st->sws[j].level + 1 == s->level) {
				seen[j] = true;
				stack[top++] = j;
			}
		}
	}
	return n;
}

/*
 * Slurm places a job only under one switch that reaches all of its hosts;
 * with no switch reaching every host it warns and never spans the trees.
 * Say so here too: leaves cabled to each other (no switch above them)
 * cannot be described in topology.conf.
 */
static bool one_tree(const struct slurm *st, size_t n_hosts, unsigned max_level)
{
	bool *seen = xcalloc(st->n_sws ? st->n_sws : 1, sizeof(*seen)), found = n_hosts == 0;
	size_t *stack = xcalloc(st->n_sws ? st->n_sws : 1, sizeof(*stack)), i;
	unsigned lv;

	for (lv = max_level; lv >= 1 && !found; lv--)
		for (i = 0; i < st->n_sws && !found; i++)
			if (st->sws[i].listed && st->sws[i].level == lv)
				found = hosts_below(st, i, seen, stack) == n_hosts;
	free(seen);
	free(stack);
	return found;
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct sw *a = *(struct sw *const *)pa, *b = *(struct sw *const *)pb;

	/* Levels from the bottom; switches without one last. */
	if (a->level != b->level) {
		if (!a->level || !b->level)
			return a->level ? -1 : 1;
		return a->level < b->level ? -1 : 1;
	}
	return render_natcmp(a->name, b->name);
}

int render_slurm(FILE *out, const struct ibs_fabric *f)
{
	struct slurm st = { NULL, 0, NULL };
	struct attach *at = NULL;
	struct sw **ord;
	size_t n_at = 0, cap_at = 0, i, j, n_hosts = 0;
	unsigned max_level = 0, lv;
	char **unnamed = NULL;
	size_t n_unnamed = 0, cap_unnamed = 0;
	struct ibs_hosts hs;

	st.sw_of = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*st.sw_of));
	st.sws = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*st.sws));
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		if (n->ni.node_type != IBS_NODE_SWITCH)
			continue;
		st.sws[st.n_sws].n = n;
		st.sws[st.n_sws].name = switch_name(n);
		st.sw_of[n->index] = ++st.n_sws;
	}
	unique_names(st.sws, st.n_sws);
	ibs_fabric_hosts(f, &hs);
	compute_levels(&st, f);
	for (i = 0; i < st.n_sws; i++)
		if (st.sws[i].level > max_level)
			max_level = st.sws[i].level;

	/* Every host's candidate places, then the first one by the rule above. */
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		char *h;
		const struct ibs_port *pt;
		if (n->ni.node_type != IBS_NODE_CA || ibs_is_aggregation_node(n))
			continue;
		h = host_name(&hs, n);
		if (!h) {
			unnamed = xgrow(unnamed, &cap_unnamed, n_unnamed + 1, sizeof(*unnamed));
			unnamed[n_unnamed++] = xstrdup(n->guid_name);
			continue;
		}
		at = xgrow(at, &cap_at, n_at + 1, sizeof(*at));
		at[n_at++] = (struct attach){ h, n, 0, 0 }; /* port 0: not cabled (yet) */
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			const struct ibs_node *peer = pt->peer;
			if (!peer || !st.sw_of[peer->index])
				continue;
			at = xgrow(at, &cap_at, n_at + 1, sizeof(*at));
			at[n_at++] = (struct attach){ xstrdup(h), n, pt->num, st.sw_of[peer->index] - 1 };
		}
	}
	if (n_at)
		qsort(at, n_at, sizeof(*at), attach_cmp);
	for (i = 0; i < n_at; i = j) {
		const struct attach *best = NULL;
		for (j = i; j < n_at && !strcmp(at[i].host, at[j].host); j++)
			if (!best && at[j].port)
				best = &at[j];
		if (best) {
			struct sw *s = &st.sws[best->sw];
			s->hosts = xgrow(s->hosts, &s->cap_hosts, s->n_hosts + 1, sizeof(*s->hosts));
			s->hosts[s->n_hosts++] = best->host;
			n_hosts++;
		}
	}

	/* Which switches get a line: bottom up, a switch with something to list. */
	for (lv = 1; lv <= max_level; lv++)
		for (i = 0; i < st.n_sws; i++) {
			struct sw *s = &st.sws[i];
			char **c;
			if (s->level != lv)
				continue;
			if (lv == 1) {
				s->listed = s->n_hosts > 0;
			} else {
				s->listed = children(&st, s, &c) > 0;
				free(c);
			}
		}

	fprintf(out, "# Slurm topology.conf for the topology/tree plugin, generated by ibscan\n");
	fprintf(out, "# (ibscan topology --format slurm): %zu switch%s in %u level%s, %zu host%s.\n", st.n_sws,
		st.n_sws == 1 ? "" : "es", max_level, max_level == 1 ? "" : "s", n_hosts, n_hosts == 1 ? "" : "s");
	fprintf(out, "# Levels count from the hosts, leaves are level 1. Rules: ibscan(1), docs/slurm.md.\n");
	if (f->partial)
		fprintf(out, "# PARTIAL: %zu parts of the fabric could not be reached or read\n", f->n_errors);
	if (!one_tree(&st, n_hosts, max_level))
		fprintf(out, "# WARNING: no switch reaches every host through the switches below it, so Slurm\n"
			     "# will not place one job across these trees (see docs/slurm.md).\n");
	ord = xcalloc(st.n_sws ? st.n_sws : 1, sizeof(*ord));
	for (i = 0; i < st.n_sws; i++)
		ord[i] = &st.sws[i];
	qsort(ord, st.n_sws, sizeof(*ord), line_cmp);
	for (i = 0; i < st.n_sws; i++) {
		struct sw *s = ord[i];
		char **c = NULL;
		size_t nc;

		if (!s->listed) {
			const char *why = !s->level     ? "no host can be reached through it"
					  : s->level == 1 ? "every host cabled to it is listed under another leaf"
							  : "no switch below it is listed";
			fprintf(out, "# left out: %s (level %u, 0x%016" PRIx64 "): %s\n", s->name, s->level,
				s->n->ni.node_guid, why);
			continue;
		}
		/* A leaf lists its hosts, a switch above it the switches one level down (never both). */
		nc = children(&st, s, &c);
		if (nc)
			write_list(out, &st, s, "Switches", c, nc);
		else
			write_list(out, &st, s, "Nodes", s->hosts, s->n_hosts);
		free(c);
	}
	/* Hosts with no port on a switch, and CAs with no name to list them by. */
	for (i = 0; i < n_at; i = j) {
		bool cabled = false;
		for (j = i; j < n_at && !strcmp(at[i].host, at[j].host); j++)
			cabled |= at[j].port != 0;
		if (!cabled)
			fprintf(out, "# left out: host %s: no port cabled to a switch\n", at[i].host);
	}
	for (i = 0; i < n_unnamed; i++)
		fprintf(out, "# left out: CA %s: no node description or node-name-map entry to name it by\n",
			unnamed[i]);

	for (i = 0; i < n_at; i++)
		free(at[i].host);
	free(at);
	for (i = 0; i < n_unnamed; i++)
		free(unnamed[i]);
	free(unnamed);
	for (i = 0; i < st.n_sws; i++) {
		free(st.sws[i].name);
		free(st.sws[i].hosts);
		for (j = 0; j < st.sws[i].n_parts; j++)
			free(st.sws[i].parts[j]);
		free(st.sws[i].parts);
	}
	free(st.sws);
	free(st.sw_of);
	free(ord);
	ibs_hosts_free(&hs);
	return ferror(out) ? -1 : 0;
}
