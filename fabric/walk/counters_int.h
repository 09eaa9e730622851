/*
 * What the counter sweep's files share: one request's context and how it
 * goes out (counters_pma.c), the details' attribute IDs and decoders
 * (counters_defs.c), why a port's PMA is not asked (counters_port.c), and
 * the details' requests (counters_details.c).
 */
#ifndef IBSCAN_COUNTERS_INT_H
#define IBSCAN_COUNTERS_INT_H

/* Not counters.h: counters.c, which includes this, is its unit (tests/cli/layers.py: no include cycles). */
#include "../model/model.h"
#include "../../core/mad/engine.h"

struct ibs_counter_opts;
struct ibs_pma_details;

struct cctx {
	struct ibs_fabric *f;
	struct ibs_engine *e;
	const struct ibs_counter_opts *o;
	struct ibs_node *node;
	struct ibs_port *port;
	bool ext;
	bool redirected; /* this request already followed a redirect */
	uint8_t det;     /* counters_details.c: IBS_DET_RCV or IBS_DET_XMIT */
};

/* counters_pma.c. A new request's context for port p of n, from base (free it in the callback). */
struct cctx *ibs_cctx(struct cctx *base, struct ibs_node *n, struct ibs_port *p, bool ext);
/*
 * A PMA that answers "redirect required": the request goes out again to
 * the address named, once per request. True when it did (c is then spent).
 */
bool ibs_follow_redirect(struct cctx *c, const struct ibs_mad_req *req, const struct ibs_mad_result *r,
			 ibs_mad_cb cb);
/* A Get (or, with reset, a Set clearing every counter) of attr for port at the PMA at lid. */
void ibs_pma_req(struct ibs_mad_req *req, uint16_t lid, uint16_t attr, uint8_t port, bool ext, bool reset,
		 uint8_t *data);
/*
 * counters_port.c: why no GMP can ask for p's counters (IBS_CTR_NO_LID...),
 * or IBS_CTR_ASKED; state is set to the state of the port in the way. own
 * is ibs_fabric_lid_owners'.
 */
uint8_t ibs_port_pma_skip(const struct ibs_node *n, const struct ibs_port *p, const uint32_t *own, uint8_t *state);
/* counters_defs.c: detail k's attribute ID (IBS_ATTR_PORT_...), and its decoder into out. */
uint16_t ibs_det_attr_id(unsigned k);
enum ibs_err ibs_det_decode(unsigned k, const uint8_t *mad, size_t len, struct ibs_pma_details *out);
/*
 * counters_details.c. Port c->port's summary reading is whole: ask for PortRcvErrorDetails and
 * PortXmitDiscardDetails where PortRcvErrors or PortXmitDiscards moved.
 */
void ibs_counters_details(struct cctx *c);

#endif
