/*
 * Whose answers a LID brings. A LID-routed SMP goes wherever the switches'
 * forwarding tables send that LID, and NodeDescription, SwitchInfo and most
 * of PortInfo carry no GUID: with a duplicate LID, or one the SM moved
 * during the walk, another node would answer for this one. So a node is
 * asked by LID only when no other node claims its LID and a LID-routed
 * NodeInfo named this node (GUID and port GUID); each LID-routed PortInfo
 * and GUIDInfo is checked against the node asked; anything else goes by
 * directed route (see fabric/walk.c).
 */
#include "walk_int.h"
#include "../core/base/log.h"

#define LID_UNICAST_END 0xc000

void walk_lid_claim(struct walker *w, const struct ibs_node *n, const struct ibs_port *p)
{
	unsigned l, span;
	uint32_t me = (uint32_t)n->index + 1;

	if (!w->lid_owner || !p->pi.lid || (n->ni.node_type == IBS_NODE_SWITCH && p->num != 0))
		return;
	span = 1u << (p->pi.lmc & 7);
	for (l = p->pi.lid; l < (unsigned)p->pi.lid + span && l < LID_UNICAST_END; l++) {
		if (!w->lid_owner[l])
			w->lid_owner[l] = me;
		else if (w->lid_owner[l] != me && w->lid_owner[l] != LID_DUP) {
			log_info("LID %u is claimed by two nodes: both are read by directed route", l);
			w->lid_owner[l] = LID_DUP;
		}
	}
}

uint16_t walk_node_lid(struct walker *w, const struct ibs_node *n)
{
	const struct ibs_port *p;

	if (!w->lid_route || !n->path.hops)
		return 0;
	if (w->lid_bad >= 8 && !w->lid_good)
		return 0; /* LIDs do not answer here: directed routes only */
	if (n->ni.node_type != IBS_NODE_SWITCH && (n->entry_port < 1 || n->entry_port > n->ni.num_ports))
		return 0;
	p = &n->ports[n->ni.node_type == IBS_NODE_SWITCH ? 0 : n->entry_port];
	if (!p->valid || !ibs_portinfo_active(&p->pi) || !p->pi.lid || p->pi.lid >= LID_UNICAST_END)
		return 0;
	if (w->lid_owner && w->lid_owner[p->pi.lid] != (uint32_t)n->index + 1)
		return 0; /* another node claims it too */
	return p->pi.lid;
}

static void refuse(struct walker *w, const struct ibs_node *n, uint16_t lid, const char *why, uint64_t guid)
{
	struct uplinks *u = walk_uplinks(w, n);

	if (u->lid_state != LID_REFUSED)
		log_info("LID %u answers %s 0x%016llx, not as %s: it is read by directed route", lid, why,
			 (unsigned long long)guid, ibs_node_name(n));
	u->lid_state = LID_REFUSED;
}

static void on_confirm(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct walker *w = c->w;
	struct ibs_node *n = c->node;
	struct ibs_nodeinfo ni;

	if (r->outcome == IBS_MAD_OK && ibs_decode_nodeinfo(r->mad, r->len, &ni) == IBS_OK) {
		if (ni.node_guid == n->ni.node_guid && ni.port_guid == n->ni.port_guid &&
		    ni.node_type == n->ni.node_type) {
			walk_uplinks(w, n)->lid_state = LID_CONFIRMED;
			w->lid_good++;
		} else {
			refuse(w, n, req->addr.lid, "NodeInfo of node", ni.node_guid);
		}
	} else {
		walk_uplinks(w, n)->lid_state = LID_REFUSED;
		if (r->outcome != IBS_MAD_ABORTED && w->lid_bad++ == 8 && !w->lid_good)
			log_info("LID-routed SMPs get no answers: directed routes only");
	}
	walk_qctx_put(c);
	walk_read_rest(w, n);
}

void walk_confirm_lid(struct walker *w, struct ibs_node *n)
{
	uint16_t lid = walk_node_lid(w, n);
	struct ibs_mad_req req;
	struct ibs_addr a;
	struct qctx *c;

	if (!lid || walk_uplinks(w, n)->lid_state != LID_UNKNOWN) {
		walk_read_rest(w, n);
		return;
	}
	c = walk_qctx(w, n, 0);
	c->base = n;
	c->attr = IBS_ATTR_NODE_INFO;
	c->lid = lid;
	ibs_addr_lid(&a, lid, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_NODE_INFO, 0);
	ibs_engine_submit(w->e, &req, on_confirm, c);
}

bool walk_lid_answer_ok(struct qctx *c, const struct ibs_mad_req *req, const struct ibs_portinfo *pi,
			const uint64_t *guids)
{
	const struct ibs_node *n = c->node;

	if (!req->addr.lid || req->mgmt_class != IBS_CLASS_SMI)
		return true; /* by directed route: from the node at the end of the path */
	if (pi) {
		/* A switch's LID is its port 0's: on its other ports the field is 0 where undefined. */
		bool defined = n->ni.node_type != IBS_NODE_SWITCH || c->port == 0 || pi->lid;
		unsigned span = 1u << (pi->lmc & 7);
		if (defined && !(req->addr.lid >= pi->lid && req->addr.lid < (unsigned)pi->lid + span)) {
			refuse(c->w, n, req->addr.lid, "PortInfo with LID", pi->lid);
			return false;
		}
	}
	if (guids && req->attr_mod == 0) {
		/* GUIDInfo entry 0 is the port GUID (IBA 14.2.5.5). */
		uint64_t want = n->ni.node_type == IBS_NODE_SWITCH ? n->ni.port_guid : n->ports[c->port].guid;
		if (want && guids[0] != want) {
			refuse(c->w, n, req->addr.lid, "GUIDInfo of port", guids[0]);
			return false;
		}
	}
	return true;
}

void walk_lid_redo(struct qctx *c)
{
	walk_send_query(c); /* walk_lid_for now says 0: by directed route */
}
