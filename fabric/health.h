/*
 * Fabric health checks: findings as data (check id, severity, where, why)
 * and the verdict rule. The catalogue is docs/checks.md.
 */
#ifndef IBSCAN_HEALTH_H
#define IBSCAN_HEALTH_H

#include "counters.h"
#include "model.h"
#include "run.h"

struct ibs_routecheck;

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
	size_t count[32];              /* per check, indexed like ibs_checks */
	enum ibs_severity verdict;
	char *verdict_reason;          /* why UNKNOWN, when it is */
	bool routing;                  /* the route.* checks ran (health --routing) */
	size_t routing_unread;         /* switches whose forwarding table they lacked */
};

/* route.imbalance's default: any spread beyond max > min + 1 above the mean. */
#define IBS_ROUTE_IMBALANCE_DEFAULT 100

struct ibs_thresholds {
	uint64_t t[32];                /* indexed like ibs_counter_defs */
	uint64_t route_imbalance;      /* route.imbalance: uplinks' max above this % of their mean (and > min + 1) */
	uint64_t route_not_updown;     /* route.not_updown: more routes than this not up/down */
};

void ibs_thresholds_default(struct ibs_thresholds *t);
/* "Name=N" lines ('#' comments), names as in ibs_counter_defs or route.imbalance, route.not_updown; *msg says file:line on error. */
enum ibs_err ibs_thresholds_parse(const char *name, const char *buf, size_t len, struct ibs_thresholds *t,
				  char **msg);
enum ibs_err ibs_thresholds_load(const char *path, struct ibs_thresholds *t, char **msg);
/* "Name=N" from the command line. */
enum ibs_err ibs_thresholds_set(struct ibs_thresholds *t, const char *spec, char **msg);

struct ibs_health_opts {
	const struct ibs_thresholds *thresholds;
	const struct ibs_fabric *baseline; /* or NULL */
	bool counters;                     /* counters were asked for */
	const struct ibs_routecheck *routes; /* health --routing: the route check, or NULL */
};

/*
 * Run every check on f, read by run (what its source lacks, whether it
 * stopped early, whether counters could be read); findings sorted by
 * severity, check, GUID, port.
 */
void ibs_health_check(const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_health_opts *o,
		      struct ibs_findings *out);
void ibs_findings_free(struct ibs_findings *fs);

/* For the check files: add a finding of the check with this id (fmt: its message). */
struct ibs_finding *ibs_finding_add(struct ibs_findings *fs, const char *id, enum ibs_severity sev,
				    const struct ibs_node *n, uint8_t port, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* fabric/health_route.c: the route.* checks from a route check. */
void ibs_health_routes(const struct ibs_routecheck *rc, const struct ibs_thresholds *t, struct ibs_findings *fs);

#endif
