/*
 * Directed-route discovery (IBA 14.2.2: SMPs routed by an initial path).
 *
 * Level k holds the nodes k hops away. For each level: (A) read the details
 * of its new nodes (NodeDescription, SwitchInfo, PortInfo, GUIDInfo); (B)
 * send NodeInfo out of every linked switch port whose cable is not known yet;
 * then (C) resolve those answers in a fixed order: a GUID seen for the first
 * time is a new node on level k+1, a known GUID entering on a free port is a
 * second cable to it, and a known GUID whose entry port is already cabled
 * elsewhere (or down) is a different node with a duplicate GUID. A cable found
 * from one side is never probed again from the other side.
 *
 * Every node here comes from ibs_fabric_add_node, with a record for each of
 * its ports: n->ports[p] is port p (p <= num_ports), so the walker indexes
 * directly.
 *
 * A fabric has many paths to most nodes. Each query is given up to four:
 * its own, then through other nodes one level up (another spine), over a
 * parallel cable, and through the first parent's other paths; the engine
 * retries along the next one when an attempt fails (core/mad/engine.h). A query
 * that fails along all of them is asked once more in a re-sweep when the
 * levels run out, and only then counted as an error. Whatever path
 * answered, the model keeps the first one (the node's or the port's own),
 * so a walk that loses MADs reports what a clean walk reports.
 */
#include "walk.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PATHS 4  /* paths a query tries: the first one and up to three others */
#define MAX_VIAS 2   /* other nodes one level up kept per node, besides the first */

struct probe {
	struct ibs_node *from; /* NULL for the local node */
	uint8_t port;
	struct ibs_addr path;
	bool last_chance;      /* asked in the re-sweep: a failure is final */
	bool ok;
	struct ibs_nodeinfo ni;
	enum ibs_outcome outcome;
	uint16_t status;
};

#define NO_NODE UINT32_MAX

/*
 * Other ways into a node, besides the path that first reached it: cables
 * from other nodes one level up (same path length), and one more cable from
 * the node that first reached it. Indexed by the node's index while walking,
 * and naming nodes by theirs (f->nodes is in that order until the end).
 */
struct uplinks {
	uint32_t via[MAX_VIAS];
	uint32_t parent;  /* the node that first reached it, or NO_NODE */
	uint8_t via_port[MAX_VIAS];
	uint8_t n_via;
	uint8_t parallel; /* another port of the parent cabled here, or 0 */
};

struct walker {
	struct ibs_engine *e;
	struct ibs_fabric *f;
	struct ibs_run *run;
	const struct ibs_walk_opts *o;
	struct ibs_node **level;   /* nodes whose details to read */
	size_t n_level, cap_level;
	struct port_task {
		struct ibs_node *node;
		uint8_t port;
		struct ibs_node *from; /* the cable into it: from's port */
		uint8_t from_port;
	} *tasks;                  /* extra CA ports reached by another cable */
	size_t n_tasks, cap_tasks;
	struct probe *probes;
	size_t n_probes, cap_probes;
	struct uplinks *up;
	size_t n_up, cap_up;       /* zeroed as nodes come: spare capacity stays untouched */
	struct qctx **deferred;    /* queries that failed along every path: for the re-sweep */
	size_t n_deferred, cap_deferred;
	struct port_ref {
		struct ibs_node *node;
		uint8_t port;
	} *reprobe;                /* probes that failed along every path: for the re-sweep */
	size_t n_reprobe, cap_reprobe;
	uint64_t resweeps;         /* queries asked again at the end */
	struct qctx *free_ctx;
};

struct qctx {
	struct walker *w;
	union {
		struct ibs_node *node; /* what the answer is about */
		struct qctx *next;     /* on the walker's free list */
	};
	/*
	 * Where the query goes: the paths into `base`, each extended by port
	 * `ext` when it is not 0; or, when is_fixed, only the path `fixed`
	 * (which outlives the query). The first of them is the path the model
	 * reports (query_canon).
	 */
	union {
		struct ibs_node *base;
		const struct ibs_addr *fixed;
	};
	uint32_t probe;         /* index in the walker's probes, or in the fabric's SMs */
	uint32_t mod;
	uint16_t attr;
	uint8_t port;
	uint8_t ext;
	bool is_fixed;
	bool last_chance;       /* in the re-sweep: a failure now is final */
};

/* One context per query, recycled: a walk sends hundreds of thousands. */
static struct qctx *qctx(struct walker *w, struct ibs_node *n, uint8_t port)
{
	struct qctx *c = w->free_ctx;

	if (c)
		w->free_ctx = c->next;
	else
		c = xmalloc(sizeof(*c));

