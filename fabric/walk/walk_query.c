/*
 * The walker's queries (one context each, recycled) and the handlers that put
 * their answers into the model, by directed route or by LID, with the
 * NodeInfos that confirm a node's LID and close its reads by it (walk_lid.c
 * judges their answers); a query that fails along every path waits for the
 * re-sweep (see fabric/walk/walk.c).
 */
#include "walk_int.h"
#include "speeds.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* One context per query, recycled: a walk sends hundreds of thousands. */
struct qctx *walk_qctx(struct walker *w, struct ibs_node *n, uint8_t port)
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
	c->lead = false;
	c->lid = 0;
	return c;
}

void walk_qctx_put(struct qctx *c)
{
	c->next = c->w->free_ctx;
	c->w->free_ctx = c;
}

static void on_probe(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_nodedesc(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_switchinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_portinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_guidinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_sminfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_mlnx_ext(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void on_lid_answered(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);
static void confirm_lid(struct walker *w, struct ibs_node *n);

/* Each attribute has its one handler (NodeInfo is only ever a probe). */
ibs_mad_cb walk_handler(uint16_t attr)
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
	case IBS_ATTR_MLNX_EXT_PORT_INFO:
		return on_mlnx_ext;
	default:
		return on_sminfo;
	}
}

void walk_send_query(struct qctx *c)
{
	struct ibs_mad_req req;

	c->lid = walk_lid_for(c);
	if (c->lid) {
		struct ibs_addr a;
		ibs_addr_lid(&a, c->lid, 0);
		ibs_req_get(&req, &a, IBS_CLASS_SMI, c->attr, c->mod);
		walk_uplinks(c->w, c->node)->lid_pending++;
		ibs_engine_submit_paths(c->w->e, &req, on_lid_answered, c);
		return;
	}
	/* Path 0, built in place: this runs for every query of a walk. */
	ibs_req_get(&req, c->is_fixed ? c->fixed : &c->base->path, IBS_CLASS_SMI_DR, c->attr, c->mod);
	if (!c->is_fixed && c->ext)
		ibs_addr_dr_extend(&req.addr, &req.addr, c->ext);
	ibs_engine_submit_paths(c->w->e, &req, walk_handler(c->attr), c);
}

/*
 * Ask attr/mod of the node at the far end of base's port ext (of base itself
 * when ext is 0), along base's paths in turn; or, with base NULL, along the
 * path `fixed` only.
 */
void walk_query(struct qctx *c, struct ibs_node *base, uint8_t ext, const struct ibs_addr *fixed, uint16_t attr,
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
	walk_send_query(c);
}

/*
 * A query that got no answer along any of its paths waits for the re-sweep.
 * True when it does (the callback must then leave c alone); false when this
 * failure is final.
 */
static bool resweep_later(struct qctx *c, const struct ibs_mad_result *r)
{
	struct walker *w = c->w;

	/* Whether LIDs answer here: until one has, a few that do not end LID routing. */
	if (c->lid) {
		if (r->outcome == IBS_MAD_OK && r->attempts == 1)
			w->lid_good++;
		else if (r->outcome != IBS_MAD_ABORTED && w->lid_bad++ == 8 && !w->lid_good)
			log_info("LID-routed SMPs get no answers: directed routes only");
	}

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
void walk_record_error(struct walker *w, const struct ibs_mad_req *req, const struct ibs_addr *path,
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
static void walk_record_error_q(struct qctx *c, const struct ibs_mad_req *req, struct ibs_node *n, uint8_t port,
				const struct ibs_mad_result *r, bool unreachable)
{
	struct ibs_addr a;
	struct ibs_mad_req dr = *req;

	/* The error names the query's own directed route, whichever way it last went. */
	walk_query_canon(c, &a);
	dr.mgmt_class = IBS_CLASS_SMI_DR;
	dr.addr = a;
	walk_record_error(c->w, &dr, &a, n, port, r, unreachable);
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
		walk_record_error_q(c, req, c->node, 0, r, false);
		ibs_set_error(&c->node->error, &c->node->error_rank, IBS_RANK(IBS_RANK_NODEDESC, 0),
			      "NodeDescription: %s", ibs_outcome_str(r->outcome));
	}
	walk_qctx_put(c);
}

static void on_switchinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;

	if (resweep_later(c, r))
		return;
	if (r->outcome == IBS_MAD_OK && ibs_decode_switchinfo(r->mad, r->len, &c->node->si) == IBS_OK) {
		c->node->has_si = true;
	} else {
		walk_record_error_q(c, req, c->node, 0, r, false);
		ibs_set_error(&c->node->error, &c->node->error_rank, IBS_RANK(IBS_RANK_SWITCHINFO, 0),
			      "SwitchInfo: %s", ibs_outcome_str(r->outcome));
	}
	walk_qctx_put(c);
}

static void on_guidinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct ibs_port *p = &c->node->ports[c->port];
	uint64_t g[IBS_GUIDINFO_PER_BLOCK];
	unsigned i, base = req->attr_mod * IBS_GUIDINFO_PER_BLOCK;

	if (resweep_later(c, r))
		return;
	if (r->outcome == IBS_MAD_OK && ibs_decode_guidinfo(r->mad, r->len, g) == IBS_OK &&
	    !walk_lid_answer_ok(c, req, NULL, g)) {
		walk_send_query(c); /* another node's: by directed route now (walk_lid_for says 0) */
		return;
	}
	/*
	 * Every block is read (ceil(GUIDCap / 8) of them, as `smpquery guids`
	 * does): alias GUIDs have holes (mlx4 puts VF n's alias at index n and
	 * clears it when the VF shuts down), so a free entry ends nothing.
	 * Free entries stay 0 here and are left out of the GID list.
	 */
	if (r->outcome == IBS_MAD_OK && ibs_decode_guidinfo(r->mad, r->len, g) == IBS_OK) {
		for (i = 0; i < IBS_GUIDINFO_PER_BLOCK && base + i < p->n_gids; i++)
			p->gids[base + i] = g[i];
	} else {
		walk_record_error_q(c, req, c->node, c->port, r, false);
		ibs_set_error(&p->error, &p->error_rank, IBS_RANK(IBS_RANK_GUIDINFO, req->attr_mod), "GUIDInfo: %s",
			      ibs_outcome_str(r->outcome));
	}
	walk_qctx_put(c);
}

