/* The route check rendered: one walk over the result for text and JSON (see routecheck.h). */
#include "routecheck.h"
#include "../fabric/model/names.h"

#include "../core/base/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Text lists at most this many findings of each kind (JSON: all of them). */
#define TEXT_PER_KIND 20

static void node_ref(struct emit *e, const char *key, const char *text, const struct ibs_node *n)
{
	emit_obj_open(e, key);
	if (text)
		emit_text(e, "%s", text);
	if (!n) {
		emit_null(e, "guid", text ? "%s" : NULL);
		emit_null(e, "name", NULL);
		emit_null(e, "lid", NULL);
	} else {
		emit_guid(e, "guid", text ? "%s" : NULL, n->ni.node_guid);
		emit_str(e, "name", text ? " \"%s\"" : NULL, ibs_node_name(n));
		emit_uint(e, "lid", text ? " LID %" PRIu64 : NULL, ibs_node_lid(n));
	}
	emit_obj_close(e);
}

/* A switch in a cycle: by name in text (with its GUID in JSON). */
static void node_short(struct emit *e, const char *key, const char *fmt, const struct ibs_node *n)
{
	emit_obj_open(e, key);
	emit_guid(e, "guid", NULL, n ? n->ni.node_guid : 0);
	emit_str(e, "name", fmt, n ? ibs_node_name(n) : "?");
	emit_uint(e, "lid", NULL, n ? ibs_node_lid(n) : 0);
	emit_obj_close(e);
}

static void status_line(struct emit *e, const struct ibs_routecheck *rc, enum ibs_rc_status st, size_t unbal)
{
	static const char *const what[] = { "unreachable", "over a port not Active", "dead ends", "looping" };
	const char *sep = " - ";
	unsigned k;

	emit_str(e, "status", "IBSCAN ROUTES %s", ibs_rc_status_str(st));
	emit_uint(e, "exit_code", NULL, st);
	for (k = 0; k < IBS_RC_KINDS; k++)
		if (rc->bad[k]) {
			emit_text(e, "%s%" PRIu64 " routes %s", sep, rc->bad[k], what[k]);
			sep = ", ";
		}
	if (rc->n_cycles) {
		emit_text(e, "%s%zu credit loop%s", sep, rc->n_cycles, rc->n_cycles == 1 ? "" : "s");
		sep = ", ";
	}
	if (rc->unread) {
		emit_text(e, "%s%zu forwarding tables not read", sep, rc->unread);
		sep = ", ";
	}
	if (rc->not_updown) {
		emit_text(e, "%s%" PRIu64 " routes not up/down", sep, rc->not_updown);
		sep = ", ";
	}
	if (unbal) {
		emit_text(e, "%s%zu switches unbalanced", sep, unbal);
		sep = ", ";
	}
	if (*sep == ' ')
		emit_text(e, " - %" PRIu64 " routes, all reach their destination, no credit loop", rc->pairs);
	emit_text(e, " | pairs=%" PRIu64 " ok=%" PRIu64 " unreachable=%" PRIu64 " down_port=%" PRIu64
		     " dead_end=%" PRIu64 " loop=%" PRIu64 " credit_loops=%zu non_minimal=%" PRIu64
		     " not_updown=%" PRIu64 " unbalanced=%zu\n",
		  rc->pairs, rc->ok, rc->bad[0], rc->bad[1], rc->bad[2], rc->bad[3], rc->n_cycles, rc->non_minimal,
		  rc->not_updown, unbal);
}

