/*
 * Unit tests of LID-routed walking (fabric/walk/walk_lid.c) on a fake fabric
 * whose LID-routed SMPs follow its switches' forwarding tables: an answer is
 * kept only from the node that was asked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/fabrics.h"
#include "../../core/mad/engine.h"
#include "../../fabric/walk/route.h"
#include "../../fabric/walk/walk.h"

static struct ibs_fabric *walk_by_lid(struct ff *ff)
{
	struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ibs_fabric *fab;

	o.eo.deadline_ms = 20000;
	o.sm_lid = 1; /* Active, with an SM: the walk routes by LID once LIDs are known */
	o.active = true;
	assert_int_equal(ff_walk_with(ff, &o, &fab, NULL), IBS_OK);
	return fab;
}

/* Every node's description and port states are its own, as its directed-route answers say. */
static void assert_own_answers(const struct ff *ff, const struct ibs_fabric *fab)
{
	int i, p;

	assert_int_equal(fab->n_nodes, ff->count);
	for (i = 0; i < ff->count; i++) {
		const struct ff_node *x = &ff->n[i];
		struct ibs_node *n = ibs_fabric_find_guid(fab, x->guid);
		assert_non_null(n);
		assert_non_null(n->desc);
		if (strcmp(n->desc, x->desc))
			fail_msg("node 0x%llx has the description \"%s\", not its own \"%s\"",
				 (unsigned long long)x->guid, n->desc, x->desc);
		if (x->type != IB_NODE_SWITCH)
			continue;
		assert_true(n->has_si);
		if (n->si.lft_top != (x->fdb_top ? x->fdb_top : 127))
			fail_msg("%s has SwitchInfo LinearFDBTop %u, its own is %u", x->desc, n->si.lft_top,
				 x->fdb_top ? x->fdb_top : 127);
		for (p = 1; p <= x->nports; p++) {
			const struct ibs_port *pt = ibs_node_port(n, (unsigned)p);
			unsigned want = x->peer[p] && !x->down[p] ? (x->state[p] ? x->state[p] : 4) : 1;
			assert_non_null(pt);
			assert_true(pt->valid);
			if (pt->pi.state != want)
				fail_msg("%s port %d reads state %u, its own is %u", x->desc, p, pt->pi.state, want);
		}
	}
}

struct moves {
	int sw, host; /* when sw's first PortInfo is answered, the SM gives sw's LID to host */
	bool done;
};

static void move_lid(struct ff *ff, int node, const struct ibs_mad_req *req)
{
	struct moves *m = ff->hook_ctx;

	if (m->done || node != m->sw || req->attr_id != IBS_ATTR_PORT_INFO || req->mgmt_class != IBS_CLASS_SMI_DR)
		return;
	ff->n[m->host].lid = ff->n[m->sw].lid;
	ff->n[m->sw].lid = 11;
	ff_route_lfts(ff);
	m->done = true;
}

/*
 * H0 (the local CA) - S1 - S2 - S3, hosts on each. S1 and S2 both have LID
 * 7, and from H0 LID 7 ends at S1; S3's LID 9 is given to its host H5
 * just after the walk read S3's LID. Asked by LID, S2's and S3's
 * NodeDescription and PortInfo would be S1's and H5's.
 */
