/* PMA counter sweep over the whole fabric (IBA 16.1: PortCounters, PortCountersExtended). */
#include "counters.h"
#include "../core/base/clock.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"

#include <errno.h>
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
	DEF("PortRcvSwitchRelayErrors", rcv_switch_relay_errors, true, 100, 16),
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
	return p->peer || p->pi.phys_state == 5;
}

uint16_t ibs_port_pma_lid(const struct ibs_node *n, const struct ibs_port *p)
{
	if (n->ni.node_type == IBS_NODE_SWITCH) {
		const struct ibs_port *p0 = ibs_node_port(n, 0);
		return p0 && p0->valid ? p0->pi.lid : 0;
	}
	return p->valid ? p->pi.lid : 0;
}

struct cctx {
	struct ibs_fabric *f;
	struct ibs_engine *e;
	const struct ibs_counter_opts *o;
	struct ibs_node *node;
	struct ibs_port *port;
	bool ext;
	bool redirected; /* this request already followed a redirect */
};

static struct cctx *cctx(struct cctx *base, struct ibs_node *n, struct ibs_port *p, bool ext)
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
static bool follow_redirect(struct cctx *c, const struct ibs_mad_req *req, const struct ibs_mad_result *r,
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
	n = cctx(c, c->node, c->port, c->ext);
	n->redirected = true;
	ibs_engine_submit(c->e, &again, cb, n);
	free(c);
	return true;
}

static void pma_req(struct ibs_mad_req *req, uint16_t lid, uint16_t attr, uint8_t port, bool ext, bool reset,
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

	if (follow_redirect(c, req, r, on_reset))
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

	pma_req(&req, ibs_port_pma_lid(c->node, c->port), ext ? IBS_ATTR_PORT_COUNTERS_EXT : IBS_ATTR_PORT_COUNTERS,
		c->port->num, ext, true, data);
	ibs_engine_submit(c->e, &req, on_reset, cctx(c, c->node, c->port, ext));
}

static void on_ext(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct cctx *c = ctx;
	struct ibs_port_counters *pc = c->port->ctr;

	if (follow_redirect(c, req, r, on_ext))
		return;
	/* Without the extended counters the 32-bit ones still stand. */
	if (r->outcome == IBS_MAD_OK && ibs_decode_port_counters_ext(r->mad, r->len, &pc->c) == IBS_OK) {
		pc->extended = true;
		pc->t_ns = ibs_mono_ns(); /* the data counters are these */
	}
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

	if (follow_redirect(c, req, r, on_counters))
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
			pma_req(&ext, ibs_port_pma_lid(c->node, c->port), IBS_ATTR_PORT_COUNTERS_EXT, c->port->num, true, false, data);
			ibs_engine_submit(c->e, &ext, on_ext, cctx(c, c->node, c->port, true));
		} else if (c->o->reset) {
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
		pt->ctr->ok = pt->ctr->extended = false;
		pt->ctr->outcome = IBS_MAD_OK;
		pt->ctr->status = 0;
		pt->ctr->t_ns = 0;
		memset(&pt->ctr->c, 0, sizeof(pt->ctr->c));
	}
	return pt->ctr;
}

static void read_ports(struct cctx *base, struct ibs_node *n)
{
	struct ibs_port *pt;
	uint8_t data[64];
	struct ibs_mad_req req;

	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
		uint16_t lid;
		if (!ibs_port_wants_counters(n, pt))
			continue;
		fresh(pt);
		lid = ibs_port_pma_lid(n, pt);
		if (!lid) {
			pt->ctr->outcome = IBS_MAD_ABORTED;
			continue;
		}
		pma_req(&req, lid, IBS_ATTR_PORT_COUNTERS, pt->num, false, false, data);
		ibs_engine_submit(base->e, &req, on_counters, cctx(base, n, pt, false));
	}
}

static void on_cpi(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct cctx *c = ctx;

	if (follow_redirect(c, req, r, on_cpi))
		return;
	if (r->outcome == IBS_MAD_OK && ibs_decode_pma_capmask(r->mad, r->len, &c->node->pma_capmask) == IBS_OK)
		c->node->pma_cpi_ok = true;
	if (r->outcome == IBS_MAD_TIMEOUT || r->outcome == IBS_MAD_ABORTED) {
		/* A PMA that does not answer at all would only time out once per port more. */
		struct ibs_port *pt;
		for (pt = ibs_node_ports_from(c->node, 1); pt < ibs_node_ports_end(c->node); pt++) {
			if (!ibs_port_wants_counters(c->node, pt))
				continue;
			fresh(pt)->outcome = r->outcome;
		}
		c->f->partial = true;
	} else {
		/* Whatever else ClassPortInfo said, PortCounters is mandatory: read it. */
		read_ports(c, c->node);
	}
	free(c);
}