static void summary(struct emit *e, const struct ibs_routecheck *rc)
{
	size_t h;

	emit_obj_open(e, "summary");
	emit_uint(e, "sources", "sources %" PRIu64 " CA ports", rc->sources);
	emit_uint(e, "destinations", ", destinations %" PRIu64 " LIDs", rc->dests);
	emit_uint(e, "pairs", ", %" PRIu64 " routes", rc->pairs);
	emit_uint(e, "ok", ", %" PRIu64 " reach their destination\n", rc->ok);
	emit_uint(e, "unreachable", NULL, rc->bad[IBS_RC_UNREACHABLE]);
	emit_uint(e, "down_port", NULL, rc->bad[IBS_RC_DOWN_PORT]);
	emit_uint(e, "dead_end", NULL, rc->bad[IBS_RC_DEAD_END]);
	emit_uint(e, "loop", NULL, rc->bad[IBS_RC_LOOP]);
	emit_uint(e, "min_hops", "hops min %" PRIu64, rc->min_hops);
	emit_double(e, "mean_hops", " mean %.2f", rc->mean_hops);
	emit_uint(e, "max_hops", " max %" PRIu64, rc->max_hops);
	emit_uint(e, "non_minimal", "; longer than the topology's shortest path: %" PRIu64, rc->non_minimal);
	emit_uint(e, "minimal_known", " of %" PRIu64, rc->minimal_known);
	emit_uint(e, "not_updown", "; down a tier and up again: %" PRIu64 "\n", rc->not_updown);
	emit_uint(e, "tables_unread", rc->unread ? "forwarding tables missing or incomplete: %" PRIu64 "\n" : NULL,
		  rc->unread);
	emit_uint(e, "tiers", NULL, rc->max_level);
	emit_arr_open(e, "hops");
	emit_text(e, "hops histogram:");
	for (h = 0; h < rc->n_hist; h++) {
		if (!rc->hist[h])
			continue;
		emit_obj_open(e, NULL);
		emit_uint(e, "hops", " %" PRIu64, h);
		emit_uint(e, "routes", ":%" PRIu64, rc->hist[h]);
		emit_obj_close(e);
	}
	emit_text(e, "\n");
	emit_arr_close(e);
	emit_obj_close(e);
}

static void findings(struct emit *e, const struct ibs_routecheck *rc)
{
	size_t i, shown[IBS_RC_KINDS] = { 0 }, more[IBS_RC_KINDS] = { 0 };
	unsigned k;

	emit_arr_open(e, "findings");
	for (i = 0; i < rc->n; i++) {
		const struct ibs_rc_finding *fd = &rc->v[i];
		bool text = shown[fd->kind] < TEXT_PER_KIND;
		shown[fd->kind] += text;
		more[fd->kind] += !text;
		emit_obj_open(e, NULL);
		emit_str(e, "kind", text ? "%s" : NULL, ibs_rc_kind_str(fd->kind));
		emit_uint(e, "lid", fd->dlid && text ? " to LID %" PRIu64 : NULL, fd->dlid);
		node_ref(e, "destination", fd->dst && text ? " (" : NULL, fd->dst);
		if (fd->dst && text)
			emit_text(e, ")");
		node_ref(e, "at", text ? (fd->node->ni.node_type == IBS_NODE_SWITCH ? " at switch " : " from ") : NULL,
			 fd->node);
		emit_uint(e, "port", !text ? NULL
					   : fd->kind == IBS_RC_UNREACHABLE ? ": table entry %" PRIu64
									   : " port %" PRIu64,
			  fd->port);
		node_ref(e, "arrives_at", fd->at && text ? ", arrives at " : NULL, fd->at);
		emit_uint(e, "routes", text ? ": %" PRIu64 " routes\n" : NULL, fd->pairs);
		emit_obj_close(e);
	}
	for (k = 0; k < IBS_RC_KINDS; k++)
		if (more[k])
			emit_text(e, "... and %zu more %s findings (--json lists them all)\n", more[k],
				  ibs_rc_kind_str((enum ibs_rc_kind)k));
	emit_arr_close(e);
}

/* The VLs a cycle's links are on, once each: as " on VL 1" or " on VLs 0,1" in text when there is more than one VL. */
static void cycle_vls(struct emit *e, const struct ibs_rc_cycle *c, bool text)
{
	unsigned mask = 0, v, n = 0;
	size_t j;

	for (j = 0; j < c->n; j++)
		mask |= 1u << (c->links[j].vl & 15);
	emit_arr_open(e, "vls");
	if (text)
		emit_text(e, " on VL%s", mask & (mask - 1) ? "s" : "");
	for (v = 0; v < 16; v++)
		if (mask & 1u << v)
			emit_uint(e, NULL, !text ? NULL : n++ ? ",%" PRIu64 : " %" PRIu64, v);
	emit_arr_close(e);
}