static void test_answers_from_the_node_asked(void **state)
{
	static struct ff ff;
	struct moves m = { 0 };
	struct ibs_fabric *fab;
	int h0, s1, s2, s3, h3, h4, h5, h6;

	(void)state;
	memset(&ff, 0, sizeof(ff));
	h0 = ff_add(&ff, IB_NODE_CA, 1, 0x100, "H0");
	s1 = ff_add(&ff, IB_NODE_SWITCH, 8, 0x200, "S1");
	s2 = ff_add(&ff, IB_NODE_SWITCH, 6, 0x300, "S2");
	s3 = ff_add(&ff, IB_NODE_SWITCH, 4, 0x400, "S3");
	h3 = ff_add(&ff, IB_NODE_CA, 1, 0x500, "H3");
	h4 = ff_add(&ff, IB_NODE_CA, 1, 0x600, "H4");
	h5 = ff_add(&ff, IB_NODE_CA, 1, 0x700, "H5");
	h6 = ff_add(&ff, IB_NODE_CA, 1, 0x800, "H6");
	ff.n[h0].lid = 1;
	ff.n[s1].lid = 7;
	ff.n[s2].lid = 7;
	ff.n[s3].lid = 9;
	ff.n[h3].lid = 4;
	ff.n[h4].lid = 5;
	ff.n[h5].lid = 10;
	ff.n[h6].lid = 12;
	ff_link(&ff, h0, 1, s1, 1);
	ff_link(&ff, s1, 2, s2, 1);
	ff_link(&ff, s1, 3, h4, 1);
	ff_link(&ff, s1, 4, h6, 1);
	ff.n[s1].down[4] = true; /* cabled, no link: S1's port 4 reads Down, S2's is not cabled */
	ff_link(&ff, s2, 2, h3, 1);
	ff_link(&ff, s2, 3, s3, 1);
	ff_link(&ff, s3, 2, h5, 1);
	ff.n[h6].down[1] = true;
	ff.root = h0;
	ff.root_port = 1;
	ff_route_lfts(&ff);
	assert_int_equal(ff.n[s1].lft[7], 0); /* from H0, LID 7 ends at S1 */
	m.sw = s3;
	m.host = h5;
	ff.hook = move_lid;
	ff.hook_ctx = &m;

	fab = walk_by_lid(&ff);
	assert_true(m.done);
	assert_true(ff.by_lid > 0); /* the walk did route by LID where LIDs are sound */
	/* H6 (added last) is behind a port with no link: never found. */
	ff.count--;
	assert_own_answers(&ff, fab);
	ibs_fabric_free(fab);
}

struct steal {
	int sw, thief; /* once sw has answered its confirming NodeInfo by LID, thief gets sw's LID */
	int new_lid;
	bool done;
};

static void steal_lid(struct ff *ff, int node, const struct ibs_mad_req *req)
{
	struct steal *m = ff->hook_ctx;

	if (m->done || node != m->sw || req->attr_id != IBS_ATTR_NODE_INFO || req->mgmt_class != IBS_CLASS_SMI)
		return;
	/* Answered as asked: the LID still leads to sw. Right after, the SM moves it. */
	ff->n[m->thief].lid = ff->n[m->sw].lid;
	ff->n[m->sw].lid = m->new_lid;
	ff_route_lfts(ff);
	m->done = true;
}

/* walk_by_lid with stderr going to a file; its text comes back in buf. */
static struct ibs_fabric *walk_by_lid_stderr(struct ff *ff, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved;
	size_t n;
	struct ibs_fabric *fab;

	assert_non_null(tmp);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	fab = walk_by_lid(ff);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
	return fab;
}

/* H0 - S1 - S2 - S3 with hosts; the indices in *ix: h0, s1, s2, s3, h3, h4, h5, h7. */
static void moved_fabric(struct ff *ff, int *ix)
{
	int h0, s1, s2, s3, h3, h4, h5, h7;

	memset(ff, 0, sizeof(*ff));
	h0 = ff_add(ff, IB_NODE_CA, 1, 0x100, "H0");
	s1 = ff_add(ff, IB_NODE_SWITCH, 8, 0x200, "S1");
	s2 = ff_add(ff, IB_NODE_SWITCH, 6, 0x300, "S2");
	s3 = ff_add(ff, IB_NODE_SWITCH, 4, 0x400, "S3");
	h3 = ff_add(ff, IB_NODE_CA, 1, 0x500, "H3");
	h4 = ff_add(ff, IB_NODE_CA, 1, 0x600, "H4");
	h5 = ff_add(ff, IB_NODE_CA, 1, 0x700, "H5");
	h7 = ff_add(ff, IB_NODE_CA, 1, 0x800, "H7");
	ff->n[h0].lid = 1;
	ff->n[s1].lid = 2;
	ff->n[s2].lid = 3;
	ff->n[s3].lid = 4;
	ff->n[h3].lid = 5;
	ff->n[h4].lid = 6;
	ff->n[h5].lid = 8;
	ff->n[h7].lid = 9;
	ff->n[s1].fdb_top = 100;
	ff->n[s2].fdb_top = 120;
	ff_link(ff, h0, 1, s1, 1);
	ff_link(ff, s1, 2, s2, 1);
	ff_link(ff, s1, 3, h4, 1);
	ff_link(ff, s1, 5, h7, 1); /* S2's port 5 has no cable */
	ff_link(ff, s2, 2, h3, 1);
	ff->n[s2].state[2] = 3;    /* Armed on S2's side; S1's port 2 is Active */
	ff_link(ff, s2, 3, s3, 1);
	ff_link(ff, s3, 2, h5, 1);
	ff->root = h0;
	ff->root_port = 1;
	ff_route_lfts(ff);
	ix[0] = h0, ix[1] = s1, ix[2] = s2, ix[3] = s3, ix[4] = h3, ix[5] = h4, ix[6] = h5, ix[7] = h7;
}

