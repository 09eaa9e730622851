/* One route traced through the linear forwarding tables (IBA 18.2.4.3.2), and the endpoints a user names. */
#include "route.h"
#include "route_int.h"
#include "../model/names.h"
#include "../../core/base/log.h"
#include "../../core/base/text.h"
#include "../../core/base/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HOPS 64

const char *ibs_route_result_str(enum ibs_route_result r)
{
	switch (r) {
	case IBS_ROUTE_OK:
		return "ok";
	case IBS_ROUTE_HOLE:
		return "hole";
	case IBS_ROUTE_LOOP:
		return "loop";
	case IBS_ROUTE_DEAD_END:
		return "dead-end";
	case IBS_ROUTE_WRONG:
		return "misrouted";
	case IBS_ROUTE_UNREAD:
		return "unread";
	}
	return "unknown";
}

static void set_why(struct ibs_route *r, enum ibs_route_result res, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_why(struct ibs_route *r, enum ibs_route_result res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r->why = xvasprintf(fmt, ap);
	va_end(ap);
	r->result = res;
}

static bool owns_lid(const struct ibs_port *p, uint16_t lid)
{
	return p && p->valid && p->pi.lid && lid >= p->pi.lid && lid < p->pi.lid + (1u << (p->pi.lmc & 7));
}

static enum ibs_err trace(struct ibs_engine *e, const struct ibs_fabric *f, const uint32_t *own,
			  const struct ibs_node *src, uint8_t src_port, uint16_t dlid, struct ibs_route *r)
{
	const struct ibs_node *cur;
	uint8_t in_port = 0;
	size_t cap = 0;
	struct ibs_node *dnode = NULL;
	struct ibs_port *dport;

	memset(r, 0, sizeof(*r));
	r->src = src;
	r->src_port = src_port;
	r->dlid = dlid;
	dport = ibs_fabric_find_lid(f, dlid, &dnode);
	if (dport) {
		r->dst = dnode;
		r->dst_port = dport->num;
	}
	if (src->ni.node_type != IBS_NODE_SWITCH) {
		const struct ibs_port *sp = ibs_node_port(src, src_port);
		if (owns_lid(sp, dlid))
			return IBS_OK; /* to itself */
		if (!sp || !sp->peer) {
			set_why(r, IBS_ROUTE_DEAD_END, "%s port %u has no cable", ibs_node_name(src), src_port);
			return IBS_OK;
		}
		cur = sp->peer;
		in_port = sp->peer_port;
	} else {
		cur = src;
	}
	for (;;) {
		uint8_t ports[64], out;
		enum ibs_outcome oc;
		size_t i;
		enum ibs_err rc;
		const struct ibs_port *op;

		if (cur->ni.node_type != IBS_NODE_SWITCH) {
			const struct ibs_port *pt;
			for (pt = ibs_node_ports_from(cur, 1); pt < ibs_node_ports_end(cur); pt++)
				if (owns_lid(pt, dlid))
					return IBS_OK;
			set_why(r, IBS_ROUTE_WRONG, "arrived at %s, which does not own LID %u", ibs_node_name(cur), dlid);
			return IBS_OK;
		}
		for (i = 0; i < r->n_hops; i++)
			if (r->hops[i].node == cur) {
				set_why(r, IBS_ROUTE_LOOP, "%s comes up twice: the forwarding tables loop", ibs_node_name(cur));
				return IBS_OK;
			}
		if (r->n_hops >= MAX_HOPS) {
			set_why(r, IBS_ROUTE_LOOP, "more than %d switches on the way", MAX_HOPS);
			return IBS_OK;
		}
		if (owns_lid(ibs_node_port(cur, 0), dlid)) {
			r->hops = xgrow(r->hops, &cap, r->n_hops + 1, sizeof(*r->hops));
			r->hops[r->n_hops].node = cur;
			r->hops[r->n_hops].in_port = in_port;
			r->hops[r->n_hops].out_port = 0;
			r->n_hops++;
			return IBS_OK;
		}
		rc = ibs_lft_block(e, f, own, cur, dlid / 64, ports, &oc);
		if (rc == IBS_E_DEADLINE || rc == IBS_E_TRANSPORT)
			return rc;
		if (rc) {
			set_why(r, IBS_ROUTE_UNREAD, "the forwarding table of %s could not be read (%s)", ibs_node_name(cur),
				ibs_outcome_str(oc));
			return IBS_OK;
		}
		out = ports[dlid % 64];
		r->hops = xgrow(r->hops, &cap, r->n_hops + 1, sizeof(*r->hops));
		r->hops[r->n_hops].node = cur;
		r->hops[r->n_hops].in_port = in_port;
		r->hops[r->n_hops].out_port = out;
		r->n_hops++;
		if (out == 0xff || out > cur->ni.num_ports) {
			set_why(r, IBS_ROUTE_HOLE, "%s has no route to LID %u (forwarding table entry %u)",
				ibs_node_name(cur), dlid, out);
			return IBS_OK;
		}
		if (out == 0) {
			set_why(r, IBS_ROUTE_WRONG, "%s forwards LID %u to itself (port 0)", ibs_node_name(cur), dlid);
			return IBS_OK;
		}
		op = ibs_node_port(cur, out);
		if (!op || !op->peer) {
			set_why(r, IBS_ROUTE_DEAD_END, "%s forwards LID %u to port %u, which has no cable (%s)",
				ibs_node_name(cur), dlid, out,
				op && op->valid ? ibs_phys_state_str(op->pi.phys_state) : "unread");
			return IBS_OK;
		}
		in_port = op->peer_port;
		cur = op->peer;
	}
}

enum ibs_err ibs_route_trace(struct ibs_engine *e, const struct ibs_fabric *f, const struct ibs_node *src,
			     uint8_t src_port, uint16_t dlid, struct ibs_route *r)
{
	uint32_t *own = ibs_fabric_lid_owners(f);
	enum ibs_err rc = trace(e, f, own, src, src_port, dlid, r);

	free(own);
	return rc;
}

void ibs_route_free(struct ibs_route *r)
{
	free(r->hops);
	free(r->why);
	memset(r, 0, sizeof(*r));
}

/* The first port of a CA that has a LID (the port a name or node GUID means). */
static uint8_t first_lid_port(const struct ibs_node *n)
{
	const struct ibs_port *pt;

	if (n->ni.node_type == IBS_NODE_SWITCH)
		return 0;
	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++)
		if (pt->valid && pt->pi.lid)
			return pt->num;
	return 0;
}

