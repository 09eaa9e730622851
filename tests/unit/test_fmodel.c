/* Unit tests of the bench's fabric model (tools/bench/fmodel.c) on a fake clock: routes, delays, order, drops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

/* The model is a bench tool, not part of libibscan: build it into this test. */
#include "../../tools/bench/fmodel.c"

/*
 *   H1 [1]--[1] S1 [3]==[3] S2 [1]--[1] H2      (S1-S2: ports 3 and 5, two cables)
 *                 [2]--[1] H3                    (H4 has no cable)
 */
static const char topo_text[] = "# a comment\n"
				"switchguid=0x1\n"
				"Switch\t8 \"S1\"\t\t# \"sw one\" base port 0 lid 1 lmc 0\n"
				"[1]\t\"H1\"[1]\t\t# \"h1\" lid 10 4xEDR\n"
				"[2]\t\"H3\"[1]\n"
				"[3]\t\"S2\"[3]\n"
				"[5]\t\"S2\"[5]\n"
				"\n"
				"Switch 8 \"S2\"\t\t# \"sw two\" base port 0 lid 2 lmc 0\n"
				"[1]\t\"H2\"[1]\n"
				"\n"
				"Ca\t1 \"H1\"\t\t# \"host one\"\n"
				"[1](2c9)\t\"S1\"[1]\t\t# lid 10 lmc 0 \"sw one\" lid 1 4xEDR\n"
				"\n"
				"Hca\t2 \"H2\"\n"
				"[1]\t\"S2\"[1]\t\t# lid 20 lmc 1 \"sw two\" lid 2 4xEDR\n"
				"\n"
				"Ca 1 \"H3\"\n"
				"[1]\t\"S1\"[2]\n"
				"\n"
				"Ca 1 \"H4\"\n";

enum { HOP = 1000, SW = 10000, CA = 3000 };

static struct fm_topo *topo;

static int setup(void **state)
{
	char err[128];

	(void)state;
	topo = fm_topo_parse(topo_text, strlen(topo_text), err, sizeof(err));
	return topo ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fm_topo_free(topo);
	return 0;
}

static int node(const char *id)
{
	int n = fm_topo_find(topo, id);

	assert_true(n >= 0);
	return n;
}

static struct fm_model *model(const char *local, int queue)
{
	struct fm_params p = { HOP, SW, CA, queue, 0 };

	return fm_new(topo, node(local), &p);
}

/* A directed route from the model's sender: ports, path[1..]. */
static void dr(struct fm_model *m, struct fm_route *r, int hops, ...)
{
	uint8_t path[FM_MAX_HOPS + 1] = { 0 };
	va_list ap;
	int i;

	va_start(ap, hops);
	for (i = 1; i <= hops; i++)
		path[i] = (uint8_t)va_arg(ap, int);
	va_end(ap);
	fm_route_dr(m, path, hops, r);
}

static int send_dr(struct fm_model *m, uint64_t now, uint64_t tag, int hops, ...)
{
	uint8_t path[FM_MAX_HOPS + 1] = { 0 };
	struct fm_route r;
	va_list ap;
	int i;

	va_start(ap, hops);
	for (i = 1; i <= hops; i++)
		path[i] = (uint8_t)va_arg(ap, int);
	va_end(ap);
	fm_route_dr(m, path, hops, &r);
	return fm_send(m, now, FM_DR_SMP, &r, 0, 0, tag);
}

/* The next request to end (running the model to it): its tag, end time and outcome. */
static uint64_t next_done(struct fm_model *m, uint64_t *t, enum fm_outcome *out)
{
	uint64_t tag = 0;
	int req = -1;

	*t = fm_run_until_done(m, FM_NEVER);
	assert_true(*t != FM_NEVER);
	assert_false(fm_pop_done(m, *t - 1, &req, &tag, out));
	assert_true(fm_pop_done(m, *t, &req, &tag, out));
	fm_req_put(m, req);
	return tag;
}

