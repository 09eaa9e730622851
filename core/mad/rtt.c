/*
 * Round-trip times of one run in a histogram with four buckets per octave of
 * microseconds (about 19% wide), and the adaptive timeout they give.
 */
#include "rtt.h"

#include <string.h>

void ibs_rtt_init(struct ibs_rtt *r, unsigned cap_ms)
{
	memset(r, 0, sizeof(*r));
	r->cap_ms = cap_ms;
	r->timeout_ms = cap_ms;
}

/* Bucket of a round-trip time: four per octave of microseconds. */
static unsigned rtt_bucket(uint64_t us)
{
	unsigned b = 0;

	if (!us)
		return 0;
	while (us >> (b / 4 + 1) && b + 4 < IBS_RTT_BUCKETS)
		b += 4;
	/* Quarter octaves: compare against 2^(k + j/4) ~ (1, 1.19, 1.41, 1.68) * 2^k. */
	{
		uint64_t base = 1ull << (b / 4), q = us * 100 / base;
		b += q >= 168 ? 3 : q >= 141 ? 2 : q >= 119 ? 1 : 0;
	}
	return b < IBS_RTT_BUCKETS ? b : IBS_RTT_BUCKETS - 1;
}

/* The upper end of bucket b, in microseconds. */
static uint64_t rtt_bucket_top(unsigned b)
{
	static const unsigned q[4] = { 119, 141, 168, 200 };

	return ((1ull << (b / 4)) * q[b % 4] + 99) / 100;
}

/* A round-trip time seen: the adaptive timeout follows the 99th percentile (every 16 samples). */
unsigned ibs_rtt_add(struct ibs_rtt *r, uint64_t ns)
{
	uint64_t want, seen = 0, us;
	unsigned b;

	r->hist[rtt_bucket(ns / 1000)]++;
	r->n++;
	if (r->n < IBS_ENGINE_RTT_MIN_SAMPLES || (r->n & 15))
		return r->timeout_ms;
	want = r->n - r->n / 100;
	for (b = 0; b < IBS_RTT_BUCKETS; b++) {
		seen += r->hist[b];
		if (seen >= want)
			break;
	}
	us = rtt_bucket_top(b < IBS_RTT_BUCKETS ? b : IBS_RTT_BUCKETS - 1) * IBS_ENGINE_RTT_MULT;
	if (us < IBS_ENGINE_TIMEOUT_FLOOR_MS * 1000ull)
		us = IBS_ENGINE_TIMEOUT_FLOOR_MS * 1000ull;
	if (us > r->cap_ms * 1000ull)
		us = r->cap_ms * 1000ull;
	r->timeout_ms = (unsigned)((us + 999) / 1000);
	return r->timeout_ms;
}

