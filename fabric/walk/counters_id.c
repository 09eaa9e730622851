/*
 * Whose counters a LID reads now: before the second reading of --interval,
 * each PMA's LID is asked for its NodeInfo by LID (IBA 14.2.5.3: NodeGUID,
 * and the PortGUID of the port the SMP entered by), since a PMA's answer
 * names no node and the subnet manager may have given the LIDs out anew.
 */
#include "counters_id.h"
#include "counters_port.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>

struct idctx {
	struct ibs_fabric *f;
	struct ibs_node *n;
	struct ibs_port *pt; /* the first port read through that LID */
	uint16_t lid;
};

/* The ports of n still to be asked for through lid. */
static bool asked_by(const struct ibs_node *n, const struct ibs_port *pt, uint16_t lid)
{
	return pt->ctr && pt->ctr->not_read == IBS_CTR_ASKED && pt->ctr->outcome == IBS_MAD_OK &&
	       ibs_port_wants_counters(n, pt) && ibs_port_pma_lid(n, pt) == lid;
}

static void on_nodeinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct idctx *c = ctx;
	struct ibs_nodeinfo ni;
	struct ibs_port *pt;
	uint64_t pguid = c->n->ni.node_type == IBS_NODE_SWITCH ? c->n->ni.port_guid : c->pt->guid;
	bool moved = false, ok = r->outcome == IBS_MAD_OK && ibs_decode_nodeinfo(r->mad, r->len, &ni) == IBS_OK;

	(void)req;
	if (ok && (ni.node_guid != c->n->ni.node_guid || (pguid && ni.port_guid != pguid))) {
		moved = true;
		log_warn("LID %u now leads to 0x%016llx, not to %s: its counters are not read again", c->lid,
			 (unsigned long long)ni.node_guid, ibs_node_name(c->n));
	}
	if (!ok || moved) {
		for (pt = ibs_node_ports_from(c->n, 1); pt < ibs_node_ports_end(c->n); pt++) {
			if (!asked_by(c->n, pt, c->lid))
				continue;
			if (moved)
				pt->ctr->not_read = IBS_CTR_MOVED;
			else
				pt->ctr->outcome = r->outcome == IBS_MAD_OK ? IBS_MAD_MALFORMED : r->outcome;
		}
		c->f->partial = true;
	}
	free(c);
}

enum ibs_err ibs_counters_confirm(struct ibs_engine *e, struct ibs_fabric *f)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		struct ibs_node *n = f->nodes[i];
		struct ibs_port *pt, *q;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			uint16_t lid = ibs_port_pma_lid(n, pt);
			bool seen = false;
			struct ibs_mad_req req;
			struct ibs_addr a;
			struct idctx *c;
			if (!asked_by(n, pt, lid))
				continue;
			for (q = ibs_node_ports_from(n, 1); q < pt && !seen; q++)
				seen = asked_by(n, q, lid);
			if (seen)
				continue;
			c = xmalloc(sizeof(*c));
			c->f = f;
			c->n = n;
			c->pt = pt;
			c->lid = lid;
			ibs_addr_lid(&a, lid, 0);
			ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_NODE_INFO, 0);
			ibs_engine_submit(e, &req, on_nodeinfo, c);
		}
	}
	return ibs_engine_run(e);
}
