/*
 * The GMP side of the codec: PMA attributes (ClassPortInfo's redirect and
 * capability mask, PortCounters, PortCountersExtended, PortRcvErrorDetails,
 * PortXmitDiscardDetails, PortVLXmitWaitCounters, PortSamplesControl's
 * Tick) and the SA
 * PathRecord decoded through libibmad's field tables (field.h) after a
 * length check, and the payloads that select a port's counters or ask for
 * a path.
 */
#include "mad.h"
#include "field.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <infiniband/mad.h>

/* GMP data area (PMA attributes start at byte 64, IBA 16.1.1). */
static enum ibs_err gmp_data(const uint8_t *mad, size_t len, size_t need, uint8_t *out)
{
	if (!mad || len < IBS_GMP_DATA_OFFS + need)
		return IBS_E_MALFORMED;
	memset(out, 0, IBS_MAD_SIZE);
	memcpy(out, mad + IBS_GMP_DATA_OFFS, (len > IBS_MAD_SIZE ? IBS_MAD_SIZE : len) - IBS_GMP_DATA_OFFS);
	return IBS_OK;
}

/* IBA 13.4.8.1: ClassPortInfo's redirect fields (bytes 8-39). */
enum ibs_err ibs_decode_redirect(const uint8_t *mad, size_t len, struct ibs_addr *out)
{
	uint8_t d[IBS_MAD_SIZE];
	uint32_t lid, qp;

	if (gmp_data(mad, len, 40, d))
		return IBS_E_MALFORMED;
	lid = GET32(d, IB_CPI_REDIRECT_LID_F);
	qp = GET32(d, IB_CPI_REDIRECT_QP_F);
	if (!lid || lid >= 0xc000 || !qp)
		return IBS_E_NOTFOUND;
	ibs_addr_lid(out, (uint16_t)lid, qp);
	out->qkey = GET32(d, IB_CPI_REDIRECT_QKEY_F);
	out->sl = (uint8_t)GET32(d, IB_CPI_REDIRECT_SL_F);
	return IBS_OK;
}

/* IBA 13.4.8.1: ClassPortInfo, CapabilityMask at bytes 2-3, CapabilityMask2 the upper 27 bits of 4-7. */
enum ibs_err ibs_decode_pma_capmask(const uint8_t *mad, size_t len, uint16_t *capmask, uint32_t *capmask2)
{
	uint8_t d[IBS_MAD_SIZE];

	if (gmp_data(mad, len, 8, d))
		return IBS_E_MALFORMED;
	*capmask = (uint16_t)GET32(d, IB_CPI_CAPMASK_F);
	*capmask2 = GET32(d, IB_CPI_CAPMASK2_F);
	return IBS_OK;
}

/*
 * The counters PortCounters (IBA 16.1.3.5, 32 bits and less) and
 * PortCountersExtended (16.1.4.11, 64 bits) both carry, each with its field
 * in either attribute (0: not in that one), decoded by one loop each way.
 */
