/* Unit tests of the forwarding tables' view (output/route.c, `routes --dump`). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "lib/rendered.h"
#include "../../output/route.h"

/* routes --dump of no switch in mode (text or JSON). */
static char *lfts_of(enum emit_mode mode)
{
	struct emit *e = emit_new(mode);

	render_lfts(e, NULL, 0);
	return emitted(e);
}

/* routes --dump of a fabric without switches says so in text (it printed nothing) and is [] in JSON. */
static void test_lfts_none(void **state)
{
	char *s = lfts_of(EMIT_TEXT);
	json_error_t err;
	json_t *j;

	(void)state;
	assert_string_equal(s, "no switches: the fabric has no forwarding tables\n");
	free(s);
	s = lfts_of(EMIT_JSON);
	j = json_loads(s, 0, &err);
	assert_non_null(j);
	assert_true(json_is_array(json_object_get(j, "switches")));
	assert_int_equal(json_array_size(json_object_get(j, "switches")), 0);
	json_decref(j);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lfts_none),
	};
	return cmocka_run_group_tests_name("output_route", tests, NULL, NULL);
}
