/*
 * The fabric model of tools/bench/fabricmodel.c (see fmodel.h): topology parsing,
 * routes, and a discrete-event simulation of a MAD's trip through the nodes
 * that serve it. Pure C: no clock, no I/O, no interposition.
 */
#include "fmodel.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FM_LIDS 65536

static void *fm_alloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fputs("fabricmodel: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void *fm_grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	p = realloc(p, n * size);
	if (!p) {
		fputs("fabricmodel: out of memory\n", stderr);
		abort();
	}
	memset((char *)p + *cap * size, 0, (n - *cap) * size);
	*cap = n;
	return p;
}

/* A free list of record indices. */
struct fm_freelist {
	int32_t *id;
	size_t n, cap;
};

static void fm_unslot(struct fm_freelist *fl, int id)
{
	fl->id = fm_grow(fl->id, &fl->cap, fl->n + 1, sizeof(*fl->id));
	fl->id[fl->n++] = id;
}

/* A record of an array of *n: a freed one, else a new one at its end (the
 * caller grows the array to *n). */
static int fm_slot(struct fm_freelist *fl, size_t *n)
{
	if (fl->n)
		return fl->id[--fl->n];
	return (int)(*n)++;
}

/* ---- topology ---- */

struct fm_port {
	int32_t peer; /* node, -1: no cable */
	uint8_t peer_port;
};

struct fm_tnode {
	char *id, *desc;
	bool sw;
	int nports;
	struct fm_port *port; /* [0 .. nports] */
};

struct fm_lidseed {
	uint16_t lid;
	uint8_t lmc;
	int32_t node;
};

struct fm_topo {
	struct fm_tnode *node;
	size_t n, cap;
	int32_t *hash; /* node + 1, 0: empty */
	size_t hcap;
	struct fm_lidseed *seed;
	size_t nseed, seedcap;
};

static uint32_t fm_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int fm_lookup(const struct fm_topo *t, const char *s, size_t len)
{
	size_t i;

	if (!t->hcap)
		return -1;
	for (i = fm_hash(s, len) & (t->hcap - 1); t->hash[i]; i = (i + 1) & (t->hcap - 1)) {
		const char *id = t->node[t->hash[i] - 1].id;

		if (strlen(id) == len && !memcmp(id, s, len))
			return t->hash[i] - 1;
	}
	return -1;
}

static void fm_rehash(struct fm_topo *t)
{
	size_t i, j;

	free(t->hash);
	t->hcap = 64;
	while (t->hcap < 2 * t->n + 2)
		t->hcap *= 2;
	t->hash = fm_alloc(t->hcap, sizeof(*t->hash));
	for (i = 0; i < t->n; i++) {
		j = fm_hash(t->node[i].id, strlen(t->node[i].id)) & (t->hcap - 1);
		while (t->hash[j])
			j = (j + 1) & (t->hcap - 1);
		t->hash[j] = (int32_t)i + 1;
	}
}

/* A quoted string at *p (after blanks): its text and length; p moves past it. */
static bool fm_quoted(const char **p, const char *end, const char **s, size_t *len)
{
	const char *q = *p, *e;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q >= end || *q != '"')
		return false;
	e = memchr(q + 1, '"', (size_t)(end - q - 1));
	if (!e)
		return false;
	*s = q + 1;
	*len = (size_t)(e - q - 1);
	*p = e + 1;
	return true;
}

static long fm_number(const char **p, const char *end)
{
	const char *q = *p;
	long v = 0;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q >= end || !isdigit((unsigned char)*q))
		return -1;
	while (q < end && isdigit((unsigned char)*q) && v < 100000)
		v = v * 10 + (*q++ - '0');
	*p = q;
	return v;
}

static bool fm_starts(const char *s, const char *end, const char *word)
{
	size_t wl = strlen(word);

	return (size_t)(end - s) > wl && !memcmp(s, word, wl) && !isalpha((unsigned char)s[wl]);
}

/* "word N" somewhere in [s, end): N, or -1. */
static long fm_after(const char *s, const char *end, const char *word)
{
	const char *start = s;
	size_t wl = strlen(word);

	for (; s + wl < end; s++)
		if (!memcmp(s, word, wl) && (s == start || !isalnum((unsigned char)s[-1])) &&
		    (s[wl] == ' ' || s[wl] == '\t')) {
			const char *q = s + wl;

			return fm_number(&q, end);
		}
	return -1;
}

