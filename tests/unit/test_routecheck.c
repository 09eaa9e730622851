/* Unit tests of the route check (fabric/check/routecheck.h) on small fabrics built by hand, with tables written by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabrics.h"
#include "../../fabric/check/health.h"
#include "../../fabric/check/hostlist.h"
#include "../../fabric/check/routecheck.h"

#define MAXN 32
#define NLID 64

static struct ibs_fabric *f;
static struct ibs_node *nodes[MAXN];
static size_t nn;
static uint8_t table[MAXN][NLID]; /* by node number: the LFT of a switch */

static struct ibs_node *add(uint8_t type, unsigned ports, uint16_t lid, uint8_t lmc)
{
	struct ibs_node *n = fb_node(f, type, ports, 0x1000 + nn, 0);
	unsigned p;

	/* A switch port without a cable is Down. */
	for (p = 0; p <= ports; p++)
		fb_port(n, p, type == IBS_NODE_SWITCH && p ? IBS_PORT_DOWN : IBS_PORT_ACTIVE, IBS_PHYS_NOP, 0);
	n->ports[type == IBS_NODE_SWITCH ? 0 : 1].pi.lid = lid;
	n->ports[type == IBS_NODE_SWITCH ? 0 : 1].pi.lmc = lmc;
	if (type == IBS_NODE_SWITCH) {
		n->has_si = true;
		n->si.lft_top = NLID - 1;
	}
	memset(table[nn], 0xff, NLID);
	nodes[nn++] = n;
	return n;
}

static void cable(size_t a, unsigned pa, size_t b, unsigned pb)
{
	assert_true(ibs_fabric_connect(nodes[a], (uint8_t)pa, nodes[b], (uint8_t)pb));
	nodes[a]->ports[pa].pi.state = 4;
	nodes[b]->ports[pb].pi.state = 4;
}

static void start(void)
{
	f = ibs_fabric_new();
	nn = 0;
}

/* Sort and hand the tables over (l holds MAXN): how many. */
static size_t tables(struct ibs_lft *l)
{
	size_t i, n = 0;

	ibs_fabric_sort(f);
	for (i = 0; i < nn; i++) {
		if (nodes[i]->ni.node_type != IBS_NODE_SWITCH)
			continue;
		l[n].node = nodes[i];
		l[n].ports = table[i];
		l[n].n = NLID;
		l[n++].ok = true;
	}
	return n;
}

static void check(struct ibs_routecheck *rc)
{
	struct ibs_lft l[MAXN];
	size_t n = tables(l);

	ibs_routecheck(f, l, n, rc);
}

static void finish(struct ibs_routecheck *rc)
{
	ibs_routecheck_free(rc);
	ibs_fabric_free(f);
}

/* The node number of n in nodes[]. */
static size_t num(const struct ibs_node *n)
{
	size_t i;

	for (i = 0; i < nn && nodes[i] != n; i++)
		;
	return i;
}

static const struct ibs_rc_switch *sw_of(const struct ibs_routecheck *rc, size_t node)
{
	size_t i;

	for (i = 0; i < rc->n_sw; i++)
		if (rc->sw[i].node == nodes[node])
			return &rc->sw[i];
	fail();
	return NULL;
}

/*
 * A ring of four switches (nodes 0-3, LIDs 1-4), switch i's port 2 cabled to
 * switch i+1's port 3, host i (nodes 4-7, LIDs 5-8) on switch i's port 1.
 * clockwise: every LID not at home goes out of port 2 (the long way round
 * for some); otherwise min-hop with ties broken clockwise.
 */
static void ring(bool clockwise, bool line)
{
	size_t i, d;

	start();
	for (i = 0; i < 4; i++)
		add(IBS_NODE_SWITCH, 3, (uint16_t)(1 + i), 0);
	for (i = 0; i < 4; i++)
		add(IBS_NODE_CA, 1, (uint16_t)(5 + i), 0);
	for (i = 0; i < 4; i++) {
		if (!line || i != 3)
			cable(i, 2, (i + 1) % 4, 3);
		cable(i, 1, 4 + i, 1);
	}
	for (i = 0; i < 4; i++)
		for (d = 0; d < 4; d++) {
			size_t cw = (d + 4 - i) % 4; /* hops clockwise */
			uint8_t home = 0, away;
			if (line) /* the ring cut between 3 and 0: go the only way */
				away = d > i ? 2 : 3;
			else
				away = clockwise || cw <= 2 ? 2 : 3;
			table[i][1 + d] = d == i ? home : away;
			table[i][5 + d] = d == i ? 1 : away;
		}
}

