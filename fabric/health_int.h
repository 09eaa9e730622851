/*
 * Inside the health checks: the catalogue's indexes and how a check adds a
 * finding. For the checks that live in their own files (rails.c,
 * fattree.c, plan.c); nothing outside fabric/ includes this.
 */
#ifndef IBSCAN_HEALTH_INT_H
#define IBSCAN_HEALTH_INT_H

#include "health.h"

/* Indexes of ibs_checks[] (fabric/health.c), in catalogue order. */
enum {
	CK_LINK_DOWN,
	CK_LINK_DEGRADED,
	CK_LINK_HELD_DOWN,
	CK_LINK_SELF_LOOP,
	CK_COUNTERS,
	CK_DUP_GUID,
	CK_DUP_PORT_GUID,
	CK_DUP_LID,
	CK_LID_ZERO,
	CK_DEFAULT_DESC,
	CK_SM_NONE,
	CK_SM_MULTI,
	CK_SM_UNREACHABLE,
	CK_DRIFT_MISSING,
	CK_DRIFT_NEW,
	CK_DRIFT_MOVED,
	CK_DRIFT_RATE,
	CK_PARTIAL,
	CK_RAIL_MISCABLED,
	CK_RAIL_COLLISION,
	CK_RAIL_MISSING,
	CK_FABRIC_ASYMMETRIC,
	CK_FABRIC_MISPLACED,
	CK_FABRIC_RATE,
	CK_PLAN_MISSING,
	CK_PLAN_EXTRA,
	CK_PLAN_MISCABLED,
	CK__N
};

/* Add a finding of check ck about port of n (0: the node), message from fmt. */
struct ibs_finding *ibs_health_add(struct ibs_findings *fs, int ck, enum ibs_severity sev, const struct ibs_node *n,
				   uint8_t port, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
