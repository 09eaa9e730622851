/*
 * Which ports' counters the sweep asks for, through which LID (a switch's
 * port 0, a CA's own port), and why a port's were not read.
 */
#include "counters_port.h"
#include "counters_int.h"
#include "../model/names.h"

#include <stdio.h>

bool ibs_port_wants_counters(const struct ibs_node *n, const struct ibs_port *p)
{
	if (p->num == 0 || !p->valid)
		return false;
	(void)n;
	/* A port with a cable (or at least LinkUp) has counters worth reading. */
	return p->peer || ibs_portinfo_linkup(&p->pi);
}

/*
 * The port a GMP to p's PMA enters by: a switch's port 0 (the PMA's, whatever
 * port is selected), a CA's or router's own port.
 */
static const struct ibs_port *pma_port(const struct ibs_node *n, const struct ibs_port *p)
{
	return n->ni.node_type == IBS_NODE_SWITCH ? ibs_node_port(n, 0) : p;
}

uint16_t ibs_port_pma_lid(const struct ibs_node *n, const struct ibs_port *p)
{
	const struct ibs_port *via = pma_port(n, p);

	return via && via->valid ? via->pi.lid : 0;
}

/*
 * Why no GMP can ask for p's counters, or IBS_CTR_ASKED. Only SMPs pass a
 * port in Init or Armed (IBA 7.2); a GMP needs the PMA's port Active, and
 * for a remote CA the switch port its cable goes to as well (every GMP to
 * it leaves by that port; its port 0 counts for a switch). A switch's
 * external port in Init is read through its port 0 all the same. A LID
 * another node holds too (own: ibs_fabric_lid_owners) would bring
 * whichever node's counters the forwarding tables lead to: not asked.
 */
uint8_t ibs_port_pma_skip(const struct ibs_node *n, const struct ibs_port *p, const uint32_t *own, uint8_t *state)
{
	const struct ibs_port *via = pma_port(n, p), *far;

	if (!via || !via->valid)
		return IBS_CTR_NO_LID;
	if (!ibs_portinfo_active(&via->pi)) {
		*state = via->pi.state;
		return IBS_CTR_NOT_ACTIVE;
	}
	if (!via->pi.lid)
		return IBS_CTR_NO_LID;
	far = NULL;
	if (n->ni.node_type != IBS_NODE_SWITCH && n->path.hops && p->peer)
		far = ibs_node_port(p->peer, p->peer_port);
	if (far && far->valid && !ibs_portinfo_active(&far->pi)) {
		*state = far->pi.state;
		return IBS_CTR_PEER_NOT_ACTIVE;
	}
	if (via->pi.lid < IBS_LID_UNICAST_END && own[via->pi.lid] == IBS_LID_SHARED)
		return IBS_CTR_SHARED_LID;
	return IBS_CTR_ASKED;
}

const char *ibs_port_counters_why(const struct ibs_node *n, const struct ibs_port *p)
{
	static char buf[192];
	const struct ibs_port *via = pma_port(n, p);

	if (!p->ctr || p->ctr->ok)
		return NULL;
	switch (p->ctr->not_read) {
	case IBS_CTR_NO_LID:
		return "the port has no LID";
	case IBS_CTR_NOT_ACTIVE:
		snprintf(buf, sizeof(buf), "%s is %s, and no GMP reaches a port that is not Active",
			 via == p ? "the port" : "port 0", ibs_port_state_str(p->ctr->state));
		return buf;
	case IBS_CTR_MOVED:
		return "its LID moved between the two readings";
	case IBS_CTR_PEER_NOT_ACTIVE:
		snprintf(buf, sizeof(buf),
			 "%s port %u, its cable's other end, is %s, and no GMP crosses a port that is not Active",
			 ibs_node_name(p->peer), p->peer_port, ibs_port_state_str(p->ctr->state));
		return buf;
	case IBS_CTR_SHARED_LID:
		snprintf(buf, sizeof(buf), "its LID %u is another node's too: a GMP to it reaches either", via->pi.lid);
		return buf;
	}
	return NULL;
}
