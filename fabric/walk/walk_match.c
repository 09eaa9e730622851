/*
 * Whether a probe's answer (phase C, resolve in walk.c) is a node the walk
 * knows already: its NodeInfo matches a known node's in full, or it is an
 * echo of a cable already known. Reads the model, sends nothing; the last
 * of the walker's files (walk.c calls it, it calls none of them).
 */
#include "walk_int.h"

/*
 * Does cand's NodeInfo say it is the node that answered pr, entered on port
 * k? NodeGUID alone can lie (a duplicate): the rest of NodeInfo must agree
 * too, the port GUID included (a switch's is its port 0's, the same from
 * any side; a CA's is the entry port's, known once that port was read).
 */
static bool nodeinfo_matches(const struct ibs_node *cand, uint8_t k, const struct ibs_nodeinfo *ni)
{
	if (k < 1 || k > cand->ni.num_ports)
		return false;
	if (cand->ni.node_guid != ni->node_guid || cand->ni.node_type != ni->node_type ||
	    cand->ni.system_image_guid != ni->system_image_guid || cand->ni.vendor_id != ni->vendor_id ||
	    cand->ni.device_id != ni->device_id || cand->ni.revision != ni->revision ||
	    cand->ni.num_ports != ni->num_ports)
		return false;
	if (cand->ni.node_type == IBS_NODE_SWITCH)
		return cand->ni.port_guid == ni->port_guid;
	return !cand->ports[k].guid || cand->ports[k].guid == ni->port_guid;
}

/*
 * Is candidate, entered on port k, the node already known at the far end of
 * from:port? It is when its NodeInfo matches in full and port k is not
 * cabled elsewhere, whatever state port k was read in: a port read Down
 * while its cable was out (a flap) carries this probe now, and resolve()
 * reads it again. Two nodes sharing a GUID differ elsewhere in NodeInfo
 * (ibsim's `Guid` changes the NodeGUID only), or by a port cabled elsewhere.
 */
bool walk_same_node(const struct ibs_node *cand, uint8_t k, const struct probe *pr)
{
	const struct ibs_port *cp;

	if (!nodeinfo_matches(cand, k, &pr->ni))
		return false;
	cp = &cand->ports[k];
	if (cp->peer)
		return cp->peer == pr->from && cp->peer_port == pr->port;
	return true;
}

/* Do a and b say the same in NodeInfo, port GUID included? */
static bool twins(const struct ibs_node *a, const struct ibs_node *b)
{
	return a->ni.node_guid == b->ni.node_guid && a->ni.node_type == b->ni.node_type &&
	       a->ni.port_guid == b->ni.port_guid && a->ni.system_image_guid == b->ni.system_image_guid &&
	       a->ni.vendor_id == b->ni.vendor_id && a->ni.device_id == b->ni.device_id &&
	       a->ni.revision == b->ni.revision && a->ni.num_ports == b->ni.num_ports;
}

/*
 * Is pr, sent from port j of a node, an echo of a cable already known? It is
 * when it reached a known node whose entry port is cabled to port j of
 * another node matching the sender in full: the sender is a copy of that
 * node, made when a cable flapped, and walking it through ports whose far
 * ends are known would copy every neighbour around every loop. One port has
 * one cable, so two real nodes never both reach it.
 */
bool walk_echo_of_known(const struct walker *w, const struct probe *pr)
{
	const struct ibs_node *cand, *from = pr->from;
	uint8_t k = pr->ni.local_port;

	if (!from)
		return false;
	for (cand = ibs_fabric_find_guid(w->f, pr->ni.node_guid); cand; cand = cand->next_same_guid) {
		const struct ibs_port *cp;
		if (!nodeinfo_matches(cand, k, &pr->ni))
			continue;
		cp = &cand->ports[k];
		if (cp->peer && cp->peer != from && cp->peer_port == pr->port && twins(cp->peer, from))
			return true;
	}
	return false;
}