enum ibs_err ibs_read_counters(struct ibs_engine *e, struct ibs_fabric *f, struct ibs_run *run,
			       const struct ibs_counter_opts *o)
{
	struct cctx base;
	size_t i;
	unsigned with_lid = 0, wanted = 0;

	run->counters_read = true;
	memset(&base, 0, sizeof(base));
	base.f = f;
	base.e = e;
	base.o = o;
	for (i = 0; i < f->n_nodes; i++) {
		struct ibs_node *n = f->nodes[i];
		struct ibs_mad_req req;
		uint16_t lid = 0;
		const struct ibs_port *pt;
		bool any = false;

		/* ClassPortInfo goes to the node's PMA through any port with a LID. */
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			if (ibs_port_wants_counters(n, pt)) {
				any = true;
				if (!lid)
					lid = ibs_port_pma_lid(n, pt);
			}
		}
		if (!any)
			continue;
		wanted++;
		if (!lid) {
			read_ports(&base, n); /* records every port as unreadable */
			continue;
		}
		with_lid++;
		if (!o->extended) {
			/* Error counters are all in PortCounters: no need to ask what else the PMA has. */
			read_ports(&base, n);
			continue;
		}
		pma_req(&req, lid, IBS_ATTR_CLASS_PORT_INFO, 0, false, false, NULL);
		ibs_engine_submit(e, &req, on_cpi, cctx(&base, n, NULL, false));
	}
	run->no_lids = wanted && !with_lid;
	return ibs_engine_run(e);
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
	struct ibs_counter_opts first = *o;
	enum ibs_err rc;
	size_t i;
	struct ibs_port *pt;

	first.reset = false; /* a reset now would be the first delta's loss */
	rc = ibs_read_counters(e, f, run, &first);
	if (rc != IBS_OK || run->no_lids)
		return rc;
	/* Keep the first reading, wait, read again: deltas and rates. */
	for (i = 0; i < f->n_nodes; i++)
		for (pt = f->nodes[i]->ports; pt < ibs_node_ports_end(f->nodes[i]); pt++) {
			struct ibs_port_counters *c = pt->ctr;
			if (c && c->ok) {
				c->prev = c->c;
				c->prev_extended = c->extended;
				c->prev_t_ns = c->t_ns;
				c->have_prev = true;
			}
		}
	if ((double)ibs_engine_remaining_ms(e) < interval_s * 1000.0) {
		log_error("no time left for a second reading %.3g s later (--deadline)", interval_s);
		return IBS_E_DEADLINE;
	}
	wait_s(interval_s);
	run->interval_s = interval_s;
	return ibs_read_counters(e, f, run, o);
}

/* now - before of a counter of `bits` bits that saturates: false when at the maximum or gone down. */
static bool saturating_delta(uint64_t before, uint64_t now, unsigned bits, uint64_t *delta)
{
	uint64_t max = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;

	if (before >= max || now >= max || now < before)
		return false;
	*delta = now - before;
	return true;
}

bool ibs_port_counter_delta(const struct ibs_port_counters *c, const struct ibs_counter_def *d, uint64_t *delta)
{
	if (!c->have_prev || !c->ok || !ibs_counter_known(c, d))
		return false;
	return saturating_delta(ibs_counter_get(&c->prev, d), ibs_counter_get(&c->c, d), d->bits, delta);
}

bool ibs_port_data_delta(const struct ibs_port_counters *c, bool xmit, uint64_t *words)
{
	if (!c->have_prev || !c->ok || c->extended != c->prev_extended)
		return false;
	return saturating_delta(xmit ? c->prev.xmit_data : c->prev.rcv_data, xmit ? c->c.xmit_data : c->c.rcv_data,
				c->extended ? 64 : 32, words);
}

double ibs_port_counters_elapsed(const struct ibs_port_counters *c)
{
	if (!c->have_prev || !c->ok || c->t_ns <= c->prev_t_ns)
		return 0;
	return (double)(c->t_ns - c->prev_t_ns) / 1e9;
}
