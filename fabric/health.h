/*
 * Fabric health checks: findings as data (check id, severity, where, why)
 * and the verdict rule. The catalogue is docs/checks.md.
 */
#ifndef IBSCAN_HEALTH_H
#define IBSCAN_HEALTH_H

#include "counters.h"
#include "model.h"
#include "run.h"
#include "state.h"

enum ibs_severity { IBS_SEV_OK = 0, IBS_SEV_WARNING = 1, IBS_SEV_CRITICAL = 2, IBS_SEV_UNKNOWN = 3 };

const char *ibs_severity_str(enum ibs_severity s); /* "OK", "WARNING", ... */

/* One check of the catalogue. */
struct ibs_check_def {
	const char *id;        /* "link.down" */
	const char *unit;      /* for the summary line: "link down" */
	const char *units;     /* plural: "links down" */
	const char *perf;      /* perfdata / metric label: "links_down" */
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
	/* health --state: whether one was used, and what could not be compared with it (said, not judged). */
	bool state_used;
	char **notes;
	size_t n_notes, notes_cap;
};

struct ibs_thresholds {
	uint64_t t[32];                /* indexed like ibs_counter_defs */
};

void ibs_thresholds_default(struct ibs_thresholds *t);
/* "Name=N" lines ('#' comments), names as in ibs_counter_defs; *msg says file:line on error. */
enum ibs_err ibs_thresholds_parse(const char *name, const char *buf, size_t len, struct ibs_thresholds *t,
				  char **msg);
enum ibs_err ibs_thresholds_load(const char *path, struct ibs_thresholds *t, char **msg);
/* "Name=N" from the command line. */
enum ibs_err ibs_thresholds_set(struct ibs_thresholds *t, const char *spec, char **msg);

struct ibs_health_opts {
	const struct ibs_thresholds *thresholds;
	const struct ibs_fabric *baseline; /* or NULL */
	bool counters;                     /* counters were asked for */
	/*
	 * health --state: the last run's readings (fabric/state.h), or NULL.
	 * Then error counters are judged by their rise since, a LinkDowned rise
	 * is link.flapped, and what cannot be compared goes to notes.
	 */
	const struct ibs_state *state;
	int64_t now;                       /* seconds since the epoch, for the state */
};

/*
 * Run every check on f, read by run (what its source lacks, whether it
 * stopped early, whether counters could be read); findings sorted by
 * severity, check, GUID, port.
 */
void ibs_health_check(const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_health_opts *o,
		      struct ibs_findings *out);
void ibs_findings_free(struct ibs_findings *fs);

#endif
