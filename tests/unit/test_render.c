/* Unit tests of the renderers (output/): topology text and JSON, DOT, netfile, routes, the emitter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fabrics.h"

/* The padding each side of an xlabel (output/draw.c XPAD: two no-break spaces). */
#define NB2 "\xc2\xa0\xc2\xa0"
#include "../../fabric/check/health.h"
#include "../../fabric/load/namemap.h" /* test_long_names_whole */
#include "../../fabric/walk/walk.h"
#include "../../output/draw.h"
#include "../../output/dot.h"
#include "../../output/netfile.h"
#include "../../output/route.h"
#include "../../output/topo.h"

/* The fabric of a walk of ff through the fake transport. */
static struct ibs_fabric *walk_ff(struct ff *ff)
{
	static const struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ibs_fabric *fab;

	assert_int_equal(ff_walk_with(ff, &o, &fab, NULL), IBS_OK);
	return fab;
}

static struct ibs_fabric *walk_2sw(void)
{
	static struct ff ff;
	int s1, s2;

	memset(&ff, 0, sizeof(ff));
	s1 = ff_add(&ff, IB_NODE_SWITCH, 8, 0x200000, "Switch1");
	s2 = ff_add(&ff, IB_NODE_SWITCH, 8, 0xf452140300200001ull, "Switch \"2\"");
	ff_link(&ff, s1, 3, s2, 3);
	ff_link(&ff, s1, 1, ff_add(&ff, IB_NODE_CA, 1, 0x100000, "node01 mlx5_0"), 1);
	ff_link(&ff, s2, 1, ff_add(&ff, IB_NODE_CA, 1, 0x100010, "node02 mlx5_0"), 1);
	return walk_ff(&ff);
}

/* f rendered: 0 text, 1 JSON, 2 DOT, 3 netfile; 4 text and 5 JSON of routes --dump with no switch. */
static char *capture(const struct ibs_fabric *f, int kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct emit *e = NULL;

	if (kind == 2) {
		assert_int_equal(render_dot(m, f, NULL), 0);
	} else if (kind == 3) {
		assert_int_equal(render_netfile(m, f), 0);
	} else {
		e = emit_new(kind == 1 || kind == 5 ? EMIT_JSON : EMIT_TEXT);
		if (kind >= 4)
			render_lfts(e, NULL, 0);
		else
			render_topology(e, f, &(const struct ibs_run){ 0 });
		assert_int_equal(emit_write(e, m), 0);
		emit_free(e);
	}
	fclose(m);
	return buf;
}

/* routes --dump of a fabric without switches says so in text (it printed nothing) and is [] in JSON. */
static void test_lfts_none(void **state)
{
	char *s = capture(NULL, 4);
	json_error_t err;
	json_t *j;

	(void)state;
	assert_string_equal(s, "no switches: the fabric has no forwarding tables\n");
	free(s);
	s = capture(NULL, 5);
	j = json_loads(s, 0, &err);
	assert_non_null(j);
	assert_true(json_is_array(json_object_get(j, "switches")));
	assert_int_equal(json_array_size(json_object_get(j, "switches")), 0);
	json_decref(j);
	free(s);
}

static void test_json_schema(void **state)
{
	struct ibs_fabric *f = walk_2sw();
	char *s = capture(f, 1);
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
	struct ibs_fabric *f = walk_2sw();
	char *s = capture(f, 0);

	(void)state;
	assert_non_null(strstr(s, "topology: 4 nodes (2 switches, 2 CAs, 0 routers), 3 links\n"));
	assert_non_null(strstr(s, "ca     0x0000000000100000 LID 3, 1 ports \"node01 mlx5_0\", path 0,1\n"));
	assert_non_null(strstr(s, "    [ 3] Active LinkUp     4x SDR -> switch 0xf452140300200001[3] \"Switch \"2\"\""));
	assert_null(strstr(s, "PARTIAL"));
	free(s);
	ibs_fabric_free(f);
}