static char *fm_strndup(const char *s, size_t len)
{
	char *d = fm_alloc(len + 1, 1);

	memcpy(d, s, len);
	return d;
}

static void fm_seed(struct fm_topo *t, long lid, long lmc, int node)
{
	if (lid <= 0 || lid >= 0xc000)
		return;
	t->seed = fm_grow(t->seed, &t->seedcap, t->nseed + 1, sizeof(*t->seed));
	t->seed[t->nseed++] = (struct fm_lidseed){ (uint16_t)lid, (uint8_t)(lmc > 0 && lmc < 8 ? lmc : 0),
						   node };
}

struct fm_pending {
	int node, port, line;
	const char *peer;
	size_t plen;
	int pport;
};

static struct fm_topo *fm_fail(struct fm_topo *t, struct fm_pending *pend, char *err, size_t errlen,
			       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	free(pend);
	fm_topo_free(t);
	return NULL;
}

struct fm_topo *fm_topo_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct fm_topo *t = fm_alloc(1, sizeof(*t));
	struct fm_pending *pend = NULL;
	size_t npend = 0, pendcap = 0, i;
	const char *p = text, *end = text + len;
	int line = 0, cur = -1;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p, *hash;
		const char *s;
		size_t sl;

		if (!eol)
			eol = end;
		line++;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		hash = memchr(q, '#', (size_t)(eol - q));
		if (q == eol || *q == '#') {
			cur = q == eol ? -1 : cur;
		} else if (*q == '[') {
			long port, pport = 1;
			struct fm_tnode *nd;

			if (cur < 0)
				return fm_fail(t, pend, err, errlen, "line %d: a port line outside a node", line);
			q++;
			nd = &t->node[cur];
			port = fm_number(&q, eol);
			if (port < 0 || port > nd->nports || q >= eol || *q != ']')
				return fm_fail(t, pend, err, errlen, "line %d: bad port number", line);
			q++;
			if (q < eol && *q == '(')
				while (q < eol && *q != ')')
					q++;
			if (q < eol)
				q++;
			if (!fm_quoted(&q, eol, &s, &sl))
				return fm_fail(t, pend, err, errlen, "line %d: no quoted peer", line);
			if (q < eol && *q == '[') {
				q++;
				pport = fm_number(&q, eol);
				if (pport < 0)
					return fm_fail(t, pend, err, errlen, "line %d: bad peer port", line);
			}
			pend = fm_grow(pend, &pendcap, npend + 1, sizeof(*pend));
			pend[npend++] = (struct fm_pending){ cur, (int)port, line, s, sl, (int)pport };
			if (!nd->sw && hash)
				fm_seed(t, fm_after(hash, eol, "lid"), fm_after(hash, eol, "lmc"), cur);
		} else if (fm_starts(q, eol, "Switch") || fm_starts(q, eol, "Hca") || fm_starts(q, eol, "Ca") ||
			   fm_starts(q, eol, "Rt")) {
			bool sw = *q == 'S';
			long nports;
			struct fm_tnode *nd;

			while (q < eol && isalpha((unsigned char)*q))
				q++;
			nports = fm_number(&q, eol);
			if (nports < 1 || nports > 254)
				return fm_fail(t, pend, err, errlen, "line %d: bad port count", line);
			if (!fm_quoted(&q, eol, &s, &sl))
				return fm_fail(t, pend, err, errlen, "line %d: no quoted node id", line);
			if (fm_lookup(t, s, sl) >= 0)
				return fm_fail(t, pend, err, errlen, "line %d: node \"%.*s\" twice", line, (int)sl, s);
			t->node = fm_grow(t->node, &t->cap, t->n + 1, sizeof(*t->node));
			cur = (int)t->n++;
			nd = &t->node[cur];
			nd->id = fm_strndup(s, sl);
			nd->sw = sw;
			nd->nports = (int)nports;
			nd->port = fm_alloc((size_t)nports + 1, sizeof(*nd->port));
			for (i = 0; i <= (size_t)nports; i++)
				nd->port[i].peer = -1;
			if (hash) {
				const char *h = hash + 1;

				if (fm_quoted(&h, eol, &s, &sl))
					nd->desc = fm_strndup(s, sl);
				if (sw)
					fm_seed(t, fm_after(hash, eol, "lid"), fm_after(hash, eol, "lmc"), cur);
			}
			if (t->hcap < 2 * t->n + 2)
				fm_rehash(t);
			else {
				size_t j = fm_hash(nd->id, strlen(nd->id)) & (t->hcap - 1);

				while (t->hash[j])
					j = (j + 1) & (t->hcap - 1);
				t->hash[j] = cur + 1;
			}
		}
		/* anything else (vendid=, switchguid=, aliases) says nothing about cables */
		p = eol + 1;
	}
	for (i = 0; i < npend; i++) {
		struct fm_pending *e = &pend[i];
		int peer = fm_lookup(t, e->peer, e->plen);

		if (peer < 0)
			return fm_fail(t, pend, err, errlen, "line %d: unknown node \"%.*s\"", e->line, (int)e->plen,
				       e->peer);
		if (e->pport > t->node[peer].nports || (!t->node[peer].sw && e->pport < 1))
			return fm_fail(t, pend, err, errlen, "line %d: \"%.*s\" has no port %d", e->line,
				       (int)e->plen, e->peer, e->pport);
		t->node[e->node].port[e->port] = (struct fm_port){ peer, (uint8_t)e->pport };
		if (t->node[peer].port[e->pport].peer < 0)
			t->node[peer].port[e->pport] = (struct fm_port){ e->node, (uint8_t)e->port };
	}
	free(pend);
	if (!t->n)
		return fm_fail(t, NULL, err, errlen, "no nodes");
	return t;
}

