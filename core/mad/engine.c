/*
 * Asynchronous MAD engine. Requests wait in a FIFO; up to `window` of them are
 * in flight, each in a slot whose index is the low bits of its TID, so a
 * response is matched in O(1). In-flight requests sit on a list in send
 * order: with one per-attempt timeout, the head always has the nearest
 * deadline. A request with other paths tries the next one at once when an
 * attempt fails. Once every path has failed in a round, and the last failure
 * came fast (an error status back at once, as the simulator gives for a
 * dropped MAD, or a busy status), the next round waits a backoff that doubles
 * per round: retries that burn instantly would all meet the same transient
 * condition. A busy answer waits (on the same path: the target is busy,
 * not the way to it). The transport is polled with
 * a timeout computed from the nearest of those times and the global
 * deadline, never longer.
 *
 * Per-node cap: the route function names the nodes an attempt occupies;
 * each node counts its requests in flight. A request that would take a node
 * past the cap waits on that node's list, and goes out again when the node
 * has room (woken nodes are served before the queue: theirs are older).
 *
 * Timeouts: the round-trip times of answers go into a histogram with four
 * buckets per octave; an attempt waits IBS_ENGINE_RTT_MULT times its 99th
 * percentile (at least the floor), doubled per round, capped by timeout_ms.
 */
#include "engine.h"
#include "../base/clock.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_BITS 10 /* IBS_ENGINE_MAX_WINDOW == 1 << SLOT_BITS */
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define RTT_BUCKETS 128 /* four per octave from 1 us: up to 2^32 us */

struct pend {
	struct ibs_mad_req req;
	uint8_t *data; /* copy of req.data */
	ibs_mad_cb cb;
	void *ctx;
	unsigned attempts;
	uint32_t tid;
	int slot;
	bool paths;          /* other paths may be asked of e->paths */
	uint8_t path_i;      /* the path of the current attempt */
	uint8_t round;       /* rounds over the paths before the current one (retries are at most 100) */
	uint64_t deadline; /* on the wire: end of this attempt; backing off: when to resend */
	uint64_t sent_at;  /* on the wire: when this attempt went out */
	struct pend *next, *prev;
};

struct plist {
	struct pend *head, *tail;
	size_t n;
};

/* A node's requests in flight, and those waiting for it to have room. */
struct nodeload {
	unsigned load;
	bool woken; /* on the woken list: it has room and waiters */
	struct plist waiting;
};

struct ibs_engine {
	struct ibs_transport *t;
	struct ibs_engine_opts o;
	uint64_t start, deadline; /* ns, CLOCK_MONOTONIC; deadline 0: none */
	struct plist queue;       /* not yet sent (or waiting to be resent) */
	struct plist wire;        /* in flight, in send order */
	struct plist later;       /* backing off before a retry, by resend time */
	struct pend **slots;
	uint32_t seq;
	enum ibs_err failed;      /* sticky abort reason */
	struct ibs_engine_stats st;
	struct pend *freelist;
	ibs_path_fn paths;
	ibs_route_fn route;
	struct nodeload *nodes;   /* by route key */
	size_t n_nodes, cap_nodes;
	uint32_t *route_keys;     /* IBS_ENGINE_MAX_ROUTE per slot: the nodes its attempt counts at */
	uint8_t *route_n;         /* per slot: how many */
	uint32_t *woken;          /* keys with room and waiters */
	size_t n_woken, cap_woken;
	size_t n_waiting;
	uint64_t rtt_hist[RTT_BUCKETS];
	uint64_t rtt_n;
	unsigned timeout_now_ms;  /* adaptive: for a first attempt */
	void (*progress)(void *, const struct ibs_engine_stats *);
	void *progress_ctx;
	uint64_t last_progress;
};

const char *ibs_outcome_str(enum ibs_outcome o)
{
	switch (o) {
	case IBS_MAD_OK:
		return "ok";
	case IBS_MAD_STATUS:
		return "bad status";
	case IBS_MAD_TIMEOUT:
		return "timeout";
	case IBS_MAD_MALFORMED:
		return "malformed response";
	case IBS_MAD_ABORTED:
		return "aborted";
	}
	return "unknown";
}

/* Put p after q (at the front when q is NULL). */
static void pl_insert_after(struct plist *l, struct pend *q, struct pend *p)
{
	p->prev = q;
	p->next = q ? q->next : l->head;
	if (p->next)
		p->next->prev = p;
	else
		l->tail = p;
	if (q)
		q->next = p;
	else
		l->head = p;
	l->n++;
}

