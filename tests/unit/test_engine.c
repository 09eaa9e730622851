/* Unit tests of the asynchronous engine against a scripted transport. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fake_transport.h"
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
	struct ibs_engine_opts o = { .window = window, .timeout_ms = timeout, .retries = retries, .deadline_ms = deadline };
	return ibs_engine_new(&f->t, &o);
}

/* A fake transport that answers with on_send, and an engine of these settings on it. */
static struct ibs_engine *rig(struct fake *f, void (*on_send)(struct fake *, const struct ibs_mad_req *, const uint8_t *),
			      void *ctx, unsigned window, unsigned timeout, unsigned retries, unsigned deadline)
{
	fake_init(f, on_send, ctx);
	return mk(f, window, timeout, retries, deadline);
}

static void unrig(struct fake *f, struct ibs_engine *e)
{
	ibs_engine_free(e);
	fake_close(&f->t);
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
	e = rig(&f, reverse_delays, NULL, 8, 500, 2, 0);
	submit_n(e, 100, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(t.mods[i], 1);
	/* The window is never exceeded. */
	assert_true(f.max_inflight_seen <= 8);
	assert_true(f.max_inflight_seen >= 2);
	unrig(&f, e);
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
	e = rig(&f, duplicate_answers, NULL, 4, 200, 0, 0);
	submit_n(e, 10, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 10);
	assert_int_equal(t.calls, 10);
	assert_true(ibs_engine_stats(e)->unexpected >= 1);
	unrig(&f, e);
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
	e = rig(&f, lossy, NULL, 16, 30, 2, 0);
	submit_n(e, 10, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	/* 5 never answered: 3 attempts each, then timeout. Mod 1 always answers too late. */
	assert_int_equal(t.timeout, 6);
	assert_int_equal(t.ok, 4);
	assert_int_equal(t.attempts_max, 3);
	assert_int_equal(ibs_engine_stats(e)->retries, 12);
	unrig(&f, e);
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
	e = rig(&f, bad_status, NULL, 4, 100, 1, 0);
	submit_n(e, 8, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.status, 1);
	assert_int_equal(t.last_status, 0x1c);
	assert_int_equal(t.ok, 7);
	unrig(&f, e);
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
	e = rig(&f, undeliverable, NULL, 4, 10000, 2, 0);
	submit_n(e, 3, &t);
	/* Status 110 comes back at once: no waiting for the 10 s deadline. */
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.timeout, 3);
	assert_int_equal(t.attempts_max, 3);
	assert_true(ibs_engine_elapsed_ms(e) < 5000);
	unrig(&f, e);
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
	e = rig(&f, wrong_attr, NULL, 4, 100, 0, 0);
	submit_n(e, 2, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.malformed, 2);
	unrig(&f, e);
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
	e = rig(&f, silent, NULL, 2, 1000, 2, 150);
	/* Each MAD could take 3 x 1 s; the run must end at 150 ms all the same. */
	submit_n(e, 20, &t);
	assert_int_equal(ibs_engine_run(e), IBS_E_DEADLINE);
	assert_true(ibs_engine_elapsed_ms(e) < 1000);
	assert_int_equal(t.aborted, 20);
	assert_int_equal(t.calls, 20);
	/* Later runs abort at once. */
	submit_n(e, 1, &t);
	assert_int_equal(ibs_engine_run(e), IBS_E_DEADLINE);
	assert_int_equal(t.aborted, 21);
	unrig(&f, e);
}

static void test_transport_failure(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	e = rig(&f, silent, NULL, 4, 1000, 2, 0);
	f.dead = true;
	submit_n(e, 5, &t);
	assert_int_equal(ibs_engine_run(e), IBS_E_TRANSPORT);
	assert_int_equal(t.aborted, 5);
	unrig(&f, e);
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

static void test_send_refused(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	e = rig(&f, immediate, NULL, 4, 200, 2, 0);
	f.refuse = refuse_mod3;
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
	unrig(&f, e);
}

/* A send that fails because the device is gone ends the run: every request completes, aborted. */
static void test_send_device_gone(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	e = rig(&f, immediate, NULL, 4, 200, 2, 0);
	f.send_dead = true;
	submit_n(e, 10, &t);
	assert_int_equal(ibs_engine_run(e), IBS_E_TRANSPORT);
	assert_int_equal(t.calls, 10);
	assert_int_equal(t.aborted, 10);
	assert_int_equal(t.send_failed, 0);
	unrig(&f, e);
}

static void test_callbacks_submit(void **state)
{
	struct fake f;
	struct chain c = { NULL, 50, 0 };
	struct ibs_addr a;
	struct ibs_mad_req req;

	(void)state;
	c.e = rig(&f, immediate, NULL, 4, 100, 0, 0);
	ibs_addr_dr(&a, NULL, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	ibs_engine_submit(c.e, &req, chain_cb, &c);
	assert_int_equal(ibs_engine_run(c.e), IBS_OK);
	assert_int_equal(c.done, 51);
	unrig(&f, c.e);
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
	e = rig(&f, refuse_but_7, &s, 4, 1000, 1, 0);
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
	unrig(&f, e);
}

static void test_backoff_between_rounds(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct sends s = { 0 };
	struct ibs_engine_opts o = { .window = 4, .timeout_ms = 1000, .retries = 2, .backoff_us = 40000 };
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
	unrig(&f, e);
}

static void test_no_backoff_after_timeout(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine_opts o = { .window = 4, .timeout_ms = 30, .retries = 2, .backoff_us = 5000000 };
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
	unrig(&f, e);
}

/* Answered after 1 ms, except modifier 999: never (a MAD lost on the fabric). */
static void lose_999(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct sends *s = f->ctx;

	if (s && s->n < 64 && req->attr_mod == 999) {
		s->mod[s->n] = (uint16_t)req->attr_mod;
		s->t[s->n++] = fake_now();
	}
	if (req->attr_mod != 999)
		fake_answer(f, mad, 0, NULL, 1);
}

/* 64 requests answered in about 1 ms, then one that is lost: the engine (not freed) and the lost one's sends. */
static struct ibs_engine *lose_one(struct fake *f, const struct ibs_engine_opts *o, struct sends *s, struct tally *t)
{
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;

	fake_init(f, lose_999, s);
	e = ibs_engine_new(&f->t, o);
	/* Before any answer: the cap (--timeout). */
	assert_int_equal(ibs_engine_timeout_ms(e), o->timeout_ms);
	submit_n(e, 64, t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	ibs_addr_dr(&a, NULL, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_PORT_INFO, 999);
	ibs_engine_submit(e, &req, cb, t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t->timeout, 1);
	return e;
}

static void test_adaptive_timeout(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct sends s = { 0 };
	struct ibs_engine_opts o = { .window = 8, .timeout_ms = 5000, .retries = 2 };
	struct ibs_engine *e;
	unsigned to;

	(void)state;
	e = lose_one(&f, &o, &s, &t);
	/* Answers in about 1 ms: 4 x their 99th percentile is below the floor (on a busy machine, near it). */
	to = ibs_engine_timeout_ms(e);
	assert_true(to >= IBS_ENGINE_TIMEOUT_FLOOR_MS && to <= 200);
	assert_int_equal(s.n, 3);
	/* The lost one waited the adaptive timeout, then twice that (doubled per round): not 5 s each. */
	assert_true(s.t[1] - s.t[0] >= to * 1000000ull && s.t[1] - s.t[0] < 2 * to * 1000000ull);
	assert_true(s.t[2] - s.t[1] >= 2 * to * 1000000ull && s.t[2] - s.t[1] < 4 * to * 1000000ull);
	assert_true(ibs_engine_elapsed_ms(e) < 2500);
	unrig(&f, e);
}

static void test_fixed_timeout(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct sends s = { 0 };
	struct ibs_engine_opts o = { .window = 8, .timeout_ms = 120, .retries = 1, .fixed_timeout = true };
	struct ibs_engine *e;

	(void)state;
	e = lose_one(&f, &o, &s, &t);
	/* --fixed-timeout: every attempt waits the whole 120 ms. */
	assert_int_equal(ibs_engine_timeout_ms(e), 120);
	assert_int_equal(s.n, 2);
	assert_true(s.t[1] - s.t[0] >= 120000000ull);
	unrig(&f, e);
}

/* Busy (status 1) the first time each request is seen, answered after that. */
static void busy_once(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct sends *s = f->ctx;
	unsigned i, seen = 0;

	for (i = 0; i < s->n; i++)
		seen += s->mod[i] == req->attr_mod;
	if (s->n < 64) {
		s->hop[s->n] = req->addr.hops ? req->addr.path[1] : 0;
		s->mod[s->n] = (uint16_t)req->attr_mod;
		s->t[s->n++] = fake_now();
	}
	fake_answer(f, mad, seen ? 0 : 1, NULL, 0);
}

static void test_busy_waits(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct sends s = { 0 };
	struct ibs_engine_opts o = { .window = 4, .timeout_ms = 1000, .retries = 2 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint8_t p = 10;

	(void)state;
	fake_init(&f, busy_once, &s);
	e = ibs_engine_new(&f.t, &o);
	ibs_engine_set_paths(e, three_ports);
	ibs_addr_dr(&a, &p, 1);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	ibs_engine_submit_paths(e, &req, cb, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 1);
	assert_int_equal(s.n, 2);
	/* Busy: wait before resending (no backoff configured), along the same path. */
	assert_true(s.t[1] - s.t[0] >= (uint64_t)IBS_ENGINE_BUSY_WAIT_US * 1000ull);
	assert_int_equal(s.hop[1], 10);
	assert_int_equal(ibs_engine_stats(e)->busy, 1);
	unrig(&f, e);
}

/*
 * Per-node cap: request k (the modifier) is served by node 0 (every
 * request: the leaf next to us), and node 1 + k % 4; the fake counts what
 * each node has in flight, from send to the callback.
 */
struct capped {
	unsigned load[8], max[8];
};

static struct capped cap_state;

static unsigned cap_route(void *ctx, const struct ibs_addr *a, uint32_t *keys, unsigned max)
{
	(void)ctx;
	(void)max;
	keys[0] = 0;
	keys[1] = 1 + a->path[1] % 4;
	return 2;
}

static void cap_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	unsigned k[2] = { 0, 1 + req->addr.path[1] % 4 }, i;

	for (i = 0; i < 2; i++)
		if (++cap_state.load[k[i]] > cap_state.max[k[i]])
			cap_state.max[k[i]] = cap_state.load[k[i]];
	fake_answer(f, mad, 0, NULL, 2);
}

static void cap_cb(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	cap_state.load[0]--;
	cap_state.load[1 + req->addr.path[1] % 4]--;
	cb(ctx, req, r);
}

/* 40 requests through node 0 with a window of 32 and this cap: the engine, run (not freed). */
static struct ibs_engine *run_capped(struct fake *f, unsigned cap, struct tally *t)
{
	struct ibs_engine_opts o = { .window = 32, .timeout_ms = 1000, .retries = 2, .max_per_node = cap };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint8_t p;

	memset(&cap_state, 0, sizeof(cap_state));
	fake_init(f, cap_send, NULL);
	e = ibs_engine_new(&f->t, &o);
	ibs_engine_set_route(e, cap_route);
	for (p = 1; p <= 40; p++) {
		ibs_addr_dr(&a, &p, 1);
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, p);
		ibs_engine_submit(e, &req, cap_cb, t);
	}
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	return e;
}

static void test_cap_per_node(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;

	(void)state;
	e = run_capped(&f, 3, &t);
	assert_int_equal(t.ok, 40);
	/* Node 0 serves every request: never more than 3 at once, though the window is 32. */
	assert_int_equal(cap_state.max[0], 3);
	assert_true(cap_state.max[1] <= 3 && cap_state.max[4] <= 3);
	assert_int_equal(ibs_engine_stats(e)->max_at_node, 3);
	assert_true(ibs_engine_stats(e)->capped > 0);
	unrig(&f, e);
	/* Without a cap the window is the limit. */
	e = run_capped(&f, 0, &t);
	assert_int_equal(cap_state.max[0], 32);
	unrig(&f, e);
}

/* LID-routed SMPs are lost, directed-route ones answered: of fake_paths_lid_then_dr's paths, the second works. */
static void lid_refused(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct sends *s = f->ctx;

	if (s->n < 64) {
		s->hop[s->n] = (uint8_t)req->mgmt_class;
		s->mod[s->n] = req->addr.lid;
		s->t[s->n++] = fake_now();
	}
	if (req->addr.lid)
		fake_push(f, mad, IBS_MAD_SIZE, 110, 0);
	else
		fake_answer(f, mad, 0, NULL, 0);
}

static void test_lid_falls_back_to_dr(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct sends s = { 0 };
	struct ibs_engine_opts o = { .window = 4, .timeout_ms = 1000, .retries = 2 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;

	(void)state;
	fake_init(&f, lid_refused, &s);
	e = ibs_engine_new(&f.t, &o);
	ibs_engine_set_paths(e, fake_paths_lid_then_dr);
	ibs_addr_lid(&a, 7, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_NODE_DESC, 0);
	ibs_engine_submit_paths(e, &req, cb, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 1);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.hop[0], IBS_CLASS_SMI);
	assert_int_equal(s.mod[0], 7);
	assert_int_equal(s.hop[1], IBS_CLASS_SMI_DR);
	unrig(&f, e);
}

/* SMPs answered at once; PMA requests (class 0x04) after 120 ms, as a slow management processor or busy PMA might. */
static void slow_pma(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	fake_answer(f, mad, 0, NULL, req->mgmt_class == IBS_CLASS_PMA ? 120 : 0);
}

/*
 * Each kind of agent has its own round-trip times: an SMA answers SMPs in
 * microseconds (in the simulator and in switch firmware alike), while the SA
 * is a daemon on the SM's host and a PMA may take its time. A timeout
 * learnt from 64 quick SMPs (the 50 ms floor) must not cut off the first
 * PMA read, which waits the cap until its own answers have come.
 */
static void test_timeouts_per_class(void **state)
{
	struct fake f;
	struct tally t = { 0 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint8_t data[64] = { 0 };

	(void)state;
	e = rig(&f, slow_pma, NULL, 8, 1000, 0, 0);
	submit_n(e, 64, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 64);
	assert_true(ibs_engine_timeout_ms(e) < 500); /* the SMPs' own, adaptive */
	ibs_addr_lid(&a, 5, 1);
	ibs_req_get(&req, &a, IBS_CLASS_PMA, IBS_ATTR_PORT_COUNTERS, 0);
	req.data = data;
	req.data_len = sizeof(data);
	ibs_engine_submit(e, &req, cb, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.timeout, 0);
	assert_int_equal(t.ok, 65);
	assert_int_equal(t.attempts_max, 1);
	assert_true(ibs_engine_timeout_ms(e) < 500); /* one slow PMA answer leaves the SMPs' timeout alone */
	unrig(&f, e);
}

/* SMAs answer at once; the SM answers SMInfo 300 ms late, and drops the first one asked when drop_first. */
struct slow_sm {
	unsigned sminfo_sent;
	bool drop_first;
};

static void slow_sm_on_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct slow_sm *s = f->ctx;

	if (req->attr_id != IBS_ATTR_SM_INFO) {
		fake_answer(f, mad, 0, NULL, 0);
		return;
	}
	if (s->sminfo_sent++ == 0 && s->drop_first)
		return;
	fake_answer(f, mad, 0, NULL, 300);
}

/*
 * SMInfo is answered by the SM process (sminfo waits 1 s, 4 times), not by
 * an SMA's firmware: once the SMAs' answers have brought the adaptive
 * timeout down to its 50 ms floor, a busy SM answering in 300 ms is still
 * heard at the first attempt, and one SMInfo lost is asked again even with
 * no retries.
 */
static void test_sminfo_gets_sm_timing(void **state)
{
	struct slow_sm s = { 0, false };
	struct tally t = { 0 }, t2 = { 0 };
	struct fake f;
	struct ibs_engine *e = rig(&f, slow_sm_on_send, &s, 8, 500, 0, 20000);
	struct ibs_mad_req req;
	struct ibs_addr a;

	(void)state;
	submit_n(e, 64, &t);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t.ok, 64);
	assert_true(ibs_engine_timeout_ms(e) < 300);
	ibs_addr_lid(&a, 1, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_SM_INFO, 0);
	ibs_engine_submit(e, &req, cb, &t2);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t2.ok, 1);
	assert_int_equal(t2.attempts_max, 1);
	unrig(&f, e);

	s.sminfo_sent = 0;
	s.drop_first = true;
	memset(&t2, 0, sizeof(t2));
	e = rig(&f, slow_sm_on_send, &s, 8, 500, 0, 20000);
	ibs_engine_submit(e, &req, cb, &t2);
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(t2.ok, 1);
	assert_int_equal(t2.attempts_max, 2);
	unrig(&f, e);
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
		cmocka_unit_test(test_adaptive_timeout),
		cmocka_unit_test(test_fixed_timeout),
		cmocka_unit_test(test_timeouts_per_class),
		cmocka_unit_test(test_busy_waits),
		cmocka_unit_test(test_cap_per_node),
		cmocka_unit_test(test_lid_falls_back_to_dr),
		cmocka_unit_test(test_sminfo_gets_sm_timing),
	};
	return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
