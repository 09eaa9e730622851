/*
 * The SMP attributes ibscan reads (NodeInfo, PortInfo, SwitchInfo, SMInfo,
 * GUIDInfo, NodeDescription, LinearForwardingTable, SLtoVLMappingTable), decoded through
 * libibmad's field tables (field.h). Every decoder first checks that the
 * response holds the whole attribute, then decodes from a zero-padded copy
 * (libibmad's API is not const-correct and must never read past what was
 * received).
 */
#include "mad.h"
#include "field.h"

#include <string.h>

#include <infiniband/mad.h>

/*
 * Copy the SMP data area of a response into a zeroed buffer, after a length
 * check: the need bytes the attribute has must be there, and no byte past
 * len is read (a short response leaves the rest of the area zero).
 */
static enum ibs_err smp_data(const uint8_t *mad, size_t len, size_t need, uint8_t *out)
{
	size_t have;

	if (!mad || len < IBS_SMP_DATA_OFFS + need)
		return IBS_E_MALFORMED;
	have = (len > IBS_MAD_SIZE ? IBS_MAD_SIZE : len) - IBS_SMP_DATA_OFFS;
	memset(out, 0, IBS_MAD_SIZE);
	memcpy(out, mad + IBS_SMP_DATA_OFFS, have < IBS_SMP_DATA_SIZE ? have : IBS_SMP_DATA_SIZE);
	return IBS_OK;
}


/* IBA 14.2.5.3: NodeInfo is 40 bytes. */
enum ibs_err ibs_decode_nodeinfo(const uint8_t *mad, size_t len, struct ibs_nodeinfo *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (smp_data(mad, len, 40, d))
		return IBS_E_MALFORMED;
	memset(o, 0, sizeof(*o));
	o->base_version = (uint8_t)GET32(d, IB_NODE_BASE_VERS_F);
	o->class_version = (uint8_t)GET32(d, IB_NODE_CLASS_VERS_F);
	o->node_type = (uint8_t)GET32(d, IB_NODE_TYPE_F);
	o->num_ports = (uint8_t)GET32(d, IB_NODE_NPORTS_F);
	o->system_image_guid = GET64(d, IB_NODE_SYSTEM_GUID_F);
	o->node_guid = GET64(d, IB_NODE_GUID_F);
	o->port_guid = GET64(d, IB_NODE_PORT_GUID_F);
	o->partition_cap = (uint16_t)GET32(d, IB_NODE_PARTITION_CAP_F);
	o->device_id = (uint16_t)GET32(d, IB_NODE_DEVID_F);
	o->revision = GET32(d, IB_NODE_REVISION_F);
	o->local_port = (uint8_t)GET32(d, IB_NODE_LOCAL_PORT_F);
	o->vendor_id = GET32(d, IB_NODE_VENDORID_F);
	if (o->node_type < IBS_NODE_CA || o->node_type > IBS_NODE_ROUTER)
		return IBS_E_MALFORMED;
	return IBS_OK;
}

