/* PMA counter sweep over the whole fabric (IBA 16.1: PortCounters, PortCountersExtended). */
#include "counters.h"
#include "counters_int.h"
#include "../model/names.h"
#include "../model/rate.h"
#include "../../core/base/clock.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DEF(n, k, err, thr, b) { n, #k, offsetof(struct ibs_pma_counters, k), err, thr, b }
/* Default thresholds: a count above them in one reading is a finding. */
const struct ibs_counter_def ibs_counter_defs[] = {
	DEF("SymbolErrorCounter", symbol_errors, true, 10, 16),
	DEF("LinkErrorRecoveryCounter", link_error_recovery, true, 10, 8),
	DEF("LinkDownedCounter", link_downed, true, 10, 8),
	DEF("PortRcvErrors", rcv_errors, true, 10, 16),
	DEF("PortRcvRemotePhysicalErrors", rcv_remote_phys_errors, true, 100, 16),
	/*
	 * Off by default: on a long-running fabric it counts packets dropped
	 * for routing reasons (a multicast packet's own ingress port, a LID
	 * gone away), not link faults; ibqueryerrors leaves it out with -c.
	 */
	DEF("PortRcvSwitchRelayErrors", rcv_switch_relay_errors, true, IBS_THRESHOLD_OFF, 16),
	DEF("PortXmitDiscards", xmit_discards, true, 100, 16),
	DEF("PortXmitConstraintErrors", xmit_constraint_errors, true, 100, 8),
	DEF("PortRcvConstraintErrors", rcv_constraint_errors, true, 100, 8),
	DEF("LocalLinkIntegrityErrors", local_link_integrity_errors, true, 10, 4),
	DEF("ExcessiveBufferOverrunErrors", excessive_buffer_overrun_errors, true, 10, 4),
	DEF("VL15Dropped", vl15_dropped, true, 100, 16),
	DEF("PortXmitWait", xmit_wait, false, 0, 32),
};
const size_t ibs_n_counter_defs = sizeof(ibs_counter_defs) / sizeof(ibs_counter_defs[0]);

const struct ibs_counter_def *ibs_counter_find(const char *name)
{
	size_t i;

	for (i = 0; i < ibs_n_counter_defs; i++)
		if (!strcasecmp(ibs_counter_defs[i].name, name) || !strcasecmp(ibs_counter_defs[i].key, name))
			return &ibs_counter_defs[i];
	return NULL;
}

bool ibs_counter_known(const struct ibs_port_counters *c, const struct ibs_counter_def *d)
{
	return !(c->no_xmit_wait && d->offset == offsetof(struct ibs_pma_counters, xmit_wait));
}

bool ibs_port_wants_counters(const struct ibs_node *n, const struct ibs_port *p)
{
	if (p->num == 0 || !p->valid)
		return false;
	(void)n;
	/* A port with a cable (or at least LinkUp) has counters worth reading. */
	return p->peer || ibs_portinfo_linkup(&p->pi);
}

/*
 * The port a GMP to p's PMA enters by: a switch's port 0 (the PMA's, whatever
 * port is selected), a CA's or router's own port.
 */
static const struct ibs_port *pma_port(const struct ibs_node *n, const struct ibs_port *p)
{
	return n->ni.node_type == IBS_NODE_SWITCH ? ibs_node_port(n, 0) : p;
}

uint16_t ibs_port_pma_lid(const struct ibs_node *n, const struct ibs_port *p)
{
	const struct ibs_port *via = pma_port(n, p);

	return via && via->valid ? via->pi.lid : 0;
}

/*
 * Why no GMP can ask for p's counters, or IBS_CTR_ASKED. Only SMPs pass a
 * port in Init or Armed (IBA 7.2); a GMP needs the PMA's port Active, and
 * for a remote CA the switch port its cable goes to as well (every GMP to
 * it leaves by that port; its port 0 counts for a switch). A switch's
 * external port in Init is read through its port 0 all the same. A LID
 * another node holds too (own: ibs_fabric_lid_owners) would bring
 * whichever node's counters the forwarding tables lead to: not asked.
 */
