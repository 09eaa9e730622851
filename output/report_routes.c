/*
 * The report's ibs-routes document (report --routing): the links of every
 * credit loop in order, and of every forwarding loop, so that a click on
 * a route.credit_loop or route.loop finding highlights the whole cycle on
 * the map. Each link is the cable out of a node's port, given by node
 * index and port (the map document, ibs-map, says which element each
 * cabled port is drawn as). A forwarding loop is the route check's finding
 * at the switch seen twice, for its first LID: traced from that switch
 * through the tables until it comes back (at most 64 hops).
 */
#include "report.h"
#include "emit.h"

#include <inttypes.h>
#include <stdio.h>

#define LOOP_MAX 64

static void link_obj(struct emit *e, const struct ibs_node *n, unsigned port)
{
	char guid[24];

	snprintf(guid, sizeof(guid), "0x%016" PRIx64, n->ni.node_guid);
	emit_obj_open(e, NULL);
	emit_uint(e, "index", NULL, n->index);
	emit_str(e, "guid", NULL, guid);
	emit_uint(e, "port", NULL, port);
	emit_obj_close(e);
}

static const struct ibs_lft *table_of(const struct report_in *in, const struct ibs_node *n)
{
	size_t i;

	for (i = 0; i < in->n_lfts; i++)
		if (in->lfts[i].node == n && in->lfts[i].ok)
			return &in->lfts[i];
	return NULL;
}

/* The loop through switch sw toward lid: its links into e. */
static void loop_links(struct emit *e, const struct report_in *in, const struct ibs_node *sw, uint16_t lid)
{
	const struct ibs_node *n = sw;
	unsigned hops;

	for (hops = 0; hops < LOOP_MAX && n && n->ni.node_type == IBS_NODE_SWITCH; hops++) {
		const struct ibs_lft *t = table_of(in, n);
		const struct ibs_port *p;
		unsigned out;
		if (!t || lid >= t->n)
			return;
		out = t->ports[lid];
		p = out ? ibs_node_port(n, out) : NULL;
		if (!p || !p->peer)
			return;
		link_obj(e, n, out);
		n = p->peer;
		if (n == sw)
			return;
	}
}

struct emit *report_routes_doc(const struct report_in *in)
{
	const struct ibs_routecheck *rc = in->routes;
	struct emit *e = emit_new(EMIT_JSON);
	size_t i, j;

	emit_obj_open(e, NULL);
	emit_arr_open(e, "credit_loops");
	for (i = 0; i < rc->n_cycles; i++) {
		emit_obj_open(e, NULL);
		emit_arr_open(e, "links");
		for (j = 0; j < rc->cycles[i].n; j++)
			link_obj(e, rc->cycles[i].links[j].node, rc->cycles[i].links[j].port);
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	/* One per switch, as the route.loop findings: its first LID (the findings are sorted by kind, LID). */
	emit_arr_open(e, "loops");
	for (i = 0; i < rc->n; i++) {
		const struct ibs_rc_finding *x = &rc->v[i];
		char guid[24];
		bool seen = false;
		if (x->kind != IBS_RC_LOOP || !x->node)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = rc->v[j].kind == IBS_RC_LOOP && rc->v[j].node == x->node;
		if (seen)
			continue;
		snprintf(guid, sizeof(guid), "0x%016" PRIx64, x->node->ni.node_guid);
		emit_obj_open(e, NULL);
		emit_str(e, "guid", NULL, guid);
		emit_uint(e, "index", NULL, x->node->index);
		emit_uint(e, "lid", NULL, x->dlid);
		emit_arr_open(e, "links");
		loop_links(e, in, x->node, x->dlid);
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
	return e;
}