void fm_topo_free(struct fm_topo *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->node[i].id);
		free(t->node[i].desc);
		free(t->node[i].port);
	}
	free(t->node);
	free(t->hash);
	free(t->seed);
	free(t);
}

int fm_topo_count(const struct fm_topo *t)
{
	return (int)t->n;
}

int fm_topo_find(const struct fm_topo *t, const char *name)
{
	int i = fm_lookup(t, name, strlen(name));
	size_t j;

	if (i >= 0)
		return i;
	for (j = 0; j < t->n; j++)
		if (t->node[j].desc && !strcmp(t->node[j].desc, name))
			return (int)j;
	return -1;
}

const char *fm_topo_id(const struct fm_topo *t, int node)
{
	return node >= 0 && (size_t)node < t->n ? t->node[node].id : "?";
}

bool fm_topo_is_switch(const struct fm_topo *t, int node)
{
	return node >= 0 && (size_t)node < t->n && t->node[node].sw;
}

/* ---- the model ---- */

enum { EV_ARRIVE, EV_DONE, EV_RELEASE };
enum { RQ_FREE, RQ_PENDING, RQ_DONE };

struct fm_ev {
	uint64_t t, seq;
	int32_t id; /* trip */
	uint8_t type;
};

/* The kernel's timeouts of one length, in the order they fall due. They stay
 * out of the event heap: a tool has one per request in flight, most of them
 * for requests long answered, and every length falls due in send order. */
struct fm_timeout {
	uint64_t t;
	int32_t req;
	uint32_t gen;
};

struct fm_tq {
	uint64_t len_ns;
	struct fm_timeout *e; /* a ring */
	size_t cap, head, n;
};

struct fm_req {
	struct fm_route route;
	uint64_t tag, timeout_ns, done_at;
	uint32_t gen;
	unsigned retries_left;
	int live_trips;
	uint8_t state, outcome;
	bool put;
};

struct fm_trip {
	int32_t req; /* -1: free */
	int cur;     /* index of the stop it is at or going to */
};

struct fm_nstate {
	int32_t busy; /* trip in service, -1: idle */
	int32_t *q;   /* waiting trips, a ring */
	size_t qcap;
	unsigned qhead, qlen, max_busy;
	unsigned out, max_out; /* requests in flight that it serves on their way */
	uint64_t stamp;        /* fm_outstanding() has counted this node for this route */
	uint64_t free_at;      /* when its last service ends */
	uint64_t served, dropped;
};

