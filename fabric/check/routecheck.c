/* Every route through the forwarding tables, one destination at a time (see routecheck.h). */
#include "routecheck.h"
#include "../model/levels.h"
#include "routecheck_int.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

_Static_assert((int)R_OK == (int)IBS_RC_KINDS, "R_OK follows the kinds");

const char *ibs_rc_kind_str(enum ibs_rc_kind k)
{
	static const char *const s[] = { "unreachable", "down_port", "dead_end", "loop" };

	return k < IBS_RC_KINDS ? s[k] : "unknown";
}

const char *ibs_rc_role_str(enum ibs_rc_role r)
{
	static const char *const s[] = { "none", "host", "up", "down", "side" };

	return r <= IBS_RC_SIDE ? s[r] : "none";
}

/* Switch s's next hop toward d: false when that settles it (res[s] set), true when it goes on to nxt[s]. */
static bool step(struct st *t, int32_t s, const struct dest *d)
{
	const struct ibs_node *sw = t->sws[s];
	const struct ibs_lft *l = t->lft[s];
	const struct ibs_port *op;
	int32_t nh;
	uint8_t e;

	t->nxt[s] = -1;
	t->outp[s] = 0;
	t->flag[s] = 0;
	t->hops[s] = 0;
	t->term[s] = s;
	if (d->node == sw) {
		t->res[s] = R_OK;
		return false;
	}
	e = l && d->lid < l->n ? l->ports[d->lid] : 0xff;
	t->outp[s] = e;
	if (d->ca && e && e <= sw->ni.num_ports)
		t->rc->sw[s].lids[e]++;
	if (e == 0xff || e == 0 || e > sw->ni.num_ports) {
		t->res[s] = IBS_RC_UNREACHABLE;
		return false;
	}
	nh = t->nh[t->nhbase[s] + e];
	if (nh >= 0) {
		t->nxt[s] = nh;
		return true;
	}
	if (nh == NH_DOWN) {
		t->res[s] = IBS_RC_DOWN_PORT;
		return false;
	}
	op = ibs_node_port(sw, e);
	if (op->peer == d->node && op->peer_port == d->port) {
		t->res[s] = R_OK;
		t->hops[s] = 1;
		t->term[s] = -1;
		return false;
	}
	t->res[s] = IBS_RC_DEAD_END;
	return false;
}

/* Settle s and every switch on its chain toward d, each once. */
static void resolve(struct st *t, int32_t s, const struct dest *d)
{
	size_t sp = 0, i;

	t->res[s] = R_STACK;
	t->stack[sp++] = s;
	for (;;) {
		int32_t cur = t->stack[sp - 1], n;
		if (!step(t, cur, d))
			break;
		n = t->nxt[cur];
		if (t->res[n] == R_STACK) {
			for (i = 0; i < sp; i++) {
				t->res[t->stack[i]] = IBS_RC_LOOP;
				t->term[t->stack[i]] = n;
			}
			return;
		}
		if (t->res[n] != R_UNKNOWN)
			break;
		t->res[n] = R_STACK;
		t->stack[sp++] = n;
	}
	for (i = sp; i-- > 0;) {
		int32_t c = t->stack[i], n = t->nxt[c];
		unsigned lc, ln;
		if (t->res[c] != R_STACK)
			continue;
		t->res[c] = t->res[n];
		t->term[c] = t->term[n];
		t->hops[c] = (uint16_t)(t->hops[n] + 1);
		lc = t->level[t->sws[c]->index];
		ln = t->level[t->sws[n]->index];
		t->flag[c] = t->flag[n];
		if (lc && ln && ln > lc)
			t->flag[c] |= F_UP;
		if (lc && ln && ln < lc && (t->flag[n] & F_UP))
			t->flag[c] |= F_BAD;
	}
}

/* Hops over Active switch-to-switch links from switch a. */
static void bfs(struct st *t, int32_t a)
{
	size_t head = 0, tail = 0, k;

	for (k = 0; k < t->S; k++)
		t->dist[k] = -1;
	if (a < 0)
		return;
	t->dist[a] = 0;
	t->queue[tail++] = a;
	while (head < tail) {
		int32_t u = t->queue[head++];
		size_t x;
		for (x = t->nhbase[u] + 1; x < t->nhbase[u + 1]; x++) {
			int32_t v = t->nh[x];
			if (v < 0 || t->dist[v] >= 0)
				continue;
			t->dist[v] = t->dist[u] + 1;
			t->queue[tail++] = v;
		}
	}
}

