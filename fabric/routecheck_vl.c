/* The VL of each hop of the route check, from the switches' SL2VL tables (see routecheck.h). */
#include "routecheck.h"
#include "routecheck_int.h"
#include "../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The VL a route of SL 0 leaves switch k by, from in to out: 0 with one VL; IBS_RC_VL_DROP for VL 15. */
uint8_t ibs_rc_vl_at(const struct st *t, int32_t k, uint8_t in, uint8_t out)
{
	uint8_t v;

	if (!t->vl)
		return 0;
	v = ibs_sl2vl_get(t->vl[k], in, out);
	if (v == IBS_VL_UNREAD)
		return 0; /* not asked: ibs_sl2vl_pairs asks every pair the routes use */
	return v >= IBS_RC_VL_DROP ? IBS_RC_VL_DROP : v;
}

/*
 * The switches' SL2VL tables, when every pair asked was answered (else one
 * VL for all, and rc->vl_why says why), and the VLs the routes from the CAs
 * at each switch leave each port on.
 */
void ibs_rc_use_vls(struct st *t, const struct ibs_sl2vls *vls)
{
	struct ibs_routecheck *rc = t->rc;
	size_t i, k, total = t->nhbase[t->S];

	t->srcvl = xmalloc((total ? total : 1) * sizeof(*t->srcvl));
	for (i = 0; i < total; i++)
		t->srcvl[i] = 1; /* VL 0 */
	t->vmask = xcalloc(t->S ? t->S : 1, sizeof(*t->vmask));
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
		for (j = 0; j < (size_t)v->np * v->np; j++)
			if (v->vl[j] < IBS_RC_VL_DROP && v->vl[j] + 1u > rc->n_vls)
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
				uint8_t v = ibs_rc_vl_at(t, (int32_t)k, p->num, (uint8_t)e);
				if (v < IBS_RC_VL_DROP)
					t->srcvl[t->nhbase[k] + e] |= (uint16_t)(1u << v);
			}
		}
	}
}
