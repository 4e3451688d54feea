/* intstr.c - int-or-percent values, Kubernetes' rounding rules
 * (apimachinery's intstr.GetScaledValueFromIntOrPercent): an int is
 * itself, "N%" is N% of a total rounded up or down as the caller asks.
 * maxSurge rounds up, maxUnavailable down (deploy_util.c's fenceposts),
 * so 25% of 10 is 3 as a surge and 2 as an unavailability.
 *
 * More worked examples (total 7): "50%" is 4 rounded up, 3 down; "0%"
 * is 0 either way; "100%" is 7; an int 2 is 2 whatever the total. The
 * percentage is computed as Go computes it (float64(n) * float64(total)
 * / 100, then ceil or floor; exact for any replica count), so the
 * results match Kubernetes' bit for bit. A string that is not "N%" with
 * N a non-negative integer is an error for the caller to report with
 * its field path (validate.h), never a silent 0. */
#include <stdlib.h>
#include <string.h>

#include "intstr.h"
#include "xalloc.h"

struct intstr
intstr_int(int64_t v)
{
	struct intstr r = {.type = INTSTR_INT, .ival = v};

	return r;
}

/* The text is not checked here: "abc" is a valid IntOrString value and
 * is refused only where it is scaled (intstr_scaled) or validated
 * (validate.h), each with its own message. */
struct intstr
intstr_str(const char *s)
{
	struct intstr r = {.type = INTSTR_STRING, .sval = xstrdup(s)};

	return r;
}

/* Leaves v unset: releasing twice is harmless, and a released value
 * scales as 0. */
void
intstr_release(struct intstr *v)
{
	free(v->sval);
	v->sval = NULL;
	v->type = INTSTR_UNSET;
	v->ival = 0;
}

/* dst is overwritten, not released first (it must own nothing); an
 * int's NULL sval stays NULL. */
void
intstr_copy(struct intstr *dst, const struct intstr *src)
{
	dst->type = src->type;
	dst->ival = src->ival;
	dst->sval = xstrdup(src->sval);
}

/* Same type and same value: 1 and "1" differ, as in Go; so do unset
 * and 0 (an absent maxSurge and maxSurge: 0 are different specs). */
bool
intstr_equal(const struct intstr *a, const struct intstr *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == INTSTR_INT)
		return a->ival == b->ival;
	if (a->type == INTSTR_STRING)
		return strcmp(a->sval, b->sval) == 0;
	return true;
}

/* Whether s is "<integer>%" (the only string form Kubernetes scales).
 * "25%", "0%" and "150%" pass (the 100% cap of maxUnavailable is
 * the validation's); "%", "25", "-5%", "+5%", "1.5%" and "25 %" do not. */
bool
intstr_is_percent(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 2 || s[n - 1] != '%')
		return false;
	for (i = 0; i + 1 < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Go's strconv.Atoi on the text before '%': optional sign, decimal digits,
 * no overflow. "25" -> 25, "-5" -> -5; "", "+", "2 5" -> -1. The
 * overflow test is conservative: it also refuses some 19-digit values
 * just below INT64_MAX, none of them a meaningful percentage. */
static int
atoi_strict(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int64_t v = 0;
	bool neg = false;

	if (n && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

/* ceil and floor without libm, for the range of replica counts (the
 * core links no libm: scripts/check-layers.sh). Exact while |x| < 2^53,
 * far above any replica count times 100. */
static int64_t
dceil(double x)
{
	int64_t t = (int64_t)x;

	return (double)t < x ? t + 1 : t;
}

static int64_t
dfloor(double x)
{
	int64_t t = (int64_t)x;

	return (double)t > x ? t - 1 : t;
}

/* GetScaledValueFromIntOrPercent: pct * total / 100 in floating point,
 * then ceil or floor, as Go does (float64(value) * float64(total) / 100).
 * Examples: 25% of 10 = 2.5 -> 3 up, 2 down; 33% of 3 = 0.99 -> 1 up, 0
 * down; 100% of 7 = 7 either way. An int is returned as is, even beyond
 * total (clamping is the caller's, as max_unavailable does). Unset is 0.
 * -1 for a string that is not a percentage ("1.5", "abc%"). */
int
intstr_scaled(const struct intstr *v, int64_t total, bool round_up,
	      int64_t *out)
{
	int64_t pct;
	size_t n;
	double x;

	if (v->type == INTSTR_UNSET) {
		*out = 0;
		return 0;
	}
	if (v->type == INTSTR_INT) {
		*out = v->ival;
		return 0;
	}
	/* A sign is accepted, as Go's Atoi accepts it: "-5%" of 10 scales
	 * to -1 (down: -0.5 floors to -1) or 0 (up). Validation refuses
	 * negative percentages first (intstr_is_percent), so only an
	 * unvalidated object gets this far with one. */
	n = strlen(v->sval);
	if (n == 0 || v->sval[n - 1] != '%' ||
	    atoi_strict(v->sval, n - 1, &pct))
		return -1;
	x = (double)pct * (double)total / 100.0;
	*out = round_up ? dceil(x) : dfloor(x);
	return 0;
}

/* Examples: 7 -> 7, "25%" -> 25, "0%" -> 0; "abc", "-5%" and a string
 * without '%' such as "5" -> 0. */
int64_t
intstr_raw_value(const struct intstr *v)
{
	int64_t pct;

	if (v->type == INTSTR_INT)
		return v->ival;
	if (v->type == INTSTR_STRING && intstr_is_percent(v->sval) &&
	    atoi_strict(v->sval, strlen(v->sval) - 1, &pct) == 0)
		return pct;
	return 0;
}
