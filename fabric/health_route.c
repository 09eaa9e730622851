/*
 * The route.* health checks (docs/checks.md), from a route check
 * (fabric/routecheck.h): one finding per switch and kind of fault, one per
 * credit loop, one per switch with unbalanced uplinks, one for routes that
 * are not up/down.
 */
#include "health.h"
#include "names.h"
#include "routecheck.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>

struct agg {
	const struct ibs_node *node;
	size_t lids;
	uint64_t routes;
	uint16_t first;
	uint8_t port;
};

/* Findings of one kind, gathered per switch: how many LIDs, how many routes, the first LID. */
static void per_switch(const struct ibs_routecheck *rc, enum ibs_rc_kind k, const char *id, const char *what,
		       struct ibs_findings *fs)
{
	struct agg *a = NULL;
	size_t n = 0, cap = 0, i, j;

	for (i = 0; i < rc->n; i++) {
		const struct ibs_rc_finding *x = &rc->v[i];
		if (x->kind != k)
			continue;
		for (j = 0; j < n && a[j].node != x->node; j++)
			;
		if (j == n) {
			a = xgrow(a, &cap, n + 1, sizeof(*a));
			a[n++] = (struct agg){ x->node, 0, 0, x->dlid, x->port };
		}
		a[j].lids++;
		a[j].routes += x->pairs;
	}
	for (j = 0; j < n; j++) {
		bool sw = a[j].node->ni.node_type == IBS_NODE_SWITCH;
		if (!a[j].first)
			ibs_finding_add(fs, id, IBS_SEV_CRITICAL, a[j].node, a[j].port,
					"this CA port is not Active: its %" PRIu64 " routes go nowhere", a[j].routes);
		else
			ibs_finding_add(fs, id, IBS_SEV_CRITICAL, a[j].node, sw && a[j].port != 0xff ? a[j].port : 0,
					"%zu LID%s %s here (first LID %u), %" PRIu64 " routes", a[j].lids,
					a[j].lids == 1 ? "" : "s", what, a[j].first, a[j].routes);
	}
	free(a);
}

void ibs_health_routes(const struct ibs_routecheck *rc, const struct ibs_thresholds *t, struct ibs_findings *fs)
{
	size_t i, j;

	fs->routing = true;
	fs->routing_unread = rc->unread;
	per_switch(rc, IBS_RC_UNREACHABLE, "route.unreachable", "unreachable", fs);
	per_switch(rc, IBS_RC_DEAD_END, "route.unreachable", "end at a CA that does not own them", fs);
	per_switch(rc, IBS_RC_DOWN_PORT, "route.down_port", "routed over a port not Active", fs);
	per_switch(rc, IBS_RC_LOOP, "route.loop", "looping", fs);
	for (i = 0; i < rc->n_cycles; i++) {
		const struct ibs_rc_cycle *c = &rc->cycles[i];
		struct strbuf sb = STRBUF_INIT;
		char *links;
		for (j = 0; j < c->n; j++)
			sb_addf(&sb, "%s\"%s\"[%u]", j ? " -> " : "", ibs_node_name(c->links[j].node), c->links[j].port);
		links = sb_detach(&sb);
		ibs_finding_add(fs, "route.credit_loop", IBS_SEV_CRITICAL, c->n ? c->links[0].node : NULL,
				c->n ? c->links[0].port : 0,
				"credit loop of %zu links (%zu channels depend on each other; SL 0 assumed): %s", c->n,
				c->scc, links);
		free(links);
	}
	for (i = 0; i < rc->n_sw; i++) {
		const struct ibs_rc_group *g = &rc->sw[i].up;
		if (!g->unbalanced || (double)g->max * 100.0 <= g->mean * (double)t->route_imbalance)
			continue;
		ibs_finding_add(fs, "route.imbalance", IBS_SEV_WARNING, rc->sw[i].node, 0,
				"uplinks unbalanced: %u ports carry min %u, mean %.1f, max %u CA LIDs", g->ports, g->min,
				g->mean, g->max);
	}
	if (rc->not_updown > t->route_not_updown)
		ibs_finding_add(fs, "route.not_updown", IBS_SEV_WARNING, NULL, 0,
				"%" PRIu64 " routes go down a tier and then up again (min-hop routing in a tree?)",
				rc->not_updown);
}
