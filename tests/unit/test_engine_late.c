/*
 * Unit tests of the engine on a slow or stalled fabric: answers to earlier
 * attempts are used, what has arrived is read before anything times out,
 * the per-node cap counts attempts a node may still be serving, and a send
 * refused on one path goes on along the next.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fake_transport.h"
#include "../../core/mad/engine.h"

struct slow {
	unsigned delay_ms;     /* for requests with modifier >= 100 */
	unsigned sends;        /* of those */
	unsigned max_queued;   /* answers owed at once (what the node is serving or has queued) */
	unsigned ok, failed, attempts;
	uint64_t done_ns;
};

/* Modifier < 100: answered at once (to teach the engine a short round trip); else after delay_ms. */
static void slow_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct slow *s = f->ctx;

	if (req->attr_mod < 100) {
		fake_answer(f, mad, 0, NULL, 0);
		return;
	}
	s->sends++;
	fake_answer(f, mad, 0, NULL, s->delay_ms);
	if (f->n > s->max_queued)
		s->max_queued = (unsigned)f->n;
}

static void slow_cb(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct slow *s = ctx;

	if (req->attr_mod < 100)
		return;
	if (r->outcome == IBS_MAD_OK)
		s->ok++;
	else
		s->failed++;
	if (r->attempts > s->attempts)
		s->attempts = r->attempts;
	s->done_ns = fake_now();
}

/*
 * Fast answers: the adaptive timeout of SMPs comes down towards its floor;
 * returns it (ms). The fake answers on the real clock: on a loaded machine
 * (make check beside other work) the scheduler stretches some round trips,
 * and the 99th percentile with them, so up to 10 rounds of 40 are sent until
 * the floor is reached, and a timeout of up to 4 floors is taken as it is:
 * the tests set their SMA's delay from it.
 */
static unsigned warm_up(struct ibs_engine *e, struct slow *s)
{
	struct ibs_mad_req req;
	struct ibs_addr a;
	unsigned i, round;

	ibs_addr_dr(&a, NULL, 0);
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 40; i++) {
			ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_PORT_INFO, i);
			ibs_engine_submit(e, &req, slow_cb, s);
		}
		assert_int_equal(ibs_engine_run(e), IBS_OK);
		if (ibs_engine_timeout_ms(e) == IBS_ENGINE_TIMEOUT_FLOOR_MS)
			break;
	}
	assert_in_range(ibs_engine_timeout_ms(e), IBS_ENGINE_TIMEOUT_FLOOR_MS, 4 * IBS_ENGINE_TIMEOUT_FLOOR_MS);
	return ibs_engine_timeout_ms(e);
}

/*
 * An SMA that answers in 2.2 timeouts (110 ms at the 50 ms floor): the first
 * attempt's answer comes after its timeout, before the second's would (at 3,
 * the second waiting twice as long). It completes the request: two sends,
 * not three, done before the second attempt's timeout.
 */
static void test_earlier_attempt_answer_used(void **state)
{
	struct fake f;
	struct slow s = { 0 };
	struct ibs_engine_opts o = { .window = 8, .timeout_ms = 1000, .retries = 2 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint64_t t0;

	unsigned t;

	(void)state;
	fake_init(&f, slow_send, &s);
	e = ibs_engine_new(&f.t, &o);
	t = warm_up(e, &s);
	s.delay_ms = t * 11 / 5;
	ibs_addr_dr(&a, NULL, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_DESC, 100);
	ibs_engine_submit(e, &req, slow_cb, &s);
	t0 = fake_now();
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(s.ok, 1);
	assert_int_equal(s.sends, 2);
	assert_int_equal(s.attempts, 2);
	assert_int_equal(ibs_engine_stats(e)->late, 1);
	assert_true(s.done_ns - t0 < 3ull * t * 1000000ull);
	ibs_engine_free(e);
	fake_close(&f.t);
}

/*
 * The host stalls 100 ms (past the 50 ms timeout) just after a poll found
 * nothing, while seven answers arrive: they are read, nothing is sent again.
 */
static void stall_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	(void)req;
	fake_answer(f, mad, 0, NULL, req->attr_mod == 0 ? 5 : 20);
}