/*
 * Port p's Mellanox ExtendedPortInfo where it may run FDR10. A switch's
 * ports wait for port 0, whose capability mask decides, to be settled
 * (read, or failed for good): what the walk asks must never depend on the
 * order answers come in (a replay answers at once).
 */
static void ask_fdr10(struct qctx *c, struct ibs_node *n, uint8_t port)
{
	struct uplinks *u;
	unsigned q;

	if (n->ni.node_type != IBS_NODE_SWITCH) {
		if (ibs_port_may_run_fdr10(n, &n->ports[port]))
			walk_query(walk_qctx(c->w, n, port), c->is_fixed ? NULL : c->base, c->ext, c->fixed,
				   IBS_ATTR_MLNX_EXT_PORT_INFO, port);
		return;
	}
	u = walk_uplinks(c->w, n);
	if (port) {
		if (u->port0_settled && ibs_port_may_run_fdr10(n, &n->ports[port]))
			walk_query(walk_qctx(c->w, n, port), n, 0, NULL, IBS_ATTR_MLNX_EXT_PORT_INFO, port);
		return;
	}
	if (u->port0_settled)
		return; /* port 0 read again: its ports were decided */
	u->port0_settled = true;
	for (q = 1; q <= n->ni.num_ports; q++)
		if (n->ports[q].valid && ibs_port_may_run_fdr10(n, &n->ports[q]))
			walk_query(walk_qctx(c->w, n, (uint8_t)q), n, 0, NULL, IBS_ATTR_MLNX_EXT_PORT_INFO, q);
}

