/* The fabric as a Slurm topology.conf for the topology/tree plugin. */
#ifndef IBSCAN_OUT_SLURM_H
#define IBSCAN_OUT_SLURM_H

#include <stdbool.h>
#include <stdio.h>

#include "../fabric/model/model.h"

/* Slurm topology.conf for the topology/tree plugin; returns -1 on a write error. */
int render_slurm(FILE *out, const struct ibs_fabric *f);
/* For the topology/block plugin: topology.conf BlockName lines, or (yaml) topology.yaml; -1 on a write error. */
int render_slurm_block(FILE *out, const struct ibs_fabric *f, bool yaml);

#endif