static void pl_push(struct plist *l, struct pend *p)
{
	pl_insert_after(l, l->tail, p);
}

static void pl_push_front(struct plist *l, struct pend *p)
{
	pl_insert_after(l, NULL, p);
}

static void pl_del(struct plist *l, struct pend *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		l->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		l->tail = p->prev;
	p->next = p->prev = NULL;
	l->n--;
}

struct ibs_engine *ibs_engine_new(struct ibs_transport *t, const struct ibs_engine_opts *o)
{
	struct ibs_engine *e = xcalloc(1, sizeof(*e));

	e->t = t;
	e->o = *o;
	if (e->o.window < 1)
		e->o.window = 1;
	if (e->o.window > IBS_ENGINE_MAX_WINDOW)
		e->o.window = IBS_ENGINE_MAX_WINDOW;
	if (e->o.timeout_ms < 1)
		e->o.timeout_ms = 1;
	e->slots = xcalloc(e->o.window, sizeof(*e->slots));
	e->route_keys = xcalloc((size_t)e->o.window * IBS_ENGINE_MAX_ROUTE, sizeof(*e->route_keys));
	e->route_n = xcalloc(e->o.window, sizeof(*e->route_n));
	e->timeout_now_ms = e->o.timeout_ms;
	e->st.timeout_now_ms = e->timeout_now_ms;
	e->start = ibs_mono_ns();
	if (o->deadline_ms)
		e->deadline = e->start + (uint64_t)o->deadline_ms * 1000000ull;
	/* Start TIDs away from 0 so that a zeroed MAD never matches. */
	e->seq = 1;
	return e;
}

void ibs_engine_set_progress(struct ibs_engine *e, void (*fn)(void *, const struct ibs_engine_stats *),
			     void *ctx)
{
	e->progress = fn;
	e->progress_ctx = ctx;
}

const struct ibs_engine_stats *ibs_engine_stats(const struct ibs_engine *e)
{
	return &e->st;
}

uint64_t ibs_engine_elapsed_ms(const struct ibs_engine *e)
{
	return (ibs_mono_ns() - e->start) / 1000000ull;
}

uint64_t ibs_engine_remaining_ms(const struct ibs_engine *e)
{
	uint64_t now = ibs_mono_ns();

	if (!e->deadline)
		return UINT64_MAX;
	return e->deadline > now ? (e->deadline - now) / 1000000ull : 0;
}

void ibs_engine_set_paths(struct ibs_engine *e, ibs_path_fn path)
{
	e->paths = path;
}

void ibs_engine_set_route(struct ibs_engine *e, ibs_route_fn route)
{
	e->route = route;
}

unsigned ibs_engine_timeout_ms(const struct ibs_engine *e)
{
	return e->timeout_now_ms;
}

/* Bucket of a round-trip time: four per octave of microseconds. */
static unsigned rtt_bucket(uint64_t us)
{
	unsigned b = 0;

	if (!us)
		return 0;
	while (us >> (b / 4 + 1) && b + 4 < RTT_BUCKETS)
		b += 4;
	/* Quarter octaves: compare against 2^(k + j/4) ~ (1, 1.19, 1.41, 1.68) * 2^k. */
	{
		uint64_t base = 1ull << (b / 4), q = us * 100 / base;
		b += q >= 168 ? 3 : q >= 141 ? 2 : q >= 119 ? 1 : 0;
	}
	return b < RTT_BUCKETS ? b : RTT_BUCKETS - 1;
}

/* The upper end of bucket b, in microseconds. */
static uint64_t rtt_bucket_top(unsigned b)
{
	static const unsigned q[4] = { 119, 141, 168, 200 };

	return ((1ull << (b / 4)) * q[b % 4] + 99) / 100;
}

