/*
 * MAD codec on top of libibmad: requests are built with mad_build_pkt() and
 * attributes decoded by libibmad's field tables (read through get_field(),
 * which learns each field's place from libibmad), so no field offset is
 * written by hand here. Every decoder first checks that the response holds the whole
 * attribute, then decodes from a zero-padded copy (libibmad's API is not
 * const-correct and must never read past what was received).
 */
#include "mad.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

void ibs_req_get(struct ibs_mad_req *req, const struct ibs_addr *addr, uint8_t mgmt_class,
		 uint16_t attr_id, uint32_t attr_mod)
{
	memset(req, 0, sizeof(*req));
	req->addr = *addr;
	req->mgmt_class = mgmt_class;
	req->method = IBS_METHOD_GET;
	req->attr_id = attr_id;
	req->attr_mod = attr_mod;
}

/*
 * Field reads at the cost of a load and a shift. Where each field lies is
 * learnt from libibmad's own tables, never written here: mad_set_field of all
 * ones into a zeroed buffer shows the bits the field owns. The result is then
 * checked against mad_get_field on sample buffers; a field whose bits are not
 * one big-endian run within 8 bytes keeps going through libibmad. (Field
 * decoding was a fifth of the instructions of a replay.)
 */
struct fast_field {
	uint8_t state; /* 0 not learnt yet, 1 fast, 2 through libibmad */
	uint8_t first; /* the 8 bytes from here hold the field */
	uint8_t rshift;
	uint64_t mask;
};

static struct fast_field fast_fields[IB_FIELD_LAST_];

static inline uint64_t load_be64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return __builtin_bswap64(v);
}

static uint64_t lib_get(const uint8_t *b, enum MAD_FIELDS f, bool wide)
{
	void *p = (void *)(uintptr_t)b; /* libibmad only reads here */

	return wide ? mad_get_field64(p, 0, f) : mad_get_field(p, 0, f);
}

static void learn_field(enum MAD_FIELDS f, bool wide)
{
	struct fast_field *ff = &fast_fields[f];
	uint8_t z[IBS_MAD_SIZE] = { 0 };
	unsigned first = 0, last = 0, i, k;
	uint64_t v;

	ff->state = 2;
	if (wide)
		mad_set_field64(z, 0, f, ~0ull);
	else
		mad_set_field(z, 0, f, ~0u);
	while (first < IBS_MAD_SIZE && !z[first])
		first++;
	for (i = first; i < IBS_MAD_SIZE; i++)
		if (z[i])
			last = i;
	if (first == IBS_MAD_SIZE || last - first >= 8)
		return;
	if (first > IBS_MAD_SIZE - 8)
		first = IBS_MAD_SIZE - 8;
	v = load_be64(z + first);
	ff->first = (uint8_t)first;
	ff->rshift = (uint8_t)__builtin_ctzll(v);
	ff->mask = v >> ff->rshift;
	if (ff->mask & (ff->mask + 1))
		return; /* not one run of bits */
	for (k = 0; k < 3; k++) {
		uint8_t t[IBS_MAD_SIZE];
		for (i = 0; i < IBS_MAD_SIZE; i++)
			t[i] = (uint8_t)(k == 0 ? 0xff : (i * 37u + k * 101u) ^ (i >> 3) * 13u);
		if ((load_be64(t + first) >> ff->rshift & ff->mask) != lib_get(t, f, wide))
			return;
	}
	ff->state = 1;
}

/* b holds IBS_MAD_SIZE bytes. */
static inline uint64_t get_field(const uint8_t *b, enum MAD_FIELDS f, bool wide)
{
	const struct fast_field *ff = &fast_fields[f];

	if (__builtin_expect(ff->state == 1, 1))
		return load_be64(b + ff->first) >> ff->rshift & ff->mask;
	if (ff->state == 0) {
		learn_field(f, wide);
		return get_field(b, f, wide);
	}
	return lib_get(b, f, wide);
}

#define GET32(b, f) ((uint32_t)get_field((b), (f), false))
#define GET64(b, f) get_field((b), (f), true)

static inline void store_be64(uint8_t *b, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(b, &v, 8);
}

