/*
 * The route.* health checks (docs/checks.md), from a route check
 * (fabric/check/routecheck.h): one finding per switch and kind of fault, one per
 * credit loop, one per switch with unbalanced uplinks, one for routes that
 * are not up/down.
 */
#include "health.h"
#include "../model/names.h"
#include "routecheck.h"
#include "../../core/base/strbuf.h"
#include "../../core/base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>

struct agg {
	const struct ibs_node *node;
	size_t lids;
	uint64_t routes;
	uint16_t first;
	uint8_t port;
};

/*
 * Findings of one kind, gathered per switch: how many LIDs, how many routes,
 * the first LID. Each node's entry is found through its index (linear in the
 * route check's findings).
 */
static void per_switch(const struct ibs_routecheck *rc, enum ibs_rc_kind k, int ck, const char *what,
		       struct ibs_findings *fs)
{
	struct agg *a = NULL;
	size_t n = 0, cap = 0, i, j, max_index = 0, *slot;

	for (i = 0; i < rc->n; i++)
		if (rc->v[i].kind == k && rc->v[i].node->index + 1 > max_index)
			max_index = rc->v[i].node->index + 1;
	if (!max_index)
		return;
	slot = xcalloc(max_index, sizeof(*slot)); /* entry + 1 by node index; 0: none yet */
	for (i = 0; i < rc->n; i++) {
		const struct ibs_rc_finding *x = &rc->v[i];
		if (x->kind != k)
			continue;
		if (!slot[x->node->index]) {
			a = xgrow(a, &cap, n + 1, sizeof(*a));
			a[n++] = (struct agg){ x->node, 0, 0, x->dlid, x->port };
			slot[x->node->index] = n;
		}
		j = slot[x->node->index] - 1;
		a[j].lids++;
		a[j].routes += x->pairs;
	}
	for (j = 0; j < n; j++) {
		bool sw = a[j].node->ni.node_type == IBS_NODE_SWITCH;
		if (!a[j].first)
			ibs_health_add(fs, ck, IBS_SEV_CRITICAL, a[j].node, a[j].port,
				       "this CA port is not Active: its %" PRIu64 " routes go nowhere", a[j].routes);
		else
			ibs_health_add(fs, ck, IBS_SEV_CRITICAL, a[j].node, sw && a[j].port != 0xff ? a[j].port : 0,
				       "%zu LID%s %s here (first LID %u), %" PRIu64 " routes", a[j].lids,
				       a[j].lids == 1 ? "" : "s", what, a[j].first, a[j].routes);
	}
	free(slot);
	free(a);
}

void ibs_health_routes(const struct ibs_routecheck *rc, const struct ibs_thresholds *t, struct ibs_findings *fs)
{
	size_t i, j;

	fs->routing = true;
	fs->routing_unread = rc->unread;
	per_switch(rc, IBS_RC_UNREACHABLE, CK_ROUTE_UNREACHABLE, "unreachable", fs);
	per_switch(rc, IBS_RC_DEAD_END, CK_ROUTE_UNREACHABLE, "end at a CA that does not own them", fs);
	per_switch(rc, IBS_RC_DOWN_PORT, CK_ROUTE_DOWN_PORT, "routed over a port not Active", fs);
	per_switch(rc, IBS_RC_LOOP, CK_ROUTE_LOOP, "looping", fs);
	for (i = 0; i < rc->n_cycles; i++) {
		const struct ibs_rc_cycle *c = &rc->cycles[i];
		struct strbuf sb = STRBUF_INIT;
		char *links;
		unsigned sl, k = 0;
		/* Which SLs' routes make it: the SA's, or SL 0 taken for all. */
		if (rc->sl0_assumed)
			sb_addf(&sb, "SL 0 assumed");
		for (sl = 0; !rc->sl0_assumed && sl < 16; sl++)
			if (c->sls & 1u << sl)
				sb_addf(&sb, k++ ? ",%u" : "routes of SL %u", sl);
		if (!rc->sl0_assumed)
			sb_addf(&sb, "%sSLs from the SA", k ? ", " : "");
		sb_addf(&sb, "): ");
		for (j = 0; j < c->n; j++)
			sb_addf(&sb, "%s\"%s\"[%u]", j ? " -> " : "", ibs_node_name(c->links[j].node), c->links[j].port);
		links = sb_detach(&sb);
		ibs_health_add(fs, CK_ROUTE_CREDIT_LOOP, IBS_SEV_CRITICAL, c->n ? c->links[0].node : NULL,
				c->n ? c->links[0].port : 0, "credit loop of %zu links (%zu channels depend on each other; %s",
				c->n, c->scc, links);
		free(links);
	}
	for (i = 0; i < rc->n_sw; i++) {
		const struct ibs_rc_group *g = &rc->sw[i].up;
		if (!g->unbalanced || (double)g->max * 100.0 <= g->mean * (double)t->route_imbalance)
			continue;
		ibs_health_add(fs, CK_ROUTE_IMBALANCE, IBS_SEV_WARNING, rc->sw[i].node, 0,
				"uplinks unbalanced: %u ports carry min %u, mean %.1f, max %u CA LIDs", g->ports, g->min,
				g->mean, g->max);
	}
	if (rc->not_updown > t->route_not_updown)
		ibs_health_add(fs, CK_ROUTE_NOT_UPDOWN, IBS_SEV_WARNING, NULL, 0,
				"%" PRIu64 " routes go down a tier and then up again (min-hop routing in a tree?)",
				rc->not_updown);
}
