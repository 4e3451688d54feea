/* fielderr.h - validation errors as data (Kubernetes' field.ErrorList).
 *
 * Each error has a type, the field path ("spec.strategy.rollingUpdate.
 * maxSurge"), the offending value already rendered as Kubernetes prints it
 * (strings quoted, numbers bare; NULL when there is none) and a detail. A
 * list owns its errors. fielderr_format() renders one error exactly like
 * Kubernetes' field.Error.Error(). */
#ifndef DROVER_FIELDERR_H
#define DROVER_FIELDERR_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum fielderr_type {
	FE_INVALID,       /* "Invalid value" */
	FE_REQUIRED,      /* "Required value" */
	FE_FORBIDDEN,     /* "Forbidden" */
	FE_NOT_SUPPORTED, /* "Unsupported value" */
	FE_DUPLICATE,     /* "Duplicate value" */
	FE_TOO_LONG,      /* "Too long" */
	FE_UNKNOWN_FIELD, /* strict decoding: field not in the schema */
	FE_NOT_FOUND,     /* "Not found" */
};

struct fielderr {
	enum fielderr_type type;
	char *field;
	char *value;
	char *detail;
};

struct fielderr_list {
	struct fielderr *v;
	size_t n;
	size_t alloc;
};

/* Values longer than this are echoed cut (fielderr.c): a string's past
 * this many bytes, a value rendered by the caller past 4 times that. */
#define FIELDERR_ECHO_MAX 256

void fielderr_list_release(struct fielderr_list *l);
/* Adds an error; value is the rendered value or NULL. Copies every string. */
void fielderr_add(struct fielderr_list *l, enum fielderr_type type,
		  const char *field, const char *value, const char *detail);
/* Value renderers for fielderr_add: a quoted Go string, an integer. */
void fielderr_addf_str(struct fielderr_list *l, enum fielderr_type type,
		       const char *field, const char *value,
		       const char *detail);
void fielderr_addf_int(struct fielderr_list *l, enum fielderr_type type,
		       const char *field, int64_t value, const char *detail);
/* "<field>: Invalid value: <value>: <detail>" and the other forms. */
void fielderr_format(const struct fielderr *e, struct strbuf *sb);
/* The Kubernetes Status cause reason: FieldValueInvalid, ... */
const char *fielderr_reason(enum fielderr_type type);

#endif
