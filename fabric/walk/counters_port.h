/* Which ports' counters are asked, through which LID, and why not (counters_port.c). */
#ifndef IBSCAN_COUNTERS_PORT_H
#define IBSCAN_COUNTERS_PORT_H

#include "../model/model.h"

/* Why port p's counters are missing with no answer asked for (ctr->not_read), or NULL. */
const char *ibs_port_counters_why(const struct ibs_node *n, const struct ibs_port *p);

/* The ports whose counters ibs_read_counters reads (some, by their state, with no request: ctr->not_read). */
bool ibs_port_wants_counters(const struct ibs_node *n, const struct ibs_port *p);
/* LID to address a node's PMA: a switch's port 0, else the port's own. */
uint16_t ibs_port_pma_lid(const struct ibs_node *n, const struct ibs_port *p);

#endif
