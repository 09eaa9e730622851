/* Unit tests of health checks and thresholds, and of the diff and the checks on walked and loaded fabrics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <time.h>

#include "lib/fabrics.h"
#include "../../core/capture/format.h"
#include "../../fabric/check/diff.h"
#include "../../fabric/check/health.h"
#include "../../fabric/load/load.h"
#include "../../fabric/walk/walk.h"
#include "../../output/netfile.h"
#include "../../output/topo.h"

static struct ff ff;

/* ff_2sw4ca with a second cable between the switches (ports 5). */
static void build(void)
{
	ff_2sw4ca(&ff);
	ff_link(&ff, 0, 5, 1, 5);
}

static struct ibs_fabric *walk(void)
{
	struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ibs_fabric *fab;

	o.eo.timeout_ms = 50;
	o.sm_lid = 1;
	ff_walk_with(&ff, &o, &fab, NULL);
	return fab;
}

static size_t count(const struct ibs_findings *fs, const char *id)
{
	size_t i, n = 0;

	for (i = 0; i < fs->n; i++)
		n += !strcmp(fs->v[i].check->id, id);
	return n;
}

/* The run that read the fabric checked next (a test may say it stopped early or lacks something). */
static struct ibs_run the_run;

static void run(struct ibs_fabric *f, const struct ibs_fabric *base, struct ibs_findings *fs)
{
	static struct ibs_thresholds t;
	struct ibs_health_opts o = { .thresholds = &t, .baseline = base };

	ibs_thresholds_default(&t);
	ibs_health_check(f, &the_run, &o, fs);
}

static void test_healthy(void **state)
{
	struct ibs_fabric *f;
	struct ibs_findings fs;

	(void)state;
	build();
	f = walk();
	/* The fake SMA answers SMInfo as master on Switch1 (LID 1). */
	f->nodes[4]->ports[0].pi.cap_mask |= IBS_CAP_IS_SM;
	run(f, NULL, &fs);
	assert_int_equal(fs.verdict, IBS_SEV_OK);
	assert_int_equal(fs.n, 0);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
}

/*
 * PortState belongs to each end of a cable: one end Armed, the other
 * Active, both orientations (the end the walk reads first, and the end
 * whose cable it learns from the other side). Every port's own PortInfo is
 * read, and link.down names only the Armed end.
 */
static void test_one_end_armed(void **state)
{
	static const struct {
		int node;
		unsigned port;
	} armed[] = { { 1, 3 }, { 0, 3 } };
	unsigned k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct ibs_fabric *f;
		struct ibs_findings fs;
		const struct ibs_node *s1, *s2, *a;
		size_t i;
		build();
		ff.n[armed[k].node].state[armed[k].port] = 3;
		f = walk();
		s1 = ibs_fabric_find_guid(f, 0x200000);
		s2 = ibs_fabric_find_guid(f, 0x200001);
		a = armed[k].node ? s2 : s1;
		assert_non_null(s1);
		assert_non_null(s2);
		/* What each port said, not its peer's word. */
		assert_int_equal(s1->ports[3].pi.state, armed[k].node ? 4 : 3);
		assert_int_equal(s2->ports[3].pi.state, armed[k].node ? 3 : 4);
		assert_int_equal(s1->ports[3].pi.local_port, 3);
		assert_int_equal(s2->ports[3].pi.local_port, 3);
		run(f, NULL, &fs);
		assert_int_equal(count(&fs, "link.down"), 1);
		for (i = 0; i < fs.n; i++)
			if (!strcmp(fs.v[i].check->id, "link.down")) {
				assert_ptr_equal(fs.v[i].node, a);
				assert_int_equal(fs.v[i].port, 3);
				assert_non_null(strstr(fs.v[i].message, "Armed"));
			}
		/* No other port of either switch is said to be anything but Active. */
		for (i = 1; i <= 8; i++) {
			if (s1->ports[i].peer && !(a == s1 && i == 3))
				assert_int_equal(s1->ports[i].pi.state, 4);
			if (s2->ports[i].peer && !(a == s2 && i == 3))
				assert_int_equal(s2->ports[i].pi.state, 4);
		}
		ibs_findings_free(&fs);
		ibs_fabric_free(f);
	}
}

