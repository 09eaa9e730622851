/*
 * Matching what comes back to what was asked (core/mad/engine.c): the
 * current attempt of a request by its TID's slot, or an earlier attempt
 * that is still matchable (engine_ghost.c), whose answer completes the
 * request as well as the current one's would.
 */
#include "engine.h"
#include "engine_int.h"
#include "../base/clock.h"
#include "../base/log.h"

static void rtt_sample(struct ibs_engine *e, const struct pend *p)
{
	struct ibs_rtt *rtt;
	unsigned to;

	if (eng_is_sminfo(&p->req))
		return; /* an SM's answer says nothing of the SMAs' times */
	rtt = eng_rtt_of(e, p->req.mgmt_class);
	to = ibs_rtt_add(rtt, ibs_mono_ns() - p->sent_at);
	if (rtt == &e->rtt[ENG_RTT_SMP])
		e->st.timeout_now_ms = to;
}

/* h answers p's request (a redirect may come back as the ClassPortInfo it carries, whatever was asked). */
static bool answers(const struct pend *p, const struct ibs_mad_hdr *h)
{
	return (h->method & 0x80) && h->mgmt_class == p->req.mgmt_class &&
	       (h->attr_id == p->req.attr_id || (ibs_mad_status(h) & IBS_MAD_STATUS_REDIRECT));
}

/*
 * An answer to an earlier attempt (ghost s): it completes the request if
 * that is still waiting and the answer is a good one or a final status; a
 * busy or malformed late answer leaves the current attempt to go on.
 */
static void handle_late(struct ibs_engine *e, const struct ibs_packet *pkt, const struct ibs_mad_hdr *h, int s)
{
	struct ghost *g = &e->ghosts[s];
	struct pend *p = g->p && g->p->id == g->id ? g->p : NULL;
	uint16_t st = ibs_mad_status(h);

	eng_ghost_end(e, s, false);
	if (pkt->status)
		return; /* the kernel gave up on it: the request's own attempts go on */
	if (!p || !answers(p, h) || (st & 0x1)) {
		e->st.unexpected++;
		log_trace("dropping a late response with TID 0x%08x", g->tid);
		return;
	}
	e->st.late++;
	eng_detach(e, p);
	eng_complete(e, p, st ? IBS_MAD_STATUS : IBS_MAD_OK, st, pkt->mad, pkt->len);
}

void eng_handle_packet(struct ibs_engine *e, const struct ibs_packet *pkt)
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
	if (slot < e->n_slots && e->ghosts[slot].live && e->ghosts[slot].tid == tid) {
		handle_late(e, pkt, &h, (int)slot);
		return;
	}
	if (slot >= e->n_slots || !(p = e->slots[slot]) || p->tid != tid) {
		/* Duplicated, after the cap, or not ours. */
		e->st.unexpected++;
		log_trace("dropping a response with unknown TID 0x%08x", tid);
		return;
	}
	if (!pkt->status)
		rtt_sample(e, p);
	if (pkt->status) {
		/* The kernel (or the simulator) gave up on this attempt. */
		eng_retry_or_fail(e, p, IBS_MAD_TIMEOUT, 0, ibs_mono_ns(), false);
		return;
	}
	if (!answers(p, &h)) {
		eng_complete(e, p, IBS_MAD_MALFORMED, 0, pkt->mad, pkt->len);
		return;
	}
	st = ibs_mad_status(&h);
	if (st & 0x1) { /* busy: IBA 13.4.7 says try again */
		eng_retry_or_fail(e, p, IBS_MAD_STATUS, st, ibs_mono_ns(), false);
		return;
	}
	if (st) {
		eng_complete(e, p, IBS_MAD_STATUS, st, pkt->mad, pkt->len);
		return;
	}
	eng_complete(e, p, IBS_MAD_OK, 0, pkt->mad, pkt->len);
}

