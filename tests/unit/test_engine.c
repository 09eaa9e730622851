/* Unit tests of the asynchronous engine against a scripted transport. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fake_transport.h"
#include "../../core/mad/engine.h"

struct tally {
	unsigned ok, status, timeout, malformed, aborted, send_failed, calls;
	int last_cause;
	unsigned attempts_max;
	uint32_t mods[256];
	uint16_t last_status;
};

static void cb(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct tally *t = ctx;

	t->calls++;
	if (r->attempts > t->attempts_max)
		t->attempts_max = r->attempts;
	switch (r->outcome) {
	case IBS_MAD_OK:
		t->ok++;
		if (req->attr_mod < 256)
			t->mods[req->attr_mod]++;
		break;
	case IBS_MAD_STATUS:
		t->status++;
		t->last_status = r->status;
		break;
	case IBS_MAD_TIMEOUT:
		t->timeout++;
		break;
	case IBS_MAD_MALFORMED:
		t->malformed++;
		break;
	case IBS_MAD_ABORTED:
		t->aborted++;
		break;
	case IBS_MAD_SEND_FAILED:
		t->send_failed++;
		t->last_cause = r->cause;
		break;
	}
}

static void submit_n(struct ibs_engine *e, unsigned n, struct tally *t)
{
	struct ibs_addr a;
	struct ibs_mad_req req;
	unsigned i;

	ibs_addr_dr(&a, NULL, 0);
	for (i = 0; i < n; i++) {
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_PORT_INFO, i);
		ibs_engine_submit(e, &req, cb, t);
	}
}

static struct ibs_engine *mk(struct fake *f, unsigned window, unsigned timeout, unsigned retries, unsigned deadline)
{
	struct ibs_engine_opts o = { window, timeout, retries, deadline, 0 };
	return ibs_engine_new(&f->t, &o);
}

/* Answers arrive in reverse order of sending, with random-ish delays. */
static void reverse_delays(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	fake_answer(f, mad, 0, NULL, 20 - (req->attr_mod % 20));
}

static void test_out_of_order(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;
	unsigned i;

	(void)state;
	fake_init(&f, reverse_delays, NULL);
	e = mk(&f, 8, 500, 2, 0);
	submit_n(e, 100, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(t.mods[i], 1);
	/* The window is never exceeded. */
	assert_true(f.max_inflight_seen <= 8);
	assert_true(f.max_inflight_seen >= 2);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void duplicate_answers(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	(void)req;
	fake_answer(f, mad, 0, NULL, 0);
	fake_answer(f, mad, 0, NULL, 0);
}

static void test_duplicates_ignored(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, duplicate_answers, NULL);
	e = mk(&f, 4, 200, 0, 0);
	submit_n(e, 10, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 10);
	assert_int_equal(t.calls, 10);
	assert_true(ibs_engine_stats(e)->unexpected >= 1);
	ibs_engine_free(e);
	fake_close(&f.t);
}

/* Even modifiers never answer; modifier 1 answers late (after its deadline), others at once. */
static void lossy(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	if (req->attr_mod % 2 == 0)
		return;
	fake_answer(f, mad, 0, NULL, req->attr_mod == 1 ? 60 : 0);
}

static void test_missing_and_late(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, lossy, NULL);
	e = mk(&f, 16, 30, 2, 0);
	submit_n(e, 10, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	/* 5 never answered: 3 attempts each, then timeout. Mod 1 always answers too late. */
	assert_int_equal(t.timeout, 6);
	assert_int_equal(t.ok, 4);
	assert_int_equal(t.attempts_max, 3);
	assert_int_equal(ibs_engine_stats(e)->retries, 12);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void bad_status(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	/* mod 3: busy the first time, then fine; mod 5: invalid attribute. */
	static unsigned busy_seen;
	if (req->attr_mod == 3 && !busy_seen++) {
		fake_answer(f, mad, 0x1, NULL, 0);
		return;
	}
	fake_answer(f, mad, req->attr_mod == 5 ? 0x1c : 0, NULL, 0);
}

static void test_bad_status(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, bad_status, NULL);
	e = mk(&f, 4, 100, 1, 0);
	submit_n(e, 8, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.status, 1);
	assert_int_equal(t.last_status, 0x1c);
	assert_int_equal(t.ok, 7);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void undeliverable(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	(void)req;
	fake_push(f, mad, IBS_MAD_SIZE, 110, 0);
}

static void test_umad_status_is_timeout(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, undeliverable, NULL);
	e = mk(&f, 4, 10000, 2, 0);
	submit_n(e, 3, &t);
	/* Status 110 comes back at once: no waiting for the 10 s deadline. */
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.timeout, 3);
	assert_int_equal(t.attempts_max, 3);
	assert_true(ibs_engine_elapsed_ms(e) < 5000);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void wrong_attr(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	uint8_t out[IBS_MAD_SIZE];
	(void)req;
	fake_make_resp(mad, 0, NULL, out);
	mad_set_field(out, 0, IB_MAD_ATTRID_F, 0x11);
	fake_push(f, out, IBS_MAD_SIZE, 0, 0);
	fake_push(f, out, 10, 0, 0); /* a runt packet too */
}

static void test_malformed(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, wrong_attr, NULL);
	e = mk(&f, 4, 100, 0, 0);
	submit_n(e, 2, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.malformed, 2);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void silent(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	(void)f;
	(void)req;
	(void)mad;
}

static void test_global_deadline(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, silent, NULL);
	/* Each MAD could take 3 x 1 s; the run must end at 150 ms all the same. */
	e = mk(&f, 2, 1000, 2, 150);
	submit_n(e, 20, &t);
	assert_int_equal(ibs_engine_run(e), IBS_E_DEADLINE);
	assert_true(ibs_engine_elapsed_ms(e) < 1000);
	assert_int_equal(t.aborted, 20);
	assert_int_equal(t.calls, 20);
	/* Later runs abort at once. */
	submit_n(e, 1, &t);
	assert_int_equal(ibs_engine_run(e), IBS_E_DEADLINE);
	assert_int_equal(t.aborted, 21);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void test_transport_failure(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, silent, NULL);
	f.dead = true;
	e = mk(&f, 4, 1000, 2, 0);
	submit_n(e, 5, &t);
	assert_int_equal(ibs_engine_run(e), IBS_E_TRANSPORT);
	assert_int_equal(t.aborted, 5);
	ibs_engine_free(e);
	fake_close(&f.t);
}

