/*
 * Fabric health checks: findings as data (check id, severity, where, why)
 * and the verdict rule. The catalogue is docs/checks.md.
 */
#ifndef IBSCAN_HEALTH_H
#define IBSCAN_HEALTH_H

#include "../walk/counters.h"
#include "findings.h"
#include "../model/model.h"
#include "../walk/run.h"
#include "../load/state.h"

struct ibs_routecheck;

/* route.imbalance's default: any spread beyond max > min + 1 above the mean. */
#define IBS_ROUTE_IMBALANCE_DEFAULT 100
/* counters.congested: a port that waited more than this % of the time (docs/checks.md says why 10). */
#define IBS_CONGESTED_DEFAULT 10

struct ibs_thresholds {
	uint64_t t[32];                /* indexed like ibs_counter_defs */
	uint64_t route_imbalance;      /* route.imbalance: uplinks' max above this % of their mean (and > min + 1) */
	uint64_t route_not_updown;     /* route.not_updown: more routes than this not up/down */
	uint64_t congested;            /* counters.congested: PortXmitWait above this % of the time */
};

void ibs_thresholds_default(struct ibs_thresholds *t);
/* "Name=N" lines ('#' comments), names as in ibs_counter_defs or route.imbalance, route.not_updown, counters.congested; *msg says file:line on error. */
enum ibs_err ibs_thresholds_parse(const char *name, const char *buf, size_t len, struct ibs_thresholds *t,
				  char **msg);
enum ibs_err ibs_thresholds_load(const char *path, struct ibs_thresholds *t, char **msg);
/* "Name=N" from the command line. */
enum ibs_err ibs_thresholds_set(struct ibs_thresholds *t, const char *spec, char **msg);

struct ibs_rails;
struct ibs_plan;

struct ibs_health_opts {
	const struct ibs_thresholds *thresholds;
	const struct ibs_fabric *baseline; /* or NULL */
	bool counters;                     /* counters were asked for */
	const struct ibs_rails *rails;     /* rail checks on these devices (fabric/check/rails.h), or NULL: none */
	bool fat_tree;                     /* the fat-tree structure checks (fabric/check/fattree.h) */
	const struct ibs_plan *plan;       /* compare with this cabling plan (fabric/check/plan.h), or NULL */
	const struct ibs_routecheck *routes; /* health --routing: the route check, or NULL */
	/*
	 * health --state: the last run's readings (fabric/load/state.h), or NULL.
	 * Then error counters are judged by their rise since, a LinkDowned rise
	 * is link.flapped, and what cannot be compared goes to notes.
	 */
	const struct ibs_state *state;
	/*
	 * counters --interval: without a state, error counters are judged by
	 * their rise between each port's two readings, a LinkDowned rise there
	 * is link.flapped (ports with one reading: their totals).
	 */
	bool interval;
	int64_t now;                       /* seconds since the epoch, for the state */
};

/*
 * Run every check on f, read by run (what its source lacks, whether it
 * stopped early, whether counters could be read); findings sorted by
 * severity, check, GUID, port.
 */
void ibs_health_check(const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_health_opts *o,
		      struct ibs_findings *out);

/* fabric/check/health_route.c: the route.* checks from a route check. */
void ibs_health_routes(const struct ibs_routecheck *rc, const struct ibs_thresholds *t, struct ibs_findings *fs);

#endif