/* A cable from Switch1 port 6 to its own port 7: one cable in the model, one link.self_loop finding. */
static void test_self_loop(void **state)
{
	struct ibs_fabric *f;
	struct ibs_findings fs;
	const struct ibs_node *s1;
	size_t i;

	(void)state;
	build();
	ff_link(&ff, 0, 6, 0, 7);
	f = walk();
	s1 = ibs_fabric_find_guid(f, 0x200000);
	assert_ptr_equal(s1->ports[6].peer, s1);
	assert_int_equal(s1->ports[6].peer_port, 7);
	assert_ptr_equal(s1->ports[7].peer, s1);
	assert_int_equal(s1->ports[7].peer_port, 6);
	run(f, NULL, &fs);
	assert_int_equal(count(&fs, "link.self_loop"), 1);
	assert_int_equal(fs.verdict, IBS_SEV_WARNING);
	for (i = 0; i < fs.n; i++)
		if (!strcmp(fs.v[i].check->id, "link.self_loop")) {
			assert_ptr_equal(fs.v[i].node, s1);
			assert_int_equal(fs.v[i].port, 6);
			assert_ptr_equal(fs.v[i].peer, s1);
			assert_int_equal(fs.v[i].peer_port, 7);
		}
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
}

static void test_identity(void **state)
{
	struct ibs_fabric *f;
	struct ibs_findings fs;

	(void)state;
	build();
	ff.n[5].guid = ff.n[2].guid;   /* duplicate node GUID (and so port GUID) */
	ff.n[3].lid = ff.n[4].lid;     /* duplicate LID */
	f = walk();
	run(f, NULL, &fs);
	assert_int_equal(fs.verdict, IBS_SEV_CRITICAL);
	assert_int_equal(count(&fs, "identity.duplicate_guid"), 1);
	assert_int_equal(count(&fs, "identity.duplicate_lid"), 1);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
}

/* n CAs of one port each, LIDs and port GUIDs from lid_of and guid_of. */
static struct ibs_fabric *cas(size_t n, unsigned (*lid_of)(size_t), uint64_t (*guid_of)(size_t))
{
	struct ibs_fabric *f = ibs_fabric_new();
	size_t i;

	for (i = 0; i < n; i++) {
		struct ibs_node *nd = fb_node(f, IBS_NODE_CA, 1, 0x100000 + i, 0);
		fb_port(nd, 1, IBS_PORT_ACTIVE, IBS_PHYS_NOP, (uint16_t)lid_of(i))->guid = guid_of(i);
	}
	f->local.sm_lid = 1;
	ibs_fabric_sort(f);
	return f;
}

static unsigned lid_own(size_t i)
{
	return 1 + (unsigned)(i % 0xbffe);
}

static uint64_t guid_own(size_t i)
{
	return 0x900000 + i;
}

static unsigned lid_same(size_t i)
{
	(void)i;
	return 7;
}

static uint64_t guid_same(size_t i)
{
	(void)i;
	return 0x900000;
}

static double cpu_of(size_t n)
{
	struct ibs_fabric *f = cas(n, lid_own, guid_own);
	struct ibs_findings fs;
	clock_t t = clock();

	run(f, NULL, &fs);
	t = clock() - t;
	assert_int_equal(count(&fs, "identity.duplicate_lid"), 0);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
	return (double)t / CLOCKS_PER_SEC;
}

/*
 * Duplicate LIDs and port GUIDs: each port reported once, against the first
 * before it; found by table and sort, so 10 times the nodes take about 10
 * times the time (comparing every pair took 100 times).
 */
static void test_identity_at_scale(void **state)
{
	struct ibs_fabric *f = cas(300, lid_same, guid_same);
	struct ibs_findings fs;
	double t1, t10;
	size_t i;

	(void)state;
	run(f, NULL, &fs);
	assert_int_equal(count(&fs, "identity.duplicate_lid"), 299);
	assert_int_equal(count(&fs, "identity.duplicate_port_guid"), 299);
	for (i = 0; i < fs.n; i++)
		if (!strcmp(fs.v[i].check->id, "identity.duplicate_lid"))
			assert_true(fs.v[i].peer == f->nodes[0] && fs.v[i].node != f->nodes[0]);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
	t1 = cpu_of(4000);
	t10 = cpu_of(40000);
	if (t10 > 30 * t1 + 0.05)
		fail_msg("identity checks: %.3f s for 40,000 nodes, %.3f s for 4,000: not linear", t10, t1);
}

static void test_sm_states(void **state)
{
	struct ibs_fabric *f;
	struct ibs_findings fs;
	struct ibs_sm *a, *b;

	(void)state;
	build();
	f = walk();
	/* Two masters. */
	f->n_sms = 0;
	a = ibs_fabric_add_sm(f);
	a->node = f->nodes[4];
	a->lid = 1;
	a->ok = true;
	a->info.state = 3;
	b = ibs_fabric_add_sm(f);
	b->node = f->nodes[5];
	b->lid = 2;
	b->ok = true;
	b->info.state = 3;
	run(f, NULL, &fs);
	assert_int_equal(count(&fs, "sm.multiple_masters"), 1);
	assert_int_equal(fs.verdict, IBS_SEV_CRITICAL);
	ibs_findings_free(&fs);
	/* The SM at the master LID says standby: no master. */
	a->info.state = 2;
	b->info.state = 2;
	run(f, NULL, &fs);
	assert_int_equal(count(&fs, "sm.no_master"), 1);
	ibs_findings_free(&fs);
	/* No SM LID at all. */
	f->local.sm_lid = 0;
	run(f, NULL, &fs);
	assert_int_equal(count(&fs, "sm.no_master"), 1);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
}