static void test_dot(void **state)
{
	struct ibs_fabric *f = walk_2sw();
	struct ibs_node *s1 = ibs_fabric_find_guid(f, 0x200000);
	struct render_drawing d;
	size_t i, n_deg = 0;
	char *s;

	(void)state;
	/* Make the inter-switch link run 1x: degraded, drawn orange, on its own, labelled with its ports. */
	s1->ports[3].pi.width_active = 1;
	s1->ports[3].peer->ports[3].pi.width_active = 1;
	s = capture(f, 2);
	assert_non_null(strstr(s, "graph ibscan {"));
	assert_non_null(strstr(s, "shape=box"));
	assert_non_null(strstr(s, "shape=ellipse"));
	/* Name and LID on the label, the GUID in the tooltip; quotes escaped. */
	assert_non_null(strstr(s, "label=\"Switch \\\"2\\\"\\nLID 2\", tooltip=\"Switch \\\"2\\\"\\nswitch 0xf452140300200001"));
	assert_non_null(strstr(s, "[id=\"e-0000000000200000-3-f452140300200001-3\", xlabel=\"" NB2 "3:3 1xSDR" NB2 "\", color=\"#ff7f0e\""));
	free(s);
	/* A link that is not Active is red and dashed. */
	s1->ports[3].pi.state = 2;
	s = capture(f, 2);
	assert_non_null(strstr(s, "xlabel=\"" NB2 "3:3 1xSDR" NB2 "\", color=\"#d62728\", fontcolor=\"#d62728\", style=dashed"));
	free(s);

	/* The maps: every node, every cabled port, to the element drawn. */
	render_drawing_build(&d, f, NULL);
	assert_int_equal(d.n_nodes, f->n_nodes);
	assert_int_equal(d.n_ports, 6);
	assert_int_equal(d.n_drawn_edges, 3);
	for (i = 0; i < d.n_nodes; i++)
		assert_true(!strncmp(d.nodes[i].id, "n-", 2));
	for (i = 0; i < d.n_ports; i++)
		n_deg += !strcmp(d.ports[i].id, "e-0000000000200000-3-f452140300200001-3");
	assert_int_equal(n_deg, 2);
	render_drawing_free(&d);
	ibs_fabric_free(f);
}

static void test_netfile(void **state)
{
	struct ibs_fabric *f = walk_2sw();
	char *s = capture(f, 3);

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
	f = walk_ff(&ff);
	s = capture(f, 3);
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
	struct ibs_fabric *f = walk_2sw();
	char name[300], *s, *line, *save = NULL;
	size_t n;

	(void)state;
	/* 127 bytes, then a 2-byte character across the 128-byte cut, then more. */
	memset(name, 'a', 127);
	memcpy(name + 127, "\xc3\xbc w=3 e=99", 11);
	memset(name + 138, 'b', 152);
	ibs_node_set_desc(ibs_fabric_find_guid(f, 0x100000), name, 290);
	s = capture(f, 3);
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
	s = capture(f, 3);
	assert_non_null(strstr(s, "# \"x w\\x3d3\" lid 3"));
	free(s);
	ibs_fabric_free(f);
}

/* A name-map name has no length limit: DOT labels, the text view and health messages keep all of it. */
static void test_long_names_whole(void **state)
{
	char map[2048], name[1001], *s;
	struct ibs_namemap *m;
	struct ibs_fabric *f;
	struct ibs_thresholds t;
	struct ibs_health_opts o;
	struct ibs_findings fs;
	char *msg = NULL;
	size_t i;
	bool found = false;

	(void)state;
	memset(name, 'n', 1000);
	name[1000] = '\0';
	name[0] = 'Z';
	snprintf(map, sizeof(map), "0x200000 \"%s\"\n", name);
	assert_int_equal(ibs_namemap_parse("m", map, strlen(map), &m, &msg), IBS_OK);
	f = walk_2sw();
	ibs_namemap_apply(m, f);
	s = capture(f, 2);
	assert_non_null(strstr(s, name));
	free(s);
	/* The text view quotes the name whole. */
	s = capture(f, 0);
	snprintf(map, sizeof(map), "\"%s\"", name);
	assert_non_null(strstr(s, map));
	free(s);
	/* Duplicate a LID so that health names the long-named switch in a finding. */
	ibs_fabric_find_guid(f, 0x100000)->ports[1].pi.lid = 1;
	ibs_thresholds_default(&t);
	memset(&o, 0, sizeof(o));
	o.thresholds = &t;
	ibs_health_check(f, &(const struct ibs_run){ 0 }, &o, &fs);
	for (i = 0; i < fs.n; i++)
		found = found || strstr(fs.v[i].message, name) != NULL;
	assert_true(found);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
	ibs_namemap_free(m);
}

