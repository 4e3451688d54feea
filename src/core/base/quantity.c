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
#include <stdio.h>
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

/* ---- Quantity.Add and String() ---- */

#define NANO ((__int128)1000000000)

static void
u128_string(unsigned __int128 v, char *buf, size_t len)
{
	char tmp[48];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v && n < sizeof(tmp));
	for (; n && len > 1; len--)
		*buf++ = tmp[--n];
	*buf = '\0';
}

enum qty_err
qty_parse(const char *str, struct qty *out)
{
	const char *s = str;
	unsigned __int128 v = 0, w;
	bool neg = false, dot = false, reuse = false, fast;
	int frac = 0, ndig = 0, tz = 0, dec, bin, e10, scale;
	char first = 0;
	enum qty_format f;

	if (s == NULL)
		return QTY_SYNTAX;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; (*s >= '0' && *s <= '9') || *s == '.'; s++) {
		if (*s == '.') {
			if (dot)
				return QTY_SYNTAX;
			dot = true;
			continue;
		}
		if (ndig++ == 0)
			first = *s;
		tz = *s == '0' ? tz + 1 : 0;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > (unsigned __int128)INT64_MAX)
			return QTY_OVERFLOW;
		frac += dot;
	}
	if (ndig == 0 || !suffix(s, &dec, &bin))
		return QTY_SYNTAX;
	if (bin)
		f = QTY_BINARY_SI;
	else if ((*s == 'e' || *s == 'E') && s[1])
		f = QTY_DECIMAL_EXPONENT;
	else
		f = QTY_DECIMAL_SI;
	/* ParseQuantity's quick path, which keeps the string when it looks
	 * canonical: few enough digits, no finer than nano, and for binary
	 * no fraction and a value not a multiple of 8 */
	scale = (bin ? 0 : dec) - frac;
	if (bin)
		fast = frac == 0 && 15 - ndig - bin * 3 / 10 - 1 >= 0;
	else
		fast = 18 - ndig >= 0;
	if (fast && scale >= -9 && v != 0)
		reuse = bin ? (v & 7) != 0
			    : scale % 3 == 0 && tz < 3 && first != '0';
	/* the value in nano units, rounded up past nano */
	w = v << bin;
	for (e10 = dec - frac + 9; e10 > 0; e10--) {
		if (w > (((unsigned __int128)1) << 126) / 10)
			return QTY_OVERFLOW;
		w *= 10;
	}
	for (; e10 < 0 && w > 0; e10++) {
		bool rem = w % 10 != 0;

		w /= 10;
		if (rem && !neg)
			w++;
	}
	out->set = true;
	out->nanos = neg ? -(__int128)w : (__int128)w;
	out->format = f;
	out->s = reuse ? str : NULL;
	return QTY_OK;
}

void
qty_add(struct qty *sum, const struct qty *q)
{
	if (!sum->set) {
		*sum = *q;
		return;
	}
	if (sum->nanos == 0)
		sum->format = q->format;
	sum->nanos += q->nanos;
	sum->s = NULL;
}

int64_t
qty_value(const struct qty *q, enum qty_scale scale)
{
	__int128 d = scale == QTY_MILLI ? NANO / 1000 : NANO, v;

	if (!q->set)
		return 0;
	/* C division truncates: up for negatives, so add for positives */
	v = q->nanos > 0 ? (q->nanos + d - 1) / d : q->nanos / d;
	if (v > INT64_MAX)
		return INT64_MAX;
	return v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* CanonicalizeBytes: binary when the format is and the value is a whole
 * number of at least 1Ki (the largest power of 1024 dividing it), else
 * decimal with the exponent a multiple of three. A decimal exponent
 * without an SI suffix (past E) prints bare, as Kubernetes does. */
void
qty_string(const struct qty *q, char *buf, size_t len)
{
	static const char *const dec[] = {"n", "u", "m", "",  "k",
					  "M", "G", "T", "P", "E"};
	static const char *const bin[] = {"",   "Ki", "Mi", "Gi",
					  "Ti", "Pi", "Ei"};
	enum qty_format f = q->format;
	unsigned __int128 m;
	const char *sfx = "";
	char num[48], exp[16];
	int e = -9, k = 0;

	if (!q->set || q->nanos == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (q->s) {
		snprintf(buf, len, "%s", q->s);
		return;
	}
	m = q->nanos < 0 ? (unsigned __int128)-q->nanos
			 : (unsigned __int128)q->nanos;
	if (f == QTY_BINARY_SI && (m < 1024 * NANO || m % NANO))
		f = QTY_DECIMAL_SI;
	if (f == QTY_BINARY_SI) {
		for (m /= NANO; m % 1024 == 0 && k < 6; k++)
			m /= 1024;
		sfx = bin[k];
	} else {
		for (; m % 10 == 0; e++)
			m /= 10;
		switch (e % 3) {
		case 1:
		case -2:
			m *= 10;
			e -= 1;
			break;
		case 2:
		case -1:
			m *= 100;
			e -= 2;
			break;
		}
		if (f == QTY_DECIMAL_EXPONENT && e != 0) {
			snprintf(exp, sizeof(exp), "e%d", e);
			sfx = exp;
		} else if (f == QTY_DECIMAL_SI && e >= -9 && e <= 18) {
			sfx = dec[(e + 9) / 3];
		}
	}
	u128_string(m, num, sizeof(num));
	snprintf(buf, len, "%s%s%s", q->nanos < 0 ? "-" : "", num, sfx);
}
