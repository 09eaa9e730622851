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
 */
#include "walk.h"
#include "../core/log.h"
#include "../core/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct probe {
	struct ibs_node *from; /* NULL for the local node */
	uint8_t port;
	struct ibs_addr path;
	bool ok;
	struct ibs_nodeinfo ni;
	enum ibs_outcome outcome;
	uint16_t status;
};

struct walker {
	struct ibs_engine *e;
	struct ibs_fabric *f;
	const struct ibs_walk_opts *o;
	struct ibs_node **level;   /* nodes whose details to read */
	size_t n_level, cap_level;
	struct port_task {
		struct ibs_node *node;
		uint8_t port;
		struct ibs_addr path;
	} *tasks;                  /* extra CA ports reached by another cable */
	size_t n_tasks, cap_tasks;
	struct probe *probes;
	size_t n_probes, cap_probes;
	struct qctx *free_ctx;
};

struct qctx {
	struct walker *w;
	struct ibs_node *node;
	uint8_t port;
	size_t probe;
	struct qctx *next; /* on the walker's free list */
};

/* One context per MAD in flight, recycled: a walk sends hundreds of thousands. */
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
	return c;
}

static void qctx_put(struct qctx *c)
{
	c->next = c->w->free_ctx;
	c->w->free_ctx = c;
}

static void record_error(struct walker *w, const struct ibs_mad_req *req, struct ibs_node *n,
			 uint8_t port, const struct ibs_mad_result *r, bool unreachable)
{
	struct ibs_walk_error *er;
	char pb[256];

	w->f->partial = true;
	if (r->outcome == IBS_MAD_ABORTED) {
		/* Not the target's fault: the run stopped (see abort_reason). */
		w->f->n_aborted++;
		return;
	}
	er = ibs_fabric_add_error(w->f);
	er->path = req->addr;
	er->node = n;
	er->port = port;
	er->mgmt_class = req->mgmt_class;
	er->attr_id = req->attr_id;
	er->attr_mod = req->attr_mod;
	er->outcome = r->outcome;
	er->status = r->status;
	er->unreachable = unreachable;
	log_debug("%s to %s: %s", ibs_attr_name(req->mgmt_class, req->attr_id),
			  ibs_addr_str(&req->addr, pb, sizeof(pb)), ibs_outcome_str(r->outcome));
}

static void submit(struct walker *w, const struct ibs_addr *a, uint16_t attr, uint32_t mod, ibs_mad_cb cb,
		   struct qctx *c)
{
	struct ibs_mad_req req;

	ibs_req_get(&req, a, IBS_CLASS_SMI_DR, attr, mod);
	ibs_engine_submit(w->e, &req, cb, c);
}

static void on_nodedesc(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;

	char desc[IBS_NODE_DESC_TEXT + 1];

	if (r->outcome == IBS_MAD_OK && ibs_decode_nodedesc(r->mad, r->len, desc) == IBS_OK) {
		free(c->node->desc);
		c->node->desc = xstrdup(desc);
	} else {
		record_error(c->w, req, c->node, 0, r, false);
		ibs_node_set_error(c->node, "NodeDescription: %s", ibs_outcome_str(r->outcome));
	}
	qctx_put(c);
}

static void on_switchinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;

	if (r->outcome == IBS_MAD_OK && ibs_decode_switchinfo(r->mad, r->len, &c->node->si) == IBS_OK) {
		c->node->has_si = true;
	} else {
		record_error(c->w, req, c->node, 0, r, false);
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
			submit(c->w, &req->addr, IBS_ATTR_GUID_INFO, req->attr_mod + 1, on_guidinfo,
			       qctx(c->w, c->node, c->port));
	} else {
		record_error(c->w, req, c->node, c->port, r, false);
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

	if (r->outcome != IBS_MAD_OK || ibs_decode_portinfo(r->mad, r->len, &p->pi) != IBS_OK) {
		record_error(c->w, req, n, c->port, r, false);
		if (!p->error)
			p->error = xasprintf("PortInfo: %s", ibs_outcome_str(r->outcome == IBS_MAD_OK ?
										IBS_MAD_MALFORMED : r->outcome));
		qctx_put(c);
		return;
	}
	p->valid = true;
	p->path = req->addr;
	/* Switch external ports have no GUID of their own; they answer with port 0's. */
	if (n->ni.node_type == IBS_NODE_SWITCH)
		p->guid = n->ni.port_guid;
	/* GIDs beyond the port GUID exist only where GUIDCap says so (IBA 14.2.5.5). */
	if (c->w->o->gids && p->pi.guid_cap > 1 &&
	    (n->ni.node_type != IBS_NODE_SWITCH || c->port == 0)) {
		p->n_gids = p->pi.guid_cap;
		p->gids = xcalloc(p->n_gids, sizeof(*p->gids));
		submit(c->w, &req->addr, IBS_ATTR_GUID_INFO, 0, on_guidinfo, qctx(c->w, n, c->port));
	}
	qctx_put(c);
}

