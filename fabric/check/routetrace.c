/*
 * What the route check traces on demand: the host-to-host routes that cross
 * one cable (routes --through) and the links a job's routes among
 * themselves share (routes --nodes), per destination like the check.
 */
#include "routecheck.h"
#include "routecheck_int.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>

/* Does switch s's route toward d leave by one end of the traced cable? */
static bool hits(const struct st *t, int32_t s)
{
	const struct ibs_port *p = ibs_node_port(t->o->through, t->o->through_port);

	if (!t->outp[s])
		return false;
	if (t->sws[s] == t->o->through && t->outp[s] == t->o->through_port)
		return true;
	return p && p->peer == t->sws[s] && t->outp[s] == p->peer_port;
}

/* --through: the OK switches nearest d first, so each takes its next hop's answer. */
void ibs_rc_through(struct st *t, const struct dest *d)
{
	size_t k, j;

	if (!d->ca)
		return;
	for (k = t->n_ok; k-- > 0;) {
		int32_t s = (int32_t)t->order[k];
		t->cross[s] = hits(t, s) || (t->nxt[s] >= 0 && t->cross[t->nxt[s]]);
	}
	for (k = 0; k < t->S; k++) {
		if (t->res[k] != R_OK)
			continue;
		for (j = t->sbase[k]; j < t->sbase[k + 1]; j++) {
			const struct ibs_node *sn = t->src_node[j];
			/* Its own cable, given from either end: the switch's port into the route is not in hits(). */
			bool own = (sn == t->o->through && t->src[j]->num == t->o->through_port) ||
				   (t->sws[k] == t->o->through && t->src[j]->peer_port == t->o->through_port);
			if (sn == d->node && t->src[j]->num == d->port)
				continue;
			if (!t->cross[k] && !own)
				continue;
			t->rc->thr_from[sn->index]++;
			t->rc->thr_to[d->node->index]++;
			t->rc->thr_routes++;
		}
	}
}

/* --nodes: the job's routes to d, counted along the chains as carry() counts them all. */
void ibs_rc_job(struct st *t, const struct dest *d)
{
	size_t k;

	if (!d->ca || !t->o->job[d->node->index])
		return;
	for (k = 0; k < t->S; k++) {
		t->cnt[k] = t->res[k] == R_OK ? t->njob[k] - (d->src && d->att == (int32_t)k) : 0;
		t->okd[k] += t->res[k] == R_OK;
	}
	/* The destination's own port is a source at its switch: no route from it to itself. */
	if (d->src && d->att >= 0 && t->res[d->att] == R_OK) {
		size_t j;
		for (j = t->sbase[d->att]; j < t->sbase[d->att + 1]; j++)
			if (t->src_node[j] == d->node && t->src[j]->num == d->port)
				t->own[j]++;
	}
	for (k = 0; k < t->n_ok; k++) {
		int32_t s = (int32_t)t->order[k], nx = t->nxt[s];
		if (!t->cnt[s])
			continue;
		if (t->outp[s] && t->outp[s] <= t->sws[s]->ni.num_ports)
			t->rc->sw[s].job[t->outp[s]] += t->cnt[s];
		if (nx >= 0)
			t->cnt[nx] += t->cnt[s];
		else
			t->rc->job_routes += t->cnt[s];
	}
}

/* Sources by switch for --through and --nodes: every Active CA port cabled to one (as counted in nsrc). */
void ibs_rc_sources(struct st *t)
{
	size_t i, k, total = 0, *fill;
	const struct ibs_fabric *f = t->f;

	t->sbase = xcalloc(t->S + 2, sizeof(*t->sbase));
	for (k = 0; k < t->S; k++) {
		t->sbase[k] = total;
		total += t->nsrc[k];
	}
	t->sbase[t->S] = total;
	t->src = xcalloc(total + 1, sizeof(*t->src));
	t->src_node = xcalloc(total + 1, sizeof(*t->src_node));
	t->njob = xcalloc(t->S + 1, sizeof(*t->njob));
	fill = xcalloc(t->S + 1, sizeof(*fill));
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *c = f->nodes[i];
		const struct ibs_port *p;
		if (is_sw(c))
			continue;
		for (p = ibs_node_ports_from(c, 1); p < ibs_node_ports_end(c); p++) {
			int32_t s;
			if ((s = source_switch(t, p)) < 0 || !source_active(p))
				continue;
			t->src[t->sbase[s] + fill[s]] = p;
			t->src_node[t->sbase[s] + fill[s]++] = c;
			if (t->o->job && t->o->job[c->index])
				t->njob[s]++;
		}
	}
	free(fill);
	if (t->o->through) {
		t->rc->thr_from = xcalloc(f->n_nodes + 1, sizeof(*t->rc->thr_from));
		t->rc->thr_to = xcalloc(f->n_nodes + 1, sizeof(*t->rc->thr_to));
	}
	if (t->o->job) {
		for (k = 0; k < t->S; k++) {
			t->rc->sw[k].job = xcalloc(t->rc->sw[k].n_ports, sizeof(*t->rc->sw[k].job));
			t->rc->sw[k].job_in = xcalloc(t->rc->sw[k].n_ports, sizeof(*t->rc->sw[k].job_in));
		}
		t->okd = xcalloc(t->S + 1, sizeof(*t->okd));
		t->own = xcalloc(total + 1, sizeof(*t->own));
		for (i = 0; i < f->n_nodes; i++)
			t->rc->job_cas += t->o->job[i] && !is_sw(f->nodes[i]);
	}
	t->cross = xcalloc(t->S + 1, sizeof(*t->cross));
}


/*
 * A job source's routes: to every job destination its switch routes, but
 * its own LIDs; counted at the switch port its cable enters by.
 */
void ibs_rc_job_finish(struct st *t)
{
	size_t k, j;

	if (!t->o || !t->o->job)
		return;
	for (k = 0; k < t->S; k++)
		for (j = t->sbase[k]; j < t->sbase[k + 1]; j++) {
			uint8_t in = t->src[j]->peer_port;
			if (t->o->job[t->src_node[j]->index] && in < t->rc->sw[k].n_ports)
				t->rc->sw[k].job_in[in] += t->okd[k] - t->own[j];
		}
}
