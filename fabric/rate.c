/*
 * Link-rate policy: the rate a port runs, the best rate a link's two ends
 * allow, and when a link counts as degraded (IBA 14.2.5.6 width and speed
 * codes).
 */
#include "rate.h"
#include "names.h"

#include <string.h>

unsigned ibs_width_lanes(unsigned w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

unsigned ibs_speed_mbps(unsigned speed, unsigned ext)
{
	switch (ext) {
	case IBS_SPEED_EXT_FDR10:
		return 10312;
	case 1:
		return 14062;
	case 2:
		return 25781;
	case 4:
		return 53125;
	case 8:
		return 106250;
	case IBS_SPEED_EXT_XDR:
		return 212500;
	default:
		break;
	}
	switch (speed) {
	case 1:
		return 2500;
	case 2:
		return 5000;
	case 4:
		return 10000;
	default:
		return 0;
	}
}

void ibs_port_active_rate(const struct ibs_port *p, struct ibs_link_rate *r)
{
	memset(r, 0, sizeof(*r));
	if (!p->valid)
		return;
	r->width = p->pi.width_active;
	r->speed_ext = p->pi.speed_ext_active;
	r->speed = r->speed_ext ? 0 : p->pi.speed_active;
}

static unsigned best_width(unsigned mask)
{
	/* Rank by lanes: 12x > 8x > 4x > 2x > 1x. */
	static const unsigned order[] = { 8, 4, 2, 16, 1 };
	unsigned i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (mask & order[i])
			return order[i];
	return 0;
}

/* The fastest extended speed in a set of them, or 0. */
static unsigned fastest_ext(unsigned set)
{
	unsigned i;

	for (i = IBS_N_EXT_SPEEDS; i--;)
		if (set & ibs_ext_speeds[i])
			return ibs_ext_speeds[i];
	return 0;
}

bool ibs_link_best_rate(const struct ibs_port *a, const struct ibs_port *b, struct ibs_link_rate *r)
{
	unsigned w, s, x;

	memset(r, 0, sizeof(*r));
	if (!a->valid || !b->valid)
		return false;
	w = (a->pi.width_enabled & a->pi.width_supported) & (b->pi.width_enabled & b->pi.width_supported);
	s = (a->pi.speed_enabled & a->pi.speed_supported) & (b->pi.speed_enabled & b->pi.speed_supported);
	x = (a->pi.speed_ext_enabled & a->pi.speed_ext_supported) &
	    (b->pi.speed_ext_enabled & b->pi.speed_ext_supported);
	r->width = best_width(w);
	if (x) {
		r->speed_ext = fastest_ext(x);
	} else {
		unsigned bit;
		for (bit = 4; bit; bit >>= 1)
			if (s & bit) {
				r->speed = bit;
				break;
			}
	}
	return r->width && (r->speed || r->speed_ext);
}

/* The best rate one port supports and has enabled. */
static void port_best(const struct ibs_port *p, struct ibs_link_rate *r)
{
	unsigned bit;

	memset(r, 0, sizeof(*r));
	r->width = best_width(p->pi.width_enabled & p->pi.width_supported);
	r->speed_ext = fastest_ext(p->pi.speed_ext_enabled & p->pi.speed_ext_supported);
	if (r->speed_ext)
		return;
	for (bit = 4; bit; bit >>= 1)
		if (p->pi.speed_enabled & p->pi.speed_supported & bit) {
			r->speed = bit;
			return;
		}
}

bool ibs_link_degraded(const struct ibs_port *a, const struct ibs_port *b, const char **why)
{
	struct ibs_link_rate best, act, ba, bb;
	unsigned lanes, mbps;

	if (!ibs_link_best_rate(a, b, &best))
		return false;
	ibs_port_active_rate(a, &act);
	if (a->pi.state != 4 && a->pi.phys_state != 5)
		return false;
	lanes = ibs_width_lanes(act.width);
	mbps = ibs_speed_mbps(act.speed, act.speed_ext);
	/* Trained below what both ends allow: a bad lane, cable or connector. */
	if (lanes < ibs_width_lanes(best.width)) {
		if (why)
			*why = "width";
		return true;
	}
	if (mbps < ibs_speed_mbps(best.speed, best.speed_ext)) {
		if (why)
			*why = "speed";
		return true;
	}
	/*
	 * Held down by one end: one port allows less than the other, so the link
	 * runs at the lower (e.g. a port narrowed to 1x facing a 4x port).
	 */
	port_best(a, &ba);
	port_best(b, &bb);
	if (lanes < ibs_width_lanes(ba.width) || lanes < ibs_width_lanes(bb.width)) {
		if (why)
			*why = "width";
		return true;
	}
	if (mbps < ibs_speed_mbps(ba.speed, ba.speed_ext) || mbps < ibs_speed_mbps(bb.speed, bb.speed_ext)) {
		if (why)
			*why = "speed";
		return true;
	}
	return false;
}


/*
 * The fastest speed and widest width the node runs, or supports and has
 * enabled, on any external port. Ports whose PortInfo was not read count
 * with what their link runs.
 */
static void node_best(const struct ibs_node *n, unsigned *mbps, unsigned *lanes)
{
	const struct ibs_port *pt;

	*mbps = *lanes = 0;
	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
		struct ibs_link_rate r;
		unsigned m, l;
		if (!pt->valid)
			continue;
		if (pt->pi.phys_state == 5) {
			ibs_port_active_rate(pt, &r);
			if (ibs_speed_mbps(r.speed, r.speed_ext) > *mbps)
				*mbps = ibs_speed_mbps(r.speed, r.speed_ext);
			if (ibs_width_lanes(r.width) > *lanes)
				*lanes = ibs_width_lanes(r.width);
		}
		if (pt->inferred)
			continue;
		port_best(pt, &r);
		m = ibs_speed_mbps(r.speed, r.speed_ext);
		l = ibs_width_lanes(r.width);
		if (m > *mbps)
			*mbps = m;
		if (l > *lanes)
			*lanes = l;
	}
}

bool ibs_node_link_degraded(const struct ibs_node *na, uint8_t pa, const struct ibs_node *nb, uint8_t pb,
			    const char **why)
{
	const struct ibs_port *a = ibs_node_port(na, pa), *b = ibs_node_port(nb, pb);
	struct ibs_link_rate act;
	unsigned ma, mb, la, lb;

	if (!a || !b || !a->valid || !b->valid)
		return false;
	if (ibs_link_degraded(a, b, why) || ibs_link_degraded(b, a, why))
		return true;
	if (a->pi.state != 4 && a->pi.phys_state != 5)
		return false;
	/*
	 * Both nodes run faster links on other ports, so this one could too (a
	 * slowed link whose ends no longer advertise the faster speed, as ibsim
	 * and some firmware do after training down).
	 */
	ibs_port_active_rate(a, &act);
	node_best(na, &ma, &la);
	node_best(nb, &mb, &lb);
	if (ibs_width_lanes(act.width) < (la < lb ? la : lb)) {
		if (why)
			*why = "width";
		return true;
	}
	if (ibs_speed_mbps(act.speed, act.speed_ext) < (ma < mb ? ma : mb)) {
		if (why)
			*why = "speed";
		return true;
	}
	return false;
}
