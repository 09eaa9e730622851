/*
 * core/mad/gmp.c's counter decoders, field by field: every counter of
 * PortCounters (IBA 16.1.3.5) and PortCountersExtended (16.1.4.11, with and
 * without the additional error counters) gets a distinct value written with
 * libibmad's own field tables, and must come back in its own member, each
 * attribute touching only the members it carries; likewise the 16-bit
 * PortRcvErrorDetails and PortXmitDiscardDetails (IBA 16.1.4.1-2), and
 * PortVLXmitWaitCounters (16.1.4.8) VL by VL, from libibmad's tables and
 * from raw bytes at the offsets the IBA gives; PortSamplesControl's Tick
 * (16.1.3.2) from raw bytes laid out as the kernel and libibmad have them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>

#include <infiniband/mad.h>

#include "../../core/mad/mad.h"

#define UNTOUCHED 0x5a5a5a5a5a5a5a5aull

struct row {
	const char *name;
	size_t at;
	enum MAD_FIELDS f; /* 0: not in this attribute */
};
#define M(m) #m, offsetof(struct ibs_pma_counters, m)

static uint64_t member(const struct ibs_pma_counters *c, size_t at)
{
	uint64_t v;
	memcpy(&v, (const char *)c + at, sizeof(v));
	return v;
}

/* Write a distinct value into each row's field (width bits wide), decode, compare every member. */
static void check(const struct row *rows, size_t n, unsigned bits,
		  enum ibs_err (*decode)(const uint8_t *, size_t, struct ibs_pma_counters *))
{
	uint8_t mad[IBS_MAD_SIZE], *d = mad + IBS_GMP_DATA_OFFS;
	struct ibs_pma_counters c;
	size_t i;

	memset(mad, 0, sizeof(mad));
	memset(&c, 0x5a, sizeof(c));
	for (i = 0; i < n; i++) {
		if (!rows[i].f)
			continue;
		if (bits == 64) {
			uint64_t v = 0x0100000000000000ull * (i + 1) + i + 1; /* beyond 32 bits */
			mad_encode_field(d, rows[i].f, &v);
		} else {
			uint32_t v = (uint32_t)(i + 1); /* small: fits the 8- and 16-bit fields too */
			mad_encode_field(d, rows[i].f, &v);
		}
	}
	assert_int_equal(decode(mad, sizeof(mad), &c), IBS_OK);
	for (i = 0; i < n; i++) {
		uint64_t want = !rows[i].f ? UNTOUCHED : bits == 64 ? 0x0100000000000000ull * (i + 1) + i + 1 : i + 1;
		if (member(&c, rows[i].at) != want)
			fail_msg("%s: 0x%llx, want 0x%llx", rows[i].name, (unsigned long long)member(&c, rows[i].at),
				 (unsigned long long)want);
	}
	/* Cut short: refused, not read past the end. */
	assert_int_equal(decode(mad, IBS_GMP_DATA_OFFS + 8, &c), IBS_E_MALFORMED);
}

static void test_port_counters(void **state)
{
	const struct row rows[] = {
		{ M(symbol_errors), IB_PC_ERR_SYM_F },
		{ M(link_error_recovery), IB_PC_LINK_RECOVERS_F },
		{ M(link_downed), IB_PC_LINK_DOWNED_F },
		{ M(rcv_errors), IB_PC_ERR_RCV_F },
		{ M(rcv_remote_phys_errors), IB_PC_ERR_PHYSRCV_F },
		{ M(rcv_switch_relay_errors), IB_PC_ERR_SWITCH_REL_F },
		{ M(xmit_discards), IB_PC_XMT_DISCARDS_F },
		{ M(xmit_constraint_errors), IB_PC_ERR_XMTCONSTR_F },
		{ M(rcv_constraint_errors), IB_PC_ERR_RCVCONSTR_F },
		{ M(local_link_integrity_errors), IB_PC_ERR_LOCALINTEG_F },
		{ M(excessive_buffer_overrun_errors), IB_PC_ERR_EXCESS_OVR_F },
		{ M(vl15_dropped), IB_PC_VL15_DROPPED_F },
		{ M(xmit_wait), IB_PC_XMT_WAIT_F },
		{ M(xmit_data), IB_PC_XMT_BYTES_F },
		{ M(rcv_data), IB_PC_RCV_BYTES_F },
		{ M(xmit_pkts), IB_PC_XMT_PKTS_F },
		{ M(rcv_pkts), IB_PC_RCV_PKTS_F },
		{ M(unicast_xmit_pkts), 0 },
		{ M(unicast_rcv_pkts), 0 },
		{ M(multicast_xmit_pkts), 0 },
		{ M(multicast_rcv_pkts), 0 },
	};
	(void)state;
	check(rows, sizeof(rows) / sizeof(rows[0]), 32, ibs_decode_port_counters);
}