static void test_json_escaping(void **state)
{
	struct emit *e = emit_new(EMIT_JSON);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	json_t *j;
	json_error_t err;

	(void)state;
	emit_obj_open(e, NULL);
	emit_str(e, "bad", NULL, "a\xff\xc3(\"q\"\\\t\x01\xc3\xa9");
	emit_arr_open(e, "empty");
	emit_arr_close(e);
	emit_obj_open(e, "o");
	emit_obj_close(e);
	emit_double(e, "d", NULL, 2.0);
	emit_double(e, "us", NULL, 2249.316);
	emit_double(e, "tenth", NULL, 0.1);
	emit_double(e, "third", NULL, 1.0 / 3);
	emit_uint(e, "big", NULL, 0xf452140300200001ull);
	emit_obj_close(e);
	assert_int_equal(emit_write(e, m), 0);
	fclose(m);
	emit_free(e);
	assert_non_null(strstr(buf, "\"empty\": [],\n  \"o\": {},\n  \"d\": 2.0,\n"));
	/* The shortest form that reads back as the same double: never 2249.3159999999998. */
	assert_non_null(strstr(buf, "\"us\": 2249.316,\n  \"tenth\": 0.1,\n  \"third\": 0.3333333333333333,\n"));
	assert_non_null(strstr(buf, "\"big\": 17605155896464244737\n}\n"));
	assert_non_null(strstr(buf, "\"a\\ufffd\\ufffd("));
	/* And a JSON parser agrees. */
	j = json_loads(buf, JSON_DECODE_INT_AS_REAL, &err);
	assert_non_null(j);
	/* Invalid bytes became U+FFFD; quotes, backslash, tab, control and UTF-8 survive. */
	assert_string_equal(json_string_value(json_object_get(j, "bad")),
			    "a\xef\xbf\xbd\xef\xbf\xbd(\"q\"\\\t\x01\xc3\xa9");
	json_decref(j);
	free(buf);
}

/* The emitter's own formatting of printf formats agrees with snprintf. */
#define SAME_AS_PRINTF(fmt, ...)                                                  \
	do {                                                                      \
		struct emit *e_ = emit_new(EMIT_TEXT);                            \
		char want_[512], *got_ = NULL;                                    \
		size_t glen_ = 0;                                                 \
		FILE *m_ = open_memstream(&got_, &glen_);                         \
		snprintf(want_, sizeof(want_), fmt, __VA_ARGS__);                 \
		emit_text(e_, fmt, __VA_ARGS__);                                  \
		assert_int_equal(emit_write(e_, m_), 0);                          \
		fclose(m_);                                                       \
		emit_free(e_);                                                    \
		assert_string_equal(got_, want_);                                 \
		free(got_);                                                       \
	} while (0)

static void test_text_formats(void **state)
{
	(void)state;
	SAME_AS_PRINTF("plain %s and %s.", "a", "");
	SAME_AS_PRINTF("[%2u] [%-3s] [%3s] [%-6s|", 7u, "4x", "HDR", "Active");
	SAME_AS_PRINTF("%5lu %3lu %llu %zu", 65535ul, 1234ul, 18446744073709551615ull, (size_t)0);
	SAME_AS_PRINTF("%d %d %5d %-5d| %05d %ld", 0, -42, -42, -42, -42, (long)-9223372036854775807L - 1);
	SAME_AS_PRINTF("%x %08x %016lx %04x:%04x", 0xabcu, 0xdeadu, 0x0002c90300e10001ul, 0xfe80u, 0u);
	SAME_AS_PRINTF("100%% %c%c done", 'o', 'k');
	SAME_AS_PRINTF("%-40s|%40s|", "a long enough field of text", "right");
	/* Outside the subset: handed to vsnprintf whole. */
	SAME_AS_PRINTF("%.3f %5.1s %+d %#x %e", 2.0 / 3, "abc", 5, 255u, 1e10);
	SAME_AS_PRINTF("%s %.2f", "mixed", 1.5);
}

/* A renderer that nests too deep is a programmer error: output/ never exits, it aborts (BUG) saying where. */
static void test_emit_bug_aborts(void **state)
{
	int fds[2], st;
	char msg[256] = "";
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct emit *e = emit_new(EMIT_JSON);
		dup2(fds[1], 2);
		for (int i = 0; i < 40; i++)
			emit_obj_open(e, "x");
		_exit(0);
	}
	close(fds[1]);
	/* To the end: stderr is unbuffered, so the message comes in several writes. */
	for (size_t got = 0; got < sizeof(msg) - 1; got += (size_t)n) {
		n = read(fds[0], msg + got, sizeof(msg) - 1 - got);
		if (n <= 0)
			break;
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);
	assert_non_null(strstr(msg, "ibscan: BUG: output/emit.c:"));
	assert_non_null(strstr(msg, "JSON nested deeper than 32"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_schema),
		cmocka_unit_test(test_text_view),
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_netfile),
		cmocka_unit_test(test_netfile_ibsim_limits),
		cmocka_unit_test(test_netfile_dup_guids),
		cmocka_unit_test(test_long_names_whole),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_text_formats),
		cmocka_unit_test(test_lfts_none),
		cmocka_unit_test(test_emit_bug_aborts),
	};
	return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