static void test_parse(void **state)
{
	char err[128];
	struct fm_topo *t;

	(void)state;
	assert_int_equal(fm_topo_count(topo), 6);
	assert_true(fm_topo_is_switch(topo, node("S2")));
	assert_false(fm_topo_is_switch(topo, node("H2")));
	assert_int_equal(fm_topo_find(topo, "sw two"), node("S2")); /* by description */
	assert_int_equal(fm_topo_find(topo, "nothing"), -1);
	assert_string_equal(fm_topo_id(topo, node("H3")), "H3");

	t = fm_topo_parse("Switch 4 \"A\"\n[1] \"B\"[1]\n", 24, err, sizeof(err));
	assert_null(t);
	assert_string_equal(err, "line 2: unknown node \"B\"");
	t = fm_topo_parse("Switch 4 \"A\"\n[9] \"A\"[1]\n", 24, err, sizeof(err));
	assert_null(t);
	assert_string_equal(err, "line 2: bad port number");
	t = fm_topo_parse("# nothing\n", 10, err, sizeof(err));
	assert_null(t);
	assert_string_equal(err, "no nodes");
}

static void test_routes(void **state)
{
	struct fm_model *m = model("H1", FM_NO_LIMIT), *ms = model("S1", FM_NO_LIMIT);
	struct fm_route r;

	(void)state;
	/* From a CA: every switch on the way serves it, and the destination. */
	dr(m, &r, 3, 1, 3, 1);
	assert_int_equal(r.hops, 3);
	assert_int_equal(r.nstops, 3);
	assert_int_equal(r.stop[0].node, node("S1"));
	assert_int_equal(r.stop[1].node, node("S2"));
	assert_int_equal(r.stop[2].node, node("H2"));
	assert_int_equal(r.dest, node("H2"));
	assert_int_equal(r.stop[2].hops, 1);
	/* The sender's own CA serves only a MAD addressed to itself. */
	dr(m, &r, 0);
	assert_int_equal(r.nstops, 1);
	assert_int_equal(r.stop[0].node, node("H1"));
	assert_int_equal(r.hops, 0);
	/* The second cable S1[5]-S2[5]. */
	dr(m, &r, 2, 1, 5);
	assert_int_equal(r.dest, node("S2"));
	assert_int_equal(r.nstops, 2);
	/* A sender on a switch: that switch serves every DR SMP first. */
	dr(ms, &r, 2, 3, 1);
	assert_int_equal(r.nstops, 3);
	assert_int_equal(r.stop[0].node, node("S1"));
	assert_int_equal(r.stop[0].hops, 0);
	assert_int_equal(r.dest, node("H2"));
	/* An uncabled port: the route ends where the SMP stops. */
	dr(m, &r, 3, 1, 4, 1);
	assert_int_equal(r.dest, node("S1"));
	assert_int_equal(r.nstops, 1);
	/* A CA does not forward. */
	dr(m, &r, 3, 1, 2, 1);
	assert_int_equal(r.dest, node("H3"));
	assert_int_equal(r.hops, 2);

	/* LID-routed: the destination alone serves it; LIDs from the file's annotations. */
	fm_route_lid(m, 20, &r);
	assert_true(r.resolved);
	assert_int_equal(r.nstops, 1);
	assert_int_equal(r.dest, node("H2"));
	assert_int_equal(r.hops, 3);
	assert_int_equal(r.stop[0].hops, 3);
	fm_route_lid(m, 21, &r); /* lmc 1: two LIDs */
	assert_int_equal(r.dest, node("H2"));
	fm_route_lid(m, 2, &r);
	assert_int_equal(r.dest, node("S2"));
	assert_int_equal(r.hops, 2);
	fm_route_lid(m, 10, &r);
	assert_int_equal(r.dest, node("H1"));
	assert_int_equal(r.hops, 0);
	fm_route_lid(m, 30, &r);
	assert_false(r.resolved);
	assert_int_equal(r.nstops, 0);
	fm_learn_lid(m, 30, 0, node("H3"));
	fm_route_lid(m, 30, &r);
	assert_int_equal(r.dest, node("H3"));
	assert_int_equal(r.hops, 2);
	fm_free(m);
	fm_free(ms);
}

