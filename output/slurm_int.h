/* Shared by the Slurm renderers (slurm.c: topology/tree, slurm_block.c: topology/block). */
#ifndef IBSCAN_OUT_SLURM_INT_H
#define IBSCAN_OUT_SLURM_INT_H

#include <stddef.h>

/* s[0..len) made fit for a Slurm hostlist (see slurm.c); NULL when nothing is left. Caller frees. */
char *slurm_sanitize(const char *s, size_t len);

#endif
