/* Unit tests of the names of MAD classes, methods, attributes and statuses (core/mad/names.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../core/mad/mad.h"

/* The words each MAD status is named by. */
static void test_status_words(void **state)
{
	(void)state;
	assert_string_equal(ibs_mad_status_str(0x1c), "invalid attribute or modifier");
	assert_string_equal(ibs_mad_status_str(0x0c), "method/attribute not supported");
	assert_string_equal(ibs_mad_status_str(1), "busy");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_words),
	};
	return cmocka_run_group_tests_name("mad_names", tests, NULL, NULL);
}
