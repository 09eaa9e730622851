/* Unit tests of the topology view (output/topo.c): its JSON schema and its text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "lib/rendered.h"
#include "../../output/topo.h"

static void test_json_schema(void **state)
{
	struct ibs_fabric *f = rendered_2sw();
	char *s = rendered_topology(f, EMIT_JSON);
	json_error_t err;
	json_t *j = json_loads(s, 0, &err), *nodes, *n, *p, *links;
	size_t i;

	(void)state;
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), IBS_TOPOLOGY_SCHEMA);
	assert_true(json_is_false(json_object_get(j, "partial")));
	nodes = json_object_get(j, "nodes");
	assert_int_equal(json_array_size(nodes), 4);
	/* GUIDs above 2^63 are strings, never negative numbers. */
	n = json_array_get(nodes, 3);
	assert_string_equal(json_string_value(json_object_get(n, "guid")), "0xf452140300200001");
	assert_string_equal(json_string_value(json_object_get(n, "type")), "switch");
	assert_string_equal(json_string_value(json_object_get(n, "description")), "Switch \"2\"");
	json_array_foreach(nodes, i, n) {
		const char *keys[] = { "index", "type", "guid", "lid", "num_ports", "name", "description",
				       "system_image_guid", "dr_path", "ports", "error" };
		size_t k;
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			assert_non_null(json_object_get(n, keys[k]));
		assert_int_equal(json_integer_value(json_object_get(n, "index")), (json_int_t)i);
	}
	p = json_array_get(json_object_get(json_array_get(nodes, 0), "ports"), 0);
	assert_string_equal(json_string_value(json_object_get(p, "state")), "Active");
	assert_string_equal(json_string_value(json_object_get(p, "width")), "4x");
	assert_string_equal(json_string_value(json_object_get(p, "speed")), "SDR");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "peer"), "guid")), "0x0000000000200000");
	links = json_object_get(j, "links");
	assert_int_equal(json_array_size(links), 3);
	assert_true(json_is_array(json_object_get(j, "errors")));
	json_decref(j);
	free(s);
	ibs_fabric_free(f);
}

static void test_text_view(void **state)
{
	struct ibs_fabric *f = rendered_2sw();
	char *s = rendered_topology(f, EMIT_TEXT);

	(void)state;
	assert_non_null(strstr(s, "topology: 4 nodes (2 switches, 2 CAs, 0 routers), 3 links\n"));
	assert_non_null(strstr(s, "ca     0x0000000000100000 LID 3, 1 ports \"node01 mlx5_0\", path 0,1\n"));
	assert_non_null(strstr(s, "    [ 3] Active LinkUp     4x SDR -> switch 0xf452140300200001[3] \"Switch \"2\"\""));
	assert_null(strstr(s, "PARTIAL"));
	free(s);
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_schema),
		cmocka_unit_test(test_text_view),
	};
	return cmocka_run_group_tests_name("topo", tests, NULL, NULL);
}
