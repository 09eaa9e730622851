/* Unit tests of the MAD codec (core/mad/mad.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fabrics.h"
#include "../../core/mad/mad.h"
#include "../../fabric/names.h"
#include "../../fabric/rate.h"

#include <infiniband/mad.h>

static void test_encode_dr_nodeinfo(void **state)
{
	struct ibs_addr a;
	struct ibs_mad_req req;
	struct ibs_mad_hdr h;
	uint8_t mad[IBS_MAD_SIZE], path[3] = { 1, 3, 5 };

	(void)state;
	ibs_addr_dr(&a, path, 3);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	assert_int_equal(ibs_mad_encode(&req, 0x1234567890abcdefull, 0, mad), IBS_OK);
	assert_int_equal(ibs_mad_decode_hdr(mad, sizeof(mad), &h), IBS_OK);
	assert_int_equal(h.mgmt_class, 0x81);
	assert_int_equal(h.method, IBS_METHOD_GET);
	assert_int_equal(h.attr_id, IBS_ATTR_NODE_INFO);
	/* Only the low 32 bits of a TID are ours. */
	assert_int_equal(h.tid, 0x90abcdefull);
	assert_int_equal(h.hop_cnt, 3);
	assert_int_equal(h.hop_ptr, 0);
	/* IBA 14.2.1.2: DrSLID/DrDLID permissive, initial path at byte 128. */
	assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_DRSLID_F), 0xffff);
	assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_DRDLID_F), 0xffff);
	assert_int_equal(mad[128 + 1], 1);
	assert_int_equal(mad[128 + 2], 3);
	assert_int_equal(mad[128 + 3], 5);
}

static void test_encode_rejects_long_path(void **state)
{
	struct ibs_addr a;
	struct ibs_mad_req req;
	uint8_t mad[IBS_MAD_SIZE];

	(void)state;
	ibs_addr_dr(&a, NULL, 0);
	a.hops = 64;
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	assert_int_equal(ibs_mad_encode(&req, 1, 0, mad), IBS_E_INVAL);
	assert_false(ibs_addr_dr_extend(&a, &a, 1));
}

static void test_pma_payload(void **state)
{
	struct ibs_addr a;
	struct ibs_mad_req req;
	uint8_t mad[IBS_MAD_SIZE], data[4] = { 0, 7, 0xff, 0xff };

	(void)state;
	ibs_addr_lid(&a, 12, 1);
	ibs_req_get(&req, &a, IBS_CLASS_PMA, IBS_ATTR_PORT_COUNTERS, 0);
	req.data = data;
	req.data_len = sizeof(data);
	assert_int_equal(ibs_mad_encode(&req, 9, 0, mad), IBS_OK);
	assert_int_equal(mad_get_field(mad + IBS_GMP_DATA_OFFS, 0, IB_PC_PORT_SELECT_F), 7);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F), 4);
}