struct fm_model {
	const struct fm_topo *t;
	struct fm_params p;
	int local;
	uint16_t *dist; /* links from local, UINT16_MAX: unreachable */
	int32_t *lid;   /* node, -1: unknown */
	struct fm_nstate *ns;
	struct fm_ev *heap;
	size_t nheap, heapcap;
	struct fm_tq *tq;
	size_t ntq;
	uint64_t tq_low; /* no live timeout falls due before this (a lower bound) */
	uint64_t stamp;
	uint64_t seq;
	struct fm_req *req;
	size_t nreq, reqcap;
	struct fm_freelist freereq;
	struct fm_trip *trip;
	size_t ntrip, tripcap;
	struct fm_freelist freetrip;
	int32_t *done; /* ended requests not yet popped, a ring */
	size_t donecap, donehead, donelen;
	struct fm_stats st;
	uint64_t rng; /* for loss_ppm */
};

static void fm_distances(struct fm_model *m)
{
	const struct fm_topo *t = m->t;
	int32_t *queue = fm_alloc(t->n, sizeof(*queue));
	size_t head = 0, tail = 0, i;

	for (i = 0; i < t->n; i++)
		m->dist[i] = UINT16_MAX;
	m->dist[m->local] = 0;
	queue[tail++] = m->local;
	while (head < tail) {
		int n = queue[head++], pn;
		const struct fm_tnode *nd = &t->node[n];

		/* CAs do not forward; the sender's CA sends on its first cabled port,
		 * where ibsim attaches the client. */
		if (!nd->sw && n != m->local)
			continue;
		for (pn = 1; pn <= nd->nports; pn++) {
			int peer = nd->port[pn].peer;

			if (peer < 0)
				continue;
			if (m->dist[peer] == UINT16_MAX) {
				m->dist[peer] = (uint16_t)(m->dist[n] + 1);
				queue[tail++] = peer;
			}
			if (!nd->sw)
				break;
		}
	}
	free(queue);
}

struct fm_model *fm_new(const struct fm_topo *t, int local, const struct fm_params *p)
{
	struct fm_model *m = fm_alloc(1, sizeof(*m));
	size_t i;

	m->t = t;
	m->p = *p;
	m->local = local;
	m->dist = fm_alloc(t->n, sizeof(*m->dist));
	m->lid = fm_alloc(FM_LIDS, sizeof(*m->lid));
	for (i = 0; i < FM_LIDS; i++)
		m->lid[i] = -1;
	for (i = 0; i < t->nseed; i++)
		fm_learn_lid(m, t->seed[i].lid, t->seed[i].lmc, t->seed[i].node);
	m->ns = fm_alloc(t->n, sizeof(*m->ns));
	for (i = 0; i < t->n; i++)
		m->ns[i].busy = -1;
	m->st.max_node = -1;
	m->st.max_out_node = -1;
	m->tq_low = FM_NEVER;
	fm_distances(m);
	m->rng = 0x9e3779b97f4a7c15ull;
	return m;
}

void fm_free(struct fm_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->t->n; i++)
		free(m->ns[i].q);
	free(m->ns);
	free(m->dist);
	free(m->lid);
	free(m->heap);
	for (i = 0; i < m->ntq; i++)
		free(m->tq[i].e);
	free(m->tq);
	free(m->req);
	free(m->freereq.id);
	free(m->trip);
	free(m->freetrip.id);
	free(m->done);
	free(m);
}

void fm_learn_lid(struct fm_model *m, uint16_t lid, unsigned lmc, int node)
{
	unsigned i, n = 1u << (lmc & 7);

	for (i = 0; i < n && lid + i < 0xc000; i++)
		if (lid + i)
			m->lid[lid + i] = node;
}

/* An empty route (the stops are written as they are added: no need to clear them). */
static void fm_route_init(struct fm_route *r)
{
	r->nstops = 0;
	r->hops = 0;
	r->dest = -1;
	r->resolved = false;
}

static void fm_add_stop(struct fm_route *r, int node, int hops)
{
	r->stop[r->nstops++] = (struct fm_stop){ node, (uint16_t)hops };
}