/* A round-trip time seen: the adaptive timeout follows the 99th percentile. */
static void rtt_add(struct ibs_engine *e, uint64_t ns)
{
	uint64_t want, seen = 0, us;
	unsigned b;

	e->rtt_hist[rtt_bucket(ns / 1000)]++;
	e->rtt_n++;
	if (e->o.fixed_timeout || e->rtt_n < IBS_ENGINE_RTT_MIN_SAMPLES || (e->rtt_n & 15))
		return;
	want = e->rtt_n - e->rtt_n / 100;
	for (b = 0; b < RTT_BUCKETS; b++) {
		seen += e->rtt_hist[b];
		if (seen >= want)
			break;
	}
	us = rtt_bucket_top(b < RTT_BUCKETS ? b : RTT_BUCKETS - 1) * IBS_ENGINE_RTT_MULT;
	if (us < IBS_ENGINE_TIMEOUT_FLOOR_MS * 1000ull)
		us = IBS_ENGINE_TIMEOUT_FLOOR_MS * 1000ull;
	if (us > e->o.timeout_ms * 1000ull)
		us = e->o.timeout_ms * 1000ull;
	e->timeout_now_ms = (unsigned)((us + 999) / 1000);
	e->st.timeout_now_ms = e->timeout_now_ms;
}

/* The timeout of p's next attempt, in ns: adaptive, doubled per round, capped. */
static uint64_t attempt_timeout_ns(const struct ibs_engine *e, const struct pend *p)
{
	uint64_t ms = e->o.fixed_timeout ? e->o.timeout_ms : (uint64_t)e->timeout_now_ms << (p->round > 16 ? 16 : p->round);

	if (ms > e->o.timeout_ms)
		ms = e->o.timeout_ms;
	return ms * 1000000ull;
}

static struct nodeload *nodeload(struct ibs_engine *e, uint32_t key)
{
	while (key >= e->n_nodes) {
		e->nodes = xgrow(e->nodes, &e->cap_nodes, e->n_nodes + 1, sizeof(*e->nodes));
		memset(&e->nodes[e->n_nodes++], 0, sizeof(*e->nodes));
	}
	return &e->nodes[key];
}

/* The attempt in slot s ended: its nodes have room again; waiters are woken. */
static void route_release(struct ibs_engine *e, int s)
{
	const uint32_t *k = &e->route_keys[(size_t)s * IBS_ENGINE_MAX_ROUTE];
	unsigned i;

	for (i = 0; i < e->route_n[s]; i++) {
		struct nodeload *nl = &e->nodes[k[i]];
		nl->load--;
		if (nl->waiting.head && !nl->woken) {
			nl->woken = true;
			e->woken = xgrow(e->woken, &e->cap_woken, e->n_woken + 1, sizeof(*e->woken));
			e->woken[e->n_woken++] = k[i];
		}
	}
	e->route_n[s] = 0;
}

static void submit(struct ibs_engine *e, const struct ibs_mad_req *req, bool paths, ibs_mad_cb cb, void *ctx)
{
	struct pend *p = e->freelist;

	if (p)
		e->freelist = p->next;
	else
		p = xmalloc(sizeof(*p));
	memset(p, 0, sizeof(*p));
	p->req = *req;
	if (req->data_len) {
		p->data = xmalloc(req->data_len);
		memcpy(p->data, req->data, req->data_len);
		p->req.data = p->data;
	} else {
		p->req.data = NULL;
	}
	p->cb = cb;
	p->ctx = ctx;
	p->paths = paths;
	p->slot = -1;
	pl_push(&e->queue, p);
	e->st.submitted++;
}

void ibs_engine_submit(struct ibs_engine *e, const struct ibs_mad_req *req, ibs_mad_cb cb, void *ctx)
{
	submit(e, req, false, cb, ctx);
}

void ibs_engine_submit_paths(struct ibs_engine *e, const struct ibs_mad_req *req, ibs_mad_cb cb, void *ctx)
{
	submit(e, req, true, cb, ctx);
}

/* p's attempt is over: off the wire, its slot and its nodes free. */
static void off_wire(struct ibs_engine *e, struct pend *p)
{
	route_release(e, p->slot);
	e->slots[p->slot] = NULL;
	p->slot = -1;
	pl_del(&e->wire, p);
}

static void release(struct ibs_engine *e, struct pend *p)
{
	free(p->data);
	p->data = NULL;
	p->next = e->freelist;
	e->freelist = p;
}

/* Take p off the wire (if there) and report its outcome. */
static void complete(struct ibs_engine *e, struct pend *p, enum ibs_outcome oc, uint16_t status,
		     const uint8_t *mad, size_t len)
{
	struct ibs_mad_result r;

	if (p->slot >= 0)
		off_wire(e, p);
	memset(&r, 0, sizeof(r));
	r.outcome = oc;
	r.status = status;
	r.mad = mad;
	r.len = len;
	r.attempts = p->attempts;
	switch (oc) {
	case IBS_MAD_TIMEOUT:
		e->st.timeouts++;
		break;
	case IBS_MAD_STATUS:
		e->st.bad_status++;
		break;
	case IBS_MAD_MALFORMED:
		e->st.malformed++;
		break;
	case IBS_MAD_ABORTED:
		e->st.aborted++;
		break;
	case IBS_MAD_OK:
		break;
	}
	e->st.completed++;
	p->cb(p->ctx, &p->req, &r);
	release(e, p);
}