/*
 * Each switch port's next hop, once: the switch behind an Active cable, a
 * CA or router (NH_CA), or nothing usable (NH_DOWN: no cable, or either
 * end not Active). The per-destination walk and the BFS read only this.
 */
static void next_hops(struct st *t)
{
	size_t k, total = 0;

	t->nhbase = xcalloc(t->S + 1, sizeof(*t->nhbase));
	for (k = 0; k < t->S; k++) {
		t->nhbase[k] = total;
		total += (size_t)t->sws[k]->ni.num_ports + 1;
	}
	t->nhbase[t->S] = total;
	t->nh = xmalloc((total ? total : 1) * sizeof(*t->nh));
	for (k = 0; k < t->S; k++) {
		const struct ibs_node *sw = t->sws[k];
		unsigned e;
		for (e = 0; e <= sw->ni.num_ports; e++) {
			const struct ibs_port *op = e ? ibs_node_port(sw, e) : NULL;
			int32_t v = NH_DOWN;
			if (op && op->peer && port_active(op) && port_active(ibs_node_port(op->peer, op->peer_port)))
				v = is_sw(op->peer) && t->swidx[op->peer->index] >= 0 ? t->swidx[op->peer->index] : NH_CA;
			t->nh[t->nhbase[k] + e] = v;
		}
	}
}

static void add_finding(struct st *t, const struct ibs_rc_finding *fd)
{
	struct ibs_routecheck *rc = t->rc;

	rc->v = xgrow(rc->v, &t->capf, rc->n + 1, sizeof(*rc->v));
	rc->v[rc->n++] = *fd;
}

static void count_hops(struct st *t, unsigned h, uint64_t w)
{
	struct ibs_routecheck *rc = t->rc;

	if (h >= rc->n_hist) {
		size_t n = h + 8;
		rc->hist = xrealloc(rc->hist, n * sizeof(*rc->hist));
		memset(rc->hist + rc->n_hist, 0, (n - rc->n_hist) * sizeof(*rc->hist));
		rc->n_hist = n;
	}
	rc->hist[h] += w;
	t->hop_sum += (uint64_t)h * w;
	if (!t->have_min || h < rc->min_hops)
		rc->min_hops = h;
	t->have_min = true;
	if (h > rc->max_hops)
		rc->max_hops = h;
}

/* Routes of the OK switches toward d, counted along their chains (longest first), and their dependencies. */
static void carry(struct st *t)
{
	size_t k, n = 0, maxh = 0;
	uint32_t pos;

	for (k = 0; k < t->S; k++)
		if (t->res[k] == R_OK && t->hops[k] > maxh)
			maxh = t->hops[k];
	memset(t->bucket, 0, (maxh + 1) * sizeof(*t->bucket));
	for (k = 0; k < t->S; k++)
		if (t->res[k] == R_OK)
			t->bucket[t->hops[k]]++, n++;
	for (k = maxh + 1, pos = 0; k-- > 0;) {
		uint32_t c = t->bucket[k];
		t->bucket[k] = pos; /* where the switches k hops away start: the farthest first */
		pos += c;
	}
	for (k = 0; k < t->S; k++)
		if (t->res[k] == R_OK)
			t->order[t->bucket[t->hops[k]]++] = (uint32_t)k;
	t->n_ok = n;
	for (k = 0; k < n; k++) {
		int32_t s = (int32_t)t->order[k], nx = t->nxt[s];
		const struct ibs_port *op;
		if (!t->cnt[s])
			continue;
		if (t->outp[s] && t->outp[s] <= t->sws[s]->ni.num_ports)
			t->rc->sw[s].routes[t->outp[s]] += t->cnt[s];
		if (nx < 0)
			continue;
		t->cnt[nx] += t->cnt[s];
		op = ibs_node_port(t->sws[s], t->outp[s]);
		if (t->nxt[nx] >= 0 && op)
			ibs_rc_vl_carry(t, s, nx, op->peer_port);
	}
}

