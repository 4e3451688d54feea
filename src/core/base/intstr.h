/* intstr.h - Kubernetes' IntOrString: an integer or a string such as "25%".
 *
 * A struct intstr owns sval. Scaling follows Kubernetes'
 * GetScaledValueFromIntOrPercent exactly: integers are returned as they
 * are (not clamped), "<n>%" becomes ceil or floor of n*total/100 computed in
 * floating point. */
#ifndef DROVER_INTSTR_H
#define DROVER_INTSTR_H

#include <stdbool.h>
#include <stdint.h>

enum intstr_type {
	INTSTR_UNSET = 0, /* field absent */
	INTSTR_INT,       /* ival holds the value */
	INTSTR_STRING,    /* sval holds the text, percent or not */
};

struct intstr {
	enum intstr_type type;
	int64_t ival;
	char *sval;
};

struct intstr intstr_int(int64_t v);
struct intstr intstr_str(const char *s); /* copies s */
void intstr_release(struct intstr *v);
void intstr_copy(struct intstr *dst, const struct intstr *src);
bool intstr_equal(const struct intstr *a, const struct intstr *b);

/* Scales v against total. An unset value scales as 0. Returns 0, or -1 when
 * v is a string that is not "<integer>%" (Kubernetes: "invalid value for
 * IntOrString"). */
int intstr_scaled(const struct intstr *v, int64_t total, bool round_up,
		  int64_t *out);

/* True if s matches ^[0-9]+%$ (the validation regex). */
bool intstr_is_percent(const char *s);

/* The integer value of v for validation: the int, or the number before '%'
 * of a valid percent string; an unparseable string counts as 0, as in
 * Kubernetes' getIntOrPercentValue. */
int64_t intstr_raw_value(const struct intstr *v);

#endif
