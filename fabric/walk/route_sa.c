/* Asking the subnet administrator for PathRecords (IBA 15.2.5.16). */
#include "route.h"
#include "route_int.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* A PathRecord Get from slid to dlid, to the SA at the local port's SM LID. */
static void pr_req(struct ibs_mad_req *req, const struct ibs_fabric *f, uint16_t slid, uint16_t dlid,
		   uint8_t data[IBS_SA_PR_SIZE])
{
	struct ibs_addr a;

	ibs_addr_lid(&a, f->local.sm_lid, 1);
	a.sl = f->local.sm_sl; /* the SL the SM set for reaching it, as libibmad's sa_call uses */
	ibs_req_get(req, &a, IBS_CLASS_SA, IBS_ATTR_SA_PATH_RECORD, 0);
	ibs_path_record_query(data, slid, dlid);
	req->data = data;
	req->data_len = IBS_SA_PR_SIZE;
	req->sa_mask = IBS_PR_COMPMASK_SLID | IBS_PR_COMPMASK_DLID | IBS_PR_COMPMASK_NUMBPATH;
}

struct slctx {
	struct ibs_path_sl *v;
	size_t *answered;
};

static void on_sl(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct slctx *c = ctx;
	struct ibs_path_record pr;

	(void)req;
	if (r->outcome == IBS_MAD_OK && ibs_decode_path_record(r->mad, r->len, &pr) == IBS_OK && pr.slid == c->v->slid &&
	    pr.dlid == c->v->dlid) {
		c->v->sl = pr.sl;
		c->v->answered = true;
		(*c->answered)++;
	}
	free(c);
}

enum ibs_err ibs_query_path_sls(struct ibs_engine *e, const struct ibs_fabric *f, struct ibs_path_sl *v, size_t n,
				size_t *answered)
{
	size_t i;

	*answered = 0;
	for (i = 0; i < n; i++) {
		struct ibs_mad_req req;
		uint8_t data[IBS_SA_PR_SIZE];
		struct slctx *c = xmalloc(sizeof(*c));
		c->v = &v[i];
		c->answered = answered;
		v[i].answered = false;
		v[i].sl = 0;
		pr_req(&req, f, v[i].slid, v[i].dlid, data); /* the engine keeps a copy of data */
		ibs_engine_submit(e, &req, on_sl, c);
	}
	return ibs_engine_run(e);
}

enum ibs_err ibs_query_path(struct ibs_engine *e, const struct ibs_fabric *f, uint16_t slid, uint16_t dlid,
			    struct ibs_path_record *out, enum ibs_outcome *outcome, uint16_t *status)
{
	struct ibs_mad_req req;
	uint8_t data[IBS_SA_PR_SIZE];
	struct ibs_route_one o;
	enum ibs_err rc;

	memset(&o, 0, sizeof(o));
	pr_req(&req, f, slid, dlid, data);
	ibs_engine_submit(e, &req, ibs_route_on_one, &o);
	rc = ibs_engine_run(e);
	*outcome = o.outcome;
	*status = o.status;
	if (rc)
		return rc;
	if (o.outcome != IBS_MAD_OK)
		return o.outcome == IBS_MAD_STATUS ? IBS_E_STATUS : IBS_E_TIMEOUT;
	return ibs_decode_path_record(o.mad, o.len, out) == IBS_OK ? IBS_OK : IBS_E_MALFORMED;
}
