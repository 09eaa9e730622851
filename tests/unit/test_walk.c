/* Unit tests of the walker on in-process fabrics (tests/unit/lib/fake_fabric.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fabrics.h"
#include "../../fabric/walk/walk.h"
#include "../../output/topo.h"

static unsigned nodeinfo_sent;
/* The engine statistics of the last walk(). */
static struct ibs_engine_stats last_stats;

/* Every SMP a walk sent: attribute, modifier, DR path. */
struct sent {
	uint16_t attr;
	uint32_t mod;
	uint8_t hops;
	uint8_t path[8];
};
static struct sent *sent_log;
static size_t n_sent, cap_sent;

static void counting_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct sent *x;

	if (req->attr_id == IBS_ATTR_NODE_INFO)
		nodeinfo_sent++;
	sent_log = xgrow(sent_log, &cap_sent, n_sent + 1, sizeof(*sent_log));
	x = &sent_log[n_sent++];
	memset(x, 0, sizeof(*x));
	x->attr = req->attr_id;
	x->mod = req->attr_mod;
	x->hops = req->addr.hops;
	memcpy(x->path, req->addr.path + 1, req->addr.hops < 8 ? req->addr.hops : 8);
	ff_on_send(f, req, mad);
}

/* How many times attr was sent along exactly this path (0-terminated ports). */
static unsigned sent_along(uint16_t attr, const uint8_t *path)
{
	size_t i, hops = strlen((const char *)path);
	unsigned n = 0;

	for (i = 0; i < n_sent; i++)
		n += sent_log[i].attr == attr && sent_log[i].hops == hops && !memcmp(sent_log[i].path, path, hops);
	return n;
}

static int sent_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct sent));
}

static struct ibs_fabric *walk(struct ff *ff, enum ibs_err *rc_out)
{
	struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ibs_run run;
	struct ibs_fabric *fab;
	enum ibs_err rc;

	o.eo.window = 16;
	o.on_send = counting_send;
	nodeinfo_sent = 0;
	n_sent = 0;
	rc = ff_walk_with(ff, &o, &fab, &run);
	last_stats = run.stats;
	ibs_run_free(&run);
	if (rc_out)
		*rc_out = rc;
	else
		assert_int_equal(rc, IBS_OK);
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

/*
 * A cable that flaps while the walk reads it: port 2 of leaf B reads Down,
 * then carries the probe from leaf C. B is the node already known (NodeInfo
 * matches in full), its port is read again, and nothing is walked twice:
 * the walk is the fabric, not a copy of it around every loop.
 */
static void test_flapping_cable_is_one_cable(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_node *b;
	size_t i;
	int a, sb, sc, h;

	(void)state;
	memset(&ff, 0, sizeof(ff));
	a = ff_add(&ff, IB_NODE_SWITCH, 4, 0x500000, "spine");
	sb = ff_add(&ff, IB_NODE_SWITCH, 4, 0x500001, "leafB");
	sc = ff_add(&ff, IB_NODE_SWITCH, 4, 0x500002, "leafC");
	ff_link(&ff, a, 1, sb, 1);
	ff_link(&ff, a, 2, sc, 1);
	ff_link(&ff, sb, 2, sc, 2);
	h = ff_add(&ff, IB_NODE_CA, 1, 0x100010, "hostB");
	ff_link(&ff, sb, 3, h, 1);
	h = ff_add(&ff, IB_NODE_CA, 1, 0x100020, "hostC");
	ff_link(&ff, sc, 3, h, 1);
	ff.root = a;
	ff.n[sb].down_reads[2] = 1;
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 5);
	assert_int_equal(nlinks(f), 5);
	for (i = 0; i < f->n_nodes; i++)
		assert_null(f->nodes[i]->next_same_guid);
	b = ibs_fabric_find_guid(f, 0x500001);
	assert_non_null(b);
	assert_true(b->ports[2].valid);
	assert_int_equal(b->ports[2].pi.state, 4); /* read again: Active */
	assert_non_null(b->ports[2].peer);
	assert_true(b->ports[2].peer->ni.node_guid == 0x500002);
	assert_int_equal(b->ports[2].peer_port, 2);
	assert_int_equal(sent_along(IBS_ATTR_PORT_INFO, (const uint8_t[]){ 1, 0 }), 6); /* ports 0-4 (every port read), then 2 again */
	assert_false(f->partial);
	ibs_fabric_free(f);
}

