/*
 * Whose answers a LID brings. A LID-routed SMP goes wherever the switches'
 * forwarding tables send that LID, and NodeDescription, SwitchInfo and most
 * of PortInfo carry no GUID: with a duplicate LID, or one the SM moved
 * during the walk, another node would answer for this one. So a node is
 * asked by LID only when no other node claims its LID and a LID-routed
 * NodeInfo named this node (GUID and port GUID); each LID-routed PortInfo
 * and GUIDInfo is checked against the node asked; anything else goes by
 * directed route (see fabric/walk/walk.c).
 *
 * The confirming NodeInfo says where the LID led before the reads, not
 * after: a LID the SM moves meanwhile brings another node's
 * NodeDescription and SwitchInfo, which nothing in them can tell. So once
 * a node's LID-routed queries are all answered, one more LID-routed
 * NodeInfo closes them: if it names this node, its answers stand (and
 * that NodeInfo confirms whatever goes by LID next); if it names another
 * node or fails, everything the node got by LID since the last
 * confirmation is discarded (errors included) and read again by directed
 * route, with a warning naming the node and the LID.
 *
 * Only switches are asked by LID. A CA's reads after its lead PortInfo
 * are its NodeDescription (and GUIDInfo with --gids): by LID they would
 * take a confirming and a closing NodeInfo besides, more SMPs than the
 * directed routes they spare, and a switch's SMA forwards a directed-route
 * SMP as ibnetdiscover's are forwarded. A switch's dozens of PortInfo
 * reads are where LID routing pays.
 *
 * This file judges: what each answer by LID says of the LID, and what a
 * node got by LID, kept until the closing NodeInfo and undone when the LID
 * led elsewhere. It sends nothing: walk_query.c asks the confirming and
 * closing NodeInfos and asks again by directed route; which LID a node is
 * asked by is walk_path.c's.
 */
#include "walk_int.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void refuse(struct walker *w, const struct ibs_node *n, uint16_t lid, const char *why, uint64_t guid)
{
	struct uplinks *u = walk_uplinks(w, n);

	if (u->lid_state != LID_REFUSED)
		log_info("LID %u answers %s 0x%016llx, not as %s: it is read by directed route", lid, why,
			 (unsigned long long)guid, ibs_node_name(n));
	u->lid_state = LID_REFUSED;
}

/* The same node as n: GUID, port GUID and type. */
static bool names_node(const struct ibs_nodeinfo *ni, const struct ibs_node *n)
{
	return ni->node_guid == n->ni.node_guid && ni->port_guid == n->ni.port_guid && ni->node_type == n->ni.node_type;
}

