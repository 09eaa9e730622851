/* Transport helpers shared by every backend. */
#include "transport.h"

#include <string.h>

void ibs_transport_close(struct ibs_transport *t)
{
	if (t && t->ops->close)
		t->ops->close(t);
}

enum ibs_err ibs_transport_local_port(struct ibs_transport *t, struct ibs_local_port *out)
{
	memset(out, 0, sizeof(*out));
	if (!t->ops->local_port)
		return IBS_E_NOTFOUND;
	return t->ops->local_port(t, out);
}