#define CTR(member, f32, f64) { offsetof(struct ibs_pma_counters, member), f32, f64 }
#define N_ERROR_FIELDS 13 /* the first rows: the error counters and XmitWait */
static const struct {
	size_t at;
	enum MAD_FIELDS f32, f64;
} counter_fields[] = {
	/* The error counters and XmitWait: the extended ones only with IsAdditionalPortCountersExtended. */
	CTR(symbol_errors, IB_PC_ERR_SYM_F, IB_PC_EXT_ERR_SYM_F),
	CTR(link_error_recovery, IB_PC_LINK_RECOVERS_F, IB_PC_EXT_LINK_RECOVERS_F),
	CTR(link_downed, IB_PC_LINK_DOWNED_F, IB_PC_EXT_LINK_DOWNED_F),
	CTR(rcv_errors, IB_PC_ERR_RCV_F, IB_PC_EXT_ERR_RCV_F),
	CTR(rcv_remote_phys_errors, IB_PC_ERR_PHYSRCV_F, IB_PC_EXT_ERR_PHYSRCV_F),
	CTR(rcv_switch_relay_errors, IB_PC_ERR_SWITCH_REL_F, IB_PC_EXT_ERR_SWITCH_REL_F),
	CTR(xmit_discards, IB_PC_XMT_DISCARDS_F, IB_PC_EXT_XMT_DISCARDS_F),
	CTR(xmit_constraint_errors, IB_PC_ERR_XMTCONSTR_F, IB_PC_EXT_ERR_XMTCONSTR_F),
	CTR(rcv_constraint_errors, IB_PC_ERR_RCVCONSTR_F, IB_PC_EXT_ERR_RCVCONSTR_F),
	CTR(local_link_integrity_errors, IB_PC_ERR_LOCALINTEG_F, IB_PC_EXT_ERR_LOCALINTEG_F),
	CTR(excessive_buffer_overrun_errors, IB_PC_ERR_EXCESS_OVR_F, IB_PC_EXT_ERR_EXCESS_OVR_F),
	CTR(vl15_dropped, IB_PC_VL15_DROPPED_F, IB_PC_EXT_VL15_DROPPED_F),
	CTR(xmit_wait, IB_PC_XMT_WAIT_F, IB_PC_EXT_XMT_WAIT_F),
	/* The data and packet counters, in both. */
	CTR(xmit_data, IB_PC_XMT_BYTES_F, IB_PC_EXT_XMT_BYTES_F),
	CTR(rcv_data, IB_PC_RCV_BYTES_F, IB_PC_EXT_RCV_BYTES_F),
	CTR(xmit_pkts, IB_PC_XMT_PKTS_F, IB_PC_EXT_XMT_PKTS_F),
	CTR(rcv_pkts, IB_PC_RCV_PKTS_F, IB_PC_EXT_RCV_PKTS_F),
	/* Only in PortCountersExtended. */
	CTR(unicast_xmit_pkts, 0, IB_PC_EXT_XMT_UPKTS_F),
	CTR(unicast_rcv_pkts, 0, IB_PC_EXT_RCV_UPKTS_F),
	CTR(multicast_xmit_pkts, 0, IB_PC_EXT_XMT_MPKTS_F),
	CTR(multicast_rcv_pkts, 0, IB_PC_EXT_RCV_MPKTS_F),
};
#undef CTR

/* Decode counter_fields[from..to) of the data area d, in the 32-bit or the 64-bit layout. */
static void decode_counters(const uint8_t *d, size_t from, size_t to, bool wide, struct ibs_pma_counters *o)
{
	size_t i;

	for (i = from; i < to; i++) {
		enum MAD_FIELDS f = wide ? counter_fields[i].f64 : counter_fields[i].f32;
		if (f)
			*(uint64_t *)(void *)((char *)o + counter_fields[i].at) = wide ? GET64(d, f) : GET32(d, f);
	}
}

#define N_COUNTER_FIELDS (sizeof(counter_fields) / sizeof(counter_fields[0]))

/* IBA 16.1.3.5: PortCounters is 44 bytes (XmitWait in the last 4). */
enum ibs_err ibs_decode_port_counters(const uint8_t *mad, size_t len, struct ibs_pma_counters *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (gmp_data(mad, len, 44, d))
		return IBS_E_MALFORMED;
	decode_counters(d, 0, N_COUNTER_FIELDS, false, o);
	return IBS_OK;
}

/* IBA 16.1.4.11: PortCountersExtended is 72 bytes of 64-bit counters. */
enum ibs_err ibs_decode_port_counters_ext(const uint8_t *mad, size_t len, struct ibs_pma_counters *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (gmp_data(mad, len, 72, d))
		return IBS_E_MALFORMED;
	decode_counters(d, N_ERROR_FIELDS, N_COUNTER_FIELDS, true, o);
	return IBS_OK;
}

/*
 * IBA 16.1.4.11 (1.3): with IsAdditionalPortCountersExtendedSupported, the
 * 64-bit error counters and PortXmitWait follow the data counters (bytes
 * 72-175), as perfquery reads them.
 */
enum ibs_err ibs_decode_port_counters_ext_errors(const uint8_t *mad, size_t len, struct ibs_pma_counters *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (gmp_data(mad, len, 176, d))
		return IBS_E_MALFORMED;
	decode_counters(d, 0, N_ERROR_FIELDS, true, o);
	return IBS_OK;
}