	c->w = w;
	c->node = n;
	c->port = port;
	c->probe = 0;
	c->base = NULL;
	c->is_fixed = false;
	c->ext = 0;
	c->last_chance = false;
	return c;
}

static void qctx_put(struct qctx *c)
{
	c->next = c->w->free_ctx;
	c->w->free_ctx = c;
}

static struct uplinks *uplinks(struct walker *w, const struct ibs_node *n)
{
	while (n->index >= w->n_up) {
		w->up = xgrow(w->up, &w->cap_up, w->n_up + 1, sizeof(*w->up));
		memset(&w->up[w->n_up], 0, sizeof(*w->up));
		w->up[w->n_up++].parent = NO_NODE;
	}
	return &w->up[n->index];
}

static struct ibs_node *node_at(const struct walker *w, uint32_t index)
{
	return w->f->nodes[index];
}

/*
 * A cable from from:port into n's port k, learnt from either end. When from
 * is one level above n it is another way into n, as short as the first: kept
 * for the queries that fail. A CA answers about the port a query enters by,
 * so only cables into that same port will do for it.
 */
static void add_uplink(struct walker *w, struct ibs_node *n, uint8_t k, struct ibs_node *from, uint8_t port)
{
	struct uplinks *u;
	unsigned i;

	if (from->path.hops + 1 != n->path.hops || (n->ni.node_type != IBS_NODE_SWITCH && k != n->entry_port))
		return;
	u = uplinks(w, n);
	if (from->index == u->parent && port == n->path.path[n->path.hops])
		return; /* the cable that first reached n */
	if (from->index == u->parent) {
		if (!u->parallel)
			u->parallel = port;
		return;
	}
	for (i = 0; i < u->n_via; i++)
		if (u->via[i] == from->index)
			return;
	if (u->n_via < MAX_VIAS) {
		u->via[u->n_via] = (uint32_t)from->index;
		u->via_port[u->n_via++] = port;
	}
}

/*
 * How many paths lead into n, at most MAX_PATHS: the first, then through
 * other parents, then a parallel cable, then the first parent's other paths
 * followed by the same last cable (a host has one cable, its leaf many paths).
 */
static unsigned node_paths(struct walker *w, const struct ibs_node *n)
{
	const struct uplinks *u;
	unsigned k;

	if (n->index >= w->n_up)
		return 1;
	u = &w->up[n->index];
	k = 1 + u->n_via + (u->parallel != 0);
	if (u->parent != NO_NODE && k < MAX_PATHS)
		k += node_paths(w, node_at(w, u->parent)) - 1;
	return k < MAX_PATHS ? k : MAX_PATHS;
}

/* Path i into n (i < node_paths(n)), in the order node_paths() counts them. */
static void node_path(struct walker *w, const struct ibs_node *n, unsigned i, struct ibs_addr *out)
{
	const struct uplinks *u;
	unsigned own;

	if (i == 0) {
		*out = n->path;
		return;
	}
	u = &w->up[n->index];
	own = u->n_via + (u->parallel != 0);
	if (i <= u->n_via)
		ibs_addr_dr_extend(out, &node_at(w, u->via[i - 1])->path, u->via_port[i - 1]);
	else if (i <= own)
		ibs_addr_dr_extend(out, &node_at(w, u->parent)->path, u->parallel);
	else {
		node_path(w, node_at(w, u->parent), i - own, out);
		ibs_addr_dr_extend(out, out, n->path.path[n->path.hops]);
	}
}

static unsigned query_paths(struct qctx *c)
{
	unsigned n;

	if (c->is_fixed)
		return 1;
	n = node_paths(c->w, c->base);
	return n < MAX_PATHS ? n : MAX_PATHS;
}

/* Path i of a query, for the engine's retries (ibs_path_fn); path 0 is the one the model reports. */
static bool query_path(void *ctx, unsigned i, struct ibs_addr *out)
{
	struct qctx *c = ctx;

	if (i && i >= query_paths(c)) /* every query has path 0: no need to count */
		return false;
	if (c->is_fixed) {
		*out = *c->fixed;
		return true;
	}
	node_path(c->w, c->base, i, out);
	/* One hop longer than a path as long as the base's own: within the limit, as that one is. */
	if (c->ext)
		ibs_addr_dr_extend(out, out, c->ext);
	return true;
}

static void query_canon(struct qctx *c, struct ibs_addr *out)
{
	query_path(c, 0, out);
}

