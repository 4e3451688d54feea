/* dtime.c - RFC 3339 parsing and formatting with pure civil-date arithmetic
 * (no libc time functions, so no time zone state).
 *
 * Representation (dtime.h): int64 milliseconds since 1970-01-01T00:00:00Z,
 * 0 meaning unset. Milliseconds rather than Kubernetes' whole seconds
 * (metav1.Time serializes without a fraction) because the planners
 * compare times strictly: minReadySeconds ends "just after" readiness
 * plus the delay, and the simulator steps to 1 ms past a deadline; with
 * seconds those instants would collide. Times Kubernetes writes (whole
 * seconds) print exactly as Kubernetes prints them; times drover makes
 * print milliseconds only when they have some. int64 ms covers about
 * 292 million years, so overflow is not a concern for real dates; the
 * formatter clamps the year to 0000-9999, the range RFC 3339 can write.
 *
 * Why no gmtime/timegm/strptime: they read the TZ environment and locale
 * state, and the core must be pure and identical on every host
 * (check-layers forbids them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtime.h"

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms"). The year is shifted to
 * start in March so that the leap day is the last day of the (shifted)
 * year; era is a 400-year cycle of 146097 days; 719468 is the day number
 * of 1970-01-01 counted from 0000-03-01. Examples: 1970-01-01 -> 0,
 * 2000-03-01 -> 11017, 1969-12-31 -> -1. */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* The inverse of days_from_civil (same paper): day 0 -> 1970-01-01,
 * 19723 -> 2024-01-01. */
static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	*y = (int64_t)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y += *m <= 2;
}

/* Exactly n decimal digits at s: 0 and the value, or -1. */
static int
digits(const char *s, int n, int *out)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Gregorian leap years: 2024 and 2000 are leap, 1900 is not. */
static int
days_in_month(int y, int m)
{
	static const int dm[] = {31, 28, 31, 30, 31, 30,
				 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : dm[m - 1];
}

/* The RFC 3339 profile Kubernetes writes and reads: YYYY-MM-DDTHH:MM:SS,
 * an optional fraction of 1 to 9 digits, then Z or +hh:mm / -hh:mm. The
 * date is checked (2023-02-29 is refused), the second must be 0-59 (a
 * leap second 60 is refused, as Go's time.Parse refuses it). "t" and
 * "z" in lower case are accepted (RFC 3339 §5.6 allows them).
 *
 * The offset is subtracted to get UTC: "2026-01-02T03:04:05+02:00" is
 * 2026-01-02T01:04:05Z. Fraction digits past the third are read and
 * dropped (truncation, not rounding): ".1239" is 123 ms, ".5" is 500 ms.
 * *out is written only on success. */
static int
parse(const char *s, bool up, dtime *out)
{
	int y, mo, d, h, mi, sec, ms = 0, nfrac = 0, oh, om;
	bool rest = false; /* a nonzero digit past the millisecond */
	int64_t secs;
	const char *p;

	/* "2026-01-02T03:04:05Z" is the shortest form: 20 characters. */
	if (strlen(s) < 20)
		return -1;
	if (digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) ||
	    s[7] != '-' || digits(s + 8, 2, &d) ||
	    (s[10] != 'T' && s[10] != 't') || digits(s + 11, 2, &h) ||
	    s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' ||
	    digits(s + 17, 2, &sec))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 ||
	    mi > 59 || sec > 59)
		return -1;
	p = s + 19;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (nfrac < 3)
				ms = ms * 10 + (*p - '0');
			else if (*p != '0')
				rest = true;
			nfrac++;
			p++;
		}
		if (nfrac == 0 || nfrac > 9)
			return -1;
		/* ".5" -> 5 -> 50 -> 500 ms */
		while (nfrac < 3) {
			ms *= 10;
			nfrac++;
		}
	}
	secs = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
	       h * 3600 + mi * 60 + sec;
	if ((*p == 'Z' || *p == 'z') && p[1] == '\0') {
		/* UTC */
	} else if ((*p == '+' || *p == '-') && strlen(p) == 6 &&
		   !digits(p + 1, 2, &oh) && p[3] == ':' &&
		   !digits(p + 4, 2, &om) && oh <= 23 && om <= 59) {
		int64_t off = oh * 3600 + om * 60;

		secs += *p == '+' ? -off : off;
	} else {
		return -1;
	}
	*out = secs * 1000 + ms + (up && rest);
	return 0;
}

int
dtime_parse(const char *s, dtime *out)
{
	return parse(s, false, out);
}