static void test_ring_credit_loop(void **state)
{
	struct ibs_routecheck rc;
	size_t i;

	(void)state;
	ring(false, false);
	check(&rc);
	assert_int_equal(rc.sources, 4);
	assert_int_equal(rc.dests, 8);
	assert_int_equal(rc.pairs, 4 * 7);
	assert_int_equal(rc.ok, rc.pairs);
	assert_int_equal(rc.n, 0);
	assert_int_equal(rc.non_minimal, 0); /* min-hop: ties clockwise are still shortest */
	assert_int_equal(rc.n_cycles, 1);
	assert_int_equal(rc.cycles[0].n, 4);
	assert_int_equal(rc.cycles[0].scc, 4);
	/* The four clockwise links, in order: each the one after the last. */
	for (i = 0; i < 4; i++) {
		const struct ibs_rc_chan *c = &rc.cycles[0].links[i], *nx = &rc.cycles[0].links[(i + 1) % 4];
		assert_int_equal(c->port, 2);
		assert_ptr_equal(ibs_node_port(c->node, 2)->peer, nx->node);
	}
	assert_true(rc.sl0_assumed);
	assert_false(rc.vl_read);
	assert_string_equal(rc.vl_why, "SL2VL not read");
	assert_int_equal(rc.n_vls, 1);
	finish(&rc);

	/* The long way round clockwise: still every pair, but non-minimal routes. */
	ring(true, false);
	check(&rc);
	assert_int_equal(rc.ok, rc.pairs);
	assert_int_equal(rc.max_hops, 5); /* host 0 to host 3: 3 switch links + 2 host links */
	/* Non-minimal: to the host 3 hops clockwise (1 the other way); switch LIDs are not compared. */
	assert_int_equal(rc.non_minimal, 4);
	assert_int_equal(rc.minimal_known, 4 * 3);
	assert_int_equal(rc.n_cycles, 1);
	finish(&rc);

	/* Cut the ring: a line has no cycle. */
	ring(false, true);
	check(&rc);
	assert_int_equal(rc.ok, rc.pairs);
	assert_int_equal(rc.n_cycles, 0);
	assert_true(rc.deps > 0);
	finish(&rc);
}

/* The VL the tables give a route of SL sl from in to out at switch sw. */
typedef uint8_t (*vl_fn)(size_t sw, unsigned in, unsigned out, unsigned sl);
/* The SL the SA gives the path from slid to dlid. */
typedef uint8_t (*sl_fn)(uint16_t slid, uint16_t dlid);

/*
 * The ring's SL2VL tables and the SA's SLs as routes --check reads them
 * (ibs_session_routecheck): the check on one VL, the pairs
 * ibs_sl2vl_pairs asks for whose out-channel is in a part with a cycle,
 * each given the VLs vl_of(switch, in, out, SL) says for all 16 SLs; with
 * sl_of, the (source, LID) pairs ibs_rc_sl_pairs picks, each given the SL
 * sl_of says (answered unless sa_silent), then the check with them, and
 * with the SA's SLs again for the cycles' SLs.
 */
static void check_sls(struct ibs_routecheck *rc, vl_fn vl_of, size_t unanswered_at, sl_fn sl_of, bool sa_silent,
		      size_t *n_pairs)
{
	struct ibs_lft l[MAXN];
	struct ibs_sl2vls t;
	struct ibs_path_sl *sls = NULL;
	size_t n_sls = 0;
	struct ibs_rc_opts o;
	size_t n = tables(l), k, i;

	memset(&o, 0, sizeof(o));
	o.vls = &t;
	ibs_routecheck(f, l, n, rc);
	assert_int_equal(rc->n_cycles, 1);
	ibs_sl2vl_pairs(f, l, n, NULL, NULL, &t);
	assert_int_equal(t.asked, 12); /* every pair the routes use */
	ibs_sl2vls_free(&t);
	ibs_sl2vl_pairs(f, l, n, ibs_rc_cyclic_out, rc, &t);
	if (sl_of)
		ibs_rc_sl_pairs(f, l, n, rc, &sls, &n_sls);
	ibs_routecheck_free(rc);
	assert_int_equal(t.n, 4);
	for (k = 0; k < t.n; k++) {
		struct ibs_sl2vl *v = &t.v[k];
		size_t sw = num(v->node), b;
		unsigned sl;
		/*
		 * Of those (from the host, port 1, out by 2 and 3; in by 3, out by 2),
		 * only the clockwise channels (port 2) are in the loop: out by 3 is not asked.
		 */
		assert_int_equal(v->asked, 2);
		for (b = 0; b < (size_t)v->np * v->np; b++) {
			if (!(v->want[b / 64] & 1ull << (b % 64)))
				continue;
			assert_true((b / v->np == 1 || b / v->np == 3) && b % v->np == 2);
			if (sw == unanswered_at)
				continue;
			for (sl = 0; sl < 16; sl++) /* one MAD gives all 16 SLs */
				v->vl[b * 16 + sl] = vl_of(sw, (unsigned)(b / v->np), (unsigned)(b % v->np), sl);
			v->answered++;
			t.answered++;
		}
	}
	assert_int_equal(t.asked, 8);
	for (i = 0; i < n_sls; i++) {
		assert_true(i == 0 || sls[i - 1].dlid < sls[i].dlid ||
			    (sls[i - 1].dlid == sls[i].dlid && sls[i - 1].slid < sls[i].slid)); /* sorted, no repeats */
		sls[i].sl = sl_of(sls[i].slid, sls[i].dlid);
		sls[i].answered = !sa_silent;
	}
	if (n_pairs)
		*n_pairs = n_sls;
	o.sls = sls;
	o.n_sls = n_sls;
	ibs_routecheck_opts(f, l, n, &o, rc);
	if (!rc->sl0_assumed && rc->n_cycles) {
		struct ibs_routecheck again;
		o.cycle_sls = rc;
		ibs_routecheck_opts(f, l, n, &o, &again);
		ibs_routecheck_free(&again);
	}
	ibs_sl2vls_free(&t);
	free(sls);
}

