/* The renderer of `ibscan health` (text and JSON) and its monitoring-plugin status line. */
#ifndef IBSCAN_OUT_HEALTH_H
#define IBSCAN_OUT_HEALTH_H

#include "emit.h"
#include "../fabric/check/health.h"

#define IBS_HEALTH_SCHEMA "ibscan.health/1"

/* The monitoring-plugin status line, without newline (caller frees). */
char *render_health_status_line(const struct ibs_fabric *f, const struct ibs_findings *fs);
/* Text (status line, then findings) or JSON. */
void render_health(struct emit *e, const struct ibs_fabric *f, const struct ibs_findings *fs);

#endif