/* Write a field learnt fast; false when it is not (then use libibmad). */
static bool set_field(uint8_t *b, enum MAD_FIELDS f, bool wide, uint64_t val)
{
	const struct fast_field *ff = &fast_fields[f];
	uint64_t v;

	if (ff->state == 0)
		learn_field(f, wide);
	if (ff->state != 1)
		return false;
	v = load_be64(b + ff->first) & ~(ff->mask << ff->rshift);
	store_be64(b + ff->first, v | (val & ff->mask) << ff->rshift);
	return true;
}

/*
 * Directed-route Gets without payload are nearly all a walk sends, and they
 * differ only in attribute, modifier, hop count, initial path and TID. So
 * mad_build_pkt builds one template per attribute, and each request patches
 * its modifier, hop count and TID through set_field and its path where
 * libibmad's mad_set_array puts IB_DRSMP_PATH_F (learnt the same way).
 */
static int dr_path_offs = -1; /* -1 not learnt, -2 unusable */

static void learn_dr_path(void)
{
	uint8_t z[IBS_MAD_SIZE] = { 0 }, ones[64];
	int first = -1, last = -1, i;

	dr_path_offs = -2;
	memset(ones, 0xff, sizeof(ones));
	mad_set_array(z, 0, IB_DRSMP_PATH_F, ones);
	for (i = 0; i < IBS_MAD_SIZE; i++) {
		if (z[i] == 0xff && first < 0)
			first = i;
		if (z[i])
			last = i;
	}
	if (first >= 0 && last - first == 63)
		dr_path_offs = first;
}

struct dr_template {
	bool used;
	uint16_t attr_id;
	uint8_t mad[IBS_MAD_SIZE];
};

static enum ibs_err encode_lib(const struct ibs_mad_req *req, uint64_t tid, uint8_t *out);

static bool encode_dr_get(const struct ibs_mad_req *req, uint64_t tid, uint8_t *out)
{
	static struct dr_template tpl[16];
	struct dr_template *t = NULL;
	unsigned i;

	if (req->mgmt_class != IBS_CLASS_SMI_DR || req->method != IB_MAD_METHOD_GET || req->data_len ||
	    req->sa_mask)
		return false;
	if (dr_path_offs == -1)
		learn_dr_path();
	if (dr_path_offs < 0)
		return false;
	for (i = 0; i < sizeof(tpl) / sizeof(tpl[0]) && !t; i++) {
		if (tpl[i].used && tpl[i].attr_id == req->attr_id) {
			t = &tpl[i];
		} else if (!tpl[i].used) {
			struct ibs_mad_req r0 = *req;
			ibs_addr_dr(&r0.addr, NULL, 0);
			r0.attr_mod = 0;
			if (encode_lib(&r0, 0, tpl[i].mad) != IBS_OK)
				return false;
			tpl[i].used = true;
			tpl[i].attr_id = req->attr_id;
			t = &tpl[i];
		}
	}
	if (!t)
		return false;
	memcpy(out, t->mad, IBS_MAD_SIZE);
	memcpy(out + dr_path_offs, req->addr.path, 64);
	out[dr_path_offs] = 0;
	return set_field(out, IB_MAD_ATTRMOD_F, false, req->attr_mod) &&
	       set_field(out, IB_DRSMP_HOPCNT_F, false, req->addr.hops) &&
	       set_field(out, IB_MAD_TRID_F, true, tid & 0xffffffffu);
}

static int class_data_offset(uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case IBS_CLASS_SA:
		return IBS_SA_DATA_OFFS;
	case IBS_CLASS_SMI:
	case IBS_CLASS_SMI_DR:
		return IBS_SMP_DATA_OFFS;
	default:
		return IBS_GMP_DATA_OFFS;
	}
}

static uint64_t smp_mkey;

void ibs_mad_set_mkey(uint64_t mkey)
{
	smp_mkey = mkey;
}

enum ibs_err ibs_mad_encode(const struct ibs_mad_req *req, uint64_t tid, uint8_t *out)
{
	enum ibs_err rc;

	if (req->mgmt_class == IBS_CLASS_SMI_DR && (req->addr.lid || req->addr.hops > IBS_DR_MAX_HOPS))
		return IBS_E_INVAL;
	rc = encode_dr_get(req, tid, out) ? IBS_OK : encode_lib(req, tid, out);
	/* The templates and libibmad leave M_Key 0: the key goes in after. */
	if (rc == IBS_OK && smp_mkey && (req->mgmt_class == IBS_CLASS_SMI || req->mgmt_class == IBS_CLASS_SMI_DR))
		mad_set_field64(out, 0, IB_MAD_MKEY_F, smp_mkey);
	return rc;
}

