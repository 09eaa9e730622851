/* Unit tests of the topology loaders (fabric/load/load.c: JSON, netfile) on bad files, and a NUL line in a capture. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/capture/format.h"
#include "../../fabric/load/load.h"

static void test_load_errors(void **state)
{
	const char *cases[][2] = {
		{ "{", "x:1: not valid JSON:" },
		{ "{\"schema\": \"ibscan.nodes/1\"}", "x: not an ibscan topology" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"12\"}]}",
		  "x: node 0: missing or bad \"guid\"" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x1\", \"type\": \"ca\", \"num_ports\": 1,"
		  " \"ports\": [{\"port\": 1, \"peer\": {\"index\": 7, \"port\": 1}}]}]}",
		  "x: node 0: a peer has a bad index or port" },
		/* strtoull took these: "0x" then a sign or a blank, and 17 digits wrapped. */
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x-1\"}]}",
		  "x: node 0: missing or bad \"guid\" (want 0x and 1 to 16 hex digits)" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x 1\"}]}",
		  "x: node 0: missing or bad \"guid\"" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x1\", \"type\": \"ca\", \"num_ports\": 1,"
		  " \"port_guid\": \"0x-2\"}]}",
		  "x: node 0: bad \"system_image_guid\" or \"port_guid\"" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x1\", \"type\": \"ca\", \"num_ports\": 1,"
		  " \"ports\": [{\"port\": 1, \"guid\": \"0x+5\"}]}]}",
		  "x: node 0: a port has a bad \"guid\"" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [], \"local\": {\"node_guid\": \"0x10000000000000000\"}}",
		  "x: \"local\" has a bad GUID" },
		/* Taken before without a word: a LID no port can have, a port twice, a cable from a port to itself. */
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x1\", \"type\": \"ca\", \"num_ports\": 1,"
		  " \"ports\": [{\"port\": 1, \"state\": \"Active\", \"lid\": 70000}]}]}",
		  "x: node 0: a port has a bad \"lid\"" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x1\", \"type\": \"ca\", \"num_ports\": 1,"
		  " \"ports\": [{\"port\": 1, \"state\": \"Active\", \"lid\": 1.5}]}]}",
		  "x: node 0: a port has a bad \"lid\"" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x1\", \"type\": \"ca\", \"num_ports\": 1,"
		  " \"ports\": [{\"port\": 1, \"lmc\": 8}]}]}",
		  "x: node 0: a port has a bad \"lid\" (0 to 65535) or \"lmc\" (0 to 7)" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x1\", \"type\": \"ca\", \"num_ports\": 1,"
		  " \"ports\": [{\"port\": 1}, {\"port\": 1}]}]}",
		  "x: node 0: a port is listed twice" },
		{ "{\"schema\": \"ibscan.topology/1\", \"nodes\": [{\"index\": 0, \"guid\": \"0x1\", \"type\": \"switch\", \"num_ports\": 2,"
		  " \"ports\": [{\"port\": 2, \"peer\": {\"index\": 0, \"port\": 2}}]}]}",
		  "x: node 0: a port is its own peer" },
	};
	const char *net[][2] = {
		{ "garbage\n", "n:1: unrecognised line" },
		{ "Switch 8 \"S-0000000000000001\"\n[9] \"S-0000000000000001\"[1]\n", "n:2: port line: bad port number" },
		{ "Switch 8 \"S-0000000000000001\"\n[1] \"nosuch\"[1]\n", "n:2: peer node id not defined" },
		{ "Ca 2 \"H-nothex\"\n", "n:1: node has no GUID" },
		{ "[1] \"x\"[1]\n", "n:1: port line before any node line" },
		{ "# only comments\n", "n:1: no nodes" },
		{ "caguid=-1\nCa 1 \"H-0000000000000001\"\n", "n:1: bad GUID (want 0x and 1 to 16 hex digits)" },
		{ "sysimgguid=0x+1\n", "n:1: bad GUID" },
		{ "switchguid=0x10000000000000001(1)\n", "n:1: bad GUID" },
		{ "Ca 1 \"H-0000000000000001\"\n[1](-5) \"H-0000000000000001\"[1]\n", "n:2: port line: bad (port GUID)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibs_fabric *f = NULL;
		char *msg = NULL;
		assert_int_equal(ibs_fabric_parse_json("x", cases[i][0], strlen(cases[i][0]), &f, &msg), IBS_E_INPUT);
		assert_null(f);
		assert_non_null(strstr(msg, cases[i][1]));
		free(msg);
	}
	for (i = 0; i < sizeof(net) / sizeof(net[0]); i++) {
		struct ibs_fabric *f = NULL;
		char *msg = NULL;
		assert_int_equal(ibs_fabric_parse_netfile("n", net[i][0], strlen(net[i][0]), &f, &msg), IBS_E_INPUT);
		assert_null(f);
		if (!strstr(msg, net[i][1]))
			fail_msg("%s: got '%s'", net[i][1], msg);
		free(msg);
	}
}

/* A NUL byte is named at its own line (it was said to be on line 1 wherever it was). */
static void test_load_nul_line(void **state)
{
	static const char net[] = "# a netfile\nSwitch 2 \"S-1\"\n\0\n";
	static const char cap[] = "ibscan-capture 1\n# ok\n\n\0";
	struct ibs_fabric *f = NULL;
	struct ibs_capture *c = NULL;
	char *msg = NULL;

	(void)state;
	assert_int_equal(ibs_fabric_parse_netfile("n", net, sizeof(net) - 1, &f, &msg), IBS_E_INPUT);
	assert_string_equal(msg, "n:3: NUL byte: not a topology file (binary?)");
	free(msg);
	assert_int_equal(ibs_capture_parse("c", cap, sizeof(cap) - 1, &c, &msg), IBS_E_INPUT);
	assert_string_equal(msg, "c:4: NUL byte: this is not a capture (binary file?)");
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_nul_line),
	};
	return cmocka_run_group_tests_name("load", tests, NULL, NULL);
}
