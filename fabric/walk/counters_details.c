/*
 * Why PortRcvErrors and PortXmitDiscards counted, and on which VLs
 * PortXmitWait did: PortRcvErrorDetails, PortXmitDiscardDetails (IBA
 * 16.1.4.1-2) and PortVLXmitWaitCounters (16.1.4.8), asked only for a port
 * whose summary counter moved, so that a clean fabric costs no MAD more
 * (except the VLs' in both readings of --interval: vl_wait_all);
 * PortSamplesControl (16.1.3.2) too, for PortXmitWait's tick, where
 * PortXmitWait rose between the two readings of --interval.
 * All three are optional and no ClassPortInfo bit says whether a PMA has
 * them; the first port of a PMA to need one asks, the PMA's other ports
 * wait for that answer, and a PMA that fails it (a bad status, no answer)
 * is not asked again for it in this reading.
 */
#include "counters.h"
#include "counters_int.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define DD(n, r, k, m, det) { n, r, #k, offsetof(struct ibs_pma_details, m), det }
const struct ibs_detail_def ibs_detail_defs[] = {
	DD("PortLocalPhysicalErrors", "LocalPhysical", local_physical, local_physical, IBS_DET_RCV),
	DD("PortMalformedPacketErrors", "MalformedPacket", malformed_packet, malformed, IBS_DET_RCV),
	DD("PortBufferOverrunErrors", "BufferOverrun", buffer_overrun, buffer_overrun, IBS_DET_RCV),
	DD("PortDLIDMappingErrors", "DLIDMapping", dlid_mapping, dlid_mapping, IBS_DET_RCV),
	DD("PortVLMappingErrors", "VLMapping", vl_mapping, vl_mapping, IBS_DET_RCV),
	DD("PortLoopingErrors", "Looping", looping, looping, IBS_DET_RCV),
	DD("PortInactiveDiscards", "Inactive", inactive, inactive, IBS_DET_XMIT),
	DD("PortNeighborMTUDiscards", "NeighborMTU", neighbor_mtu, neighbor_mtu, IBS_DET_XMIT),
	DD("PortSwLifetimeLimitDiscards", "SwLifetimeLimit", sw_lifetime_limit, sw_lifetime_limit, IBS_DET_XMIT),
	DD("PortSwHOQLifetimeLimitDiscards", "SwHOQLifetimeLimit", sw_hoq_lifetime_limit, sw_hoq_lifetime_limit,
	   IBS_DET_XMIT),
/* libibmad's (and perfquery's) names for the members; the text says "VL3", Prometheus vl="3". */
#define VL(v) { "PortVLXmitWait" #v, "VL" #v, #v, offsetof(struct ibs_pma_details, vl_xmit_wait[v]), IBS_DET_VL_WAIT }
	VL(0), VL(1), VL(2), VL(3), VL(4), VL(5), VL(6), VL(7),
	VL(8), VL(9), VL(10), VL(11), VL(12), VL(13), VL(14), VL(15),
#undef VL
};
#undef DD
const size_t ibs_n_detail_defs = sizeof(ibs_detail_defs) / sizeof(ibs_detail_defs[0]);

static const struct {
	const char *attr, *summary, *key, *label;
	uint16_t id;
	enum ibs_err (*decode)(const uint8_t *mad, size_t len, struct ibs_pma_details *out);
} dets[IBS_N_DET_ALL] = {
	[IBS_DET_RCV] = { "PortRcvErrorDetails", "PortRcvErrors", "rcv_error_details", "reason",
			  IBS_ATTR_PORT_RCV_ERROR_DETAILS, ibs_decode_rcv_error_details },
	[IBS_DET_XMIT] = { "PortXmitDiscardDetails", "PortXmitDiscards", "xmit_discard_details", "reason",
			   IBS_ATTR_PORT_XMIT_DISCARD_DETAILS, ibs_decode_xmit_discard_details },
	[IBS_DET_VL_WAIT] = { "PortVLXmitWaitCounters", "PortXmitWait", "vl_xmit_wait", "vl", IBS_ATTR_PORT_VL_XMIT_WAIT,
			      ibs_decode_vl_xmit_wait },
	/* Mandatory (IBA 16.1.3.2), but ibsim drops it; its Tick makes PortXmitWait's rise a share of the time. */
	[IBS_DET_PSC] = { "PortSamplesControl", "PortXmitWait", "xmit_wait_tick", NULL, IBS_ATTR_PORT_SAMPLES_CONTROL,
			  ibs_decode_port_samples_control },
};