static void make_nodeinfo(uint8_t *mad, size_t *len)
{
	struct ibs_addr a;
	struct ibs_mad_req req;
	uint8_t req_mad[IBS_MAD_SIZE], d[64];
	uint32_t v;
	uint64_t g;

	ibs_addr_dr(&a, NULL, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	ibs_mad_encode(&req, 5, 0, req_mad);
	memset(d, 0, sizeof(d));
	v = 2; mad_encode_field(d, IB_NODE_TYPE_F, &v);
	v = 36; mad_encode_field(d, IB_NODE_NPORTS_F, &v);
	g = 0xf452140300abcdefull; mad_encode_field(d, IB_NODE_GUID_F, &g);
	g = 0xf452140300abcdeeull; mad_encode_field(d, IB_NODE_SYSTEM_GUID_F, &g);
	v = 0x02c9; mad_encode_field(d, IB_NODE_VENDORID_F, &v);
	v = 7; mad_encode_field(d, IB_NODE_LOCAL_PORT_F, &v);
	fake_make_resp(req_mad, 0, d, mad);
	*len = IBS_MAD_SIZE;
}

static void test_decode_nodeinfo(void **state)
{
	uint8_t mad[IBS_MAD_SIZE];
	size_t len;
	struct ibs_nodeinfo ni;

	(void)state;
	make_nodeinfo(mad, &len);
	assert_int_equal(ibs_decode_nodeinfo(mad, len, &ni), IBS_OK);
	assert_int_equal(ni.node_type, IBS_NODE_SWITCH);
	assert_int_equal(ni.num_ports, 36);
	/* GUIDs above 2^63 survive. */
	assert_true(ni.node_guid == 0xf452140300abcdefull);
	assert_true(ni.system_image_guid == 0xf452140300abcdeeull);
	assert_int_equal(ni.vendor_id, 0x02c9);
	assert_int_equal(ni.local_port, 7);
}

static void test_decode_short_is_error(void **state)
{
	uint8_t mad[IBS_MAD_SIZE];
	size_t len, l;
	struct ibs_nodeinfo ni;
	struct ibs_portinfo pi;
	struct ibs_mad_hdr h;
	char desc[IBS_NODE_DESC_TEXT + 1];
	uint64_t g[8];

	(void)state;
	make_nodeinfo(mad, &len);
	/* Every length short of the attribute is an error, never a read past the end. */
	for (l = 0; l < IBS_SMP_DATA_OFFS + 40; l++)
		assert_int_equal(ibs_decode_nodeinfo(mad, l, &ni), IBS_E_MALFORMED);
	assert_int_equal(ibs_decode_portinfo(mad, 100, &pi), IBS_E_MALFORMED);
	assert_int_equal(ibs_decode_nodedesc(mad, 127, desc), IBS_E_MALFORMED);
	assert_int_equal(ibs_decode_guidinfo(mad, 64, g), IBS_E_MALFORMED);
	assert_int_equal(ibs_mad_decode_hdr(mad, 23, &h), IBS_E_MALFORMED);
	assert_int_equal(ibs_decode_nodeinfo(NULL, 256, &ni), IBS_E_MALFORMED);
	/* A node type outside 1..3 is malformed. */
	mad[IBS_SMP_DATA_OFFS + 2] = 9;
	assert_int_equal(ibs_decode_nodeinfo(mad, len, &ni), IBS_E_MALFORMED);
}

/*
 * A response just long enough for its attribute decodes, reading nothing past
 * its end: each gets a heap copy of exactly that length, which AddressSanitizer
 * (the unit tier runs under it) watches. NodeInfo read 64 bytes of a 40-byte one.
 */
static void test_decode_exact_length(void **state)
{
	uint8_t mad[IBS_MAD_SIZE], *c;
	size_t len;
	struct ibs_nodeinfo ni;
	struct ibs_switchinfo si;
	struct ibs_sminfo sm;

	(void)state;
	make_nodeinfo(mad, &len);
	c = malloc(IBS_SMP_DATA_OFFS + 40);
	memcpy(c, mad, IBS_SMP_DATA_OFFS + 40);
	assert_int_equal(ibs_decode_nodeinfo(c, IBS_SMP_DATA_OFFS + 40, &ni), IBS_OK);
	assert_int_equal(ni.num_ports, 36);
	free(c);
	c = calloc(1, IBS_SMP_DATA_OFFS + 17);
	assert_int_equal(ibs_decode_switchinfo(c, IBS_SMP_DATA_OFFS + 17, &si), IBS_OK);
	free(c);
	c = calloc(1, IBS_SMP_DATA_OFFS + 21);
	assert_int_equal(ibs_decode_sminfo(c, IBS_SMP_DATA_OFFS + 21, &sm), IBS_OK);
	free(c);
}

static void test_nodedesc_sanitised(void **state)
{
	uint8_t mad[IBS_MAD_SIZE];
	char desc[IBS_NODE_DESC_TEXT + 1];

	(void)state;
	memset(mad, 0, sizeof(mad));
	memcpy(mad + IBS_SMP_DATA_OFFS, "node01\nmlx5_0\x1b[31m  ", 21);
	assert_int_equal(ibs_decode_nodedesc(mad, sizeof(mad), desc), IBS_OK);
	/* Control characters are escaped visibly (core/base/text.h); trailing blanks go. */
	assert_string_equal(desc, "node01\\x0amlx5_0\\x1b[31m");
	/* 64 bytes with no NUL stay 64 characters. */
	memset(mad + IBS_SMP_DATA_OFFS, 'a', 64);
	assert_int_equal(ibs_decode_nodedesc(mad, sizeof(mad), desc), IBS_OK);
	assert_int_equal(strlen(desc), 64);
	/* 64 bytes that are all escaped fit whole: 4 characters each. */
	memset(mad + IBS_SMP_DATA_OFFS, 0x9b, 64);
	assert_int_equal(ibs_decode_nodedesc(mad, sizeof(mad), desc), IBS_OK);
	assert_int_equal(strlen(desc), 256);
	assert_true(ibs_text_is_clean(desc));
}

/* SLtoVLMappingTable as it is on the wire: SL 0 in the high nibble of byte 0, SL 15 in the low nibble of byte 7. */
static void test_decode_sl2vl(void **state)
{
	uint8_t mad[IBS_MAD_SIZE] = { 0 }, vl[16];
	static const uint8_t wire[8] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe };
	unsigned sl;

	(void)state;
	memcpy(mad + IBS_SMP_DATA_OFFS, wire, sizeof(wire));
	assert_int_equal(ibs_decode_sl2vl(mad, sizeof(mad), vl), IBS_OK);
	for (sl = 0; sl < 16; sl++)
		assert_int_equal(vl[sl], sl ^ 1);
	assert_int_equal(ibs_decode_sl2vl(mad, IBS_SMP_DATA_OFFS + 8, vl), IBS_OK);
	assert_int_equal(vl[0], 1);
	assert_int_equal(ibs_decode_sl2vl(mad, IBS_SMP_DATA_OFFS + 7, vl), IBS_E_MALFORMED);
	assert_int_equal(ibs_sl2vl_mod(3, 5), 0x0305u);
}