static uint8_t pma_skip(const struct ibs_node *n, const struct ibs_port *p, const uint32_t *own, uint8_t *state)
{
	const struct ibs_port *via = pma_port(n, p), *far;

	if (!via || !via->valid)
		return IBS_CTR_NO_LID;
	if (!ibs_portinfo_active(&via->pi)) {
		*state = via->pi.state;
		return IBS_CTR_NOT_ACTIVE;
	}
	if (!via->pi.lid)
		return IBS_CTR_NO_LID;
	far = NULL;
	if (n->ni.node_type != IBS_NODE_SWITCH && n->path.hops && p->peer)
		far = ibs_node_port(p->peer, p->peer_port);
	if (far && far->valid && !ibs_portinfo_active(&far->pi)) {
		*state = far->pi.state;
		return IBS_CTR_PEER_NOT_ACTIVE;
	}
	if (via->pi.lid < IBS_LID_UNICAST_END && own[via->pi.lid] == IBS_LID_SHARED)
		return IBS_CTR_SHARED_LID;
	return IBS_CTR_ASKED;
}

const char *ibs_port_counters_why(const struct ibs_node *n, const struct ibs_port *p)
{
	static char buf[192];
	const struct ibs_port *via = pma_port(n, p);

	if (!p->ctr || p->ctr->ok)
		return NULL;
	switch (p->ctr->not_read) {
	case IBS_CTR_NO_LID:
		return "the port has no LID";
	case IBS_CTR_NOT_ACTIVE:
		snprintf(buf, sizeof(buf), "%s is %s, and no GMP reaches a port that is not Active",
			 via == p ? "the port" : "port 0", ibs_port_state_str(p->ctr->state));
		return buf;
	case IBS_CTR_MOVED:
		return "its LID moved between the two readings";
	case IBS_CTR_PEER_NOT_ACTIVE:
		snprintf(buf, sizeof(buf),
			 "%s port %u, its cable's other end, is %s, and no GMP crosses a port that is not Active",
			 ibs_node_name(p->peer), p->peer_port, ibs_port_state_str(p->ctr->state));
		return buf;
	case IBS_CTR_SHARED_LID:
		snprintf(buf, sizeof(buf), "its LID %u is another node's too: a GMP to it reaches either", via->pi.lid);
		return buf;
	}
	return NULL;
}

struct cctx *ibs_cctx(struct cctx *base, struct ibs_node *n, struct ibs_port *p, bool ext)
{
	struct cctx *c = xmalloc(sizeof(*c));

	*c = *base;
	c->node = n;
	c->port = p;
	c->ext = ext;
	c->redirected = false; /* a new request */
	return c;
}

/*
 * A PMA that answers "redirect required" names in a ClassPortInfo the LID,
 * QP, Q_Key and SL to ask instead. libibmad's mad_rpc follows it, and so does
 * this: once per request (a second redirect stands as the answer, so two
 * agents cannot bounce a request for ever), by LID only. True when the
 * request went out again (c is then spent).
 */
bool ibs_follow_redirect(struct cctx *c, const struct ibs_mad_req *req, const struct ibs_mad_result *r,
			    ibs_mad_cb cb)
{
	struct ibs_mad_req again;
	struct cctx *n;

	if (r->outcome != IBS_MAD_STATUS || !(r->status & IBS_MAD_STATUS_REDIRECT) || c->redirected)
		return false;
	again = *req;
	if (ibs_decode_redirect(r->mad, r->len, &again.addr) != IBS_OK) {
		log_warn("the PMA of 0x%016llx redirects to an address ibscan cannot follow (by GID only)",
			 (unsigned long long)c->node->ni.node_guid);
		return false;
	}
	log_debug("the PMA of 0x%016llx redirects to LID %u QP 0x%x", (unsigned long long)c->node->ni.node_guid,
		  again.addr.lid, again.addr.qp);
	n = ibs_cctx(c, c->node, c->port, c->ext);
	n->redirected = true;
	ibs_engine_submit(c->e, &again, cb, n);
	free(c);
	return true;
}

void ibs_pma_req(struct ibs_mad_req *req, uint16_t lid, uint16_t attr, uint8_t port, bool ext, bool reset,
		    uint8_t *data)
{
	struct ibs_addr a;

	ibs_addr_lid(&a, lid, 1);
	ibs_req_get(req, &a, IBS_CLASS_PMA, attr, 0);
	if (attr != IBS_ATTR_CLASS_PORT_INFO) {
		ibs_pma_select(data, 64, port, ext, reset);
		req->data = data;
		req->data_len = 64;
		if (reset)
			req->method = IBS_METHOD_SET;
	}
}