/* IBA 14.2.5.6: PortInfo fills the 64-byte SMP data area. */
enum ibs_err ibs_decode_portinfo(const uint8_t *mad, size_t len, struct ibs_portinfo *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (smp_data(mad, len, 64, d))
		return IBS_E_MALFORMED;
	memset(o, 0, sizeof(*o));
	o->gid_prefix = GET64(d, IB_PORT_GID_PREFIX_F);
	o->lid = (uint16_t)GET32(d, IB_PORT_LID_F);
	o->sm_lid = (uint16_t)GET32(d, IB_PORT_SMLID_F);
	o->cap_mask = GET32(d, IB_PORT_CAPMASK_F);
	o->local_port = (uint8_t)GET32(d, IB_PORT_LOCAL_PORT_F);
	o->width_enabled = (uint8_t)GET32(d, IB_PORT_LINK_WIDTH_ENABLED_F);
	o->width_supported = (uint8_t)GET32(d, IB_PORT_LINK_WIDTH_SUPPORTED_F);
	o->width_active = (uint8_t)GET32(d, IB_PORT_LINK_WIDTH_ACTIVE_F);
	o->speed_supported = (uint8_t)GET32(d, IB_PORT_LINK_SPEED_SUPPORTED_F);
	o->state = (uint8_t)GET32(d, IB_PORT_STATE_F);
	o->phys_state = (uint8_t)GET32(d, IB_PORT_PHYS_STATE_F);
	o->lmc = (uint8_t)GET32(d, IB_PORT_LMC_F);
	o->speed_active = (uint8_t)GET32(d, IB_PORT_LINK_SPEED_ACTIVE_F);
	o->speed_enabled = (uint8_t)GET32(d, IB_PORT_LINK_SPEED_ENABLED_F);
	o->neighbor_mtu = (uint8_t)GET32(d, IB_PORT_NEIGHBOR_MTU_F);
	o->sm_sl = (uint8_t)GET32(d, IB_PORT_SMSL_F);
	o->vl_cap = (uint8_t)GET32(d, IB_PORT_VL_CAP_F);
	o->mtu_cap = (uint8_t)GET32(d, IB_PORT_MTU_CAP_F);
	o->oper_vls = (uint8_t)GET32(d, IB_PORT_OPER_VLS_F);
	o->guid_cap = (uint8_t)GET32(d, IB_PORT_GUID_CAP_F);
	o->cap_mask2 = (uint16_t)GET32(d, IB_PORT_CAPMASK2_F);
	/*
	 * Extended speeds are meaningful only where IsExtendedSpeedsSupported is
	 * set, and a switch says so on port 0 only: the caller decides (see
	 * ibs_fabric_fix_ext_speeds()).
	 */
	o->speed_ext_active = (uint8_t)GET32(d, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	o->speed_ext_supported = (uint8_t)GET32(d, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
	o->speed_ext_enabled = (uint8_t)GET32(d, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
	/*
	 * LinkSpeedExtActive2, LinkSpeedExtSupported2 and LinkSpeedExtEnabled2
	 * share byte 56 (bits 1-2, 3-4 and 5-7 from its top, as rdma-core 49's
	 * libibmad places them; older libibmads have no field for them).
	 */
	o->speed_ext2_active = (d[56] >> 5) & 3;
	o->speed_ext2_supported = (d[56] >> 3) & 3;
	o->speed_ext2_enabled = d[56] & 7;
	/*
	 * LinkSpeedExtEnabled 30 is a code, not a set of speeds: extended link
	 * speeds disabled (libibmad's dump says so, libibnetdisc reads it as 0).
	 */
	if (o->speed_ext_enabled == IBS_SPEED_EXT_DISABLED)
		o->speed_ext_enabled = 0;
	return IBS_OK;
}

/*
 * Mellanox ExtendedPortInfo (vendor attribute 0xFF90): LinkSpeedSupported,
 * Enabled and Active are bytes 7, 11 and 15 of its data (libibmad's fields).
 */
enum ibs_err ibs_decode_mlnx_ext_portinfo(const uint8_t *mad, size_t len, struct ibs_portinfo *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (smp_data(mad, len, 16, d))
		return IBS_E_MALFORMED;
	o->mlnx_speed_supported = (uint8_t)GET32(d, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F);
	o->mlnx_speed_enabled = (uint8_t)GET32(d, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F);
	o->mlnx_speed_active = (uint8_t)GET32(d, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F);
	return IBS_OK;
}

/* IBA 14.2.5.4: SwitchInfo is 17 bytes. */
enum ibs_err ibs_decode_switchinfo(const uint8_t *mad, size_t len, struct ibs_switchinfo *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (smp_data(mad, len, 17, d))
		return IBS_E_MALFORMED;
	memset(o, 0, sizeof(*o));
	o->lft_cap = (uint16_t)GET32(d, IB_SW_LINEAR_FDB_CAP_F);
	o->lft_top = (uint16_t)GET32(d, IB_SW_LINEAR_FDB_TOP_F);
	o->mcast_cap = (uint16_t)GET32(d, IB_SW_MCAST_FDB_CAP_F);
	o->default_port = (uint8_t)GET32(d, IB_SW_DEF_PORT_F);
	o->lids_per_port = (uint8_t)GET32(d, IB_SW_LIDS_PER_PORT_F);
	o->enhanced_port0 = GET32(d, IB_SW_ENHANCED_PORT0_F) != 0;
	return IBS_OK;
}

/* IBA 14.2.5.13: SMInfo is 21 bytes. */
enum ibs_err ibs_decode_sminfo(const uint8_t *mad, size_t len, struct ibs_sminfo *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (smp_data(mad, len, 21, d))
		return IBS_E_MALFORMED;
	memset(o, 0, sizeof(*o));
	o->guid = GET64(d, IB_SMINFO_GUID_F);
	o->act_count = GET32(d, IB_SMINFO_ACT_F);
	o->priority = (uint8_t)GET32(d, IB_SMINFO_PRIO_F);
	o->state = (uint8_t)GET32(d, IB_SMINFO_STATE_F);
	return IBS_OK;
}

/* IBA 14.2.5.5: a GUIDInfo block holds 8 GUIDs. */
enum ibs_err ibs_decode_guidinfo(const uint8_t *mad, size_t len, uint64_t out[IBS_GUIDINFO_PER_BLOCK])
{
	static const enum MAD_FIELDS f[IBS_GUIDINFO_PER_BLOCK] = {
		IB_GI_GUID0_F, IB_GI_GUID1_F, IB_GI_GUID2_F, IB_GI_GUID3_F,
		IB_GI_GUID4_F, IB_GI_GUID5_F, IB_GI_GUID6_F, IB_GI_GUID7_F,
	};
	uint8_t d[IBS_MAD_SIZE];
	int i;

	if (smp_data(mad, len, 64, d))
		return IBS_E_MALFORMED;
	for (i = 0; i < IBS_GUIDINFO_PER_BLOCK; i++)
		out[i] = GET64(d, f[i]);
	return IBS_OK;
}

/* IBA 14.2.5.2: NodeDescription is 64 bytes, UTF-8, NUL padded. */
enum ibs_err ibs_decode_nodedesc(const uint8_t *mad, size_t len, char out[IBS_NODE_DESC_TEXT + 1])
{
	uint8_t d[IBS_MAD_SIZE];
	char raw[IBS_NODE_DESC_LEN];
	size_t n = 0;

	if (smp_data(mad, len, IBS_NODE_DESC_LEN, d))
		return IBS_E_MALFORMED;
	mad_decode_field(d, IB_NODE_DESC_F, raw);
	while (n < IBS_NODE_DESC_LEN && raw[n])
		n++;
	while (n && raw[n - 1] == ' ')
		n--;
	/* Whatever the node sent, only printable UTF-8 goes on (docs/reliability.md). */
	ibs_text_clean_buf(out, IBS_NODE_DESC_TEXT + 1, raw, n);
	return IBS_OK;
}

enum ibs_err ibs_decode_lft_block(const uint8_t *mad, size_t len, uint8_t ports[64])
{
	/* The block is the SMP data area as it is: one port number per byte. */
	if (!mad || len < IBS_SMP_DATA_OFFS + IBS_SMP_DATA_SIZE)
		return IBS_E_MALFORMED;
	memcpy(ports, mad + IBS_SMP_DATA_OFFS, 64);
	return IBS_OK;
}

/* IBA 14.2.5.8: 8 bytes, SL 0 in the high nibble of the first (libibmad's field is the whole 64 bits). */
enum ibs_err ibs_decode_sl2vl(const uint8_t *mad, size_t len, uint8_t vl[16])
{
	uint8_t d[IBS_MAD_SIZE];
	uint64_t v;
	unsigned sl;

	if (smp_data(mad, len, 8, d))
		return IBS_E_MALFORMED;
	v = GET64(d, IB_SLTOVL_MAPPING_TABLE_F);
	for (sl = 0; sl < 16; sl++)
		vl[sl] = (uint8_t)(v >> (60 - 4 * sl) & 0xf);
	return IBS_OK;
}
