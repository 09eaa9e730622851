/* A capture exported as pcap, for Wireshark and tshark. */
#ifndef IBSCAN_OUT_PCAP_H
#define IBSCAN_OUT_PCAP_H

#include <stdio.h>

#include "../core/capture/format.h"

/* pcap (LINKTYPE_ERF, ERF type InfiniBand); -1 on a write error. */
int render_pcap(FILE *out, const struct ibs_capture *c);

#endif
