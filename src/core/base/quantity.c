/* quantity.c - resource.Quantity strings to integers (see quantity.h).
 *
 * The number is split into an integer mantissa and powers of ten and
 * two, then scaled once, in 128-bit arithmetic so that "1.5Ki" (15 *
 * 2^10 / 10 = 1536) loses nothing before the division:
 *
 *   "1.5Ki"  mantissa 15, 10^-1 (one fraction digit), 2^10
 *   "500m"   mantissa 500, 10^-3                  at QTY_MILLI: 500
 *   "2.5e3"  mantissa 25, 10^-1 * 10^3            at QTY_UNIT: 2500
 *   "1n"     mantissa 1, 10^-9                    at QTY_MILLI: 1 (up)
 *
 * Differences from Kubernetes: the mantissa must fit an int64 (18
 * significant digits are plenty for cpu and memory), and so must the
 * scaled value. */
#include <stdbool.h>
#include <string.h>

#include "quantity.h"

/* The suffix's power of ten and power of two; false if s is not one of
 * Kubernetes' suffixes. "E" alone is exa; "e" needs digits after it.
 * Examples: "Mi" (0, 20), "k" (3, 0), "e3" and "E3" (3, 0), "e-2"
 * (-2, 0); "K", "e", "mi" and "Ki3" are not suffixes. */
static bool
suffix(const char *s, int *dec, int *bin)
{
	static const struct {
		const char *s;
		int dec, bin;
	} tab[] = {
	    {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},
	    {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0},
	    {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
	    {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
	};
	size_t i;
	bool neg = false;
	int e = 0;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(s, tab[i].s)) {
			*dec = tab[i].dec;
			*bin = tab[i].bin;
			return true;
		}
	if (*s != 'e' && *s != 'E')
		return false;
	s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (*s == '\0')
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (e < 100000) /* far past any int64: keeps e an int */
			e = e * 10 + (*s - '0');
	}
	*dec = neg ? -e : e;
	*bin = 0;
	return true;
}

enum qty_err
quantity_parse(const char *s, enum qty_scale scale, int64_t *out)
{
	unsigned __int128 v = 0, lim;
	bool neg = false, dot = false, any = false;
	int frac = 0, dec, bin, e10;

	if (s == NULL)
		return QTY_SYNTAX;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; (*s >= '0' && *s <= '9') || *s == '.'; s++) {
		if (*s == '.') {
			if (dot)
				return QTY_SYNTAX; /* "1.2.3" */
			dot = true;
			continue;
		}
		any = true;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > (unsigned __int128)INT64_MAX)
			return QTY_OVERFLOW;
		frac += dot;
	}
	if (!any || !suffix(s, &dec, &bin))
		return QTY_SYNTAX;
	/* the largest magnitude: -2^63 is representable, +2^63 not */
	lim = (unsigned __int128)INT64_MAX + (neg ? 1 : 0);
	if (v == 0) {
		*out = 0;
		return QTY_OK;
	}
	v <<= bin; /* v < 2^63, bin <= 60: fits 128 bits */
	/* The power of ten still to apply: the suffix's, less the digits
	 * after the point, plus the scale. "2.5e3" at QTY_UNIT: 3 - 1 + 0
	 * = 2, 25 * 100 = 2500. "500m" at QTY_MILLI: -3 - 0 + 3 = 0, 500.
	 * "1.5Ki" at QTY_UNIT: 15 << 10 = 15360, then -1: 1536 exactly.
	 * "-1.5" at QTY_UNIT: 15, then -1: -1, rounded toward +infinity. */
	e10 = dec - frac + (int)scale;
	for (; e10 > 0; e10--) {
		v *= 10;
		if (v > lim)
			return QTY_OVERFLOW;
	}
	for (; e10 < 0 && v > 0; e10++) {
		/* rounding up: towards +infinity, so a positive remainder
		 * adds one and a negative one drops it */
		bool rem = v % 10 != 0;

		v /= 10;
		if (rem && !neg)
			v++;
		if (v == 1 && !neg && e10 < -1) {
			/* 1 rounded up stays 1 at every further step */
			break;
		}
	}
	if (v > lim)
		return QTY_OVERFLOW;
	*out = neg ? (int64_t)(-(__int128)v) : (int64_t)v;
	return QTY_OK;
}