static void on_probe(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_nodedesc(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_switchinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_portinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_guidinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_sminfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);

/* Each attribute has its one handler (NodeInfo is only ever a probe). */
static ibs_mad_cb handler(uint16_t attr)
{
	switch (attr) {
	case IBS_ATTR_NODE_INFO:
		return on_probe;
	case IBS_ATTR_NODE_DESC:
		return on_nodedesc;
	case IBS_ATTR_SWITCH_INFO:
		return on_switchinfo;
	case IBS_ATTR_PORT_INFO:
		return on_portinfo;
	case IBS_ATTR_GUID_INFO:
		return on_guidinfo;
	default:
		return on_sminfo;
	}
}

static void send_query(struct qctx *c)
{
	struct ibs_mad_req req;

	/* Path 0, built in place: this runs for every query of a walk. */
	ibs_req_get(&req, c->is_fixed ? c->fixed : &c->base->path, IBS_CLASS_SMI_DR, c->attr, c->mod);
	if (!c->is_fixed && c->ext)
		ibs_addr_dr_extend(&req.addr, &req.addr, c->ext);
	ibs_engine_submit_paths(c->w->e, &req, handler(c->attr), c);
}

/*
 * Ask attr/mod of the node at the far end of base's port ext (of base itself
 * when ext is 0), along base's paths in turn; or, with base NULL, along the
 * path `fixed` only.
 */
static void query(struct qctx *c, struct ibs_node *base, uint8_t ext, const struct ibs_addr *fixed, uint16_t attr,
		  uint32_t mod)
{
	c->is_fixed = !base;
	if (base)
		c->base = base;
	else
		c->fixed = fixed;
	c->ext = ext;
	c->attr = attr;
	c->mod = mod;
	send_query(c);
}

/*
 * A query that got no answer along any of its paths waits for the re-sweep.
 * True when it does (the callback must then leave c alone); false when this
 * failure is final.
 */
static bool resweep_later(struct qctx *c, const struct ibs_mad_result *r)
{
	struct walker *w = c->w;

	if (r->outcome != IBS_MAD_TIMEOUT)
		return false;
	/* Probes wait for the re-sweep in resolve(), in probe order. */
	if (c->last_chance || c->attr == IBS_ATTR_NODE_INFO)
		return false;
	w->deferred = xgrow(w->deferred, &w->cap_deferred, w->n_deferred + 1, sizeof(*w->deferred));
	w->deferred[w->n_deferred++] = c;
	return true;
}

/* path is the query's own (canonical) path, whichever path the last attempt took. */
static void record_error(struct walker *w, const struct ibs_mad_req *req, const struct ibs_addr *path,
			 struct ibs_node *n, uint8_t port, const struct ibs_mad_result *r, bool unreachable)
{
	struct ibs_walk_error *er;
	char pb[256];

	w->f->partial = true;
	if (r->outcome == IBS_MAD_ABORTED) {
		/* Not the target's fault: the run stopped (see abort_reason). */
		w->run->n_aborted++;
		return;
	}
	er = ibs_fabric_add_error(w->f);
	er->path = *path;
	er->node = n;
	er->port = port;
	er->mgmt_class = req->mgmt_class;
	er->attr_id = req->attr_id;
	er->attr_mod = req->attr_mod;
	er->outcome = r->outcome;
	er->status = r->status;
	er->unreachable = unreachable;
	log_debug("%s to %s: %s", ibs_attr_name(req->mgmt_class, req->attr_id),
			  ibs_addr_str(path, pb, sizeof(pb)), ibs_outcome_str(r->outcome));
}

/* record_error for a query, on its own path. */
static void record_error_q(struct qctx *c, const struct ibs_mad_req *req, struct ibs_node *n, uint8_t port,
			   const struct ibs_mad_result *r, bool unreachable)
{
	struct ibs_addr a;

	query_canon(c, &a);
	record_error(c->w, req, &a, n, port, r, unreachable);
}

static void on_nodedesc(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;

	char desc[IBS_NODE_DESC_TEXT + 1];

	if (resweep_later(c, r))
		return;
	if (r->outcome == IBS_MAD_OK && ibs_decode_nodedesc(r->mad, r->len, desc) == IBS_OK) {
		free(c->node->desc);
		c->node->desc = xstrdup(desc);
	} else {
		record_error_q(c, req, c->node, 0, r, false);
		ibs_node_set_error(c->node, "NodeDescription: %s", ibs_outcome_str(r->outcome));
	}
	qctx_put(c);
}

static void on_switchinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;

	if (resweep_later(c, r))
		return;
	if (r->outcome == IBS_MAD_OK && ibs_decode_switchinfo(r->mad, r->len, &c->node->si) == IBS_OK) {
		c->node->has_si = true;
	} else {
		record_error_q(c, req, c->node, 0, r, false);
		ibs_node_set_error(c->node, "SwitchInfo: %s", ibs_outcome_str(r->outcome));
	}
	qctx_put(c);
}

