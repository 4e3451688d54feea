/* clock.c - wall and monotonic clocks. */
#include <time.h>

#include "clock.h"

dtime
clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* rounded up, as the core's comparisons need (dtime.h) */
	return dtime_from_timespec(ts.tv_sec, ts.tv_nsec);
}

int64_t
clock_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t
clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
