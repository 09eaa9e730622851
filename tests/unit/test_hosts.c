/* Unit tests of fabric/model/hosts.c: descriptions that name no host, and which CAs are one host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../fabric/model/hosts.h"
#include "../../fabric/load/load.h"
#include "../../fabric/load/namemap.h"

static void test_desc_default(void **state)
{
	static const struct {
		const char *desc;
		bool names_host;
	} cases[] = {
		{ "", false },
		{ "   ", false },
		{ "MT4129 ConnectX7   Mellanox Technologies", false },
		{ "MT23108 InfiniHost Mellanox Technologies", false },
		{ "mt4123 ConnectX6", false },
		{ "ConnectX-6 Mellanox Technologies", false },
		{ "localhost HCA-1", false },
		{ "LOCALHOST mlx5_0", false },
		{ "localhost.localdomain mlx5_0", false },
		{ "(none) mlx5_0", false },
		{ "ubuntu", false },
		{ "Ubuntu mlx5_1", false },
		{ "debian mlx5_0", false },
		{ "fedora", false },
		{ "--- mlx5_0", false },
		{ "node0001 mlx5_0", true },
		{ "gpu01", true },
		{ "MT4129x mlx5_0", true },  /* not MT<digits> */
		{ "MT mlx5_0", true },       /* no digits */
		{ "ubuntu01 mlx5_0", true }, /* a name that starts like a default */
		{ "localhost2 HCA-1", true },
		{ "E12_H1 mlx5_0", true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = ibs_desc_default(cases[i].desc);
		if ((why == NULL) != cases[i].names_host)
			fail_msg("'%s': %s, want %s", cases[i].desc, why ? why : "names a host",
				 cases[i].names_host ? "names a host" : "a default");
	}
	assert_string_equal(ibs_desc_default(NULL), "empty");
}

/* CAs given by netfile lines: "sysimgguid GUID DESC". */
static struct ibs_fabric *cas(const char *const *v, size_t n)
{
	char buf[4096];
	size_t len = 0, i;
	struct ibs_fabric *f = NULL;
	char *msg = NULL;

	for (i = 0; i < n; i++) {
		unsigned long long sys, guid;
		char desc[128];
		assert_int_equal(sscanf(v[i], "%llx %llx %127[^\n]", &sys, &guid, desc), 3);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"sysimgguid=0x%llx\ncaguid=0x%llx\nCa\t1 \"H-%016llx\"\t\t# \"%s\"\n\n", sys, guid,
					guid, strcmp(desc, "-") ? desc : "");
	}
	if (ibs_fabric_parse_netfile("t.net", buf, len, &f, &msg) != IBS_OK)
		fail_msg("%s", msg);
	return f;
}

static const struct ibs_host *host_of_guid(const struct ibs_hosts *h, const struct ibs_fabric *f, uint64_t g)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->ni.node_guid == g)
			return ibs_host_of(h, f->nodes[i]);
	return NULL;
}

static void test_hosts_grouping(void **state)
{
	static const char *const v[] = {
		"10 11 gpu01 mlx5_0",
		"10 12 gpu01 mlx5_1",                                /* one server, two adapters */
		"20 21 MT4129 ConnectX7   Mellanox Technologies",
		"20 22 MT4129 ConnectX7   Mellanox Technologies",    /* one server, no name: host-<sysimg> */
		"30 31 MT4129 ConnectX7   Mellanox Technologies",    /* another server of the same default */
		"40 41 localhost HCA-1",
		"50 51 node7 mlx5_0",
		"50 52 MT4129 ConnectX7   Mellanox Technologies",    /* its sibling names the server */
		"60 61 node8 mlx5_0",
		"61 62 node8 mlx5_1",                                /* another system image GUID, the same name */
		"0 71 -",                                            /* no system image GUID, no description */
	};
	struct ibs_fabric *f = cas(v, sizeof(v) / sizeof(v[0]));
	struct ibs_hosts h;
	const struct ibs_host *x;

	(void)state;
	ibs_fabric_hosts(f, &h);
	assert_int_equal(h.n, 7);
	x = host_of_guid(&h, f, 0x11);
	assert_string_equal(x->name, "gpu01");
	assert_ptr_equal(x, host_of_guid(&h, f, 0x12));
	assert_int_equal(x->n_cas, 2);
	x = host_of_guid(&h, f, 0x21);
	assert_string_equal(x->name, "host-0000000000000020");
	assert_false(x->named);
	assert_ptr_equal(x, host_of_guid(&h, f, 0x22));
	assert_string_equal(host_of_guid(&h, f, 0x31)->name, "host-0000000000000030");
	assert_string_equal(host_of_guid(&h, f, 0x41)->name, "host-0000000000000040");
	assert_string_equal(host_of_guid(&h, f, 0x52)->name, "node7");
	assert_ptr_equal(host_of_guid(&h, f, 0x61), host_of_guid(&h, f, 0x62));
	assert_string_equal(host_of_guid(&h, f, 0x71)->name, "host-0000000000000071");
	/* Sorted by name. */
	assert_string_equal(h.v[0].name, "gpu01");
	assert_string_equal(h.v[h.n - 1].name, "node8");
	ibs_hosts_free(&h);

	/* A node-name-map entry names a host whose description does not. */
	{
		static const char map[] = "0x31 \"rack3-n1\"\n";
		struct ibs_namemap *m;
		char *msg = NULL;
		assert_int_equal(ibs_namemap_parse("map", map, strlen(map), &m, &msg), IBS_OK);
		ibs_namemap_apply(m, f);
		ibs_fabric_hosts(f, &h);
		x = host_of_guid(&h, f, 0x31);
		assert_string_equal(x->name, "rack3-n1");
		assert_true(x->named);
		ibs_hosts_free(&h);
		ibs_namemap_free(m);
	}
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_desc_default),
		cmocka_unit_test(test_hosts_grouping),
	};
	return cmocka_run_group_tests_name("hosts", tests, NULL, NULL);
}