static void on_guidinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct ibs_port *p = &c->node->ports[c->port];
	uint64_t g[IBS_GUIDINFO_PER_BLOCK];
	unsigned i, base = req->attr_mod * IBS_GUIDINFO_PER_BLOCK;

	if (resweep_later(c, r))
		return;
	if (r->outcome == IBS_MAD_OK && ibs_decode_guidinfo(r->mad, r->len, g) == IBS_OK) {
		bool full = true;
		for (i = 0; i < IBS_GUIDINFO_PER_BLOCK && base + i < p->n_gids; i++) {
			p->gids[base + i] = g[i];
			full = full && g[i];
		}
		/*
		 * Alias GUIDs are assigned from the start of the table, so a block
		 * with a free entry ends the table: read the next block only when
		 * this one is full. That keeps a 32-entry table to one MAD.
		 */
		if (full && base + IBS_GUIDINFO_PER_BLOCK < p->n_gids)
			query(qctx(c->w, c->node, c->port), c->is_fixed ? NULL : c->base, c->ext, c->fixed, IBS_ATTR_GUID_INFO,
			      req->attr_mod + 1);
	} else {
		record_error_q(c, req, c->node, c->port, r, false);
		if (!p->error)
			p->error = xasprintf("GUIDInfo: %s", ibs_outcome_str(r->outcome));
	}
	qctx_put(c);
}

static void on_portinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct ibs_node *n = c->node;
	struct ibs_port *p = &n->ports[c->port];

	if (resweep_later(c, r))
		return;
	if (r->outcome != IBS_MAD_OK || ibs_decode_portinfo(r->mad, r->len, &p->pi) != IBS_OK) {
		record_error_q(c, req, n, c->port, r, false);
		if (!p->error)
			p->error = xasprintf("PortInfo: %s", ibs_outcome_str(r->outcome == IBS_MAD_OK ?
										IBS_MAD_MALFORMED : r->outcome));
		qctx_put(c);
		return;
	}
	p->valid = true;
	query_canon(c, &p->path);
	/* Switch external ports have no GUID of their own; they answer with port 0's. */
	if (n->ni.node_type == IBS_NODE_SWITCH)
		p->guid = n->ni.port_guid;
	/* GIDs beyond the port GUID exist only where GUIDCap says so (IBA 14.2.5.5). */
	if (c->w->o->gids && p->pi.guid_cap > 1 &&
	    (n->ni.node_type != IBS_NODE_SWITCH || c->port == 0)) {
		p->n_gids = p->pi.guid_cap;
		p->gids = xcalloc(p->n_gids, sizeof(*p->gids));
		query(qctx(c->w, n, c->port), c->is_fixed ? NULL : c->base, c->ext, c->fixed, IBS_ATTR_GUID_INFO, 0);
	}
	qctx_put(c);
}

static void on_probe(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct probe *pr = &c->w->probes[c->probe];

	(void)req;
	if (resweep_later(c, r))
		return;
	pr->outcome = r->outcome;
	pr->status = r->status;
	if (r->outcome == IBS_MAD_OK && ibs_decode_nodeinfo(r->mad, r->len, &pr->ni) == IBS_OK)
		pr->ok = true;
	else if (r->outcome == IBS_MAD_OK)
		pr->outcome = IBS_MAD_MALFORMED;
	qctx_put(c);
}

/* PortInfo of n's port, asked through base (and base's port ext). */
static void query_port(struct walker *w, struct ibs_node *n, uint8_t port, struct ibs_node *base, uint8_t ext)
{
	query(qctx(w, n, port), base, ext, NULL, IBS_ATTR_PORT_INFO, port);
}

/* Fill a switch port from the PortInfo of the port at the other end of its cable. */
static bool infer_from_peer(struct ibs_node *n, struct ibs_port *pt)
{
	const struct ibs_port *far;

	if (!pt->peer)
		return false;
	far = &pt->peer->ports[pt->peer_port];
	if (!far->valid || far->inferred)
		return false;
	pt->valid = true;
	pt->inferred = true;
	pt->guid = n->ni.port_guid;
	pt->path = n->path;
	pt->pi.local_port = pt->num;
	pt->pi.state = far->pi.state;
	pt->pi.phys_state = far->pi.phys_state;
	pt->pi.width_active = far->pi.width_active;
	pt->pi.speed_active = far->pi.speed_active;
	pt->pi.speed_ext_active = far->pi.speed_ext_active;
	pt->pi.neighbor_mtu = far->pi.neighbor_mtu;
	return true;
}

