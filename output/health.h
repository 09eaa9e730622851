/* The renderer of `ibscan health` (text and JSON) and its monitoring-plugin status line. */
#ifndef IBSCAN_OUT_HEALTH_H
#define IBSCAN_OUT_HEALTH_H

#include "emit.h"
#include "../fabric/check/health.h"

#define IBS_HEALTH_SCHEMA "ibscan.health/1"

/* The monitoring-plugin status line, without newline (caller frees). */
char *render_health_status_line(const struct ibs_fabric *f, const struct ibs_findings *fs);
/*
 * The "findings" array: each finding (text: severity, check, message, where);
 * counters_only: only those judged from counter readings (ibs_check_of_counters).
 */
void render_findings(struct emit *e, const struct ibs_findings *fs, bool counters_only);
/* Text (status line, then findings) or JSON. */
void render_health(struct emit *e, const struct ibs_fabric *f, const struct ibs_findings *fs);

#endif
