/* Unit tests of the Slurm topology.conf renderer and its hostlist compressor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fabrics.h"
#include "../../fabric/load/load.h"
#include "../../fabric/load/namemap.h"
#include "../../fabric/walk/walk.h"
#include "../../output/hostlist.h"
#include "../../output/slurm.h"

static char *hostlist(const char *csv)
{
	const char *v[64];
	char *copy = strdup(csv), *save = NULL, *t, *r;
	size_t n = 0;

	for (t = strtok_r(copy, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save))
		v[n++] = t;
	r = render_hostlist(v, n);
	free(copy);
	return r;
}

static void test_hostlist_cases(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "" },
		{ "node7", "node7" },
		{ "login", "login" },
		{ "node003,node001,node002", "node[001-003]" },
		{ "node1,node2,node3,node5,node7,node8", "node[1-3,5,7-8]" },
		{ "node9,node10", "node[9-10]" },
		{ "node10,node9,node100", "node[9-10,100]" },
		{ "node098,node099,node100", "node[098-100]" },
		{ "node9,node010", "node[9,010]" },
		{ "node01,node1,node02,node2", "node[01-02,1-2]" },
		{ "n0,n1", "n[0-1]" },
		{ "n00,n01", "n[00-01]" },
		{ "n0,n00", "n[0,00]" },
		{ "b1,a2,a1,c", "a[1-2],b1,c" },
		{ "n1,n1,n2,login,login", "login,n[1-2]" },
		{ "login,admin", "admin,login" },
		{ "rack1-node3,rack1-node4,rack2-node1", "rack1-node[3-4],rack2-node1" },
		{ "x1234567890123456789012,x1234567890123456789013",
		  "x1234567890123456789012,x1234567890123456789013" },
		{ "42,43,44", "[42-44]" },
		/* A number inside a name: Slurm wants the name to end in ']' ("E[1-2]_H1" is refused). */
		{ "E10_H1,E2_H1,E1_H1", "E[1-2,10]_H[1]" },
		{ "E2_H1,E1_H2,E1_H1,E10_H1", "E[1-2,10]_H[1],E1_H2" },  /* on the number that leaves fewest groups */
		{ "a1b1,a1b2,a2b1,a2b2", "a1b[1-2],a2b[1-2]" },          /* a tie: the last number */
		{ "E1_H1,E2_H1,E1_H2,E2_H2,E3_H2", "E[1-2]_H[1],E[1-3]_H[2]" },
		{ "r01n3,r02n3", "r[01-02]n[3]" },
		{ "gpu1-ib,gpu2-ib", "gpu1-ib,gpu2-ib" },
		/* Sorted numerically, not as text. */
		{ "E10_H1,E1_H1,login2,E9_H1,login10", "E[1,9-10]_H[1],login[2,10]" },
		/* GUIDs written in hex are names, not numbers. */
		{ "host-0002c90300f10140,host-0002c90300f10130", "host-0002c90300f10130,host-0002c90300f10140" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = hostlist(cases[i].in);
		if (strcmp(got, cases[i].want))
			fail_msg("hostlist(%s) = '%s', want '%s'", cases[i].in, got, cases[i].want);
		free(got);
	}
}

