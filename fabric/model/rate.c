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

unsigned ibs_speed_data_mbps(unsigned speed, unsigned ext)
{
	switch (ext) {
	case IBS_SPEED_EXT_FDR10:
		return 10000;
	case 1:
		return 13636; /* 14.0625 Gb/s x 64/66 */
	case 2:
		return 25000;
	case 4:
		return 50000;
	case 8:
		return 100000;
	case IBS_SPEED_EXT_XDR:
		return 200000;
	default:
		break;
	}
	return ibs_speed_mbps(speed, 0) * 8 / 10;
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

bool ibs_link_degraded(const struct ibs_port *a, const struct ibs_port *b, const char **why)
{
	struct ibs_link_rate best, act;

	if (!ibs_link_best_rate(a, b, &best))
		return false;
	if (!ibs_portinfo_active(&a->pi) && !ibs_portinfo_linkup(&a->pi))
		return false;
	ibs_port_active_rate(a, &act);
	/*
	 * Trained below what both ends support and enable together (a bad lane,
	 * cable or connector). What only one end could run is no measure: an EDR
	 * HCA on an HDR switch port runs EDR as it should (iblinkinfo's "Could
	 * be" and ibportstate's validate_width take the intersection too).
	 */
	if (ibs_width_lanes(act.width) < ibs_width_lanes(best.width)) {
		if (why)
			*why = "width";
		return true;
	}
	if (ibs_speed_mbps(act.speed, act.speed_ext) < ibs_speed_mbps(best.speed, best.speed_ext)) {
		if (why)
			*why = "speed";
		return true;
	}
	return false;
}

/* The widest width (in lanes) in a set of width codes. */
static unsigned max_lanes(unsigned set)
{
	return ibs_width_lanes(best_width(set));
}

/* The fastest lane rate in a set of LinkSpeed codes and one of extended speeds. */
static unsigned max_mbps(unsigned speeds, unsigned exts)
{
	unsigned m = ibs_speed_mbps(0, fastest_ext(exts)), bit;

	for (bit = 4; bit; bit >>= 1)
		if ((speeds & bit) && ibs_speed_mbps(bit, 0) > m)
			m = ibs_speed_mbps(bit, 0);
	return m;
}

bool ibs_link_held_down(const struct ibs_port *x, const struct ibs_port *y, const char **why)
{
	struct ibs_link_rate act;
	unsigned w, s, e;

	if (!x->valid || !y->valid || !ibs_portinfo_active(&x->pi) || !ibs_portinfo_active(&y->pi))
		return false;
	if (ibs_link_degraded(x, y, NULL) || ibs_link_degraded(y, x, NULL))
		return false;
	ibs_port_active_rate(x, &act);
	/*
	 * What x supports but has not enabled, and y supports and has enabled:
	 * enabling it at x alone would let the link run faster.
	 */
	w = x->pi.width_supported & ~x->pi.width_enabled & y->pi.width_supported & y->pi.width_enabled;
	s = x->pi.speed_supported & ~x->pi.speed_enabled & y->pi.speed_supported & y->pi.speed_enabled;
	e = x->pi.speed_ext_supported & ~x->pi.speed_ext_enabled & y->pi.speed_ext_supported & y->pi.speed_ext_enabled;
	if (max_lanes(w) > ibs_width_lanes(act.width)) {
		if (why)
			*why = "width";
		return true;
	}
	if (max_mbps(s, e) > ibs_speed_mbps(act.speed, act.speed_ext)) {
		if (why)
			*why = "speed";
		return true;
	}
	return false;
}

bool ibs_node_link_degraded(const struct ibs_node *na, uint8_t pa, const struct ibs_node *nb, uint8_t pb,
			    const char **why)
{
	const struct ibs_port *a = ibs_node_port(na, pa), *b = ibs_node_port(nb, pb);

	if (!a || !b || !a->valid || !b->valid)
		return false;
	return ibs_link_degraded(a, b, why) || ibs_link_degraded(b, a, why);
}
