/* Unit tests of route tracing through forwarding tables, and endpoint resolution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fabrics.h"
#include "../../fabric/walk/route.h"
#include "../../fabric/walk/walk.h"

static struct ff ff;
static struct ff_live live; /* the walk's engine, kept for the traces */

/* Switch1 (LID 1) -- Switch2 (LID 2), Hca1 (LID 3) on S1 port 1, Hca2 (LID 4) on S2 port 1. */
static void build(void)
{
	int s1, s2, h1, h2, l;

	memset(&ff, 0, sizeof(ff));
	s1 = ff_add(&ff, IB_NODE_SWITCH, 4, 0x200000, "Switch1");
	s2 = ff_add(&ff, IB_NODE_SWITCH, 4, 0x200001, "Switch2");
	h1 = ff_add(&ff, IB_NODE_CA, 1, 0x100000, "node01 mlx5_0");
	h2 = ff_add(&ff, IB_NODE_CA, 1, 0x100004, "node02 mlx5_0");
	ff_link(&ff, s1, 3, s2, 3);
	ff_link(&ff, s1, 1, h1, 1);
	ff_link(&ff, s2, 1, h2, 1);
	for (l = 1; l <= 4; l++) {
		ff.n[s1].lft[l] = (uint8_t)(l == 1 ? 0 : l == 3 ? 1 : 3);
		ff.n[s2].lft[l] = (uint8_t)(l == 2 ? 0 : l == 4 ? 1 : 3);
	}
}

/* ff walked (no GUIDInfo, no SMInfo), its engine kept in live for the traces. */
static struct ibs_fabric *walk(void)
{
	const struct ff_walk_opts o = { .eo = { .window = 8, .timeout_ms = 50, .retries = 1, .deadline_ms = 10000 } };
	struct ibs_fabric *fab;

	assert_int_equal(ff_walk_live(&ff, &o, &fab, NULL, &live), IBS_OK);
	return fab;
}

static void done(struct ibs_fabric *f)
{
	ff_live_close(&live);
	ibs_fabric_free(f);
}

static void trace(struct ibs_fabric *f, const char *src, uint16_t dlid, struct ibs_route *r)
{
	const struct ibs_node *n;
	uint8_t p;
	uint16_t lid;
	char *msg = NULL;

	assert_int_equal(ibs_fabric_resolve(f, src, &n, &p, &lid, &msg), IBS_OK);
	assert_int_equal(ibs_route_trace(live.eng, f, n, p, dlid, r), IBS_OK);
}

static void test_route_ok(void **state)
{
	struct ibs_fabric *f;
	struct ibs_route r;

	(void)state;
	build();
	f = walk();
	trace(f, "node01", 4, &r);
	assert_int_equal(r.result, IBS_ROUTE_OK);
	assert_int_equal(r.n_hops, 2);
	assert_true(r.hops[0].node->ni.node_guid == 0x200000);
	assert_int_equal(r.hops[0].in_port, 1);
	assert_int_equal(r.hops[0].out_port, 3);
	assert_int_equal(r.hops[1].in_port, 3);
	assert_int_equal(r.hops[1].out_port, 1);
	assert_true(r.dst->ni.node_guid == 0x100004);
	ibs_route_free(&r);
	/* To a switch: ends at its port 0. */
	trace(f, "0x100001", 2, &r);
	assert_int_equal(r.result, IBS_ROUTE_OK);
	assert_int_equal(r.hops[r.n_hops - 1].out_port, 0);
	ibs_route_free(&r);
	done(f);
}

static void test_route_faults(void **state)
{
	struct ibs_fabric *f;
	struct ibs_route r;

	(void)state;
	build();
	ff.n[1].lft[4] = 0xff; /* hole on Switch2 */
	f = walk();
	trace(f, "3", 4, &r);
	assert_int_equal(r.result, IBS_ROUTE_HOLE);
	assert_non_null(strstr(r.why, "Switch2 has no route to LID 4"));
	ibs_route_free(&r);
	done(f);

	build();
	ff.n[1].lft[4] = 3; /* Switch2 sends LID 4 back to Switch1: a loop */
	f = walk();
	trace(f, "node01", 4, &r);
	assert_int_equal(r.result, IBS_ROUTE_LOOP);
	ibs_route_free(&r);
	done(f);

	build();
	ff.n[0].lft[4] = 2; /* Switch1 port 2 has no cable */
	f = walk();
	trace(f, "node01", 4, &r);
	assert_int_equal(r.result, IBS_ROUTE_DEAD_END);
	ibs_route_free(&r);
	done(f);
}

static void test_resolve(void **state)
{
	struct ibs_fabric *f;
	const struct ibs_node *n;
	uint8_t p;
	uint16_t lid;
	char *msg = NULL;

	(void)state;
	build();
	f = walk();
	assert_int_equal(ibs_fabric_resolve(f, "node02 mlx5_0", &n, &p, &lid, &msg), IBS_OK);
	assert_int_equal(lid, 4);
	assert_int_equal(ibs_fabric_resolve(f, "0x0000000000100005", &n, &p, &lid, &msg), IBS_OK); /* port GUID */
	assert_true(n->ni.node_guid == 0x100004);
	assert_int_equal(ibs_fabric_resolve(f, "Switch1", &n, &p, &lid, &msg), IBS_OK);
	assert_int_equal(p, 0);
	assert_int_equal(lid, 1);
	assert_int_equal(ibs_fabric_resolve(f, "nosuch", &n, &p, &lid, &msg), IBS_E_NOTFOUND);
	free(msg);
	assert_int_equal(ibs_fabric_resolve(f, "99", &n, &p, &lid, &msg), IBS_E_NOTFOUND);
	free(msg);
	assert_int_equal(ibs_fabric_resolve(f, "0xzz", &n, &p, &lid, &msg), IBS_E_INVAL);
	free(msg);
	/* strtoull would take a sign, a blank or 17 digits (0x-1 is 0xffffffffffffffff to it). */
	assert_int_equal(ibs_fabric_resolve(f, "0x-1", &n, &p, &lid, &msg), IBS_E_INVAL);
	assert_string_equal(msg, "'0x-1' is not a GUID (want 0x and 1 to 16 hex digits)");
	free(msg);
	assert_int_equal(ibs_fabric_resolve(f, "0x +200000", &n, &p, &lid, &msg), IBS_E_INVAL);
	free(msg);
	assert_int_equal(ibs_fabric_resolve(f, "0x10000000000200000", &n, &p, &lid, &msg), IBS_E_INVAL);
	free(msg);
	assert_int_equal(ibs_fabric_resolve(f, "65535", &n, &p, &lid, &msg), IBS_E_INVAL);
	free(msg);
	done(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_ok),
		cmocka_unit_test(test_route_faults),
		cmocka_unit_test(test_resolve),
	};
	return cmocka_run_group_tests_name("route", tests, NULL, NULL);
}
