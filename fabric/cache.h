/* Import of an `ibnetdiscover --cache` file (through libibnetdisc) into the model. */
#ifndef IBSCAN_CACHE_H
#define IBSCAN_CACHE_H

#include "model.h"

/* The first bytes of a cache file (libibnetdisc writes its magic 0x8FE7832B in host order). */
#define IBS_CACHE_MAGIC_LE "\x2b\x83\xe7\x8f"
#define IBS_CACHE_MAGIC_BE "\x8f\xe7\x83\x2b"

/* Load path into a new fabric; on error *msg says why (caller frees). */
enum ibs_err ibs_fabric_load_cache(const char *path, struct ibs_fabric **out, char **msg);

#endif
