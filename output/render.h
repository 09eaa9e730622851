/* Renderers of the fabric model: text and JSON (through emit), DOT, netfile and Slurm. */
#ifndef IBSCAN_RENDER_H
#define IBSCAN_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "emit.h"
#include "../fabric/model.h"
#include "../fabric/run.h"

#define IBS_TOPOLOGY_SCHEMA "ibscan.topology/1"
#define IBS_NODES_SCHEMA "ibscan.nodes/1"
#define IBS_LINKS_SCHEMA "ibscan.links/1"
#define IBS_SM_SCHEMA "ibscan.sm/1"

/* The fabric and the run that read it (why it stopped early, if it did). */
void render_topology(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);
void render_nodes(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);
void render_links(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);
void render_sm(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run);
struct render_draw_opts;
/* Graphviz DOT of the drawing (output/draw.h; o may be NULL); returns -1 on a write error. */
int render_dot(FILE *out, const struct ibs_fabric *f, const struct render_draw_opts *o);
/* ibnetdiscover topology format (loadable by ibsim); returns -1 on a write error. */
int render_netfile(FILE *out, const struct ibs_fabric *f);
/* Slurm topology.conf for the topology/tree plugin; returns -1 on a write error. */
int render_slurm(FILE *out, const struct ibs_fabric *f);
/*
 * Names as one Slurm hostlist expression: "node[001-040,042],login1".
 * Duplicates collapse; zero padding is kept. Caller frees the result.
 */
char *render_hostlist(const char *const *names, size_t n);
/* Strings with numbers compared as numbers ("leaf9" < "leaf10"), then bytewise. */
int render_natcmp(const char *a, const char *b);
/*
 * The name an operator gave a switch inside a Mellanox description
 * ("MF0;leaf01:MSB7800/U1" gives leaf01): *part, *len into n->desc. False
 * when n has a node-name-map entry or no such description.
 */
bool render_switch_part(const struct ibs_node *n, const char **part, size_t *len);

#endif
