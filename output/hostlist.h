/* Names as operators write them: Slurm hostlists, natural order, a switch's name inside its description. */
#ifndef IBSCAN_OUT_HOSTLIST_H
#define IBSCAN_OUT_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "../fabric/model.h"

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