/*
 * The pairs asked, JSON only, grouped by the SA's SL (ascending, the
 * unanswered last with SL null): each group's count and its first
 * IBS_RC_PATHRECORD_SAMPLE pairs by (dlid, slid), so that the document stays
 * at most 17 groups long however many pairs were asked.
 */
static void pathrecords(struct emit *e, const struct ibs_routecheck *rc)
{
	size_t pairs[17] = { 0 }, j;
	unsigned g;

	for (j = 0; j < rc->sl_pairs; j++)
		pairs[rc->paths[j].answered ? rc->paths[j].sl & 15 : 16]++;
	emit_arr_open(e, "pathrecords");
	for (g = 0; g < 17; g++) {
		size_t shown = 0;
		if (!pairs[g])
			continue;
		emit_obj_open(e, NULL);
		if (g < 16)
			emit_uint(e, "sl", NULL, g);
		else
			emit_null(e, "sl", NULL);
		emit_uint(e, "pairs", NULL, pairs[g]);
		emit_arr_open(e, "sample");
		for (j = 0; j < rc->sl_pairs && shown < IBS_RC_PATHRECORD_SAMPLE; j++) {
			const struct ibs_path_sl *p = &rc->paths[j];
			if ((p->answered ? p->sl & 15u : 16u) != g)
				continue;
			emit_obj_open(e, NULL);
			emit_uint(e, "slid", NULL, p->slid);
			emit_uint(e, "dlid", NULL, p->dlid);
			emit_obj_close(e);
			shown++;
		}
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

static void cycles(struct emit *e, const struct ibs_routecheck *rc)
{
	size_t i, j, n;
	bool vls = rc->n_vls > 1;

	emit_obj_open(e, "credit_loops");
	emit_bool(e, "sl0_assumed", rc->sl0_assumed ? "credit loops: every route assumed on SL 0" : NULL,
		  rc->sl0_assumed);
	emit_str(e, "sl_source", rc->sl0_assumed ? NULL : "credit loops: each route's SL from the %s",
		 rc->sl0_assumed ? "assumed_sl0" : "sa");
	emit_uint(e, "pathrecords_asked", rc->sl0_assumed ? NULL : " (%" PRIu64 " PathRecords", rc->sl_pairs);
	emit_uint(e, "pathrecords_answered", NULL, rc->sl_answered);
	/* In text only with the SL2VL tables read: else the VLs' note that follows says why (the same reason). */
	if (rc->sl0_assumed && rc->sl_why)
		emit_str(e, "sl_note", rc->vl_read ? " (%s)" : NULL, rc->sl_why);
	else
		emit_null(e, "sl_note", NULL);
	emit_arr_open(e, "sls");
	for (j = 0, n = 0; j < 16; j++)
		if (rc->sl_mask & 1u << j)
			emit_uint(e, NULL, rc->sl0_assumed ? NULL : n++ ? ",%" PRIu64 : ", SL %" PRIu64, j);
	emit_arr_close(e);
	if (!rc->sl0_assumed)
		emit_text(e, ")");
	pathrecords(e, rc);
	emit_bool(e, "sl2vl_read", rc->vl_read ? ", VLs from the switches' SL2VL tables" : NULL, rc->vl_read);
	emit_uint(e, "sl2vl_pairs", rc->vl_read ? " (%" PRIu64 " in/out pairs" : NULL, rc->vl_pairs);
	emit_uint(e, "sl2vl_answered", NULL, rc->vl_answered);
	emit_uint(e, "vls", !rc->vl_read ? NULL : rc->n_vls == 1 ? ", %" PRIu64 " VL used)" : ", %" PRIu64 " VLs used)", rc->n_vls);
	if (rc->vl_why)
		emit_str(e, "sl2vl_note", ", one VL per link (%s)", rc->vl_why);
	else
		emit_null(e, "sl2vl_note", NULL);
	emit_uint(e, "channels", vls ? "; %" PRIu64 " switch-to-switch channels (a link on a VL)"
				     : "; %" PRIu64 " switch-to-switch channels",
		  rc->channels);
	emit_uint(e, "dependencies", ", %" PRIu64 " dependencies", rc->deps);
	emit_uint(e, "count", rc->n_cycles == 1 ? ", %" PRIu64 " cycle\n" : ", %" PRIu64 " cycles\n", rc->n_cycles);
	emit_arr_open(e, "cycles");
	for (i = 0; i < rc->n_cycles; i++) {
		const struct ibs_rc_cycle *c = &rc->cycles[i];
		emit_obj_open(e, NULL);
		emit_text(e, "  cycle");
		cycle_vls(e, c, vls);
		emit_arr_open(e, "sls");
		for (j = 0, n = 0; j < 16; j++)
			if (c->sls & 1u << j)
				emit_uint(e, NULL, n++ ? ",%" PRIu64 : " of SL %" PRIu64, j);
		emit_arr_close(e);
		emit_uint(e, "channels_in_part", " (%" PRIu64 " channels depend on each other):", c->scc);
		emit_arr_open(e, "links");
		for (j = 0; j < c->n; j++) {
			const struct ibs_port *p = ibs_node_port(c->links[j].node, c->links[j].port);
			emit_obj_open(e, NULL);
			node_short(e, "from", j ? " -> \"%s\"" : " \"%s\"", c->links[j].node);
			emit_uint(e, "port", "[%" PRIu64 "]", c->links[j].port);
			emit_uint(e, "vl", vls ? " vl %" PRIu64 : NULL, c->links[j].vl);
			node_short(e, "to", NULL, p ? p->peer : NULL);
			emit_uint(e, "to_port", NULL, p ? p->peer_port : 0);
			emit_obj_close(e);
		}
		emit_text(e, "\n");
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

static void group(struct emit *e, const char *key, const char *label, const struct ibs_rc_group *g, bool text)
{
	emit_obj_open(e, key);
	if (text)
		emit_text(e, " %s", label);
	emit_uint(e, "ports", text ? " %" PRIu64 " ports" : NULL, g->ports);
	emit_uint(e, "min", text ? " min %" PRIu64 : NULL, g->min);
	emit_double(e, "mean", text ? " mean %.2f" : NULL, g->mean);
	emit_uint(e, "max", text ? " max %" PRIu64 : NULL, g->max);
	emit_double(e, "max_mean", NULL, g->mean > 0 ? g->max / g->mean : 0);
	emit_bool(e, "unbalanced", text ? (g->unbalanced ? " (unbalanced)" : "") : NULL, g->unbalanced);
	emit_obj_close(e);
}

static void switches(struct emit *e, const struct ibs_routecheck *rc, size_t unbal)
{
	size_t i;
	unsigned p;

	emit_arr_open(e, "switches");
	emit_text(e, "balance (CA LIDs the table sends out of each port, by tier): uplinks unbalanced at %zu of %zu switches%s\n",
		  unbal, rc->n_sw, unbal ? ":" : "");
	for (i = 0; i < rc->n_sw; i++) {
		const struct ibs_rc_switch *w = &rc->sw[i];
		bool text = w->up.unbalanced;
		emit_obj_open(e, NULL);
		node_ref(e, "switch", text ? "  " : NULL, w->node);
		emit_uint(e, "tier", text ? " tier %" PRIu64 ":" : NULL, w->level);
		group(e, "up", "up", &w->up, text && w->up.ports);
		group(e, "down", "down", &w->down, text && w->down.ports);
		if (text)
			emit_text(e, "\n");
		emit_arr_open(e, "ports");
		for (p = 1; p < w->n_ports; p++) {
			if (w->role[p] == IBS_RC_NONE)
				continue;
			emit_obj_open(e, NULL);
			emit_uint(e, "port", NULL, p);
			emit_str(e, "role", NULL, ibs_rc_role_str((enum ibs_rc_role)w->role[p]));
			emit_uint(e, "lids", NULL, w->lids[p]);
			emit_uint(e, "routes", NULL, w->routes[p]);
			emit_obj_close(e);
		}
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

void render_routecheck(struct emit *e, const struct ibs_routecheck *rc)
{
	enum ibs_rc_status st = ibs_routecheck_status(rc);
	size_t unbal = ibs_routecheck_unbalanced(rc);

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_ROUTECHECK_SCHEMA);
	status_line(e, rc, st, unbal);
	summary(e, rc);
	findings(e, rc);
	cycles(e, rc);
	switches(e, rc, unbal);
	emit_obj_close(e);
}

void render_route_through(struct emit *e, const struct ibs_fabric *f, const struct ibs_routecheck *rc,
			  const struct ibs_node *n, uint8_t port)
{
	const struct ibs_port *p = ibs_node_port(n, port);
	size_t i, cas = 0;

	for (i = 0; i < f->n_nodes; i++)
		cas += rc->thr_from[i] || rc->thr_to[i];
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_ROUTETHROUGH_SCHEMA);
	emit_obj_open(e, "link");
	emit_text(e, "link");
	node_short(e, "a", " \"%s\"", n);
	emit_uint(e, "a_port", "[%" PRIu64 "]", port);
	node_short(e, "b", " -- \"%s\"", p ? p->peer : NULL);
	emit_uint(e, "b_port", "[%" PRIu64 "]", p ? p->peer_port : 0);
	emit_obj_close(e);
	emit_uint(e, "routes", ": %" PRIu64 " host-to-host routes cross it", rc->thr_routes);
	emit_uint(e, "cas", ", from or to %" PRIu64 " CAs\n", cas);
	emit_arr_open(e, "cas_crossing");
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *c = f->nodes[i];
		if (!rc->thr_from[i] && !rc->thr_to[i])
			continue;
		emit_obj_open(e, NULL);
		emit_guid(e, "guid", "  %s", c->ni.node_guid);
		emit_str(e, "name", " \"%s\"", ibs_node_name(c));
		emit_uint(e, "lid", " LID %" PRIu64, ibs_node_lid(c));
		emit_uint(e, "from", ": from it %" PRIu64, rc->thr_from[i]);
		emit_uint(e, "to", ", to it %" PRIu64 "\n", rc->thr_to[i]);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

struct shared {
	const struct ibs_node *node;
	unsigned port;
	uint64_t routes;
};

static int shared_cmp(const void *a, const void *b)
{
	const struct shared *x = a, *y = b;

	if (x->routes != y->routes)
		return x->routes > y->routes ? -1 : 1;
	if (x->node->index != y->node->index)
		return x->node->index < y->node->index ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

void render_route_job(struct emit *e, const struct ibs_routecheck *rc)
{
	struct shared *v = NULL;
	size_t n = 0, cap = 0, i;
	unsigned p;

	for (i = 0; i < rc->n_sw; i++)
		for (p = 1; p < rc->sw[i].n_ports; p++)
			if (rc->sw[i].job[p] && rc->sw[i].role[p] != IBS_RC_HOST && rc->sw[i].role[p] != IBS_RC_NONE) {
				v = xgrow(v, &cap, n + 1, sizeof(*v));
				v[n++] = (struct shared){ rc->sw[i].node, p, rc->sw[i].job[p] };
			}
	if (n)
		qsort(v, n, sizeof(*v), shared_cmp);
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_ROUTEJOB_SCHEMA);
	emit_uint(e, "cas", "job: %" PRIu64 " CAs", rc->job_cas);
	emit_uint(e, "routes", ", %" PRIu64 " routes among them", rc->job_routes);
	emit_text(e, "%s", n ? "; switch-to-switch links they cross, most routes first:\n" : "; they cross no switch-to-switch link\n");
	emit_arr_open(e, "links");
	for (i = 0; i < n; i++) {
		const struct ibs_port *pt = ibs_node_port(v[i].node, v[i].port);
		emit_obj_open(e, NULL);
		node_short(e, "from", "  \"%s\"", v[i].node);
		emit_uint(e, "port", "[%" PRIu64 "]", v[i].port);
		node_short(e, "to", " -> \"%s\"", pt ? pt->peer : NULL);
		emit_uint(e, "to_port", "[%" PRIu64 "]", pt ? pt->peer_port : 0);
		emit_uint(e, "routes", ": %" PRIu64 " routes\n", v[i].routes);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
	free(v);
}
