/* The route check's view (`ibscan routes --check`): status line, summary, findings, credit loops, balance. */
#ifndef IBSCAN_OUT_ROUTECHECK_H
#define IBSCAN_OUT_ROUTECHECK_H

#include "emit.h"
#include "../fabric/routecheck.h"

#define IBS_ROUTECHECK_SCHEMA "ibscan.routecheck/1"

void render_routecheck(struct emit *e, const struct ibs_routecheck *rc);

#endif