static void test_addr_roundtrip(void **state)
{
	struct ibs_addr a, b;
	uint8_t p[2] = { 17, 255 };
	char buf[300];

	(void)state;
	ibs_addr_dr(&a, p, 2);
	assert_string_equal(ibs_addr_str(&a, buf, sizeof(buf)), "0,17,255");
	assert_int_equal(ibs_addr_parse(&b, buf), IBS_OK);
	assert_int_equal(b.hops, 2);
	assert_int_equal(b.path[2], 255);
	assert_int_equal(ibs_addr_parse(&b, "0"), IBS_OK);
	assert_int_equal(b.hops, 0);
	assert_int_equal(ibs_addr_parse(&b, "lid 7"), IBS_OK);
	assert_int_equal(b.lid, 7);
	assert_int_equal(ibs_addr_parse(&b, "0,256"), IBS_E_INPUT);
	assert_int_equal(ibs_addr_parse(&b, "1,2"), IBS_E_INPUT);
	assert_int_equal(ibs_addr_parse(&b, "0,,2"), IBS_E_INPUT);
	assert_int_equal(ibs_addr_parse(&b, "lid 0"), IBS_E_INPUT);
	assert_int_equal(ibs_addr_parse(&b, "lid 65536"), IBS_E_INPUT);
}

static void test_status_words(void **state)
{
	struct ibs_mad_hdr h = { 0 };

	(void)state;
	h.mgmt_class = IBS_CLASS_SMI_DR;
	h.status = 0x801c; /* D bit + invalid attribute */
	assert_int_equal(ibs_mad_status(&h), 0x1c);
	assert_string_equal(ibs_mad_status_str(0x1c), "invalid attribute or modifier");
	assert_string_equal(ibs_mad_status_str(0x0c), "method/attribute not supported");
	assert_string_equal(ibs_mad_status_str(1), "busy");
}

/*
 * A PortInfo answer in its wire layout (IBA 14.2.5.6, offsets within the
 * attribute): an NDR-capable 4x port whose extended speeds are switched off
 * (LinkSpeedExtEnabled 30), trained at QDR.
 */