static void test_delays(void **state)
{
	struct fm_model *m = model("H1", FM_NO_LIMIT);
	enum fm_outcome out;
	struct fm_route r;
	uint64_t t;

	(void)state;
	/* DR to H2: S1 at 1000, done 11000; S2 at 12000, done 22000; H2 at 23000,
	 * done 26000; back over three links: 29000. */
	send_dr(m, 100000, 1, 3, 1, 3, 1);
	assert_int_equal(next_done(m, &t, &out), 1);
	assert_int_equal(t, 100000 + 29000);
	assert_int_equal(out, FM_ANSWERED);
	/* LID-routed to H2: three links there, H2 serves, three back. */
	fm_route_lid(m, 20, &r);
	fm_send(m, 200000, FM_LID_SMP, &r, 0, 0, 2);
	assert_int_equal(next_done(m, &t, &out), 2);
	assert_int_equal(t, 200000 + 3 * HOP + CA + 3 * HOP);
	/* An unknown LID is answered as the simulator answers it, and counted. */
	fm_route_lid(m, 40, &r);
	fm_send(m, 300000, FM_GMP, &r, 0, 0, 3);
	assert_int_equal(next_done(m, &t, &out), 3);
	assert_int_equal(t, 300000);
	fm_free(m);
}

static void test_fifo(void **state)
{
	struct fm_model *m = model("H1", FM_NO_LIMIT);
	struct fm_node_stats ns;
	struct fm_stats st;
	enum fm_outcome out;
	uint64_t t, tag;

	(void)state;
	/* Three SMPs to S1 at once: served one at a time, first come first served. */
	for (tag = 1; tag <= 3; tag++)
		send_dr(m, 0, tag, 1, 1);
	for (tag = 1; tag <= 3; tag++) {
		assert_int_equal(next_done(m, &t, &out), tag);
		assert_int_equal(t, HOP + tag * SW + HOP);
	}
	fm_node_stats(m, node("S1"), &ns);
	assert_int_equal(ns.served, 3);
	assert_int_equal(ns.max_busy, 3);
	assert_int_equal(ns.max_out, 3);
	fm_stats(m, &st);
	assert_int_equal(st.max_busy, 3);
	assert_int_equal(st.max_node, node("S1"));
	assert_int_equal(st.sent[FM_DR_SMP], 3);
	/* Two to H2, then one to S1: S1 serves them in the order they came, so
	 * the third, though its route is shortest, leaves S1 last; the second
	 * leaves S1 as the first leaves S2 and so never waits there. */
	send_dr(m, 1000000, 11, 3, 1, 3, 1);
	send_dr(m, 1000000, 12, 3, 1, 3, 1);
	send_dr(m, 1000000, 13, 1, 1);
	assert_int_equal(next_done(m, &t, &out), 11);
	assert_int_equal(t, 1000000 + 29000);
	assert_int_equal(next_done(m, &t, &out), 13);
	assert_int_equal(t, 1000000 + HOP + 3 * SW + HOP);
	assert_int_equal(next_done(m, &t, &out), 12);
	assert_int_equal(t, 1000000 + 29000 + SW);
	fm_free(m);
}

