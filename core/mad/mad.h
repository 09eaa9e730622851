/*
 * MAD codec: builds requests with libibmad's mad_build_pkt (mad.c) and
 * decodes the header (mad.c) and the attributes ibscan uses (smp.c, gmp.c)
 * with libibmad's field tables, after checking that the response is long
 * enough. Nothing here touches a device.
 */
#ifndef IBSCAN_MAD_H
#define IBSCAN_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "../base/err.h"
#include "../base/text.h"

#define IBS_MAD_SIZE 256
#define IBS_MAD_TID_OFFS 8 /* IBA 13.4.3: the TransactionID, bytes 8-15 */
#define IBS_SMP_DATA_OFFS 64
#define IBS_SMP_DATA_SIZE 64
#define IBS_GMP_DATA_OFFS 64 /* PMA (IBA 16.1.3) */
#define IBS_SA_DATA_OFFS 56

/* Management classes (IBA 13.4.4). */
enum {
	IBS_CLASS_SMI = 0x01,
	IBS_CLASS_SA = 0x03,
	IBS_CLASS_PMA = 0x04,
	IBS_CLASS_SMI_DR = 0x81,
};

/* Methods (IBA 13.4.5). */
enum {
	IBS_METHOD_GET = 0x01,
	IBS_METHOD_SET = 0x02,
	IBS_METHOD_GET_RESP = 0x81,
	IBS_METHOD_GET_TABLE = 0x12,
	IBS_METHOD_GET_TABLE_RESP = 0x92,
};

/* Attribute ids (IBA 14.2.5, 16.1.3, 15.2.5). */
enum {
	IBS_ATTR_CLASS_PORT_INFO = 0x0001,
	IBS_ATTR_NODE_DESC = 0x0010,
	IBS_ATTR_NODE_INFO = 0x0011,
	IBS_ATTR_SWITCH_INFO = 0x0012,
	IBS_ATTR_GUID_INFO = 0x0014,
	IBS_ATTR_PORT_INFO = 0x0015,
	IBS_ATTR_SL2VL = 0x0017,
	IBS_ATTR_LFT = 0x0019,
	IBS_ATTR_SM_INFO = 0x0020,
	/* Mellanox's vendor SMP attribute (libibmad: IB_ATTR_MLNX_EXT_PORT_INFO): FDR10. */
	IBS_ATTR_MLNX_EXT_PORT_INFO = 0xff90,
	IBS_ATTR_PORT_COUNTERS = 0x0012,
	IBS_ATTR_PORT_COUNTERS_EXT = 0x001d,
	IBS_ATTR_PORT_RCV_ERROR_DETAILS = 0x0015,
	IBS_ATTR_PORT_XMIT_DISCARD_DETAILS = 0x0016,
	/* libibmad: IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS (IBA table 226). */
	IBS_ATTR_PORT_VL_XMIT_WAIT = 0x001c,
	/* libibmad: IB_GSI_PORT_SAMPLES_CONTROL (IBA 16.1.3.2): its Tick gives PortXmitWait's tick. */
	IBS_ATTR_PORT_SAMPLES_CONTROL = 0x0010,
	IBS_ATTR_SA_PATH_RECORD = 0x0035,
};

/* A request, as the engine and the capture see it. */
struct ibs_mad_req {
	struct ibs_addr addr;
	uint8_t mgmt_class;
	uint8_t method;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t sa_mask;    /* SA component mask */
	uint16_t data_len;   /* payload bytes (PMA, SA); 0 for none */
	const uint8_t *data; /* payload, placed at the class's data offset */
};

/* The common MAD header (IBA 13.4.3), plus the DR fields for SMPs. */
struct ibs_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	uint16_t status;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t tid;
	uint8_t hop_ptr;
	uint8_t hop_cnt;
};


/* Fill req for a Get of attr_id/attr_mod in mgmt_class to addr. */
void ibs_req_get(struct ibs_mad_req *req, const struct ibs_addr *addr, uint8_t mgmt_class,
		 uint16_t attr_id, uint32_t attr_mod);

