/* The renderer of `ibscan fleet`: text and JSON through the emitter. */
#ifndef IBSCAN_OUTPUT_FLEET_H
#define IBSCAN_OUTPUT_FLEET_H

#include "emit.h"
#include "../host/fleet.h"

#define IBS_FLEET_SCHEMA "ibscan.fleet/1"

/* "IBSCAN FLEET WARNING - ... | hosts=N ..." (the caller frees). */
char *render_fleet_status_line(const struct ibs_fleet *f);
void render_fleet(struct emit *e, const struct ibs_fleet *f);

#endif
