/* The route check's balance of each switch's ports by tier, and its verdict (see routecheck.h). */
#include "routecheck.h"
#include "routecheck_int.h"

#include <stdlib.h>

/*
 * Downlinks: what goes down to one switch is fixed by the tree, so only
 * parallel cables to the same switch can be unbalanced among themselves.
 */
static bool parallel_unbalanced(const struct ibs_rc_switch *w)
{
	const struct ibs_port *p, *q;

	for (p = ibs_node_ports_from(w->node, 1); p < ibs_node_ports_end(w->node); p++) {
		if (p->num >= w->n_ports || w->role[p->num] != IBS_RC_DOWN)
			continue;
		for (q = p + 1; q < ibs_node_ports_end(w->node); q++)
			if (q->num < w->n_ports && w->role[q->num] == IBS_RC_DOWN && q->peer == p->peer &&
			    (w->lids[p->num] > w->lids[q->num] + 1 || w->lids[q->num] > w->lids[p->num] + 1))
				return true;
	}
	return false;
}

/* Ports by role and the spread of CA LIDs over the uplinks and the downlinks. */
void ibs_rc_balance(struct st *t)
{
	size_t k;

	for (k = 0; k < t->S; k++) {
		struct ibs_rc_switch *w = &t->rc->sw[k];
		const struct ibs_port *p;
		struct ibs_rc_group *g;
		uint64_t up = 0, down = 0;
		for (p = ibs_node_ports_from(w->node, 1); p < ibs_node_ports_end(w->node); p++) {
			unsigned me = w->level, it;
			if (p->num >= w->n_ports || !p->peer)
				continue;
			if (!is_sw(p->peer)) {
				w->role[p->num] = IBS_RC_HOST;
				continue;
			}
			it = t->level[p->peer->index];
			w->role[p->num] = it > me ? IBS_RC_UP : it < me ? IBS_RC_DOWN : IBS_RC_SIDE;
			g = it > me ? &w->up : it < me ? &w->down : NULL;
			if (!g)
				continue;
			if (!g->ports || w->lids[p->num] < g->min)
				g->min = w->lids[p->num];
			if (w->lids[p->num] > g->max)
				g->max = w->lids[p->num];
			g->ports++;
			*(it > me ? &up : &down) += w->lids[p->num];
		}
		if (w->up.ports)
			w->up.mean = (double)up / w->up.ports;
		if (w->down.ports)
			w->down.mean = (double)down / w->down.ports;
		w->up.unbalanced = w->up.max > w->up.min + 1;
		w->down.unbalanced = parallel_unbalanced(w);
	}
}

size_t ibs_routecheck_unbalanced(const struct ibs_routecheck *rc)
{
	size_t i, n = 0;

	for (i = 0; i < rc->n_sw; i++)
		n += rc->sw[i].up.unbalanced;
	return n;
}

enum ibs_rc_status ibs_routecheck_status(const struct ibs_routecheck *rc)
{
	if (rc->n || rc->n_cycles)
		return IBS_RC_CRITICAL;
	if (rc->unread)
		return IBS_RC_UNKNOWN;
	if (rc->not_updown || ibs_routecheck_unbalanced(rc))
		return IBS_RC_WARNING;
	return IBS_RC_OK;
}

const char *ibs_rc_status_str(enum ibs_rc_status s)
{
	static const char *const v[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };

	return s <= IBS_RC_UNKNOWN ? v[s] : "UNKNOWN";
}