enum ibs_err ibs_mad_encode_lib(const struct ibs_mad_req *req, uint64_t tid, uint8_t *out)
{
	return encode_lib(req, tid, out);
}

static enum ibs_err encode_lib(const struct ibs_mad_req *req, uint64_t tid, uint8_t *out)
{
	/* mad_build_pkt writes a umad header in front of the MAD. */
	union {
		struct ib_user_mad umad;
		uint8_t raw[sizeof(struct ib_user_mad) + IBS_MAD_SIZE];
	} u;
	ib_rpc_t rpc;
	ib_portid_t port;
	uint8_t data[IBS_MAD_SIZE];
	int off = class_data_offset(req->mgmt_class);

	if (req->data_len > IBS_MAD_SIZE - off)
		return IBS_E_INVAL;
	if (req->mgmt_class == IBS_CLASS_SMI_DR && (req->addr.lid || req->addr.hops > IBS_DR_MAX_HOPS))
		return IBS_E_INVAL;
	memset(&u, 0, sizeof(u));
	memset(&rpc, 0, sizeof(rpc));
	memset(&port, 0, sizeof(port));
	memset(data, 0, sizeof(data));
	rpc.mgtclass = req->mgmt_class;
	rpc.method = req->method;
	rpc.attr.id = req->attr_id;
	rpc.attr.mod = req->attr_mod;
	rpc.trid = tid & 0xffffffffu;
	rpc.mask = req->sa_mask;
	rpc.dataoffs = off;
	rpc.datasz = req->data_len;
	if (req->data_len)
		memcpy(data, req->data, req->data_len);
	port.lid = req->addr.lid;
	port.qp = req->addr.qp;
	port.qkey = req->addr.qkey;
	port.sl = req->addr.sl;
	if (req->mgmt_class == IBS_CLASS_SMI_DR) {
		port.lid = 0;
		port.drpath.cnt = req->addr.hops;
		memcpy(port.drpath.p, req->addr.path, sizeof(req->addr.path));
		port.drpath.p[0] = 0;
		port.drpath.drslid = 0xffff;
		port.drpath.drdlid = 0xffff;
	}
	if (mad_build_pkt(&u.umad, &rpc, &port, NULL, req->data_len ? data : NULL) < 0)
		return IBS_E_INVAL;
	memcpy(out, umad_get_mad(&u.umad), IBS_MAD_SIZE);
	return IBS_OK;
}


enum ibs_err ibs_mad_decode_hdr(const uint8_t *mad, size_t len, struct ibs_mad_hdr *h)
{
	const uint8_t *b = mad;
	uint8_t pad[IBS_MAD_SIZE];

	/* The common header is 24 bytes (IBA 13.4.3). */
	if (!mad || len < 24)
		return IBS_E_MALFORMED;
	if (len < IBS_MAD_SIZE) {
		/* Field reads may load up to 8 bytes past a field: pad a short one. */
		memset(pad, 0, sizeof(pad));
		memcpy(pad, mad, len);
		b = pad;
	}
	memset(h, 0, sizeof(*h));
	h->base_version = (uint8_t)GET32(b, IB_MAD_BASEVER_F);
	h->mgmt_class = (uint8_t)GET32(b, IB_MAD_MGMTCLASS_F);
	h->class_version = (uint8_t)GET32(b, IB_MAD_CLASSVER_F);
	h->method = (uint8_t)(GET32(b, IB_MAD_METHOD_F) |
			      (GET32(b, IB_MAD_RESPONSE_F) ? 0x80 : 0));
	h->status = (uint16_t)GET32(b, IB_MAD_STATUS_F);
	h->tid = GET64(b, IB_MAD_TRID_F);
	h->attr_id = (uint16_t)GET32(b, IB_MAD_ATTRID_F);
	h->attr_mod = GET32(b, IB_MAD_ATTRMOD_F);
	if (h->mgmt_class == IBS_CLASS_SMI_DR) {
		h->hop_ptr = (uint8_t)GET32(b, IB_DRSMP_HOPPTR_F);
		h->hop_cnt = (uint8_t)GET32(b, IB_DRSMP_HOPCNT_F);
	}
	return IBS_OK;
}