const char *ibs_det_attr_name(unsigned k)
{
	return dets[k].attr;
}

const char *ibs_det_key(unsigned k)
{
	return dets[k].key;
}

const char *ibs_det_label(unsigned k)
{
	return dets[k].label;
}

const struct ibs_counter_def *ibs_det_summary(unsigned k)
{
	return ibs_counter_find(dets[k].summary);
}

int ibs_counter_det(const struct ibs_counter_def *d)
{
	unsigned k;

	for (k = 0; k < IBS_N_DET; k++)
		if (d == ibs_det_summary(k))
			return (int)k;
	return -1;
}

/* Did the summary counter of attribute k move: above 0, and risen since the reading before where there is one? */
static bool moved(const struct ibs_port_counters *pc, unsigned k, const struct ibs_counter_opts *o)
{
	const struct ibs_counter_def *d = ibs_det_summary(k);
	uint64_t delta;

	if (!d || !ibs_counter_get(&pc->c, d))
		return false;
	/* The tick is needed only for a rise over an interval: no share of a lifetime total. */
	if (k == IBS_DET_PSC)
		return pc->have_prev ? ibs_port_counter_delta(pc, d, &delta) && delta > 0 : o->tick;
	if (pc->have_prev && ibs_port_counter_delta(pc, d, &delta))
		return delta > 0;
	return true; /* no earlier reading, or it cannot be compared (cleared, saturated, width) */
}

static void on_details(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);

static void on_vl_clear(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct cctx *c = ctx;

	if (ibs_follow_redirect(c, req, r, on_vl_clear))
		return;
	if (r->outcome != IBS_MAD_OK)
		log_warn("could not clear the PortVLXmitWaitCounters of 0x%016llx port %u: %s",
			 (unsigned long long)c->node->ni.node_guid, c->port->num, ibs_outcome_str(r->outcome));
	free(c);
}

/*
 * --reset-counters: clear the VL counters just read, as PortCounters are,
 * once this reading of them is back (16 bits that stay at 65535 once
 * there: only a clear makes a share of them possible again).
 */
static void submit_vl_clear(struct cctx *base, struct ibs_port *pt)
{
	struct ibs_mad_req req;
	uint8_t data[64];

	ibs_pma_req(&req, ibs_port_pma_lid(base->node, pt), IBS_ATTR_PORT_VL_XMIT_WAIT, pt->num, false, false, data);
	ibs_pma_vl_xmit_wait_clear(data, sizeof(data), pt->num);
	req.method = IBS_METHOD_SET;
	ibs_engine_submit(base->e, &req, on_vl_clear, ibs_cctx(base, base->node, pt, false));
}

static void submit(struct cctx *base, struct ibs_port *pt, unsigned k)
{
	struct ibs_mad_req req;
	uint8_t data[64];
	struct cctx *c;

	ibs_pma_req(&req, ibs_port_pma_lid(base->node, pt), dets[k].id, pt->num, false, false, data);
	pt->ctr->det[k].state = IBS_DET_ASKED;
	c = ibs_cctx(base, base->node, pt, false);
	c->det = (uint8_t)k;
	ibs_engine_submit(base->e, &req, on_details, c);
}

