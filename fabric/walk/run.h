/*
 * The state of one run, beside the fabric it read: what the source could
 * not tell, whether the run stopped early and why, whether counters were
 * read, and the engine's statistics. The fabric (model.h) holds what the
 * fabric is; the run holds how this look at it went. Renderers and checks
 * that say something about the run take both.
 *
 * `partial` stays in the fabric: it says that part of this fabric is
 * missing or unread (f->errors lists what, and a saved topology carries
 * it), whatever the cause. When the cause is the run stopping early,
 * run->aborted says so and why.
 *
 * Ownership: the run owns abort_reason (ibs_run_free).
 */
#ifndef IBSCAN_RUN_H
#define IBSCAN_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "../../core/base/err.h"
#include "../../core/mad/engine.h"

/*
 * What a fabric's source cannot tell: an ibnetdiscover cache holds only the
 * walk (no SMInfo, counters, forwarding tables, path records or GID
 * tables); a capture holds only the answers its run asked for.
 */
enum {
	IBS_LACK_SMINFO = 1 << 0,
	IBS_LACK_PMA = 1 << 1,
	IBS_LACK_LFT = 1 << 2,
	IBS_LACK_SA = 1 << 3,
	IBS_LACK_GUIDINFO = 1 << 4,
	IBS_LACK_ALL = (1 << 5) - 1,
};
/* What one IBS_LACK_* bit stands for: "forwarding tables (LinearForwardingTable)". */
const char *ibs_lack_str(unsigned bit);

struct ibs_run {
	unsigned lacks;           /* IBS_LACK_*: what the source cannot tell */
	bool aborted;             /* the run stopped early (deadline, transport) */
	char *abort_reason;
	size_t n_aborted;         /* queries cut off by the abort */
	bool counters_read;       /* PMA counters were read into port->ctr */
	bool no_lids;             /* ... but could not be: no port has a LID, or the local port is not Active */
	uint8_t local_state;      /* with no_lids: the local port's PortState when that is why (not 4), else 0 */
	double interval_s;        /* the wait between two counter readings (each port's own time is in its ctr), or 0 */
	struct ibs_engine_stats stats; /* the engine's, when the walk ended */
	size_t replay_misses;     /* requests a replayed capture held no answer for */
	bool record_failed;       /* --record's capture could not be written whole (said) */
};

/*
 * The run stopped early with rc (IBS_E_DEADLINE: the global deadline;
 * anything else: the transport): set aborted and the reason, unless an
 * earlier stop said so already.
 */
void ibs_run_abort(struct ibs_run *r, enum ibs_err rc);
void ibs_run_free(struct ibs_run *r);

#endif