static void portinfo_answer(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct ibs_node *n = c->node;
	struct ibs_port *p = &n->ports[c->port];
	struct ibs_portinfo pi = p->pi;
	bool ok;
	unsigned blk;

	if (resweep_later(c, r))
		return;
	ok = r->outcome == IBS_MAD_OK && ibs_decode_portinfo(r->mad, r->len, &pi) == IBS_OK;
	if (ok && !walk_lid_answer_ok(c, req, &pi, NULL)) {
		walk_send_query(c); /* another node's: by directed route now (walk_lid_for says 0) */
		return;
	}
	if (ok)
		p->pi = pi;
	if (!ok) {
		walk_record_error_q(c, req, n, c->port, r, false);
		ibs_set_error(&p->error, &p->error_rank, IBS_RANK(IBS_RANK_PORTINFO, 0), "PortInfo: %s",
			      ibs_outcome_str(r->outcome == IBS_MAD_OK ? IBS_MAD_MALFORMED : r->outcome));
		if (c->port == 0 && !c->w->stopped)
			ask_fdr10(c, n, 0); /* a switch's ports wait no more */
		walk_qctx_put(c);
		return;
	}
	p->valid = true;
	walk_lid_claim(c->w, n, p);
	walk_query_canon(c, &p->path);
	/* Switch external ports have no GUID of their own; they answer with port 0's. */
	if (n->ni.node_type == IBS_NODE_SWITCH)
		p->guid = n->ni.port_guid;
	/* GIDs beyond the port GUID exist only where GUIDCap says so (IBA 14.2.5.5). */
	if (c->w->gids && p->pi.guid_cap > 1 &&
	    (n->ni.node_type != IBS_NODE_SWITCH || c->port == 0)) {
		p->n_gids = p->pi.guid_cap;
		free(p->gids); /* a port read again */
		p->gids = xcalloc(p->n_gids, sizeof(*p->gids));
		for (blk = 0; blk * IBS_GUIDINFO_PER_BLOCK < p->n_gids; blk++)
			walk_query(walk_qctx(c->w, n, c->port), c->is_fixed ? NULL : c->base, c->ext, c->fixed,
				   IBS_ATTR_GUID_INFO, blk);
	}
	ask_fdr10(c, n, c->port);
	walk_qctx_put(c);
}

/* A node's first PortInfo (the lead) brings its LID: the rest of its details follow, whatever came. */
static void on_portinfo(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct walker *w = c->w;
	struct ibs_node *n = c->node;
	bool lead = c->lead;

	c->lead = false;
	portinfo_answer(ctx, req, r);
	if (lead)
		confirm_lid(w, n); /* then the rest, by LID where it leads to n */
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
	walk_qctx_put(c);
}

/* PortInfo of n's port, asked through base (and base's port ext). */
void walk_query_port(struct walker *w, struct ibs_node *n, uint8_t port, struct ibs_node *base, uint8_t ext)
{
	walk_query(walk_qctx(w, n, port), base, ext, NULL, IBS_ATTR_PORT_INFO, port);
}

/* Optional, as in libibnetdisc: a port that does not answer it keeps PortInfo's QDR. */
static void on_mlnx_ext(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	char pb[256];

	if (r->outcome != IBS_MAD_OK ||
	    ibs_decode_mlnx_ext_portinfo(r->mad, r->len, &c->node->ports[c->port].pi) != IBS_OK)
		log_debug("%s to %s: %s (the port's speed stays as PortInfo says)",
			  ibs_attr_name(req->mgmt_class, req->attr_id), ibs_addr_str(&req->addr, pb, sizeof(pb)),
			  ibs_outcome_str(r->outcome));
	walk_qctx_put(c);
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
		walk_record_error_q(c, req, c->node, c->port, r, false);
	walk_qctx_put(c);
}

void walk_read_rest(struct walker *w, struct ibs_node *n)
{
	unsigned p;

	walk_query(walk_qctx(w, n, 0), n, 0, NULL, IBS_ATTR_NODE_DESC, 0);
	if (n->ni.node_type == IBS_NODE_SWITCH) {
		walk_query(walk_qctx(w, n, 0), n, 0, NULL, IBS_ATTR_SWITCH_INFO, 0);
		/*
		 * Every port, a cable learnt from its other end included: PortState
		 * belongs to each end (the SM sets each with its own Set, and a
		 * failed one leaves one end Armed or Init), so the far end's word
		 * is not this end's. By the switch's LID when the walk routes by
		 * LID, as libibnetdisc reads every switch port too.
		 */
		for (p = 1; p <= n->ni.num_ports; p++)
			walk_query_port(w, n, (uint8_t)p, n, 0);
	}
}

/*
 * The NodeInfos by LID that confirm a node's LID before its reads and close
 * them after, and the reads asked again by directed route when the LID led
 * elsewhere: walk_lid.c judges each answer (and says why).
 */

