/*
 * The nodes an SMP is served by, for the engine's per-node cap
 * (ibs_route_fn, max_per_node): which nodes a MAD passes on its way, not a
 * forwarding table's route (route.h).
 */
#ifndef IBSCAN_SMP_ROUTE_H
#define IBSCAN_SMP_ROUTE_H

#include "../model/model.h"

/*
 * The nodes (their index) that serve an SMP sent from root to dest along a,
 * at most max of them: by LID, dest alone (switches forward it in hardware;
 * none when dest is NULL); by directed route, every switch on the path (its
 * SMI forwards it) and the node at its end. A path that runs into a port
 * without a known cable ends the count there.
 */
unsigned ibs_smp_route(const struct ibs_node *dest, const struct ibs_node *root, const struct ibs_addr *a,
		       uint32_t *keys, unsigned max);

#endif
