/* The Prometheus renderers of `ibscan health` and `ibscan counters`. */
#ifndef IBSCAN_OUT_PROM_H
#define IBSCAN_OUT_PROM_H

#include <stdio.h>

#include "../fabric/health.h"
#include "../fabric/run.h"

/*
 * Prometheus text exposition format; f and run may be NULL when the run
 * failed (ibscan_up 0). -1 on a write error.
 */
int render_health_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_findings *fs);
int render_counters_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run);

#endif