static void check_vls(struct ibs_routecheck *rc, vl_fn vl_of, size_t unanswered_at)
{
	check_sls(rc, vl_of, unanswered_at, NULL, false, NULL);
}

/* The dateline: routes that cross into the ring at switch 0 (in by port 3, on round by port 2) move to VL 1. */
static uint8_t dateline(size_t sw, unsigned in, unsigned out, unsigned sl)
{
	(void)sl;
	return sw == 0 && in == 3 && out == 2;
}

/* Switch 0 puts everything it sends round on VL 1, its own hosts' routes too: the loop goes through both VLs. */
static uint8_t wrong_dateline(size_t sw, unsigned in, unsigned out, unsigned sl)
{
	(void)in, (void)sl;
	return sw == 0 && out == 2;
}

static uint8_t all_vl1(size_t sw, unsigned in, unsigned out, unsigned sl)
{
	(void)sw, (void)in, (void)out, (void)sl;
	return 1;
}

/* As LASH sets them: SL n on VL n everywhere (SL 15 on VL 7, as opensm's identity map under ibsim). */
static uint8_t vl_is_sl(size_t sw, unsigned in, unsigned out, unsigned sl)
{
	(void)sw, (void)in, (void)out;
	return sl < 15 ? (uint8_t)sl : 7;
}

/* The SA puts host 0's routes (LID 5) on SL 1, every other route on SL 0. */
static uint8_t host0_sl1(uint16_t slid, uint16_t dlid)
{
	(void)dlid;
	return slid == 5;
}

static uint8_t all_sl0(uint16_t slid, uint16_t dlid)
{
	(void)slid, (void)dlid;
	return 0;
}

static void test_ring_sl2vl(void **state)
{
	struct ibs_routecheck rc;
	size_t i;

	(void)state;
	/* The same min-hop ring that loops on one VL: none with the dateline on VL 1. */
	ring(false, false);
	check_vls(&rc, dateline, SIZE_MAX);
	assert_true(rc.vl_read);
	assert_null(rc.vl_why);
	assert_true(rc.sl0_assumed); /* PathRecords are not read */
	assert_int_equal(rc.n_vls, 2);
	assert_int_equal(rc.vl_pairs, 8);
	assert_int_equal(rc.vl_answered, 8);
	assert_int_equal(rc.ok, rc.pairs);
	assert_int_equal(rc.n_cycles, 0);
	assert_true(rc.deps > 0);
	assert_int_equal(ibs_routecheck_status(&rc), IBS_RC_OK);
	finish(&rc);

	/* Two VLs that do not cut it: the cycle crosses from VL 0 to VL 1 at switch 0 and back at switch 1. */
	ring(false, false);
	check_vls(&rc, wrong_dateline, SIZE_MAX);
	assert_true(rc.vl_read);
	assert_int_equal(rc.n_vls, 2);
	assert_int_equal(rc.n_cycles, 1);
	assert_int_equal(rc.cycles[0].n, 4);
	for (i = 0; i < 4; i++) {
		const struct ibs_rc_chan *c = &rc.cycles[0].links[i];
		assert_int_equal(c->port, 2);
		assert_int_equal(c->vl, c->node == nodes[0] ? 1 : 0);
	}
	finish(&rc);

	/* Everything on VL 1: the loop is there, on VL 1. */
	ring(false, false);
	check_vls(&rc, all_vl1, SIZE_MAX);
	assert_int_equal(rc.n_vls, 2);
	assert_int_equal(rc.n_cycles, 1);
	for (i = 0; i < rc.cycles[0].n; i++)
		assert_int_equal(rc.cycles[0].links[i].vl, 1);
	finish(&rc);

	/* A switch that did not answer: one VL for all, as without the tables, and why. */
	ring(false, false);
	check_vls(&rc, dateline, 2);
	assert_false(rc.vl_read);
	assert_int_equal(rc.vl_incomplete, 1);
	assert_string_equal(rc.vl_why, "SL2VL not answered by every switch");
	assert_int_equal(rc.n_vls, 1);
	assert_int_equal(rc.n_cycles, 1);
	assert_int_equal(rc.cycles[0].links[0].vl, 0);
	finish(&rc);
}

