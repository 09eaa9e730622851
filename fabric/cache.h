/* Import of an `ibnetdiscover --cache` file (through libibnetdisc) into the model. */
#ifndef IBSCAN_CACHE_H
#define IBSCAN_CACHE_H

#include "model.h"

/* The first bytes of a cache file (libibnetdisc writes its magic 0x8FE7832B in host order). */
#define IBS_CACHE_MAGIC_LE "\x2b\x83\xe7\x8f"
#define IBS_CACHE_MAGIC_BE "\x8f\xe7\x83\x2b"

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
