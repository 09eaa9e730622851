/*
 * The fabric drawing in DOT (see draw.h): tiers, merged cables, host groups,
 * problems in colour, findings on the picture, a legend; what is drawn and
 * its order come from draw_plan.c. Every fabric string is untrusted: it
 * reaches DOT only through draw_dot_str().
 */
#include "draw.h"
#include "draw_int.h"
#include "../fabric/model/rate.h"
#include "health.h"
#include "hostlist.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../fabric/model/levels.h"
#include "../fabric/model/names.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Labels longer than this many characters are cut (the tooltip has the whole name). */
#define LABEL_MAX 40

/* ---- DOT strings ---- */

/*
 * s inside a DOT string: quotes and backslashes escaped, a newline as \n
 * (tooltips are several lines), any other control byte dropped (cleaned
 * fabric text has none).
 */
static void dot_esc(struct strbuf *sb, const char *s, size_t max_chars)
{
	size_t chars = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c & 0xc0) != 0x80 && max_chars && chars++ == max_chars) {
			sb_adds(sb, "…");
			return;
		}
		if (c == '\n')
			sb_adds(sb, "\\n");
		if (c == '"' || c == '\\')
			sb_addc(sb, '\\');
		if (c >= 0x20)
			sb_addc(sb, (char)c);
	}
}

void draw_dot_str(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	dot_esc(sb, s, 0);
	sb_addc(sb, '"');
}

/* ---- writing ---- */

void draw_add_id(struct render_draw_id **v, size_t *n, size_t *cap, const struct ibs_node *nd, unsigned port,
		 const char *id)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct render_draw_id){ nd->ni.node_guid, port, nd->index, id ? xstrdup(id) : NULL };
}

static int id_cmp(const void *pa, const void *pb)
{
	const struct render_draw_id *a = pa, *b = pb;

	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->port < b->port ? -1 : a->port > b->port;
}

static void write_node(struct draw *d, const struct ibs_node *nd, const char *name)
{
	struct strbuf *sb = &d->sb;
	struct strbuf tip = STRBUF_INIT;
	uint16_t lid = ibs_node_lid(nd);
	enum ibs_severity sev = draw_mark_sev(d, nd, 0);
	const char *shape = "ellipse", *fill = "#e2f0d9";

	if (nd->ni.node_type == IBS_NODE_SWITCH) {
		shape = "box";
		fill = "#cfe2f3";
	} else if (nd->ni.node_type == IBS_NODE_ROUTER) {
		shape = "diamond";
		fill = "#fff2cc";
	}
	sb_addf(sb, "\t\"%s\" [id=\"%s\", shape=%s, fillcolor=\"%s\", label=\"", d->id[nd->index], d->id[nd->index],
		shape, fill);
	dot_esc(sb, name, LABEL_MAX);
	if (lid)
		sb_addf(sb, "\\nLID %u", lid);
	if (d->n_beside[nd->index] == 1)
		sb_adds(sb, "\\n+ SHARP AN");
	else if (d->n_beside[nd->index])
		sb_addf(sb, "\\n+ %zu SHARP ANs", d->n_beside[nd->index]);
	sb_adds(sb, "\", tooltip=");
	sb_addf(&tip, "%s\n%s 0x%016" PRIx64, ibs_node_name(nd), ibs_node_type_str(nd->ni.node_type),
		nd->ni.node_guid);
	if (lid)
		sb_addf(&tip, ", LID %u", lid);
	if (nd->error)
		sb_addf(&tip, "\nerror: %s", nd->error);
	draw_mark_msgs(d, &tip, nd, 0);
	if (d->n_beside[nd->index]) {
		size_t i;
		for (i = 0; i < d->f->n_nodes; i++) {
			const struct ibs_node *an = d->f->nodes[i];
			if (d->beside[i] != nd->index + 1)
				continue;
			sb_adds(&tip, "\nSHARP: ");
			sb_adds(&tip, ibs_node_name(an));
			sb_addf(&tip, " 0x%016" PRIx64, an->ni.node_guid);
			if (ibs_node_lid(an))
				sb_addf(&tip, ", LID %u", ibs_node_lid(an));
			draw_mark_msgs(d, &tip, an, 0);
		}
	}
	draw_dot_str(sb, sb_str(&tip));
	sb_free(&tip);
	if (sev >= IBS_SEV_CRITICAL || (nd->error && sev < IBS_SEV_WARNING))
		sb_adds(sb, ", color=\"" COLOR_CRIT "\", penwidth=3");
	else if (sev == IBS_SEV_WARNING)
		sb_adds(sb, ", color=\"" COLOR_WARN "\", penwidth=3");
	sb_adds(sb, "];\n");
}

