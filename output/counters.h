/* The renderer of `ibscan counters` (text and JSON). */
#ifndef IBSCAN_OUT_COUNTERS_H
#define IBSCAN_OUT_COUNTERS_H

#include "emit.h"
#include "../fabric/model/model.h"
#include "../fabric/walk/run.h"
#include "../fabric/check/findings.h"

#define IBS_COUNTERS_SCHEMA "ibscan.counters/1"

/*
 * Each port's counters, then "findings": those of fs judged from the
 * readings (ibs_check_of_counters; null where fs is NULL).
 */
void render_counters(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run,
		     const struct ibs_findings *fs);

#endif