/* Slurm's expansion: "p[a-b,c]" gives p + each number zero-padded to strlen(a). */
static size_t expand(const char *s, char out[][32], size_t max)
{
	size_t n = 0;

	while (*s) {
		const char *e = s, *prefix = s;
		int plen;

		while (*e && *e != ',' && *e != '[')
			e++;
		if (*e != '[') {
			assert_true(n < max);
			snprintf(out[n++], 32, "%.*s", (int)(e - s), s);
			s = *e ? e + 1 : e;
			continue;
		}
		plen = (int)(e - prefix);
		s = e + 1;
		while (*s != ']') {
			char *end;
			unsigned long long lo, hi, v;
			int width;

			assert_true(*s != '\0');
			lo = strtoull(s, &end, 10);
			width = (int)(end - s);
			assert_true(width > 0);
			hi = lo;
			if (*end == '-')
				hi = strtoull(end + 1, &end, 10);
			for (v = lo; v <= hi; v++) {
				assert_true(n < max);
				snprintf(out[n++], 32, "%.*s%0*llu", plen, prefix, width, v);
			}
			s = end;
			if (*s == ',')
				s++;
		}
		s++;
		if (*s == ',')
			s++;
	}
	return n;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Random sets of names, with and without padding: the expansion gives the set back. */
static void test_hostlist_round_trip(void **state)
{
	static const char *const prefixes[] = { "node", "n", "gpu-", "rack1-n" };
	static char in[64][32], want[64][32], got[256][32];
	unsigned seed = 12345;
	int iter;

	(void)state;
	for (iter = 0; iter < 3000; iter++) {
		const char *v[64];
		size_t n = (size_t)(rand_r(&seed) % 40), nw = 0, ng, i;
		char *expr;

		for (i = 0; i < n; i++) {
			unsigned num = (unsigned)rand_r(&seed) % 130;
			int pad = rand_r(&seed) % 3 ? 3 : 0;
			snprintf(in[i], sizeof(in[i]), "%s%0*u", prefixes[rand_r(&seed) % 4], pad, num);
			v[i] = in[i];
		}
		expr = render_hostlist(v, n);
		/* The unique input names, sorted. */
		memcpy(want, in, sizeof(in));
		qsort(want, n, sizeof(want[0]), str_cmp);
		for (i = 0; i < n; i++)
			if (!nw || strcmp(want[nw - 1], want[i]))
				memmove(want[nw++], want[i], sizeof(want[0]));
		ng = expand(expr, got, 256);
		qsort(got, ng, sizeof(got[0]), str_cmp);
		if (ng != nw)
			fail_msg("'%s' expands to %zu names, want %zu", expr, ng, nw);
		for (i = 0; i < nw; i++)
			if (strcmp(got[i], want[i]))
				fail_msg("'%s' expands to %s, want %s", expr, got[i], want[i]);
		free(expr);
	}
}

static char *render(const struct ibs_fabric *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_int_equal(render_slurm(m, f), 0);
	fclose(m);
	return buf;
}

/*
 * Two leaves with the same default description, a managed leaf, a spine
 * above all three; a dual-port host on two leaves, a host without a
 * description, and a SHARP aggregation node.
 */
static struct ibs_fabric *walk_tree(const char *namemap)
{
	static struct ff ff;
	static const struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ibs_fabric *fab;
	int l1, l2, l3, sp, h1;

	memset(&ff, 0, sizeof(ff));
	l1 = ff_add(&ff, IB_NODE_SWITCH, 8, 0x10, "MF0;leafA:MSB7800/U1");
	l2 = ff_add(&ff, IB_NODE_SWITCH, 8, 0x20, "SwitchIB Mellanox Technologies");
	l3 = ff_add(&ff, IB_NODE_SWITCH, 8, 0x30, "SwitchIB Mellanox Technologies");
	sp = ff_add(&ff, IB_NODE_SWITCH, 8, 0x40, "spine 1");
	ff_link(&ff, l1, 8, sp, 1);
	ff_link(&ff, l2, 8, sp, 2);
	ff_link(&ff, l3, 8, sp, 3);
	ff_link(&ff, l3, 7, sp, 4); /* a parallel cable: still one child */
	h1 = ff_add(&ff, IB_NODE_CA, 2, 0x100, "node01 mlx5_0");
	ff_link(&ff, l2, 1, h1, 1);
	ff_link(&ff, l1, 1, h1, 2);
	ff_link(&ff, l2, 2, ff_add(&ff, IB_NODE_CA, 1, 0x200, "node02 mlx5_0"), 1);
	ff_link(&ff, l3, 1, ff_add(&ff, IB_NODE_CA, 1, 0x300, "node[03]; mlx5_0"), 1);
	ff_link(&ff, l3, 2, ff_add(&ff, IB_NODE_CA, 1, 0x400, ""), 1);
	ff_link(&ff, l1, 2, ff_add(&ff, IB_NODE_CA, 1, 0x500, "Mellanox Technologies Aggregation Node"), 1);
	assert_int_equal(ff_walk_with(&ff, &o, &fab, NULL), IBS_OK);
	if (namemap) {
		struct ibs_namemap *m = NULL;
		char *msg = NULL;
		assert_int_equal(ibs_namemap_parse("m", namemap, strlen(namemap), &m, &msg), IBS_OK);
		ibs_namemap_apply(m, fab);
		ibs_namemap_free(m);
	}
	return fab;
}

static void test_render_tree(void **state)
{
	struct ibs_fabric *f = walk_tree(NULL);
	char *s = render(f);

	(void)state;
	/* node01's port 1 is on the second leaf: it goes there, not under leafA (its port 2). */
	assert_non_null(strstr(s, "\nSwitchName=SwitchIB_Mellanox_Technologies-0000000000000020 Nodes=node[01-02]  "
				  "# level 1, 0x0000000000000020\n"));
	/* A CA without a description is a host all the same, named by its system image GUID. */
	assert_non_null(strstr(s, "\nSwitchName=SwitchIB_Mellanox_Technologies-0000000000000030 "
				  "Nodes=host-0000000000000400,node_03  "));
	assert_non_null(strstr(s, "\n# left out: leafA (level 1, 0x0000000000000010): every host cabled to it is "
				  "listed under another leaf\n"));
	assert_non_null(strstr(s, "\nSwitchName=spine_1 Switches=SwitchIB_Mellanox_Technologies-[0000000000000020,0000000000000030]"
				  "  # level 2, 0x0000000000000040\n"));
	assert_null(strstr(s, "# left out: CA 0x"));
	assert_null(strstr(s, "Aggregation"));
	assert_null(strstr(s, "WARNING"));
	assert_non_null(strstr(s, "4 switches in 2 levels, 4 hosts."));
	free(s);
	ibs_fabric_free(f);
}

static void test_render_namemap(void **state)
{
	struct ibs_fabric *f = walk_tree("0x20 \"leaf;02\"\n0x30 \"leaf03\"\n0x400 \"node04 hca\"\n"
					 "0x10 \"leaf01\"\n");
	char *s = render(f);

	(void)state;
	/* Map names are sanitised but not cut at ';' ... ':'. */
	assert_non_null(strstr(s, "\nSwitchName=leaf_02 Nodes=node[01-02]  "));
	assert_non_null(strstr(s, "\nSwitchName=leaf03 Nodes=node04,node_03  "));
	assert_non_null(strstr(s, "\nSwitchName=spine_1 Switches=leaf03,leaf_02  "));
	assert_null(strstr(s, "CA 0x"));
	free(s);
	ibs_fabric_free(f);
}

/* Two leaves cabled to each other and nothing above: Slurm cannot span them. */
static void test_render_no_common_parent(void **state)
{
	static struct ff ff;
	static const struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ibs_fabric *f;
	char *s;
	int a, b;

	(void)state;
	memset(&ff, 0, sizeof(ff));
	a = ff_add(&ff, IB_NODE_SWITCH, 4, 0x1, "sw1");
	b = ff_add(&ff, IB_NODE_SWITCH, 4, 0x2, "sw2");
	ff_link(&ff, a, 4, b, 4);
	ff_link(&ff, a, 1, ff_add(&ff, IB_NODE_CA, 1, 0x100, "h1 mlx5_0"), 1);
	ff_link(&ff, b, 1, ff_add(&ff, IB_NODE_CA, 1, 0x200, "h2 mlx5_0"), 1);
	ff_add(&ff, IB_NODE_SWITCH, 4, 0x3, "lonely"); /* not cabled: never found */
	assert_int_equal(ff_walk_with(&ff, &o, &f, NULL), IBS_OK);
	s = render(f);
	assert_non_null(strstr(s, "\nSwitchName=sw1 Nodes=h1  # level 1"));
	assert_non_null(strstr(s, "\nSwitchName=sw2 Nodes=h2  # level 1"));
	assert_non_null(strstr(s, "# WARNING: no switch reaches every host"));
	free(s);
	ibs_fabric_free(f);
}

/* A switch's name in its Mellanox/NVIDIA description; a director's ASIC keeps its slot. */
static void test_switch_name(void **state)
{
	static const struct {
		const char *desc, *want;
	} cases[] = {
		{ "MF0;leaf01:MSB7800/U1", "leaf01" },
		{ "MF0;ibcore1:SX6536/L33/U1", "ibcore1/L33" },
		{ "MF0;ibcore1:SX6536/S01/U1", "ibcore1/S01" },
		{ "MF0;dir-a:CS7500/L05/U2", "dir-a/L05/U2" },
		{ "MF0;sw7:QM9700/U1", "sw7" },
		{ "MF0;x:SX6536/LX/U1", "x" },         /* not a slot */
		{ "MF0;x:SX6536/U1/L3", "x/L3" },
		{ "MF0;:SX6536/L01/U1", NULL },         /* no name */
		{ "SwitchIB Mellanox Technologies", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibs_node n;
		char *got;
		memset(&n, 0, sizeof(n));
		n.desc = strdup(cases[i].desc);
		got = render_switch_name(&n);
		if ((got == NULL) != (cases[i].want == NULL) || (got && strcmp(got, cases[i].want)))
			fail_msg("'%s' gives '%s', want '%s'", cases[i].desc, got ? got : "(none)",
				 cases[i].want ? cases[i].want : "(none)");
		free(got);
		/* A node-name-map entry wins: no name from the description. */
		n.name = strdup("mapped");
		assert_null(render_switch_name(&n));
		free(n.name);
		free(n.desc);
	}
}

/* A leaf with hosts too many to list in one line of 4094 characters: several lines, each a part. */
static void test_render_line_limit(void **state)
{
	static char buf[1 << 16];
	size_t len = 0, i, n_lines = 0, found = 0;
	struct ibs_fabric *f = NULL;
	char *msg = NULL, *s, *line, *save = NULL;
	unsigned seed = 7;

	(void)state;
	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				"switchguid=0x1\nSwitch\t254 \"S-0000000000000001\"\t\t# \"spine1\" base port 0 lid 1 lmc 0\n"
				"[1]\t\"S-0000000000000002\"[254]\n\n"
				"switchguid=0x2\nSwitch\t254 \"S-0000000000000002\"\t\t# \"leaf1\" base port 0 lid 2 lmc 0\n"
				"[254]\t\"S-0000000000000001\"[1]\n");
	for (i = 0; i < 200; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "[%zu]\t\"H-%016zx\"[1]\n", i + 1, 0x1000 + i);
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "\n");
	for (i = 0; i < 200; i++) {
		char name[41];
		size_t k;
		/* 40 letters: nothing to compress. */
		for (k = 0; k < 40; k++)
			name[k] = (char)('a' + rand_r(&seed) % 26);
		name[40] = '\0';
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"caguid=0x%zx\nCa\t1 \"H-%016zx\"\t\t# \"%s mlx5_0\"\n[1]\t\"S-0000000000000002\"[%zu]\n\n",
					0x1000 + i, 0x1000 + i, name, i + 1);
	}
	assert_true(len < sizeof(buf) - 1);
	assert_int_equal(ibs_fabric_parse_netfile("t.net", buf, len, &f, &msg), IBS_OK);
	s = render(f);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p, *end;
		if (strlen(line) > 4094)
			fail_msg("a line of %zu characters", strlen(line));
		if (strncmp(line, "SwitchName=leaf1", 16))
			continue;
		n_lines++;
		end = strstr(line, "  #");
		for (p = strstr(line, "Nodes="); p && (p = strchr(p, ',')) && p < end; p++)
			found++;
		found++;
	}
	/* 200 names of 40 letters: two lines at least, every host once. */
	if (n_lines < 2 || found != 200)
		fail_msg("%zu leaf lines, %zu hosts", n_lines, found);
	free(s);
	s = render(f);
	assert_non_null(strstr(s, "SwitchName=leaf1-part2 Nodes="));
	if (!strstr(s, "SwitchName=spine1 Switches=leaf1,leaf1-part[2-3]  ")) fail_msg("%.300s", strstr(s, "SwitchName=spine1") ? strstr(s, "SwitchName=spine1") : s);
	free(s);
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostlist_cases),
		cmocka_unit_test(test_hostlist_round_trip),
		cmocka_unit_test(test_render_tree),
		cmocka_unit_test(test_render_namemap),
		cmocka_unit_test(test_render_no_common_parent),
		cmocka_unit_test(test_switch_name),
		cmocka_unit_test(test_render_line_limit),
	};
	return cmocka_run_group_tests_name("slurm", tests, NULL, NULL);
}