/* A real duplicate NodeGUID on a leaf whose port reads Down at first stays two nodes. */
static void test_flap_beside_duplicate_guid(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_node *b;

	(void)state;
	build_2sw(&ff);
	ff.n[5].guid = ff.n[2].guid; /* Hca4 takes Hca1's NodeGUID */
	ff.n[0].down_reads[5] = 1;   /* Switch1 port 5 reads Down once; Switch2 probes it */
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 6);
	assert_int_equal(nlinks(f), 6);
	b = ibs_fabric_find_guid(f, ff.n[2].guid);
	assert_non_null(b);
	assert_non_null(b->next_same_guid);
	assert_null(b->next_same_guid->next_same_guid);
	assert_null(ibs_fabric_find_guid(f, 0x200000)->next_same_guid);
	ibs_fabric_free(f);
}

static char *render_json(const struct ibs_fabric *f)
{
	struct emit *e = emit_new(EMIT_JSON);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	render_topology(e, f, &(const struct ibs_run){ 0 });
	assert_int_equal(emit_write(e, m), 0);
	fclose(m);
	emit_free(e);
	return buf;
}

/*
 * Walk ff again with delays by request, then with answers delivered in
 * `orders` random orders: each walk renders exactly want.
 */
static void same_in_any_order(struct ff *ff, const char *want, unsigned orders, bool partial)
{
	struct ibs_fabric *b;
	enum ibs_err rc;
	unsigned seed;
	char *jb;

	for (seed = 0; seed <= orders; seed++) {
		ff->delay_ms = seed == 0;
		ff->shuffle = seed ? seed * 2654435761u : 0;
		b = walk(ff, partial ? &rc : NULL);
		if (seed)
			assert_true(ff->overtaken > 10); /* the order really changed */
		jb = render_json(b);
		assert_string_equal(want, jb);
		free(jb);
		ibs_fabric_free(b);
	}
}

static void test_order_independent(void **state)
{
	struct ff ff;
	struct ibs_fabric *a;
	char *ja;

	(void)state;
	build_2sw(&ff);
	a = walk(&ff, NULL);
	ja = render_json(a);
	same_in_any_order(&ff, ja, 20, false);
	free(ja);
	ibs_fabric_free(a);
}

/*
 * Two of a node's reads fail (NodeDescription and SwitchInfo), and its
 * GUIDInfo: which failure completes first depends on timing, but the
 * error the node keeps must not
 * (a replay, answering at once, once said SwitchInfo where the live walk
 * had said NodeDescription: t_fault_matrix's lossy replay).
 */
static void test_errors_order_independent(void **state)
{
	struct ff ff;
	struct ibs_fabric *a;
	enum ibs_err rc;
	char *ja;

	(void)state;
	build_2sw(&ff);
	ff.mute_node = 2; /* Switch2 */
	ff.mute_attr[0] = IB_ATTR_NODE_DESC;
	ff.mute_attr[1] = IB_ATTR_SWITCH_INFO;
	ff.mute_attr[2] = IB_ATTR_GUID_INFO;
	ff.n_mute = 3;
	a = walk(&ff, &rc);
	ja = render_json(a);
	{
		const struct ibs_node *s2 = ibs_fabric_find_guid(a, 0x200001);
		assert_non_null(s2);
		if (!s2->error || strncmp(s2->error, "NodeDescription: ", 17))
			fail_msg("Switch2's error: %s", s2->error ? s2->error : "(none)");
	}
	same_in_any_order(&ff, ja, 12, true);
	free(ja);
	ibs_fabric_free(a);
}

/* MlnxExtPortInfo queries the last walk sent. */
static unsigned mlnx_ext_sent(void)
{
	size_t i;
	unsigned n = 0;

	for (i = 0; i < n_sent; i++)
		n += sent_log[i].attr == IBS_ATTR_MLNX_EXT_PORT_INFO;
	return n;
}

/*
 * Whether a QDR switch port may run FDR10 (and gets Mellanox
 * ExtendedPortInfo) depends on the switch's capability mask, which is port
 * 0's (IBA 14.2.5.6). What the walk asks must not depend on whether port
 * 0's PortInfo came back first: a replay, answering at once, once asked
 * none where the live walk had asked some (t_fault_matrix's lossy replay).
 * Both switches run FDR (LinkSpeedActive 4, LinkSpeedExtActive 1, the mask
 * says extended speeds): no port may run FDR10, so none is asked, however
 * late port 0 answers. At plain QDR every linked external port is asked,
 * once, early or late.
 */
