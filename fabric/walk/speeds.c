/* The fix a walk ends with: each port's extended speeds settled by the capability masks. */
#include "speeds.h"

/*
 * FDR10 (Mellanox ExtendedPortInfo, read only where PortInfo says QDR and no
 * extended speed) joins the extended speeds: active, it is the speed.
 */
static void fold_fdr10(struct ibs_portinfo *pi)
{
	if (pi->mlnx_speed_supported & IBS_MLNX_SPEED_FDR10)
		pi->speed_ext_supported |= IBS_SPEED_EXT_FDR10;
	if (pi->mlnx_speed_enabled & IBS_MLNX_SPEED_FDR10)
		pi->speed_ext_enabled |= IBS_SPEED_EXT_FDR10;
	if ((pi->mlnx_speed_active & IBS_MLNX_SPEED_FDR10) && !pi->speed_ext_active && pi->speed_active == 4)
		pi->speed_ext_active = IBS_SPEED_EXT_FDR10;
}

void ibs_port_cap_masks(const struct ibs_node *n, const struct ibs_port *p, uint32_t *cap, uint16_t *cap2)
{
	const struct ibs_port *p0 = ibs_node_port(n, 0);

	if (n->ni.node_type == IBS_NODE_SWITCH)
		p = p0 && p0->valid ? p0 : NULL;
	*cap = p ? p->pi.cap_mask : 0;
	*cap2 = p ? p->pi.cap_mask2 : 0;
}

void ibs_fabric_fix_ext_speeds(struct ibs_fabric *f)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		struct ibs_node *n = f->nodes[i];
		struct ibs_port *pt;
		for (pt = n->ports; pt < ibs_node_ports_end(n); pt++) {
			uint32_t cap;
			uint16_t cap2;
			if (!pt->valid)
				continue;
			ibs_port_cap_masks(n, pt, &cap, &cap2);
			if (!(cap & IBS_CAP_EXT_SPEEDS)) {
				pt->pi.speed_ext_active = pt->pi.speed_ext_enabled = pt->pi.speed_ext_supported = 0;
			} else if (IBS_CAPS_EXT_SPEEDS2(cap, cap2)) {
				/* XDR (LinkSpeedExt*2); active, it is the speed. */
				if (pt->pi.speed_ext2_active & 1)
					pt->pi.speed_ext_active = IBS_SPEED_EXT_XDR;
				if (pt->pi.speed_ext2_supported & 1)
					pt->pi.speed_ext_supported |= IBS_SPEED_EXT_XDR;
				if (pt->pi.speed_ext2_enabled & 1)
					pt->pi.speed_ext_enabled |= IBS_SPEED_EXT_XDR;
			}
			fold_fdr10(&pt->pi);
		}
	}
}