static void write_group(struct draw *d, const struct dgroup *g, char **names)
{
	struct strbuf *sb = &d->sb;
	const char **v = xcalloc(g->n, sizeof(*v));
	char *list;
	size_t i, n_hosts = 0;

	/* Servers, not adapters: the CAs of one host (one system image GUID, or one name) count once. */
	for (i = 0; i < g->n; i++) {
		size_t k;
		v[i] = names[g->hosts[i]];
		for (k = 0; k < i && d->hosts.host_of[g->hosts[k]] != d->hosts.host_of[g->hosts[i]]; k++)
			;
		n_hosts += k == i;
	}
	list = render_hostlist(v, g->n);
	sb_addf(sb, "\t\"%s\" [id=\"%s\", shape=folder, fillcolor=\"#e2f0d9\", label=\"", g->id, g->id);
	dot_esc(sb, list, LABEL_MAX);
	sb_addf(sb, "\\n%zu host%s, %s\", tooltip=", n_hosts, n_hosts == 1 ? "" : "s", g->rate);
	{
		struct strbuf tip = STRBUF_INIT;
		sb_addf(&tip, "%zu host%s", n_hosts, n_hosts == 1 ? "" : "s");
		if (n_hosts != g->n)
			sb_addf(&tip, " (%zu CAs)", g->n);
		sb_addf(&tip, " at %s on ", g->rate);
		sb_adds(&tip, ibs_node_name(g->leaf));
		sb_addf(&tip, " (0x%016" PRIx64 "):\n", g->leaf->ni.node_guid);
		for (i = 0; i < g->n; i++)
			sb_addf(&tip, "%s%s 0x%016" PRIx64, i ? "\n" : "", names[g->hosts[i]],
				d->f->nodes[g->hosts[i]]->ni.node_guid);
		draw_dot_str(sb, sb_str(&tip));
		sb_free(&tip);
	}
	sb_adds(sb, "];\n");
	free(list);
	free(v);
}

/*
 * Each director chassis as a box around its ASICs, labelled with the name
 * its ASICs share ("ibcore1" of "ibcore1/L01", "ibcore1/S01"), its system
 * image GUID and how many ASICs it has.
 */
static void write_chassis(struct draw *d, char **names)
{
	size_t c, i;

	for (c = 0; c < d->n_chassis; c++) {
		const struct dchassis *ch = &d->chassis[c];
		const char *common = NULL;
		size_t common_len = 0;
		bool first = true;
		struct strbuf label = STRBUF_INIT;

		/* The name before the slot, when every ASIC has the same one. */
		for (i = 0; i < d->f->n_nodes; i++) {
			const char *nm = names[i], *slash;
			size_t len;
			if (d->chassis_of[i] != c + 1)
				continue;
			slash = strchr(nm, '/');
			len = slash ? (size_t)(slash - nm) : strlen(nm);
			if (first) {
				common = nm;
				common_len = len;
				first = false;
			} else if (!common || len != common_len || strncmp(nm, common, len)) {
				common = NULL;
			}
		}
		if (common)
			sb_addf(&label, "%.*s: ", (int)common_len, common);
		sb_addf(&label, "chassis 0x%016" PRIx64 ", %zu ASICs", ch->sysimg, ch->n);
		sb_addf(&d->sb, "\tsubgraph \"cluster_chassis-%016" PRIx64 "\" {\n\t\tid=\"c-%016" PRIx64
				"\"; style=\"rounded,dashed\"; color=\"#5b7fa6\"; label=",
			ch->sysimg, ch->sysimg);
		draw_dot_str(&d->sb, sb_str(&label));
		sb_adds(&d->sb, ";\n");
		for (i = 0; i < d->f->n_nodes; i++)
			if (d->chassis_of[i] == c + 1)
				sb_addf(&d->sb, "\t\t\"%s\";\n", d->id[i]);
		sb_adds(&d->sb, "\t}\n");
		sb_free(&label);
	}
}