static void on_reset(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct cctx *c = ctx;

	if (ibs_follow_redirect(c, req, r, on_reset))
		return;
	if (r->outcome != IBS_MAD_OK)
		log_warn("could not reset the counters of 0x%016llx port %u: %s",
			 (unsigned long long)c->node->ni.node_guid, c->port->num, ibs_outcome_str(r->outcome));
	free(c);
}

static void submit_reset(struct cctx *c, bool ext)
{
	struct ibs_mad_req req;
	uint8_t data[64];

	ibs_pma_req(&req, ibs_port_pma_lid(c->node, c->port), ext ? IBS_ATTR_PORT_COUNTERS_EXT : IBS_ATTR_PORT_COUNTERS,
		c->port->num, ext, true, data);
	ibs_engine_submit(c->e, &req, on_reset, ibs_cctx(c, c->node, c->port, ext));
}

static void on_ext(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct cctx *c = ctx;
	struct ibs_port_counters *pc = c->port->ctr;

	if (ibs_follow_redirect(c, req, r, on_ext))
		return;
	/* Without the extended counters the 32-bit ones still stand. */
	if (r->outcome == IBS_MAD_OK && ibs_decode_port_counters_ext(r->mad, r->len, &pc->c) == IBS_OK) {
		pc->extended = true;
		pc->t_ns = ibs_mono_ns(); /* the data counters are these */
		/*
		 * Where the PMA has them (perfquery's IsAdditionalPortCountersExtendedSupported),
		 * the 64-bit error counters and XmitWait replace PortCounters' 8-32-bit
		 * ones, which saturate: a 32-bit XmitWait in seconds on a congested link.
		 */
		if ((c->node->pma_capmask2 & IBS_PM2_ADDL_PORT_CTRS_EXT) &&
		    ibs_decode_port_counters_ext_errors(r->mad, r->len, &pc->c) == IBS_OK) {
			pc->ext_errors = true;
			if (pc->no_xmit_wait)
				pc->c.xmit_wait = 0;
		}
	}
	ibs_counters_details(c);
	/*
	 * The resets wait for this read: a PortCounters reset in flight beside
	 * it would clear the data counters it reads (one set of counters behind
	 * both attributes on most PMAs).
	 */
	if (c->o->reset) {
		submit_reset(c, false);
		if (pc->extended)
			submit_reset(c, true);
	}
	free(c);
}

static void on_counters(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct cctx *c = ctx;
	struct ibs_port_counters *pc = c->port->ctr;
	struct ibs_mad_req ext;
	uint8_t data[64];

	if (ibs_follow_redirect(c, req, r, on_counters))
		return;
	pc->outcome = r->outcome;
	pc->status = r->status;
	if (r->outcome == IBS_MAD_OK && ibs_decode_port_counters(r->mad, r->len, &pc->c) == IBS_OK) {
		pc->ok = true;
		/* PortXmitWait is optional (IBA 16.1.3.5): trust it only where ClassPortInfo says it is counted. */
		pc->no_xmit_wait = c->node->pma_cpi_ok && !(c->node->pma_capmask & IBS_PM_XMIT_WAIT_SUP);
		if (pc->no_xmit_wait)
			pc->c.xmit_wait = 0;
		pc->t_ns = ibs_mono_ns();
		if (c->node->pma_capmask & (IBS_PM_EXT_WIDTH_SUPPORTED | IBS_PM_EXT_WIDTH_NOIETF_SUP)) {
			/* on_ext resets, once that read is back. */
			ibs_pma_req(&ext, ibs_port_pma_lid(c->node, c->port), IBS_ATTR_PORT_COUNTERS_EXT, c->port->num, true, false, data);
			ibs_engine_submit(c->e, &ext, on_ext, ibs_cctx(c, c->node, c->port, true));
		} else {
			ibs_counters_details(c);
			if (c->o->reset)
				submit_reset(c, false);
		}
	} else if (r->outcome == IBS_MAD_OK) {
		pc->outcome = IBS_MAD_MALFORMED;
	}
	if (!pc->ok)
		c->f->partial = true;
	free(c);
}