struct chain {
	struct ibs_engine *e;
	unsigned left, done;
};

static void chain_cb(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct chain *c = ctx;

	assert_int_equal(r->outcome, IBS_MAD_OK);
	c->done++;
	if (c->left) {
		c->left--;
		ibs_engine_submit(c->e, req, chain_cb, c);
	}
}

static void immediate(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	(void)req;
	fake_answer(f, mad, 0, NULL, 0);
}

/* The kernel refuses modifier 3 (EINVAL, as for a bad address): that request fails, the rest go on. */
static int refuse_mod3(struct fake *f, const struct ibs_mad_req *req)
{
	(void)f;
	return req->attr_mod == 3 ? EINVAL : 0;
}

static void answer_now(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	(void)req;
	fake_answer(f, mad, 0, NULL, 0);
}

static void test_send_refused(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, answer_now, NULL);
	f.refuse = refuse_mod3;
	e = mk(&f, 4, 200, 2, 0);
	submit_n(e, 10, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 9);
	assert_int_equal(t.mods[3], 0);
	assert_int_equal(t.send_failed, 1);
	assert_int_equal(t.last_cause, EINVAL);
	assert_int_equal(t.aborted, 0);
	assert_int_equal(ibs_engine_stats(e)->send_failed, 1);
	/* Not retried: a refusal does not improve with another try. */
	assert_int_equal(f.refused, 1);
	ibs_engine_free(e);
	fake_close(&f.t);
}

