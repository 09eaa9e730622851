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
 * condition. The transport is polled with
 * a timeout computed from the nearest of those times and the global
 * deadline, never longer.
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

struct pend {
	struct ibs_mad_req req;
	uint8_t *data; /* copy of req.data */
	ibs_mad_cb cb;
	void *ctx;
	unsigned attempts;
	int cause;           /* why the kernel refused to send it (IBS_MAD_SEND_FAILED) */
	uint32_t tid;
	int slot;
	bool paths;          /* other paths may be asked of e->paths */
	uint8_t path_i;      /* the path of the current attempt */
	uint8_t round;       /* rounds over the paths before the current one (retries are at most 100) */
	uint64_t deadline; /* on the wire: end of this attempt; backing off: when to resend */
	struct pend *next, *prev;
};

struct plist {
	struct pend *head, *tail;
	size_t n;
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
	void (*progress)(void *, const struct ibs_engine_stats *);
	void *progress_ctx;
	uint64_t last_progress;
	unsigned send_failures_said; /* send failures logged as warnings (a few, then with -v) */
};

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

static void release(struct ibs_engine *e, struct pend *p)
{
	free(p->data);
	p->data = NULL;
	p->next = e->freelist;
	e->freelist = p;
}

/* Take p off the wire (if there) and report its outcome (a send failure's cause is p->cause). */
static void complete(struct ibs_engine *e, struct pend *p, enum ibs_outcome oc, uint16_t status,
		     const uint8_t *mad, size_t len)
{
	struct ibs_mad_result r;

	if (p->slot >= 0) {
		e->slots[p->slot] = NULL;
		p->slot = -1;
		pl_del(&e->wire, p);
	}
	memset(&r, 0, sizeof(r));
	r.outcome = oc;
	r.status = status;
	r.mad = mad;
	r.len = len;
	r.attempts = p->attempts;
	r.cause = oc == IBS_MAD_SEND_FAILED ? p->cause : 0;
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
	case IBS_MAD_SEND_FAILED:
		e->st.send_failed++;
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

	if (e->t->ops->expire && oc == IBS_MAD_TIMEOUT && now >= p->deadline)
		e->t->ops->expire(e->t, &p->req, p->tid);
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
	e->slots[p->slot] = NULL;
	p->slot = -1;
	pl_del(&e->wire, p);
	e->st.retries++;
	if (p->path_i == 0 && e->o.backoff_us && p->deadline > now + timeout_ns / 2) {
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

/* Say why the kernel refused a request: the first few as warnings, the rest with -v. */
static void send_refused(struct ibs_engine *e, const struct pend *p)
{
	char ab[256];
	bool loud = e->send_failures_said < 3;

	ibs_addr_str(&p->req.addr, ab, sizeof(ab));
	(loud ? log_warn : log_debug)("cannot send %s %s %s to %s: %s%s", ibs_class_name(p->req.mgmt_class),
				      ibs_method_name(p->req.method), ibs_attr_name(p->req.mgmt_class, p->req.attr_id),
				      ab, p->cause ? strerror(p->cause) : "refused by the transport",
				      e->send_failures_said == 2 ? " (further send failures are shown with -v)" : "");
	e->send_failures_said += loud;
}

static void send_one(struct ibs_engine *e, struct pend *p, uint64_t now)
{
	uint8_t mad[IBS_MAD_SIZE];
	int slot = free_slot(e);
	enum ibs_err rc;

	pl_del(&e->queue, p);
	p->attempts++;
	p->slot = slot;
	e->seq++;
	p->tid = ((e->seq & (0xffffffffu >> SLOT_BITS)) << SLOT_BITS) | (uint32_t)slot;
	if (p->tid == 0)
		p->tid = (1u << SLOT_BITS) | (uint32_t)slot;
	e->slots[slot] = p;
	p->deadline = now + (uint64_t)e->o.timeout_ms * 1000000ull;
	pl_push(&e->wire, p);
	rc = ibs_mad_encode(&p->req, p->tid, mad);
	if (rc == IBS_OK)
		rc = ibs_transport_send(e->t, &p->req, mad, &p->cause);
	if (rc == IBS_OK) {
		e->st.sent++;
		return;
	}
	/* A request we cannot even encode or send will not improve with retries. */
	log_debug("send failed: %s", ibs_strerror(rc));
	switch (rc) {
	case IBS_E_TRANSPORT:
		e->failed = IBS_E_TRANSPORT; /* the device is gone: stop the run */
		complete(e, p, IBS_MAD_ABORTED, 0, NULL, 0);
		break;
	case IBS_E_SEND:
		/* This request only (EINVAL, ENOMEM, ...): the others still go. */
		send_refused(e, p);
		complete(e, p, IBS_MAD_SEND_FAILED, 0, NULL, 0);
		break;
	default:
		complete(e, p, rc == IBS_E_INVAL ? IBS_MAD_MALFORMED : IBS_MAD_TIMEOUT, 0, NULL, 0);
		break;
	}
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
	if (pkt->status) {
		/* The kernel (or the simulator) gave up on this attempt. */
		retry_or_fail(e, p, IBS_MAD_TIMEOUT, 0, ibs_mono_ns());
		return;
	}
	/* A redirect may come back as the ClassPortInfo it carries, whatever was asked. */
	if (!(h.method & 0x80) || h.mgmt_class != p->req.mgmt_class ||
	    (h.attr_id != p->req.attr_id && !(ibs_mad_status(&h) & IBS_MAD_STATUS_REDIRECT))) {
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
		while (e->queue.head && e->wire.n < e->o.window && !e->failed)
			send_one(e, e->queue.head, now);
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
	free(e);
}
