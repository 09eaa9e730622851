/* The renderer of the host view (`ibscan local`): text and JSON through the emitter. */
#ifndef IBSCAN_OUTPUT_HOSTINFO_H
#define IBSCAN_OUTPUT_HOSTINFO_H

#include "emit.h"
#include "../host/hostinfo.h"

#define IBS_LOCAL_SCHEMA "ibscan.local/1"

void render_local(struct emit *e, const struct ibs_host *h);

#endif
