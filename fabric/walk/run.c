/* The state of one run beside its fabric: why it stopped, and what its source lacks. */
#include "run.h"
#include "../../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

void ibs_run_abort(struct ibs_run *r, enum ibs_err rc)
{
	if (r->aborted)
		return;
	r->aborted = true;
	r->abort_reason = xstrdup(rc == IBS_E_DEADLINE ? "the global deadline (--deadline) expired" : "the transport failed");
}

void ibs_run_free(struct ibs_run *r)
{
	free(r->abort_reason);
	memset(r, 0, sizeof(*r));
}

const char *ibs_lack_str(unsigned bit)
{
	switch (bit) {
	case IBS_LACK_SMINFO:
		return "subnet manager state (SMInfo)";
	case IBS_LACK_PMA:
		return "port counters (PortCounters)";
	case IBS_LACK_LFT:
		return "forwarding tables (LinearForwardingTable)";
	case IBS_LACK_SA:
		return "path records (SA PathRecord)";
	case IBS_LACK_GUIDINFO:
		return "GID tables (GUIDInfo)";
	}
	return "unknown data";
}
