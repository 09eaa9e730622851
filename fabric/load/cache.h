/* Import of an `ibnetdiscover --cache` file (through libibnetdisc) into the model. */
#ifndef IBSCAN_CACHE_H
#define IBSCAN_CACHE_H

#include "filekind.h" /* IBS_CACHE_MAGIC_LE, IBS_CACHE_MAGIC_BE */
#include "../model/model.h"

/*
 * A cache is read by libibnetdisc, which holds it whole (about 12 bytes of
 * memory per byte of file) and groups its nodes into chassis with a search
 * per node: its time grows with the square of the number of distinct system
 * image GUIDs (docs/reliability.md). The file's size is what ibscan bounds.
 */
#define IBS_CACHE_MAX_BYTES ((size_t)512 << 20)

/* Load path into a new fabric; on error *msg says why (caller frees). */
enum ibs_err ibs_fabric_load_cache(const char *path, struct ibs_fabric **out, char **msg);

#endif
