/* Unit tests of the walker on in-process fabrics (tests/unit/fake_transport.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fake_transport.h"
#include "../../fabric/walk.h"
#include "../../output/render.h"

static unsigned nodeinfo_sent;

static void counting_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	if (req->attr_id == IBS_ATTR_NODE_INFO)
		nodeinfo_sent++;
	ff_on_send(f, req, mad);
}

static struct ibs_fabric *walk(struct ff *ff, enum ibs_err *rc_out)
{
	struct fake f;
	struct ibs_engine_opts o = { 16, 100, 1, 10000 };
	struct ibs_walk_opts wo = { true, true, NULL, NULL };
	struct ibs_engine *e;
	struct ibs_fabric *fab = ibs_fabric_new();
	enum ibs_err rc;

	nodeinfo_sent = 0;
	fake_init(&f, counting_send, ff);
	f.shuffle = ff->shuffle;
	e = ibs_engine_new(&f.t, &o);
	rc = ibs_walk(e, fab, &wo);
	ff->overtaken = f.overtaken;
	if (rc_out)
		*rc_out = rc;
	else
		assert_int_equal(rc, IBS_OK);
	ibs_engine_free(e);
	fake_close(&f.t);
	return fab;
}

static size_t nlinks(const struct ibs_fabric *f)
{
	struct ibs_link *v;
	size_t n = ibs_fabric_links(f, &v);
	free(v);
	return n;
}

/* Two switches with two parallel cables, two CAs on each (ibsim's net.2sw2path4hca). */
static void build_2sw(struct ff *ff)
{
	int s1, s2, i;

	memset(ff, 0, sizeof(*ff));
	s1 = ff_add(ff, IB_NODE_SWITCH, 8, 0x200000, "Switch1");
	s2 = ff_add(ff, IB_NODE_SWITCH, 8, 0x200001, "Switch2");
	ff_link(ff, s1, 3, s2, 3);
	ff_link(ff, s1, 5, s2, 5);
	for (i = 0; i < 4; i++) {
		char d[16];
		int h;
		snprintf(d, sizeof(d), "Hca%d", i + 1);
		h = ff_add(ff, IB_NODE_CA, 2, 0x100000 + 3 * (uint64_t)i, d);
		ff_link(ff, i < 2 ? s1 : s2, 1 + i % 2, h, 1);
	}
	ff->root = s1;
	ff->root_port = 0;
}

static void test_two_switches_parallel(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_node *s2;

	(void)state;
	build_2sw(&ff);
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 6);
	assert_int_equal(nlinks(f), 6);
	assert_false(f->partial);
	s2 = ibs_fabric_find_guid(f, 0x200001);
	assert_non_null(s2);
	assert_null(s2->next_same_guid);
	assert_true(s2->ports[3].peer == s2->ports[5].peer);
	assert_int_equal(s2->ports[5].peer_port, 5);
	assert_string_equal(s2->desc, "Switch2");
	/* One NodeInfo for the root, one per cable: no cable probed from both ends. */
	assert_int_equal(nodeinfo_sent, 1 + 6);
	/* Sorted by GUID. */
	assert_true(f->nodes[0]->ni.node_guid == 0x100000);
	assert_true(f->nodes[5]->ni.node_guid == 0x200001);
	ibs_fabric_free(f);
}

static void test_dual_port_ca_two_leaves(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_node *h;
	int s1, s2, c;

	(void)state;
	memset(&ff, 0, sizeof(ff));
	s1 = ff_add(&ff, IB_NODE_SWITCH, 8, 0x200000, "leaf1");
	s2 = ff_add(&ff, IB_NODE_SWITCH, 8, 0x200001, "leaf2");
	c = ff_add(&ff, IB_NODE_CA, 2, 0x100000, "node1 mlx5_0");
	ff_link(&ff, s1, 1, c, 1);
	ff_link(&ff, s2, 1, c, 2);
	ff_link(&ff, s1, 8, s2, 8);
	ff.root = s1;
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 3);
	assert_int_equal(nlinks(f), 3);
	h = ibs_fabric_find_guid(f, 0x100000);
	assert_non_null(h);
	assert_true(h->ports[1].valid);
	assert_true(h->ports[2].valid);
	assert_true(h->ports[2].guid == 0x100002);
	assert_true(h->ports[1].peer->ni.node_guid == 0x200000);
	assert_true(h->ports[2].peer->ni.node_guid == 0x200001);
	ibs_fabric_free(f);
}

static void test_duplicate_guids_kept(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_node *h;

	(void)state;
	build_2sw(&ff);
	/* Hca4 takes Hca1's GUID. */
	ff.n[5].guid = ff.n[2].guid;
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 6);
	assert_int_equal(nlinks(f), 6);
	h = ibs_fabric_find_guid(f, ff.n[2].guid);
	assert_non_null(h);
	assert_non_null(h->next_same_guid);
	assert_true(h->ports[1].peer != h->next_same_guid->ports[1].peer);
	ibs_fabric_free(f);
}

