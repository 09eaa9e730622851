/* The nodes an SMP is served by, for the engine's per-node cap (smp_route.h). */
#include "smp_route.h"

/* By directed route from root along a: every switch on the path, and the node at its end. */
static unsigned dr_route(const struct ibs_node *root, const struct ibs_addr *a, uint32_t *keys, unsigned max)
{
	const struct ibs_node *cur = root;
	unsigned i, n = 0;

	if (!cur)
		return 0;
	for (i = 1; i <= a->hops && n + 1 < max; i++) {
		const struct ibs_port *pt = ibs_node_port(cur, a->path[i]);
		if (cur->ni.node_type == IBS_NODE_SWITCH)
			keys[n++] = (uint32_t)cur->index;
		if (!a->path[i] || !pt || !pt->peer)
			return n;
		cur = pt->peer;
	}
	if (n < max)
		keys[n++] = (uint32_t)cur->index;
	return n;
}

unsigned ibs_smp_route(const struct ibs_node *dest, const struct ibs_node *root, const struct ibs_addr *a,
		       uint32_t *keys, unsigned max)
{
	if (a->lid) {
		if (!dest || !max)
			return 0;
		keys[0] = (uint32_t)dest->index;
		return 1;
	}
	return dr_route(root, a, keys, max);
}
