/* Import of an `ibnetdiscover --cache` file (through libibnetdisc) into the model. */
#ifndef IBSCAN_CACHE_H
#define IBSCAN_CACHE_H

#include "model.h"

/* Load path into a new fabric; on error *msg says why (caller frees). */
enum ibs_err ibs_fabric_load_cache(const char *path, struct ibs_fabric **out, char **msg);

#endif