void walk_lid_confirmed(struct walker *w, struct ibs_node *n, const struct ibs_mad_req *req,
			const struct ibs_mad_result *r)
{
	struct ibs_nodeinfo ni;

	if (r->outcome == IBS_MAD_OK && ibs_decode_nodeinfo(r->mad, r->len, &ni) == IBS_OK) {
		if (names_node(&ni, n)) {
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

void walk_lid_keep(struct walker *w, struct uplinks *u, const struct lid_read *rd)
{
	uint32_t i = w->free_read;

	if (i) {
		w->free_read = w->reads[i - 1].next;
	} else {
		w->reads = xgrow(w->reads, &w->cap_reads, w->n_reads + 1, sizeof(*w->reads));
		i = (uint32_t)++w->n_reads;
	}
	w->reads[i - 1] = *rd;
	w->reads[i - 1].next = u->lid_reads;
	u->lid_reads = i;
}

void walk_lid_forget(struct walker *w, struct uplinks *u)
{
	while (u->lid_reads) {
		uint32_t i = u->lid_reads;
		u->lid_reads = w->reads[i - 1].next;
		w->reads[i - 1].next = w->free_read;
		w->free_read = i;
	}
}

/* Was port's PortInfo among the reads from i on? */
static bool port_redone(const struct walker *w, uint32_t i, uint8_t port)
{
	for (; i; i = w->reads[i - 1].next)
		if (w->reads[i - 1].attr == IBS_ATTR_PORT_INFO && w->reads[i - 1].port == port)
			return true;
	return false;
}

bool walk_lid_ask_again(const struct walker *w, uint32_t head, const struct lid_read *rd)
{
	/* A PortInfo answer asks its port's GUIDInfo and ExtendedPortInfo anew. */
	return !((rd->attr == IBS_ATTR_GUID_INFO || rd->attr == IBS_ATTR_MLNX_EXT_PORT_INFO) &&
		 port_redone(w, head, rd->port));
}

/*
 * Drop the walk errors marked in drop, in place; the errors other nodes'
 * kept answers name move down with them (a free entry's is rewritten when used).
 */
static void drop_errors(struct walker *w, const bool *drop)
{
	struct ibs_fabric *f = w->f;
	size_t i, k = 0, n = f->n_errors;
	uint32_t *to = xcalloc(n + 1, sizeof(*to)); /* old index -> new index + 1, 0: dropped */

	for (i = 0; i < n; i++)
		if (!drop[i]) {
			to[i] = (uint32_t)k + 1;
			f->errors[k++] = f->errors[i];
		}
	f->n_errors = k;
	for (i = 0; i < w->n_reads; i++)
		if (w->reads[i].err)
			w->reads[i].err = w->reads[i].err - 1 < n ? to[w->reads[i].err - 1] : 0;
	free(to);
	/* Nothing else has made the walk partial: every other cause adds an error or aborts. */
	if (!k && !w->run->aborted && !w->run->n_aborted)
		f->partial = false;
}

/* The error an answer set (had), if it is still the one the node or port keeps (rank want): gone with it. */
static void forget_error(char **error, uint32_t rank, uint32_t want, uint32_t had)
{
	if (had && rank == want) {
		free(*error);
		*error = NULL;
	}
}

uint32_t walk_lid_undo(struct walker *w, struct ibs_node *n)
{
	struct uplinks *u = walk_uplinks(w, n);
	uint32_t i, head = u->lid_reads;
	bool *drop = NULL;

	u->lid_state = LID_REFUSED;
	for (i = head; i; i = w->reads[i - 1].next) {
		struct lid_read *rd = &w->reads[i - 1];
		struct ibs_port *p = &n->ports[rd->port];
		if (rd->err) {
			if (!drop)
				drop = xcalloc(w->f->n_errors + 1, sizeof(*drop));
			if (rd->err - 1 < w->f->n_errors)
				drop[rd->err - 1] = true;
		}
		switch (rd->attr) {
		case IBS_ATTR_NODE_DESC:
			free(n->desc);
			n->desc = NULL;
			forget_error(&n->error, n->error_rank, IBS_RANK(IBS_RANK_NODEDESC, 0), rd->err);
			break;
		case IBS_ATTR_SWITCH_INFO:
			n->has_si = false;
			memset(&n->si, 0, sizeof(n->si));
			forget_error(&n->error, n->error_rank, IBS_RANK(IBS_RANK_SWITCHINFO, 0), rd->err);
			break;
		case IBS_ATTR_PORT_INFO:
			p->valid = false;
			forget_error(&p->error, p->error_rank, IBS_RANK(IBS_RANK_PORTINFO, 0), rd->err);
			break;
		case IBS_ATTR_GUID_INFO:
			forget_error(&p->error, p->error_rank, IBS_RANK(IBS_RANK_GUIDINFO, rd->mod), rd->err);
			break;
		default:
			break;
		}
	}
	if (drop)
		drop_errors(w, drop);
	free(drop);
	return head;
}

bool walk_lid_closed(struct walker *w, struct ibs_node *n, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct uplinks *u = walk_uplinks(w, n);
	struct ibs_nodeinfo ni;
	char pb[256];

	if (r->outcome == IBS_MAD_OK && ibs_decode_nodeinfo(r->mad, r->len, &ni) == IBS_OK && names_node(&ni, n)) {
		w->lid_good++;
		u->lid_state = LID_CONFIRMED; /* and it confirms the LID for what goes by it next */
		walk_lid_forget(w, u);
		return true;
	}
	ibs_addr_str(&n->path, pb, sizeof(pb));
	if (r->outcome == IBS_MAD_OK && ibs_decode_nodeinfo(r->mad, r->len, &ni) == IBS_OK) {
		log_warn("LID %u moved to node 0x%016llx while node 0x%016llx (directed route %s) was read by it: "
			 "what it answered by LID is read again by directed route",
			 req->addr.lid, (unsigned long long)ni.node_guid, (unsigned long long)n->ni.node_guid, pb);
	} else {
		/* A lost answer is no sign of a move: said, not warned; the reads are redone all the same. */
		log_info("LID %u did not answer the closing NodeInfo (%s) after node 0x%016llx (directed route %s) "
			 "was read by it: what it answered by LID is read again by directed route",
			 req->addr.lid, ibs_outcome_str(r->outcome == IBS_MAD_OK ? IBS_MAD_MALFORMED : r->outcome),
			 (unsigned long long)n->ni.node_guid, pb);
	}
	return false;
}