/*
 * Encode req with the given TID into out (IBS_MAD_SIZE bytes). An SMP
 * (classes 0x01 and 0x81) carries mkey (IBA 14.2.4; 0 matches an
 * unprotected port), as infiniband-diags' -y; other classes carry none.
 */
enum ibs_err ibs_mad_encode(const struct ibs_mad_req *req, uint64_t tid, uint64_t mkey, uint8_t *out);
/* The same, through mad_build_pkt for every request (the reference the fast path is tested against). */
enum ibs_err ibs_mad_encode_lib(const struct ibs_mad_req *req, uint64_t tid, uint8_t *out);
/* Decode the header; IBS_E_MALFORMED when len is shorter than a MAD header. */
enum ibs_err ibs_mad_decode_hdr(const uint8_t *mad, size_t len, struct ibs_mad_hdr *h);
/* Status to report for a response (DR SMPs carry a 15-bit status). */
uint16_t ibs_mad_status(const struct ibs_mad_hdr *h);
const char *ibs_mad_status_str(uint16_t status);
const char *ibs_attr_name(uint8_t mgmt_class, uint16_t attr_id);
const char *ibs_class_name(uint8_t mgmt_class);
const char *ibs_method_name(uint8_t method);

/* How one request ended, whatever the engine did to get there (the engine completes every request with one). */
enum ibs_outcome {
	IBS_MAD_OK,        /* a response with status 0 */
	IBS_MAD_STATUS,    /* a response with a non-zero status */
	IBS_MAD_TIMEOUT,   /* no response after all attempts */
	IBS_MAD_MALFORMED, /* a response that does not fit the request */
	IBS_MAD_ABORTED,   /* the run was aborted (global deadline, transport failure) */
	IBS_MAD_SEND_FAILED, /* the kernel refused to send it (cause in the result); the run goes on */
};

/* "timeout", "bad status", ... (names.c). */
const char *ibs_outcome_str(enum ibs_outcome o);

/* NodeInfo (IBA 14.2.5.3). */
struct ibs_nodeinfo {
	uint8_t base_version, class_version, node_type, num_ports;
	uint64_t system_image_guid, node_guid, port_guid;
	uint16_t partition_cap, device_id;
	uint32_t revision;
	uint8_t local_port;
	uint32_t vendor_id;
};

/*
 * PortInfo:PortState and PortPhysicalState (IBA 14.2.5.6, table 146; the
 * kernel's sysfs and libibumad's umad_port_t use the same codes). 0 is "no
 * state change" in a Set; a Get never returns it, but a port the source
 * does not describe reads 0.
 */
enum ibs_port_state {
	IBS_PORT_NOP = 0,
	IBS_PORT_DOWN = 1,
	IBS_PORT_INIT = 2,
	IBS_PORT_ARMED = 3,
	IBS_PORT_ACTIVE = 4,
};

enum ibs_phys_state {
	IBS_PHYS_NOP = 0,
	IBS_PHYS_SLEEP = 1,
	IBS_PHYS_POLLING = 2,
	IBS_PHYS_DISABLED = 3,
	IBS_PHYS_TRAINING = 4, /* PortConfigurationTraining */
	IBS_PHYS_LINKUP = 5,
	IBS_PHYS_LINK_ERROR_RECOVERY = 6,
	IBS_PHYS_PHY_TEST = 7,
};

/* PortInfo (IBA 14.2.5.6). state is an enum ibs_port_state, phys_state an enum ibs_phys_state. */
struct ibs_portinfo {
	uint64_t gid_prefix;
	uint16_t lid, sm_lid;
	uint32_t cap_mask;
	uint16_t cap_mask2;
	uint8_t local_port;
	uint8_t width_enabled, width_supported, width_active;
	uint8_t speed_supported, speed_enabled, speed_active;
	uint8_t speed_ext_supported, speed_ext_enabled, speed_ext_active;
	/* LinkSpeedExt*2 (XDR) as read: meaningful only where CapabilityMask2 says so (ibs_fabric_fix_ext_speeds()). */
	uint8_t speed_ext2_supported, speed_ext2_enabled, speed_ext2_active;
	/* Mellanox ExtendedPortInfo's LinkSpeed* (bit 0: FDR10), where it was read; else 0. */
	uint8_t mlnx_speed_supported, mlnx_speed_enabled, mlnx_speed_active;
	uint8_t state, phys_state, lmc;
	uint8_t neighbor_mtu, mtu_cap, vl_cap, oper_vls;
	uint8_t guid_cap;
	uint8_t sm_sl;
};

