/*
 * Unit tests of --gids on the in-process fabric (tests/unit/lib/fake_fabric.h):
 * whole GUIDInfo tables with alias GUIDs, which ibsim cannot hold (it answers
 * GUIDInfo with the port GUID alone), read block by block as GUIDCap says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>

#include "lib/fabrics.h"
#include "../../fabric/walk/walk.h"
#include "../../output/topo.h"

static unsigned guidinfo_sent;

static void counting_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	if (req->attr_id == IBS_ATTR_GUID_INFO)
		guidinfo_sent++;
	ff_on_send(f, req, mad);
}

static struct ibs_fabric *walk(struct ff *ff, bool gids)
{
	struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ibs_fabric *fab;

	o.eo.window = 16;
	o.wo.gids = gids;
	o.wo.sm = false;
	o.on_send = counting_send;
	guidinfo_sent = 0;
	assert_int_equal(ff_walk_with(ff, &o, &fab, NULL), IBS_OK);
	assert_false(fab->partial);
	return fab;
}

/*
 * A switch (GUIDCap 1 on port 0), a CA with 9 aliases in a 10-entry table,
 * a CA with 4 in 32 and holes (entries 1, 2, 13 and 31: as mlx4 leaves
 * them when VFs between shut down).
 */
static void build(struct ff *ff, int *ca10, int *ca32)
{
	int s, i;

	memset(ff, 0, sizeof(*ff));
	s = ff_add(ff, IB_NODE_SWITCH, 4, 0x200000, "sw");
	*ca10 = ff_add(ff, IB_NODE_CA, 1, 0x100000, "ten");
	*ca32 = ff_add(ff, IB_NODE_CA, 1, 0x100010, "thirtytwo");
	ff_link(ff, s, 1, *ca10, 1);
	ff_link(ff, s, 2, *ca32, 1);
	ff->n[*ca10].guid_cap = 10;
	for (i = 0; i < 9; i++)
		ff->n[*ca10].alias[i] = 0x0002c90300a00000ull + (uint64_t)i;
	ff->n[*ca32].guid_cap = 32;
	ff->n[*ca32].alias[0] = 0x0002c90300b00001ull;
	ff->n[*ca32].alias[1] = 0x0002c90300b00002ull;
	ff->n[*ca32].alias[12] = 0x0002c90300b00013ull;
	ff->n[*ca32].alias[30] = 0x0002c90300b00031ull;
	ff->root = s;
	ff->root_port = 0;
}

static const struct ibs_port *port_of(const struct ibs_fabric *f, uint64_t guid, unsigned p)
{
	const struct ibs_node *n = ibs_fabric_find_guid(f, guid);

	assert_non_null(n);
	return &n->ports[p];
}

static void test_alias_guids_read(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	const struct ibs_port *p;
	int ca10, ca32;
	unsigned i;

	(void)state;
	build(&ff, &ca10, &ca32);
	f = walk(&ff, true);
	/* Ten entries: ceil(10 / 8) = 2 blocks. */
	p = port_of(f, 0x100000, 1);
	assert_int_equal(p->pi.guid_cap, 10);
	assert_int_equal(p->n_gids, 10);
	assert_true(p->gids[0] == 0x100001);
	for (i = 1; i < 10; i++)
		assert_true(p->gids[i] == 0x0002c90300a00000ull + i - 1);
	/* 32 entries with holes: all 4 blocks are read, as `smpquery guids` reads them. */
	p = port_of(f, 0x100010, 1);
	assert_int_equal(p->n_gids, 32);
	assert_true(p->gids[0] == 0x100011 && p->gids[1] == 0x0002c90300b00001ull && p->gids[2] == 0x0002c90300b00002ull);
	assert_true(p->gids[13] == 0x0002c90300b00013ull && p->gids[31] == 0x0002c90300b00031ull);
	for (i = 3; i < 31; i++)
		assert_true(p->gids[i] == 0 || i == 13);
	/* The switch's GUIDCap is 1: its port GUID is its only GID, no query. */
	assert_int_equal(port_of(f, 0x200000, 0)->n_gids, 0);
	assert_int_equal(guidinfo_sent, 6);
	ibs_fabric_free(f);
}

static void test_no_gids_no_guidinfo(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	int ca10, ca32;

	(void)state;
	build(&ff, &ca10, &ca32);
	f = walk(&ff, false);
	assert_int_equal(guidinfo_sent, 0);
	assert_int_equal(port_of(f, 0x100000, 1)->n_gids, 0);
	ibs_fabric_free(f);
}

/* The JSON lists every GID that is set, GidPrefix and entry, in table order. */
static void test_gids_in_json(void **state)
{
	static const char *const want[] = {
		"fe80:0000:0000:0000:0000:0000:0010:0011",
		"fe80:0000:0000:0000:0002:c903:00b0:0001",
		"fe80:0000:0000:0000:0002:c903:00b0:0002",
		"fe80:0000:0000:0000:0002:c903:00b0:0013",
		"fe80:0000:0000:0000:0002:c903:00b0:0031",
	};
	struct ff ff;
	struct ibs_fabric *f;
	struct emit *e;
	char *buf = NULL;
	size_t len = 0, i, k;
	FILE *m = open_memstream(&buf, &len);
	json_t *root, *nodes, *gids = NULL;
	int ca10, ca32;

	(void)state;
	build(&ff, &ca10, &ca32);
	f = walk(&ff, true);
	e = emit_new(EMIT_JSON);
	render_topology(e, f, &(const struct ibs_run){ 0 });
	assert_int_equal(emit_write(e, m), 0);
	emit_free(e);
	fclose(m);
	root = json_loads(buf, 0, NULL);
	assert_non_null(root);
	nodes = json_object_get(root, "nodes");
	for (i = 0; i < json_array_size(nodes); i++) {
		json_t *n = json_array_get(nodes, i);
		if (!strcmp(json_string_value(json_object_get(n, "guid")), "0x0000000000100010"))
			gids = json_object_get(json_array_get(json_object_get(n, "ports"), 0), "gids");
	}
	/* Free entries in the middle are left out, the ones after them kept. */
	assert_int_equal(json_array_size(gids), 5);
	for (k = 0; k < 5; k++)
		assert_string_equal(json_string_value(json_array_get(gids, k)), want[k]);
	json_decref(root);
	free(buf);
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias_guids_read),
		cmocka_unit_test(test_no_gids_no_guidinfo),
		cmocka_unit_test(test_gids_in_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
