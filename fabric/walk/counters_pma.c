/*
 * How one request of the counter sweep goes to a PMA (IBA 16.1.2): its
 * context, the Get or Set of a counters attribute for one port, and a
 * redirect followed once. Every file of the sweep that asks a PMA calls
 * these; they call none of them.
 */
#include "counters_int.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>

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