/* SwitchInfo (IBA 14.2.5.4). */
struct ibs_switchinfo {
	uint16_t lft_cap, lft_top, mcast_cap;
	uint8_t default_port, lids_per_port;
	bool enhanced_port0;
};

/* PortInfo's logical port state is Active: data (and GMPs) may flow. */
static inline bool ibs_portinfo_active(const struct ibs_portinfo *pi)
{
	return pi->state == IBS_PORT_ACTIVE;
}

/* PortInfo's physical state is LinkUp: the cable trained, whatever the logical state. */
static inline bool ibs_portinfo_linkup(const struct ibs_portinfo *pi)
{
	return pi->phys_state == IBS_PHYS_LINKUP;
}

/* SMInfo:SMState (IBA 14.2.5.13, table 162). */
enum ibs_sm_state {
	IBS_SM_NOT_ACTIVE = 0,
	IBS_SM_DISCOVERING = 1,
	IBS_SM_STANDBY = 2,
	IBS_SM_MASTER = 3,
};

/* SMInfo (IBA 14.2.5.13). state is an enum ibs_sm_state. */
struct ibs_sminfo {
	uint64_t guid;
	uint32_t act_count;
	uint8_t priority, state;
};

/* The SM that answered this SMInfo says it is the master. */
static inline bool ibs_sminfo_master(const struct ibs_sminfo *si)
{
	return si->state == IBS_SM_MASTER;
}

/* PortCounters (IBA 16.1.3.5) and PortCountersExtended (16.1.4.11), one struct. */
struct ibs_pma_counters {
	uint64_t symbol_errors, link_error_recovery, link_downed, rcv_errors, rcv_remote_phys_errors,
		rcv_switch_relay_errors, xmit_discards, xmit_constraint_errors, rcv_constraint_errors,
		local_link_integrity_errors, excessive_buffer_overrun_errors, vl15_dropped, xmit_wait;
	/* Data counters count 4-octet words on the wire. */
	uint64_t xmit_data, rcv_data, xmit_pkts, rcv_pkts;
	uint64_t unicast_xmit_pkts, unicast_rcv_pkts, multicast_xmit_pkts, multicast_rcv_pkts;
};

/* PMA ClassPortInfo CapabilityMask bits (IBA 16.1.3.1, table 207; infiniband-diags names). */
#define IBS_PM_ALL_PORT_SELECT (1u << 8)
#define IBS_PM_EXT_WIDTH_SUPPORTED (1u << 9)
#define IBS_PM_EXT_WIDTH_NOIETF_SUP (1u << 10)
#define IBS_PM_XMIT_WAIT_SUP (1u << 12)

/* CapabilityMask2 bit 1: PortCountersExtended also has the 64-bit error counters and XmitWait. */
#define IBS_PM2_ADDL_PORT_CTRS_EXT (1u << 1)

enum ibs_err ibs_decode_pma_capmask(const uint8_t *mad, size_t len, uint16_t *capmask, uint32_t *capmask2);
/* MAD status bit 1 (IBA 13.4.7): the agent answers elsewhere, named in a ClassPortInfo. */
#define IBS_MAD_STATUS_REDIRECT 0x0002
/*
 * The address a "redirect required" answer names (its ClassPortInfo:
 * RedirectLID, QP, Q_Key, SL) into *out; IBS_E_NOTFOUND for a redirect by
 * GID only or to QP 0, which libibmad does not follow either.
 */