static void one_dest(struct st *t, const struct dest *d)
{
	struct ibs_routecheck *rc = t->rc;
	int32_t k;
	size_t i;

	memset(t->res, R_UNKNOWN, t->S);
	memset(t->vmask, 0, (t->S ? t->S : 1) * t->nsl * sizeof(*t->vmask));
	for (k = 0; k < (int32_t)t->S; k++)
		if (t->res[k] == R_UNKNOWN)
			resolve(t, k, d);
	t->ntouched = 0;
	for (k = 0; k < (int32_t)t->S; k++) {
		uint64_t w = t->nsrc[k] - (d->src && d->att == k);
		t->cnt[k] = 0;
		if (!w)
			continue;
		rc->pairs += w;
		if (t->res[k] == R_OK) {
			unsigned h = 1u + t->hops[k];
			t->cnt[k] = w;
			ibs_rc_vl_sources(t, k, d);
			rc->ok += w;
			count_hops(t, h, w);
			if (t->dist[k] >= 0) {
				rc->minimal_known += w;
				if (h > 1u + (unsigned)t->dist[k] + d->ca)
					rc->non_minimal += w;
			}
			if (t->flag[k] & F_BAD)
				rc->not_updown += w;
			continue;
		}
		rc->bad[t->res[k]] += w;
		if (!t->fcount[t->term[k]])
			t->touched[t->ntouched++] = t->term[k];
		t->fcount[t->term[k]] += w;
	}
	for (i = 0; i < t->ntouched; i++) {
		int32_t s = t->touched[i];
		struct ibs_rc_finding fd = { .kind = (enum ibs_rc_kind)t->res[s], .dlid = d->lid, .dst = d->node,
					     .node = t->sws[s], .port = t->outp[s], .pairs = t->fcount[s] };
		if (fd.kind == IBS_RC_DEAD_END) {
			const struct ibs_port *op = ibs_node_port(t->sws[s], t->outp[s]);
			fd.at = op ? op->peer : NULL;
		}
		add_finding(t, &fd);
		t->fcount[s] = 0;
	}
	carry(t);
	if (t->o && t->o->through)
		ibs_rc_through(t, d);
	if (t->prev)
		ibs_rc_want_sls(t, d);
	if (t->o && t->o->job)
		ibs_rc_job(t, d);
}

static void add_dest(struct dest **v, size_t *n, size_t *cap, const struct st *t, const struct ibs_node *nd,
		     const struct ibs_port *p)
{
	unsigned i, span;
	int32_t att = -1;
	bool src = false;

	if (!p->valid || !p->pi.lid || p->pi.lid >= 0xc000)
		return;
	if (is_sw(nd)) {
		att = t->swidx[nd->index];
	} else if (is_sw(p->peer)) {
		att = t->swidx[p->peer->index];
		src = att >= 0 && source_active(p);
	}
	span = 1u << (p->pi.lmc & 7);
	for (i = 0; i < span && p->pi.lid + i < 0xc000; i++) {
		*v = xgrow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (struct dest){ (uint16_t)(p->pi.lid + i), nd, p->num, att, !is_sw(nd), src };
	}
}

static int dest_cmp(const void *a, const void *b)
{
	const struct dest *x = a, *y = b;

	if (x->att != y->att)
		return x->att < y->att ? -1 : 1;
	if (x->ca != y->ca)
		return x->ca ? -1 : 1; /* a switch's own LID after its CAs: one BFS for them all */
	return (x->lid > y->lid) - (x->lid < y->lid);
}

static int finding_cmp(const void *a, const void *b)
{
	const struct ibs_rc_finding *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->dlid != y->dlid)
		return x->dlid < y->dlid ? -1 : 1;
	if (x->node->index != y->node->index)
		return x->node->index < y->node->index ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

void ibs_routecheck(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, struct ibs_routecheck *rc)
{
	ibs_routecheck_opts(f, lfts, n, NULL, rc);
}

