/* Tree levels of switches: breadth-first distance from the nearest leaf (see levels.h). */
#include "levels.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

bool ibs_is_aggregation_node(const struct ibs_node *n)
{
	return n->desc && strstr(n->desc, "Aggregation Node");
}

static bool is_switch(const struct ibs_node *n)
{
	return n && n->ni.node_type == IBS_NODE_SWITCH;
}

unsigned *ibs_fabric_levels(const struct ibs_fabric *f, unsigned *max_level)
{
	unsigned *level = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*level)), max = 0;
	size_t *queue = xcalloc(f->n_nodes ? f->n_nodes : 1, sizeof(*queue)), head = 0, tail = 0, i;
	const struct ibs_port *pt;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		if (!is_switch(n))
			continue;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			const struct ibs_node *peer = pt->peer;
			if (peer && peer->ni.node_type == IBS_NODE_CA && !ibs_is_aggregation_node(peer)) {
				level[n->index] = 1;
				queue[tail++] = n->index;
				break;
			}
		}
	}
	while (head < tail) {
		const struct ibs_node *s = f->nodes[queue[head++]];
		if (level[s->index] > max)
			max = level[s->index];
		for (pt = ibs_node_ports_from(s, 1); pt < ibs_node_ports_end(s); pt++) {
			const struct ibs_node *peer = pt->peer;
			if (!is_switch(peer) || level[peer->index])
				continue;
			level[peer->index] = level[s->index] + 1;
			queue[tail++] = peer->index;
		}
	}
	free(queue);
	*max_level = max;
	return level;
}
