/* api_testlib.h - what the API's integration tests share: a fixed clock
 * and a counting random source, so that uids, names and timestamps are
 * the same in every run. Included by one test file each (static
 * functions). */
#ifndef DROVER_API_TESTLIB_H
#define DROVER_API_TESTLIB_H

#include <stddef.h>

#include "dtime.h"

/* 2027-01-15T08:00:00Z, whatever the real time. */
static dtime
fixed_now(void *arg)
{
	(void)arg;
	return DTIME_SEC(1800000000);
}

/* Bytes 0, 1, 2, ... across calls. */
static void
counter_random(void *arg, unsigned char *buf, size_t n)
{
	static unsigned char next;
	size_t i;

	(void)arg;
	for (i = 0; i < n; i++)
		buf[i] = next++;
}

#endif