void ibs_routecheck_opts(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, const struct ibs_rc_opts *o,
			 struct ibs_routecheck *rc)
{
	struct st t;
	struct dest *d = NULL;
	size_t nd = 0, capd = 0, i, N = f->n_nodes ? f->n_nodes : 1, S1;
	int32_t att = -2;
	struct ibs_rc_opts all;
	bool *all_job = NULL;

	memset(rc, 0, sizeof(*rc));
	memset(&t, 0, sizeof(t));
	if (o && o->all_hosts && !o->job) {
		all = *o;
		all.job = all_job = ibs_rc_all_hosts(f);
		o = &all;
	}
	rc->sl0_assumed = true;
	t.f = f;
	t.rc = rc;
	t.o = o && (o->through || o->job || o->sls || o->sl_pairs_of || o->cycle_sls) ? o : NULL;
	t.prev = o ? o->sl_pairs_of : NULL;
	rc->sl_mask = 1;
	rc->sl_why = "PathRecords not read";
	rc->n_vls = 1;
	rc->vl_why = "SL2VL not read";
	t.swidx = xmalloc(N * sizeof(*t.swidx));
	t.level = ibs_fabric_levels(f, &rc->max_level);
	for (i = 0; i < f->n_nodes; i++) {
		t.swidx[i] = -1;
		t.S += is_sw(f->nodes[i]);
	}
	S1 = t.S ? t.S : 1;
	t.sws = xcalloc(S1, sizeof(*t.sws));
	t.lft = xcalloc(S1, sizeof(*t.lft));
	rc->sw = xcalloc(S1, sizeof(*rc->sw));
	rc->n_sw = t.S;
	t.S = 0;
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *s = f->nodes[i];
		struct ibs_rc_switch *w;
		if (!is_sw(s))
			continue;
		t.swidx[s->index] = (int32_t)t.S;
		t.sws[t.S] = s;
		w = &rc->sw[t.S++];
		w->node = s;
		w->level = t.level[s->index];
		w->n_ports = (unsigned)s->ni.num_ports + 1;
		w->lids = xcalloc(w->n_ports, sizeof(*w->lids));
		w->routes = xcalloc(w->n_ports, sizeof(*w->routes));
		w->role = xcalloc(w->n_ports, sizeof(*w->role));
		w->cyclic = xcalloc(w->n_ports, sizeof(*w->cyclic));
	}
	for (i = 0; i < n; i++)
		if (lfts[i].node && t.swidx[lfts[i].node->index] >= 0 && f->nodes[lfts[i].node->index] == lfts[i].node)
			t.lft[t.swidx[lfts[i].node->index]] = &lfts[i];
	for (i = 0; i < t.S; i++)
		rc->unread += !t.lft[i] || !t.lft[i]->ok;
	t.nsrc = xcalloc(S1, sizeof(*t.nsrc));
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *nd2 = f->nodes[i];
		const struct ibs_port *p;
		for (p = ibs_node_ports_from(nd2, 0); p < ibs_node_ports_end(nd2); p++) {
			if (is_sw(nd2) ? p->num == 0 : p->num > 0)
				add_dest(&d, &nd, &capd, &t, nd2, p);
		}
	}
	rc->dests = nd;
	qsort(d, nd, sizeof(*d), dest_cmp);
	/* Sources: CA ports with a LID and a cable to a switch; those not Active route nowhere. */
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *c = f->nodes[i];
		const struct ibs_port *p;
		if (is_sw(c))
			continue;
		for (p = ibs_node_ports_from(c, 1); p < ibs_node_ports_end(c); p++) {
			size_t j;
			uint64_t w = 0;
			if (source_switch(&t, p) < 0)
				continue;
			rc->sources++;
			if (source_active(p)) {
				t.nsrc[t.swidx[p->peer->index]]++;
				continue;
			}
			for (j = 0; j < nd; j++)
				w += !(d[j].node == c && d[j].port == p->num);
			rc->pairs += w;
			rc->bad[IBS_RC_DOWN_PORT] += w;
			add_finding(&t, &(struct ibs_rc_finding){ .kind = IBS_RC_DOWN_PORT, .node = c, .port = p->num,
								  .pairs = w });
		}
	}
	t.res = xmalloc(S1);
	t.outp = xmalloc(S1);
	t.flag = xmalloc(S1);
	t.hops = xmalloc(S1 * sizeof(*t.hops));
	t.nxt = xmalloc(S1 * sizeof(*t.nxt));
	t.term = xmalloc(S1 * sizeof(*t.term));
	t.stack = xmalloc(S1 * sizeof(*t.stack));
	t.dist = xmalloc(S1 * sizeof(*t.dist));
	t.queue = xmalloc(S1 * sizeof(*t.queue));
	t.cnt = xcalloc(S1, sizeof(*t.cnt));
	t.fcount = xcalloc(S1, sizeof(*t.fcount));
	t.touched = xmalloc(S1 * sizeof(*t.touched));
	t.bucket = xmalloc((S1 + 2) * sizeof(*t.bucket));
	t.order = xmalloc(S1 * sizeof(*t.order));
	if (t.o)
		ibs_rc_sources(&t);
	next_hops(&t);
	ibs_rc_use_vls(&t, o);
	t.cdg = ibs_rc_cdg_new(f, t.swidx, t.S, t.sws, rc->n_vls);
	for (i = 0; i < nd; i++) {
		/* The topology's minimum for routes to CAs (data); a switch's own LID gets none: one BFS per leaf. */
		if (!d[i].ca && att != -1)
			bfs(&t, att = -1);
		else if (d[i].ca && d[i].att != att)
			bfs(&t, att = d[i].att);
		one_dest(&t, &d[i]);
	}
	if (rc->ok)
		rc->mean_hops = (double)t.hop_sum / (double)rc->ok;
	ibs_rc_job_finish(&t);
	ibs_rc_balance(&t);
	ibs_rc_cdg_finish(t.cdg, rc);
	if (rc->n)
		qsort(rc->v, rc->n, sizeof(*rc->v), finding_cmp);
	free(d);
	free(t.swidx);
	free(t.level);
	free(t.sws);
	free(t.lft);
	free(t.nsrc);
	free(t.res);
	free(t.outp);
	free(t.flag);
	free(t.hops);
	free(t.nxt);
	free(t.term);
	free(t.stack);
	free(t.dist);
	free(t.queue);
	free(t.cnt);
	free(t.fcount);
	free(t.touched);
	free(t.bucket);
	free(t.order);
	free(t.nh);
	free(t.nhbase);
	free(t.vl);
	free(t.srcvl);
	free(t.vmask);
	free(t.sbase);
	free(t.src);
	free(t.src_node);
	free(t.njob);
	free(t.okd);
	free(t.own);
	free(t.cross);
	free(all_job);
	if (t.prev) {
		*o->sl_pairs = t.want;
		*o->n_sl_pairs = t.n_want;
	}
}

