/* The route check's view (`ibscan routes --check`): status line, summary, findings, credit loops, balance. */
#ifndef IBSCAN_OUT_ROUTECHECK_H
#define IBSCAN_OUT_ROUTECHECK_H

#include "emit.h"
#include "../fabric/check/routecheck.h"

#define IBS_ROUTECHECK_SCHEMA "ibscan.routecheck/2"
/* The pairs of each SL that `routes --check --json` lists in its pathrecords. */
#define IBS_RC_PATHRECORD_SAMPLE 8
#define IBS_ROUTETHROUGH_SCHEMA "ibscan.routethrough/1"
#define IBS_ROUTEJOB_SCHEMA "ibscan.routejob/1"

void render_routecheck(struct emit *e, const struct ibs_routecheck *rc);
/* routes --through: the cable at n's port and the CAs whose routes cross it. */
void render_route_through(struct emit *e, const struct ibs_fabric *f, const struct ibs_routecheck *rc,
			  const struct ibs_node *n, uint8_t port);
/* routes --nodes: the links a job's routes share, most shared first. */
void render_route_job(struct emit *e, const struct ibs_routecheck *rc);

#endif
