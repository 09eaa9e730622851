/*
 * The directed-route walker: breadth-first from the local port, level by
 * level, so that the path that reaches each node (and so every request, and
 * the output) does not depend on the order responses arrive in.
 */
#ifndef IBSCAN_WALK_H
#define IBSCAN_WALK_H

#include "../model/model.h"
#include "run.h"
#include "../../core/mad/engine.h"

struct ibs_walk_opts {
	bool gids;      /* read GUIDInfo for ports with more than one GUID */
	bool sm;        /* read SMInfo from the master and every IsSM port */
	void (*progress)(void *ctx, const struct ibs_fabric *f, const struct ibs_engine_stats *s);
	void *progress_ctx;
	bool dr_only;   /* directed routes only, never a LID (else LID-routed once a node's LID is known) */
};

/*
 * Walk the fabric into f (which must be empty, with f->local filled in).
 * IBS_OK when the walk ran to the end (f->partial says whether everything
 * answered); IBS_E_DEADLINE or IBS_E_TRANSPORT when it stopped early, with
 * what was found so far kept in f and run->aborted set. run->stats gets the
 * engine's statistics at the end.
 */
enum ibs_err ibs_walk(struct ibs_engine *e, struct ibs_fabric *f, struct ibs_run *run, const struct ibs_walk_opts *o);

/*
 * Whether er leaves a neighbour undiscovered: whatever is cabled to port
 * er->port of er->node, which its NodeInfo (or the port's PortInfo, without
 * which the port is not probed) did not reach. A node that is missing from
 * a partial walk lies behind such a port, or behind missing nodes only.
 */
bool ibs_walk_error_hides_neighbour(const struct ibs_walk_error *er);

#endif