static void count_cb(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	unsigned *ok = ctx;
	(void)req;
	*ok += r->outcome == IBS_MAD_OK;
}

static void test_stall_reads_before_expiring(void **state)
{
	struct fake f;
	struct ibs_engine_opts o = { .window = 8, .timeout_ms = 50, .retries = 2, .fixed_timeout = true };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	unsigned i, ok = 0;

	(void)state;
	fake_init(&f, stall_send, NULL);
	f.stall_ms = 100;
	e = ibs_engine_new(&f.t, &o);
	ibs_addr_dr(&a, NULL, 0);
	for (i = 0; i < 8; i++) {
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_PORT_INFO, i);
		ibs_engine_submit(e, &req, count_cb, &ok);
	}
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(f.stall_ms, 0); /* the stall happened */
	assert_int_equal(ok, 8);
	assert_int_equal(f.sent, 8);
	assert_int_equal(ibs_engine_stats(e)->retries, 0);
	ibs_engine_free(e);
	fake_close(&f.t);
}

/*
 * Cap 2 at a node that answers in 2.4 timeouts (120 ms at 50 ms): the timed-out
 * attempts are still in its queue, so their retries wait; the node never
 * owes more than 2 answers, and the late answers complete the requests.
 */
static void test_cap_counts_earlier_attempts(void **state)
{
	struct fake f;
	struct slow s = { 0 };
	struct ibs_engine_opts o = { .window = 8, .timeout_ms = 1000, .retries = 2, .max_per_node = 2 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	unsigned i;

	(void)state;
	fake_init(&f, slow_send, &s);
	e = ibs_engine_new(&f.t, &o);
	s.delay_ms = warm_up(e, &s) * 12 / 5;
	ibs_addr_lid(&a, 7, 0);
	for (i = 0; i < 4; i++) {
		ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_NODE_DESC, 100 + i);
		ibs_engine_submit(e, &req, slow_cb, &s);
	}
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(s.ok, 4);
	assert_int_equal(s.failed, 0);
	assert_true(s.max_queued <= 2);
	assert_true(ibs_engine_stats(e)->max_at_node <= 2);
	assert_true(ibs_engine_stats(e)->late >= 2);
	ibs_engine_free(e);
	fake_close(&f.t);
}

/* The kernel refuses to send on a LID path (fake_paths_lid_then_dr's first); a directed route goes. */
static int refuse_lid(struct fake *f, const struct ibs_mad_req *req)
{
	(void)f;
	return req->addr.lid ? EINVAL : 0;
}

static void answer_now(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	(void)req;
	fake_answer(f, mad, 0, NULL, 0);
}

static void test_refused_lid_goes_directed(void **state)
{
	struct fake f;
	struct ibs_engine_opts o = { .window = 4, .timeout_ms = 200, .retries = 2 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	unsigned ok = 0;

	(void)state;
	fake_init(&f, answer_now, NULL);
	f.refuse = refuse_lid;
	e = ibs_engine_new(&f.t, &o);
	ibs_engine_set_paths(e, fake_paths_lid_then_dr);
	ibs_addr_lid(&a, 7, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_NODE_DESC, 0);
	ibs_engine_submit_paths(e, &req, count_cb, &ok);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(ok, 1);
	assert_int_equal(f.refused, 1);
	assert_int_equal(f.sent, 1);
	assert_int_equal(ibs_engine_stats(e)->send_failed, 0);
	ibs_engine_free(e);
	fake_close(&f.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_earlier_attempt_answer_used),
		cmocka_unit_test(test_stall_reads_before_expiring),
		cmocka_unit_test(test_cap_counts_earlier_attempts),
		cmocka_unit_test(test_refused_lid_goes_directed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