static void test_ring_of_switches(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	int s[3], i;

	(void)state;
	memset(&ff, 0, sizeof(ff));
	for (i = 0; i < 3; i++)
		s[i] = ff_add(&ff, IB_NODE_SWITCH, 4, 0x300000 + (uint64_t)i, "ring");
	ff_link(&ff, s[0], 1, s[1], 2);
	ff_link(&ff, s[1], 1, s[2], 2);
	ff_link(&ff, s[2], 1, s[0], 2);
	ff.root = s[1];
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 3);
	assert_int_equal(nlinks(f), 3);
	ibs_fabric_free(f);
}

/* ibsim's `Guid` changes NodeGUID only: two switches of a ring share it. */
static void test_duplicate_guids_in_a_loop(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_node *a;
	int s[3], i;

	(void)state;
	memset(&ff, 0, sizeof(ff));
	for (i = 0; i < 3; i++)
		s[i] = ff_add(&ff, IB_NODE_SWITCH, 4, 0x300000 + (uint64_t)i, "ring");
	ff_link(&ff, s[0], 1, s[1], 2);
	ff_link(&ff, s[1], 1, s[2], 2);
	ff_link(&ff, s[2], 1, s[0], 2);
	ff.n[2].guid = ff.n[0].guid;
	ff.root = s[1];
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 3);
	assert_int_equal(nlinks(f), 3);
	a = ibs_fabric_find_guid(f, 0x300000);
	assert_non_null(a);
	assert_non_null(a->next_same_guid);
	ibs_fabric_free(f);
}

static void test_dead_node_is_partial(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	size_t i;
	bool found = false;

	(void)state;
	build_2sw(&ff);
	ff.n[5].dead = true; /* Hca4, on Switch2 port 2 */
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 5);
	assert_true(f->partial);
	for (i = 0; i < f->n_errors; i++) {
		struct ibs_walk_error *e = &f->errors[i];
		if (e->unreachable && e->node && e->node->ni.node_guid == 0x200001 && e->port == 2) {
			found = true;
			assert_int_equal(e->outcome, IBS_MAD_TIMEOUT);
		}
	}
	assert_true(found);
	ibs_fabric_free(f);
}

static void test_bad_status_kept(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_node *s2;

	(void)state;
	build_2sw(&ff);
	ff.n[1].bad_status_attr = IB_ATTR_NODE_DESC;
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 6);
	assert_true(f->partial);
	s2 = ibs_fabric_find_guid(f, 0x200001);
	assert_null(s2->desc);
	assert_non_null(s2->error);
	assert_int_equal(f->errors[0].outcome, IBS_MAD_STATUS);
	assert_int_equal(f->errors[0].status, 0x1c);
	ibs_fabric_free(f);
}

static void test_local_ca(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;

	(void)state;
	build_2sw(&ff);
	ff.root = 2; /* Hca1 */
	ff.root_port = 1;
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 6);
	assert_int_equal(nlinks(f), 6);
	ibs_fabric_free(f);
}

static void test_router_and_down_port(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_node *s;
	int r;

	(void)state;
	build_2sw(&ff);
	r = ff_add(&ff, IB_NODE_ROUTER, 2, 0x400000, "router");
	ff_link(&ff, 1, 7, r, 1);
	ff.n[0].down[5] = true;
	ff.n[1].down[5] = true;
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 7);
	assert_int_equal(nlinks(f), 6); /* 7 cables, one down */
	assert_non_null(ibs_fabric_find_guid(f, 0x400000));
	s = ibs_fabric_find_guid(f, 0x200000);
	assert_true(s->ports[5].valid);
	assert_int_equal(s->ports[5].pi.state, 1);
	assert_null(s->ports[5].peer);
	ibs_fabric_free(f);
}

static char *render_json(const struct ibs_fabric *f)
{
	struct emit *e = emit_new(EMIT_JSON);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	render_topology(e, f);
	assert_int_equal(emit_write(e, m), 0);
	fclose(m);
	emit_free(e);
	return buf;
}

static void test_order_independent(void **state)
{
	struct ff ff;
	struct ibs_fabric *a, *b;
	char *ja, *jb;

	unsigned seed;

	(void)state;
	build_2sw(&ff);
	a = walk(&ff, NULL);
	ja = render_json(a);
	/* Delays by request, then answers delivered in 20 random orders. */
	for (seed = 0; seed <= 20; seed++) {
		ff.delay_ms = seed == 0;
		ff.shuffle = seed ? seed * 2654435761u : 0;
		b = walk(&ff, NULL);
		if (seed)
			assert_true(ff.overtaken > 10); /* the order really changed */
		jb = render_json(b);
		assert_string_equal(ja, jb);
		free(jb);
		ibs_fabric_free(b);
	}
	free(ja);
	ibs_fabric_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_switches_parallel),
		cmocka_unit_test(test_dual_port_ca_two_leaves),
		cmocka_unit_test(test_duplicate_guids_kept),
		cmocka_unit_test(test_ring_of_switches),
		cmocka_unit_test(test_duplicate_guids_in_a_loop),
		cmocka_unit_test(test_dead_node_is_partial),
		cmocka_unit_test(test_bad_status_kept),
		cmocka_unit_test(test_local_ca),
		cmocka_unit_test(test_router_and_down_port),
		cmocka_unit_test(test_order_independent),
	};
	return cmocka_run_group_tests_name("walk", tests, NULL, NULL);
}