static void on_probe(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct probe *pr = &c->w->probes[c->probe];

	(void)req;
	pr->outcome = r->outcome;
	pr->status = r->status;
	if (r->outcome == IBS_MAD_OK && ibs_decode_nodeinfo(r->mad, r->len, &pr->ni) == IBS_OK)
		pr->ok = true;
	else if (r->outcome == IBS_MAD_OK)
		pr->outcome = IBS_MAD_MALFORMED;
	qctx_put(c);
}

static void query_port(struct walker *w, struct ibs_node *n, uint8_t port, const struct ibs_addr *path)
{
	submit(w, path, IBS_ATTR_PORT_INFO, port, on_portinfo, qctx(w, n, port));
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
		submit(w, &n->path, IBS_ATTR_NODE_DESC, 0, on_nodedesc, qctx(w, n, 0));
		if (n->ni.node_type == IBS_NODE_SWITCH) {
			submit(w, &n->path, IBS_ATTR_SWITCH_INFO, 0, on_switchinfo, qctx(w, n, 0));
			for (p = 0; p <= n->ni.num_ports; p++) {
				/*
				 * A cable already learnt from its other end: that end's
				 * PortInfo says the state, width and speed of the link.
				 */
				if (p && infer_from_peer(n, &n->ports[p]))
					continue;
				query_port(w, n, (uint8_t)p, &n->path);
			}
		} else if (n->entry_port >= 1 && n->entry_port <= n->ni.num_ports) {
			/* A CA or router port is read through the cable that reached it. */
			n->ports[n->entry_port].guid = n->ni.port_guid;
			query_port(w, n, n->entry_port, &n->path);
		}
	}
	for (i = 0; i < w->n_tasks; i++) {
		struct port_task *t = &w->tasks[i];
		query_port(w, t->node, t->port, &t->path);
	}
	w->n_tasks = 0;
}

static void add_probe(struct walker *w, struct ibs_node *from, uint8_t port)
{
	struct probe *pr;
	struct qctx *c;

	w->probes = xgrow(w->probes, &w->cap_probes, w->n_probes + 1, sizeof(*w->probes));
	pr = &w->probes[w->n_probes];
	memset(pr, 0, sizeof(*pr));
	pr->from = from;
	pr->port = port;
	if (!ibs_addr_dr_extend(&pr->path, &from->path, port)) {
		/* Beyond 63 hops no SMP can go (IBA 14.2.2). */
		pr->outcome = IBS_MAD_MALFORMED;
		w->n_probes++;
		return;
	}
	c = qctx(w, from, port);
	c->probe = w->n_probes++;
	submit(w, &pr->path, IBS_ATTR_NODE_INFO, 0, on_probe, c);
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
				add_probe(w, n, n->entry_port);
			continue;
		}
		for (p = 1; p <= n->ni.num_ports; p++) {
			struct ibs_port *pt = &n->ports[p];
			if (pt->valid && ibs_port_is_up(pt) && !pt->peer)
				add_probe(w, n, (uint8_t)p);
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
	record_error(w, &req, pr->from, pr->port, &r, true);
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

/* Phase C: turn probe answers into nodes and cables, in probe order. */
static void resolve(struct walker *w)
{
	size_t i;

	w->n_level = 0;
	for (i = 0; i < w->n_probes; i++) {
		struct probe *pr = &w->probes[i];
		struct ibs_node *cand, *n = NULL;
		uint8_t k = pr->ni.local_port;

		if (!pr->ok) {
			if (pr->from)
				unreachable(w, pr);
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
				w->tasks[w->n_tasks].path = pr->path;
				w->n_tasks++;
				n->ports[k].guid = pr->ni.port_guid;
			}
		} else {
			if (ibs_fabric_find_guid(w->f, pr->ni.node_guid))
				log_debug("node GUID 0x%016llx seen again on another node",
					  (unsigned long long)pr->ni.node_guid);
			n = ibs_fabric_add_node(w->f, &pr->ni, &pr->path);
			level_push(w, n);
		}
		if (pr->from && k >= 1 && k <= n->ni.num_ports)
			ibs_fabric_connect(pr->from, pr->port, n, k);
	}
}

