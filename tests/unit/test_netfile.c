/* Unit tests of the ibnetdiscover topology file (output/netfile.c) that ibsim reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "lib/rendered.h"
#include "../../output/netfile.h"

/* f as an ibnetdiscover topology file. */
static char *netfile_of(const struct ibs_fabric *f)
{
	struct mem m;

	assert_int_equal(render_netfile(mem_open(&m), f), 0);
	return mem_take(&m);
}

static void test_netfile(void **state)
{
	struct ibs_fabric *f = rendered_2sw();
	char *s = netfile_of(f);

	(void)state;
	/* The local node first, as ibsim attaches to the first node. */
	assert_non_null(strstr(s, "\nswitchguid=0x200000(200000)\nSwitch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 1 lmc 0\n"));
	assert_true(strstr(s, "S-0000000000200000") < strstr(s, "S-f452140300200001"));
	assert_non_null(strstr(s, "[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"node01 mlx5_0\" lid 3 4xSDR\n"));
	assert_non_null(strstr(s, "caguid=0x100000\nCa\t1 \"H-0000000000100000\"\t\t# \"node01 mlx5_0\"\n"));
	/* Quotes in descriptions cannot break the format (ibsim would end the string there). */
	assert_non_null(strstr(s, "# \"Switch \\x222\\x22\""));
	free(s);
	ibs_fabric_free(f);
}

/* Nodes that share a GUID are told apart by their order: no suffix, then -1, -2 ... (as ibnetdiscover). */
static void test_netfile_dup_guids(void **state)
{
	static struct ff ff;
	struct ibs_fabric *f;
	char *s;
	int sw, p;

	(void)state;
	memset(&ff, 0, sizeof(ff));
	sw = ff_add(&ff, IB_NODE_SWITCH, 8, 0x200000, "Switch1");
	for (p = 1; p <= 4; p++)
		ff_link(&ff, sw, p, ff_add(&ff, IB_NODE_CA, 1, p == 2 ? 0x100010 : 0x100000, "node mlx5_0"), 1);
	f = ff_walk(&ff, NULL);
	assert_non_null(f);
	s = netfile_of(f);
	assert_non_null(strstr(s, "[1]\t\"H-0000000000100000\"[1]"));
	assert_non_null(strstr(s, "[2]\t\"H-0000000000100010\"[1]"));
	assert_non_null(strstr(s, "[3]\t\"H-0000000000100000-1\"[1]"));
	assert_non_null(strstr(s, "[4]\t\"H-0000000000100000-2\"[1]"));
	assert_null(strstr(s, "-3\""));
	free(s);
	ibs_fabric_free(f);
}

/* ibsim reads ' w=' after a port's peer as a port option, and lines of at most 255 bytes. */
static void test_netfile_ibsim_limits(void **state)
{
	struct ibs_fabric *f = rendered_2sw();
	char name[300], *s, *line, *save = NULL;
	size_t n;

	(void)state;
	/* 127 bytes, then a 2-byte character across the 128-byte cut, then more. */
	memset(name, 'a', 127);
	memcpy(name + 127, "\xc3\xbc w=3 e=99", 11);
	memset(name + 138, 'b', 152);
	ibs_node_set_desc(ibs_fabric_find_guid(f, 0x100000), name, 290);
	s = netfile_of(f);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(strlen(line) < 255);
		if (strstr(line, "aaaa")) {
			/* The description stops before the character it would have cut, and holds no '='. */
			assert_non_null(strstr(line, "\"" "aaaaaaa"));
			assert_null(strstr(line, "\xc3"));
			assert_null(strstr(line, "w="));
			n = strspn(strstr(line, "aaaa"), "a");
			assert_int_equal(n, 127);
		}
	}
	free(s);
	ibs_node_set_desc(ibs_fabric_find_guid(f, 0x100000), "x w=3", 5);
	s = netfile_of(f);
	assert_non_null(strstr(s, "# \"x w\\x3d3\" lid 3"));
	free(s);
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netfile),
		cmocka_unit_test(test_netfile_ibsim_limits),
		cmocka_unit_test(test_netfile_dup_guids),
	};
	return cmocka_run_group_tests_name("netfile", tests, NULL, NULL);
}