static void test_verdict_unknown_when_aborted(void **state)
{
	struct ibs_fabric *f;
	struct ibs_findings fs;

	(void)state;
	build();
	f = walk();
	the_run.aborted = true;
	the_run.abort_reason = xstrdup("the transport failed");
	run(f, NULL, &fs);
	assert_int_equal(fs.verdict, IBS_SEV_UNKNOWN);
	assert_non_null(strstr(fs.verdict_reason, "transport"));
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
	ibs_run_free(&the_run);
}

/* A source without SMInfo (an ibnetdiscover cache): no SM finding, and no OK either. */
static void test_source_lacks_sminfo(void **state)
{
	struct ibs_fabric *f;
	struct ibs_findings fs;

	(void)state;
	build();
	f = walk();
	f->n_sms = 0; /* what a cache holds: the SM LID from PortInfo, no SMInfo */
	run(f, NULL, &fs);
	assert_int_equal(count(&fs, "sm.unreachable"), 1);
	ibs_findings_free(&fs);
	the_run.lacks = IBS_LACK_SMINFO | IBS_LACK_PMA;
	run(f, NULL, &fs);
	assert_int_equal(fs.n, 0);
	assert_int_equal(fs.verdict, IBS_SEV_UNKNOWN);
	assert_string_equal(fs.verdict_reason, "SM checks not run: the source holds no SMInfo");
	ibs_findings_free(&fs);
	/* Something CRITICAL is still CRITICAL. */
	f->local.lid = 0;
	f->nodes[0]->ports[1].pi.lid = f->nodes[1]->ports[1].pi.lid;
	run(f, NULL, &fs);
	assert_int_equal(count(&fs, "identity.duplicate_lid"), 1);
	assert_int_equal(fs.verdict, IBS_SEV_CRITICAL);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
	ibs_run_free(&the_run);
}

static void test_thresholds(void **state)
{
	struct ibs_thresholds t;
	char *msg = NULL;
	const char *ok = "# comment\n SymbolErrorCounter = 100 \nportrcverrors=5\n\n";
	const char *bad[][2] = {
		{ "Nope=1\n", "t:1: threshold 'Nope=1': unknown counter 'Nope'" },
		{ "\nSymbolErrorCounter=-1\n", "t:2: threshold 'SymbolErrorCounter=-1': want a whole number" },
		{ "SymbolErrorCounter\n", "t:1: threshold 'SymbolErrorCounter': want Name=N (e.g. SymbolErrorCounter=100)" },
		{ "VL15Dropped=1x\n", "t:1: threshold 'VL15Dropped=1x': want a whole number" },
	};
	size_t i;

	(void)state;
	ibs_thresholds_default(&t);
	assert_int_equal(t.t[0], 10);
	assert_int_equal(ibs_thresholds_parse("t", ok, strlen(ok), &t, &msg), IBS_OK);
	assert_int_equal(t.t[0], 100);
	assert_int_equal(t.t[ibs_counter_find("PortRcvErrors") - ibs_counter_defs], 5);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ibs_thresholds_parse("t", bad[i][0], strlen(bad[i][0]), &t, &msg), IBS_E_INPUT);
		assert_string_equal(msg, bad[i][1]);
		free(msg);
	}
}

static char *to_json(const struct ibs_fabric *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct emit *e = emit_new(EMIT_JSON);

	render_topology(e, f, &(const struct ibs_run){ 0 });
	emit_write(e, m);
	emit_free(e);
	fclose(m);
	return buf;
}

static char *to_netfile(const struct ibs_fabric *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	render_netfile(m, f);
	fclose(m);
	return buf;
}

