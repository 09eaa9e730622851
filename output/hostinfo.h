/* Renderers of the host view (`ibscan local`) and of a link probe's result (`ibscan ping`): text and JSON. */
#ifndef IBSCAN_OUTPUT_HOSTINFO_H
#define IBSCAN_OUTPUT_HOSTINFO_H

#include "emit.h"
#include "../core/probe/ping.h"
#include "../fabric/hostinfo.h"

#define IBS_LOCAL_SCHEMA "ibscan.local/1"
#define IBS_PING_SCHEMA "ibscan.ping/1"

void render_local(struct emit *e, const struct ibs_host *h);
void render_ping(struct emit *e, const struct ibs_ping_result *r);

#endif
