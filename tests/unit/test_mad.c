/* Unit tests of the MAD codec (core/mad/mad.h: mad.c, smp.c, names.c) and of MAD addresses (addr.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fake_transport.h"
#include "../../core/mad/mad.h"

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
		cmocka_unit_test(test_encode_dr_nodeinfo),    cmocka_unit_test(test_encode_rejects_long_path),
		cmocka_unit_test(test_pma_payload),           cmocka_unit_test(test_decode_nodeinfo),
		cmocka_unit_test(test_decode_short_is_error), cmocka_unit_test(test_decode_exact_length),
		cmocka_unit_test(test_nodedesc_sanitised),    cmocka_unit_test(test_decode_sl2vl),
		cmocka_unit_test(test_addr_roundtrip),        cmocka_unit_test(test_status_words),
		cmocka_unit_test(test_fields_match_libibmad), cmocka_unit_test(test_encode_matches_libibmad),
		cmocka_unit_test(test_mkey_in_smps),
	};
	return cmocka_run_group_tests_name("mad", tests, NULL, NULL);
}