uint16_t ibs_mad_status(const struct ibs_mad_hdr *h)
{
	/* In a DR SMP the top bit of the status word is the direction bit. */
	if (h->mgmt_class == IBS_CLASS_SMI_DR)
		return h->status & 0x7fff;
	return h->status;
}

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

/* IBA 13.4.8.1: ClassPortInfo, CapabilityMask at bytes 2-3. */
enum ibs_err ibs_decode_pma_capmask(const uint8_t *mad, size_t len, uint16_t *capmask)
{
	uint8_t d[IBS_MAD_SIZE];

	if (gmp_data(mad, len, 4, d))
		return IBS_E_MALFORMED;
	*capmask = (uint16_t)GET32(d, IB_CPI_CAPMASK_F);
	return IBS_OK;
}

/* IBA 16.1.3.5: PortCounters is 44 bytes (XmitWait in the last 4). */
enum ibs_err ibs_decode_port_counters(const uint8_t *mad, size_t len, struct ibs_pma_counters *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (gmp_data(mad, len, 44, d))
		return IBS_E_MALFORMED;
	o->symbol_errors = GET32(d, IB_PC_ERR_SYM_F);
	o->link_error_recovery = GET32(d, IB_PC_LINK_RECOVERS_F);
	o->link_downed = GET32(d, IB_PC_LINK_DOWNED_F);
	o->rcv_errors = GET32(d, IB_PC_ERR_RCV_F);
	o->rcv_remote_phys_errors = GET32(d, IB_PC_ERR_PHYSRCV_F);
	o->rcv_switch_relay_errors = GET32(d, IB_PC_ERR_SWITCH_REL_F);
	o->xmit_discards = GET32(d, IB_PC_XMT_DISCARDS_F);
	o->xmit_constraint_errors = GET32(d, IB_PC_ERR_XMTCONSTR_F);
	o->rcv_constraint_errors = GET32(d, IB_PC_ERR_RCVCONSTR_F);
	o->local_link_integrity_errors = GET32(d, IB_PC_ERR_LOCALINTEG_F);
	o->excessive_buffer_overrun_errors = GET32(d, IB_PC_ERR_EXCESS_OVR_F);
	o->vl15_dropped = GET32(d, IB_PC_VL15_DROPPED_F);
	o->xmit_data = GET32(d, IB_PC_XMT_BYTES_F);
	o->rcv_data = GET32(d, IB_PC_RCV_BYTES_F);
	o->xmit_pkts = GET32(d, IB_PC_XMT_PKTS_F);
	o->rcv_pkts = GET32(d, IB_PC_RCV_PKTS_F);
	o->xmit_wait = GET32(d, IB_PC_XMT_WAIT_F);
	return IBS_OK;
}

/* IBA 16.1.4.11: PortCountersExtended is 72 bytes of 64-bit counters. */
enum ibs_err ibs_decode_port_counters_ext(const uint8_t *mad, size_t len, struct ibs_pma_counters *o)
{
	uint8_t d[IBS_MAD_SIZE];

	if (gmp_data(mad, len, 72, d))
		return IBS_E_MALFORMED;
	o->xmit_data = GET64(d, IB_PC_EXT_XMT_BYTES_F);
	o->rcv_data = GET64(d, IB_PC_EXT_RCV_BYTES_F);
	o->xmit_pkts = GET64(d, IB_PC_EXT_XMT_PKTS_F);
	o->rcv_pkts = GET64(d, IB_PC_EXT_RCV_PKTS_F);
	o->unicast_xmit_pkts = GET64(d, IB_PC_EXT_XMT_UPKTS_F);
	o->unicast_rcv_pkts = GET64(d, IB_PC_EXT_RCV_UPKTS_F);
	o->multicast_xmit_pkts = GET64(d, IB_PC_EXT_XMT_MPKTS_F);
	o->multicast_rcv_pkts = GET64(d, IB_PC_EXT_RCV_MPKTS_F);
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

enum ibs_err ibs_decode_lft_block(const uint8_t *mad, size_t len, uint8_t ports[64])
{
	/* The block is the SMP data area as it is: one port number per byte. */
	if (!mad || len < IBS_SMP_DATA_OFFS + IBS_SMP_DATA_SIZE)
		return IBS_E_MALFORMED;
	memcpy(ports, mad + IBS_SMP_DATA_OFFS, 64);
	return IBS_OK;
}
