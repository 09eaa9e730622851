/* The catalogue of checks and the list of findings (see findings.h). */
#include "findings.h"
#include "../../core/base/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Every field by name: an entry can never shift into the wrong field, and
 * clang's -Wmissing-field-initializers (the fuzz build) has nothing to say. */
#define CHECK(i, u, us, p) { .id = (i), .unit = (u), .units = (us), .perf = (p), .routing = false }
#define ROUTE_CHECK(i, u, us, p) { .id = (i), .unit = (u), .units = (us), .perf = (p), .routing = true }

const struct ibs_check_def ibs_checks[] = {
	[CK_LINK_DOWN] = CHECK("link.down", "link down", "links down", "links_down"),
	[CK_LINK_DEGRADED] = CHECK("link.degraded", "degraded link", "degraded links", "links_degraded"),
	[CK_LINK_HELD_DOWN] = CHECK("link.held_down", "link held down by configuration",
		"links held down by configuration", "links_held_down"),
	[CK_LINK_SELF_LOOP] = CHECK("link.self_loop", "cable looped back to its own switch",
		"cables looped back to their own switch", "links_self_loop"),
	[CK_LINK_FLAPPED] = CHECK("link.flapped", "link flapped since the last run",
		"links flapped since the last run", "links_flapped"),
	[CK_COUNTERS] = CHECK("counters", "port with errors", "ports with errors", "ports_with_errors"),
	[CK_CONGESTED] = CHECK("counters.congested", "congested port", "congested ports", "ports_congested"),
	[CK_DUP_GUID] = CHECK("identity.duplicate_guid", "duplicate GUID", "duplicate GUIDs", "duplicate_guids"),
	[CK_DUP_PORT_GUID] = CHECK("identity.duplicate_port_guid", "duplicate port GUID",
		"duplicate port GUIDs", "duplicate_port_guids"),
	[CK_DUP_LID] = CHECK("identity.duplicate_lid", "duplicate LID", "duplicate LIDs", "duplicate_lids"),
	[CK_LID_ZERO] = CHECK("identity.lid_zero", "active port without LID",
		"active ports without LID", "ports_lid_zero"),
	[CK_DEFAULT_DESC] = CHECK("identity.default_description", "CA without a host name",
		"CAs without a host name", "cas_default_description"),
	[CK_SM_NONE] = CHECK("sm.no_master", "no master SM", "no master SM", "sm_no_master"),
	[CK_SM_MULTI] = CHECK("sm.multiple_masters", "extra master SM", "extra master SMs", "sm_extra_masters"),
	[CK_SM_UNREACHABLE] = CHECK("sm.unreachable", "unreachable master SM",
		"unreachable master SMs", "sm_unreachable"),
	[CK_DRIFT_MISSING] = CHECK("drift.node_missing", "node missing", "nodes missing", "nodes_missing"),
	[CK_DRIFT_NEW] = CHECK("drift.node_new", "new node", "new nodes", "nodes_new"),
	[CK_DRIFT_MOVED] = CHECK("drift.cable_moved", "cable moved", "cables moved", "cables_moved"),
	[CK_DRIFT_RATE] = CHECK("drift.rate_changed", "rate change", "rate changes", "rates_changed"),
	[CK_PARTIAL] = CHECK("partial", "unreachable part", "unreachable parts", "unreachable"),
	[CK_RAIL_MISCABLED] = CHECK("rail.miscabled", "cable on another rail's leaf",
		"cables on another rail's leaf", "rail_miscabled"),
	[CK_RAIL_COLLISION] = CHECK("rail.collision", "second rail of a host on one leaf",
		"second rails of a host on one leaf", "rail_collisions"),
	[CK_RAIL_MISSING] = CHECK("rail.missing", "rail missing from a host",
		"rails missing from hosts", "rail_missing"),
	[CK_FABRIC_ASYMMETRIC] = CHECK("fabric.asymmetric", "uneven switch pair",
		"uneven switch pairs", "fabric_asymmetric"),
	[CK_FABRIC_MISPLACED] = CHECK("fabric.misplaced", "cable outside the tree",
		"cables outside the tree", "fabric_misplaced"),
	[CK_FABRIC_RATE] = CHECK("fabric.rate", "cable at another rate than its tier",
		"cables at another rate than their tier", "fabric_rate"),
	[CK_PLAN_MISSING] = CHECK("plan.missing", "planned cable missing", "planned cables missing", "plan_missing"),
	[CK_PLAN_EXTRA] = CHECK("plan.extra", "cable not in the plan", "cables not in the plan", "plan_extra"),
	[CK_PLAN_MISCABLED] = CHECK("plan.miscabled", "cable not as planned",
		"cables not as planned", "plan_miscabled"),
	[CK_ROUTE_UNREACHABLE] = ROUTE_CHECK("route.unreachable", "switch with unreachable LIDs",
		"switches with unreachable LIDs", "route_unreachable"),
	[CK_ROUTE_DOWN_PORT] = ROUTE_CHECK("route.down_port", "switch routing over a port not Active",
		"switches routing over ports not Active", "route_down_port"),
	[CK_ROUTE_LOOP] = ROUTE_CHECK("route.loop", "forwarding loop", "forwarding loops", "route_loop"),
	[CK_ROUTE_CREDIT_LOOP] = ROUTE_CHECK("route.credit_loop", "credit loop", "credit loops", "route_credit_loop"),
	[CK_ROUTE_IMBALANCE] = ROUTE_CHECK("route.imbalance", "switch with unbalanced uplinks",
		"switches with unbalanced uplinks", "route_imbalance"),
	[CK_ROUTE_NOT_UPDOWN] = ROUTE_CHECK("route.not_updown", "set of routes not up/down",
		"sets of routes not up/down", "route_not_updown"),
};
const size_t ibs_n_checks = CK__N;
_Static_assert(CK__N <= sizeof(((struct ibs_findings *)0)->count) / sizeof(size_t), "ibs_findings.count holds every check");

