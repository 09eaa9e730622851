/* A probe's out-of-band hello with every field set, for the codec and socket tests (test_oob, test_tcp). */
#ifndef IBSCAN_TEST_OOB_HELLO_H
#define IBSCAN_TEST_OOB_HELLO_H

#include <stddef.h>
#include <stdint.h>

#include "../../../core/probe/oob.h"

/* m cleared, then a hello (or hello reply: type) with every field of struct ibs_oob_hello set. */
void oob_hello(struct ibs_oob_msg *m, enum ibs_oob_type type);

/* That hello (IBS_OOB_HELLO) encoded into buf (IBS_OOB_MAX_MSG bytes); returns its length. */
size_t oob_encode_hello(uint8_t *buf);

#endif