static void test_fdr10_asked_whatever_order(void **state)
{
	static const unsigned delays[] = { 0, 3, 20 };
	struct ff ff;
	struct ibs_fabric *a;
	unsigned ext, k, want_qdr = 0;

	(void)state;
	for (ext = 0; ext <= 1; ext++) {
		for (k = 0; k < sizeof(delays) / sizeof(delays[0]); k++) {
			build_2sw(&ff);
			ff.n[0].speed_active = ff.n[1].speed_active = 4;
			ff.n[0].speed_ext_active = ff.n[1].speed_ext_active = (uint8_t)ext;
			ff.n[0].capmask = ff.n[1].capmask = 0x02010048u | IBS_CAP_EXT_SPEEDS;
			ff.port0_delay_ms = delays[k];
			a = walk(&ff, NULL);
			if (ext && mlnx_ext_sent())
				fail_msg("port 0 %u ms late: %u MlnxExtPortInfo asked of FDR ports", delays[k],
					 mlnx_ext_sent());
			if (!ext && k == 0)
				want_qdr = mlnx_ext_sent();
			if (!ext && mlnx_ext_sent() != want_qdr)
				fail_msg("port 0 %u ms late: %u MlnxExtPortInfo asked, %u when on time", delays[k],
					 mlnx_ext_sent(), want_qdr);
			ibs_fabric_free(a);
		}
	}
	assert_int_equal(want_qdr, 8); /* 2 x (2 hosts + 2 cables between the switches) */
}

/*
 * A small fat tree: leaf L1 (where the device sits, hosts on ports 1-2),
 * spines S1 and S2, each cabled twice to each leaf (L1 5,6 to S1 1,2 and
 * 7,8 to S2 1,2; S1 and S2 3,4 to L2 5,6 and 7,8), leaf L2 with hosts on
 * ports 1-2. A clean walk reaches L2 through L1 port 5, S1 port 3.
 */
enum { T_L1, T_S1, T_S2, T_L2, T_H1, T_H2, T_H3, T_H4 };

static void build_tree(struct ff *ff)
{
	static const int cables[][4] = {
		{ T_L1, 5, T_S1, 1 }, { T_L1, 6, T_S1, 2 }, { T_L1, 7, T_S2, 1 }, { T_L1, 8, T_S2, 2 },
		{ T_S1, 3, T_L2, 5 }, { T_S1, 4, T_L2, 6 }, { T_S2, 3, T_L2, 7 }, { T_S2, 4, T_L2, 8 },
		{ T_L1, 1, T_H1, 1 }, { T_L1, 2, T_H2, 1 }, { T_L2, 1, T_H3, 1 }, { T_L2, 2, T_H4, 1 },
	};
	size_t k;
	int i;

	memset(ff, 0, sizeof(*ff));
	ff_add(ff, IB_NODE_SWITCH, 8, 0x200001, "leaf1");
	ff_add(ff, IB_NODE_SWITCH, 4, 0x200011, "spine1");
	ff_add(ff, IB_NODE_SWITCH, 4, 0x200012, "spine2");
	ff_add(ff, IB_NODE_SWITCH, 8, 0x200002, "leaf2");
	for (i = 0; i < 4; i++)
		ff_add(ff, IB_NODE_CA, 1, 0x100000 + 4 * (uint64_t)i, "host");
	for (k = 0; k < sizeof(cables) / sizeof(cables[0]); k++)
		ff_link(ff, cables[k][0], cables[k][1], cables[k][2], cables[k][3]);
	ff->root = T_L1;
}

/* S1 loses everything L1 port 5 brings it for port 3: the first path to L2 and beyond. */
static void test_lost_path_goes_around(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	char *clean, *js;
	struct sent *ref = NULL;
	size_t n_ref = 0;
	unsigned seed;

	(void)state;
	build_tree(&ff);
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 8);
	assert_int_equal(nlinks(f), 12);
	clean = render_json(f);
	ibs_fabric_free(f);
	for (seed = 0; seed <= 10; seed++) {
		build_tree(&ff);
		ff_drop_path(&ff, (const uint8_t[]){ 5, 3, 0 });
		ff.shuffle = seed ? seed * 2654435761u : 0;
		f = walk(&ff, NULL);
		/* Everything found, nothing missing, and the very output of the clean walk, paths included. */
		assert_false(f->partial);
		assert_int_equal(f->n_errors, 0);
		js = render_json(f);
		assert_string_equal(js, clean);
		free(js);
		assert_true(last_stats.other_paths > 0);
		/* L2's description: its own path, then through the other spine (not the parallel cable). */
		assert_int_equal(sent_along(IBS_ATTR_NODE_DESC, (const uint8_t[]){ 5, 3, 0 }), 1);
		assert_int_equal(sent_along(IBS_ATTR_NODE_DESC, (const uint8_t[]){ 7, 3, 0 }), 1);
		assert_int_equal(sent_along(IBS_ATTR_NODE_DESC, (const uint8_t[]){ 5, 4, 0 }), 0);
		/* The probe to L2 out of S1 port 3 goes round through L1's parallel cable to S1. */
		assert_int_equal(sent_along(IBS_ATTR_NODE_INFO, (const uint8_t[]){ 6, 3, 0 }), 1);
		/* Whatever order the answers came in, the same requests went out. */
		qsort(sent_log, n_sent, sizeof(*sent_log), sent_cmp);
		if (!ref) {
			ref = xmalloc(n_sent * sizeof(*ref));
			memcpy(ref, sent_log, n_sent * sizeof(*ref));
			n_ref = n_sent;
		} else {
			assert_int_equal(n_sent, n_ref);
			assert_memory_equal(sent_log, ref, n_sent * sizeof(*ref));
		}
		ibs_fabric_free(f);
	}
	free(ref);
	free(clean);
}

