/*
 * MAD requests and headers on top of libibmad: requests are built with
 * mad_build_pkt() (directed-route Gets patched from a template per
 * attribute) and the common header is decoded through field.h, so no field
 * offset is written by hand here. The attributes are decoded in smp.c
 * (SMPs) and gmp.c (PMA and SA).
 */
#include "mad.h"
#include "field.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

_Static_assert(IBS_FIELD_BUF == IBS_MAD_SIZE, "field reads are bounded by a whole MAD");

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
 * Directed-route Gets without payload are nearly all a walk sends, and they
 * differ only in attribute, modifier, hop count, initial path and TID. So
 * mad_build_pkt builds one template per attribute, and each request patches
 * its modifier, hop count and TID through ibs_field_set and its path where
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
	return ibs_field_set(out, IB_MAD_ATTRMOD_F, false, req->attr_mod) &&
	       ibs_field_set(out, IB_DRSMP_HOPCNT_F, false, req->addr.hops) &&
	       ibs_field_set(out, IB_MAD_TRID_F, true, tid & 0xffffffffu);
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

enum ibs_err ibs_mad_encode(const struct ibs_mad_req *req, uint64_t tid, uint64_t mkey, uint8_t *out)
{
	enum ibs_err rc;

	if (req->mgmt_class == IBS_CLASS_SMI_DR && (req->addr.lid || req->addr.hops > IBS_DR_MAX_HOPS))
		return IBS_E_INVAL;
	rc = encode_dr_get(req, tid, out) ? IBS_OK : encode_lib(req, tid, out);
	/* The templates and libibmad leave M_Key 0: the key goes in after. */
	if (rc == IBS_OK && mkey && (req->mgmt_class == IBS_CLASS_SMI || req->mgmt_class == IBS_CLASS_SMI_DR))
		mad_set_field64(out, 0, IB_MAD_MKEY_F, mkey);
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
