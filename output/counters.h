/* The renderer of `ibscan counters` (text and JSON). */
#ifndef IBSCAN_OUT_COUNTERS_H
#define IBSCAN_OUT_COUNTERS_H

#include "emit.h"
#include "../fabric/model/model.h"
#include "../fabric/walk/run.h"

#define IBS_COUNTERS_SCHEMA "ibscan.counters/1"

void render_counters(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);

#endif