/*
 * The SLs the SA gives each route (as LASH sets them), with tables that
 * put SL n on VL n: the min-hop ring loops on SL 0, but only host 0's
 * routes make the dependency from switch 0's clockwise link to switch 1's,
 * so with them on SL 1 (VL 1) the loop on VL 0 is broken and VL 1 has a
 * single dependency. Taken as SL 0, the loop is there.
 */
static void test_ring_sa_sls(void **state)
{
	struct ibs_routecheck rc;
	size_t pairs, i;

	(void)state;
	/* The same tables, every route taken to be on SL 0: the loop (on VL 0). */
	ring(false, false);
	check_vls(&rc, vl_is_sl, SIZE_MAX);
	assert_true(rc.vl_read);
	assert_true(rc.sl0_assumed);
	assert_string_equal(rc.sl_why, "PathRecords not read");
	assert_int_equal(rc.sl_mask, 1);
	assert_int_equal(rc.n_vls, 1); /* only SL 0's VLs count */
	assert_int_equal(rc.n_cycles, 1);
	finish(&rc);

	/* Host 0's routes on SL 1: no loop. */
	ring(false, false);
	check_sls(&rc, vl_is_sl, SIZE_MAX, host0_sl1, false, &pairs);
	/*
	 * The pairs asked: each host to the 2 LIDs (switch, host) of each of
	 * the 2 switches clockwise, whose routes leave by a clockwise link.
	 * Routes that go anticlockwise, or stay at home, are not asked.
	 */
	assert_int_equal(pairs, 4 * 2 * 2);
	assert_false(rc.sl0_assumed);
	assert_null(rc.sl_why);
	assert_int_equal(rc.sl_pairs, pairs);
	assert_int_equal(rc.sl_answered, pairs);
	assert_int_equal(rc.sl_mask, 0x3); /* SL 0 and SL 1 */
	/* Each pair asked kept with the SA's answer, by (dlid, slid), for the JSON's pathrecords. */
	for (i = 0; i < pairs; i++) {
		assert_true(rc.paths[i].answered);
		assert_int_equal(rc.paths[i].sl, host0_sl1(rc.paths[i].slid, rc.paths[i].dlid));
		if (i)
			assert_true(rc.paths[i - 1].dlid < rc.paths[i].dlid ||
				    (rc.paths[i - 1].dlid == rc.paths[i].dlid && rc.paths[i - 1].slid < rc.paths[i].slid));
	}
	assert_true(rc.vl_read);
	assert_int_equal(rc.n_vls, 2);
	assert_int_equal(rc.ok, rc.pairs);
	assert_true(rc.deps > 0);
	assert_int_equal(rc.n_cycles, 0);
	assert_int_equal(ibs_routecheck_status(&rc), IBS_RC_OK);
	finish(&rc);

	/* The SA says SL 0 for every route: the loop, from the SA's SLs, and made by SL 0. */
	ring(false, false);
	check_sls(&rc, vl_is_sl, SIZE_MAX, all_sl0, false, &pairs);
	assert_false(rc.sl0_assumed);
	assert_int_equal(rc.sl_mask, 1);
	assert_int_equal(rc.n_cycles, 1);
	assert_int_equal(rc.cycles[0].sls, 1);
	for (i = 0; i < rc.cycles[0].n; i++)
		assert_int_equal(rc.cycles[0].links[i].vl, 0);
	finish(&rc);

	/* The SA does not answer: SL 0 for all, as without it, and why; the loop is reported. */
	ring(false, false);
	check_sls(&rc, vl_is_sl, SIZE_MAX, host0_sl1, true, &pairs);
	assert_int_equal(pairs, 16);
	assert_true(rc.sl0_assumed);
	assert_int_equal(rc.sl_pairs, 16);
	assert_int_equal(rc.sl_answered, 0);
	assert_string_equal(rc.sl_why, "PathRecords not answered for every pair");
	for (i = 0; i < pairs; i++)
		assert_false(rc.paths[i].answered);
	assert_int_equal(rc.sl_mask, 1);
	assert_true(rc.vl_read);
	assert_int_equal(rc.n_cycles, 1);
	assert_int_equal(rc.cycles[0].sls, 0); /* not known: SL 0 assumed */
	finish(&rc);
}