enum ibs_err ibs_decode_redirect(const uint8_t *mad, size_t len, struct ibs_addr *out);
/* PortCounters: error counters, 32-bit data counters, XmitWait. */
enum ibs_err ibs_decode_port_counters(const uint8_t *mad, size_t len, struct ibs_pma_counters *out);
/* PortCountersExtended: 64-bit data and packet counters, merged into out. */
enum ibs_err ibs_decode_port_counters_ext(const uint8_t *mad, size_t len, struct ibs_pma_counters *out);
/* Its additional 64-bit error counters and PortXmitWait (IBS_PM2_ADDL_PORT_CTRS_EXT). */
enum ibs_err ibs_decode_port_counters_ext_errors(const uint8_t *mad, size_t len, struct ibs_pma_counters *out);
/*
 * PortRcvErrorDetails (IBA 16.1.4.1) and PortXmitDiscardDetails (16.1.4.2):
 * optional 16-bit counters saying why PortRcvErrors and PortXmitDiscards
 * counted. No ClassPortInfo bit announces them (libibmad and the kernel's
 * ib_pma.h define none): an agent without them answers a bad status.
 */
#define IBS_N_VL 16
struct ibs_pma_details {
	uint64_t local_physical, malformed, buffer_overrun, dlid_mapping, vl_mapping, looping;
	uint64_t inactive, neighbor_mtu, sw_lifetime_limit, sw_hoq_lifetime_limit;
	/* PortVLXmitWaitCounters (IBA 16.1.4.8): PortXmitWait per VL, 16 bits each, VL0-VL15. */
	uint64_t vl_xmit_wait[IBS_N_VL];
	/*
	 * PortSamplesControl (IBA 16.1.3.2) Tick: a PortXmitWait tick is
	 * Tick + 1 symbol times (the time one byte takes on one lane of the
	 * link: 4 ns at SDR), 0x00 one symbol time to 0xFF 256.
	 */
	uint64_t psc_tick;
};
enum ibs_err ibs_decode_rcv_error_details(const uint8_t *mad, size_t len, struct ibs_pma_details *out);
enum ibs_err ibs_decode_xmit_discard_details(const uint8_t *mad, size_t len, struct ibs_pma_details *out);
/* Also optional, also announced by no ClassPortInfo bit: out->vl_xmit_wait[]. */
enum ibs_err ibs_decode_vl_xmit_wait(const uint8_t *mad, size_t len, struct ibs_pma_details *out);
/* PortSamplesControl (mandatory, IBA 16.1.3.2; ibsim drops it): its Tick, into out->psc_tick. */
enum ibs_err ibs_decode_port_samples_control(const uint8_t *mad, size_t len, struct ibs_pma_details *out);
/* Payload selecting a port for PortCounters/PortCountersExtended (and the details); reset: CounterSelect all. */
void ibs_pma_select(uint8_t *data, size_t len, uint8_t port, bool ext, bool reset);
/* A Set of PortVLXmitWaitCounters that clears every VL's of port (no CounterSelect2: the attribute has none). */
void ibs_pma_vl_xmit_wait_clear(uint8_t *data, size_t len, uint8_t port);

/* SA PathRecord (IBA 15.2.5.16). */
struct ibs_path_record {
	uint8_t dgid[16], sgid[16];
	uint16_t dlid, slid, pkey;
	uint8_t sl, mtu, mtu_sel, rate, rate_sel, pkt_life, pkt_life_sel, hop_limit, tclass;
	uint8_t num_path;
	bool reversible;
	uint32_t flow_label;
};

/* PathRecord ComponentMask bits (IBA 15.2.5.16, table 207). */
#define IBS_PR_COMPMASK_DGID (1ull << 2)
#define IBS_PR_COMPMASK_SGID (1ull << 3)
#define IBS_PR_COMPMASK_DLID (1ull << 4)
#define IBS_PR_COMPMASK_SLID (1ull << 5)
#define IBS_PR_COMPMASK_NUMBPATH (1ull << 12)
#define IBS_SA_PR_SIZE 64

/* Fill data (IBS_SA_PR_SIZE bytes) for a PathRecord query from slid to dlid. */
void ibs_path_record_query(uint8_t *data, uint16_t slid, uint16_t dlid);
enum ibs_err ibs_decode_path_record(const uint8_t *mad, size_t len, struct ibs_path_record *out);
/* LinearForwardingTable block (IBA 14.2.5.10): 64 egress ports, one per LID. */
enum ibs_err ibs_decode_lft_block(const uint8_t *mad, size_t len, uint8_t ports[64]);
/*
 * SLtoVLMappingTable (IBA 14.2.5.8): the VL of each of the 16 SLs, 4 bits
 * each. Of a switch, the attribute modifier names the pair: input port in
 * bits 15:8, output port in bits 7:0 (ibs_sl2vl_mod).
 */
