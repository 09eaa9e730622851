/*
 * The recorder: wraps any transport and writes every exchange through it to
 * a capture file (docs/capture-format.md) as it goes, flushed after each,
 * into a new file that replaces the capture's path when the recording ends
 * (struct ibs_out, as -o does), with its end record. A run cut short (a
 * signal, the watchdog, out of memory) puts the capture in place as far as
 * it got, in whole records and without the end record: cut short, and
 * saying so.
 */
#ifndef IBSCAN_CAPTURE_RECORDER_H
#define IBSCAN_CAPTURE_RECORDER_H

#include <stdbool.h>

#include "format.h"

/* Wrap inner: every exchange through it is written to path. Closing closes inner too. */
enum ibs_err ibs_recorder_wrap(struct ibs_transport *inner, const char *path, bool times,
			       const struct ibs_local_port *lp, const struct ibs_capture_engine *eng,
			       struct ibs_transport **out);

/*
 * Write what is still in flight (as unanswered) and the end record, and put
 * the capture in place:
 * IBS_E_IO when any write failed (said when it did), else IBS_OK; IBS_OK
 * for a transport that is not a recorder. Closing the transport ends it too.
 */
enum ibs_err ibs_recorder_end(struct ibs_transport *t);

#endif