void fm_route_dr(const struct fm_model *m, const uint8_t *path, int hops, struct fm_route *r)
{
	const struct fm_topo *t = m->t;
	int n = m->local, i, since = 0;

	fm_route_init(r);
	r->resolved = true;
	if (hops > FM_MAX_HOPS)
		hops = FM_MAX_HOPS;
	if (t->node[n].sw && hops > 0)
		fm_add_stop(r, n, 0);
	for (i = 1; i <= hops; i++) {
		const struct fm_tnode *nd = &t->node[n];
		int port = path[i];

		/* A CA forwards nothing; port 0 of a switch is the switch itself. */
		if ((i > 1 && !nd->sw) || port > nd->nports || (!nd->sw && port < 1))
			break;
		if (port == 0)
			continue;
		if (nd->port[port].peer < 0)
			break;
		n = nd->port[port].peer;
		r->hops++;
		since++;
		if (t->node[n].sw && i < hops) {
			fm_add_stop(r, n, since);
			since = 0;
		}
	}
	/* The destination, or where the path ends early (ibsim answers from there). */
	if (!r->nstops || r->stop[r->nstops - 1].node != n || since)
		fm_add_stop(r, n, since);
	r->dest = n;
}

void fm_route_lid(const struct fm_model *m, uint16_t lid, struct fm_route *r)
{
	int n = m->lid[lid];

	fm_route_init(r);
	r->dest = n;
	if (n < 0 || m->dist[n] == UINT16_MAX)
		return;
	r->resolved = true;
	r->hops = m->dist[n];
	fm_add_stop(r, n, r->hops);
}

/* ---- events ---- */

