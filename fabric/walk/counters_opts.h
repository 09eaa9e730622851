/* What a reading of the counters is asked to do (ibs_read_counters, counters.h). */
#ifndef IBSCAN_COUNTERS_OPTS_H
#define IBSCAN_COUNTERS_OPTS_H

#include <stdbool.h>

struct ibs_counter_opts {
	bool reset;    /* clear the counters after reading (Set with CounterSelect all) */
	bool extended; /* also 64-bit data counters (ClassPortInfo, PortCountersExtended) */
	bool first_of_two; /* the first reading of --interval: no details (only the second knows what rose) */
	/*
	 * Ask PortSamplesControl where PortXmitWait is above 0 in a single
	 * reading too: health --state makes a share of its rise since the last run.
	 */
	bool tick;
	/*
	 * The fabric's counters were read before (the exporter's counters-only
	 * sweep of a fabric walked before): that reading becomes each port's
	 * first one, and each PMA's LID is asked who it is first, as before the
	 * second reading of --interval (ibs_counters_confirm).
	 */
	bool again;
	/*
	 * Ask PortVLXmitWaitCounters of every port whose PMA's ClassPortInfo
	 * says it counts PortXmitWait, whatever moved, in this reading too
	 * (both readings of --interval: a VL's rise needs both, and a VL can
	 * wait while its port sends another VL's data).
	 */
	bool vl_wait_all;
};

#endif