const char *ibs_severity_str(enum ibs_severity s)
{
	static const char *const v[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };
	return (unsigned)s < 4 ? v[s] : "UNKNOWN";
}

struct ibs_finding *ibs_health_add(struct ibs_findings *fs, int ck, enum ibs_severity sev, const struct ibs_node *n,
				   uint8_t port, const char *fmt, ...)
{
	struct ibs_finding *x;
	va_list ap;

	fs->v = xgrow(fs->v, &fs->cap, fs->n + 1, sizeof(*fs->v));
	x = &fs->v[fs->n++];
	memset(x, 0, sizeof(*x));
	x->check = &ibs_checks[ck];
	x->severity = sev;
	x->node = n;
	x->port = port;
	if (n) {
		const struct ibs_port *pt = port ? ibs_node_port(n, port) : NULL;
		x->guid = n->ni.node_guid;
		x->lid = n->ni.node_type == IBS_NODE_SWITCH || !pt || !pt->valid ? ibs_node_lid(n) : pt->pi.lid;
		if (pt && pt->peer) {
			x->peer = pt->peer;
			x->peer_port = pt->peer_port;
		}
	}
	/* Names from a node-name map have no length limit: no fixed buffer. */
	va_start(ap, fmt);
	x->message = xvasprintf(fmt, ap);
	va_end(ap);
	fs->count[ck]++;
	return x;
}

void ibs_findings_free(struct ibs_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		free(fs->v[i].message);
	free(fs->v);
	for (i = 0; i < fs->n_notes; i++)
		free(fs->notes[i]);
	free(fs->notes);
	free(fs->verdict_reason);
	memset(fs, 0, sizeof(*fs));
}

bool ibs_check_of_counters(const struct ibs_check_def *c)
{
	return c == &ibs_checks[CK_COUNTERS] || c == &ibs_checks[CK_LINK_FLAPPED] || c == &ibs_checks[CK_CONGESTED];
}
