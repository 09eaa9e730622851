/*
 * The speeds PortInfo leaves open: each port's extended speeds settled by the
 * capability masks at the walk's end, and which ports may run FDR10 (whose
 * Mellanox ExtendedPortInfo the walk asks).
 */
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

/*
 * Devices that answer Mellanox ExtendedPortInfo, by device ID (the same set
 * libibnetdisc asks): SwitchX, Switch-IB (2), Quantum; ConnectX-3 and
 * later, Connect-IB, BlueField; Bull's rebadged ones under Bull's vendor ID.
 */
static bool knows_mlnx_ext_port_info(const struct ibs_nodeinfo *ni)
{
	static const struct {
		uint32_t vendor; /* 0: any */
		uint16_t first, last;
	} ids[] = {
		{ 0, 0xc738, 0xc73b },      { 0, 0xc839, 0xc839 },      { 0, 0xcb20, 0xcb20 },
		{ 0, 0xcf08, 0xcf09 },      { 0, 0xd2f0, 0xd2f0 },      { 0, 0x1003, 0x101b },
		{ 0, 0xa2d2, 0xa2d2 },      { 0x119f, 0x1b02, 0x1b02 }, { 0x119f, 0x1b33, 0x1b33 },
		{ 0x119f, 0x1b40, 0x1b41 }, { 0x119f, 0x1b50, 0x1b50 }, { 0x119f, 0x1b60, 0x1b61 },
		{ 0x119f, 0x1b73, 0x1b73 }, { 0x119f, 0x1b83, 0x1b83 }, { 0x119f, 0x1b93, 0x1b94 },
		{ 0x119f, 0x1ba0, 0x1ba0 }, { 0x119f, 0x1bb4, 0x1bb5 }, { 0x119f, 0x1bc4, 0x1bc6 },
		{ 0x119f, 0x1bd0, 0x1bd5 }, { 0x119f, 0x1bf0, 0x1bf0 },
	};
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if ((!ids[i].vendor || ids[i].vendor == ni->vendor_id) && ni->device_id >= ids[i].first &&
		    ni->device_id <= ids[i].last)
			return true;
	return false;
}

bool ibs_port_may_run_fdr10(const struct ibs_node *n, const struct ibs_port *p)
{
	uint32_t cap;
	uint16_t cap2;

	if (p->num == 0 || !ibs_portinfo_linkup(&p->pi) || p->pi.speed_active != 4 || !knows_mlnx_ext_port_info(&n->ni))
		return false;
	ibs_port_cap_masks(n, p, &cap, &cap2);
	if ((cap & IBS_CAP_EXT_SPEEDS) && p->pi.speed_ext_active)
		return false;
	return !(IBS_CAPS_EXT_SPEEDS2(cap, cap2) && (p->pi.speed_ext2_active & 1));
}
