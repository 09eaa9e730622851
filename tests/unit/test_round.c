/* Unit tests of the rounding of measured figures (core/base/round.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>

#include "../../core/base/round.h"

/* Significant digits and decimals, half away from zero; NaN, infinities and 0 as they are. */
static void test_round_sig_dec(void **state)
{
	(void)state;
	assert_true(ibs_round_sig(12345678, 4) == 12350000);
	assert_true(ibs_round_sig(-0.0012345, 2) == -0.0012);
	assert_true(ibs_round_sig(9.9996, 4) == 10);
	assert_true(ibs_round_dec(2.0 / 3, 3) == 0.667);
	assert_true(ibs_round_dec(0.5, 0) == 1);
	assert_true(isnan(ibs_round_sig(NAN, 4)) && isinf(ibs_round_dec(INFINITY, 3)) && ibs_round_sig(0, 4) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_sig_dec),
	};
	return cmocka_run_group_tests_name("round", tests, NULL, NULL);
}