/* Why up: every comparison of the core with the current time is strict,
 * t < now or t + d < now, with t whole milliseconds, and for such t,
 * t < x exactly when t < ceil(x). Truncating would make them wrong by a
 * fraction of a millisecond: now 18:49:59.000000001 against a deadline
 * at 18:50:00 is 0.999999999 s away, under a second (requeue at once, as
 * requeueStuckDeployment does), not the full second that 18:49:59.000
 * gives. */
int
dtime_parse_now(const char *s, dtime *out)
{
	return parse(s, true, out);
}

dtime
dtime_from_timespec(int64_t sec, long nsec)
{
	return (dtime)sec * 1000 + nsec / 1000000 + (nsec % 1000000 != 0);
}

/* Always UTC with "Z". Whole seconds print as "2026-01-02T03:04:05Z"
 * (what Kubernetes prints for metav1.Time), others with exactly three
 * digits: "2026-01-02T03:04:05.250Z". C division truncates towards zero,
 * so times before 1970 are floored by hand: t = -1 ms is
 * 1969-12-31T23:59:59.999Z (secs -1, ms 999, then day -1 with 86399
 * seconds left). The "% 100" on each field only tells the compiler the
 * values fit two digits (they always do); buf needs 25 bytes at most. */
void
dtime_format(dtime t, char *buf)
{
	int64_t secs = t / 1000, days, y;
	int ms = (int)(t % 1000), yy;
	unsigned m, d, rem;

	if (ms < 0) {
		ms += 1000;
		secs -= 1;
	}
	days = secs / 86400;
	rem = (unsigned)(secs % 86400);
	if (secs % 86400 < 0) {
		days -= 1;
		rem = (unsigned)(secs % 86400 + 86400);
	}
	civil_from_days(days, &y, &m, &d);
	/* RFC 3339 has four-digit years; clamp what cannot be written. */
	yy = (int)(y < 0 ? 0 : y > 9999 ? 9999 : y);
	if (ms)
		snprintf(buf, 32, "%04d-%02u-%02uT%02u:%02u:%02u.%03dZ", yy,
			 m % 100, d % 100, rem / 3600 % 100, rem / 60 % 60,
			 rem % 60, ms);
	else
		snprintf(buf, 32, "%04d-%02u-%02uT%02u:%02u:%02uZ", yy, m % 100,
			 d % 100, rem / 3600 % 100, rem / 60 % 60, rem % 60);
}

void
dtime_format_micro(dtime t, char *buf)
{
	int ms = (int)(((t % 1000) + 1000) % 1000);

	/* the whole seconds as dtime_format prints them, then the
	 * fraction: "...:05Z" -> "...:05.123000Z" */
	dtime_format(t - ms, buf);
	snprintf(buf + 19, 13, ".%03d000Z", ms);
}

/* A Go-style duration for flags and config: a sequence of number+unit
 * with units h, m, s, ms, and a bare trailing number meaning seconds
 * (Go's time.ParseDuration would refuse that; drover accepts it so
 * that a plain number of seconds works). Each number may have a
 * fraction: "1.5h" is 5,400,000 ms, "1m30s" 90,000 ms, "250ms" 250,
 * "90" 90,000. "us" and "ns" are not supported ("1us" fails on the
 * 'u'). Fractions of a millisecond are truncated.
 *
 * The numbers are read with strtod, so what strtod accepts gets through:
 * leading blanks, a sign ("-5s" is -5000, which the caller must refuse
 * if it matters), exponents ("1e3ms"), hexadecimal. */
int64_t
dtime_parse_duration(const char *s)
{
	int64_t total = 0;
	char *end;

	if (*s == '\0')
		return -1;
	while (*s) {
		/* Digits and one point only: strtod alone would take a sign,
		 * hex, an exponent, "nan" and "inf", and converting those to
		 * int64_t is undefined. */
		size_t digits = strspn(s, "0123456789.");
		const char *point = memchr(s, '.', digits);
		double v;

		if (digits == 0 ||
		    (point &&
		     memchr(point + 1, '.', digits - (size_t)(point - s) - 1)))
			return -1;
		v = strtod(s, &end);
		if (end != s + digits || v > 1e12)
			return -1; /* not a plain number, or past 30,000 years */
		s = end;
		/* "ms" before "m": "5ms" is 5, not 5 minutes and an "s". */
		if (!strncmp(s, "ms", 2)) {
			total += (int64_t)v;
			s += 2;
		} else if (*s == 's' || *s == '\0') {
			total += (int64_t)(v * 1000);
			s += *s ? 1 : 0;
		} else if (*s == 'm') {
			total += (int64_t)(v * 60000);
			s++;
		} else if (*s == 'h') {
			total += (int64_t)(v * 3600000);
			s++;
		} else {
			return -1;
		}
		if (total > (int64_t)1e15) /* 30,000 years: no sum overflows */
			return -1;
	}
	return total;
}
