/* dtime.h - time as int64 milliseconds since the Unix epoch.
 *
 * The core never reads a clock: `now` is always a parameter. 0 means
 * "unset" (Kubernetes' zero time, serialized as null). */
#ifndef DROVER_DTIME_H
#define DROVER_DTIME_H

#include <stdbool.h>
#include <stdint.h>

typedef int64_t dtime;

#define DTIME_UNSET  ((dtime)0)
#define DTIME_SEC(s) ((dtime)(s)*1000)

/* Parses an RFC 3339 time ("2026-01-02T03:04:05Z", up to nine fractional
 * digits, "Z" or a +hh:mm offset). Sub-millisecond digits are truncated.
 * Returns 0 on success, -1 if the text is not RFC 3339. */
int dtime_parse(const char *s, dtime *out);

/* dtime_parse for the current time (`drover plan --now`): a fraction of
 * a millisecond is rounded up instead, which keeps the core's strict
 * comparisons with now exact (see dtime.c). */
int dtime_parse_now(const char *s, dtime *out);
/* The same rounding of a clock reading (seconds and nanoseconds). */
dtime dtime_from_timespec(int64_t sec, long nsec);

/* Formats t as RFC 3339 UTC into buf (at least 32 bytes). Whole seconds are
 * printed without a fraction, as Kubernetes does; otherwise milliseconds. */
void dtime_format(dtime t, char *buf);

/* The same as metav1.MicroTime prints it: always six fractional digits
 * ("2026-11-28T18:43:05.123000Z"; dtime keeps milliseconds). */
void dtime_format_micro(dtime t, char *buf);

/* Parses a Go-style duration ("90s", "1m30s", "250ms", "2h"; a bare
 * number is seconds) into milliseconds; -1 if it is not one. */
int64_t dtime_parse_duration(const char *s);

#endif
