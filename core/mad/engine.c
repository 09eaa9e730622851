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
 * An attempt whose timeout passed stays matchable, and counted at its
 * nodes, until the cap has passed since it went out (engine_ghost.c): its
 * late answer completes the request. Each turn reads what has arrived
 * before it judges what timed out.
 *
 * Timeouts: the round-trip times of answers go into a histogram (rtt.h), one
 * per kind of agent (SMAs, the SA, the rest); an attempt waits what its
 * kind's says, doubled per round, capped by timeout_ms.
 */
#include "engine.h"
#include "engine_int.h"
#include "../base/clock.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ibs_engine *ibs_engine_new(struct ibs_transport *t, const struct ibs_engine_opts *o)
{
	struct ibs_engine *e = xcalloc(1, sizeof(*e));
	unsigned k;

	e->t = t;
	e->o = *o;
	if (e->o.window < 1)
		e->o.window = 1;
	if (e->o.window > IBS_ENGINE_MAX_WINDOW)
		e->o.window = IBS_ENGINE_MAX_WINDOW;
	if (e->o.timeout_ms < 1)
		e->o.timeout_ms = 1;
	/* Every TID a slot can carry: current attempts (at most window) and earlier ones still matchable. */
	e->n_slots = IBS_ENGINE_MAX_WINDOW;
	e->slots = xcalloc(e->n_slots, sizeof(*e->slots));
	e->ghosts = xcalloc(e->n_slots, sizeof(*e->ghosts));
	e->ghost_head = e->ghost_tail = -1;
	e->route_keys = xcalloc((size_t)e->n_slots * IBS_ENGINE_MAX_ROUTE, sizeof(*e->route_keys));
	e->route_n = xcalloc(e->n_slots, sizeof(*e->route_n));
	for (k = 0; k < ENG_RTT_KINDS; k++)
		ibs_rtt_init(&e->rtt[k], e->o.timeout_ms);
	e->st.timeout_now_ms = e->o.timeout_ms;
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
	return e->o.fixed_timeout ? e->o.timeout_ms : e->rtt[ENG_RTT_SMP].timeout_ms;
}

/* The round-trip times that answers to this class follow. */
struct ibs_rtt *eng_rtt_of(struct ibs_engine *e, uint8_t mgmt_class)
{
	if (mgmt_class == IBS_CLASS_SMI || mgmt_class == IBS_CLASS_SMI_DR)
		return &e->rtt[ENG_RTT_SMP];
	return &e->rtt[mgmt_class == IBS_CLASS_SA ? ENG_RTT_SA : ENG_RTT_GMP];
}

/*
 * SMInfo is answered by the SM process, not by an SMA's firmware: it gets
 * the SA's timing, as sminfo gives it (1 s, 4 attempts), not the SMAs'
 * adaptive one, so that a busy OpenSM is not "an SM that does not answer".
 */
bool eng_is_sminfo(const struct ibs_mad_req *r)
{
	return (r->mgmt_class == IBS_CLASS_SMI || r->mgmt_class == IBS_CLASS_SMI_DR) && r->attr_id == IBS_ATTR_SM_INFO;
}

/* The timeout of p's next attempt, in ns: adaptive (its class's), doubled per round, capped. */
static uint64_t attempt_timeout_ns(struct ibs_engine *e, const struct pend *p)
{
	uint64_t ms;

	if (eng_is_sminfo(&p->req))
		return (uint64_t)(e->o.timeout_ms > IBS_ENGINE_SM_TIMEOUT_MS ? e->o.timeout_ms
									 : IBS_ENGINE_SM_TIMEOUT_MS) * 1000000ull;
	ms = e->o.fixed_timeout ? e->o.timeout_ms
				: (uint64_t)eng_rtt_of(e, p->req.mgmt_class)->timeout_ms
						   << (p->round > 16 ? 16 : p->round);

	if (ms > e->o.timeout_ms)
		ms = e->o.timeout_ms;
	return ms * 1000000ull;
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
	p->id = ++e->next_id;
	p->slot = -1;
	eng_pl_push(&e->queue, p);
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
	eng_route_release(e, p->slot);
	e->slots[p->slot] = NULL;
	p->slot = -1;
	eng_pl_del(&e->wire, p);
}

static void release(struct ibs_engine *e, struct pend *p)
{
	free(p->data);
	p->data = NULL;
	p->id = 0; /* its ghosts no longer lead to it */
	p->next = e->freelist;
	e->freelist = p;
}

