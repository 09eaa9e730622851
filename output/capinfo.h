/* `ibscan capture info`: what a capture holds, as text or JSON through the emitter. */
#ifndef IBSCAN_OUT_CAPINFO_H
#define IBSCAN_OUT_CAPINFO_H

#include "emit.h"
#include "../core/capture/format.h"

#define IBS_CAPINFO_SCHEMA "ibscan.capture-info/1"

void render_capture_info(struct emit *e, const char *path, const struct ibs_capture *c);

#endif