static void portinfo_ext_disabled(uint8_t *mad)
{
	uint8_t *d = mad + IBS_SMP_DATA_OFFS;

	memset(mad, 0, IBS_MAD_SIZE);
	d[17] = 7;	    /* LID 7 */
	d[22] = 0x40;	    /* CapabilityMask bit 14: IsExtendedSpeedsSupported */
	d[28] = 1;	    /* LocalPortNum */
	d[29] = 2;	    /* LinkWidthEnabled 4x */
	d[30] = 3;	    /* LinkWidthSupported 1x, 4x */
	d[31] = 2;	    /* LinkWidthActive 4x */
	d[32] = 0x74;	    /* LinkSpeedSupported SDR|DDR|QDR, PortState Active */
	d[33] = 0x50;	    /* PortPhysicalState LinkUp */
	d[35] = 0x47;	    /* LinkSpeedActive QDR, LinkSpeedEnabled SDR|DDR|QDR */
	d[62] = 0x0f;	    /* LinkSpeedExtActive none, LinkSpeedExtSupported FDR|EDR|HDR|NDR */
	d[63] = 30;	    /* LinkSpeedExtEnabled 30: extended speeds disabled */
}

/*
 * LinkSpeedExtEnabled 30 is not a set of speeds but "extended link speeds
 * disabled" (libibmad prints it so; libibnetdisc reads it as 0): read as
 * bits it would say EDR, HDR and NDR are enabled, and a link that both ends
 * keep at QDR on purpose would be reported degraded.
 */
static void test_ext_speeds_disabled(void **state)
{
	uint8_t mad[IBS_MAD_SIZE];
	struct ibs_port a, b;
	const char *why = NULL;

	(void)state;
	portinfo_ext_disabled(mad);
	memset(&a, 0, sizeof(a));
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &a.pi), IBS_OK);
	assert_int_equal(a.pi.lid, 7);
	assert_int_equal(a.pi.cap_mask, IBS_CAP_EXT_SPEEDS);
	assert_int_equal(a.pi.state, 4);
	assert_int_equal(a.pi.speed_active, 4);
	assert_int_equal(a.pi.speed_ext_supported, 0x0f);
	assert_int_equal(a.pi.speed_ext_active, 0);
	assert_int_equal(a.pi.speed_ext_enabled, 0);
	a.valid = true;
	b = a;
	assert_false(ibs_link_degraded(&a, &b, &why));
	/* The same port with its extended speeds enabled (a set of bits) is degraded at QDR. */
	mad[IBS_SMP_DATA_OFFS + 63] = 0x0f;
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &a.pi), IBS_OK);
	assert_int_equal(a.pi.speed_ext_enabled, 0x0f);
	b = a;
	assert_true(ibs_link_degraded(&a, &b, &why));
	assert_string_equal(why, "speed");
}

/*
 * A CA port running XDR (IBA 14.2.5.6 as libibmad's tables lay it out):
 * CapabilityMask IsExtendedSpeedsSupported and IsCapabilityMask2Supported,
 * CapabilityMask2 IsExtendedSpeeds2Supported (0x0800), and in byte 56 of the
 * attribute LinkSpeedExtActive2, LinkSpeedExtSupported2 and
 * LinkSpeedExtEnabled2 set to XDR; LinkSpeedExt* still say NDR is supported
 * and enabled, none active.
 */
static void portinfo_xdr(uint8_t *mad, bool cap2)
{
	uint8_t *d = mad + IBS_SMP_DATA_OFFS;

	portinfo_ext_disabled(mad);
	d[22] = 0xc0;			 /* CapabilityMask bits 14, 15 */
	d[56] = 1 << 5 | 1 << 3 | 1;	 /* LinkSpeedExtActive2, Supported2, Enabled2: XDR */
	d[60] = cap2 ? 0x08 : 0;	 /* CapabilityMask2 0x0800 */
	d[63] = 0x0f;			 /* LinkSpeedExtEnabled FDR..NDR */
}