/*
 * PortRcvErrorDetails (IBA 16.1.4.1) and PortXmitDiscardDetails (16.1.4.2):
 * PortSelect as in PortCounters, then 16-bit counters from byte 4 on.
 */
#define DET(member, f) { offsetof(struct ibs_pma_details, member), f }
static const struct {
	size_t at;
	enum MAD_FIELDS f;
} rcv_detail_fields[] = {
	DET(local_physical, IB_PC_RCV_LOCAL_PHY_ERR_F),
	DET(malformed, IB_PC_RCV_MALFORMED_PKT_ERR_F),
	DET(buffer_overrun, IB_PC_RCV_BUF_OVR_ERR_F),
	DET(dlid_mapping, IB_PC_RCV_DLID_MAP_ERR_F),
	DET(vl_mapping, IB_PC_RCV_VL_MAP_ERR_F),
	DET(looping, IB_PC_RCV_LOOPING_ERR_F),
}, xmit_detail_fields[] = {
	DET(inactive, IB_PC_XMT_INACT_DISC_F),
	DET(neighbor_mtu, IB_PC_XMT_NEIGH_MTU_DISC_F),
	DET(sw_lifetime_limit, IB_PC_XMT_SW_LIFE_DISC_F),
	DET(sw_hoq_lifetime_limit, IB_PC_XMT_SW_HOL_DISC_F),
};
#undef DET

enum ibs_err ibs_decode_rcv_error_details(const uint8_t *mad, size_t len, struct ibs_pma_details *o)
{
	uint8_t d[IBS_MAD_SIZE];
	size_t i;

	if (gmp_data(mad, len, 16, d))
		return IBS_E_MALFORMED;
	for (i = 0; i < sizeof(rcv_detail_fields) / sizeof(rcv_detail_fields[0]); i++)
		*(uint64_t *)(void *)((char *)o + rcv_detail_fields[i].at) = GET32(d, rcv_detail_fields[i].f);
	return IBS_OK;
}

enum ibs_err ibs_decode_xmit_discard_details(const uint8_t *mad, size_t len, struct ibs_pma_details *o)
{
	uint8_t d[IBS_MAD_SIZE];
	size_t i;

	if (gmp_data(mad, len, 12, d))
		return IBS_E_MALFORMED;
	for (i = 0; i < sizeof(xmit_detail_fields) / sizeof(xmit_detail_fields[0]); i++)
		*(uint64_t *)(void *)((char *)o + xmit_detail_fields[i].at) = GET32(d, xmit_detail_fields[i].f);
	return IBS_OK;
}

/*
 * PortVLXmitWaitCounters (IBA 16.1.4.8, attribute 0x001C): PortSelect and
 * CounterSelect as in PortCounters (bytes 1 and 2-3), then PortVLXmitWait
 * for VL0..VL15, 16 bits each, at bytes 4 + 2 * VL (libibmad's fields.c:
 * "PortVLXmitWait0" at BITSOFFS(32, 16) up to "PortVLXmitWait15" at
 * BITSOFFS(272, 16); the fields are consecutive in enum MAD_FIELDS, from
 * IB_PC_PORT_VL_XMIT_WAIT0_F). 36 bytes in all.
 */
_Static_assert(IB_PC_PORT_VL_XMIT_WAIT15_F == IB_PC_PORT_VL_XMIT_WAIT0_F + IBS_N_VL - 1,
	       "libibmad's PortVLXmitWait fields are not consecutive");
enum ibs_err ibs_decode_vl_xmit_wait(const uint8_t *mad, size_t len, struct ibs_pma_details *o)
{
	uint8_t d[IBS_MAD_SIZE];
	unsigned vl;

	if (gmp_data(mad, len, 36, d))
		return IBS_E_MALFORMED;
	for (vl = 0; vl < IBS_N_VL; vl++)
		o->vl_xmit_wait[vl] = GET32(d, (enum MAD_FIELDS)(IB_PC_PORT_VL_XMIT_WAIT0_F + vl));
	return IBS_OK;
}

/* IBA 16.1.3.2: OpCode, PortSelect, Tick, CounterWidth are data bytes 0-3. */
enum ibs_err ibs_decode_port_samples_control(const uint8_t *mad, size_t len, struct ibs_pma_details *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (gmp_data(mad, len, 4, d))
		return IBS_E_MALFORMED;
	o->psc_tick = GET32(d, IB_PSC_TICK_F);
	return IBS_OK;
}

