/* Renderers for `ibscan health`, `ibscan counters` and `ibscan diff`. */
#ifndef IBSCAN_OUT_HEALTH_H
#define IBSCAN_OUT_HEALTH_H

#include <stdio.h>

#include "emit.h"
#include "../fabric/diff.h"
#include "../fabric/health.h"

#define IBS_HEALTH_SCHEMA "ibscan.health/1"
#define IBS_COUNTERS_SCHEMA "ibscan.counters/1"
#define IBS_DIFF_SCHEMA "ibscan.diff/1"

/* The monitoring-plugin status line, without newline (caller frees). */
char *health_status_line(const struct ibs_fabric *f, const struct ibs_findings *fs);
/* Text (status line, then findings) or JSON. */
void render_health(struct emit *e, const struct ibs_fabric *f, const struct ibs_findings *fs);
/*
 * Prometheus text exposition format; f and run may be NULL when the run
 * failed (ibscan_up 0).
 */
int render_health_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_findings *fs);
void render_counters(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);
int render_counters_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run);
void render_diff(struct emit *e, const char *a_name, const char *b_name, const struct ibs_diff *d);

#endif
