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

/* The detail Kubernetes gives for a string that is not a quantity. */
#define QTY_SYNTAX_MSG                                                         \
	"quantities must match the regular expression "                        \
	"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

#endif