/* An XDR link reads as XDR, at XDR's lane rate, and not degraded; without CapabilityMask2's bit, as before. */
static void test_xdr_link(void **state)
{
	uint8_t mad[IBS_MAD_SIZE];
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *a, *b;
	struct ibs_link_rate r;
	unsigned speed, ext;
	const char *why = NULL;

	(void)state;
	portinfo_xdr(mad, true);
	a = fb_node(f, IBS_NODE_CA, 1, 1, 0);
	b = fb_node(f, IBS_NODE_CA, 1, 2, 0);
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &a->ports[1].pi), IBS_OK);
	assert_int_equal(a->ports[1].pi.cap_mask2, 0x0800);
	a->ports[1].valid = true;
	b->ports[1] = a->ports[1];
	assert_true(ibs_fabric_connect(a, 1, b, 1));
	ibs_fabric_fix_ext_speeds(f);
	ibs_port_active_rate(&a->ports[1], &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "XDR");
	assert_int_equal(ibs_speed_mbps(r.speed, r.speed_ext), 212500);
	assert_false(ibs_node_link_degraded(a, 1, b, 1, &why));
	assert_true(ibs_link_best_rate(&a->ports[1], &b->ports[1], &r));
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "XDR");
	assert_true(ibs_speed_code("XDR", &speed, &ext));
	assert_int_equal(ext, r.speed_ext);
	assert_false(ibs_speed_code("?", &speed, &ext));
	ibs_fabric_free(f);

	/* Without IsExtendedSpeeds2Supported byte 56 means nothing: NDR supported, none active. */
	f = ibs_fabric_new();
	portinfo_xdr(mad, false);
	a = fb_node(f, IBS_NODE_CA, 1, 1, 0);
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &a->ports[1].pi), IBS_OK);
	a->ports[1].valid = true;
	ibs_fabric_fix_ext_speeds(f);
	ibs_port_active_rate(&a->ports[1], &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "QDR");
	assert_true(ibs_link_best_rate(&a->ports[1], &a->ports[1], &r));
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "NDR");
	ibs_fabric_free(f);
}

/* Two CA ports cabled together, both with PortInfo pi and ExtendedPortInfo epi, speeds settled. */
static struct ibs_fabric *fdr10_pair(const uint8_t *pi, const uint8_t *epi, struct ibs_node **a, struct ibs_node **b)
{
	struct ibs_fabric *f = ibs_fabric_new();

	*a = fb_node(f, IBS_NODE_CA, 1, 1, 0);
	*b = fb_node(f, IBS_NODE_CA, 1, 2, 0);
	assert_int_equal(ibs_decode_portinfo(pi, IBS_MAD_SIZE, &(*a)->ports[1].pi), IBS_OK);
	assert_int_equal(ibs_decode_mlnx_ext_portinfo(epi, IBS_MAD_SIZE, &(*a)->ports[1].pi), IBS_OK);
	(*a)->ports[1].valid = true;
	(*b)->ports[1] = (*a)->ports[1];
	assert_true(ibs_fabric_connect(*a, 1, *b, 1));
	ibs_fabric_fix_ext_speeds(f);
	return f;
}

/*
 * FDR10: PortInfo says 4x QDR and no extended speeds; Mellanox
 * ExtendedPortInfo (bytes 7, 11, 15 of its data: LinkSpeedSupported, Enabled,
 * Active, bit 0 FDR10) says what the link really runs.
 */
static void test_fdr10_link(void **state)
{
	uint8_t pi[IBS_MAD_SIZE], epi[IBS_MAD_SIZE];
	uint8_t *d = epi + IBS_SMP_DATA_OFFS, *p = pi + IBS_SMP_DATA_OFFS;
	struct ibs_portinfo short_pi;
	struct ibs_fabric *f;
	struct ibs_node *a, *b;
	struct ibs_link_rate r;
	unsigned speed, ext;
	const char *why = NULL;

	(void)state;
	memset(pi, 0, sizeof(pi));
	mad_set_field(p, 0, IB_PORT_LINK_WIDTH_ENABLED_F, 3);
	mad_set_field(p, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, 3);
	mad_set_field(p, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
	mad_set_field(p, 0, IB_PORT_LINK_SPEED_SUPPORTED_F, 7);
	mad_set_field(p, 0, IB_PORT_LINK_SPEED_ENABLED_F, 7);
	mad_set_field(p, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);
	mad_set_field(p, 0, IB_PORT_STATE_F, 4);
	mad_set_field(p, 0, IB_PORT_PHYS_STATE_F, 5);
	memset(epi, 0, sizeof(epi));
	d[7] = d[11] = d[15] = 1;
	/* An answer too short for byte 15 is malformed. */
	assert_int_equal(ibs_decode_mlnx_ext_portinfo(epi, IBS_SMP_DATA_OFFS + 15, &short_pi), IBS_E_MALFORMED);

	f = fdr10_pair(pi, epi, &a, &b);
	assert_int_equal(a->ports[1].pi.mlnx_speed_supported, 1);
	assert_int_equal(a->ports[1].pi.mlnx_speed_enabled, 1);
	assert_int_equal(a->ports[1].pi.mlnx_speed_active, 1);
	assert_int_equal(a->ports[1].pi.speed_active, 4); /* PortInfo's own word is kept */
	ibs_port_active_rate(&a->ports[1], &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "FDR10");
	assert_int_equal(ibs_speed_mbps(r.speed, r.speed_ext), 10312);
	assert_false(ibs_node_link_degraded(a, 1, b, 1, &why));
	assert_true(ibs_link_best_rate(&a->ports[1], &b->ports[1], &r));
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "FDR10");
	assert_true(ibs_speed_code("FDR10", &speed, &ext));
	assert_int_equal(ext, IBS_SPEED_EXT_FDR10);
	assert_int_equal(speed, 4);
	ibs_fabric_free(f);

	/* FDR10 enabled at both ends but not active: the link runs QDR, below what both ends can. */
	d[15] = 0;
	f = fdr10_pair(pi, epi, &a, &b);
	ibs_port_active_rate(&a->ports[1], &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "QDR");
	assert_true(ibs_node_link_degraded(a, 1, b, 1, &why));
	assert_string_equal(why, "speed");
	ibs_fabric_free(f);
}

