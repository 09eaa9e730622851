/*
 * Reading every port's PMA counters through the engine (many in flight):
 * ClassPortInfo once per node to learn whether PortCountersExtended is
 * there, then PortCounters (and PortCountersExtended) per linked port.
 */
#ifndef IBSCAN_COUNTERS_H
#define IBSCAN_COUNTERS_H

#include "../model/model.h"
#include "run.h"
#include "../../core/mad/engine.h"
#include "counters_opts.h"
#include "counters_defs.h"
#include "counters_delta.h"
#include "counters_port.h"
#include "counters_id.h"

/*
 * Fill port->ctr for every linked port of every node with a LID. Ports
 * whose PMA did not answer get ctr->ok false and the outcome. Sets
 * run->counters_read; without LIDs (no SM) nothing can be read: run->no_lids
 * is set. Returns the engine's result.
 */
enum ibs_err ibs_read_counters(struct ibs_engine *e, struct ibs_fabric *f, struct ibs_run *run,
			       const struct ibs_counter_opts *o);

/*
 * Read the counters twice: ibs_read_counters, a wait of interval_s once every
 * port has answered, and again (o->reset applies to the second reading
 * only). Each port keeps its first reading in ctr->prev; deltas and rates are
 * over the time between its two answers (ctr->prev_t_ns to ctr->t_ns), which
 * is longer than interval_s by the time the readings take; run->interval_s
 * says the wait. IBS_E_DEADLINE, without waiting, when the engine's deadline
 * would pass during the wait.
 */
enum ibs_err ibs_read_counters_interval(struct ibs_engine *e, struct ibs_fabric *f, struct ibs_run *run,
					const struct ibs_counter_opts *o, double interval_s);

#endif
