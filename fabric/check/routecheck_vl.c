/* The VL of each hop of the route check, from the switches' SL2VL tables (see routecheck.h). */
#include "routecheck.h"
#include "routecheck_int.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The VL a route of SL sl leaves switch k by, from in to out: 0 with one VL; IBS_RC_VL_DROP for VL 15. */
uint8_t ibs_rc_vl_at(const struct st *t, int32_t k, uint8_t in, uint8_t out, uint8_t sl)
{
	uint8_t v;

	if (!t->vl)
		return 0;
	v = ibs_sl2vl_get(t->vl[k], in, out, sl);
	if (v == IBS_VL_UNREAD)
		return 0; /* not asked: ibs_sl2vl_pairs asks every pair the routes use */
	return v >= IBS_RC_VL_DROP ? IBS_RC_VL_DROP : v;
}

/* The SA's SLs, when every pair asked was answered (else SL 0 for all, and rc->sl_why says why). */
static void use_sls(struct st *t, const struct ibs_rc_opts *o)
{
	struct ibs_routecheck *rc = t->rc;
	size_t i;

	rc->sl_mask = 1;
	if (!o || !o->sls)
		return;
	rc->sl_pairs = o->n_sls;
	if (o->n_sls) {
		rc->paths = xmalloc(o->n_sls * sizeof(*rc->paths));
		memcpy(rc->paths, o->sls, o->n_sls * sizeof(*rc->paths));
	}
	for (i = 0; i < o->n_sls; i++)
		rc->sl_answered += o->sls[i].answered;
	if (rc->sl_answered < rc->sl_pairs) {
		rc->sl_why = "PathRecords not answered for every pair";
		return;
	}
	for (i = 0; i < o->n_sls; i++)
		rc->sl_mask |= (uint16_t)(1u << (o->sls[i].sl & 15));
	t->nsl = 16;
	rc->sl0_assumed = false;
	rc->sl_why = NULL;
}

/*
 * The switches' SL2VL tables, when every pair asked was answered (else one
 * VL for all, and rc->vl_why says why), and the VLs the routes of SL 0 from
 * the CAs at each switch leave each port on (with the SA's SLs, per route:
 * ibs_rc_vl_sources).
 */
void ibs_rc_use_vls(struct st *t, const struct ibs_rc_opts *o)
{
	struct ibs_routecheck *rc = t->rc;
	const struct ibs_sl2vls *vls = o ? o->vls : NULL;
	size_t i, k, total = t->nhbase[t->S];

	t->srcvl = xmalloc((total ? total : 1) * sizeof(*t->srcvl));
	for (i = 0; i < total; i++)
		t->srcvl[i] = 1; /* VL 0 */
	t->nsl = 1;
	if (vls)
		use_sls(t, o);
	t->vmask = xcalloc((t->S ? t->S : 1) * t->nsl, sizeof(*t->vmask));
	if (!vls)
		return;
	rc->vl_pairs = vls->asked;
	rc->vl_answered = vls->answered;
	for (i = 0; i < vls->n; i++)
		rc->vl_incomplete += vls->v[i].answered < vls->v[i].asked;
	if (vls->not_held) {
		rc->vl_why = "the capture holds no SL2VL";
		return;
	}
	if (rc->vl_incomplete) {
		rc->vl_why = "SL2VL not answered by every switch";
		return;
	}
	t->vl = xcalloc(t->S ? t->S : 1, sizeof(*t->vl));
	for (i = 0; i < vls->n; i++) {
		const struct ibs_sl2vl *v = &vls->v[i];
		size_t j;
		if (!v->node || v->node->index >= t->f->n_nodes || t->f->nodes[v->node->index] != v->node ||
		    t->swidx[v->node->index] < 0)
			continue;
		t->vl[t->swidx[v->node->index]] = v;
		/* The VLs of the SLs in use: an SL no route is on adds none. */
		for (j = 0; j < (size_t)v->np * v->np * 16; j++)
			if (rc->sl_mask & 1u << (j % 16) && v->vl[j] < IBS_RC_VL_DROP && v->vl[j] + 1u > rc->n_vls)
				rc->n_vls = v->vl[j] + 1u;
	}
	rc->vl_read = true;
	rc->vl_why = NULL;
	for (k = 0; k < t->S; k++) {
		const struct ibs_node *sw = t->sws[k];
		const struct ibs_port *p;
		if (!t->vl[k])
			continue;
		for (i = 0; i < total - t->nhbase[k] && i <= sw->ni.num_ports; i++)
			t->srcvl[t->nhbase[k] + i] = 0;
		for (p = ibs_node_ports_from(sw, 1); p < ibs_node_ports_end(sw); p++) {
			const struct ibs_port *cp = p->peer && !is_sw(p->peer) ? ibs_node_port(p->peer, p->peer_port) : NULL;
			unsigned e;
			if (!cp || source_switch(t, cp) != (int32_t)k || !source_active(cp))
				continue;
			for (e = 1; e <= sw->ni.num_ports; e++) {
				uint8_t v = ibs_rc_vl_at(t, (int32_t)k, p->num, (uint8_t)e, 0);
				if (v < IBS_RC_VL_DROP)
					t->srcvl[t->nhbase[k] + e] |= (uint16_t)(1u << v);
			}
		}
	}
}

