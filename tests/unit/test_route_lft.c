/* Tests of fabric/walk/route_lft.c: reading every switch's forwarding table. */
#include "lib/fabrics.h"
#include "../../core/mad/engine.h"
#include "../../fabric/walk/route.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <infiniband/mad.h>

/* What waits in the engine when each LFT block goes out: the most, and how many blocks went. */
struct queued {
	struct ibs_engine *e;
	uint64_t most, lfts;
};

static void count_queued(struct ff *ff, int node, const struct ibs_mad_req *req)
{
	struct queued *q = ff->hook_ctx;
	const struct ibs_engine_stats *s;

	(void)node;
	if (!q->e || req->attr_id != IB_ATTR_LINEARFORWTBL)
		return;
	s = ibs_engine_stats(q->e);
	q->lfts++;
	if (s->submitted - s->completed > q->most)
		q->most = s->submitted - s->completed;
}

/*
 * Two switches whose LinearFDBTop is 49151 (768 blocks each): read whole,
 * and what waits in the engine stays bounded (at most the engine's largest
 * window), not every block of every switch at once (1,536 here; on a
 * 27,000-node tree some 800,000 requests, 200 MB).
 */
static void test_lfts_queued_bounded(void **state)
{
	static struct ff ff;
	struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ff_live live;
	struct queued q = { 0 };
	struct ibs_fabric *fab;
	struct ibs_lft *l = NULL;
	size_t n = 0, i, k;

	(void)state;
	ff_2sw2ca(&ff);
	ff_route_lfts(&ff);
	ff.n[0].fdb_top = 49151;
	ff.n[1].fdb_top = 49151;
	o.eo.deadline_ms = 60000;
	o.wo.gids = false;
	o.sm_lid = 1;
	o.active = true;
	ff.hook = count_queued;
	ff.hook_ctx = &q;
	assert_int_equal(ff_walk_live(&ff, &o, &fab, NULL, &live), IBS_OK);
	q.e = live.eng;
	assert_int_equal(ibs_read_lfts(live.eng, fab, &l, &n), IBS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(q.lfts, 2 * 768);
	if (q.most > IBS_ENGINE_MAX_WINDOW)
		fail_msg("%llu LFT reads waited in the engine at once, want at most %u", (unsigned long long)q.most,
			 IBS_ENGINE_MAX_WINDOW);
	for (i = 0; i < n; i++) {
		const struct ff_node *x = l[i].node->ni.node_guid == ff.n[0].guid ? &ff.n[0] : &ff.n[1];
		assert_true(l[i].ok);
		assert_int_equal(l[i].n, 49151); /* capped at LinearFDBCap */
		assert_memory_equal(l[i].ports, x->lft, 128);
		for (k = 128; k < l[i].n; k++)
			if (l[i].ports[k] != 0xff)
				fail_msg("LID %zu of %s: port %u, want none", k, x->desc, l[i].ports[k]);
	}
	ibs_lfts_free(l, n);
	ff_live_close(&live);
	ibs_fabric_free(fab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lfts_queued_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
