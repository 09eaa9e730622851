/* What two readings of a port's PMA counters say (counters_delta.c). */
#ifndef IBSCAN_COUNTERS_DELTA_H
#define IBSCAN_COUNTERS_DELTA_H

#include "counters_defs.h"
#include "../model/model.h"

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

#endif