static const char *tier_name(const struct draw *d, int t)
{
	static const char *const names[] = { "host", "leaf", "spine", "core" };

	(void)d;
	return t >= 0 && t < 4 ? names[t] : "upper";
}

static void write_legend(struct draw *d)
{
	size_t c;

	sb_adds(&d->sb,
		"\tsubgraph legendrank {\n\t\trank=source;\n"
		"\t\tlegend [id=\"legend\", shape=plaintext, style=\"\", fontsize=9, label=<"
		"<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"3\" bgcolor=\"white\">"
		"<tr><td><b>legend</b></td></tr>"
		"<tr><td>6 × 4xEDR: cables that agree, merged</td></tr>"
		"<tr><td><font color=\"" COLOR_DOWN "\">red dashed: not Active</font></td></tr>"
		"<tr><td><font color=\"" COLOR_DEGRADED "\">orange bold: degraded</font></td></tr>"
		"<tr><td><font color=\"" COLOR_RATE "\">purple: other rate than its siblings</font></td></tr>"
		"<tr><td><font color=\"" COLOR_CRIT "\">red outline / edge: critical finding or error</font></td></tr>"
		"<tr><td><font color=\"" COLOR_WARN "\">orange outline / edge: warning</font></td></tr>"
		"<tr><td>box: switch, ellipse: host, folder: hosts grouped; + SHARP AN: an Aggregation Node in the switch</td></tr>");
	for (c = 0; c < d->n_common; c++)
		if (d->common[c].shared)
			sb_addf(&d->sb, "<tr><td>%s–%s cables: %s per pair where not labelled</td></tr>",
				tier_name(d, d->common[c].tw), tier_name(d, d->common[c].tu), d->common[c].label);
	if (d->o->heat)
		draw_heat_legend(d, &d->sb);
	sb_adds(&d->sb, "</table>>];\n\t}\n");
}

