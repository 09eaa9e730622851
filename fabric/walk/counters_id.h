/* Whose counters a LID reads now (counters_id.c). */
#ifndef IBSCAN_COUNTERS_ID_H
#define IBSCAN_COUNTERS_ID_H

#include "../model/model.h"
#include "../../core/mad/engine.h"

/*
 * Before the second reading of --interval: ask each PMA's LID for its
 * NodeInfo (LID-routed) and mark every port whose LID now leads to another
 * node, or another port of it, IBS_CTR_MOVED (and the fabric partial), so
 * that no other node's traffic is reported as its delta (counters_id.c).
 */
enum ibs_err ibs_counters_confirm(struct ibs_engine *e, struct ibs_fabric *f);

#endif