/* Decoded fields equal what libibmad's mad_get_field reads, on random bytes. */
static void test_fields_match_libibmad(void **state)
{
	unsigned seed = 12345, k, i, nodes = 0;

	(void)state;
	for (k = 0; k < 2000; k++) {
		uint8_t mad[IBS_MAD_SIZE], d[IBS_MAD_SIZE];
		struct ibs_portinfo pi;
		struct ibs_nodeinfo ni;
		struct ibs_mad_hdr h;
		for (i = 0; i < IBS_MAD_SIZE; i++) {
			seed = seed * 1103515245u + 12345u;
			mad[i] = (uint8_t)(seed >> 16);
		}
		if (k % 4)
			mad_set_field(mad + IBS_SMP_DATA_OFFS, 0, IB_NODE_TYPE_F, 1 + k % 3); /* a valid type */
		memset(d, 0, sizeof(d));
		memcpy(d, mad + IBS_SMP_DATA_OFFS, IBS_SMP_DATA_SIZE);
		assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &pi), IBS_OK);
		assert_int_equal(pi.lid, mad_get_field(d, 0, IB_PORT_LID_F));
		assert_int_equal(pi.cap_mask, mad_get_field(d, 0, IB_PORT_CAPMASK_F));
		assert_int_equal(pi.state, mad_get_field(d, 0, IB_PORT_STATE_F));
		assert_int_equal(pi.phys_state, mad_get_field(d, 0, IB_PORT_PHYS_STATE_F));
		assert_int_equal(pi.lmc, mad_get_field(d, 0, IB_PORT_LMC_F));
		assert_int_equal(pi.width_active, mad_get_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F));
		assert_int_equal(pi.speed_active, mad_get_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F));
		assert_int_equal(pi.speed_ext_active, mad_get_field(d, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F));
		assert_int_equal(pi.neighbor_mtu, mad_get_field(d, 0, IB_PORT_NEIGHBOR_MTU_F));
		assert_int_equal(pi.guid_cap, mad_get_field(d, 0, IB_PORT_GUID_CAP_F));
		assert_true(pi.gid_prefix == mad_get_field64(d, 0, IB_PORT_GID_PREFIX_F));
		/* NodeInfo refuses some random bytes (a node type out of range, say). */
		if (ibs_decode_nodeinfo(mad, sizeof(mad), &ni) == IBS_OK) {
			nodes++;
			assert_true(ni.node_guid == mad_get_field64(d, 0, IB_NODE_GUID_F));
			assert_int_equal(ni.num_ports, mad_get_field(d, 0, IB_NODE_NPORTS_F));
			assert_int_equal(ni.local_port, mad_get_field(d, 0, IB_NODE_LOCAL_PORT_F));
			assert_int_equal(ni.vendor_id, mad_get_field(d, 0, IB_NODE_VENDORID_F));
		}
		assert_int_equal(ibs_mad_decode_hdr(mad, 24 + k % 200, &h), IBS_OK);
		assert_true(h.tid == mad_get_field64(mad, 0, IB_MAD_TRID_F));
		assert_int_equal(h.attr_mod, mad_get_field(mad, 0, IB_MAD_ATTRMOD_F));
		assert_int_equal(h.status, mad_get_field(mad, 0, IB_MAD_STATUS_F));
		assert_int_equal(h.method & 0x7f, mad_get_field(mad, 0, IB_MAD_METHOD_F));
	}
	assert_true(nodes >= 1500);
}

