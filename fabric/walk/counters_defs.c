/*
 * What the PMA's counters are (IBA 16.1.3.5, 16.1.4): the PortCounters
 * table with each counter's default threshold and width, the details
 * (PortRcvErrorDetails, PortXmitDiscardDetails, PortVLXmitWaitCounters,
 * PortSamplesControl) with their names and decoders, and what one port's
 * reading of the details says. The bottom of the counter sweep's files:
 * it calls none of them.
 */
#include "counters_defs.h"
#include "counters_int.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <strings.h>

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

uint16_t ibs_det_attr_id(unsigned k)
{
	return dets[k].id;
}

enum ibs_err ibs_det_decode(unsigned k, const uint8_t *mad, size_t len, struct ibs_pma_details *out)
{
	return dets[k].decode(mad, len, out);
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