/*
 * H0 (the local CA) - S1 - S2 - S3, hosts on each. S2's LID is confirmed by
 * a LID-routed NodeInfo, and right after that answer the SM gives S2's LID
 * to S1 (already read: no node claims it again). Asked by LID, S2's
 * NodeDescription, SwitchInfo and PortInfo would be S1's, and each PortInfo
 * even carries the LID asked. The closing NodeInfo after S2's LID-routed
 * reads names S1: everything is read again by directed route, with a
 * warning naming S2 and the LID.
 */
static void test_lid_moved_after_confirmation(void **state)
{
	static struct ff ff;
	struct steal m = { 0 };
	struct ibs_fabric *fab;
	static char err[16384];
	int ix[8];

	(void)state;
	moved_fabric(&ff, ix);
	m.sw = ix[2];
	m.thief = ix[1];
	m.new_lid = 11;
	ff.hook = steal_lid;
	ff.hook_ctx = &m;

	fab = walk_by_lid_stderr(&ff, err, sizeof(err));
	assert_true(m.done);
	assert_true(ff.by_lid > 0);
	assert_own_answers(&ff, fab);
	if (!strstr(err, "warning: LID 3 moved to node 0x0000000000000200 while node 0x0000000000000300 "
			 "(directed route 0,1,2) was read by it"))
		fail_msg("no warning naming S2 and LID 3; stderr:\n%s", err);
	assert_int_equal(fab->n_errors, 0);
	assert_false(fab->partial);
	ibs_fabric_free(fab);
}

/*
 * The same, S2's LID given to its host H3 (one port): by LID, S2's
 * SwitchInfo and PortInfo of ports 2-6 get error statuses from H3. Those
 * errors are H3's answers, not S2's: discarded with the rest, nothing of
 * them stays in the walk (no error, not partial, S2's own ports).
 */
static void test_lid_moved_errors_discarded(void **state)
{
	static struct ff ff;
	struct steal m = { 0 };
	struct ibs_fabric *fab;
	static char err[16384];
	int ix[8];

	(void)state;
	moved_fabric(&ff, ix);
	m.sw = ix[2];
	m.thief = ix[4];
	m.new_lid = 11;
	ff.hook = steal_lid;
	ff.hook_ctx = &m;

	fab = walk_by_lid_stderr(&ff, err, sizeof(err));
	assert_true(m.done);
	assert_own_answers(&ff, fab);
	if (!strstr(err, "warning: LID 3 moved to node 0x0000000000000500 while node 0x0000000000000300"))
		fail_msg("no warning naming S2 and LID 3; stderr:\n%s", err);
	if (fab->n_errors)
		fail_msg("%zu walk errors kept, the first %s mod %u", fab->n_errors,
			 ibs_attr_name(fab->errors[0].mgmt_class, fab->errors[0].attr_id), fab->errors[0].attr_mod);
	assert_false(fab->partial);
	ibs_fabric_free(fab);
}

/* LID-routed SMPs that reached a CA. */
static void count_ca_by_lid(struct ff *ff, int node, const struct ibs_mad_req *req)
{
	unsigned *n = ff->hook_ctx;

	if (req->mgmt_class == IBS_CLASS_SMI && ff->n[node].type != IB_NODE_SWITCH)
		(*n)++;
}

