/*
 * Directed-route discovery (IBA 14.2.2: SMPs routed by an initial path).
 *
 * Level k holds the nodes k hops away. For each level: (A) read the details
 * of its new nodes (NodeDescription, SwitchInfo, PortInfo, GUIDInfo); (B)
 * send NodeInfo out of every linked switch port whose cable is not known yet;
 * then (C) resolve those answers in a fixed order: a GUID seen for the first
 * time is a new node on level k+1, a known GUID entering on a free port is a
 * second cable to it, and a known GUID whose entry port is already cabled
 * elsewhere is a different node with a duplicate GUID. A cable found from
 * one side is never probed again from the other side (no second NodeInfo),
 * but every switch port's PortInfo is read.
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
#include "walk_int.h"
#include "speeds.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/*
 * Phase A: everything about the nodes of this level. First the PortInfo
 * that gives a node's LID (a switch's port 0, a CA's port the walk came in
 * by), then the rest (walk_read_rest): a switch's by its LID where the
 * subnet routes, a CA's by directed route (fabric/walk/walk_lid.c says why).
 */
static void read_details(struct walker *w)
{
	size_t i;

	for (i = 0; i < w->n_level; i++) {
		struct ibs_node *n = w->level[i];
		uint8_t lead = n->ni.node_type == IBS_NODE_SWITCH ? 0 : n->entry_port;
		struct qctx *c;

		if (n->ni.node_type != IBS_NODE_SWITCH && (n->entry_port < 1 || n->entry_port > n->ni.num_ports)) {
			walk_query(walk_qctx(w, n, 0), n, 0, NULL, IBS_ATTR_NODE_DESC, 0);
			continue;
		}
		if (n->ni.node_type != IBS_NODE_SWITCH)
			/* A CA or router port is read through the cable that reached it. */
			n->ports[n->entry_port].guid = n->ni.port_guid;
		c = walk_qctx(w, n, lead);
		c->lead = w->lid_route;
		walk_query(c, n, 0, NULL, IBS_ATTR_PORT_INFO, lead);
		if (!w->lid_route)
			walk_read_rest(w, n);
	}
	for (i = 0; i < w->n_tasks; i++) {
		struct port_task *t = &w->tasks[i];
		walk_query_port(w, t->node, t->port, t->from, t->from_port);
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
	c = walk_qctx(w, from, port);
	c->probe = w->n_probes++;
	walk_query(c, from, port, NULL, IBS_ATTR_NODE_INFO, 0);
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
	walk_record_error(w, &req, &pr->path, pr->from, pr->port, &r, true);
}

/*
 * Does cand's NodeInfo say it is the node that answered pr, entered on port
 * k? NodeGUID alone can lie (a duplicate): the rest of NodeInfo must agree
 * too, the port GUID included (a switch's is its port 0's, the same from
 * any side; a CA's is the entry port's, known once that port was read).
 */
static bool nodeinfo_matches(const struct ibs_node *cand, uint8_t k, const struct ibs_nodeinfo *ni)
{
	if (k < 1 || k > cand->ni.num_ports)
		return false;
	if (cand->ni.node_guid != ni->node_guid || cand->ni.node_type != ni->node_type ||
	    cand->ni.system_image_guid != ni->system_image_guid || cand->ni.vendor_id != ni->vendor_id ||
	    cand->ni.device_id != ni->device_id || cand->ni.revision != ni->revision ||
	    cand->ni.num_ports != ni->num_ports)
		return false;
	if (cand->ni.node_type == IBS_NODE_SWITCH)
		return cand->ni.port_guid == ni->port_guid;
	return !cand->ports[k].guid || cand->ports[k].guid == ni->port_guid;
}

/*
 * Is candidate, entered on port k, the node already known at the far end of
 * from:port? It is when its NodeInfo matches in full and port k is not
 * cabled elsewhere, whatever state port k was read in: a port read Down
 * while its cable was out (a flap) carries this probe now, and resolve()
 * reads it again. Two nodes sharing a GUID differ elsewhere in NodeInfo
 * (ibsim's `Guid` changes the NodeGUID only), or by a port cabled elsewhere.
 */
static bool same_node(const struct ibs_node *cand, uint8_t k, const struct probe *pr)
{
	const struct ibs_port *cp;

	if (!nodeinfo_matches(cand, k, &pr->ni))
		return false;
	cp = &cand->ports[k];
	if (cp->peer)
		return cp->peer == pr->from && cp->peer_port == pr->port;
	return true;
}

/* Do a and b say the same in NodeInfo, port GUID included? */
static bool twins(const struct ibs_node *a, const struct ibs_node *b)
{
	return a->ni.node_guid == b->ni.node_guid && a->ni.node_type == b->ni.node_type &&
	       a->ni.port_guid == b->ni.port_guid && a->ni.system_image_guid == b->ni.system_image_guid &&
	       a->ni.vendor_id == b->ni.vendor_id && a->ni.device_id == b->ni.device_id &&
	       a->ni.revision == b->ni.revision && a->ni.num_ports == b->ni.num_ports;
}

/*
 * Is pr, sent from port j of a node, an echo of a cable already known? It is
 * when it reached a known node whose entry port is cabled to port j of
 * another node matching the sender in full: the sender is a copy of that
 * node, made when a cable flapped, and walking it through ports whose far
 * ends are known would copy every neighbour around every loop. One port has
 * one cable, so two real nodes never both reach it.
 */
static bool echo_of_known(const struct walker *w, const struct probe *pr)
{
	const struct ibs_node *cand, *from = pr->from;
	uint8_t k = pr->ni.local_port;

	if (!from)
		return false;
	for (cand = ibs_fabric_find_guid(w->f, pr->ni.node_guid); cand; cand = cand->next_same_guid) {
		const struct ibs_port *cp;
		if (!nodeinfo_matches(cand, k, &pr->ni))
			continue;
		cp = &cand->ports[k];
		if (cp->peer && cp->peer != from && cp->peer_port == pr->port && twins(cp->peer, from))
			return true;
	}
	return false;
}

/* Read port k of n again (a switch's by its own paths, a CA's through from:port) in the next phase A. */
static void reread_port(struct walker *w, struct ibs_node *n, uint8_t k, struct ibs_node *from, uint8_t port)
{
	w->tasks = xgrow(w->tasks, &w->cap_tasks, w->n_tasks + 1, sizeof(*w->tasks));
	w->tasks[w->n_tasks].node = n;
	w->tasks[w->n_tasks].port = k;
	w->tasks[w->n_tasks].from = n->ni.node_type == IBS_NODE_SWITCH ? n : from;
	w->tasks[w->n_tasks].from_port = n->ni.node_type == IBS_NODE_SWITCH ? 0 : port;
	w->n_tasks++;
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
			if (same_node(cand, k, pr))
				break;
		if (!cand && echo_of_known(w, pr)) {
			log_debug("node GUID 0x%016llx reached again through a copy of a known node: not walked",
				  (unsigned long long)pr->ni.node_guid);
			continue;
		}
		if (cand) {
			struct ibs_port *cp = &cand->ports[k];
			n = cand;
			if (cp->valid && !ibs_port_is_up(cp)) {
				/* Read while its cable was out: it carried this probe, so read it again. */
				log_debug("port %u of 0x%016llx was read down and now answers: read again", k,
					  (unsigned long long)n->ni.node_guid);
				reread_port(w, n, k, pr->from, pr->port);
			} else if (n->ni.node_type != IBS_NODE_SWITCH && !cp->valid && k != n->entry_port) {
				reread_port(w, n, k, pr->from, pr->port);
				cp->guid = pr->ni.port_guid;
			}
		} else {
			if (ibs_fabric_find_guid(w->f, pr->ni.node_guid))
				log_debug("node GUID 0x%016llx seen again on another node",
					  (unsigned long long)pr->ni.node_guid);
			n = ibs_fabric_add_node(w->f, &pr->ni, &pr->path);
			if (!pr->from)
				w->root = n;
			walk_uplinks(w, n)->parent = pr->from ? (uint32_t)pr->from->index : NO_NODE;
			level_push(w, n);
		}
		if (pr->from && k >= 1 && k <= n->ni.num_ports) {
			ibs_fabric_connect(pr->from, pr->port, n, k);
			walk_add_uplink(w, n, k, pr->from, pr->port);
			walk_add_uplink(w, pr->from, pr->port, n, k);
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
	c = walk_qctx(w, n, port);
	c->probe = w->f->n_sms - 1;
	/* A switch, or a CA by its entry port, has the node's paths; another CA port only its own. */
	if (!pt->valid || n->ni.node_type == IBS_NODE_SWITCH || port == n->entry_port)
		walk_query(c, n, 0, NULL, IBS_ATTR_SM_INFO, 0);
	else
		walk_query(c, NULL, 0, &pt->path, IBS_ATTR_SM_INFO, 0);
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
		/* A switch's CapabilityMask is port 0's: on its other ports it is undefined (IBA 14.2.5.6). */
		unsigned last;
		n = w->f->nodes[i];
		last = n->ni.node_type == IBS_NODE_SWITCH ? 0 : n->ni.num_ports;
		for (p = ibs_node_first_port(n); p <= last; p++)
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
		walk_send_query(c);
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
	w->stopped = true;
	for (i = 0; i < w->n_deferred; i++) {
		struct qctx *c = w->deferred[i];
		c->last_chance = true;
		struct ibs_addr a;
		walk_query_canon(c, &a);
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, c->attr, c->mod);
		walk_handler(c->attr)(c, &req, &r);
	}
	w->n_deferred = 0;
	for (i = 0; i < w->n_reprobe; i++) {
		struct ibs_addr a;
		ibs_addr_dr_extend(&a, &w->reprobe[i].node->path, w->reprobe[i].port);
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
		walk_record_error(w, &req, &a, w->reprobe[i].node, w->reprobe[i].port, &r, true);
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
	w.gids = o->gids;
	ibs_engine_set_progress(e, progress_cb, &w);
	ibs_engine_set_paths(e, walk_query_path);
	ibs_engine_set_route(e, walk_route);
	/* An Active local port with a subnet manager: the SM has given LIDs and set up routes. */
	w.lid_route = !o->dr_only && f->local.state == IBS_PORT_ACTIVE && f->local.sm_lid;
	if (w.lid_route)
		w.lid_owner = xcalloc(IBS_LID_UNICAST_END, sizeof(*w.lid_owner));

	/* Level 0: the local node, by the empty path. */
	ibs_addr_dr(&root, NULL, 0);
	w.probes = xgrow(w.probes, &w.cap_probes, 1, sizeof(*w.probes));
	memset(&w.probes[0], 0, sizeof(w.probes[0]));
	w.probes[0].path = root;
	w.n_probes = 1;
	w.probes[0].last_chance = true;
	c = walk_qctx(&w, NULL, 0);
	walk_query(c, NULL, 0, &root, IBS_ATTR_NODE_INFO, 0);
	rc = run(&w);
	if (rc == IBS_OK && !w.probes[0].ok && w.probes[0].outcome == IBS_MAD_TIMEOUT) {
		/* Without it there is no walk at all: its re-sweep comes at once. */
		c = walk_qctx(&w, NULL, 0);
		walk_query(c, NULL, 0, &root, IBS_ATTR_NODE_INFO, 0);
		rc = run(&w);
	}
	if (!w.probes[0].ok) {
		struct ibs_mad_req req;
		struct ibs_mad_result r;
		ibs_req_get(&req, &root, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
		memset(&r, 0, sizeof(r));
		r.outcome = w.probes[0].outcome;
		walk_record_error(&w, &req, &root, NULL, 0, &r, true);
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
	ibs_engine_set_route(e, NULL);
	free(w.level);
	free(w.tasks);
	free(w.probes);
	free(w.up);
	free(w.deferred);
	free(w.reprobe);
	free(w.lid_owner);
	free(w.reads);
	while (w.free_ctx) {
		c = w.free_ctx;
		w.free_ctx = c->next;
		free(c);
	}
	ibs_fabric_fix_ext_speeds(f);
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