enum ibs_err ibs_decode_sl2vl(const uint8_t *mad, size_t len, uint8_t vl[16]);
static inline uint32_t ibs_sl2vl_mod(uint8_t in_port, uint8_t out_port)
{
	return (uint32_t)in_port << 8 | out_port;
}

#define IBS_GUIDINFO_PER_BLOCK 8
#define IBS_NODE_DESC_LEN 64
/* A NodeDescription once cleaned (core/base/text.h): each byte may become a 4-character escape. */
#define IBS_NODE_DESC_TEXT (IBS_NODE_DESC_LEN * IBS_TEXT_GROWTH)

enum ibs_err ibs_decode_nodeinfo(const uint8_t *mad, size_t len, struct ibs_nodeinfo *out);
enum ibs_err ibs_decode_portinfo(const uint8_t *mad, size_t len, struct ibs_portinfo *out);
/* Mellanox ExtendedPortInfo: its LinkSpeed* go into out->mlnx_speed_*; nothing else of out changes. */
enum ibs_err ibs_decode_mlnx_ext_portinfo(const uint8_t *mad, size_t len, struct ibs_portinfo *out);
enum ibs_err ibs_decode_switchinfo(const uint8_t *mad, size_t len, struct ibs_switchinfo *out);
enum ibs_err ibs_decode_sminfo(const uint8_t *mad, size_t len, struct ibs_sminfo *out);
enum ibs_err ibs_decode_guidinfo(const uint8_t *mad, size_t len, uint64_t out[IBS_GUIDINFO_PER_BLOCK]);
/* NodeDescription: out gets it cleaned (core/base/text.h), trailing blanks dropped, NUL-terminated. */
enum ibs_err ibs_decode_nodedesc(const uint8_t *mad, size_t len, char out[IBS_NODE_DESC_TEXT + 1]);

/* Port capability mask bits (IBA 14.2.5.6). */
#define IBS_CAP_IS_SM (1u << 1)
#define IBS_CAP_IS_SM_DISABLED (1u << 10) /* the GSI half of a split SMI/GSI device: no SMPs here */
#define IBS_CAP_EXT_SPEEDS (1u << 14)
#define IBS_CAP_HAS_CAP_MASK2 (1u << 15)
/* CapabilityMask2 (IBA 14.2.5.6): LinkSpeedExt*2 are valid. */
#define IBS_CAP2_EXT_SPEEDS2 0x0800
/* LinkSpeedExt*2 are valid: CapabilityMask2 is there and says so. */
#define IBS_CAPS_EXT_SPEEDS2(cap, cap2) (((cap) & IBS_CAP_HAS_CAP_MASK2) && ((cap2) & IBS_CAP2_EXT_SPEEDS2))
/*
 * XDR, LinkSpeedExt*2 bit 0, is kept in the LinkSpeedExt* fields as bit 5
 * (32), next to FDR 1, EDR 2, HDR 4 and NDR 8: libibnetdisc does the same,
 * and ibnetdiscover's netfile prints 32 as XDR.
 */
#define IBS_SPEED_EXT_XDR 32
/*
 * FDR10 (Mellanox ExtendedPortInfo LinkSpeedActive bit 0, on a link whose
 * PortInfo says QDR and no extended speed) is kept in the same fields as 64:
 * ibscan's own code, no IBA one. ibnetdiscover and iblinkinfo print it so.
 */
#define IBS_SPEED_EXT_FDR10 64
#define IBS_MLNX_SPEED_FDR10 1
/* PortInfo:LinkSpeedExtEnabled 30: extended link speeds disabled (decoded as 0, no speed enabled). */
#define IBS_SPEED_EXT_DISABLED 30

/* Node types (IBA 14.2.5.3). */
enum { IBS_NODE_CA = 1, IBS_NODE_SWITCH = 2, IBS_NODE_ROUTER = 3 };

#endif
