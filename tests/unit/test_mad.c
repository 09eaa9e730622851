/*
 * Unit tests of the MAD codec's requests and common header (core/mad/mad.c):
 * directed-route and PMA requests encoded, the template encoder against
 * libibmad's mad_build_pkt, the M_Key in SMPs, the header decoded against
 * libibmad, and the status word. The attribute decoders are test_smp.c's
 * and test_gmp.c's, the names test_mad_names.c's, addresses test_addr.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

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

/* The decoded header equals what libibmad's mad_get_field reads, on the random bytes test_smp.c decodes too. */
static void test_hdr_matches_libibmad(void **state)
{
	uint8_t mad_short[23] = { 0 };
	struct ibs_mad_hdr hs;
	unsigned seed = 12345, k, i;

	(void)state;
	for (k = 0; k < 2000; k++) {
		uint8_t mad[IBS_MAD_SIZE];
		struct ibs_mad_hdr h;
		for (i = 0; i < IBS_MAD_SIZE; i++) {
			seed = seed * 1103515245u + 12345u;
			mad[i] = (uint8_t)(seed >> 16);
		}
		assert_int_equal(ibs_mad_decode_hdr(mad, 24 + k % 200, &h), IBS_OK);
		assert_true(h.tid == mad_get_field64(mad, 0, IB_MAD_TRID_F));
		assert_int_equal(h.attr_mod, mad_get_field(mad, 0, IB_MAD_ATTRMOD_F));
		assert_int_equal(h.status, mad_get_field(mad, 0, IB_MAD_STATUS_F));
		assert_int_equal(h.method & 0x7f, mad_get_field(mad, 0, IB_MAD_METHOD_F));
	}
	/* Shorter than the common header: an error, never a read past the end. */
	assert_int_equal(ibs_mad_decode_hdr(mad_short, 23, &hs), IBS_E_MALFORMED);
}

/* The status a MAD reports, without the direction bit of a directed-route SMP. */
static void test_status_words(void **state)
{
	struct ibs_mad_hdr h = { 0 };

	(void)state;
	h.mgmt_class = IBS_CLASS_SMI_DR;
	h.status = 0x801c; /* D bit + invalid attribute */
	assert_int_equal(ibs_mad_status(&h), 0x1c);
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
		cmocka_unit_test(test_encode_dr_nodeinfo), cmocka_unit_test(test_encode_rejects_long_path),
		cmocka_unit_test(test_pma_payload),        cmocka_unit_test(test_hdr_matches_libibmad),
		cmocka_unit_test(test_status_words),       cmocka_unit_test(test_encode_matches_libibmad),
		cmocka_unit_test(test_mkey_in_smps),
	};
	return cmocka_run_group_tests_name("mad", tests, NULL, NULL);
}