/* A fresh reading for the port, keeping an earlier one (--interval). */
static struct ibs_port_counters *fresh(struct ibs_port *pt)
{
	if (!pt->ctr) {
		pt->ctr = xcalloc(1, sizeof(*pt->ctr));
	} else {
		pt->ctr->ok = pt->ctr->extended = pt->ctr->ext_errors = false;
		pt->ctr->outcome = IBS_MAD_OK;
		pt->ctr->status = 0;
		pt->ctr->not_read = IBS_CTR_ASKED;
		pt->ctr->state = 0;
		pt->ctr->t_ns = 0;
		memset(&pt->ctr->c, 0, sizeof(pt->ctr->c));
		memset(pt->ctr->det, 0, sizeof(pt->ctr->det));
		memset(&pt->ctr->d, 0, sizeof(pt->ctr->d));
	}
	return pt->ctr;
}

/* Does pt's reading go to the PMA at lid (it is to be asked, and by that LID)? */
static bool in_group(const struct ibs_node *n, const struct ibs_port *pt, uint16_t lid)
{
	return pt->ctr && !pt->ctr->ok && pt->ctr->not_read == IBS_CTR_ASKED && pt->ctr->outcome == IBS_MAD_OK &&
	       ibs_port_wants_counters(n, pt) && ibs_port_pma_lid(n, pt) == lid;
}

/* PortCounters of every port of n read through the PMA at lid. */
static void read_ports(struct cctx *base, struct ibs_node *n, uint16_t lid)
{
	struct ibs_port *pt;
	uint8_t data[64];
	struct ibs_mad_req req;

	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
		if (!in_group(n, pt, lid))
			continue;
		ibs_pma_req(&req, lid, IBS_ATTR_PORT_COUNTERS, pt->num, false, false, data);
		ibs_engine_submit(base->e, &req, on_counters, ibs_cctx(base, n, pt, false));
	}
}

static void on_cpi(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct cctx *c = ctx;
	uint16_t lid = ibs_port_pma_lid(c->node, c->port);

	if (ibs_follow_redirect(c, req, r, on_cpi))
		return;
	if (r->outcome == IBS_MAD_OK && ibs_decode_pma_capmask(r->mad, r->len, &c->node->pma_capmask,
							      &c->node->pma_capmask2) == IBS_OK)
		c->node->pma_cpi_ok = true;
	if (r->outcome == IBS_MAD_ABORTED) {
		/* The run stopped: nothing more goes out. */
		struct ibs_port *pt;
		for (pt = ibs_node_ports_from(c->node, 1); pt < ibs_node_ports_end(c->node); pt++)
			if (in_group(c->node, pt, lid))
				pt->ctr->outcome = r->outcome;
		c->f->partial = true;
	} else {
		/*
		 * Whatever ClassPortInfo said, or if it said nothing, PortCounters
		 * is mandatory: each port is read, and answers or not for itself.
		 */
		read_ports(c, c->node, lid);
	}
	free(c);
}

/* Each port n's counters are wanted for gets a fresh reading, marked when no GMP can ask for it. */
static void prepare_ports(struct ibs_node *n, const uint32_t *own, bool *any, bool *with_lid)
{
	struct ibs_port *pt;

	/* What the PMA has is learnt anew in each reading (a firmware may change in between). */
	memset(n->pma_det, 0, sizeof(n->pma_det));
	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
		struct ibs_port_counters *c;
		uint8_t why;
		if (!ibs_port_wants_counters(n, pt))
			continue;
		*any = true;
		c = fresh(pt);
		why = pma_skip(n, pt, own, &c->state);
		if (ibs_port_pma_lid(n, pt))
			*with_lid = true;
		/* Not a failure: what the port's state allows (its own finding in health). */
		c->not_read = why;
	}
}

/*
 * One ClassPortInfo per PMA address (a switch's port 0 LID; each Active
 * port of a CA), then PortCounters of the ports behind it.
 */
static void start_node(struct cctx *base, struct ibs_node *n)
{
	struct ibs_port *pt, *q;

	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
		uint16_t lid;
		bool seen = false;
		struct ibs_mad_req req;
		if (!pt->ctr || pt->ctr->not_read != IBS_CTR_ASKED || !ibs_port_wants_counters(n, pt))
			continue;
		lid = ibs_port_pma_lid(n, pt);
		for (q = ibs_node_ports_from(n, 1); q < pt && !seen; q++)
			seen = in_group(n, q, lid);
		if (seen)
			continue;
		if (!base->o->extended) {
			/* Error counters are all in PortCounters: no need to ask what else the PMA has. */
			read_ports(base, n, lid);
			continue;
		}
		ibs_pma_req(&req, lid, IBS_ATTR_CLASS_PORT_INFO, 0, false, false, NULL);
		ibs_engine_submit(base->e, &req, on_cpi, ibs_cctx(base, n, pt, false));
	}
}

