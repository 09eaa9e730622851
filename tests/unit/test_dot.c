/* Unit tests of the DOT drawing (output/dot.c): shapes, labels, colours, the id maps, long names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "lib/rendered.h"

#include "../../fabric/check/health.h"
#include "../../fabric/load/namemap.h" /* test_long_names_whole */
#include "../../output/draw.h"
#include "../../output/dot.h"

/* The padding each side of an xlabel (output/draw.c XPAD: two no-break spaces). */
#define NB2 "\xc2\xa0\xc2\xa0"

/* f drawn in DOT. */
static char *dot_of(const struct ibs_fabric *f)
{
	struct mem m;

	assert_int_equal(render_dot(mem_open(&m), f, NULL), 0);
	return mem_take(&m);
}

static void test_dot(void **state)
{
	struct ibs_fabric *f = rendered_2sw();
	struct ibs_node *s1 = ibs_fabric_find_guid(f, 0x200000);
	struct render_drawing d;
	size_t i, n_deg = 0;
	char *s;

	(void)state;
	/* Make the inter-switch link run 1x: degraded, drawn orange, on its own, labelled with its ports. */
	s1->ports[3].pi.width_active = 1;
	s1->ports[3].peer->ports[3].pi.width_active = 1;
	s = dot_of(f);
	assert_non_null(strstr(s, "graph ibscan {"));
	assert_non_null(strstr(s, "shape=box"));
	assert_non_null(strstr(s, "shape=ellipse"));
	/* Name and LID on the label, the GUID in the tooltip; quotes escaped. */
	assert_non_null(strstr(s, "label=\"Switch \\\"2\\\"\\nLID 2\", tooltip=\"Switch \\\"2\\\"\\nswitch 0xf452140300200001"));
	assert_non_null(strstr(s, "[id=\"e-0000000000200000-3-f452140300200001-3\", xlabel=\"" NB2 "3:3 1xSDR" NB2 "\", color=\"#ff7f0e\""));
	free(s);
	/* A link that is not Active is red and dashed. */
	s1->ports[3].pi.state = 2;
	s = dot_of(f);
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
	f = rendered_2sw();
	ibs_namemap_apply(m, f);
	s = dot_of(f);
	assert_non_null(strstr(s, name));
	free(s);
	/* The text view quotes the name whole. */
	s = rendered_topology(f, EMIT_TEXT);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_long_names_whole),
	};
	return cmocka_run_group_tests_name("dot", tests, NULL, NULL);
}
