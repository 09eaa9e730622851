/* Unit tests of MAD addresses (core/mad/addr.c): a directed route as text and back, LIDs, what is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../core/mad/addr.h"

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

/* A directed route of the longest length cannot be extended. */
static void test_addr_dr_extend_limit(void **state)
{
	struct ibs_addr a;

	(void)state;
	ibs_addr_dr(&a, NULL, 0);
	a.hops = 64;
	assert_false(ibs_addr_dr_extend(&a, &a, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr_roundtrip),
		cmocka_unit_test(test_addr_dr_extend_limit),
	};
	return cmocka_run_group_tests_name("addr", tests, NULL, NULL);
}