/*
 * Two spines (nodes 0, 1; LIDs 1, 2), three leaves (nodes 2-4; LIDs 3-5),
 * two hosts per leaf (nodes 5-10; LIDs 6-11, or from 16 in steps of 4 with
 * LMC 2). Leaf port 1, 2: hosts; 3: spine 0; 4: spine 1. Spine port k+1:
 * leaf k. Up by LID parity.
 */
static uint16_t hlid[6];

static void tree(uint8_t lmc)
{
	size_t s, l, h;
	unsigned span = 1u << lmc, k;

	start();
	for (s = 0; s < 2; s++)
		add(IBS_NODE_SWITCH, 4, (uint16_t)(1 + s), 0);
	for (l = 0; l < 3; l++)
		add(IBS_NODE_SWITCH, 4, (uint16_t)(3 + l), 0);
	for (h = 0; h < 6; h++) {
		hlid[h] = (uint16_t)(lmc ? 16 + 4 * h : 6 + h);
		add(IBS_NODE_CA, 1, hlid[h], lmc);
	}
	for (l = 0; l < 3; l++) {
		cable(2 + l, 3, 0, (unsigned)(1 + l));
		cable(2 + l, 4, 1, (unsigned)(1 + l));
		cable(2 + l, 1, 5 + 2 * l, 1);
		cable(2 + l, 2, 6 + 2 * l, 1);
	}
	for (l = 0; l < 3; l++) {
		table[2 + l][3 + l] = 0;
		for (s = 0; s < 2; s++) {
			table[2 + l][1 + s] = (uint8_t)(3 + s);
			table[s][3 + l] = (uint8_t)(1 + l);
		}
		for (k = 0; k < 3; k++)
			if (k != l)
				table[2 + l][3 + k] = 3;
	}
	table[0][1] = table[1][2] = 0;
	table[0][2] = table[1][1] = 1; /* spine to spine via leaf 0 */
	for (h = 0; h < 6; h++)
		for (k = 0; k < span; k++) {
			uint16_t lid = (uint16_t)(hlid[h] + k);
			for (l = 0; l < 3; l++)
				table[2 + l][lid] = h / 2 == l ? (uint8_t)(1 + h % 2) : (uint8_t)(3 + lid % 2);
			table[0][lid] = table[1][lid] = (uint8_t)(1 + h / 2);
		}
}

static void test_tree(void **state)
{
	struct ibs_routecheck rc;
	const struct ibs_rc_switch *w;

	(void)state;
	tree(0);
	check(&rc);
	assert_int_equal(rc.sources, 6);
	assert_int_equal(rc.dests, 11);
	assert_int_equal(rc.pairs, 6 * 10);
	assert_int_equal(rc.ok, rc.pairs);
	assert_int_equal(rc.n, 0);
	assert_int_equal(rc.n_cycles, 0);
	assert_int_equal(rc.not_updown, 0);
	assert_int_equal(rc.min_hops, 1); /* a host to its own leaf */
	assert_int_equal(rc.max_hops, 4); /* host to a host under another leaf */
	/* 2 links: host to host on one leaf (6) and host to spine (12); 4: host to host across (24). */
	assert_int_equal(rc.hist[2], 6 + 12);
	assert_int_equal(rc.hist[4], 24);
	assert_int_equal(rc.max_level, 2);
	w = sw_of(&rc, 2);
	assert_int_equal(w->level, 1);
	assert_int_equal(w->role[3], IBS_RC_UP);
	assert_int_equal(w->role[1], IBS_RC_HOST);
	/* Leaf 0's uplinks: the LIDs of the 4 hosts under other leaves (8-11), split by parity. */
	assert_int_equal(w->lids[3] + w->lids[4], 4);
	assert_int_equal(w->up.ports, 2);
	assert_int_equal(w->up.max, 2);
	assert_false(w->up.unbalanced);
	w = sw_of(&rc, 0);
	assert_int_equal(w->down.ports, 3);
	assert_int_equal(w->lids[1], 2);
	/* Routes out of leaf 0's host ports: to each of its 2 hosts from the 5 others. */
	assert_int_equal(sw_of(&rc, 2)->routes[1] + sw_of(&rc, 2)->routes[2], 2 * 5);
	/* Out of its uplinks: its 2 hosts to the 4 remote hosts and 3 remote switches (2 spines, 2 leaves). */
	assert_int_equal(sw_of(&rc, 2)->routes[3] + sw_of(&rc, 2)->routes[4], 2 * (4 + 4));
	finish(&rc);
}

