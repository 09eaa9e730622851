/* Slurm hostlist expressions read: "node[001-040,042],login1" into names. */
#ifndef IBSCAN_HOSTLIST_H
#define IBSCAN_HOSTLIST_H

#include <stddef.h>

#include "../../core/base/err.h"

/* At most this many names from one expression (untrusted input). */
#define IBS_HOSTLIST_MAX 1000000

/*
 * Every name of expr, in order (zero padding as written: node[08-10] is
 * node08 node09 node10; several bracket groups multiply). *out (n names,
 * the caller frees each and the array); *msg says why not.
 */
enum ibs_err ibs_hostlist_expand(const char *expr, char ***out, size_t *n, char **msg);

#endif