static void test_port_counters_ext(void **state)
{
	const struct row rows[] = {
		{ M(xmit_data), IB_PC_EXT_XMT_BYTES_F },
		{ M(rcv_data), IB_PC_EXT_RCV_BYTES_F },
		{ M(xmit_pkts), IB_PC_EXT_XMT_PKTS_F },
		{ M(rcv_pkts), IB_PC_EXT_RCV_PKTS_F },
		{ M(unicast_xmit_pkts), IB_PC_EXT_XMT_UPKTS_F },
		{ M(unicast_rcv_pkts), IB_PC_EXT_RCV_UPKTS_F },
		{ M(multicast_xmit_pkts), IB_PC_EXT_XMT_MPKTS_F },
		{ M(multicast_rcv_pkts), IB_PC_EXT_RCV_MPKTS_F },
		{ M(symbol_errors), 0 },
		{ M(link_downed), 0 },
		{ M(xmit_wait), 0 },
	};
	(void)state;
	check(rows, sizeof(rows) / sizeof(rows[0]), 64, ibs_decode_port_counters_ext);
}

static void test_port_counters_ext_errors(void **state)
{
	const struct row rows[] = {
		{ M(symbol_errors), IB_PC_EXT_ERR_SYM_F },
		{ M(link_error_recovery), IB_PC_EXT_LINK_RECOVERS_F },
		{ M(link_downed), IB_PC_EXT_LINK_DOWNED_F },
		{ M(rcv_errors), IB_PC_EXT_ERR_RCV_F },
		{ M(rcv_remote_phys_errors), IB_PC_EXT_ERR_PHYSRCV_F },
		{ M(rcv_switch_relay_errors), IB_PC_EXT_ERR_SWITCH_REL_F },
		{ M(xmit_discards), IB_PC_EXT_XMT_DISCARDS_F },
		{ M(xmit_constraint_errors), IB_PC_EXT_ERR_XMTCONSTR_F },
		{ M(rcv_constraint_errors), IB_PC_EXT_ERR_RCVCONSTR_F },
		{ M(local_link_integrity_errors), IB_PC_EXT_ERR_LOCALINTEG_F },
		{ M(excessive_buffer_overrun_errors), IB_PC_EXT_ERR_EXCESS_OVR_F },
		{ M(vl15_dropped), IB_PC_EXT_VL15_DROPPED_F },
		{ M(xmit_wait), IB_PC_EXT_XMT_WAIT_F },
		{ M(xmit_data), 0 },
		{ M(unicast_rcv_pkts), 0 },
	};
	(void)state;
	check(rows, sizeof(rows) / sizeof(rows[0]), 64, ibs_decode_port_counters_ext_errors);
}

/*
 * PortRcvErrorDetails (IBA 16.1.4.1) and PortXmitDiscardDetails (16.1.4.2):
 * each 16-bit field gets a value with both bytes distinct, written with
 * libibmad's tables; each must come back in its own member, and neither
 * decoder touches the other attribute's members.
 */
