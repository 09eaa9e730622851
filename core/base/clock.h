/* The monotonic clock every deadline in ibscan is measured on, and the time left before one. */
#ifndef IBSCAN_CLOCK_H
#define IBSCAN_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Now, in ns on CLOCK_MONOTONIC. */
static inline uint64_t ibs_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Milliseconds left before deadline_ns (0 when past), rounded up: poll() must not return before it. */
static inline int ibs_ms_left(uint64_t deadline_ns)
{
	uint64_t now = ibs_mono_ns();

	if (now >= deadline_ns)
		return 0;
	return (int)((deadline_ns - now + 999999) / 1000000);
}

#endif