/* Each port's reading becomes its first one (have_prev), before the next reading. */
static void keep_readings(struct ibs_fabric *f)
{
	size_t i;
	struct ibs_port *pt;

	for (i = 0; i < f->n_nodes; i++)
		for (pt = f->nodes[i]->ports; pt < ibs_node_ports_end(f->nodes[i]); pt++) {
			struct ibs_port_counters *c = pt->ctr;
			if (c && c->ok) {
				c->prev = c->c;
				c->prev_extended = c->extended;
				c->prev_ext_errors = c->ext_errors;
				c->prev_t_ns = c->t_ns;
				c->have_prev = true;
				c->prev_vl_ok = c->det[IBS_DET_VL_WAIT].state == IBS_DET_OK;
				memcpy(c->prev_vl, c->d.vl_xmit_wait, sizeof(c->prev_vl));
			} else if (c) {
				c->have_prev = false;
				c->prev_vl_ok = false;
			}
		}
}

/* With confirm, each PMA's node is asked who it is first (ibs_counters_confirm). */
static enum ibs_err read_counters(struct ibs_engine *e, struct ibs_fabric *f, struct ibs_run *run,
				  const struct ibs_counter_opts *o, bool confirm)
{
	struct cctx base;
	size_t i;
	unsigned with_lid = 0, wanted = 0;
	uint32_t *own;

	if (o->again) {
		keep_readings(f);
		confirm = true;
	}
	run->counters_read = true;
	run->local_state = 0;
	memset(&base, 0, sizeof(base));
	base.f = f;
	base.e = e;
	base.o = o;
	/* No GMP leaves a local port that is not Active (its state is 0 where the source does not say). */
	if (f->local.state != IBS_PORT_NOP && f->local.state != IBS_PORT_ACTIVE) {
		run->no_lids = true;
		run->local_state = f->local.state;
		return IBS_OK;
	}
	own = ibs_fabric_lid_owners(f);
	for (i = 0; i < f->n_nodes; i++) {
		bool any = false, lid = false;
		prepare_ports(f->nodes[i], own, &any, &lid);
		wanted += any;
		with_lid += lid;
	}
	free(own);
	run->no_lids = wanted && !with_lid;
	if (confirm && !run->no_lids) {
		enum ibs_err rc = ibs_counters_confirm(e, f);
		if (rc != IBS_OK)
			return rc;
	}
	for (i = 0; i < f->n_nodes; i++)
		start_node(&base, f->nodes[i]);
	return ibs_engine_run(e);
}

enum ibs_err ibs_read_counters(struct ibs_engine *e, struct ibs_fabric *f, struct ibs_run *run,
			       const struct ibs_counter_opts *o)
{
	return read_counters(e, f, run, o, false);
}

/* Sleep for s seconds, through signals that interrupt it. */
static void wait_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

enum ibs_err ibs_read_counters_interval(struct ibs_engine *e, struct ibs_fabric *f, struct ibs_run *run,
					const struct ibs_counter_opts *o, double interval_s)
{
	struct ibs_counter_opts first = *o, second;
	enum ibs_err rc;

	first.reset = false; /* a reset now would be the first delta's loss */
	first.first_of_two = true;
	first.vl_wait_all = true;
	rc = ibs_read_counters(e, f, run, &first);
	if (rc != IBS_OK || run->no_lids)
		return rc;
	/* Keep the first reading, wait, read again: deltas and rates. */
	keep_readings(f);
	if ((double)ibs_engine_remaining_ms(e) < interval_s * 1000.0) {
		log_error("no time left for a second reading %.3g s later (--deadline)", interval_s);
		return IBS_E_DEADLINE;
	}
	wait_s(interval_s);
	run->interval_s = interval_s;
	/* PMA answers carry no identity: the LIDs of the first reading may lead elsewhere now. */
	second = *o;
	second.vl_wait_all = true;
	return read_counters(e, f, run, &second, true);
}