static void test_load_roundtrip_and_diff(void **state)
{
	struct ibs_fabric *f, *j, *n, *g;
	struct ibs_diff d;
	char *js, *nf, *msg = NULL;

	(void)state;
	build();
	f = walk();
	js = to_json(f);
	nf = to_netfile(f);
	assert_int_equal(ibs_fabric_parse_json("a.json", js, strlen(js), &j, &msg), IBS_OK);
	assert_int_equal(ibs_fabric_parse_netfile("a.net", nf, strlen(nf), &n, &msg), IBS_OK);
	ibs_diff_fabrics(f, j, &d);
	assert_int_equal(d.n, 0);
	ibs_diff_free(&d);
	ibs_diff_fabrics(j, n, &d);
	assert_int_equal(d.n, 0);
	ibs_diff_free(&d);

	/* Move Hca1 from Switch1 port 1 to port 4, drop Hca4, slow a link. */
	ff.n[0].peer[1] = 0;
	ff_link(&ff, 0, 4, 2, 1);
	ff.n[1].peer[2] = 0;
	ff.n[5].peer[1] = 0;
	g = walk();
	ibs_diff_fabrics(f, g, &d);
	{
		size_t i, moved = 0, removed = 0, linkrm = 0;
		for (i = 0; i < d.n; i++) {
			moved += d.v[i].kind == IBS_CHG_LINK_MOVED;
			removed += d.v[i].kind == IBS_CHG_NODE_REMOVED;
			linkrm += d.v[i].kind == IBS_CHG_LINK_REMOVED;
			if (d.v[i].kind == IBS_CHG_LINK_MOVED) {
				assert_true(d.v[i].node->ni.node_guid == 0x100000);
				assert_int_equal(d.v[i].was_port, 1);
				assert_int_equal(d.v[i].now_port, 4);
			}
		}
		assert_int_equal(moved, 1);
		assert_int_equal(removed, 1);
		assert_int_equal(linkrm, 1);
	}
	ibs_diff_free(&d);
	{
		struct ibs_findings fs;
		run(g, f, &fs);
		assert_int_equal(count(&fs, "drift.cable_moved"), 1);
		assert_int_equal(count(&fs, "drift.node_missing"), 1);
		assert_int_equal(count(&fs, "link.down"), 1);
		assert_int_equal(fs.verdict, IBS_SEV_CRITICAL);
		ibs_findings_free(&fs);
	}
	free(js);
	free(nf);
	ibs_fabric_free(f);
	ibs_fabric_free(g);
	ibs_fabric_free(j);
	ibs_fabric_free(n);
}

/*
 * A loaded node has records only for the ports its file lists or cables to:
 * a switch declaring 254 ports with one cable has port 0 and that one; a CA
 * with none has none. Every view, the checks and the diff work on them.
 */
static void test_load_sparse_ports(void **state)
{
	static const char net[] = "Switch\t254 \"S-0000000000000001\"\n"
				  "[200]\t\"H-0000000000000002\"[1]\n"
				  "Ca\t2 \"H-0000000000000002\"\n"
				  "Ca\t2 \"H-0000000000000003\"\n";
	static const char js[] = "{\"schema\":\"ibscan.topology/1\",\"nodes\":[{\"index\":0,\"guid\":\"0x1\","
				 "\"type\":\"switch\",\"num_ports\":254},{\"index\":1,\"guid\":\"0x3\",\"type\":\"ca\","
				 "\"num_ports\":2,\"ports\":[]}]}";
	struct ibs_fabric *n, *j;
	struct ibs_findings fs;
	struct ibs_diff d;
	struct ibs_link *l;
	char *msg = NULL, *out;

	(void)state;
	assert_int_equal(ibs_fabric_parse_netfile("a.net", net, strlen(net), &n, &msg), IBS_OK);
	assert_int_equal(n->n_nodes, 3);
	assert_int_equal(n->nodes[0]->ni.num_ports, 254);
	assert_int_equal(n->nodes[0]->n_ports, 2); /* port 0 and port 200 */
	assert_non_null(ibs_node_port(n->nodes[0], 200));
	assert_null(ibs_node_port(n->nodes[0], 199));
	assert_int_equal(n->nodes[1]->n_ports, 1); /* the far end of the cable */
	assert_int_equal(n->nodes[2]->n_ports, 0);
	assert_null(ibs_node_port(n->nodes[2], 1));
	assert_int_equal(ibs_fabric_links(n, &l), 1);
	free(l);
	assert_int_equal(ibs_fabric_parse_json("a.json", js, strlen(js), &j, &msg), IBS_OK);
	assert_int_equal(j->nodes[0]->n_ports, 0);
	ibs_diff_fabrics(n, j, &d);
	assert_true(d.n >= 2);
	ibs_diff_free(&d);
	run(n, j, &fs);
	ibs_findings_free(&fs);
	out = to_json(n);
	assert_non_null(strstr(out, "\"num_ports\": 254"));
	free(out);
	out = to_netfile(j);
	free(out);
	ibs_fabric_free(n);
	ibs_fabric_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_one_end_armed),
		cmocka_unit_test(test_self_loop),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_identity_at_scale),
		cmocka_unit_test(test_sm_states),
		cmocka_unit_test(test_verdict_unknown_when_aborted),
		cmocka_unit_test(test_source_lacks_sminfo),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_load_roundtrip_and_diff),
		cmocka_unit_test(test_load_sparse_ports),
	};
	return cmocka_run_group_tests_name("health", tests, NULL, NULL);
}
