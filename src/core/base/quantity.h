/* quantity.h - Kubernetes' resource.Quantity, parsed to an integer:
 * pure.
 *
 * A quantity is a signed decimal number ("1", "0.5", ".5", "+2") and
 * one suffix: a binary SI one (Ki Mi Gi Ti Pi Ei: powers of 1024), a
 * decimal SI one (n u m "" k M G T P E: powers of 1000) or a decimal
 * exponent (e3, E-2). Kubernetes' regular expression is
 * ^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$, refined by its parser.
 *
 *   "500m" cpu       -> 500 millicores      (scale QTY_MILLI)
 *   "2"    cpu       -> 2000 millicores
 *   "128Mi" memory   -> 134217728 bytes     (scale QTY_UNIT)
 *   "1G"   memory    -> 1000000000 bytes
 *   "1e3"            -> 1000
 *   "0.1m" cpu       -> 1 millicore (rounded up, as MilliValue() does)
 *
 * Values are int64: a quantity whose value at the asked scale does not
 * fit (Kubernetes keeps it as an arbitrary-precision number) is an
 * error here. */
#ifndef DROVER_CORE_QUANTITY_H
#define DROVER_CORE_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum qty_scale {
	QTY_UNIT = 0,  /* Value(): bytes, pods */
	QTY_MILLI = 3, /* MilliValue(): millicores */
};

enum qty_err {
	QTY_OK = 0,
	QTY_SYNTAX,   /* not a quantity */
	QTY_OVERFLOW, /* does not fit an int64 at this scale */
};

/* Parses s into *out at scale, rounding up (towards +infinity) as
 * Quantity.ScaledValue does. On error *out is left alone. */
enum qty_err quantity_parse(const char *s, enum qty_scale scale, int64_t *out);

/* resource.Quantity as it adds and prints (Quantity.Add, String()),
 * for kubectl's describe. The value is exact in nano units, the
 * smallest Kubernetes keeps (a finer one is rounded up, as
 * ParseQuantity does). String() is the canonical form:
 *
 *   "1000000" -> "1M"   "1.5" -> "1500m"   "2048Ki" -> "2Mi"
 *   "1.5Ki" -> "1536"   (binary only when whole and at least 1Ki)
 *
 * except that ParseQuantity keeps the string it was given when it is
 * already canonical by its quick test ("+1" prints "+1"), until the
 * quantity is added to. A sum takes the format of its first non-zero
 * term: 64Mi + 100M = "167108864" (not a whole number of Ki). */
enum qty_format {
	QTY_DECIMAL_SI,       /* "500m", "1k", "2" */
	QTY_BINARY_SI,        /* "128Mi" */
	QTY_DECIMAL_EXPONENT, /* "1e3" */
};

struct qty {
	bool set; /* false: absent (prints "0"; the first add copies) */
	__int128 nanos;
	enum qty_format format;
	const char *s; /* the string parsed, while String() prints it as
			* given; not owned: it points at qty_parse's s */
};

/* Parses s into *out (out->s may point into s). On error *out is left
 * alone. */
enum qty_err qty_parse(const char *s, struct qty *out);
/* sum += q, as Quantity.Add (a sum not yet set becomes a copy of q, as
 * kubectl's addResourceList does for a name not yet in its list). */
void qty_add(struct qty *sum, const struct qty *q);
/* Value() or MilliValue(): rounded up; 0 when not set. */
int64_t qty_value(const struct qty *q, enum qty_scale scale);
/* String() into buf: "0" when zero or not set. */
void qty_string(const struct qty *q, char *buf, size_t len);

/* The detail Kubernetes gives for a string that is not a quantity. */
#define QTY_SYNTAX_MSG                                                         \
	"quantities must match the regular expression "                        \
	"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

#endif
