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
 * its field path (validate.c), never a silent 0. */
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

struct intstr
intstr_str(const char *s)
{
	struct intstr r = {.type = INTSTR_STRING, .sval = xstrdup(s)};

	return r;
}

void
intstr_release(struct intstr *v)
{
	free(v->sval);
	v->sval = NULL;
	v->type = INTSTR_UNSET;
	v->ival = 0;
}

void
intstr_copy(struct intstr *dst, const struct intstr *src)
{
	dst->type = src->type;
	dst->ival = src->ival;
	dst->sval = xstrdup(src->sval);
}

/* Same type and same value: 1 and "1" differ, as in Go. */
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

/* Whether s is "<integer>%" (the only string form Kubernetes scales). */
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
 * no overflow. */
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
	n = strlen(v->sval);
	if (n == 0 || v->sval[n - 1] != '%' ||
	    atoi_strict(v->sval, n - 1, &pct))
		return -1;
	x = (double)pct * (double)total / 100.0;
	*out = round_up ? dceil(x) : dfloor(x);
	return 0;
}

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