/* Phase A: everything about the nodes of this level. */
static void read_details(struct walker *w)
{
	size_t i;
	unsigned p;

	for (i = 0; i < w->n_level; i++) {
		struct ibs_node *n = w->level[i];
		query(qctx(w, n, 0), n, 0, NULL, IBS_ATTR_NODE_DESC, 0);
		if (n->ni.node_type == IBS_NODE_SWITCH) {
			query(qctx(w, n, 0), n, 0, NULL, IBS_ATTR_SWITCH_INFO, 0);
			for (p = 0; p <= n->ni.num_ports; p++) {
				/*
				 * A cable already learnt from its other end: that end's
				 * PortInfo says the state, width and speed of the link.
				 */
				if (p && infer_from_peer(n, &n->ports[p]))
					continue;
				query_port(w, n, (uint8_t)p, n, 0);
			}
		} else if (n->entry_port >= 1 && n->entry_port <= n->ni.num_ports) {
			/* A CA or router port is read through the cable that reached it. */
			n->ports[n->entry_port].guid = n->ni.port_guid;
			query_port(w, n, n->entry_port, n, 0);
		}
	}
	for (i = 0; i < w->n_tasks; i++) {
		struct port_task *t = &w->tasks[i];
		query_port(w, t->node, t->port, t->from, t->from_port);
	}
	w->n_tasks = 0;
}

static void add_probe(struct walker *w, struct ibs_node *from, uint8_t port, bool last_chance)
{
	struct probe *pr;
	struct qctx *c;

	w->probes = xgrow(w->probes, &w->cap_probes, w->n_probes + 1, sizeof(*w->probes));
	pr = &w->probes[w->n_probes];
	memset(pr, 0, sizeof(*pr));
	pr->from = from;
	pr->port = port;
	pr->last_chance = last_chance;
	if (!ibs_addr_dr_extend(&pr->path, &from->path, port)) {
		/* Beyond 63 hops no SMP can go (IBA 14.2.2). */
		pr->outcome = IBS_MAD_MALFORMED;
		w->n_probes++;
		return;
	}
	c = qctx(w, from, port);
	c->probe = w->n_probes++;
	query(c, from, port, NULL, IBS_ATTR_NODE_INFO, 0);
}

/* Phase B: look through every linked switch port whose far end is unknown. */
static void probe_neighbours(struct walker *w)
{
	size_t i;
	unsigned p;

	w->n_probes = 0;
	for (i = 0; i < w->n_level; i++) {
		struct ibs_node *n = w->level[i];
		if (n->ni.node_type != IBS_NODE_SWITCH) {
			/* Only the local CA sends out of its port; remote CAs do not forward. */
			if (n->path.hops == 0 && n->entry_port && n->ports[n->entry_port].valid &&
			    ibs_port_is_up(&n->ports[n->entry_port]) && !n->ports[n->entry_port].peer)
				add_probe(w, n, n->entry_port, false);
			continue;
		}
		for (p = 1; p <= n->ni.num_ports; p++) {
			struct ibs_port *pt = &n->ports[p];
			if (pt->valid && ibs_port_is_up(pt) && !pt->peer)
				add_probe(w, n, (uint8_t)p, false);
		}
	}
}