enum ibs_err ibs_fabric_resolve(const struct ibs_fabric *f, const char *spec, const struct ibs_node **node,
				uint8_t *port, uint16_t *lid, char **msg)
{
	const struct ibs_node *hit = NULL;
	uint8_t hport = 0;
	size_t i, nhits = 0;
	char *end;
	bool is_guid = spec[0] == '0' && (spec[1] == 'x' || spec[1] == 'X');

	*node = NULL;
	if (!*spec) {
		*msg = xstrdup("an empty endpoint");
		return IBS_E_INVAL;
	}
	if (spec[0] >= '0' && spec[0] <= '9' && !is_guid) {
		unsigned long l = strtoul(spec, &end, 10);
		struct ibs_node *n;
		struct ibs_port *pt;
		if (*end || !l || l > 0xbfff) {
			*msg = xasprintf("'%s' is not a unicast LID (1-49151)", spec);
			return IBS_E_INVAL;
		}
		pt = ibs_fabric_find_lid(f, (uint16_t)l, &n);
		if (!pt) {
			*msg = xasprintf("no port has LID %lu", l);
			return IBS_E_NOTFOUND;
		}
		*node = n;
		*port = pt->num;
		*lid = (uint16_t)l;
		return IBS_OK;
	}
	if (is_guid) {
		uint64_t g;
		if (!ibs_guid_parse_all(spec, &g)) {
			*msg = xasprintf("'%s' is not a GUID (want " IBS_GUID_WANT ")", spec);
			return IBS_E_INVAL;
		}
		for (i = 0; i < f->n_nodes; i++) {
			const struct ibs_node *n = f->nodes[i];
			const struct ibs_port *pt;
			if (n->ni.node_guid == g) {
				nhits += hit != n;
				hit = n;
				hport = first_lid_port(n);
				continue;
			}
			for (pt = n->ports; pt < ibs_node_ports_end(n); pt++)
				if (pt->guid == g && (n->ni.node_type != IBS_NODE_SWITCH || pt->num == 0)) {
					nhits += hit != n;
					hit = n;
					hport = pt->num;
				}
		}
	} else {
		size_t sl = strlen(spec);
		for (i = 0; i < f->n_nodes; i++) {
			const struct ibs_node *n = f->nodes[i];
			const char *name = ibs_node_name(n);
			/* A name, or the host part of a description like "node0001 mlx5_0". */
			if (!strcmp(name, spec) || (!strncmp(name, spec, sl) && name[sl] == ' ')) {
				nhits++;
				hit = n;
				hport = first_lid_port(n);
			}
		}
	}
	if (!nhits) {
		*msg = xasprintf("no node or port matches '%s' (give a LID, a GUID or a node name)", spec);
		return IBS_E_NOTFOUND;
	}
	if (nhits > 1) {
		*msg = xasprintf("'%s' matches %zu nodes: give a LID or a port GUID", spec, nhits);
		return IBS_E_INVAL;
	}
	*node = hit;
	*port = hport;
	{
		const struct ibs_port *pt = ibs_node_port(hit, hport);
		*lid = pt && pt->valid ? pt->pi.lid : 0;
	}
	if (!*lid) {
		*msg = xasprintf("'%s' has no LID (is a subnet manager running?)", spec);
		return IBS_E_NOTFOUND;
	}
	return IBS_OK;
}