struct drow {
	const char *name;
	size_t at;
	enum MAD_FIELDS f;
};
#define D(m) #m, offsetof(struct ibs_pma_details, m)

static void check_details(const struct drow *rows, size_t n,
			  enum ibs_err (*decode)(const uint8_t *, size_t, struct ibs_pma_details *))
{
	uint8_t mad[IBS_MAD_SIZE], *d = mad + IBS_GMP_DATA_OFFS;
	struct ibs_pma_details c;
	size_t i;

	memset(mad, 0, sizeof(mad));
	memset(&c, 0x5a, sizeof(c));
	for (i = 0; i < n; i++) {
		uint32_t v = (uint32_t)(0x1100 * (i + 1) + i + 1);
		if (rows[i].f)
			mad_encode_field(d, rows[i].f, &v);
	}
	assert_int_equal(decode(mad, sizeof(mad), &c), IBS_OK);
	for (i = 0; i < n; i++) {
		uint64_t got, want = rows[i].f ? 0x1100 * (i + 1) + i + 1 : UNTOUCHED;
		memcpy(&got, (const char *)&c + rows[i].at, sizeof(got));
		if (got != want)
			fail_msg("%s: 0x%llx, want 0x%llx", rows[i].name, (unsigned long long)got,
				 (unsigned long long)want);
	}
	assert_int_equal(decode(mad, IBS_GMP_DATA_OFFS + 8, &c), IBS_E_MALFORMED);
}

static void test_rcv_error_details(void **state)
{
	const struct drow rows[] = {
		{ D(local_physical), IB_PC_RCV_LOCAL_PHY_ERR_F },
		{ D(malformed), IB_PC_RCV_MALFORMED_PKT_ERR_F },
		{ D(buffer_overrun), IB_PC_RCV_BUF_OVR_ERR_F },
		{ D(dlid_mapping), IB_PC_RCV_DLID_MAP_ERR_F },
		{ D(vl_mapping), IB_PC_RCV_VL_MAP_ERR_F },
		{ D(looping), IB_PC_RCV_LOOPING_ERR_F },
		{ D(inactive), 0 },
		{ D(sw_hoq_lifetime_limit), 0 },
	};
	(void)state;
	check_details(rows, sizeof(rows) / sizeof(rows[0]), ibs_decode_rcv_error_details);
}

static void test_xmit_discard_details(void **state)
{
	const struct drow rows[] = {
		{ D(inactive), IB_PC_XMT_INACT_DISC_F },
		{ D(neighbor_mtu), IB_PC_XMT_NEIGH_MTU_DISC_F },
		{ D(sw_lifetime_limit), IB_PC_XMT_SW_LIFE_DISC_F },
		{ D(sw_hoq_lifetime_limit), IB_PC_XMT_SW_HOL_DISC_F },
		{ D(local_physical), 0 },
		{ D(looping), 0 },
	};
	(void)state;
	check_details(rows, sizeof(rows) / sizeof(rows[0]), ibs_decode_xmit_discard_details);
}

/*
 * PortVLXmitWaitCounters: each VL's 16-bit PortVLXmitWait written with
 * libibmad's table comes back in vl_xmit_wait[VL], the other attributes'
 * members untouched; and, independently of those tables, a big-endian
 * 16-bit value at data bytes 4 + 2 * VL (the IBA's layout after PortSelect
 * and CounterSelect) is that VL's.
 */
