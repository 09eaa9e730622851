/* The fabric as a cabling plan: CSV with UFM NDT's columns (docs/plan.md), which health --plan and diff read back. */
#ifndef IBSCAN_OUT_PLAN_H
#define IBSCAN_OUT_PLAN_H

#include <stdio.h>

#include "emit.h"
#include "../fabric/check/health.h"
#include "../fabric/model/model.h"

#define IBS_PLAN_DIFF_SCHEMA "ibscan.plan-diff/1"

/* One row per cable, from its lower (index, port) end; returns -1 on a write error. */
int render_plan(FILE *out, const struct ibs_fabric *f);
/* `diff PLAN SOURCE`: the plan.* findings of the source against the plan, text or JSON. */
void render_plan_diff(struct emit *e, const char *plan_name, const char *src_name, const struct ibs_findings *fs);

#endif