/* Queue p to go out again at `when`, keeping e->later in time order. */
static void pl_insert_later(struct plist *l, struct pend *p, uint64_t when)
{
	struct pend *q = l->tail;

	p->deadline = when;
	while (q && q->deadline > when)
		q = q->prev;
	pl_insert_after(l, q, p);
}

/*
 * The current attempt of p failed in a way that deserves another try: along
 * the next path at once, or, after a round over all of them, along the first
 * again. `now` is when the failure was seen: a round whose last attempt
 * failed in less than half its timeout failed fast, and waits its backoff.
 */
static void retry_or_fail(struct ibs_engine *e, struct pend *p, enum ibs_outcome oc, uint16_t status, uint64_t now)
{
	uint64_t timeout_ns = (uint64_t)e->o.timeout_ms * 1000000ull;
	bool busy = oc == IBS_MAD_STATUS && (status & 0x1);

	if (e->t->ops->expire && oc == IBS_MAD_TIMEOUT && now >= p->deadline)
		e->t->ops->expire(e->t, &p->req, p->tid);
	if (busy) {
		/* The target is busy, not the way to it: the same path, after a wait. */
		if (p->round >= e->o.retries) {
			complete(e, p, oc, status, NULL, 0);
			return;
		}
		p->round++;
		off_wire(e, p);
		e->st.retries++;
		e->st.busy++;
		{
			uint64_t wait = (uint64_t)(e->o.backoff_us > IBS_ENGINE_BUSY_WAIT_US ? e->o.backoff_us
											     : IBS_ENGINE_BUSY_WAIT_US)
					* 1000ull << (p->round > 20 ? 20 : p->round - 1);
			pl_insert_later(&e->later, p, now + (wait < timeout_ns ? wait : timeout_ns));
		}
		return;
	}
	if (p->paths && e->paths && p->path_i < UINT8_MAX && e->paths(p->ctx, p->path_i + 1u, &p->req.addr)) {
		p->path_i++;
		e->st.other_paths++;
	} else if (p->round < e->o.retries) {
		p->round++;
		if (p->path_i)
			e->paths(p->ctx, 0, &p->req.addr);
		p->path_i = 0;
	} else {
		complete(e, p, oc, status, NULL, 0);
		return;
	}
	off_wire(e, p);
	e->st.retries++;
	if (p->path_i == 0 && e->o.backoff_us && p->deadline > now + (p->deadline - p->sent_at) / 2) {
		uint64_t wait = (uint64_t)e->o.backoff_us * 1000ull << (p->round > 20 ? 20 : p->round - 1);
		pl_insert_later(&e->later, p, now + (wait < timeout_ns ? wait : timeout_ns));
		e->st.backoffs++;
		return;
	}
	/* Retries go first: they are the oldest work. */
	pl_push_front(&e->queue, p);
}

static int free_slot(struct ibs_engine *e)
{
	/* Slots are reused in TID order; a linear probe from the sequence is short. */
	unsigned i;

	for (i = 0; i < e->o.window; i++) {
		unsigned s = (e->seq + i) % e->o.window;
		if (!e->slots[s])
			return (int)s;
	}
	return -1;
}

/*
 * Send p (off any list) into slot, counting it at the n nodes of keys: the
 * caller checked they have room.
 */
