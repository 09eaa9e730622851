/*
 * Unit tests of the node-name map (fabric/load/namemap.c): its syntax,
 * a GUID named twice, names cleaned where they enter, every malformed line
 * named by file:line, and the names applied to a walked fabric. That a
 * mapped name reaches a drawing and a finding whole is test_dot.c's
 * test_long_names_whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabrics.h"
#include "../../fabric/load/namemap.h"

/* A map's names, comments and blanks; applied, a node it names is named so and the others keep their own. */
static void test_namemap(void **state)
{
	const char *map = "# comment\n\n0x200000 \"spine-a\"\n  0x0000000000100000   \"node-one\" # trailing\n"
			  "0x100010 bare\n";
	struct ibs_namemap *m;
	struct ibs_fabric *f;
	struct ff ff;
	char *msg = NULL;

	(void)state;
	assert_int_equal(ibs_namemap_parse("m", map, strlen(map), &m, &msg), IBS_OK);
	assert_int_equal(ibs_namemap_count(m), 3);
	assert_string_equal(ibs_namemap_get(m, 0x100000), "node-one");
	assert_string_equal(ibs_namemap_get(m, 0x100010), "bare");
	assert_null(ibs_namemap_get(m, 0x1));
	ff_2sw4ca(&ff);
	f = ff_walk(&ff, NULL);
	assert_non_null(f);
	ibs_namemap_apply(m, f);
	/* What every renderer names a node by. */
	assert_string_equal(ibs_node_name(ibs_fabric_find_guid(f, 0x200000)), "spine-a");
	assert_string_equal(ibs_node_name(ibs_fabric_find_guid(f, 0x100000)), "node-one");
	assert_null(ibs_fabric_find_guid(f, 0x200001)->name);
	assert_string_equal(ibs_node_name(ibs_fabric_find_guid(f, 0x200001)), "Switch2");
	assert_string_equal(ibs_node_name(ibs_fabric_find_guid(f, 0x100004)), "hca");
	ibs_fabric_free(f);
	ibs_namemap_free(m);
}

/* A GUID named twice keeps its first name, with a warning naming both lines; names are cleaned. */
static void test_namemap_strict(void **state)
{
	const char *dup = "0x1 \"first\"\n0x2 two\n0x1 second\n0x1 \"\x1b[31mred\xe2\x80\xae\"\n";
	const char *const *w;
	struct ibs_namemap *m;
	char *msg = NULL;

	(void)state;
	assert_int_equal(ibs_namemap_parse("m", dup, strlen(dup), &m, &msg), IBS_OK);
	assert_int_equal(ibs_namemap_count(m), 2);
	assert_string_equal(ibs_namemap_get(m, 1), "first");
	assert_string_equal(ibs_namemap_get(m, 2), "two");
	assert_int_equal(ibs_namemap_warnings(m, &w), 2);
	assert_string_equal(w[0], "m:3: GUID 0x0000000000000001 is named again; the name on line 1 ('first') is kept");
	assert_string_equal(w[1], "m:4: GUID 0x0000000000000001 is named again; the name on line 1 ('first') is kept");
	ibs_namemap_free(m);
	/* Names are cleaned where they enter. */
	dup = "0x1 \"\x1b[31mred\xe2\x80\xae\x9b\"\n";
	assert_int_equal(ibs_namemap_parse("m", dup, strlen(dup), &m, &msg), IBS_OK);
	assert_string_equal(ibs_namemap_get(m, 1), "\\x1b[31mred\\u{202e}\\x9b");
	assert_int_equal(ibs_namemap_warnings(m, &w), 0);
	ibs_namemap_free(m);
}

static void test_namemap_errors(void **state)
{
	struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "0x1 \"a\"\nzzz \"b\"\n", "m:2: expected a GUID (0x and 1 to 16 hex digits) followed by a name" },
		{ "0x1 \"unterminated\n", "m:1: unterminated quoted name" },
		{ "0x1\n", "m:1: expected a GUID (0x and 1 to 16 hex digits) followed by a name" },
		{ "0x1 \"\"\n", "m:1: empty name" },
		{ "0x1 \"a\"\n\n\n0x99999999999999999999 \"b\"\n",
		  "m:4: expected a GUID (0x and 1 to 16 hex digits) followed by a name" },
		/* strtoull would take these: a sign, a blank, a decimal -1, 17 digits. */
		{ "-1 \"x\"\n", "m:1: expected a GUID (0x and 1 to 16 hex digits) followed by a name" },
		{ "0x-1 \"x\"\n", "m:1: expected a GUID (0x and 1 to 16 hex digits) followed by a name" },
		{ "# c\n0x +1 \"x\"\n", "m:2: expected a GUID (0x and 1 to 16 hex digits) followed by a name" },
		{ "0x10000000000000000 x\n", "m:1: expected a GUID (0x and 1 to 16 hex digits) followed by a name" },
		{ "0x1 node01 extra\n", "m:1: text after the name (put a name with blanks in double quotes)" },
		{ "0x1 \"node01\" extra\n", "m:1: text after the name (put a name with blanks in double quotes)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibs_namemap *m = NULL;
		char *msg = NULL;
		assert_int_equal(ibs_namemap_parse("m", cases[i].text, strlen(cases[i].text), &m, &msg), IBS_E_INPUT);
		assert_null(m);
		assert_string_equal(msg, cases[i].msg);
		free(msg);
	}
	{
		char big[IBS_NAMEMAP_MAX_LINE + 10];
		struct ibs_namemap *m = NULL;
		char *msg = NULL;
		memset(big, 'a', sizeof(big));
		assert_int_equal(ibs_namemap_parse("m", big, sizeof(big), &m, &msg), IBS_E_INPUT);
		assert_string_equal(msg, "m:1: line too long");
		free(msg);
		assert_int_equal(ibs_namemap_parse("m", "0x1 \"a\0b\"", 9, &m, &msg), IBS_E_INPUT);
		free(msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_namemap),
		cmocka_unit_test(test_namemap_strict),
		cmocka_unit_test(test_namemap_errors),
	};
	return cmocka_run_group_tests_name("namemap", tests, NULL, NULL);
}