/* A NodeInfo to n by its LID; cb gets the answer. */
static void ask_nodeinfo_by_lid(struct walker *w, struct ibs_node *n, uint16_t lid, ibs_mad_cb cb)
{
	struct ibs_mad_req req;
	struct ibs_addr a;
	struct qctx *c;

	c = walk_qctx(w, n, 0);
	c->base = n;
	c->attr = IBS_ATTR_NODE_INFO;
	c->lid = lid;
	ibs_addr_lid(&a, lid, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_NODE_INFO, 0);
	ibs_engine_submit(w->e, &req, cb, c);
}

static void on_confirm(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct walker *w = c->w;
	struct ibs_node *n = c->node;

	walk_lid_confirmed(w, n, req, r);
	walk_qctx_put(c);
	walk_read_rest(w, n);
}

/* n's lead PortInfo is in: confirm its LID with a LID-routed NodeInfo, then read the rest (walk_read_rest). */
static void confirm_lid(struct walker *w, struct ibs_node *n)
{
	uint16_t lid = walk_node_lid(w, n);

	if (!lid || walk_uplinks(w, n)->lid_state != LID_UNKNOWN) {
		walk_read_rest(w, n);
		return;
	}
	ask_nodeinfo_by_lid(w, n, lid, on_confirm);
}

/*
 * n's LID led elsewhere at some point since its last confirmation: what
 * it got by LID is not its own. Forget it, errors included, and ask it
 * all again by directed route (its LID is refused from now on).
 */
static void redo_reads(struct walker *w, struct ibs_node *n)
{
	uint32_t i, head = walk_lid_undo(w, n);

	for (i = head; i; i = w->reads[i - 1].next) {
		const struct lid_read *rd = &w->reads[i - 1];
		struct qctx *c;
		if (!walk_lid_ask_again(w, head, rd))
			continue; /* asked again by that port's PortInfo answer */
		c = walk_qctx(w, n, rd->port);
		c->probe = rd->probe;
		walk_query(c, n, 0, NULL, rd->attr, rd->mod); /* by directed route now */
	}
	walk_lid_forget(w, walk_uplinks(w, n));
}

static void on_close(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct walker *w = c->w;
	struct ibs_node *n = c->node;

	bool redo = r->outcome != IBS_MAD_ABORTED && !walk_lid_closed(w, n, req, r);

	walk_qctx_put(c);
	if (redo)
		redo_reads(w, n);
}

/* Every LID-routed query about n is answered: close them with a NodeInfo, or redo them at once. */
static void close_reads(struct walker *w, struct ibs_node *n)
{
	struct uplinks *u = walk_uplinks(w, n);
	uint16_t lid = walk_node_lid(w, n);

	if (!u->lid_reads || w->run->aborted)
		return;
	if (u->lid_state != LID_CONFIRMED) {
		/* An answer showed another node's LID or port GUID meanwhile (walk_lid_answer_ok). */
		log_warn("LID %u answered as another node while node 0x%016llx was read by it: "
			 "what it answered by LID is read again by directed route",
			 w->reads[u->lid_reads - 1].lid, (unsigned long long)n->ni.node_guid);
		redo_reads(w, n);
		return;
	}
	if (!lid) {
		/* A node found meanwhile claims the LID too (identity.duplicate_lid says so). */
		log_info("LID %u is claimed by another node too: what node 0x%016llx answered by it is read "
			 "again by directed route",
			 w->reads[u->lid_reads - 1].lid, (unsigned long long)n->ni.node_guid);
		redo_reads(w, n);
		return;
	}
	u->lid_state = LID_CLOSING;
	ask_nodeinfo_by_lid(w, n, lid, on_close);
}

/* A LID-routed query's answer: its handler's, then kept until the closing NodeInfo. */
static void on_lid_answered(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct qctx *c = ctx;
	struct walker *w = c->w;
	struct ibs_node *n = c->node;
	struct lid_read rd = { .probe = c->probe, .mod = c->mod, .attr = c->attr, .lid = c->lid, .port = c->port };
	size_t n_err = w->f->n_errors, n_def = w->n_deferred;
	struct uplinks *u;

	walk_handler(rd.attr)(ctx, req, r); /* c is the handler's now */
	u = walk_uplinks(w, n);
	if (r->outcome != IBS_MAD_ABORTED && w->n_deferred == n_def) {
		/* Not left for the re-sweep (which asks it again, and keeps that answer). */
		rd.err = w->f->n_errors > n_err ? (uint32_t)n_err + 1 : 0;
		walk_lid_keep(w, u, &rd);
	}
	if (!--u->lid_pending)
		close_reads(w, n);
}
