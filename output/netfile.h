/* The fabric in ibnetdiscover's topology format (netfile), which ibsim loads. */
#ifndef IBSCAN_OUT_NETFILE_H
#define IBSCAN_OUT_NETFILE_H

#include <stdio.h>

#include "../fabric/model/model.h"

/* ibnetdiscover topology format (loadable by ibsim); returns -1 on a write error. */
int render_netfile(FILE *out, const struct ibs_fabric *f);

#endif