/* The SA's SL from slid to dlid (o->sls is sorted by dlid, then slid); SL 0 for a pair not asked. */
static uint8_t sl_of(const struct ibs_rc_opts *o, uint16_t slid, uint16_t dlid)
{
	size_t lo = 0, hi = o->n_sls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ibs_path_sl *x = &o->sls[mid];
		if (x->dlid < dlid || (x->dlid == dlid && x->slid < slid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->n_sls && o->sls[lo].dlid == dlid && o->sls[lo].slid == slid ? o->sls[lo].sl & 15 : 0;
}

void ibs_rc_vl_sources(struct st *t, int32_t k, const struct dest *d)
{
	size_t j;

	if (t->nxt[k] < 0)
		return;
	if (t->nsl == 1) {
		t->vmask[k] = t->srcvl[t->nhbase[k] + t->outp[k]];
		return;
	}
	for (j = t->sbase[k]; j < t->sbase[k + 1]; j++) {
		const struct ibs_port *p = t->src[j];
		uint8_t sl, v;
		if (t->src_node[j] == d->node && p->num == d->port)
			continue;
		sl = sl_of(t->o, p->pi.lid, d->lid);
		v = ibs_rc_vl_at(t, k, p->peer_port, t->outp[k], sl);
		if (v < IBS_RC_VL_DROP)
			t->vmask[(size_t)k * 16 + sl] |= (uint16_t)(1u << v);
	}
}

/* A dependency at nx from (s's out channel, VL v) to (nx's out channel, VL v2) for SL sl: the cycles of cycle_sls it makes. */
static void cycle_sl(struct st *t, int32_t s, int32_t nx, unsigned v, unsigned v2, unsigned sl)
{
	struct ibs_routecheck *c = t->o->cycle_sls;
	size_t i, j;

	for (i = 0; i < c->n_cycles; i++) {
		struct ibs_rc_cycle *y = &c->cycles[i];
		for (j = 0; j < y->n; j++) {
			const struct ibs_rc_chan *a = &y->links[j], *b = &y->links[(j + 1) % y->n];
			if (a->node == t->sws[s] && a->port == t->outp[s] && a->vl == v && b->node == t->sws[nx] &&
			    b->port == t->outp[nx] && b->vl == v2)
				y->sls |= (uint16_t)(1u << sl);
		}
	}
}

void ibs_rc_vl_carry(struct st *t, int32_t s, int32_t nx, uint8_t in)
{
	unsigned sl, v;

	for (sl = 0; sl < t->nsl; sl++) {
		uint16_t m = t->vmask[(size_t)s * t->nsl + sl];
		uint8_t v2;
		if (!m)
			continue;
		v2 = ibs_rc_vl_at(t, nx, in, t->outp[nx], (uint8_t)sl);
		if (v2 >= IBS_RC_VL_DROP)
			continue; /* mapped to VL 15: the switch drops it */
		for (v = 0; v < t->rc->n_vls; v++) {
			if (!(m & 1u << v))
				continue;
			ibs_rc_cdg_add(t->cdg, nx, in, (uint8_t)v, t->outp[nx], v2);
			if (t->o && t->o->cycle_sls)
				cycle_sl(t, s, nx, v, v2, sl);
		}
		t->vmask[(size_t)nx * t->nsl + sl] |= (uint16_t)(1u << v2);
	}
}

/* Nearest d first (t->order backwards), whether the route from each OK switch crosses a cyclic channel of t->prev. */
void ibs_rc_want_sls(struct st *t, const struct dest *d)
{
	size_t k, j;

	for (k = t->n_ok; k-- > 0;) {
		int32_t s = (int32_t)t->order[k], nx = t->nxt[s];
		t->cross[s] = nx >= 0 && (ibs_rc_cyclic_out((void *)t->prev, t->sws[s], t->outp[s]) || t->cross[nx]);
	}
	for (k = 0; k < t->S; k++) {
		if (t->res[k] != R_OK || !t->cross[k])
			continue;
		for (j = t->sbase[k]; j < t->sbase[k + 1]; j++) {
			const struct ibs_port *p = t->src[j];
			if (t->src_node[j] == d->node && p->num == d->port)
				continue;
			t->want = xgrow(t->want, &t->cap_want, t->n_want + 1, sizeof(*t->want));
			t->want[t->n_want++] = (struct ibs_path_sl){ .slid = p->pi.lid, .dlid = d->lid };
		}
	}
}

static int pair_cmp(const void *a, const void *b)
{
	const struct ibs_path_sl *x = a, *y = b;

	if (x->dlid != y->dlid)
		return x->dlid < y->dlid ? -1 : 1;
	return (x->slid > y->slid) - (x->slid < y->slid);
}

void ibs_rc_sl_pairs(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, const struct ibs_routecheck *rc,
		     struct ibs_path_sl **out, size_t *n_out)
{
	struct ibs_routecheck tmp;
	struct ibs_rc_opts o;

	memset(&o, 0, sizeof(o));
	o.sl_pairs_of = rc;
	o.sl_pairs = out;
	o.n_sl_pairs = n_out;
	*out = NULL;
	*n_out = 0;
	ibs_routecheck_opts(f, lfts, n, &o, &tmp);
	ibs_routecheck_free(&tmp);
	if (*n_out)
		qsort(*out, *n_out, sizeof(**out), pair_cmp);
}