/* The template encoder writes what mad_build_pkt writes, byte for byte. */
static void test_encode_matches_libibmad(void **state)
{
	unsigned seed = 777, k, i;

	(void)state;
	for (k = 0; k < 3000; k++) {
		struct ibs_mad_req req;
		struct ibs_addr a;
		uint8_t ports[IBS_DR_MAX_HOPS], fast[IBS_MAD_SIZE], ref[IBS_MAD_SIZE];
		unsigned hops;
		uint64_t tid;
		seed = seed * 1103515245u + 12345u;
		hops = (seed >> 8) % (IBS_DR_MAX_HOPS + 1);
		for (i = 0; i < hops; i++)
			ports[i] = (uint8_t)(1 + (seed >> (i % 16)) % 254);
		ibs_addr_dr(&a, ports, hops);
		/* 20 attributes: more than the template cache holds, so both paths run. */
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, (uint16_t)(0x10 + k % 20), seed * 2654435761u);
		tid = (uint64_t)seed << 20 | k;
		memset(fast, 0xa5, sizeof(fast));
		assert_int_equal(ibs_mad_encode(&req, tid, 0, fast), IBS_OK);
		assert_int_equal(ibs_mad_encode_lib(&req, tid, ref), IBS_OK);
		assert_memory_equal(fast, ref, IBS_MAD_SIZE);
	}
}

/* --m-key: every SMP carries the key, directed-route or LID-routed, template or not; GMPs do not. */
static void test_mkey_in_smps(void **state)
{
	static const uint8_t path[] = { 0, 1, 3 };
	uint8_t mad[IBS_MAD_SIZE], data[64] = { 0 };
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint64_t key = 0x0123456789abcdefull;

	(void)state;
	ibs_addr_dr(&a, path, 2);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0); /* a template */
	assert_int_equal(ibs_mad_encode(&req, 1, key, mad), IBS_OK);
	assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) == 0x0123456789abcdefull);
	req.method = IBS_METHOD_SET; /* through libibmad */
	req.data = data;
	req.data_len = sizeof(data);
	assert_int_equal(ibs_mad_encode(&req, 2, key, mad), IBS_OK);
	assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) == 0x0123456789abcdefull);
	ibs_addr_lid(&a, 5, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_PORT_INFO, 1);
	assert_int_equal(ibs_mad_encode(&req, 3, key, mad), IBS_OK);
	assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) == 0x0123456789abcdefull);
	ibs_addr_lid(&a, 5, 1);
	ibs_req_get(&req, &a, IBS_CLASS_PMA, IBS_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(ibs_mad_encode(&req, 4, key, mad), IBS_OK);
	assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) == 0);
	key = 0;
	ibs_addr_dr(&a, path, 2);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	assert_int_equal(ibs_mad_encode(&req, 5, key, mad), IBS_OK);
	assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_dr_nodeinfo),
		cmocka_unit_test(test_encode_rejects_long_path),
		cmocka_unit_test(test_pma_payload),
		cmocka_unit_test(test_decode_nodeinfo),
		cmocka_unit_test(test_decode_short_is_error),
		cmocka_unit_test(test_decode_exact_length),
		cmocka_unit_test(test_nodedesc_sanitised),
		cmocka_unit_test(test_decode_sl2vl),
		cmocka_unit_test(test_addr_roundtrip),
		cmocka_unit_test(test_status_words),
		cmocka_unit_test(test_ext_speeds_disabled),
		cmocka_unit_test(test_xdr_link),
		cmocka_unit_test(test_fdr10_link),
		cmocka_unit_test(test_fields_match_libibmad),
		cmocka_unit_test(test_encode_matches_libibmad),
		cmocka_unit_test(test_mkey_in_smps),
	};
	return cmocka_run_group_tests_name("mad", tests, NULL, NULL);
}