static void on_details(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct cctx *c = ctx;
	struct ibs_node *n = c->node;
	unsigned k = c->det;
	struct ibs_port_det *pd = &c->port->ctr->det[k];
	enum ibs_outcome out = r->outcome;
	struct ibs_port *pt;

	if (ibs_follow_redirect(c, req, r, on_details))
		return;
	if (out == IBS_MAD_OK && dets[k].decode(r->mad, r->len, &c->port->ctr->d) != IBS_OK)
		out = IBS_MAD_MALFORMED;
	/* Not the fabric's partial: the summary reading stands whole, the reason is unknown. */
	if (out == IBS_MAD_OK) {
		pd->state = IBS_DET_OK;
		if (k == IBS_DET_VL_WAIT && c->o->reset)
			submit_vl_clear(c, c->port);
		if (n->pma_det[k] == IBS_NODE_DET_PROBING)
			n->pma_det[k] = IBS_NODE_DET_HAS;
	} else {
		pd->state = IBS_DET_FAILED;
		pd->outcome = out;
		pd->status = out == IBS_MAD_STATUS ? r->status : 0;
		if (n->pma_det[k] == IBS_NODE_DET_PROBING) {
			n->pma_det[k] = IBS_NODE_DET_LACKS;
			n->pma_det_outcome[k] = pd->outcome;
			n->pma_det_status[k] = pd->status;
		}
	}
	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
		struct ibs_port_det *w = pt->ctr ? &pt->ctr->det[k] : NULL;
		if (!w || w->state != IBS_DET_WAITING)
			continue;
		if (n->pma_det[k] == IBS_NODE_DET_HAS) {
			submit(c, pt, k);
		} else {
			w->state = IBS_DET_SKIPPED;
			w->outcome = n->pma_det_outcome[k];
			w->status = n->pma_det_status[k];
		}
	}
	free(c);
}

void ibs_counters_details(struct cctx *c)
{
	unsigned k;

	/* PortXmitWait counted, as ClassPortInfo says (its CapabilityMask bit 12): so the VLs' may be. */
	bool vl_all = c->o->vl_wait_all && c->node->pma_cpi_ok && (c->node->pma_capmask & IBS_PM_XMIT_WAIT_SUP);

	if (c->o->first_of_two && !vl_all)
		return;
	for (k = 0; k < IBS_N_DET_ALL; k++) {
		struct ibs_port_det *pd = &c->port->ctr->det[k];
		if (k == IBS_DET_VL_WAIT && vl_all)
			; /* whatever moved */
		else if (c->o->first_of_two || !moved(c->port->ctr, k, c->o))
			continue;
		switch (c->node->pma_det[k]) {
		case IBS_NODE_DET_UNKNOWN:
			/* The first port of this PMA to need it: the others wait for its answer. */
			c->node->pma_det[k] = IBS_NODE_DET_PROBING;
			submit(c, c->port, k);
			break;
		case IBS_NODE_DET_PROBING:
			pd->state = IBS_DET_WAITING;
			break;
		case IBS_NODE_DET_HAS:
			submit(c, c->port, k);
			break;
		default:
			pd->state = IBS_DET_SKIPPED;
			pd->outcome = c->node->pma_det_outcome[k];
			pd->status = c->node->pma_det_status[k];
			break;
		}
	}
}

bool ibs_port_details_str(const struct ibs_port_counters *c, unsigned k, char *buf, size_t len)
{
	size_t i, at = 0;
	bool any = false;

	if (!c || c->det[k].state != IBS_DET_OK)
		return false;
	buf[0] = 0;
	for (i = 0; i < ibs_n_detail_defs; i++) {
		uint64_t v = ibs_detail_get(&c->d, &ibs_detail_defs[i]);
		if (ibs_detail_defs[i].det != k || !v)
			continue;
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s %" PRIu64, any ? ", " : "",
					       ibs_detail_defs[i].reason, v);
		any = true;
	}
	if (!any)
		snprintf(buf, len, k == IBS_DET_VL_WAIT ? "every VL 0" : "every detail 0");
	return true;
}

const char *ibs_port_details_why(const struct ibs_port_counters *c, unsigned k, char *buf, size_t len)
{
	const struct ibs_port_det *pd = &c->det[k];
	char how[96];

	if (pd->state != IBS_DET_FAILED && pd->state != IBS_DET_SKIPPED)
		return NULL;
	if (pd->outcome == IBS_MAD_STATUS)
		snprintf(how, sizeof(how), "status 0x%04x (%s)", pd->status, ibs_mad_status_str(pd->status));
	else
		snprintf(how, sizeof(how), "%s", ibs_outcome_str(pd->outcome));
	if (pd->state == IBS_DET_FAILED)
		snprintf(buf, len, "%s not answered: %s", dets[k].attr, how);
	else
		snprintf(buf, len, "%s not asked: the PMA failed it for another port (%s)", dets[k].attr, how);
	return buf;
}
