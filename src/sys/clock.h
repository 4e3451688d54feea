/* clock.h - the real clock: the only place drover reads the time. */
#ifndef DROVER_SYS_CLOCK_H
#define DROVER_SYS_CLOCK_H

#include "dtime.h"

dtime clock_now(void);        /* wall clock, ms since the epoch */
int64_t clock_mono_ms(void);  /* monotonic, for intervals */
uint64_t clock_mono_ns(void); /* the same in ns, for short durations */

#endif