static void send_one(struct ibs_engine *e, struct pend *p, uint64_t now, const uint32_t *keys, unsigned n)
{
	uint8_t mad[IBS_MAD_SIZE];
	int slot = free_slot(e);
	enum ibs_err rc;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct nodeload *nl = &e->nodes[keys[i]];
		if (++nl->load > e->st.max_at_node)
			e->st.max_at_node = nl->load;
	}
	memcpy(&e->route_keys[(size_t)slot * IBS_ENGINE_MAX_ROUTE], keys, n * sizeof(*keys));
	e->route_n[slot] = (uint8_t)n;
	/* An SMP goes the way its address says: LID-routed or directed-route. */
	if (p->req.mgmt_class == IBS_CLASS_SMI || p->req.mgmt_class == IBS_CLASS_SMI_DR)
		p->req.mgmt_class = p->req.addr.lid ? IBS_CLASS_SMI : IBS_CLASS_SMI_DR;
	p->attempts++;
	p->slot = slot;
	e->seq++;
	p->tid = ((e->seq & (0xffffffffu >> SLOT_BITS)) << SLOT_BITS) | (uint32_t)slot;
	if (p->tid == 0)
		p->tid = (1u << SLOT_BITS) | (uint32_t)slot;
	e->slots[slot] = p;
	p->sent_at = now;
	p->deadline = now + attempt_timeout_ns(e, p);
	pl_push(&e->wire, p);
	rc = ibs_mad_encode(&p->req, p->tid, mad);
	if (rc == IBS_OK)
		rc = ibs_transport_send(e->t, &p->req, mad);
	if (rc == IBS_OK) {
		e->st.sent++;
		return;
	}
	/* A request we cannot even encode or send will not improve with retries. */
	log_debug("send failed: %s", ibs_strerror(rc));
	if (rc == IBS_E_TRANSPORT)
		e->failed = IBS_E_TRANSPORT; /* the device is gone: stop the run */
	complete(e, p, rc == IBS_E_INVAL ? IBS_MAD_MALFORMED : rc == IBS_E_TRANSPORT ? IBS_MAD_ABORTED : IBS_MAD_TIMEOUT, 0, NULL, 0);
}

static void handle_packet(struct ibs_engine *e, const struct ibs_packet *pkt)
{
	struct ibs_mad_hdr h;
	struct pend *p;
	uint32_t tid;
	unsigned slot;
	uint16_t st;

	e->st.received++;
	if (ibs_mad_decode_hdr(pkt->mad, pkt->len, &h) != IBS_OK) {
		e->st.unexpected++;
		log_debug("dropping a %zu-byte packet: too short for a MAD header", pkt->len);
		return;
	}
	tid = (uint32_t)(h.tid & 0xffffffffu);
	slot = tid & SLOT_MASK;
	if (slot >= e->o.window || !(p = e->slots[slot]) || p->tid != tid) {
		/* Late (after a retry), duplicated, or not ours. */
		e->st.unexpected++;
		log_trace("dropping a response with unknown TID 0x%08x", tid);
		return;
	}
	if (!pkt->status)
		rtt_add(e, ibs_mono_ns() - p->sent_at);
	if (pkt->status) {
		/* The kernel (or the simulator) gave up on this attempt. */
		retry_or_fail(e, p, IBS_MAD_TIMEOUT, 0, ibs_mono_ns());
		return;
	}
	if (!(h.method & 0x80) || h.mgmt_class != p->req.mgmt_class || h.attr_id != p->req.attr_id) {
		complete(e, p, IBS_MAD_MALFORMED, 0, pkt->mad, pkt->len);
		return;
	}
	st = ibs_mad_status(&h);
	if (st & 0x1) { /* busy: IBA 13.4.7 says try again */
		retry_or_fail(e, p, IBS_MAD_STATUS, st, ibs_mono_ns());
		return;
	}
	if (st) {
		complete(e, p, IBS_MAD_STATUS, st, pkt->mad, pkt->len);
		return;
	}
	complete(e, p, IBS_MAD_OK, 0, pkt->mad, pkt->len);
}

static void abort_all(struct ibs_engine *e)
{
	/* Callbacks may submit more; they are aborted too, until nothing is left. */
	size_t k;

	/* Waiters first: their nodes lose their load as the wire empties. */
	for (k = 0; k < e->n_nodes; k++)
		while (e->nodes[k].waiting.head) {
			struct pend *p = e->nodes[k].waiting.head;
			pl_del(&e->nodes[k].waiting, p);
			e->n_waiting--;
			pl_push(&e->queue, p);
		}
	e->n_woken = 0;
	while (e->wire.head || e->queue.head || e->later.head) {
		struct pend *p = e->wire.head ? e->wire.head : e->queue.head ? e->queue.head : e->later.head;
		if (p->slot < 0)
			pl_del(p == e->later.head ? &e->later : &e->queue, p);
		complete(e, p, IBS_MAD_ABORTED, 0, NULL, 0);
	}
}

/* Retries whose backoff is over go to the front of the queue, earliest first. */
static void requeue_due(struct ibs_engine *e, uint64_t now)
{
	struct pend *p, *last = NULL;

	for (p = e->later.head; p && p->deadline <= now; p = p->next)
		last = p;
	while (last) {
		p = last->prev;
		pl_del(&e->later, last);
		pl_push_front(&e->queue, last);
		last = p;
	}
}