static bool fm_ev_less(const struct fm_ev *a, const struct fm_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void fm_push(struct fm_model *m, uint64_t t, int type, int32_t id)
{
	size_t i;

	if (m->nheap == m->heapcap)
		m->heap = fm_grow(m->heap, &m->heapcap, m->nheap + 1, sizeof(*m->heap));
	i = m->nheap++;
	m->heap[i] = (struct fm_ev){ t, m->seq++, id, (uint8_t)type };
	while (i && fm_ev_less(&m->heap[i], &m->heap[(i - 1) / 2])) {
		struct fm_ev tmp = m->heap[i];

		m->heap[i] = m->heap[(i - 1) / 2];
		m->heap[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static struct fm_ev fm_pop(struct fm_model *m)
{
	struct fm_ev top = m->heap[0];
	size_t i = 0;

	m->heap[0] = m->heap[--m->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		struct fm_ev tmp;

		if (l < m->nheap && fm_ev_less(&m->heap[l], &m->heap[s]))
			s = l;
		if (r < m->nheap && fm_ev_less(&m->heap[r], &m->heap[s]))
			s = r;
		if (s == i)
			break;
		tmp = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = tmp;
		i = s;
	}
	return top;
}

static uint64_t fm_svc(const struct fm_model *m, int node)
{
	return m->t->node[node].sw ? m->p.switch_ns : m->p.ca_ns;
}

static void fm_req_free_if_unused(struct fm_model *m, int id)
{
	struct fm_req *r = &m->req[id];

	if (r->put && !r->live_trips && r->state == RQ_DONE) {
		r->state = RQ_FREE;
		r->gen++;
		fm_unslot(&m->freereq, id);
	}
}

static void fm_trip_end(struct fm_model *m, int trip)
{
	int req = m->trip[trip].req;

	m->trip[trip].req = -1;
	fm_unslot(&m->freetrip, trip);
	m->req[req].live_trips--;
	fm_req_free_if_unused(m, req);
}

static void fm_timeout_add(struct fm_model *m, uint64_t t, uint64_t len, int req, uint32_t gen)
{
	struct fm_tq *q;
	size_t i;

	for (i = 0; i < m->ntq && m->tq[i].len_ns != len; i++)
		;
	if (i == m->ntq) {
		m->tq = realloc(m->tq, (m->ntq + 1) * sizeof(*m->tq));
		if (!m->tq) {
			fputs("fabricmodel: out of memory\n", stderr);
			abort();
		}
		m->tq[m->ntq++] = (struct fm_tq){ len, NULL, 0, 0, 0 };
	}
	q = &m->tq[i];
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256, j;
		struct fm_timeout *e = fm_alloc(cap, sizeof(*e));

		for (j = 0; j < q->n; j++)
			e[j] = q->e[(q->head + j) % q->cap];
		free(q->e);
		q->e = e;
		q->cap = cap;
		q->head = 0;
	}
	/* In order: almost always at the end (times only go back after a run-ahead). */
	for (i = q->n; i > 0 && q->e[(q->head + i - 1) % q->cap].t > t; i--)
		q->e[(q->head + i) % q->cap] = q->e[(q->head + i - 1) % q->cap];
	q->e[(q->head + i) % q->cap] = (struct fm_timeout){ t, req, gen };
	q->n++;
	if (t < m->tq_low)
		m->tq_low = t;
}

/* The queue whose first live timeout falls due first (dropping those of
 * ended requests on the way), or NULL. */
static struct fm_tq *fm_timeout_first(struct fm_model *m)
{
	struct fm_tq *best = NULL;
	size_t i;

	for (i = 0; i < m->ntq; i++) {
		struct fm_tq *q = &m->tq[i];

		while (q->n) {
			const struct fm_timeout *e = &q->e[q->head];
			const struct fm_req *r = &m->req[e->req];

			if (r->gen == e->gen && r->state == RQ_PENDING)
				break;
			q->head = (q->head + 1) % q->cap;
			q->n--;
		}
		if (q->n && (!best || q->e[q->head].t < best->e[best->head].t))
			best = q;
	}
	m->tq_low = best ? best->e[best->head].t : FM_NEVER;
	return best;
}

/* When the next event falls due (an answer wins a tie with a timeout). */
static uint64_t fm_event_time(struct fm_model *m)
{
	const struct fm_tq *q = fm_timeout_first(m);
	uint64_t t = m->nheap ? m->heap[0].t : FM_NEVER;

	return q && q->e[q->head].t < t ? q->e[q->head].t : t;
}

static void fm_trip_start(struct fm_model *m, uint64_t t, int req)
{
	struct fm_req *r = &m->req[req];
	int id = fm_slot(&m->freetrip, &m->ntrip);

	m->trip = fm_grow(m->trip, &m->tripcap, m->ntrip, sizeof(*m->trip));
	m->trip[id] = (struct fm_trip){ req, 0 };
	r->live_trips++;
	if (!r->route.nstops)
		fm_push(m, t, EV_RELEASE, id); /* an unknown LID: no model */
	else
		fm_push(m, t + r->route.stop[0].hops * m->p.hop_ns, EV_ARRIVE, id);
	if (r->timeout_ns)
		fm_timeout_add(m, t + r->timeout_ns, r->timeout_ns, req, r->gen);
}

/* Requests in flight through each node, as a tool counts what it has
 * outstanding there: once per request, even if its route comes back through
 * a switch (a walk probing the port it came in by). */
static void fm_outstanding(struct fm_model *m, const struct fm_route *route, int delta)
{
	int i;

	m->stamp++;
	for (i = 0; i < route->nstops; i++) {
		int node = route->stop[i].node;
		struct fm_nstate *ns = &m->ns[node];

		if (ns->stamp == m->stamp)
			continue;
		ns->stamp = m->stamp;
		ns->out = (unsigned)((int)ns->out + delta);
		if (ns->out > ns->max_out)
			ns->max_out = ns->out;
		if (m->t->node[node].sw && ns->out > m->st.max_out) {
			m->st.max_out = ns->out;
			m->st.max_out_node = node;
		}
	}
}

static void fm_end_req(struct fm_model *m, int req, uint64_t t, enum fm_outcome out)
{
	struct fm_req *r = &m->req[req];

	fm_outstanding(m, &r->route, -1);
	r->state = RQ_DONE;
	r->outcome = (uint8_t)out;
	r->done_at = t;
	if (out == FM_TIMED_OUT)
		m->st.timed_out++;
	if (m->donelen == m->donecap) {
		size_t old = m->donecap, i;
		int32_t *d;

		m->donecap = old ? 2 * old : 64;
		d = fm_alloc(m->donecap, sizeof(*d));
		for (i = 0; i < m->donelen; i++)
			d[i] = m->done[(m->donehead + i) % old];
		free(m->done);
		m->done = d;
		m->donehead = 0;
	}
	m->done[(m->donehead + m->donelen++) % m->donecap] = req;
}

static void fm_serve(struct fm_model *m, uint64_t t, int node, int trip)
{
	struct fm_nstate *ns = &m->ns[node];

	/* One at a time, even if an arrival is run after a later one (a send
	 * while the model had run ahead): never before the last service ends. */
	ns->free_at = (t > ns->free_at ? t : ns->free_at) + fm_svc(m, node);
	ns->busy = trip;
	fm_push(m, ns->free_at, EV_DONE, trip);
}

static void fm_arrive(struct fm_model *m, uint64_t t, int trip)
{
	const struct fm_req *r = &m->req[m->trip[trip].req];
	int node = r->route.stop[m->trip[trip].cur].node;
	struct fm_nstate *ns = &m->ns[node];
	unsigned busy;

	if (m->p.loss_ppm && m->trip[trip].cur == r->route.nstops - 1) {
		/* xorshift64: the same losses in every run of the same requests. */
		m->rng ^= m->rng << 13;
		m->rng ^= m->rng >> 7;
		m->rng ^= m->rng << 17;
		if (m->rng % 1000000u < m->p.loss_ppm) {
			ns->dropped++;
			m->st.dropped++;
			fm_trip_end(m, trip);
			return;
		}
	}
	if (ns->busy >= 0) {
		if (m->p.queue != FM_NO_LIMIT && ns->qlen >= (unsigned)m->p.queue) {
			ns->dropped++;
			m->st.dropped++;
			fm_trip_end(m, trip);
			return;
		}
		if (ns->qlen == ns->qcap) {
			size_t cap = ns->qcap ? 2 * ns->qcap : 8, i;
			int32_t *d = fm_alloc(cap, sizeof(*d));

			for (i = 0; i < ns->qlen; i++)
				d[i] = ns->q[(ns->qhead + i) % ns->qcap];
			free(ns->q);
			ns->q = d;
			ns->qcap = cap;
			ns->qhead = 0;
		}
		ns->q[(ns->qhead + ns->qlen++) % ns->qcap] = trip;
	} else {
		fm_serve(m, t, node, trip);
	}
	ns->served++;
	busy = 1 + ns->qlen;
	if (busy > ns->max_busy)
		ns->max_busy = busy;
	if (m->t->node[node].sw && busy > m->st.max_busy) {
		m->st.max_busy = busy;
		m->st.max_node = node;
	}
}

static void fm_done(struct fm_model *m, uint64_t t, int trip)
{
	struct fm_trip *tr = &m->trip[trip];
	const struct fm_req *r = &m->req[tr->req];
	int node = r->route.stop[tr->cur].node;
	struct fm_nstate *ns = &m->ns[node];

	ns->busy = -1;
	if (ns->qlen) {
		int next = ns->q[ns->qhead];

		ns->qhead = (unsigned)((ns->qhead + 1) % ns->qcap);
		ns->qlen--;
		fm_serve(m, t, node, next);
	}
	if (tr->cur + 1 < r->route.nstops) {
		tr->cur++;
		fm_push(m, t + r->route.stop[tr->cur].hops * m->p.hop_ns, EV_ARRIVE, trip);
	} else {
		fm_push(m, t + (uint64_t)r->route.hops * m->p.hop_ns, EV_RELEASE, trip);
	}
}

/* The kernel's timeout of a request: send it again (0), or end it with status 110 (1). */
static int fm_timeout(struct fm_model *m, uint64_t t, int req)
{
	struct fm_req *r = &m->req[req];

	if (r->retries_left) {
		r->retries_left--;
		m->st.resent++;
		fm_trip_start(m, t, req);
		return 0;
	}
	fm_end_req(m, req, t, FM_TIMED_OUT);
	return 1;
}

/* Runs the next event if it falls due by limit: 1 if it ended a request, 0
 * if not, -1 if there was none to run. */
static int fm_step(struct fm_model *m, uint64_t limit)
{
	uint64_t th = m->nheap ? m->heap[0].t : FM_NEVER;
	/* Most steps are answers long before any timeout: no need to look. */
	struct fm_tq *q = th < m->tq_low ? NULL : fm_timeout_first(m);
	struct fm_ev e;
	int req;

	if (q && q->e[q->head].t < th) {
		if (q->e[q->head].t > limit)
			return -1;
		struct fm_timeout to = q->e[q->head];

		q->head = (q->head + 1) % q->cap;
		q->n--;
		return fm_timeout(m, to.t, to.req);
	}
	if (th == FM_NEVER || th > limit)
		return -1;
	e = fm_pop(m);
	switch (e.type) {
	case EV_ARRIVE:
		fm_arrive(m, e.t, e.id);
		return 0;
	case EV_DONE:
		fm_done(m, e.t, e.id);
		return 0;
	default: /* EV_RELEASE */
		/* Any attempt's answer ends the request: the kernel matches on the TID. */
		req = m->trip[e.id].req;
		fm_trip_end(m, e.id);
		if (m->req[req].state != RQ_PENDING)
			return 0;
		fm_end_req(m, req, e.t, FM_ANSWERED);
		return 1;
	}
}

int fm_send(struct fm_model *m, uint64_t now, enum fm_kind kind, const struct fm_route *route,
	    uint64_t timeout_ns, unsigned retries, uint64_t tag)
{
	int id = fm_slot(&m->freereq, &m->nreq);
	struct fm_req *r;

	m->req = fm_grow(m->req, &m->reqcap, m->nreq, sizeof(*m->req));
	r = &m->req[id];
	r->route.nstops = route->nstops;
	r->route.hops = route->hops;
	r->route.dest = route->dest;
	r->route.resolved = route->resolved;
	memcpy(r->route.stop, route->stop, (size_t)route->nstops * sizeof(route->stop[0]));
	r->tag = tag;
	r->timeout_ns = timeout_ns;
	r->retries_left = retries;
	r->live_trips = 0;
	r->state = RQ_PENDING;
	r->put = false;
	m->st.sent[kind]++;
	fm_outstanding(m, route, 1);
	if (!route->resolved)
		m->st.unresolved++;
	fm_trip_start(m, now, id);
	return id;
}

void fm_advance(struct fm_model *m, uint64_t now)
{
	while (fm_step(m, now) >= 0)
		;
}

uint64_t fm_next_time(struct fm_model *m)
{
	uint64_t t = fm_event_time(m);

	if (m->donelen && m->req[m->done[m->donehead]].done_at < t)
		t = m->req[m->done[m->donehead]].done_at;
	return t;
}

uint64_t fm_run_until_done(struct fm_model *m, uint64_t limit)
{
	for (;;) {
		if (m->donelen)
			return m->req[m->done[m->donehead]].done_at;
		if (fm_step(m, limit) < 0)
			return FM_NEVER;
	}
}

bool fm_pop_done(struct fm_model *m, uint64_t now, int *req, uint64_t *tag, enum fm_outcome *out)
{
	const struct fm_req *r;

	if (!m->donelen)
		return false;
	r = &m->req[m->done[m->donehead]];
	if (r->done_at > now)
		return false;
	*req = m->done[m->donehead];
	*tag = r->tag;
	*out = (enum fm_outcome)r->outcome;
	m->donehead = (m->donehead + 1) % m->donecap;
	m->donelen--;
	return true;
}

int fm_req_dest(const struct fm_model *m, int req)
{
	return m->req[req].route.dest;
}

uint64_t fm_req_done_at(const struct fm_model *m, int req)
{
	return m->req[req].done_at;
}

void fm_req_put(struct fm_model *m, int req)
{
	m->req[req].put = true;
	fm_req_free_if_unused(m, req);
}

void fm_stats(const struct fm_model *m, struct fm_stats *s)
{
	*s = m->st;
}

void fm_node_stats(const struct fm_model *m, int node, struct fm_node_stats *s)
{
	s->served = m->ns[node].served;
	s->dropped = m->ns[node].dropped;
	s->max_busy = m->ns[node].max_busy;
	s->max_out = m->ns[node].max_out;
}