static void test_vl_xmit_wait(void **state)
{
	uint8_t mad[IBS_MAD_SIZE], *d = mad + IBS_GMP_DATA_OFFS;
	struct ibs_pma_details c;
	unsigned vl;

	(void)state;
	memset(mad, 0, sizeof(mad));
	memset(&c, 0x5a, sizeof(c));
	for (vl = 0; vl < IBS_N_VL; vl++) {
		uint32_t v = (0x10 + vl) << 8 | (0x80 + vl);
		mad_encode_field(d, (enum MAD_FIELDS)(IB_PC_PORT_VL_XMIT_WAIT0_F + vl), &v);
	}
	assert_int_equal(ibs_decode_vl_xmit_wait(mad, sizeof(mad), &c), IBS_OK);
	for (vl = 0; vl < IBS_N_VL; vl++)
		if (c.vl_xmit_wait[vl] != ((0x10 + vl) << 8 | (0x80 + vl)))
			fail_msg("VL%u: 0x%llx", vl, (unsigned long long)c.vl_xmit_wait[vl]);
	assert_int_equal(c.local_physical, UNTOUCHED);
	assert_int_equal(c.sw_hoq_lifetime_limit, UNTOUCHED);

	memset(mad, 0, sizeof(mad));
	for (vl = 0; vl < IBS_N_VL; vl++) {
		d[4 + 2 * vl] = (uint8_t)(0xa0 + vl);
		d[5 + 2 * vl] = (uint8_t)vl;
	}
	d[1] = 7;     /* PortSelect */
	d[2] = 0xff;  /* CounterSelect: not a counter */
	d[36] = 0xee; /* past VL15: not a counter either */
	assert_int_equal(ibs_decode_vl_xmit_wait(mad, sizeof(mad), &c), IBS_OK);
	for (vl = 0; vl < IBS_N_VL; vl++)
		assert_int_equal(c.vl_xmit_wait[vl], (0xa0 + vl) << 8 | vl);
	assert_int_equal(ibs_decode_vl_xmit_wait(mad, IBS_GMP_DATA_OFFS + 35, &c), IBS_E_MALFORMED);
}

/*
 * PortSamplesControl (IBA 16.1.3.2), bytes laid out as the kernel's struct
 * ib_pma_portsamplescontrol and libibmad's IB_PSC_* fields have them:
 * OpCode at data byte 0, PortSelect 1, Tick 2, CounterWidth (low 3 bits)
 * 3, then the counter masks. Only Tick is kept; a short answer is refused.
 */
static void test_port_samples_control(void **state)
{
	uint8_t mad[IBS_MAD_SIZE], *d = mad + IBS_GMP_DATA_OFFS;
	struct ibs_pma_details c;

	(void)state;
	memset(mad, 0, sizeof(mad));
	memset(&c, 0x5a, sizeof(c));
	d[0] = 0xff; /* OpCode */
	d[1] = 5;    /* PortSelect */
	d[2] = 0x07; /* Tick: 8 symbol times, as NVIDIA Quantum switches say */
	d[3] = 0x04; /* CounterWidth: 32 bits */
	d[4] = 0x3f; /* CounterMask0-9 */
	assert_int_equal(ibs_decode_port_samples_control(mad, sizeof(mad), &c), IBS_OK);
	assert_int_equal(c.psc_tick, 7);
	assert_int_equal(c.vl_xmit_wait[0], UNTOUCHED);
	assert_int_equal(c.local_physical, UNTOUCHED);
	d[2] = 0x1f; /* 32 symbol times: Switch-IB */
	assert_int_equal(ibs_decode_port_samples_control(mad, sizeof(mad), &c), IBS_OK);
	assert_int_equal(c.psc_tick, 31);
	d[2] = 0xff;
	assert_int_equal(ibs_decode_port_samples_control(mad, sizeof(mad), &c), IBS_OK);
	assert_int_equal(c.psc_tick, 255);
	assert_int_equal(ibs_decode_port_samples_control(mad, IBS_GMP_DATA_OFFS + 3, &c), IBS_E_MALFORMED);
	assert_int_equal(ibs_decode_port_samples_control(NULL, 0, &c), IBS_E_MALFORMED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_counters),
		cmocka_unit_test(test_port_counters_ext),
		cmocka_unit_test(test_port_counters_ext_errors),
		cmocka_unit_test(test_rcv_error_details),
		cmocka_unit_test(test_xmit_discard_details),
		cmocka_unit_test(test_vl_xmit_wait),
		cmocka_unit_test(test_port_samples_control),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