static void test_drops(void **state)
{
	struct fm_model *m = model("H1", 1);
	struct fm_node_stats ns;
	struct fm_stats st;
	enum fm_outcome out;
	struct fm_route r;
	uint64_t t;
	int i;

	(void)state;
	/* Queue limit 1: one in service, one waiting, the next two dropped (no
	 * answer, and with no timeout, no end). */
	for (i = 1; i <= 4; i++)
		send_dr(m, 0, (uint64_t)i, 1, 1);
	assert_int_equal(next_done(m, &t, &out), 1);
	assert_int_equal(next_done(m, &t, &out), 2);
	assert_int_equal(fm_run_until_done(m, FM_NEVER), FM_NEVER);
	fm_node_stats(m, node("S1"), &ns);
	assert_int_equal(ns.dropped, 2);
	assert_int_equal(ns.served, 2);
	assert_int_equal(ns.max_busy, 2);
	assert_int_equal(ns.max_out, 4);
	fm_stats(m, &st);
	assert_int_equal(st.dropped, 2);

	/* With the kernel's timeout: dropped, sent again after 50 us, and, with
	 * no retry left, ended with status 110 after the last timeout. */
	dr(m, &r, 1, 1);
	for (i = 1; i <= 3; i++)
		fm_send(m, 1000000, FM_DR_SMP, &r, 50000, i == 3 ? 1 : 0, (uint64_t)(20 + i));
	assert_int_equal(next_done(m, &t, &out), 21);
	assert_int_equal(out, FM_ANSWERED);
	assert_int_equal(next_done(m, &t, &out), 22);
	assert_int_equal(out, FM_ANSWERED);
	assert_int_equal(next_done(m, &t, &out), 23); /* resent at 50 us, S1 idle by then */
	assert_int_equal(out, FM_ANSWERED);
	assert_int_equal(t, 1000000 + 50000 + HOP + SW + HOP);
	fm_stats(m, &st);
	assert_int_equal(st.dropped, 3);
	assert_int_equal(st.resent, 1);
	for (i = 1; i <= 3; i++)
		fm_send(m, 2000000, FM_DR_SMP, &r, 50000, 0, (uint64_t)(30 + i));
	assert_int_equal(next_done(m, &t, &out), 31);
	assert_int_equal(next_done(m, &t, &out), 32);
	assert_int_equal(next_done(m, &t, &out), 33);
	assert_int_equal(out, FM_TIMED_OUT);
	assert_int_equal(t, 2000000 + 50000);
	fm_stats(m, &st);
	assert_int_equal(st.timed_out, 1);
	fm_free(m);
}

static void test_lid_vs_dr(void **state)
{
	struct fm_model *m = model("H1", 0);
	struct fm_node_stats ns;
	enum fm_outcome out;
	struct fm_route r;
	uint64_t t;

	(void)state;
	/* LID-routed MADs pass S1 and S2 in hardware: queue limit 0 drops none
	 * there, and only H2 serves them (one after the other: the second is
	 * dropped at H2, which has no room to wait). */
	fm_route_lid(m, 20, &r);
	fm_send(m, 0, FM_GMP, &r, 0, 0, 1);
	fm_send(m, 0, FM_GMP, &r, 0, 0, 2);
	assert_int_equal(next_done(m, &t, &out), 1);
	assert_int_equal(fm_run_until_done(m, FM_NEVER), FM_NEVER);
	fm_node_stats(m, node("S1"), &ns);
	assert_int_equal(ns.served + ns.dropped + ns.max_out, 0);
	fm_node_stats(m, node("H2"), &ns);
	assert_int_equal(ns.served, 1);
	assert_int_equal(ns.dropped, 1);
	/* Directed-route SMPs to H2: S1, S2 and H2 each serve them. */
	send_dr(m, 1000000, 3, 3, 1, 3, 1);
	assert_int_equal(next_done(m, &t, &out), 3);
	fm_node_stats(m, node("S1"), &ns);
	assert_int_equal(ns.served, 1);
	fm_node_stats(m, node("S2"), &ns);
	assert_int_equal(ns.served, 1);
	fm_free(m);
}

/* A walk probing the port it came in by passes a switch twice: served twice,
 * but one request outstanding there. */
static void test_twice(void **state)
{
	struct fm_model *m = model("H1", FM_NO_LIMIT);
	struct fm_node_stats ns;
	enum fm_outcome out;
	struct fm_route r;
	uint64_t t;

	(void)state;
	dr(m, &r, 3, 1, 3, 3);
	assert_int_equal(r.nstops, 3);
	assert_int_equal(r.dest, node("S1"));
	fm_send(m, 0, FM_DR_SMP, &r, 0, 0, 1);
	assert_int_equal(next_done(m, &t, &out), 1);
	assert_int_equal(t, HOP + SW + HOP + SW + HOP + SW + 3 * HOP);
	fm_node_stats(m, node("S1"), &ns);
	assert_int_equal(ns.served, 2);
	assert_int_equal(ns.max_out, 1);
	fm_free(m);
}

/* Any attempt's answer ends a request (the kernel matches answers on the
 * TID), and a request timed out while its answer was on the way ends once. */
