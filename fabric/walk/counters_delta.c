/*
 * What two readings of a port's PMA counters say (counters.h): each
 * counter's rise (PortCounters saturate rather than wrap, IBA 16.1.3.5),
 * the data counters' rise, the time between, and PortXmitWait as ticks per
 * second and as the share of that time the port waited (its tick from
 * PortSamplesControl, IBA 16.1.3.2).
 */
#include "counters.h"
#include "../model/rate.h"

#include <inttypes.h>
#include <stdio.h>

/* now - before of a counter of `bits` bits that saturates: false when at the maximum or gone down. */
static bool saturating_delta(uint64_t before, uint64_t now, unsigned bits, uint64_t *delta)
{
	uint64_t max = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;

	if (before >= max || now >= max || now < before)
		return false;
	*delta = now - before;
	return true;
}

unsigned ibs_counter_bits(const struct ibs_port_counters *c, const struct ibs_counter_def *d)
{
	/* Every counter of ibs_counter_defs is among PortCountersExtended's additional ones. */
	(void)d;
	return c->ext_errors ? 64 : d->bits;
}

bool ibs_port_counter_delta(const struct ibs_port_counters *c, const struct ibs_counter_def *d, uint64_t *delta)
{
	if (!c->have_prev || !c->ok || !ibs_counter_known(c, d) || c->ext_errors != c->prev_ext_errors)
		return false;
	return saturating_delta(ibs_counter_get(&c->prev, d), ibs_counter_get(&c->c, d), ibs_counter_bits(c, d),
				delta);
}

bool ibs_port_data_delta(const struct ibs_port_counters *c, bool xmit, uint64_t *words)
{
	if (!c->have_prev || !c->ok || c->extended != c->prev_extended)
		return false;
	return saturating_delta(xmit ? c->prev.xmit_data : c->prev.rcv_data, xmit ? c->c.xmit_data : c->c.rcv_data,
				c->extended ? 64 : 32, words);
}

double ibs_port_counters_elapsed(const struct ibs_port_counters *c)
{
	if (!c->have_prev || !c->ok || c->t_ns <= c->prev_t_ns)
		return 0;
	return (double)(c->t_ns - c->prev_t_ns) / 1e9;
}

bool ibs_port_xmit_wait_rate(const struct ibs_port_counters *c, double *tps)
{
	const struct ibs_counter_def *d = ibs_counter_find("PortXmitWait");
	double dt = ibs_port_counters_elapsed(c);
	uint64_t w;

	if (dt <= 0 || !d || !ibs_port_counter_delta(c, d, &w))
		return false;
	*tps = (double)w / dt;
	return true;
}

/* NVIDIA's (Mellanox's) IEEE OUI, NodeInfo VendorID. */
#define IBS_VENDOR_NVIDIA 0x0002c9

bool ibs_port_xmit_wait_share(const struct ibs_node *n, const struct ibs_port *pt, double *tick_s, double *share,
			      char *why, size_t len)
{
	return ibs_xmit_wait_share(n, pt, pt->ctr, pt->ctr ? ibs_port_counters_elapsed(pt->ctr) : 0, tick_s, share, why,
				   len);
}

bool ibs_xmit_wait_tick_documented(const struct ibs_node *n, const struct ibs_port_counters *c)
{
	/*
	 * Only NVIDIA's switches have a published rule (ibdiagnet manual,
	 * "Congestion Assessment on InfiniBand Links": Tick 7 on Quantum to
	 * Quantum-3, Tick 31 on Switch-X to Switch-IB 2). ConnectX HCAs answer
	 * PortSamplesControl from firmware (the kernel's mlx5 driver passes PMA
	 * MADs it does not serve itself to MAD_IFC), and neither NVIDIA's
	 * documents, rdma-core nor the kernel say how their PortXmitWait tick
	 * counts: for them, as for other vendors, the IBA rule is an assumption.
	 */
	return c && c->det[IBS_DET_PSC].state == IBS_DET_OK && n->ni.vendor_id == IBS_VENDOR_NVIDIA &&
	       n->ni.node_type == IBS_NODE_SWITCH && (c->d.psc_tick == 7 || c->d.psc_tick == 31);
}

/*
 * The length of one PortXmitWait tick of port pt (its PMA's reading c) into
 * *tick_s: PortSamplesControl's Tick and the port's active speed (and
 * width, for NVIDIA's switches that count per port); false, and why, where
 * it cannot be known.
 */