static void test_lmc(void **state)
{
	struct ibs_routecheck rc;
	const struct ibs_rc_switch *w;

	(void)state;
	tree(2);
	check(&rc);
	assert_int_equal(rc.dests, 5 + 6 * 4);
	assert_int_equal(rc.pairs, 6 * (5 + 6 * 4 - 4));
	assert_int_equal(rc.ok, rc.pairs);
	w = sw_of(&rc, 2);
	/* 4 remote hosts x 4 LIDs, half on each uplink by parity. */
	assert_int_equal(w->lids[3], 8);
	assert_int_equal(w->lids[4], 8);
	assert_int_equal(w->lids[1], 4);
	{
		/*
		 * Every CA in the job (the heat map): each host's cable carries 20
		 * routes each way, to the 5 other hosts' 4 LIDs and from them to
		 * its own 4; its own LIDs are no route from it.
		 */
		struct ibs_routecheck rj;
		struct ibs_rc_opts o = { .through = NULL, .through_port = 0, .job = NULL };
		struct ibs_lft l[MAXN];
		bool job[MAXN] = { false };
		size_t i, n = 0;
		for (i = 0; i < nn; i++) {
			job[i] = nodes[i]->ni.node_type != IBS_NODE_SWITCH;
			if (!job[i])
				l[n++] = (struct ibs_lft){ .node = nodes[i], .ports = table[i], .n = NLID, .ok = true };
		}
		o.job = job;
		ibs_routecheck_opts(f, l, n, &o, &rj);
		for (i = 5; i < 11; i++) {
			const struct ibs_port *p = &nodes[i]->ports[1];
			const struct ibs_rc_switch *x = sw_of(&rj, num(p->peer));
			assert_int_equal(x->job_in[p->peer_port], 5 * 4);
			assert_int_equal(x->job[p->peer_port], 5 * 4);
		}
		/* Leaf 0's two uplinks: its 2 hosts to the 4 others' 16 LIDs, 8 by each (parity). */
		assert_int_equal(sw_of(&rj, 2)->job[3] + sw_of(&rj, 2)->job[4], 2 * 16);
		assert_int_equal(sw_of(&rj, 2)->job_in[3] + sw_of(&rj, 2)->job_in[4], 0);
		ibs_routecheck_free(&rj);
	}
	finish(&rc);
}

static void test_faults(void **state)
{
	struct ibs_routecheck rc;

	(void)state;
	/* A hole: spine 0 has no entry for host 4 (LID 10, on leaf 2). */
	tree(0);
	table[0][10] = 0xff;
	check(&rc);
	assert_int_equal(rc.n, 1);
	assert_int_equal(rc.v[0].kind, IBS_RC_UNREACHABLE);
	assert_int_equal(rc.v[0].dlid, 10);
	assert_ptr_equal(rc.v[0].node, nodes[0]);
	assert_int_equal(rc.v[0].port, 0xff);
	/* LID 10 is even: leaves 0 and 1 send it up port 3 to spine 0; their 4 hosts. */
	assert_int_equal(rc.v[0].pairs, 4);
	assert_int_equal(rc.bad[IBS_RC_UNREACHABLE], 4);
	assert_int_equal(rc.ok + 4, rc.pairs);
	finish(&rc);

	/* A loop: spine 0 sends LID 10 down to leaf 1, which sends it up to spine 0 again. */
	tree(0);
	table[0][10] = 2;
	check(&rc);
	assert_int_equal(rc.n, 1);
	assert_int_equal(rc.v[0].kind, IBS_RC_LOOP);
	assert_int_equal(rc.v[0].pairs, 4);
	assert_int_equal(rc.bad[IBS_RC_LOOP], 4);
	assert_int_equal(rc.n_cycles, 0); /* a forwarding loop is not counted again as a credit loop */
	finish(&rc);

	/* Down then up: spine 0 sends LID 10 to leaf 1, leaf 1 up to spine 1, then down to leaf 2. */
	tree(0);
	table[0][10] = 2;
	table[3][10] = 4;
	check(&rc);
	assert_int_equal(rc.n, 0);
	assert_int_equal(rc.ok, rc.pairs);
	assert_int_equal(rc.not_updown, 2); /* leaf 0's two hosts; leaf 1's go up to spine 1 directly */
	assert_int_equal(rc.non_minimal, 2);
	finish(&rc);

	/* A port not Active: spine 1's cable to leaf 2 in Init. */
	tree(0);
	nodes[1]->ports[3].pi.state = 2;
	check(&rc);
	/*
	 * Spine 1 port 3: LID 11 from the 4 hosts of leaves 0 and 1. Leaf 2
	 * port 4 (its far end): spine 1's LID and the odd host LIDs 7 and 9,
	 * from leaf 2's 2 hosts.
	 */
	assert_int_equal(rc.bad[IBS_RC_DOWN_PORT], 4 + 2 * 3);
	assert_int_equal(rc.n, 4);
	assert_int_equal(rc.v[0].kind, IBS_RC_DOWN_PORT);
	assert_int_equal(rc.v[0].dlid, 2);
	assert_ptr_equal(rc.v[0].node, nodes[4]);
	assert_int_equal(rc.v[0].port, 4);
	assert_int_equal(rc.v[3].dlid, 11);
	assert_ptr_equal(rc.v[3].node, nodes[1]);
	assert_int_equal(rc.v[3].port, 3);
	assert_int_equal(rc.v[3].pairs, 4);
	finish(&rc);

	/* A dead end: leaf 0 sends host 1's LID (7) to host 0's port. */
	tree(0);
	table[2][7] = 1;
	check(&rc);
	assert_int_equal(rc.n, 1);
	assert_int_equal(rc.v[0].kind, IBS_RC_DEAD_END);
	assert_ptr_equal(rc.v[0].at, nodes[5]);
	assert_int_equal(rc.v[0].pairs, 5); /* everyone but host 1 itself */
	finish(&rc);
}