static void unreachable(struct walker *w, const struct probe *pr)
{
	struct ibs_mad_req req;
	struct ibs_mad_result r;

	ibs_req_get(&req, &pr->path, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	memset(&r, 0, sizeof(r));
	r.outcome = pr->outcome;
	r.status = pr->status;
	record_error(w, &req, &pr->path, pr->from, pr->port, &r, true);
}

/* Is candidate, entered on port k, the node already known at the far end of from:port? */
static bool same_node(const struct ibs_node *cand, uint8_t k, const struct probe *pr)
{
	const struct ibs_port *cp;

	if (k < 1 || k > cand->ni.num_ports)
		return false;
	/*
	 * NodeGUID alone can lie (a duplicate): the rest of NodeInfo must agree
	 * too. A switch's PortGUID is its port 0's, the same from any side.
	 */
	if (cand->ni.system_image_guid != pr->ni.system_image_guid || cand->ni.vendor_id != pr->ni.vendor_id ||
	    cand->ni.device_id != pr->ni.device_id || cand->ni.revision != pr->ni.revision ||
	    cand->ni.num_ports != pr->ni.num_ports ||
	    (cand->ni.node_type == IBS_NODE_SWITCH && cand->ni.port_guid != pr->ni.port_guid))
		return false;
	cp = &cand->ports[k];
	if (cp->peer)
		return cp->peer == pr->from && cp->peer_port == pr->port;
	/* A switch port we read as down cannot be carrying this cable. */
	if (cand->ni.node_type == IBS_NODE_SWITCH && cp->valid && !ibs_port_is_up(cp))
		return false;
	return true;
}

static void level_push(struct walker *w, struct ibs_node *n)
{
	w->level = xgrow(w->level, &w->cap_level, w->n_level + 1, sizeof(*w->level));
	w->level[w->n_level++] = n;
}

/* Phase C: turn probe answers into nodes and cables, in probe order; new nodes join the level. */
static void resolve(struct walker *w)
{
	size_t i;

	for (i = 0; i < w->n_probes; i++) {
		struct probe *pr = &w->probes[i];
		struct ibs_node *cand, *n = NULL;
		uint8_t k = pr->ni.local_port;

		if (!pr->ok) {
			if (pr->from && pr->outcome == IBS_MAD_TIMEOUT && !pr->last_chance) {
				w->reprobe = xgrow(w->reprobe, &w->cap_reprobe, w->n_reprobe + 1, sizeof(*w->reprobe));
				w->reprobe[w->n_reprobe].node = pr->from;
				w->reprobe[w->n_reprobe++].port = pr->port;
			} else if (pr->from) {
				unreachable(w, pr);
			}
			continue;
		}
		if (pr->from && pr->from->ports[pr->port].peer)
			continue; /* learnt meanwhile from the other side */
		for (cand = ibs_fabric_find_guid(w->f, pr->ni.node_guid); cand; cand = cand->next_same_guid)
			if (cand->ni.node_type == pr->ni.node_type && same_node(cand, k, pr))
				break;
		if (cand) {
			n = cand;
			if (n->ni.node_type != IBS_NODE_SWITCH && k >= 1 && k <= n->ni.num_ports &&
			    !n->ports[k].valid && k != n->entry_port) {
				w->tasks = xgrow(w->tasks, &w->cap_tasks, w->n_tasks + 1, sizeof(*w->tasks));
				w->tasks[w->n_tasks].node = n;
				w->tasks[w->n_tasks].port = k;
				w->tasks[w->n_tasks].from = pr->from;
				w->tasks[w->n_tasks].from_port = pr->port;
				w->n_tasks++;
				n->ports[k].guid = pr->ni.port_guid;
			}
		} else {
			if (ibs_fabric_find_guid(w->f, pr->ni.node_guid))
				log_debug("node GUID 0x%016llx seen again on another node",
					  (unsigned long long)pr->ni.node_guid);
			n = ibs_fabric_add_node(w->f, &pr->ni, &pr->path);
			uplinks(w, n)->parent = pr->from ? (uint32_t)pr->from->index : NO_NODE;
			level_push(w, n);
		}
		if (pr->from && k >= 1 && k <= n->ni.num_ports) {
			ibs_fabric_connect(pr->from, pr->port, n, k);
			add_uplink(w, n, k, pr->from, pr->port);
			add_uplink(w, pr->from, pr->port, n, k);
		}
	}
}

static enum ibs_err run(struct walker *w)
{
	enum ibs_err rc = ibs_engine_run(w->e);

	if (rc != IBS_OK && !w->run->aborted) {
		ibs_run_abort(w->run, rc);
		w->f->partial = true;
	}
	return rc;
}

static void on_sminfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct ibs_sm *sm = &c->w->f->sms[c->probe];

	sm->outcome = r->outcome;
	sm->status = r->status;
	if (resweep_later(c, r))
		return;
	if (r->outcome == IBS_MAD_OK && ibs_decode_sminfo(r->mad, r->len, &sm->info) == IBS_OK)
		sm->ok = true;
	else
		record_error_q(c, req, c->node, c->port, r, false);
	qctx_put(c);
}

static void add_sm(struct walker *w, struct ibs_node *n, uint8_t port)
{
	struct ibs_port *pt = &n->ports[port];
	struct ibs_sm *sm;
	struct qctx *c;
	size_t i;

	for (i = 0; i < w->f->n_sms; i++)
		if (w->f->sms[i].node == n && w->f->sms[i].port == port)
			return;
	sm = ibs_fabric_add_sm(w->f);
	sm->node = n;
	sm->port = port;
	sm->lid = pt->pi.lid;
	sm->port_guid = pt->guid ? pt->guid : n->ni.port_guid;
	c = qctx(w, n, port);
	c->probe = w->f->n_sms - 1;
	/* A switch, or a CA by its entry port, has the node's paths; another CA port only its own. */
	if (!pt->valid || n->ni.node_type == IBS_NODE_SWITCH || port == n->entry_port)
		query(c, n, 0, NULL, IBS_ATTR_SM_INFO, 0);
	else
		query(c, NULL, 0, &pt->path, IBS_ATTR_SM_INFO, 0);
}

