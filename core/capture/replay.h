/*
 * The replay transport: a capture (docs/capture-format.md) played back as
 * the fabric, answering each request with what was recorded for the same
 * request (class, method, attribute, modifier, address and payload), never
 * matched by TID; the live request's TID is written into the answer.
 */
#ifndef IBSCAN_CAPTURE_REPLAY_H
#define IBSCAN_CAPTURE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* A transport that answers from the capture at path; *eng (if not NULL) gets the recorded settings. */
enum ibs_err ibs_replay_open(const char *path, bool strict, struct ibs_transport **out,
			     struct ibs_capture_engine *eng);
/*
 * Whether replay transport t holds any exchange about this attribute (of
 * this class; SMI: either routing) that came back with bytes: a response,
 * or a request given back. A request that went unanswered is not seen.
 * Any other transport holds everything.
 */
bool ibs_replay_holds(struct ibs_transport *t, uint8_t mgmt_class, uint16_t attr_id);
/* Requests replay transport t had no recorded answer (left) for, so far; 0 for any other transport. */
size_t ibs_replay_misses(struct ibs_transport *t);

#endif
