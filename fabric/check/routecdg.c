/*
 * The channel dependency graph of the routes (Dally and Seitz: a cycle can
 * deadlock the fabric under load) and its cycles, for routecheck.h. A
 * channel is a switch port's outgoing link to another switch on one VL;
 * channels into CAs have no dependency out and channels from CAs none in,
 * so neither can be in a cycle and neither is kept. Dependencies are bits:
 * for each switch, in-port and VL, the (out-port, VL) pairs a route
 * continues by. With one VL (SL2VL not read) that is one bit per out-port. Cycles are found with an
 * iterative Tarjan (no recursion depth to run out of); each strongly
 * connected part yields its shortest cycle through the part's root.
 */
#include "routecheck.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct ibs_rc_cdg {
	const struct ibs_node *const *sws;
	const int32_t *swidx;
	size_t n_sw;
	unsigned nvl;     /* VLs in the graph: channel (port, vl) is port * nvl + vl of its switch */
	size_t *cbase;    /* switch k's channels are cbase[k] + port * nvl + vl */
	size_t *rbase;    /* its dependency rows: rbase[k] + (in_port * nvl + vl) * words[k] */
	unsigned *words;
	int32_t *ch_sw;   /* the switch of each channel */
	uint64_t *bits;
	size_t nch;
};

struct ibs_rc_cdg *ibs_rc_cdg_new(const struct ibs_fabric *f, const int32_t *swidx, size_t n_sw,
				  const struct ibs_node *const *sws, unsigned nvl)
{
	struct ibs_rc_cdg *g = xcalloc(1, sizeof(*g));
	size_t k, nb = 0;

	(void)f;
	g->sws = sws;
	g->swidx = swidx;
	g->n_sw = n_sw;
	g->nvl = nvl ? nvl : 1;
	g->cbase = xcalloc(n_sw + 1, sizeof(*g->cbase));
	g->rbase = xcalloc(n_sw + 1, sizeof(*g->rbase));
	g->words = xcalloc(n_sw + 1, sizeof(*g->words));
	for (k = 0; k < n_sw; k++) {
		unsigned np = ((unsigned)sws[k]->ni.num_ports + 1) * g->nvl;
		g->cbase[k] = g->nch;
		g->nch += np;
		g->words[k] = (np + 63) / 64;
		g->rbase[k] = nb;
		nb += (size_t)np * g->words[k];
	}
	g->rbase[n_sw] = nb;
	g->ch_sw = xmalloc((g->nch ? g->nch : 1) * sizeof(*g->ch_sw));
	for (k = 0; k < n_sw; k++) {
		size_t c;
		for (c = g->cbase[k]; c < g->cbase[k] + (sws[k]->ni.num_ports + 1u) * g->nvl; c++)
			g->ch_sw[c] = (int32_t)k;
	}
	g->bits = xcalloc(nb ? nb : 1, sizeof(*g->bits));
	return g;
}

void ibs_rc_cdg_add(struct ibs_rc_cdg *g, int32_t k, uint8_t in_port, uint8_t in_vl, uint8_t out_port, uint8_t out_vl)
{
	uint64_t *row = g->bits + g->rbase[k] + ((size_t)in_port * g->nvl + in_vl) * g->words[k];
	unsigned b = (unsigned)out_port * g->nvl + out_vl;

	row[b >> 6] |= 1ull << (b & 63);
}

/* The dependency row of channel v (the switch it leads into and its in-port), or NULL if it leads to no switch. */
static const uint64_t *row_of(const struct ibs_rc_cdg *g, size_t v, int32_t *sk)
{
	int32_t t = g->ch_sw[v];
	size_t b = v - g->cbase[t];
	const struct ibs_port *p = ibs_node_port(g->sws[t], (unsigned)(b / g->nvl));
	int32_t s;

	if (!p || !p->peer || p->peer->ni.node_type != IBS_NODE_SWITCH)
		return NULL;
	s = g->swidx[p->peer->index];
	if (s < 0)
		return NULL;
	*sk = s;
	return g->bits + g->rbase[s] + ((size_t)p->peer_port * g->nvl + b % g->nvl) * g->words[s];
}

/* The next successor of v from bit position *pos on, or SIZE_MAX. */
static size_t next_succ(const struct ibs_rc_cdg *g, size_t v, unsigned *pos)
{
	int32_t s = -1;
	const uint64_t *row = row_of(g, v, &s);
	unsigned nbits;

	if (!row)
		return SIZE_MAX;
	nbits = g->words[s] * 64;
	while (*pos < nbits) {
		uint64_t w = row[*pos >> 6] >> (*pos & 63);
		if (!w) {
			*pos = (*pos | 63) + 1;
			continue;
		}
		*pos += (unsigned)__builtin_ctzll(w);
		return g->cbase[s] + (*pos)++;
	}
	return SIZE_MAX;
}

struct frame {
	size_t v;
	unsigned pos;
};