/* The same fabric, nothing moved: no node is read twice, nothing warned. */
static void test_lid_kept_no_warning(void **state)
{
	static struct ff ff;
	struct ibs_fabric *fab;
	static char err[16384];
	unsigned ca_by_lid = 0;
	int h0, s1, s2, h3;

	(void)state;
	memset(&ff, 0, sizeof(ff));
	h0 = ff_add(&ff, IB_NODE_CA, 1, 0x100, "H0");
	s1 = ff_add(&ff, IB_NODE_SWITCH, 8, 0x200, "S1");
	s2 = ff_add(&ff, IB_NODE_SWITCH, 6, 0x300, "S2");
	h3 = ff_add(&ff, IB_NODE_CA, 1, 0x500, "H3");
	ff_link(&ff, h0, 1, s1, 1);
	ff_link(&ff, s1, 2, s2, 1);
	ff_link(&ff, s2, 2, h3, 1);
	ff.root = h0;
	ff.root_port = 1;
	ff_route_lfts(&ff);
	ff.hook = count_ca_by_lid;
	ff.hook_ctx = &ca_by_lid;

	fab = walk_by_lid_stderr(&ff, err, sizeof(err));
	assert_own_answers(&ff, fab);
	if (strstr(err, "moved"))
		fail_msg("a warning on a fabric where no LID moved:\n%s", err);
	/*
	 * By LID: S1 and S2 each a confirming and a closing NodeInfo, their
	 * NodeDescription, SwitchInfo and every port. H3 is read by directed
	 * route: its NodeDescription (and GUIDInfo) alone would cost the two
	 * NodeInfos besides.
	 */
	assert_int_equal(ff.by_lid, 2 * 2 + (2 + 8) + (2 + 6));
	assert_int_equal(ca_by_lid, 0);
	ibs_fabric_free(fab);
}

/*
 * A forwarding table carries no GUID: read by a LID two switches hold, it
 * is whichever one the tables lead to. moved_fabric with S2 given S1's
 * LID 2 (from H0 it ends at S1): each switch's table read by routes (and
 * by a route trace) must be its own.
 */
static void test_lfts_of_a_shared_lid(void **state)
{
	static struct ff ff;
	struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ff_live live;
	struct ibs_engine *e;
	struct ibs_fabric *fab;
	struct ibs_lft *l = NULL;
	struct ibs_route r;
	size_t n = 0, i;
	int ix[8];

	(void)state;
	moved_fabric(&ff, ix);
	ff.n[ix[2]].lid = 2;
	ff_route_lfts(&ff);
	assert_int_equal(ff.n[ix[1]].lft[2], 0); /* from H0, LID 2 ends at S1 */
	/* LID 10 (nobody's) leaves S1 towards S2, and S2 by its port 5, which has no cable. */
	ff.n[ix[1]].lft[10] = 2;
	ff.n[ix[2]].lft[10] = 5;

	/* Walked by LID from H0 (LID 1, Active, the SM at LID 1); the engine stays open for the tables and the trace. */
	o.eo.deadline_ms = 20000;
	o.wo.gids = false;
	o.sm_lid = 1;
	o.active = true;
	assert_int_equal(ff_walk_live(&ff, &o, &fab, NULL, &live), IBS_OK);
	e = live.eng;
	assert_int_equal(ibs_read_lfts(e, fab, &l, &n), IBS_OK);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		const struct ff_node *x = &ff.n[ix[1 + (l[i].node->ni.node_guid >> 8) - 2]];
		assert_int_equal(x->guid, l[i].node->ni.node_guid);
		assert_true(l[i].ok);
		assert_true(l[i].n > 11);
		if (memcmp(l[i].ports, x->lft, 12))
			fail_msg("%s's table sends LID 10 to port %u, its own to port %u", x->desc, l[i].ports[10],
				 x->lft[10]);
	}
	/* H0 to LID 10: S1 port 2, then S2 port 5 as S2's own table says (S1's would go on to H3). */
	assert_int_equal(ibs_route_trace(e, fab, ibs_fabric_find_guid(fab, 0x100), 1, 10, &r), IBS_OK);
	assert_int_equal(r.n_hops, 2);
	if (r.hops[1].out_port != 5)
		fail_msg("the trace left S2 by port %u (%s), its table says 5", r.hops[1].out_port, r.why ? r.why : "");
	ibs_route_free(&r);
	ibs_lfts_free(l, n);
	ff_live_close(&live);
	ibs_fabric_free(fab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers_from_the_node_asked),
		cmocka_unit_test(test_lid_moved_after_confirmation),
		cmocka_unit_test(test_lid_moved_errors_discarded),
		cmocka_unit_test(test_lid_kept_no_warning),
		cmocka_unit_test(test_lfts_of_a_shared_lid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
