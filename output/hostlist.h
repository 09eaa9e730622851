/* Names as operators write them: Slurm hostlists, natural order, a switch's name inside its description. */
#ifndef IBSCAN_OUT_HOSTLIST_H
#define IBSCAN_OUT_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "../fabric/model/model.h"

/*
 * Names as one Slurm hostlist expression: "node[001-040,042],login1".
 * Duplicates collapse; zero padding is kept. Caller frees the result.
 */
char *render_hostlist(const char *const *names, size_t n);
/* Strings with numbers compared as numbers ("leaf9" < "leaf10"), then bytewise. */
int render_natcmp(const char *a, const char *b);
/*
 * The name an operator gave a switch inside a Mellanox/NVIDIA description:
 * "MF0;leaf01:MSB7800/U1" gives "leaf01"; a director's ASIC keeps its slot,
 * "MF0;ibcore1:SX6536/L33/U1" gives "ibcore1/L33" and ".../S01/U1"
 * "ibcore1/S01" (a blade's second ASIC ".../L05/U2" "ibcore1/L05/U2").
 * NULL when n has a node-name-map entry or no such description. Caller frees.
 */
char *render_switch_name(const struct ibs_node *n);

#endif
