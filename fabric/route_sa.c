/* Asking the subnet administrator for PathRecords (IBA 15.2.5.16). */
#include "route.h"
#include "route_int.h"

#include <string.h>

enum ibs_err ibs_query_path(struct ibs_engine *e, const struct ibs_fabric *f, uint16_t slid, uint16_t dlid,
			    struct ibs_path_record *out, enum ibs_outcome *outcome, uint16_t *status)
{
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint8_t data[IBS_SA_PR_SIZE];
	struct ibs_route_one o;
	enum ibs_err rc;

	memset(&o, 0, sizeof(o));
	ibs_addr_lid(&a, f->local.sm_lid, 1);
	a.sl = f->local.sm_sl; /* the SL the SM set for reaching it, as libibmad's sa_call uses */
	ibs_req_get(&req, &a, IBS_CLASS_SA, IBS_ATTR_SA_PATH_RECORD, 0);
	ibs_path_record_query(data, slid, dlid);
	req.data = data;
	req.data_len = sizeof(data);
	req.sa_mask = IBS_PR_COMPMASK_SLID | IBS_PR_COMPMASK_DLID | IBS_PR_COMPMASK_NUMBPATH;
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