/* SMInfo from the master (by the SM LID the local port knows) and every IsSM port. */
static void query_sms(struct walker *w)
{
	struct ibs_node *n;
	size_t i;
	unsigned p;

	if (w->f->local.sm_lid && ibs_fabric_find_lid(w->f, w->f->local.sm_lid, &n)) {
		for (p = ibs_node_first_port(n); p <= n->ni.num_ports; p++) {
			struct ibs_port *pt = &n->ports[p];
			if (pt->valid && w->f->local.sm_lid >= pt->pi.lid &&
			    w->f->local.sm_lid < pt->pi.lid + (1u << (pt->pi.lmc & 7))) {
				add_sm(w, n, (uint8_t)p);
				break;
			}
		}
	}
	for (i = 0; i < w->f->n_nodes; i++) {
		n = w->f->nodes[i];
		for (p = ibs_node_first_port(n); p <= n->ni.num_ports; p++)
			if (n->ports[p].valid && (n->ports[p].pi.cap_mask & IBS_CAP_IS_SM))
				add_sm(w, n, (uint8_t)p);
	}
}

/* Phases A, B and C level after level, until no level has new nodes. */
static enum ibs_err walk_levels(struct walker *w)
{
	enum ibs_err rc = IBS_OK;

	while (w->n_level || w->n_tasks) {
		read_details(w);
		rc = run(w);
		if (rc)
			break;
		probe_neighbours(w);
		rc = run(w);
		if (rc)
			break;
		w->n_level = 0;
		resolve(w);
	}
	return rc;
}

/* Deferred queries in a fixed order: by node (in the order found), attribute, port, modifier. */
static int deferred_cmp(const void *a, const void *b)
{
	const struct qctx *x = *(struct qctx *const *)a, *y = *(struct qctx *const *)b;

	if (x->node->index != y->node->index)
		return x->node->index < y->node->index ? -1 : 1;
	if (x->attr != y->attr)
		return x->attr < y->attr ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->mod < y->mod ? -1 : x->mod > y->mod;
}

/*
 * The re-sweep, once the levels run out, each step in a fixed order: the
 * probes that failed along all their paths are sent again (a failure now is
 * final), which may find more ways into known nodes; then every other query
 * that failed; then the ports that recovered are probed. New nodes make a
 * new level. False when there was nothing to ask again.
 */
static bool resweep(struct walker *w, enum ibs_err *rc)
{
	struct qctx **d;
	size_t n, i, n_rec = 0;
	struct port_ref *rec;

	if (!w->n_deferred && !w->n_reprobe)
		return false;
	w->n_level = 0;
	w->n_probes = 0;
	for (i = 0; i < w->n_reprobe; i++) {
		struct port_ref *r = &w->reprobe[i];
		if (!r->node->ports[r->port].peer) {
			add_probe(w, r->node, r->port, true);
			w->resweeps++;
		}
	}
	w->n_reprobe = 0;
	*rc = run(w);
	if (*rc)
		return true;
	resolve(w);
	d = w->deferred;
	n = w->n_deferred;
	w->deferred = NULL;
	w->n_deferred = w->cap_deferred = 0;
	if (n)
		qsort(d, n, sizeof(*d), deferred_cmp);
	rec = xcalloc(n + 1, sizeof(*rec));
	for (i = 0; i < n; i++) {
		struct qctx *c = d[i];
		/* A port read now may lead on: a switch's, or the local CA's. */
		if (c->attr == IBS_ATTR_PORT_INFO && c->port &&
		    (c->node->ni.node_type == IBS_NODE_SWITCH || c->node->path.hops == 0)) {
			rec[n_rec].node = c->node;
			rec[n_rec++].port = c->port;
		}
		c->last_chance = true;
		w->resweeps++;
		send_query(c);
	}
	free(d);
	*rc = run(w);
	w->n_probes = 0;
	if (*rc == IBS_OK) {
		for (i = 0; i < n_rec; i++) {
			struct ibs_port *pt = &rec[i].node->ports[rec[i].port];
			if (pt->valid && ibs_port_is_up(pt) && !pt->peer)
				add_probe(w, rec[i].node, rec[i].port, false);
		}
		*rc = run(w);
		if (*rc == IBS_OK)
			resolve(w);
	}
	free(rec);
	return true;
}