/* Take p off the wire (if there) and report its outcome (a send failure's cause is p->cause). */
void eng_complete(struct ibs_engine *e, struct pend *p, enum ibs_outcome oc, uint16_t status,
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

/*
 * The current attempt of p failed in a way that deserves another try: along
 * the next path at once, or, after a round over all of them, along the first
 * again. `now` is when the failure was seen: a round whose last attempt
 * failed in less than half its timeout failed fast, and waits its backoff.
 */
void eng_retry_or_fail(struct ibs_engine *e, struct pend *p, enum ibs_outcome oc, uint16_t status, uint64_t now,
		       bool lingers)
{
	uint64_t timeout_ns = (uint64_t)e->o.timeout_ms * 1000000ull;
	bool busy = oc == IBS_MAD_STATUS && (status & 0x1);

	/* Timed out here, not by the kernel: it may still be answered, and still be in service. */
	if (lingers && p->sent_at + timeout_ns > now) {
		eng_to_ghost(e, p);
	} else if (lingers) {
		if (e->t->ops->expire)
			e->t->ops->expire(e->t, &p->req, p->tid);
		off_wire(e, p);
	}
	if (busy) {
		/* The target is busy, not the way to it: the same path, after a wait. */
		if (p->round >= e->o.retries) {
			eng_complete(e, p, oc, status, NULL, 0);
			return;
		}
		p->round++;
		if (p->slot >= 0)
			off_wire(e, p);
		e->st.retries++;
		e->st.busy++;
		{
			uint64_t wait = (uint64_t)(e->o.backoff_us > IBS_ENGINE_BUSY_WAIT_US ? e->o.backoff_us
											     : IBS_ENGINE_BUSY_WAIT_US)
					* 1000ull << (p->round > 20 ? 20 : p->round - 1);
			eng_pl_insert_later(&e->later, p, now + (wait < timeout_ns ? wait : timeout_ns));
		}
		return;
	}
	if (eng_is_sminfo(&p->req)) {
		/* Its attempts over all paths together: 4 as sminfo's, or retries + 1 where that is more. */
		if (p->attempts >= IBS_ENGINE_SM_ATTEMPTS && p->attempts > e->o.retries) {
			eng_complete(e, p, oc, status, NULL, 0);
			return;
		}
		if (!(p->paths && e->paths && p->path_i < UINT8_MAX &&
		      e->paths(p->ctx, p->path_i + 1u, &p->req.addr))) {
			if (p->path_i)
				e->paths(p->ctx, 0, &p->req.addr);
			p->path_i = 0;
			p->round++;
		} else {
			p->path_i++;
			e->st.other_paths++;
		}
	} else if (p->paths && e->paths && p->path_i < UINT8_MAX && e->paths(p->ctx, p->path_i + 1u, &p->req.addr)) {
		p->path_i++;
		e->st.other_paths++;
	} else if (p->round < e->o.retries) {
		p->round++;
		if (p->path_i)
			e->paths(p->ctx, 0, &p->req.addr);
		p->path_i = 0;
	} else {
		eng_complete(e, p, oc, status, NULL, 0);
		return;
	}
	if (p->slot >= 0)
		off_wire(e, p);
	e->st.retries++;
	if (p->path_i == 0 && e->o.backoff_us && p->deadline > now + (p->deadline - p->sent_at) / 2) {
		uint64_t wait = (uint64_t)e->o.backoff_us * 1000ull << (p->round > 20 ? 20 : p->round - 1);
		eng_pl_insert_later(&e->later, p, now + (wait < timeout_ns ? wait : timeout_ns));
		e->st.backoffs++;
		return;
	}
	/* Retries go first: they are the oldest work. */
	eng_pl_push_front(&e->queue, p);
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

/*
 * Send p (off any list) into slot, counting it at the n nodes of keys: the
 * caller checked they have room.
 */
static void send_one(struct ibs_engine *e, struct pend *p, uint64_t now, const uint32_t *keys, unsigned n)
{
	uint8_t mad[IBS_MAD_SIZE];
	int slot = eng_free_slot(e);
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
	eng_pl_push(&e->wire, p);
	rc = ibs_mad_encode(&p->req, p->tid, e->o.mkey, mad);
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
		eng_complete(e, p, IBS_MAD_ABORTED, 0, NULL, 0);
		break;
	case IBS_E_SEND:
		/* This request only (EINVAL, ENOMEM, ...): the others still go. */
		send_refused(e, p);
		/* Refused on this path (a LID the kernel will not take): the request's next one, if any. */
		if (p->paths && e->paths && p->path_i < UINT8_MAX &&
		    e->paths(p->ctx, p->path_i + 1u, &p->req.addr)) {
			p->path_i++;
			e->st.other_paths++;
			e->st.retries++;
			off_wire(e, p);
			eng_pl_push_front(&e->queue, p);
			break;
		}
		eng_complete(e, p, IBS_MAD_SEND_FAILED, 0, NULL, 0);
		break;
	default:
		eng_complete(e, p, rc == IBS_E_INVAL ? IBS_MAD_MALFORMED : IBS_MAD_TIMEOUT, 0, NULL, 0);
		break;
	}
}

static void abort_all(struct ibs_engine *e)
{
	/* Callbacks may submit more; they are aborted too, until nothing is left. */
	size_t k;

	/* Waiters first: their nodes lose their load as the wire empties. */
	for (k = 0; k < e->n_nodes; k++)
		while (e->nodes[k].waiting.head) {
			struct pend *p = e->nodes[k].waiting.head;
			eng_pl_del(&e->nodes[k].waiting, p);
			e->n_waiting--;
			eng_pl_push(&e->queue, p);
		}
	e->n_woken = 0;
	while (e->wire.head || e->queue.head || e->later.head) {
		struct pend *p = e->wire.head ? e->wire.head : e->queue.head ? e->queue.head : e->later.head;
		if (p->slot < 0)
			eng_pl_del(p == e->later.head ? &e->later : &e->queue, p);
		eng_complete(e, p, IBS_MAD_ABORTED, 0, NULL, 0);
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
		eng_pl_del(&e->later, last);
		eng_pl_push_front(&e->queue, last);
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
			struct nodeload *nl = eng_nodeload(e, keys[i]);
			if (nl->load >= e->o.max_per_node) {
				eng_pl_push(&nl->waiting, p);
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
			eng_pl_del(&nl->waiting, p);
			e->n_waiting--;
			try_send(e, p, now);
		}
	}
	while (e->queue.head && e->wire.n < e->o.window && !e->failed) {
		struct pend *p = e->queue.head;
		eng_pl_del(&e->queue, p);
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

/* Handle what the transport has now (at most 256: the loop comes back for more). */
static enum ibs_err drain(struct ibs_engine *e)
{
	struct ibs_packet pkt;
	enum ibs_err rc = IBS_E_AGAIN;
	int n;

	for (n = 0; n < 256 && !e->failed; n++) {
		rc = ibs_transport_recv(e->t, &pkt, 0);
		if (rc != IBS_OK)
			break;
		eng_handle_packet(e, &pkt);
	}
	return rc;
}

enum ibs_err ibs_engine_run(struct ibs_engine *e)
{
	struct ibs_packet pkt;

	for (;;) {
		uint64_t now, wake;
		int ms;
		enum ibs_err rc;

		if (e->failed) {
			abort_all(e);
			return e->failed;
		}
		/*
		 * What had arrived by `now` is read before anything is judged
		 * timed out as of `now`: after a host stall the answers are there.
		 */
		now = ibs_mono_ns();
		rc = drain(e);
		if (rc != IBS_OK && rc != IBS_E_AGAIN) {
			e->failed = IBS_E_TRANSPORT;
			continue;
		}
		if (e->deadline && now >= e->deadline) {
			log_debug("global deadline reached with %zu in flight, %zu queued", e->wire.n,
				  e->queue.n);
			e->failed = IBS_E_DEADLINE;
			continue;
		}
		/* Expire attempts whose deadline passed; the head is the oldest. */
		eng_ghosts_expire(e, now);
		while (e->wire.head && e->wire.head->deadline <= now)
			eng_retry_or_fail(e, e->wire.head, IBS_MAD_TIMEOUT, 0, now, true);
		now = ibs_mono_ns();
		requeue_due(e, now);
		send_some(e, now);
		if (e->failed)
			continue;
		if (!e->wire.head && !e->queue.head && !e->later.head && !e->n_waiting)
			return IBS_OK;
		if (!e->wire.head && e->queue.head)
			continue;
		wake = e->wire.head ? e->wire.head->deadline : UINT64_MAX;
		if (e->later.head && e->later.head->deadline < wake)
			wake = e->later.head->deadline;
		/* Requests waiting for a node may wait for its earlier attempts to end. */
		if (e->n_waiting && e->ghost_head >= 0 && e->ghosts[e->ghost_head].end < wake)
			wake = e->ghosts[e->ghost_head].end;
		if (e->deadline && e->deadline < wake)
			wake = e->deadline;
		ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		tick_progress(e, now);
		rc = ibs_transport_recv(e->t, &pkt, ms);
		if (rc == IBS_OK)
			eng_handle_packet(e, &pkt);
		else if (rc != IBS_E_AGAIN)
			e->failed = IBS_E_TRANSPORT;
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
	free(e->ghosts);
	free(e->route_keys);
	free(e->route_n);
	free(e->nodes);
	free(e->woken);
	free(e);
}
