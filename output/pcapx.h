/* Capture renderers: `capture info` (text/JSON) and the pcap export. */
#ifndef IBSCAN_PCAPX_H
#define IBSCAN_PCAPX_H

#include <stdio.h>

#include "emit.h"
#include "../core/capture/format.h"

#define IBS_CAPINFO_SCHEMA "ibscan.capture-info/1"

void render_capture_info(struct emit *e, const char *path, const struct ibs_capture *c);
/* pcap (LINKTYPE_ERF, ERF type InfiniBand); -1 on a write error. */
int render_pcap(FILE *out, const struct ibs_capture *c);

#endif