/* After an abort: what waited for the re-sweep failed, and is recorded so. */
static void fail_deferred(struct walker *w)
{
	struct ibs_mad_req req;
	struct ibs_mad_result r;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.outcome = IBS_MAD_TIMEOUT;
	for (i = 0; i < w->n_deferred; i++) {
		struct qctx *c = w->deferred[i];
		c->last_chance = true;
		struct ibs_addr a;
		query_canon(c, &a);
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, c->attr, c->mod);
		handler(c->attr)(c, &req, &r);
	}
	w->n_deferred = 0;
	for (i = 0; i < w->n_reprobe; i++) {
		struct ibs_addr a;
		ibs_addr_dr_extend(&a, &w->reprobe[i].node->path, w->reprobe[i].port);
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
		record_error(w, &req, &a, w->reprobe[i].node, w->reprobe[i].port, &r, true);
	}
	w->n_reprobe = 0;
}

static void progress_cb(void *ctx, const struct ibs_engine_stats *s)
{
	struct walker *w = ctx;

	if (w->o->progress)
		w->o->progress(w->o->progress_ctx, w->f, s);
}

enum ibs_err ibs_walk(struct ibs_engine *e, struct ibs_fabric *f, struct ibs_run *state, const struct ibs_walk_opts *o)
{
	struct walker w;
	struct ibs_addr root;
	struct qctx *c;
	enum ibs_err rc;

	memset(&w, 0, sizeof(w));
	w.e = e;
	w.f = f;
	w.run = state;
	w.o = o;
	ibs_engine_set_progress(e, progress_cb, &w);
	ibs_engine_set_paths(e, query_path);

	/* Level 0: the local node, by the empty path. */
	ibs_addr_dr(&root, NULL, 0);
	w.probes = xgrow(w.probes, &w.cap_probes, 1, sizeof(*w.probes));
	memset(&w.probes[0], 0, sizeof(w.probes[0]));
	w.probes[0].path = root;
	w.n_probes = 1;
	w.probes[0].last_chance = true;
	c = qctx(&w, NULL, 0);
	query(c, NULL, 0, &root, IBS_ATTR_NODE_INFO, 0);
	rc = run(&w);
	if (rc == IBS_OK && !w.probes[0].ok && w.probes[0].outcome == IBS_MAD_TIMEOUT) {
		/* Without it there is no walk at all: its re-sweep comes at once. */
		c = qctx(&w, NULL, 0);
		query(c, NULL, 0, &root, IBS_ATTR_NODE_INFO, 0);
		rc = run(&w);
	}
	if (!w.probes[0].ok) {
		struct ibs_mad_req req;
		struct ibs_mad_result r;
		ibs_req_get(&req, &root, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
		memset(&r, 0, sizeof(r));
		r.outcome = w.probes[0].outcome;
		record_error(&w, &req, &root, NULL, 0, &r, true);
		log_error("the local node does not answer NodeInfo (%s)", ibs_outcome_str(w.probes[0].outcome));
		rc = rc ? rc : IBS_E_TIMEOUT;
		goto out;
	}
	resolve(&w);
	rc = walk_levels(&w);
	while (rc == IBS_OK && resweep(&w, &rc) && rc == IBS_OK)
		rc = walk_levels(&w);
	if (rc == IBS_OK && o->sm) {
		query_sms(&w);
		rc = run(&w);
		while (rc == IBS_OK && resweep(&w, &rc) && rc == IBS_OK)
			rc = walk_levels(&w);
	}
	fail_deferred(&w);
	if (w.resweeps)
		log_info("%llu queries asked again in the re-sweep", (unsigned long long)w.resweeps);
out:
	state->stats = *ibs_engine_stats(e);
	ibs_engine_set_progress(e, NULL, NULL);
	ibs_engine_set_paths(e, NULL);
	free(w.level);
	free(w.tasks);
	free(w.probes);
	free(w.up);
	free(w.deferred);
	free(w.reprobe);
	while (w.free_ctx) {
		c = w.free_ctx;
		w.free_ctx = c->next;
		free(c);
	}
	ibs_fabric_fix_ext_speeds(f);
	ibs_fabric_fix_inferred(f);
	ibs_fabric_sort(f);
	return rc;
}

bool ibs_walk_error_hides_neighbour(const struct ibs_walk_error *er)
{
	const struct ibs_port *p;

	if (!er->node || !er->port || !(p = ibs_node_port(er->node, er->port)))
		return false;
	if (p->peer)
		return false; /* the cable was learnt from its other end */
	if (er->unreachable)
		return true;
	/* A switch port that could not be read was never probed through. */
	return er->mgmt_class == IBS_CLASS_SMI_DR && er->attr_id == IBS_ATTR_PORT_INFO &&
	       er->node->ni.node_type == IBS_NODE_SWITCH && !p->valid;
}