/* The shortest cycle through r inside its part (comp[] == c), by breadth-first search. */
static void cycle_of(const struct ibs_rc_cdg *g, size_t r, const size_t *comp, size_t c, size_t *parent,
		     size_t *queue, struct ibs_rc_cycle *out)
{
	size_t head = 0, tail = 0, v, i, n = 0, end = SIZE_MAX;

	queue[tail++] = r;
	parent[r] = r;
	while (head < tail && end == SIZE_MAX) {
		unsigned pos = 0;
		size_t u = queue[head++], w;
		while ((w = next_succ(g, u, &pos)) != SIZE_MAX) {
			if (comp[w] != c)
				continue;
			if (w == r) {
				end = u;
				break;
			}
			if (parent[w] != SIZE_MAX)
				continue;
			parent[w] = u;
			queue[tail++] = w;
		}
	}
	for (v = end; v != SIZE_MAX; v = v == r ? SIZE_MAX : parent[v])
		n++;
	out->links = xcalloc(n ? n : 1, sizeof(*out->links));
	out->n = n;
	for (v = end, i = n; v != SIZE_MAX && i > 0; v = v == r ? SIZE_MAX : parent[v]) {
		int32_t t = g->ch_sw[v];
		out->links[--i].node = g->sws[t];
		out->links[i].port = (uint8_t)((v - g->cbase[t]) / g->nvl);
		out->links[i].vl = (uint8_t)((v - g->cbase[t]) % g->nvl);
	}
	for (i = 0; i < tail; i++)
		parent[queue[i]] = SIZE_MAX;
}

void ibs_rc_cdg_finish(struct ibs_rc_cdg *g, struct ibs_routecheck *rc)
{
	size_t N = g->nch ? g->nch : 1, i, next = 0, sp = 0, fp = 0, ncomp = 0, capc = 0, nb;
	size_t *index = xmalloc(N * sizeof(*index)), *low = xmalloc(N * sizeof(*low));
	size_t *comp = xmalloc(N * sizeof(*comp)), *stk = xmalloc(N * sizeof(*stk));
	struct frame *fr = xmalloc(N * sizeof(*fr));
	bool *on = xcalloc(N, sizeof(*on));
	size_t *roots = NULL, capr = 0;

	nb = g->rbase[g->n_sw];
	for (i = 0; i < nb; i++)
		rc->deps += (uint64_t)__builtin_popcountll(g->bits[i]);
	for (i = 0; i < g->nch; i++) {
		int32_t s;
		index[i] = SIZE_MAX;
		comp[i] = SIZE_MAX;
		rc->channels += row_of(g, i, &s) != NULL;
	}
	for (i = 0; i < g->nch; i++) {
		if (index[i] != SIZE_MAX)
			continue;
		fr[fp].v = i;
		fr[fp++].pos = 0;
		index[i] = low[i] = next++;
		stk[sp++] = i;
		on[i] = true;
		while (fp) {
			struct frame *top = &fr[fp - 1];
			size_t v = top->v, w = next_succ(g, v, &top->pos);
			if (w != SIZE_MAX) {
				if (index[w] == SIZE_MAX) {
					index[w] = low[w] = next++;
					stk[sp++] = w;
					on[w] = true;
					fr[fp].v = w;
					fr[fp++].pos = 0;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			fp--;
			if (fp && low[v] < low[fr[fp - 1].v])
				low[fr[fp - 1].v] = low[v];
			if (low[v] == index[v]) {
				size_t w2, size = 0;
				do {
					w2 = stk[--sp];
					on[w2] = false;
					comp[w2] = ncomp;
					size++;
				} while (w2 != v);
				if (size > 1) {
					rc->cycles = xgrow(rc->cycles, &capc, rc->n_cycles + 1, sizeof(*rc->cycles));
					roots = xgrow(roots, &capr, 2 * rc->n_cycles + 2, sizeof(*roots));
					memset(&rc->cycles[rc->n_cycles], 0, sizeof(*rc->cycles));
					rc->cycles[rc->n_cycles].scc = size;
					roots[2 * rc->n_cycles] = v;
					roots[2 * rc->n_cycles++ + 1] = ncomp;
				}
				ncomp++;
			}
		}
	}
	/* The channels of the parts with a cycle: the only ones whose VLs can make or break one. */
	for (i = 0; i < rc->n_cycles; i++)
		on[roots[2 * i + 1] % N] = true; /* on[] is free now: by part number (< nch) */
	for (i = 0; i < g->nch; i++) {
		int32_t t = g->ch_sw[i];
		if (comp[i] != SIZE_MAX && on[comp[i]])
			rc->sw[t].cyclic[(i - g->cbase[t]) / g->nvl] = true;
	}
	/* index and stk are free now: parent and queue of the cycle searches. */
	for (i = 0; i < g->nch; i++)
		index[i] = SIZE_MAX;
	for (i = 0; i < rc->n_cycles; i++)
		cycle_of(g, roots[2 * i], comp, roots[2 * i + 1], index, stk, &rc->cycles[i]);
	free(roots);
	free(index);
	free(low);
	free(comp);
	free(stk);
	free(fr);
	free(on);
	free(g->cbase);
	free(g->rbase);
	free(g->words);
	free(g->ch_sw);
	free(g->bits);
	free(g);
}
