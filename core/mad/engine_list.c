/*
 * The engine's lists (queued, on the wire, backing off, waiting for a node)
 * and the per-node loads of the cap (core/mad/engine.c).
 */
#include "engine.h"
#include "engine_int.h"
#include "../base/xalloc.h"

#include <string.h>

/* Put p after q (at the front when q is NULL). */
void eng_pl_insert_after(struct plist *l, struct pend *q, struct pend *p)
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

void eng_pl_push(struct plist *l, struct pend *p)
{
	eng_pl_insert_after(l, l->tail, p);
}

void eng_pl_push_front(struct plist *l, struct pend *p)
{
	eng_pl_insert_after(l, NULL, p);
}

void eng_pl_del(struct plist *l, struct pend *p)
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

/* Queue p to go out again at `when`, keeping e->later in time order. */
void eng_pl_insert_later(struct plist *l, struct pend *p, uint64_t when)
{
	struct pend *q = l->tail;

	p->deadline = when;
	while (q && q->deadline > when)
		q = q->prev;
	eng_pl_insert_after(l, q, p);
}

struct nodeload *eng_nodeload(struct ibs_engine *e, uint32_t key)
{
	while (key >= e->n_nodes) {
		e->nodes = xgrow(e->nodes, &e->cap_nodes, e->n_nodes + 1, sizeof(*e->nodes));
		memset(&e->nodes[e->n_nodes++], 0, sizeof(*e->nodes));
	}
	return &e->nodes[key];
}

/* The attempt in slot s ended: its nodes have room again; waiters are woken. */
void eng_route_release(struct ibs_engine *e, int s)
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

