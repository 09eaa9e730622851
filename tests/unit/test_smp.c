/*
 * Unit tests of the SMP attribute decoders (core/mad/smp.c): NodeInfo,
 * PortInfo, SwitchInfo, SMInfo, GUIDInfo, NodeDescription (cleaned) and
 * SLtoVLMappingTable, each refusing a response too short for it and reading
 * nothing past the end of one just long enough, and PortInfo and NodeInfo
 * field by field against libibmad.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fake_transport.h"
#include "../../core/base/text.h"
#include "../../core/mad/mad.h"

#include <infiniband/mad.h>

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
	v = 2;
	mad_encode_field(d, IB_NODE_TYPE_F, &v);
	v = 36;
	mad_encode_field(d, IB_NODE_NPORTS_F, &v);
	g = 0xf452140300abcdefull;
	mad_encode_field(d, IB_NODE_GUID_F, &g);
	g = 0xf452140300abcdeeull;
	mad_encode_field(d, IB_NODE_SYSTEM_GUID_F, &g);
	v = 0x02c9;
	mad_encode_field(d, IB_NODE_VENDORID_F, &v);
	v = 7;
	mad_encode_field(d, IB_NODE_LOCAL_PORT_F, &v);
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

/* Decoded PortInfo and NodeInfo fields equal what libibmad's mad_get_field reads, on random bytes. */
static void test_fields_match_libibmad(void **state)
{
	unsigned seed = 12345, k, i, nodes = 0;

	(void)state;
	for (k = 0; k < 2000; k++) {
		uint8_t mad[IBS_MAD_SIZE], d[IBS_MAD_SIZE];
		struct ibs_portinfo pi;
		struct ibs_nodeinfo ni;
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
	}
	assert_true(nodes >= 1500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_nodeinfo),     cmocka_unit_test(test_decode_short_is_error),
		cmocka_unit_test(test_decode_exact_length), cmocka_unit_test(test_nodedesc_sanitised),
		cmocka_unit_test(test_decode_sl2vl),        cmocka_unit_test(test_fields_match_libibmad),
	};
	return cmocka_run_group_tests_name("smp", tests, NULL, NULL);
}