void ibs_pma_select(uint8_t *data, size_t len, uint8_t port, bool ext, bool reset)
{
	uint32_t p = port, sel = reset ? 0xffff : 0;

	memset(data, 0, len);
	mad_encode_field(data, ext ? IB_PC_EXT_PORT_SELECT_F : IB_PC_PORT_SELECT_F, &p);
	mad_encode_field(data, ext ? IB_PC_EXT_COUNTER_SELECT_F : IB_PC_COUNTER_SELECT_F, &sel);
	if (reset && !ext) {
		/* CounterSelect2 covers LocalLinkIntegrity, ExcessiveBufferOverrun, VL15Dropped, XmitWait. */
		uint32_t sel2 = 0xff;
		mad_encode_field(data, IB_PC_COUNTER_SELECT2_F, &sel2);
	}
}

void ibs_pma_vl_xmit_wait_clear(uint8_t *data, size_t len, uint8_t port)
{
	uint32_t sel = 0xffff;

	/* PortSelect, then CounterSelect: one bit per VL (IBA 16.1.4.8), as perfquery --vlxmitcounters -r sends. */
	ibs_pma_select(data, len, port, false, false);
	mad_encode_field(data, IB_PC_COUNTER_SELECT_F, &sel);
}

void ibs_path_record_query(uint8_t *data, uint16_t slid, uint16_t dlid)
{
	uint32_t v;

	memset(data, 0, IBS_SA_PR_SIZE);
	v = slid;
	mad_encode_field(data, IB_SA_PR_SLID_F, &v);
	v = dlid;
	mad_encode_field(data, IB_SA_PR_DLID_F, &v);
	v = 1;
	mad_encode_field(data, IB_SA_PR_NPATH_F, &v);
}

/*
 * IBA 15.2.5.16, table 206. libibmad has field tables for the GIDs, LIDs,
 * NumbPath and SL only; the other fields are read at their byte offsets in
 * the 64-byte record: 44-47 RawTraffic/FlowLabel/HopLimit, 48 TClass,
 * 49 Reversible/NumbPath, 50-51 P_Key, 54 MTU, 55 Rate, 56 PacketLifeTime
 * (each with a 2-bit selector above 6 bits of value).
 */
enum ibs_err ibs_decode_path_record(const uint8_t *mad, size_t len, struct ibs_path_record *o)
{
	uint8_t d[IBS_MAD_SIZE];
	uint32_t w;

	if (!mad || len < IBS_SA_DATA_OFFS + IBS_SA_PR_SIZE)
		return IBS_E_MALFORMED;
	memset(d, 0, sizeof(d));
	memcpy(d, mad + IBS_SA_DATA_OFFS, IBS_SA_PR_SIZE);
	memset(o, 0, sizeof(*o));
	mad_decode_field(d, IB_SA_PR_DGID_F, o->dgid);
	mad_decode_field(d, IB_SA_PR_SGID_F, o->sgid);
	o->dlid = (uint16_t)GET32(d, IB_SA_PR_DLID_F);
	o->slid = (uint16_t)GET32(d, IB_SA_PR_SLID_F);
	o->num_path = (uint8_t)GET32(d, IB_SA_PR_NPATH_F);
	o->sl = (uint8_t)GET32(d, IB_SA_PR_SL_F);
	w = (uint32_t)d[44] << 24 | (uint32_t)d[45] << 16 | (uint32_t)d[46] << 8 | d[47];
	o->flow_label = (w >> 8) & 0xfffff;
	o->hop_limit = (uint8_t)(w & 0xff);
	o->tclass = d[48];
	o->reversible = (d[49] & 0x80) != 0;
	o->pkey = (uint16_t)(d[50] << 8 | d[51]);
	o->mtu_sel = d[54] >> 6;
	o->mtu = d[54] & 0x3f;
	o->rate_sel = d[55] >> 6;
	o->rate = d[55] & 0x3f;
	o->pkt_life_sel = d[56] >> 6;
	o->pkt_life = d[56] & 0x3f;
	return IBS_OK;
}