static enum ibs_err run(struct walker *w)
{
	enum ibs_err rc = ibs_engine_run(w->e);

	if (rc != IBS_OK && !w->f->aborted) {
		w->f->aborted = true;
		w->f->partial = true;
		w->f->abort_reason = xstrdup(rc == IBS_E_DEADLINE ? "the global deadline (--deadline) expired"
								  : "the transport failed");
	}
	return rc;
}

static void on_sminfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct ibs_sm *sm = &c->w->f->sms[c->probe];

	sm->outcome = r->outcome;
	sm->status = r->status;
	if (r->outcome == IBS_MAD_OK && ibs_decode_sminfo(r->mad, r->len, &sm->info) == IBS_OK)
		sm->ok = true;
	else
		record_error(c->w, req, c->node, c->port, r, false);
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
	submit(w, pt->valid ? &pt->path : &n->path, IBS_ATTR_SM_INFO, 0, on_sminfo, c);
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

static void progress_cb(void *ctx, const struct ibs_engine_stats *s)
{
	struct walker *w = ctx;

	if (w->o->progress)
		w->o->progress(w->o->progress_ctx, w->f, s);
}

enum ibs_err ibs_walk(struct ibs_engine *e, struct ibs_fabric *f, const struct ibs_walk_opts *o)
{
	struct walker w;
	struct ibs_addr root;
	struct qctx *c;
	enum ibs_err rc;

	memset(&w, 0, sizeof(w));
	w.e = e;
	w.f = f;
	w.o = o;
	ibs_engine_set_progress(e, progress_cb, &w);

	/* Level 0: the local node, by the empty path. */
	ibs_addr_dr(&root, NULL, 0);
	w.probes = xgrow(w.probes, &w.cap_probes, 1, sizeof(*w.probes));
	memset(&w.probes[0], 0, sizeof(w.probes[0]));
	w.probes[0].path = root;
	w.n_probes = 1;
	c = qctx(&w, NULL, 0);
	submit(&w, &root, IBS_ATTR_NODE_INFO, 0, on_probe, c);
	rc = run(&w);
	if (!w.probes[0].ok) {
		struct ibs_mad_req req;
		struct ibs_mad_result r;
		ibs_req_get(&req, &root, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
		memset(&r, 0, sizeof(r));
		r.outcome = w.probes[0].outcome;
		record_error(&w, &req, NULL, 0, &r, true);
		log_error("the local node does not answer NodeInfo (%s)", ibs_outcome_str(w.probes[0].outcome));
		rc = rc ? rc : IBS_E_TIMEOUT;
		goto out;
	}
	resolve(&w);
	while (rc == IBS_OK && (w.n_level || w.n_tasks)) {
		read_details(&w);
		rc = run(&w);
		if (rc)
			break;
		probe_neighbours(&w);
		rc = run(&w);
		if (rc)
			break;
		resolve(&w);
	}
	if (rc == IBS_OK && o->sm) {
		query_sms(&w);
		rc = run(&w);
	}
out:
	f->stats = *ibs_engine_stats(e);
	ibs_engine_set_progress(e, NULL, NULL);
	free(w.level);
	free(w.tasks);
	free(w.probes);
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