static bool xmit_wait_tick(const struct ibs_node *n, const struct ibs_port *pt, const struct ibs_port_counters *c,
			   double *tick_s, char *why, size_t len)
{
	unsigned mbps, lanes, tick;
	double sym;

	if (c->det[IBS_DET_PSC].state != IBS_DET_OK) {
		if (!ibs_port_details_why(c, IBS_DET_PSC, why, len))
			snprintf(why, len, "PortSamplesControl not asked");
		return false;
	}
	mbps = pt->valid ? ibs_speed_data_mbps(pt->pi.speed_active, pt->pi.speed_ext_active) : 0;
	lanes = pt->valid ? ibs_width_lanes(pt->pi.width_active) : 0;
	if (!mbps || !lanes) {
		snprintf(why, len, "the port's link speed or width is not known");
		return false;
	}
	tick = (unsigned)c->d.psc_tick;
	sym = 8.0 / ((double)mbps * 1e6);
	/*
	 * IBA: a tick is Tick + 1 symbol times of one lane. NVIDIA's Quantum,
	 * Quantum-2 and Quantum-3 switches say Tick 7 and count 8 bytes of the
	 * whole port, whatever its width (ibdiagnet manual, "Congestion
	 * Assessment on InfiniBand Links"); Switch-IB and Switch-X say 31 and
	 * count per lane, as the IBA has it.
	 */
	*tick_s = (tick + 1) * sym;
	if (n->ni.vendor_id == IBS_VENDOR_NVIDIA && n->ni.node_type == IBS_NODE_SWITCH && tick == 7)
		*tick_s /= lanes;
	return true;
}

bool ibs_port_xmit_wait_tick(const struct ibs_node *n, const struct ibs_port *pt, const struct ibs_port_counters *c,
			     double *tick_s)
{
	char why[192];

	*tick_s = 0;
	return c && c->ok && xmit_wait_tick(n, pt, c, tick_s, why, sizeof(why));
}

/* w ticks of tick_s in dt seconds as a share: false (and why) above 1, where the PMA counts its tick otherwise. */
static bool wait_share(const char *what, uint64_t w, double tick_s, double dt, double *share, char *why, size_t len)
{
	*share = (double)w * tick_s / dt;
	if (*share <= 1.0)
		return true;
	snprintf(why, len, "%s rose by %" PRIu64 " ticks of %.3g ns in %.3f s, more than the time: "
		 "the PMA counts its tick otherwise", what, w, tick_s * 1e9, dt);
	*share = 0;
	return false;
}

bool ibs_xmit_wait_share(const struct ibs_node *n, const struct ibs_port *pt, const struct ibs_port_counters *c,
			 double dt, double *tick_s, double *share, char *why, size_t len)
{
	const struct ibs_counter_def *d = ibs_counter_find("PortXmitWait");
	uint64_t w;

	*tick_s = 0;
	*share = 0;
	snprintf(why, len, "no interval");
	if (!c || dt <= 0 || !d)
		return false;
	if (!ibs_counter_known(c, d)) {
		snprintf(why, len, "the PMA does not count PortXmitWait");
		return false;
	}
	if (!ibs_port_counter_delta(c, d, &w)) {
		snprintf(why, len, "PortXmitWait's rise is not known");
		return false;
	}
	if (!w)
		return true; /* it never waited: 0 whatever the tick */
	if (!xmit_wait_tick(n, pt, c, tick_s, why, len))
		return false;
	return wait_share("PortXmitWait", w, *tick_s, dt, share, why, len);
}

bool ibs_xmit_wait_vl_share(const struct ibs_node *n, const struct ibs_port *pt, const struct ibs_port_counters *c,
			    double dt, unsigned vl, uint64_t *ticks, double *share)
{
	uint64_t before, now;
	double tick_s;
	char why[192], what[24];

	*share = 0;
	*ticks = 0;
	if (!c || dt <= 0 || vl >= IBS_N_VL || !c->ok || !c->prev_vl_ok || c->det[IBS_DET_VL_WAIT].state != IBS_DET_OK)
		return false;
	before = c->prev_vl[vl];
	now = c->d.vl_xmit_wait[vl];
	/* 16 bits, stopping at 65535 like the PortCounters (IBA 16.1.4.8): a maximum hides the rise. */
	if (before >= 0xffff || now >= 0xffff || now < before)
		return false;
	*ticks = now - before;
	if (!*ticks)
		return true;
	if (!xmit_wait_tick(n, pt, c, &tick_s, why, sizeof(why)))
		return false;
	snprintf(what, sizeof(what), "PortVLXmitWait%u", vl);
	return wait_share(what, *ticks, tick_s, dt, share, why, sizeof(why));
}

bool ibs_xmit_wait_vl_saturated(const struct ibs_port_counters *c, unsigned vl)
{
	if (!c || vl >= IBS_N_VL || !c->ok)
		return false;
	return (c->det[IBS_DET_VL_WAIT].state == IBS_DET_OK && c->d.vl_xmit_wait[vl] >= 0xffff) ||
	       (c->prev_vl_ok && c->prev_vl[vl] >= 0xffff);
}