/*
 * Brute force, one route at a time: the directed links (node number, out
 * port) from host node src to LID dlid, in hop[]; how many, or -1 when it
 * does not arrive.
 */
static int walk_one(size_t src, uint16_t dlid, size_t hop[][2])
{
	const struct ibs_port *p = &nodes[src]->ports[1];
	int n = 0;

	hop[n][0] = src;
	hop[n++][1] = 1;
	while (n < 32) {
		size_t cur = num(p->peer);
		uint8_t e;
		if (nodes[cur]->ni.node_type != IBS_NODE_SWITCH)
			return nodes[cur]->ports[1].pi.lid == dlid ? n : -1;
		e = table[cur][dlid];
		if (e == 0xff || !e)
			return -1;
		hop[n][0] = cur;
		hop[n++][1] = e;
		p = &nodes[cur]->ports[e];
	}
	return -1;
}

/* --through and --nodes against routes walked one by one. */
static void test_trace(void **state)
{
	struct ibs_routecheck rc;
	struct ibs_rc_opts o;
	struct ibs_lft l[MAXN];
	bool job[MAXN] = { false };
	uint64_t from[MAXN], to[MAXN], jobr[MAXN][8], total;
	size_t i, n, a, b, hop[32][2];
	int h, k;

	(void)state;
	tree(0);
	table[0][10] = 2; /* spine 0 sends LID 10 down to leaf 1 ... */
	table[3][10] = 4; /* ... which sends it up to spine 1: a longer way round */
	ibs_fabric_sort(f);
	for (i = n = 0; i < nn; i++)
		if (nodes[i]->ni.node_type == IBS_NODE_SWITCH)
			l[n++] = (struct ibs_lft){ nodes[i], table[i], NLID, true };
	/* The cable leaf 0 port 3 -- spine 0 port 1, given from the spine's end. */
	memset(&o, 0, sizeof(o));
	o.through = nodes[0];
	o.through_port = 1;
	job[5] = job[7] = job[9] = job[10] = true; /* hosts 0, 2, 4, 5: one on each of leaves 0, 1; two on leaf 2 */
	o.job = job;
	ibs_routecheck_opts(f, l, n, &o, &rc);
	memset(from, 0, sizeof(from));
	memset(to, 0, sizeof(to));
	memset(jobr, 0, sizeof(jobr));
	total = 0;
	for (a = 5; a < 11; a++)
		for (b = 5; b < 11; b++) {
			bool cross = false;
			if (a == b)
				continue;
			h = walk_one(a, hlid[b - 5], hop);
			assert_true(h > 0);
			for (k = 0; k < h; k++) {
				cross |= (hop[k][0] == 2 && hop[k][1] == 3) || (hop[k][0] == 0 && hop[k][1] == 1);
				if (job[a] && job[b] && nodes[hop[k][0]]->ni.node_type == IBS_NODE_SWITCH)
					jobr[hop[k][0]][hop[k][1]]++;
			}
			if (cross) {
				from[a]++;
				to[b]++;
				total++;
			}
		}
	assert_true(total > 0);
	assert_int_equal(rc.thr_routes, total);
	for (a = 5; a < 11; a++) {
		assert_int_equal(rc.thr_from[nodes[a]->index], from[a]);
		assert_int_equal(rc.thr_to[nodes[a]->index], to[a]);
	}
	assert_int_equal(rc.job_cas, 4);
	assert_int_equal(rc.job_routes, 4 * 3);
	for (i = 0; i < rc.n_sw; i++) {
		unsigned p;
		for (p = 1; p < rc.sw[i].n_ports; p++)
			assert_int_equal(rc.sw[i].job[p], jobr[num(rc.sw[i].node)][p]);
	}
	ibs_routecheck_free(&rc);
	/* A host's own cable: every route from it and to it, 5 each way. */
	o.through = nodes[5];
	o.job = NULL;
	ibs_routecheck_opts(f, l, n, &o, &rc);
	assert_int_equal(rc.thr_routes, 10);
	assert_int_equal(rc.thr_from[nodes[5]->index], 5);
	assert_int_equal(rc.thr_to[nodes[5]->index], 5);
	assert_int_equal(rc.thr_from[nodes[6]->index], 1);
	ibs_routecheck_free(&rc);
	/* The same cable given from the leaf's end: the same routes, from the host's port too. */
	o.through = nodes[5]->ports[1].peer;
	o.through_port = nodes[5]->ports[1].peer_port;
	assert_true(o.through && o.through->ni.node_type == IBS_NODE_SWITCH);
	ibs_routecheck_opts(f, l, n, &o, &rc);
	assert_int_equal(rc.thr_from[nodes[5]->index], 5);
	assert_int_equal(rc.thr_to[nodes[5]->index], 5);
	assert_int_equal(rc.thr_from[nodes[6]->index], 1);
	assert_int_equal(rc.thr_routes, 10);
	finish(&rc);
}