/* H3 refuses its first 8 SMPs: its probe fails along all 4 paths twice (retries 1), then the re-sweep finds it. */
static void test_resweep_finds_what_failed(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	char *clean, *js;

	(void)state;
	build_tree(&ff);
	f = walk(&ff, NULL);
	clean = render_json(f);
	ibs_fabric_free(f);
	build_tree(&ff);
	ff.refuse_node = T_H3 + 1;
	ff.refuse_count = 8;
	f = walk(&ff, NULL);
	assert_int_equal(ff.refused, 8);
	assert_false(f->partial);
	js = render_json(f);
	assert_string_equal(js, clean);
	/* The 8 along its 4 paths, and the one in the re-sweep, along the first. */
	assert_int_equal(sent_along(IBS_ATTR_NODE_INFO, (const uint8_t[]){ 5, 3, 1, 0 }), 3);
	assert_int_equal(sent_along(IBS_ATTR_NODE_INFO, (const uint8_t[]){ 7, 3, 1, 0 }), 2);
	assert_int_equal(sent_along(IBS_ATTR_NODE_INFO, (const uint8_t[]){ 5, 4, 1, 0 }), 2);
	assert_int_equal(sent_along(IBS_ATTR_NODE_INFO, (const uint8_t[]){ 6, 3, 1, 0 }), 2);
	free(js);
	ibs_fabric_free(f);
	free(clean);
}

/* H3 never answers: one error, on its own path, naming the port it lies behind. */
static void test_missing_node_named(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	struct ibs_walk_error *er;
	char buf[64];
	size_t i, named = 0;

	(void)state;
	build_tree(&ff);
	ff.refuse_node = T_H3 + 1;
	ff.refuse_count = 1000;
	f = walk(&ff, NULL);
	assert_int_equal(ff.refused, 16); /* 4 paths, 2 rounds, twice */
	assert_true(f->partial);
	assert_int_equal(f->n_nodes, 7);
	assert_int_equal(f->n_errors, 1);
	er = &f->errors[0];
	assert_true(er->unreachable);
	assert_true(er->node->ni.node_guid == 0x200002);
	assert_int_equal(er->port, 1);
	assert_string_equal(ibs_addr_str(&er->path, buf, sizeof(buf)), "0,5,3,1");
	for (i = 0; i < f->n_errors; i++)
		named += ibs_walk_error_hides_neighbour(&f->errors[i]);
	assert_int_equal(named, 1);
	ibs_fabric_free(f);
}

/*
 * A switch running an SM says IsSM in port 0's CapabilityMask; its external
 * ports' CapabilityMask is not defined (IBA 14.2.5.6) and may repeat port
 * 0's. The SM is the switch's (port 0) once: not one per port, each with its
 * own SMInfo query.
 */
static void test_switch_sm_once(void **state)
{
	struct ff ff;
	struct ibs_fabric *f;
	size_t i, on_s2 = 0;

	(void)state;
	build_2sw(&ff);
	ff.n[1].capmask = 0x02010048u | IBS_CAP_IS_SM;
	f = walk(&ff, NULL);
	assert_int_equal(f->n_nodes, 6);
	for (i = 0; i < f->n_sms; i++)
		if (f->sms[i].node->ni.node_guid == 0x200001) {
			on_s2++;
			assert_int_equal(f->sms[i].port, 0);
			assert_true(f->sms[i].ok);
		}
	assert_int_equal(on_s2, 1);
	assert_int_equal(f->n_sms, 1);
	for (i = 0, on_s2 = 0; i < n_sent; i++)
		on_s2 += sent_log[i].attr == IBS_ATTR_SM_INFO;
	assert_int_equal(on_s2, 1);
	ibs_fabric_free(f);
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
		cmocka_unit_test(test_flapping_cable_is_one_cable),
		cmocka_unit_test(test_flap_beside_duplicate_guid),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_errors_order_independent),
		cmocka_unit_test(test_fdr10_asked_whatever_order),
		cmocka_unit_test(test_lost_path_goes_around),
		cmocka_unit_test(test_resweep_finds_what_failed),
		cmocka_unit_test(test_missing_node_named),
		cmocka_unit_test(test_switch_sm_once),
	};
	int rc = cmocka_run_group_tests_name("walk", tests, NULL, NULL);

	free(sent_log);
	return rc;
}
