/* Renderers for routes, forwarding tables and PathRecords. */
#ifndef IBSCAN_OUT_ROUTE_H
#define IBSCAN_OUT_ROUTE_H

#include "emit.h"
#include "../fabric/walk/route.h"

#define IBS_ROUTE_SCHEMA "ibscan.route/1"
#define IBS_ROUTES_SCHEMA "ibscan.routes/1"
#define IBS_PATH_SCHEMA "ibscan.path/1"

void render_route(struct emit *e, const struct ibs_route *r);
void render_lfts(struct emit *e, const struct ibs_lft *v, size_t n);
void render_path_record(struct emit *e, const struct ibs_path_record *p);

#endif
