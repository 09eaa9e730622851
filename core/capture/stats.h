/* Statistics of a capture, for `ibscan capture info`: what was asked, how it came back, which nodes answered. */
#ifndef IBSCAN_CAPTURE_STATS_H
#define IBSCAN_CAPTURE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

struct ibs_capture_kind {
	uint8_t mgmt_class;
	uint8_t method;
	uint16_t attr_id;
	size_t count, resp, bad_status, error, none;
};

struct ibs_capture_stats {
	size_t exchanges, resp, bad_status, error, none;
	struct ibs_capture_kind *kinds; /* sorted by class, attribute, method */
	size_t n_kinds;
	uint64_t *node_guids;           /* distinct NodeGUIDs in NodeInfo answers, sorted */
	size_t n_node_guids;
	size_t targets;                 /* distinct addresses queried */
};

void ibs_capture_stats(const struct ibs_capture *c, struct ibs_capture_stats *st);
void ibs_capture_stats_free(struct ibs_capture_stats *st);
/* The response status of exchange x (0 when none or not a response). */
uint16_t ibs_capture_resp_status(const struct ibs_cap_exchange *x);

#endif