/*
 * Send p (off any list) when every node on its way has room; else it waits
 * on the first node that has none. True when it went out.
 */
static bool try_send(struct ibs_engine *e, struct pend *p, uint64_t now)
{
	uint32_t keys[IBS_ENGINE_MAX_ROUTE];
	unsigned n = 0, i;

	if (e->o.max_per_node && (e->route || p->req.addr.lid)) {
		if (e->route)
			n = e->route(p->ctx, &p->req.addr, keys, IBS_ENGINE_MAX_ROUTE);
		else
			keys[n++] = p->req.addr.lid; /* only its destination serves it */
		for (i = 0; i < n; i++) {
			struct nodeload *nl = nodeload(e, keys[i]);
			if (nl->load >= e->o.max_per_node) {
				pl_push(&nl->waiting, p);
				e->n_waiting++;
				e->st.capped++;
				return false;
			}
		}
	}
	send_one(e, p, now, keys, n);
	return true;
}

/* Fill the window: first the waiters of nodes that have room again, then the queue. */
static void send_some(struct ibs_engine *e, uint64_t now)
{
	while (e->n_woken && e->wire.n < e->o.window && !e->failed) {
		uint32_t k = e->woken[e->n_woken - 1];
		struct nodeload *nl = &e->nodes[k];
		if (!nl->waiting.head || nl->load >= e->o.max_per_node) {
			nl->woken = false;
			e->n_woken--;
			continue;
		}
		{
			struct pend *p = nl->waiting.head;
			pl_del(&nl->waiting, p);
			e->n_waiting--;
			try_send(e, p, now);
		}
	}
	while (e->queue.head && e->wire.n < e->o.window && !e->failed) {
		struct pend *p = e->queue.head;
		pl_del(&e->queue, p);
		try_send(e, p, now);
	}
}

static void tick_progress(struct ibs_engine *e, uint64_t now)
{
	if (e->progress && now - e->last_progress >= 200000000ull) {
		e->last_progress = now;
		e->st.elapsed_ms = (now - e->start) / 1000000ull;
		e->progress(e->progress_ctx, &e->st);
	}
}

enum ibs_err ibs_engine_run(struct ibs_engine *e)
{
	struct ibs_packet pkt;

	for (;;) {
		uint64_t now = ibs_mono_ns(), wake;
		int ms, drained;
		enum ibs_err rc;

		if (e->failed) {
			abort_all(e);
			return e->failed;
		}
		if (e->deadline && now >= e->deadline) {
			log_debug("global deadline reached with %zu in flight, %zu queued", e->wire.n,
				  e->queue.n);
			e->failed = IBS_E_DEADLINE;
			continue;
		}
		/* Expire attempts whose deadline passed; the head is the oldest. */
		while (e->wire.head && e->wire.head->deadline <= now)
			retry_or_fail(e, e->wire.head, IBS_MAD_TIMEOUT, 0, now);
		requeue_due(e, now);
		send_some(e, now);
		if (e->failed)
			continue;
		if (!e->wire.head && !e->queue.head && !e->later.head)
			return IBS_OK;
		if (!e->wire.head && e->queue.head)
			continue;
		wake = e->wire.head ? e->wire.head->deadline : UINT64_MAX;
		if (e->later.head && e->later.head->deadline < wake)
			wake = e->later.head->deadline;
		if (e->deadline && e->deadline < wake)
			wake = e->deadline;
		ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		tick_progress(e, now);
		rc = ibs_transport_recv(e->t, &pkt, ms);
		for (drained = 0; rc == IBS_OK; drained++) {
			handle_packet(e, &pkt);
			if (drained >= 256 || !e->wire.head)
				break;
			rc = ibs_transport_recv(e->t, &pkt, 0);
		}
		if (rc != IBS_OK && rc != IBS_E_AGAIN) {
			e->failed = IBS_E_TRANSPORT;
			continue;
		}
	}
}

void ibs_engine_free(struct ibs_engine *e)
{
	struct pend *p, *n;

	if (!e)
		return;
	abort_all(e);
	for (p = e->freelist; p; p = n) {
		n = p->next;
		free(p);
	}
	free(e->slots);
	free(e->route_keys);
	free(e->route_n);
	free(e->nodes);
	free(e->woken);
	free(e);
}
