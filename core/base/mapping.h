/*
 * The file being read through a mapping now, so that a SIGBUS (the file cut
 * short under the mapping by another program) can be said in one line
 * naming it: cmd/'s handler writes ibs_mapping_said().
 */
#ifndef IBSCAN_MAPPING_H
#define IBSCAN_MAPPING_H

#include <stddef.h>

/* path is read through a mapping from now on; why: what a SIGBUS then means ("the capture was cut short ..."). */
void ibs_mapping_begin(const char *path, const char *why);
/* The last file begun is no longer read through its mapping. */
void ibs_mapping_end(void);
/*
 * The line for a SIGBUS now ("ibscan: error: PATH: WHY\n", *len bytes), or
 * NULL when no file is read through a mapping. Async-signal-safe.
 */
const char *ibs_mapping_said(size_t *len);

#endif