static size_t count(const struct ibs_findings *fs, const char *id)
{
	size_t i, n = 0;

	for (i = 0; i < fs->n; i++)
		n += !strcmp(fs->v[i].check->id, id);
	return n;
}

/* The route.* health checks: one finding per switch and kind, thresholds from the thresholds file's names. */
static void test_health(void **state)
{
	struct ibs_routecheck rc;
	struct ibs_findings fs;
	struct ibs_thresholds t;
	char *msg = NULL;
	uint16_t l;

	(void)state;
	ibs_thresholds_default(&t);
	tree(0);
	table[0][10] = table[0][11] = 0xff; /* two holes at spine 0: one finding */
	table[0][8] = 1;                    /* a loop: spine 0 and leaf 0 send LID 8 to each other */
	for (l = 6; l <= 11; l++)
		if (l != 6 && l != 7)
			table[2][l] = 3; /* leaf 0: every remote host up port 3: unbalanced */
	check(&rc);
	memset(&fs, 0, sizeof(fs));
	ibs_health_routes(&rc, &t, &fs);
	assert_true(fs.routing);
	assert_int_equal(count(&fs, "route.unreachable"), 1);
	assert_int_equal(count(&fs, "route.loop"), 1);
	assert_int_equal(count(&fs, "route.imbalance"), 1);
	assert_int_equal(count(&fs, "route.credit_loop"), 0);
	assert_int_equal(count(&fs, "route.not_updown"), 0);
	assert_non_null(strstr(fs.v[0].message, "2 LIDs unreachable here (first LID 10)"));
	ibs_findings_free(&fs);
	/* Max 4, mean 2: 200% of the mean; a threshold of 200 lets it pass. */
	assert_int_equal(ibs_thresholds_set(&t, "route.imbalance=200", &msg), IBS_OK);
	memset(&fs, 0, sizeof(fs));
	ibs_health_routes(&rc, &t, &fs);
	assert_int_equal(count(&fs, "route.imbalance"), 0);
	ibs_findings_free(&fs);
	finish(&rc);

	/* The ring's credit loop, named link by link. */
	ring(false, false);
	check(&rc);
	memset(&fs, 0, sizeof(fs));
	ibs_health_routes(&rc, &t, &fs);
	assert_int_equal(count(&fs, "route.credit_loop"), 1);
	assert_non_null(strstr(fs.v[0].message, "credit loop of 4 links"));
	ibs_findings_free(&fs);
	finish(&rc);
}

/* Slurm hostlists, as --nodes reads them. */
static void test_hostlist(void **state)
{
	static const char *const want[] = { "node08", "node09", "node10", "login1", "r1c1", "r1c2", "r2c1", "r2c2", "x5" };
	static const char *const bad[] = { "", "a[3-1]", "a[", "a[]", "a[1-", "a,,b", "a[x]", "a]" };
	char **v, *msg = NULL;
	size_t n, i;

	(void)state;
	assert_int_equal(ibs_hostlist_expand("node[08-10],login1,r[1-2]c[1-2],x[5]", &v, &n, &msg), IBS_OK);
	assert_int_equal(n, 9);
	for (i = 0; i < n; i++) {
		assert_string_equal(v[i], want[i]);
		free(v[i]);
	}
	free(v);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(ibs_hostlist_expand(bad[i], &v, &n, &msg), IBS_OK);
		free(msg);
		msg = NULL;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_credit_loop),
		cmocka_unit_test(test_ring_sl2vl),
		cmocka_unit_test(test_ring_sa_sls),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_lmc),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_health),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_hostlist),
	};
	return cmocka_run_group_tests_name("routecheck", tests, NULL, NULL);
}
