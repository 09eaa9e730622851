/*
 * Earlier attempts that may still be answered (core/mad/engine.c): an
 * attempt whose adaptive timeout passed stays matchable by its TID, and
 * keeps counting at the nodes on its way, until the kernel's own timeout
 * for it (the cap, timeout_ms) has passed. A slow SMA's answer is then used
 * rather than thrown away, and the per-node cap counts what a switch may
 * still be serving, not only what the engine is waiting for.
 */
#include "engine.h"
#include "engine_int.h"

static void ghost_unlink(struct ibs_engine *e, int s)
{
	struct ghost *g = &e->ghosts[s];

	if (g->prev >= 0)
		e->ghosts[g->prev].next = g->next;
	else
		e->ghost_head = g->next;
	if (g->next >= 0)
		e->ghosts[g->next].prev = g->prev;
	else
		e->ghost_tail = g->prev;
	g->next = g->prev = -1;
}

void eng_to_ghost(struct ibs_engine *e, struct pend *p)
{
	int s = p->slot, q = e->ghost_tail;
	struct ghost *g = &e->ghosts[s];

	g->p = p;
	g->id = p->id;
	g->tid = p->tid;
	g->end = p->sent_at + (uint64_t)e->o.timeout_ms * 1000000ull;
	g->live = true;
	/* Ends come nearly in order: insert from the tail. */
	while (q >= 0 && e->ghosts[q].end > g->end)
		q = e->ghosts[q].prev;
	g->prev = q;
	g->next = q >= 0 ? e->ghosts[q].next : e->ghost_head;
	if (g->next >= 0)
		e->ghosts[g->next].prev = s;
	else
		e->ghost_tail = s;
	if (q >= 0)
		e->ghosts[q].next = s;
	else
		e->ghost_head = s;
	e->n_ghosts++;
	e->slots[s] = NULL;
	p->slot = -1;
	eng_pl_del(&e->wire, p);
}

void eng_ghost_end(struct ibs_engine *e, int s, bool tell_transport)
{
	struct ghost *g = &e->ghosts[s];

	if (!g->live)
		return;
	ghost_unlink(e, s);
	g->live = false;
	e->n_ghosts--;
	eng_route_release(e, s);
	if (tell_transport && e->t->ops->expire)
		e->t->ops->expire(e->t, g->p && g->p->id == g->id ? &g->p->req : NULL, g->tid);
}

void eng_ghosts_expire(struct ibs_engine *e, uint64_t now)
{
	while (e->ghost_head >= 0 && e->ghosts[e->ghost_head].end <= now)
		eng_ghost_end(e, e->ghost_head, true);
}

int eng_free_slot(struct ibs_engine *e)
{
	/* Slots are reused in TID order; a linear probe from the sequence is short. */
	unsigned i;

	for (i = 0; i < e->n_slots; i++) {
		unsigned s = (e->seq + i) % e->n_slots;
		if (!e->slots[s] && !e->ghosts[s].live)
			return (int)s;
	}
	/* Every slot holds a current attempt or a ghost: the oldest ghost gives way. */
	i = (unsigned)e->ghost_head;
	eng_ghost_end(e, (int)i, true);
	return (int)i;
}

static bool pl_has(const struct plist *l, const struct pend *p)
{
	const struct pend *q;

	for (q = l->head; q; q = q->next)
		if (q == p)
			return true;
	return false;
}

void eng_detach(struct ibs_engine *e, struct pend *p)
{
	size_t k;

	if (p->slot >= 0) {
		eng_to_ghost(e, p); /* its current attempt may still be in service */
		return;
	}
	/* Rare (an earlier attempt answered): a search is cheap enough. */
	if (pl_has(&e->later, p)) {
		eng_pl_del(&e->later, p);
		return;
	}
	if (pl_has(&e->queue, p)) {
		eng_pl_del(&e->queue, p);
		return;
	}
	for (k = 0; k < e->n_nodes; k++)
		if (pl_has(&e->nodes[k].waiting, p)) {
			eng_pl_del(&e->nodes[k].waiting, p);
			e->n_waiting--;
			return;
		}
}
