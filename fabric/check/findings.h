/*
 * Findings as data: the catalogue of checks (docs/checks.md), a finding
 * (check, severity, where, why) and the list the checks add to. Below the
 * checks: fabric/check/health.c runs them, and the checks that live in their own
 * files (rails.c, fattree.c, plan.c) add findings through ibs_health_add.
 */
#ifndef IBSCAN_FINDINGS_H
#define IBSCAN_FINDINGS_H

#include <stdbool.h>

#include "../walk/counters.h"
#include "../model/model.h"

enum ibs_severity { IBS_SEV_OK = 0, IBS_SEV_WARNING = 1, IBS_SEV_CRITICAL = 2, IBS_SEV_UNKNOWN = 3 };

const char *ibs_severity_str(enum ibs_severity s); /* "OK", "WARNING", ... */

/* One check of the catalogue. */
struct ibs_check_def {
	const char *id;        /* "link.down" */
	const char *unit;      /* for the summary line: "link down" */
	const char *units;     /* plural: "links down" */
	const char *perf;      /* perfdata / metric label: "links_down" */
	bool routing;          /* a route.* check: counted and listed only under health --routing */
};
extern const struct ibs_check_def ibs_checks[];
extern const size_t ibs_n_checks;
/* The checks judged from counter readings alone (counters, link.flapped, counters.congested): what `counters` lists. */
bool ibs_check_of_counters(const struct ibs_check_def *c);

struct ibs_finding {
	const struct ibs_check_def *check;
	enum ibs_severity severity;
	const struct ibs_node *node;   /* NULL for fabric-wide findings */
	uint8_t port;
	const struct ibs_node *peer;   /* the other end, when there is one */
	uint8_t peer_port;
	uint64_t guid;                 /* the GUID concerned (node, port or SM) */
	uint16_t lid;
	char *message;
	const struct ibs_counter_def *counter; /* counters findings */
	uint64_t value, threshold;
};

struct ibs_findings {
	struct ibs_finding *v;
	size_t n, cap;
	size_t count[64];              /* per check, indexed like ibs_checks */
	enum ibs_severity verdict;
	char *verdict_reason;          /* why UNKNOWN, when it is */
	bool routing;                  /* the route.* checks ran (health --routing) */
	size_t routing_unread;         /* switches whose forwarding table they lacked */
	/* health --state: whether one was used, and what could not be compared with it (said, not judged). */
	bool state_used;
	char **notes;
	size_t n_notes, notes_cap;
};

void ibs_findings_free(struct ibs_findings *fs);

/* Indexes of ibs_checks[] (fabric/check/findings.c), in catalogue order. */
enum {
	CK_LINK_DOWN,
	CK_LINK_DEGRADED,
	CK_LINK_HELD_DOWN,
	CK_LINK_SELF_LOOP,
	CK_LINK_FLAPPED,
	CK_COUNTERS,
	CK_CONGESTED,
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
	CK_ROUTE_UNREACHABLE,
	CK_ROUTE_DOWN_PORT,
	CK_ROUTE_LOOP,
	CK_ROUTE_CREDIT_LOOP,
	CK_ROUTE_IMBALANCE,
	CK_ROUTE_NOT_UPDOWN,
	CK__N
};

/* Add a finding of check ck about port of n (0: the node), message from fmt. */
struct ibs_finding *ibs_health_add(struct ibs_findings *fs, int ck, enum ibs_severity sev, const struct ibs_node *n,
				   uint8_t port, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
