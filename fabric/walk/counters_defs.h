/* What the PMA's counters and their details are, and what a port's reading of the details says (counters_defs.c). */
#ifndef IBSCAN_COUNTERS_DEFS_H
#define IBSCAN_COUNTERS_DEFS_H

#include "../model/model.h"

#define IBS_THRESHOLD_OFF UINT64_MAX

/* The error counters health looks at, by IBA name, with accessors. */
struct ibs_counter_def {
	const char *name;      /* IBA name, e.g. "SymbolErrorCounter" */
	const char *key;       /* JSON / Prometheus key, e.g. "symbol_errors" */
	size_t offset;         /* in struct ibs_pma_counters */
	bool error;            /* an error counter (false: congestion or data) */
	uint64_t threshold;    /* default threshold for health (IBS_THRESHOLD_OFF: no finding unless one is set) */
	unsigned bits;         /* width on the wire (saturates at 2^bits - 1) */
};

extern const struct ibs_counter_def ibs_counter_defs[];
extern const size_t ibs_n_counter_defs;
static inline uint64_t ibs_counter_get(const struct ibs_pma_counters *c, const struct ibs_counter_def *d)
{
	return *(const uint64_t *)((const char *)c + d->offset);
}
const struct ibs_counter_def *ibs_counter_find(const char *name);
/* False for a counter the port's PMA said it does not keep (PortXmitWait without its capability bit). */
bool ibs_counter_known(const struct ibs_port_counters *c, const struct ibs_counter_def *d);

/*
 * The members of PortRcvErrorDetails and PortXmitDiscardDetails (IBA
 * 16.1.4.1-2) and PortVLXmitWaitCounters (16.1.4.8, one per VL), read
 * where PortRcvErrors, PortXmitDiscards or PortXmitWait moved: above 0,
 * and with --interval risen between the two readings (counters_details.c).
 * --reset-counters clears PortCounters and the PortVLXmitWaitCounters read,
 * never the error details.
 */
struct ibs_detail_def {
	const char *name;   /* IBA name, e.g. "PortLocalPhysicalErrors" (JSON key) */
	const char *reason; /* in text, e.g. "LocalPhysical", "VL3" */
	const char *key;    /* Prometheus label value (ibs_det_label's), e.g. "local_physical", "3" */
	size_t offset;      /* in struct ibs_pma_details */
	uint8_t det;        /* IBS_DET_RCV, IBS_DET_XMIT or IBS_DET_VL_WAIT */
};
extern const struct ibs_detail_def ibs_detail_defs[];
extern const size_t ibs_n_detail_defs;
static inline uint64_t ibs_detail_get(const struct ibs_pma_details *c, const struct ibs_detail_def *d)
{
	return *(const uint64_t *)((const char *)c + d->offset);
}
/* "PortRcvErrorDetails" / "PortXmitDiscardDetails" / "PortVLXmitWaitCounters". */
const char *ibs_det_attr_name(unsigned det);
/* "rcv_error_details" / "xmit_discard_details" / "vl_xmit_wait" (JSON key, Prometheus family). */
const char *ibs_det_key(unsigned det);
/* The Prometheus label its members are told apart by: "reason", or "vl". */
const char *ibs_det_label(unsigned det);
/* The summary counter the attribute details (PortRcvErrors, PortXmitDiscards, PortXmitWait). */
const struct ibs_counter_def *ibs_det_summary(unsigned det);
/* Which details attribute explains counter d: IBS_DET_RCV, IBS_DET_XMIT, IBS_DET_VL_WAIT, or -1. */
int ibs_counter_det(const struct ibs_counter_def *d);
/* "LocalPhysical 700, MalformedPacket 77", "VL0 12, VL3 500" (or "every detail 0") into buf; false where not read. */
bool ibs_port_details_str(const struct ibs_port_counters *c, unsigned det, char *buf, size_t len);
/* Why the details were asked for and are not known ("PortRcvErrorDetails not answered: ..."), or NULL. */
const char *ibs_port_details_why(const struct ibs_port_counters *c, unsigned det, char *buf, size_t len);

#endif
