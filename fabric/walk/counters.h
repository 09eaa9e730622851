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
/*
 * PortXmitWait between a port's two readings, in ticks per second (*tps):
 * false where its delta cannot be known (not counted, saturated, cleared).
 */
bool ibs_port_xmit_wait_rate(const struct ibs_port_counters *c, double *tps);
/*
 * The share of the time between a port's two readings during which it
 * had data to send and sent nothing: PortXmitWait's rise x the tick / the
 * seconds, the tick (*tick_s) from PortSamplesControl's Tick and the
 * port's active speed (and width, for the NVIDIA switches that count per
 * port: docs/checks.md). 0 with *tick_s 0 where PortXmitWait did not
 * rise. False, and why into why, where it cannot be known: no interval,
 * no PortXmitWait, its rise unknown, PortSamplesControl not answered (no
 * tick is assumed: ibsim drops it), the speed unknown, or a share above
 * 1 (the PMA does not count its tick as the IBA says).
 */
bool ibs_port_xmit_wait_share(const struct ibs_node *n, const struct ibs_port *pt, double *tick_s, double *share,
			      char *why, size_t len);
/*
 * Whether the tick's length for n's PMA follows a published rule (NVIDIA's
 * switches that say Tick 7 or 31: ibdiagnet manual), or only the IBA's
 * definition read as it is, an assumption (ConnectX HCAs, other vendors):
 * docs/checks.md. The renderers and the finding say which.
 */
bool ibs_xmit_wait_tick_documented(const struct ibs_node *n, const struct ibs_port_counters *c);
/*
 * The length of one PortXmitWait tick of port pt in reading c into
 * *tick_s, as the shares use it: false where PortSamplesControl was not
 * read (only ports whose PortXmitWait rose ask) or the speed is unknown.
 */
bool ibs_port_xmit_wait_tick(const struct ibs_node *n, const struct ibs_port *pt, const struct ibs_port_counters *c,
			     double *tick_s);
/* The same of readings c (prev and c) dt seconds apart: health --state's since the last run. */
bool ibs_xmit_wait_share(const struct ibs_node *n, const struct ibs_port *pt, const struct ibs_port_counters *c,
			 double dt, double *tick_s, double *share, char *why, size_t len);
/*
 * The same for VL vl (PortVLXmitWaitCounters, 16 bits): its rise between
 * the earlier reading's VL counters (c->prev_vl, kept by the state and the
 * exporter where they were read) and this one's, into *ticks, and the
 * share of dt it waited (the port's tick). False where unknown: either
 * reading has no VL counters, one is at 65535 or went down, no tick, or a
 * share above 1. With --interval both readings ask them (vl_wait_all).
 */
bool ibs_xmit_wait_vl_share(const struct ibs_node *n, const struct ibs_port *pt, const struct ibs_port_counters *c,
			    double dt, unsigned vl, uint64_t *ticks, double *share);
/*
 * Whether VL vl's PortVLXmitWaitCounters stopped at 65535 in c or its
 * earlier reading (c->prev_vl): its rise, and so its share, is unknown
 * until the counters are cleared (--reset-counters clears them).
 */
bool ibs_xmit_wait_vl_saturated(const struct ibs_port_counters *c, unsigned vl);
/* Seconds between a port's two readings, or 0 when it has not two. */
double ibs_port_counters_elapsed(const struct ibs_port_counters *c);

/*
 * Before the second reading of --interval: ask each PMA's LID for its
 * NodeInfo (LID-routed) and mark every port whose LID now leads to another
 * node, or another port of it, IBS_CTR_MOVED (and the fabric partial), so
 * that no other node's traffic is reported as its delta (counters_id.c).
 */
enum ibs_err ibs_counters_confirm(struct ibs_engine *e, struct ibs_fabric *f);
/* Why port p's counters are missing with no answer asked for (ctr->not_read), or NULL. */
const char *ibs_port_counters_why(const struct ibs_node *n, const struct ibs_port *p);

/* The ports whose counters ibs_read_counters reads (some, by their state, with no request: ctr->not_read). */
bool ibs_port_wants_counters(const struct ibs_node *n, const struct ibs_port *p);
/* LID to address a node's PMA: a switch's port 0, else the port's own. */
uint16_t ibs_port_pma_lid(const struct ibs_node *n, const struct ibs_port *p);

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
/* How wide counter d is in this reading: 64 bits where PortCountersExtended gave it (c->ext_errors). */
unsigned ibs_counter_bits(const struct ibs_port_counters *c, const struct ibs_counter_def *d);
/*
 * How much counter d rose between the port's two readings, into *delta;
 * false when that cannot be known. PortCounters stop at their maximum
 * rather than wrap (IBA 16.1.3.5): a reading at the maximum hides how far
 * the counter went. A reading below the one before means the counters were
 * cleared in between (perfquery -R, a PerfMgr).
 */
bool ibs_port_counter_delta(const struct ibs_port_counters *c, const struct ibs_counter_def *d, uint64_t *delta);
/*
 * The same for the data counters (PortXmitData, PortRcvData: 4-octet
 * words), which must also be of one width both times (both from
 * PortCountersExtended, or both 32-bit from PortCounters).
 */
bool ibs_port_data_delta(const struct ibs_port_counters *c, bool xmit, uint64_t *words);

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
