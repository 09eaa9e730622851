/*
 * A cabling plan by names: one cable a row, CSV with the columns UFM's
 * NDT files use (start device, start port, end device, end port, then
 * optionally the rate, e.g. 4xNDR; further columns are ignored). A header
 * row (its port column is not a number), blank lines and '#' lines are
 * skipped; fields may be quoted ("a, b" and "" for a quote). Untrusted
 * input: at most IBS_PLAN_MAX_BYTES, rows of at most IBS_PLAN_MAX_LINE
 * bytes, read in one pass; errors name file:line.
 *
 * Compared with a fabric by node name (node-name map, else the
 * description; fabric/model/model.h ibs_node_name): plan.missing (a planned
 * cable not there), plan.extra (a cable the plan lacks), plan.miscabled (a
 * planned cable with one end elsewhere: the move; or at another rate).
 */
#ifndef IBSCAN_PLAN_H
#define IBSCAN_PLAN_H

#include <stddef.h>

#include "findings.h"

#define IBS_PLAN_MAX_BYTES (64u << 20)
#define IBS_PLAN_MAX_LINE 4096

struct ibs_plan_cable {
	char *a, *b;              /* device names, cleaned */
	unsigned pa, pb;          /* ports 1..255 */
	char rate[16];            /* "4xNDR" as ibscan writes rates, or "" when the row gives none */
	size_t line;
};

struct ibs_plan {
	struct ibs_plan_cable *v;
	size_t n, cap;
};

enum ibs_err ibs_plan_parse(const char *name, const char *buf, size_t len, struct ibs_plan **out, char **msg);
enum ibs_err ibs_plan_load(const char *path, struct ibs_plan **out, char **msg);
void ibs_plan_free(struct ibs_plan *p);

/* plan.missing, plan.extra and plan.miscabled: f against p. */
void ibs_check_plan(const struct ibs_fabric *f, const struct ibs_plan *p, struct ibs_findings *fs);

#endif
