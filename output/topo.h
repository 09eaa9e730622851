/* The text and JSON views of the fabric (through emit): topology, nodes, links and SM. */
#ifndef IBSCAN_OUT_TOPO_H
#define IBSCAN_OUT_TOPO_H

#include "emit.h"
#include "../fabric/model/model.h"
#include "../fabric/walk/run.h"

#define IBS_TOPOLOGY_SCHEMA "ibscan.topology/1"
#define IBS_NODES_SCHEMA "ibscan.nodes/1"
#define IBS_LINKS_SCHEMA "ibscan.links/1"
#define IBS_SM_SCHEMA "ibscan.sm/1"

/* The fabric and the run that read it (why it stopped early, if it did). */
void render_topology(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);
void render_nodes(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);
void render_links(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);
void render_sm(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);

#endif