bool ibs_rc_cyclic_out(void *ctx, const struct ibs_node *sw, unsigned out)
{
	const struct ibs_routecheck *rc = ctx;
	size_t lo = 0, hi = rc->n_sw;

	/* rc->sw is in fabric order: by node index. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rc->sw[mid].node->index < sw->index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rc->n_sw && rc->sw[lo].node == sw && out < rc->sw[lo].n_ports && rc->sw[lo].cyclic[out];
}

void ibs_routecheck_free(struct ibs_routecheck *rc)
{
	size_t i;

	for (i = 0; i < rc->n_sw; i++) {
		free(rc->sw[i].lids);
		free(rc->sw[i].routes);
		free(rc->sw[i].role);
		free(rc->sw[i].cyclic);
		free(rc->sw[i].job);
		free(rc->sw[i].job_in);
	}
	free(rc->thr_from);
	free(rc->thr_to);
	for (i = 0; i < rc->n_cycles; i++)
		free(rc->cycles[i].links);
	free(rc->sw);
	free(rc->cycles);
	free(rc->v);
	free(rc->hist);
	free(rc->paths);
	memset(rc, 0, sizeof(*rc));
}

bool *ibs_rc_all_hosts(const struct ibs_fabric *f)
{
	bool *job = xcalloc(f->n_nodes + 1, sizeof(*job));

	for (size_t i = 0; i < f->n_nodes; i++)
		job[i] = f->nodes[i]->ni.node_type != IBS_NODE_SWITCH;
	return job;
}
