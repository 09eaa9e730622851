/*
 * Link-rate policy: lanes and lane rates of PortInfo's width and speed
 * codes (IBA 14.2.5.6), the rate a port runs, the best rate a link's two
 * ends support and have enabled, and whether a link runs below it.
 */
#ifndef IBSCAN_RATE_H
#define IBSCAN_RATE_H

#include "model.h"

unsigned ibs_width_lanes(unsigned width);
/* Lane rate in Mb/s for ranking speeds (0 when unknown). */
unsigned ibs_speed_mbps(unsigned speed, unsigned speed_ext);
/*
 * A lane's data rate in Mb/s, its signalling rate less the line code
 * (8b/10b SDR to QDR, 64b/66b FDR10 to EDR; HDR, NDR, XDR at their
 * nominal 50, 100, 200 Gb/s): 8 bits over it is the symbol time, one
 * byte on one lane (4 ns at SDR). 0 when unknown.
 */
unsigned ibs_speed_data_mbps(unsigned speed, unsigned speed_ext);

/* Link quality (IBA 14.2.5.6 width/speed codes). */
struct ibs_link_rate {
	unsigned width;   /* width code (1x=1, 4x=2, 8x=4, 12x=8, 2x=16), 0 unknown */
	unsigned speed;   /* LinkSpeed code, 0 when an extended speed applies */
	unsigned speed_ext;
};
/* Active rate of a port, from its PortInfo. */
void ibs_port_active_rate(const struct ibs_port *p, struct ibs_link_rate *r);
/* The best rate both ends support and have enabled; false when unknown. */
bool ibs_link_best_rate(const struct ibs_port *a, const struct ibs_port *b, struct ibs_link_rate *r);
/*
 * a's active width or speed is below the best both ends support and enable
 * together: set *why to "width" or "speed".
 */
bool ibs_link_degraded(const struct ibs_port *a, const struct ibs_port *b, const char **why);
/*
 * Not degraded, but held down by configuration at x: x supports and has
 * not enabled a width or speed that y supports and has enabled, faster
 * than the link runs. Both ends Active. *why is "width" or "speed".
 */
bool ibs_link_held_down(const struct ibs_port *x, const struct ibs_port *y, const char **why);
/* The link's degraded check as health runs it: either end's view. */
bool ibs_node_link_degraded(const struct ibs_node *na, uint8_t pa, const struct ibs_node *nb, uint8_t pb,
			    const char **why);

#endif