void render_drawing_build(struct render_drawing *out, const struct ibs_fabric *f, const struct render_draw_opts *o)
{
	static const struct render_draw_opts defaults = { .fs = NULL, .group_min = RENDER_DRAW_GROUP_DEFAULT, .heat = NULL };
	struct draw d;
	struct ibs_link *v;
	size_t n_links, n_ep, i, n_kept, cap_nodes = 0, cap_ports = 0;
	char **names;
	int t, max_tier = 0;

	memset(out, 0, sizeof(*out));
	memset(&d, 0, sizeof(d));
	d.f = f;
	d.o = o ? o : &defaults;
	d.level = ibs_fabric_levels(f, &d.max_level);
	ibs_fabric_hosts(f, &d.hosts);
	draw_find_chassis(&d);
	draw_collect_marks(&d);

	n_links = ibs_fabric_links(f, &v);
	d.links = xcalloc(n_links ? n_links : 1, sizeof(*d.links));
	for (i = 0; i < n_links; i++) {
		struct dlink *l = &d.links[i];
		l->a = v[i].a;
		l->pa = v[i].pa;
		l->b = v[i].b;
		l->pb = v[i].pb;
		draw_classify(&d, l);
	}
	free(v);
	d.n_links = n_links;

	d.group_of = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*d.group_of));
	d.beside = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*d.beside));
	d.n_beside = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*d.n_beside));
	draw_make_groups(&d);
	n_ep = f->n_nodes + d.n_groups;
	d.key = xcalloc(n_ep ? n_ep : 1, sizeof(*d.key));
	d.id = xcalloc(n_ep ? n_ep : 1, sizeof(*d.id));
	d.tier = xcalloc(n_ep ? n_ep : 1, sizeof(*d.tier));
	d.pos = xcalloc(n_ep ? n_ep : 1, sizeof(*d.pos));
	names = xcalloc(n_ep ? n_ep : 1, sizeof(*names));
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *nd = f->nodes[i];
		const struct ibs_node *first = ibs_fabric_find_guid(f, nd->ni.node_guid);
		d.key[i] = first && first != nd ? xasprintf("%016" PRIx64 "-%zu", nd->ni.node_guid, nd->index)
						: xasprintf("%016" PRIx64, nd->ni.node_guid);
		d.id[i] = xasprintf("n-%s", d.key[i]);
		d.tier[i] = draw_is_host(nd) ? 0 : nd->ni.node_type == IBS_NODE_SWITCH && d.level[i] ? (int)d.level[i] : -1;
		names[i] = draw_is_host(nd) ? xstrdup(ibs_host_of(&d.hosts, nd)->name) : draw_label_name(nd);
	}
	draw_place_beside(&d);
	for (i = 0; i < d.n_groups; i++) {
		struct dgroup *g = &d.groups[i];
		size_t k, same = 0, e = f->n_nodes + i;
		for (k = 0; k < i; k++)
			same += d.groups[k].leaf == g->leaf;
		g->id = same ? xasprintf("g-%s-%zu", d.key[g->leaf->index], same + 1)
			     : xasprintf("g-%s", d.key[g->leaf->index]);
		d.key[e] = xstrdup(g->id);
		d.id[e] = xstrdup(g->id);
		d.tier[e] = 0;
		for (k = 0; k < g->n; k++)
			d.group_of[g->hosts[k]] = i + 1;
		names[e] = xstrdup(names[g->hosts[0]]);
	}
	for (i = 0; i < n_links; i++) {
		struct dlink *l = &d.links[i];
		size_t ea = draw_endpoint(&d, l->a->index), eb = draw_endpoint(&d, l->b->index);
		/* Upper tier first: dot ranks the tail above the head. */
		if (d.tier[eb] > d.tier[ea] || (d.tier[eb] == d.tier[ea] && eb < ea)) {
			size_t t2 = ea;
			ea = eb;
			eb = t2;
		}
		l->u = ea;
		l->w = eb;
	}
	/* An Aggregation Node's cable is inside its switch's box: no edge, its ports are the switch's. */
	for (i = n_kept = 0; i < d.n_links; i++) {
		struct dlink *l = &d.links[i];
		if (d.beside[l->a->index] || d.beside[l->b->index]) {
			draw_add_id(&out->ports, &out->n_ports, &cap_ports, l->a, l->pa, d.id[l->u]);
			draw_add_id(&out->ports, &out->n_ports, &cap_ports, l->b, l->pb, d.id[l->u]);
		} else {
			d.links[n_kept++] = *l;
		}
	}
	d.n_links = n_kept;
	if (d.o->heat)
		draw_heat_init(&d);
	for (i = 0; i < n_ep; i++)
		if (d.tier[i] > max_tier)
			max_tier = d.tier[i];
	draw_find_rails(&d);
	draw_order_tiers(&d, names, n_ep);

	sb_adds(&d.sb, "graph ibscan {\n");
	sb_adds(&d.sb, "\tgraph [rankdir=TB, ranksep=1.4, nodesep=0.3, splines=line, forcelabels=true, "
		       "outputorder=edgesfirst, newrank=true, fontname=\"Helvetica\", fontsize=12, labelloc=t");
	if (d.o->fs) {
		char *line = render_health_status_line(f, d.o->fs), *bar = strstr(line, " |");
		if (bar)
			*bar = '\0';
		sb_adds(&d.sb, ", label=");
		draw_dot_str(&d.sb, line);
		free(line);
	}
	sb_adds(&d.sb, "];\n");
	sb_adds(&d.sb, "\tnode [fontname=\"Helvetica\", fontsize=10, style=filled];\n");
	sb_adds(&d.sb, "\tedge [fontname=\"Helvetica\", fontsize=7, color=\"#555555\", fontcolor=\"#555555\"];\n");
	draw_find_common(&d);
	d.bundle_of = draw_find_bundles(&d);
	write_legend(&d);
	out->n_drawn_nodes = 1;

	/* Tiers from the top (cores) down to the hosts, each in its order, wrapped into rows (draw_rows.c). */
	{
		struct ord *all = xcalloc(n_ep ? n_ep : 1, sizeof(*all));
		size_t n = 0, k, r, n_rows, *row_len = NULL, first = 0, in_tier = 0;
		for (t = max_tier; t >= -1; t--) {
			size_t from = n;
			for (i = 0; i < n_ep; i++)
				if (d.tier[i] == t && (i >= f->n_nodes || !d.group_of[i])) {
					all[n].e = i;
					all[n].key = d.pos[i];
					all[n].name = names[i];
					n++;
				}
			qsort(all + from, n - from, sizeof(*all), draw_ord_cmp);
		}
		for (k = n; k > 0 && d.tier[all[k - 1].e] < 0; k--)
			;
		n_rows = draw_plan_rows(&d, all, k, names, draw_bundle_ranks(&d), &row_len);
		{
			/* A tier wrapped, or a large fabric: laid out here (dot spreads wrapped rows wide). */
			size_t n_tiers = 0, q;
			for (q = 0; q < k; q++)
				n_tiers += !q || d.tier[all[q].e] != d.tier[all[q - 1].e];
			d.grid = k > DRAW_GRID_MIN || n_rows > n_tiers;
		}
		/* nop2: the positions as given, and the leaf-host cables' routes (draw_grid.c, draw_route.c) too. */
		out->engine = d.grid ? "nop2" : "dot";
		if (d.grid) {
			sb_adds(&d.sb, "\tgraph [layout=nop2];\n");
			d.gx = xcalloc(n_ep ? n_ep : 1, sizeof(*d.gx));
			d.gy = xcalloc(n_ep ? n_ep : 1, sizeof(*d.gy));
			draw_grid_positions(&d, all, n_rows, row_len, names);
			sb_addf(&d.sb, "\tlegend [pos=\"0,%.1f!\"];\n", d.legend_y);
		}
		for (r = 0; r <= n_rows; r++) {
			size_t len = r < n_rows ? row_len[r] : n - k, m;
			bool ranked = r < n_rows;
			if (!len)
				continue;
			if (ranked) {
				int tr = d.tier[all[first].e];
				/* The first row of a tier is "tierN", the rows it wraps into "tierN-2", "tierN-3" ... */
				in_tier = first && d.tier[all[first - 1].e] == tr ? in_tier + 1 : 1;
				if (in_tier > 1)
					sb_addf(&d.sb, "\tsubgraph \"tier%d-%zu\" {\n\t\trank=same;\n", tr, in_tier);
				else
					sb_addf(&d.sb, "\tsubgraph tier%d {\n\t\trank=same;\n", tr);
			}
			for (m = first; m < first + len; m++) {
				size_t e = all[m].e;
				if (e < f->n_nodes)
					write_node(&d, f->nodes[e], draw_is_host(f->nodes[e]) ? ibs_node_name(f->nodes[e]) : names[e]);
				else
					write_group(&d, &d.groups[e - f->n_nodes], names);
				if (d.grid && ranked)
					sb_addf(&d.sb, "\t\"%s\" [pos=\"%.1f,%.1f!\"];\n", d.id[e], d.gx[e], d.gy[e]);
				out->n_drawn_nodes++;
			}
			/* Invisible edges along the row keep its order: dot's own crossing reduction would undo it. */
			if (ranked && len > 1) {
				sb_adds(&d.sb, "\t\t");
				for (m = first; m < first + len; m++)
					sb_addf(&d.sb, "%s\"%s\"", m > first ? " -- " : "", d.id[all[m].e]);
				sb_adds(&d.sb, " [style=invis];\n");
			}
			if (ranked)
				sb_adds(&d.sb, "\t}\n");
			/* The legend above the first row: on a rank of its own, where no cable runs. */
			if (ranked && !r)
				sb_addf(&d.sb, "\tlegend -- \"%s\" [style=invis, weight=0];\n", d.id[all[first].e]);
			/* And one from this row to the next: every row on a rank of its own, in order, whatever the cables. */
			if (ranked && r + 1 < n_rows)
				sb_addf(&d.sb, "\t\"%s\" -- \"%s\" [style=invis, weight=0];\n", d.id[all[first].e],
					d.id[all[first + len].e]);
			first += len;
		}
		free(row_len);
		free(all);
	}
	write_chassis(&d, names);
	draw_write_panels(&d);
	for (i = 0; i < f->n_nodes; i++)
		draw_add_id(&out->nodes, &out->n_nodes, &cap_nodes, f->nodes[i], 0,
			    d.beside[i] ? NULL : d.id[draw_endpoint(&d, i)]);
	draw_write_edges(&d, out, &cap_ports);
	sb_adds(&d.sb, "}\n");
	if (out->n_ports)
		qsort(out->ports, out->n_ports, sizeof(*out->ports), id_cmp);

	out->dot_len = d.sb.len;
	out->dot = sb_detach(&d.sb);
	for (i = 0; i < n_ep; i++) {
		free(d.key[i]);
		free(d.id[i]);
		free(names[i]);
	}
	for (i = 0; i < d.n_groups; i++) {
		free(d.groups[i].hosts);
		free(d.groups[i].id);
	}
	free(names);
	free(d.groups);
	free(d.key);
	free(d.id);
	free(d.tier);
	free(d.pos);
	free(d.group_of);
	free(d.beside);
	free(d.bundle_of);
	free(d.gx);
	free(d.gy);
	free(d.block_of);
	free(d.chan_x);
	free(d.exit_y);
	free(d.feed_y);
	free(d.leaf_row);
	free(d.drop_x);
	free(d.in_y);
	draw_grid_free(&d);
	draw_rails_free(&d);
	free(d.n_beside);
	free(d.level);
	free(d.marks);
	free(d.links);
	free(d.common);
	ibs_hosts_free(&d.hosts);
	free(d.chassis);
	free(d.chassis_of);
	draw_heat_free(&d);
}

void render_drawing_status(struct render_drawing *out, const char *line)
{
	struct strbuf sb = STRBUF_INIT;

	memset(out, 0, sizeof(*out));
	sb_adds(&sb, "digraph ibscan {\n\tlabelloc=t;\n\tlabel=");
	draw_dot_str(&sb, line);
	sb_adds(&sb, ";\n\tfontname=\"Helvetica\";\n}\n");
	out->dot_len = sb.len;
	out->dot = sb_detach(&sb);
}

void render_drawing_free(struct render_drawing *d)
{
	size_t i;

	for (i = 0; i < d->n_nodes; i++)
		free(d->nodes[i].id);
	for (i = 0; i < d->n_ports; i++)
		free(d->ports[i].id);
	free(d->nodes);
	free(d->ports);
	free(d->dot);
	memset(d, 0, sizeof(*d));
}

