/*
 * The speeds a port's PortInfo says, settled once the walk (or a libibnetdisc
 * cache) has read every port: what the capability masks say the speed fields
 * mean, the extended speeds, XDR and FDR10.
 */
#ifndef IBSCAN_SPEEDS_H
#define IBSCAN_SPEEDS_H

#include "../model/model.h"

/*
 * The CapabilityMask and CapabilityMask2 that say which of port p's speed
 * fields mean something: its own, or a switch's port 0's (IBA 14.2.5.6;
 * 0 while port 0 is unread).
 */
void ibs_port_cap_masks(const struct ibs_node *n, const struct ibs_port *p, uint32_t *cap, uint16_t *cap2);
/*
 * Settle the extended speeds: cleared where the capability masks do not
 * have them, XDR from LinkSpeedExt*2 where they do, FDR10 from Mellanox
 * ExtendedPortInfo.
 */
void ibs_fabric_fix_ext_speeds(struct ibs_fabric *f);
/*
 * Whether port p of n may run FDR10, which only Mellanox ExtendedPortInfo
 * tells (as ibnetdiscover and iblinkinfo ask it): linked up at QDR with no
 * extended speed, on a device that answers ExtendedPortInfo. A switch's
 * extended-speed capabilities are port 0's (IBA 14.2.5.6).
 */
bool ibs_port_may_run_fdr10(const struct ibs_node *n, const struct ibs_port *p);

#endif