static void test_slow_answer(void **state)
{
	struct fm_model *m = model("H1", FM_NO_LIMIT);
	struct fm_stats st;
	enum fm_outcome out;
	struct fm_route r;
	uint64_t t;

	(void)state;
	dr(m, &r, 3, 1, 3, 1); /* 29 us round trip */
	fm_send(m, 0, FM_DR_SMP, &r, 20000, 1, 1);
	assert_int_equal(next_done(m, &t, &out), 1);
	assert_int_equal(out, FM_ANSWERED);
	assert_int_equal(t, 29000); /* the first attempt's answer; the second was sent at 20 us */
	assert_int_equal(fm_run_until_done(m, FM_NEVER), FM_NEVER);
	fm_stats(m, &st);
	assert_int_equal(st.resent, 1);
	assert_int_equal(st.timed_out, 0);
	fm_free(m);
}

/* The model ran ahead (the caller slept), then a request is sent "earlier":
 * each node still serves one MAD at a time. */
static void test_run_ahead(void **state)
{
	struct fm_model *m = model("H1", FM_NO_LIMIT);
	enum fm_outcome out;
	uint64_t t;

	(void)state;
	send_dr(m, 0, 1, 1, 1);
	assert_int_equal(fm_run_until_done(m, FM_NEVER), HOP + SW + HOP);
	send_dr(m, 5000, 2, 1, 1); /* reaches S1 at 6 us, while it serves the first */
	assert_int_equal(next_done(m, &t, &out), 1);
	assert_int_equal(next_done(m, &t, &out), 2);
	assert_int_equal(t, HOP + 2 * SW + HOP);
	fm_free(m);
}

/* Zero latency and no queue limit: every answer is due when it is sent. */
/* Loss: about loss_ppm in a million requests get no answer, the same ones every run; none at 0. */
static void test_loss(void **state)
{
	struct fm_params p = { HOP, SW, CA, FM_NO_LIMIT, 10000 };
	uint64_t lost[2];
	int run, i;

	(void)state;
	for (run = 0; run < 2; run++) {
		struct fm_model *m = fm_new(topo, node("H1"), &p);
		struct fm_stats st;

		for (i = 0; i < 10000; i++)
			send_dr(m, (uint64_t)i * 1000000, (uint64_t)i, 1, 1);
		while (fm_run_until_done(m, FM_NEVER) != FM_NEVER) {
			uint64_t tag = 0, t = fm_run_until_done(m, FM_NEVER);
			enum fm_outcome out;
			int req = -1;
			while (fm_pop_done(m, t, &req, &tag, &out))
				fm_req_put(m, req);
		}
		fm_stats(m, &st);
		lost[run] = st.dropped;
		fm_free(m);
	}
	/* 1% of 10,000: 100, give or take what a fair sequence gives. */
	assert_true(lost[0] >= 60 && lost[0] <= 140);
	assert_int_equal(lost[0], lost[1]);
}

static void test_zero(void **state)
{
	struct fm_params p = { 0, 0, 0, FM_NO_LIMIT, 0 };
	struct fm_model *m = fm_new(topo, node("H1"), &p);
	enum fm_outcome out;
	uint64_t tag, t;
	int req = -1, i;

	(void)state;
	for (i = 0; i < 100; i++)
		send_dr(m, 777, (uint64_t)i, 3, 1, 3, 1);
	fm_advance(m, 777);
	for (i = 0; i < 100; i++) {
		assert_true(fm_pop_done(m, 777, &req, &tag, &out));
		assert_int_equal(tag, i);
		fm_req_put(m, req);
	}
	assert_false(fm_pop_done(m, FM_NEVER - 1, &req, &tag, &out));
	t = fm_next_time(m);
	assert_int_equal(t, FM_NEVER);
	fm_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse), cmocka_unit_test(test_routes),      cmocka_unit_test(test_delays),
		cmocka_unit_test(test_fifo),  cmocka_unit_test(test_drops),       cmocka_unit_test(test_lid_vs_dr),
		cmocka_unit_test(test_twice), cmocka_unit_test(test_slow_answer), cmocka_unit_test(test_run_ahead),
		cmocka_unit_test(test_loss),  cmocka_unit_test(test_zero),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
