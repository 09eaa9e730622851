/* Views of routes (`ibscan route`), forwarding tables (`routes --dump`) and PathRecords (`path`). */
#include "route.h"
#include "../fabric/model/names.h"
#include <stdlib.h>

#include <inttypes.h>
#include <stdio.h>

static void port_desc(struct emit *e, const struct ibs_port *p)
{
	if (!p || !p->valid) {
		emit_null(e, "state", NULL);
		emit_null(e, "width", NULL);
		emit_null(e, "speed", NULL);
		return;
	}
	emit_str(e, "state", " %s", ibs_port_state_str(p->pi.state));
	emit_str(e, "width", " %s", ibs_width_str(p->pi.width_active));
	emit_str(e, "speed", "%s", ibs_speed_str(p->pi.speed_active, p->pi.speed_ext_active));
}

static void endpoint(struct emit *e, const char *key, const struct ibs_node *n, unsigned port, uint16_t lid,
		     const char *text)
{
	emit_obj_open(e, key);
	emit_text(e, "%s", text);
	if (n) {
		emit_str(e, "type", "%s", ibs_node_type_str(n->ni.node_type));
		emit_guid(e, "guid", " %s", n->ni.node_guid);
		emit_str(e, "name", " \"%s\"", ibs_node_name(n));
		emit_uint(e, "port", " port %" PRIu64, port);
	} else {
		emit_null(e, "type", NULL);
		emit_null(e, "guid", NULL);
		emit_null(e, "name", " (no node owns it)");
		emit_null(e, "port", NULL);
	}
	emit_uint(e, "lid", " LID %" PRIu64 "\n", lid);
	emit_obj_close(e);
}

void render_route(struct emit *e, const struct ibs_route *r)
{
	size_t i;
	const struct ibs_port *sp = ibs_node_port(r->src, r->src->ni.node_type == IBS_NODE_SWITCH ? 0 : r->src_port);

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_ROUTE_SCHEMA);
	endpoint(e, "from", r->src, r->src_port, sp && sp->valid ? sp->pi.lid : 0, "from ");
	emit_arr_open(e, "hops");
	if (r->src->ni.node_type != IBS_NODE_SWITCH && r->n_hops) {
		/* The source CA's own link first. */
		emit_obj_open(e, NULL);
		emit_uint(e, "out_port", "  [%" PRIu64 "]", r->src_port);
		emit_text(e, " -> ");
		emit_str(e, "type", "%s", ibs_node_type_str(r->hops[0].node->ni.node_type));
		emit_guid(e, "guid", " %s", r->hops[0].node->ni.node_guid);
		emit_uint(e, "in_port", "[%" PRIu64 "]", r->hops[0].in_port);
		emit_str(e, "name", " \"%s\"", ibs_node_name(r->hops[0].node));
		port_desc(e, sp);
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	for (i = 0; i < r->n_hops; i++) {
		const struct ibs_hop *h = &r->hops[i];
		const struct ibs_port *op = h->out_port ? ibs_node_port(h->node, h->out_port) : NULL;
		if (!h->out_port || !op || !op->peer)
			continue; /* the last switch when it is the destination, or a dead end */
		emit_obj_open(e, NULL);
		emit_uint(e, "out_port", "  [%" PRIu64 "]", h->out_port);
		emit_text(e, " -> ");
		emit_str(e, "type", "%s", ibs_node_type_str(op->peer->ni.node_type));
		emit_guid(e, "guid", " %s", op->peer->ni.node_guid);
		emit_uint(e, "in_port", "[%" PRIu64 "]", op->peer_port);
		emit_str(e, "name", " \"%s\"", ibs_node_name(op->peer));
		port_desc(e, op);
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
	endpoint(e, "to", r->dst, r->dst_port, r->dlid, "to   ");
	emit_str(e, "result", r->why ? "%s: " : "", ibs_route_result_str(r->result));
	emit_str(e, "why", r->why ? "%s\n" : NULL, r->why);
	emit_uint(e, "switches", NULL, r->n_hops);
	emit_obj_close(e);
}

void render_lfts(struct emit *e, const struct ibs_lft *v, size_t n)
{
	size_t i, lid;

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_ROUTES_SCHEMA);
	if (!n)
		emit_text(e, "no switches: the fabric has no forwarding tables\n");
	emit_arr_open(e, "switches");
	for (i = 0; i < n; i++) {
		const struct ibs_lft *l = &v[i];
		emit_obj_open(e, NULL);
		emit_guid(e, "guid", "switch %s", l->node->ni.node_guid);
		emit_str(e, "name", " \"%s\"", ibs_node_name(l->node));
		emit_uint(e, "lid", " LID %" PRIu64, ibs_node_lid(l->node));
		emit_uint(e, "lft_top", " LinearFDBTop %" PRIu64, l->node->si.lft_top);
		emit_bool(e, "complete", l->ok ? "\n" : " (some blocks could not be read)\n", l->ok);
		emit_arr_open(e, "routes");
		for (lid = 1; lid < l->n; lid++) {
			if (l->ports[lid] == 0xff)
				continue;
			emit_obj_open(e, NULL);
			emit_uint(e, "lid", "  %6" PRIu64, lid);
			emit_uint(e, "port", " -> %" PRIu64 "\n", l->ports[lid]);
			emit_obj_close(e);
		}
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

static void gid(struct emit *e, const char *key, const char *fmt, const uint8_t *g)
{
	char s[64];

	snprintf(s, sizeof(s), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0], g[1],
		 g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
	emit_str(e, key, fmt, s);
}

void render_path_record(struct emit *e, const struct ibs_path_record *p)
{
	static const char *const mtus[] = { "?", "256", "512", "1024", "2048", "4096" };
	static const char *const rates[] = { "?", "?", "2.5", "10", "30", "5", "20", "40", "60", "80", "120", "14",
					     "56", "112", "168", "25", "100", "200", "300", "28", "50", "400", "600",
					     "800", "1200" };

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_PATH_SCHEMA);
	gid(e, "sgid", "SGID       %s\n", p->sgid);
	gid(e, "dgid", "DGID       %s\n", p->dgid);
	emit_uint(e, "slid", "SLID       %" PRIu64 "\n", p->slid);
	emit_uint(e, "dlid", "DLID       %" PRIu64 "\n", p->dlid);
	emit_uint(e, "sl", "SL         %" PRIu64 "\n", p->sl);
	emit_uint(e, "mtu", "MTU        %" PRIu64, p->mtu < 6 ? strtoul(mtus[p->mtu], NULL, 10) : 0);
	emit_uint(e, "mtu_code", " (code %" PRIu64 ")\n", p->mtu);
	emit_str(e, "rate_gbps", "rate       %s Gb/s", p->rate < sizeof(rates) / sizeof(rates[0]) ? rates[p->rate] : "?");
	emit_uint(e, "rate_code", " (code %" PRIu64 ")\n", p->rate);
	emit_uint(e, "packet_lifetime", "lifetime   %" PRIu64 "\n", p->pkt_life);
	emit_uint(e, "hop_limit", "hop limit  %" PRIu64 "\n", p->hop_limit);
	emit_uint(e, "tclass", "tclass     %" PRIu64 "\n", p->tclass);
	emit_uint(e, "pkey", "P_Key      0x%04" PRIx64 "\n", p->pkey);
	emit_bool(e, "reversible", "reversible %s\n", p->reversible);
	emit_obj_close(e);
}
