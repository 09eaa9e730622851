/*
 * The adaptive per-MAD timeout: IBS_ENGINE_RTT_MULT times the 99th
 * percentile of the round-trip times seen (once IBS_ENGINE_RTT_MIN_SAMPLES
 * have come), at least IBS_ENGINE_TIMEOUT_FLOOR_MS, at most the cap.
 */
#ifndef IBSCAN_RTT_H
#define IBSCAN_RTT_H

#include <stdint.h>

/*
 * Adaptive timeouts: once IBS_ENGINE_RTT_MIN_SAMPLES answers have come, an
 * attempt waits IBS_ENGINE_RTT_MULT times the 99th percentile of this run's
 * round-trip times, at least IBS_ENGINE_TIMEOUT_FLOOR_MS, doubled per round
 * of retries, and never more than timeout_ms (the cap).
 */
#define IBS_ENGINE_RTT_MIN_SAMPLES 32
#define IBS_ENGINE_RTT_MULT 4
#define IBS_ENGINE_TIMEOUT_FLOOR_MS 50

#define IBS_RTT_BUCKETS 128 /* four per octave from 1 us: up to 2^32 us */

struct ibs_rtt {
	uint64_t hist[IBS_RTT_BUCKETS];
	uint64_t n;
	unsigned cap_ms;     /* --timeout */
	unsigned timeout_ms; /* what an attempt waits now: the cap until enough samples */
};

void ibs_rtt_init(struct ibs_rtt *r, unsigned cap_ms);
/* Add one round-trip time (ns); returns the timeout now, in ms. */
unsigned ibs_rtt_add(struct ibs_rtt *r, uint64_t ns);

#endif
