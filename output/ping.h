/* The renderer of a link probe's result (`ibscan ping`, either side): text and JSON through the emitter. */
#ifndef IBSCAN_OUT_PING_H
#define IBSCAN_OUT_PING_H

#include "emit.h"
#include "../core/probe/ping.h"

#define IBS_PING_SCHEMA "ibscan.ping/1"

void render_ping(struct emit *e, const struct ibs_ping_result *r);

#endif