/* A send that fails because the device is gone ends the run: every request completes, aborted. */
static void test_send_device_gone(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, answer_now, NULL);
	f.send_dead = true;
	e = mk(&f, 4, 200, 2, 0);
	submit_n(e, 10, &t);
	assert_int_equal(ibs_engine_run(e), IBS_E_TRANSPORT);
	assert_int_equal(t.calls, 10);
	assert_int_equal(t.aborted, 10);
	assert_int_equal(t.send_failed, 0);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void test_callbacks_submit(void **state)
{
	struct fake f;
	struct chain c = { NULL, 50, 0 };
	struct ibs_addr a;
	struct ibs_mad_req req;

	(void)state;
	fake_init(&f, immediate, NULL);
	c.e = mk(&f, 4, 100, 0, 0);
	ibs_addr_dr(&a, NULL, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	ibs_engine_submit(c.e, &req, chain_cb, &c);
	assert_int_equal(ibs_engine_run(c.e), IBS_OK);
	assert_int_equal(c.done, 51);
	ibs_engine_free(c.e);
	fake_close(&f.t);
}

/* Sends seen by the fake: first hop of the path and when (ns). */
struct sends {
	unsigned n;
	uint8_t hop[64];
	uint64_t t[64];
	uint16_t mod[64];
};

/* Every request is undeliverable (status 110 at once), except modifier 7, answered at once. */
static void refuse_but_7(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct sends *s = f->ctx;

	if (s->n < 64) {
		s->hop[s->n] = req->addr.hops ? req->addr.path[1] : 0;
		s->mod[s->n] = (uint16_t)req->attr_mod;
		s->t[s->n++] = fake_now();
	}
	if (req->attr_mod == 7)
		fake_answer(f, mad, 0, NULL, 0);
	else
		fake_push(f, mad, IBS_MAD_SIZE, 110, 0);
}

/* Path i of the test request: one hop out of port 10 + i, for i below 3. */
static bool three_ports(void *ctx, unsigned i, struct ibs_addr *out)
{
	uint8_t p = (uint8_t)(10 + i);
	(void)ctx;
	if (i >= 3)
		return false;
	ibs_addr_dr(out, &p, 1);
	return true;
}

static void test_other_paths_in_turn(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct sends s = { 0 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	const uint8_t want[] = { 10, 11, 12, 10, 11, 12 };
	unsigned i;

	(void)state;
	fake_init(&f, refuse_but_7, &s);
	e = mk(&f, 4, 1000, 1, 0);
	three_ports(NULL, 0, &a);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	ibs_engine_set_paths(e, three_ports);
	ibs_engine_submit_paths(e, &req, cb, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	/* Each path once, then (retries 1) each path once more: 6 attempts, in that order. */
	assert_int_equal(t.timeout, 1);
	assert_int_equal(t.attempts_max, 6);
	assert_int_equal(s.n, 6);
	for (i = 0; i < 6; i++)
		assert_int_equal(s.hop[i], want[i]);
	assert_int_equal(ibs_engine_stats(e)->other_paths, 4);
	assert_int_equal(ibs_engine_stats(e)->retries, 5);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void test_backoff_between_rounds(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct sends s = { 0 };
	struct ibs_engine_opts o = { 4, 1000, 2, 0, 40000 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint64_t first_ok = 0;
	unsigned i, k = 0;
	uint64_t tr[3];

	(void)state;
	fake_init(&f, refuse_but_7, &s);
	e = ibs_engine_new(&f.t, &o);
	ibs_addr_dr(&a, NULL, 0);
	/* A refused request (mod 0) and, behind it, one that is answered (mod 7). */
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	ibs_engine_submit(e, &req, cb, &t);
	req.attr_mod = 7;
	ibs_engine_submit(e, &req, cb, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.timeout, 1);
	assert_int_equal(t.ok, 1);
	for (i = 0; i < s.n; i++) {
		if (s.mod[i] == 0 && k < 3)
			tr[k++] = s.t[i];
		if (s.mod[i] == 7 && !first_ok)
			first_ok = s.t[i];
	}
	assert_int_equal(k, 3);
	/* Failing at once, each retry waited its backoff: 40 ms, then 80 ms. */
	assert_true(tr[1] - tr[0] >= 40000000ull);
	assert_true(tr[2] - tr[1] >= 80000000ull);
	/* Meanwhile the other request went out: a backoff holds no place in the window. */
	assert_true(first_ok < tr[1]);
	assert_int_equal(ibs_engine_stats(e)->backoffs, 2);
	ibs_engine_free(e);
	fake_close(&f.t);
}

static void test_no_backoff_after_timeout(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine_opts o = { 4, 30, 2, 0, 5000000 };
	struct ibs_engine *e;

	(void)state;
	fake_init(&f, silent, NULL);
	e = ibs_engine_new(&f.t, &o);
	submit_n(e, 1, &t);
	/* A timed-out attempt has waited already: 3 x 30 ms, not 5 s of backoff. */
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.timeout, 1);
	assert_int_equal(t.attempts_max, 3);
	assert_true(ibs_engine_elapsed_ms(e) < 2000);
	assert_int_equal(ibs_engine_stats(e)->backoffs, 0);
	ibs_engine_free(e);
	fake_close(&f.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_duplicates_ignored),
		cmocka_unit_test(test_missing_and_late),
		cmocka_unit_test(test_bad_status),
		cmocka_unit_test(test_umad_status_is_timeout),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_global_deadline),
		cmocka_unit_test(test_transport_failure),
		cmocka_unit_test(test_send_refused),
		cmocka_unit_test(test_send_device_gone),
		cmocka_unit_test(test_callbacks_submit),
		cmocka_unit_test(test_other_paths_in_turn),
		cmocka_unit_test(test_backoff_between_rounds),
		cmocka_unit_test(test_no_backoff_after_timeout),
	};
	return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
