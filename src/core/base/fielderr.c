/* fielderr.c - field error lists and their Kubernetes rendering.
 *
 * The model of k8s.io/apimachinery/pkg/util/validation/field (errors.go):
 * an error is a type, a field path, the bad value and a detail. The value
 * is stored already rendered the way Go prints it in Error(): strings
 * quoted (fielderr_addf_str: "1.5" prints as "\"1.5\""), numbers bare
 * (fielderr_addf_int), anything else as the caller renders it (a map as
 * Go's %#v, see validation.c). So
 *
 *   spec.replicas: Invalid value: -1: must be greater than or equal to 0
 *   spec.strategy.rollingUpdate.maxSurge: Invalid value: "1.5": ...
 *   spec.template.spec.containers[0].image: Required value
 *
 * come out byte for byte as kubectl shows them. The list owns every
 * string (copied in); fielderr_list_release frees them.
 *
 * One departure: a value longer than FIELDERR_ECHO_MAX bytes is echoed
 * cut, its first FIELDERR_ECHO_MAX bytes (at a character boundary), then
 * "..." and its whole size: "aaaa..."... (2949120 bytes). Kubernetes
 * echoes the whole value, and twice (the Status message and the cause),
 * so that a 2.9 MB label value made a 12 MB answer; every valid value of
 * the fields drover checks is far shorter (a label value 63, a name 253
 * bytes), so the values of real mistakes print exactly as Kubernetes'. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fielderr.h"
#include "xalloc.h"

void
fielderr_list_release(struct fielderr_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].field);
		free(l->v[i].value);
		free(l->v[i].detail);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/* How many of the first max bytes of s to keep so that a UTF-8
 * character is not split. */
static size_t
cut_at(const char *s, size_t max)
{
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/* A rendered value as it is echoed: the first max bytes, "...", and how
 * long it was; a value no longer than max is copied as it is. */
static char *
echo_value(const char *value, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	if (value == NULL || (n = strlen(value)) <= max)
		return xstrdup(value);
	strbuf_add(&sb, value, cut_at(value, max));
	strbuf_addf(&sb, "... (%zu bytes)", n);
	return strbuf_detach(&sb);
}

/* Adds an error whose value is echoed cut at max bytes. */
static void
add_cut(struct fielderr_list *l, enum fielderr_type type, const char *field,
	const char *value, size_t max, const char *detail)
{
	struct fielderr *e;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	e = &l->v[l->n++];
	e->type = type;
	e->field = xstrdup(field);
	e->value = echo_value(value, max);
	e->detail = xstrdup(detail);
}

/* value is the rendered value or NULL (printed "null" for the types that
 * show one); detail may be NULL or "" for none. A rendered value (a map
 * as Go's %#v prints it) is cut past 4 * FIELDERR_ECHO_MAX bytes. */
void
fielderr_add(struct fielderr_list *l, enum fielderr_type type,
	     const char *field, const char *value, const char *detail)
{
	add_cut(l, type, field, value, 4 * FIELDERR_ECHO_MAX, detail);
}

/* A string value, quoted and escaped as Go's %q prints it for plain
 * ASCII; NULL is taken as "" (Go strings have no nil). A long one is cut
 * before it is quoted: "aaaa"... (2949120 bytes). */
void
fielderr_addf_str(struct fielderr_list *l, enum fielderr_type type,
		  const char *field, const char *value, const char *detail)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	value = value ? value : "";
	n = strlen(value);
	if (n > FIELDERR_ECHO_MAX) {
		char *head = xstrndup(value, cut_at(value, FIELDERR_ECHO_MAX));

		strbuf_addjsonstr(&sb, head);
		strbuf_addf(&sb, "... (%zu bytes)", n);
		free(head);
	} else {
		strbuf_addjsonstr(&sb, value);
	}
	add_cut(l, type, field, sb.buf, SIZE_MAX, detail);
	strbuf_release(&sb);
}

void
fielderr_addf_int(struct fielderr_list *l, enum fielderr_type type,
		  const char *field, int64_t value, const char *detail)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%lld", (long long)value);
	fielderr_add(l, type, field, sb.buf, detail);
	strbuf_release(&sb);
}

/* field.Error.Error(): "<path>: <type>[: <value>][: <detail>]". Required,
 * Forbidden and Too long print no value (Go's ErrorBody omits it for
 * them); Invalid, Unsupported, Duplicate and Not found do. The detail is
 * appended only when non-empty: a Required error with detail "" is just
 * "spec.selector: Required value". */
void
fielderr_format(const struct fielderr *e, struct strbuf *sb)
{
	switch (e->type) {
	case FE_INVALID:
		strbuf_addf(sb, "%s: Invalid value: %s", e->field,
			    e->value ? e->value : "null");
		break;
	case FE_REQUIRED:
		strbuf_addf(sb, "%s: Required value", e->field);
		break;
	case FE_FORBIDDEN:
		strbuf_addf(sb, "%s: Forbidden", e->field);
		break;
	case FE_NOT_SUPPORTED:
		strbuf_addf(sb, "%s: Unsupported value: %s", e->field,
			    e->value ? e->value : "null");
		break;
	case FE_DUPLICATE:
		strbuf_addf(sb, "%s: Duplicate value: %s", e->field,
			    e->value ? e->value : "null");
		break;
	case FE_TOO_LONG:
		strbuf_addf(sb, "%s: Too long", e->field);
		break;
	case FE_UNKNOWN_FIELD:
		strbuf_addf(sb, "%s: Unknown field", e->field);
		break;
	case FE_NOT_FOUND:
		strbuf_addf(sb, "%s: Not found: %s", e->field,
			    e->value ? e->value : "null");
		break;
	}
	if (e->detail && *e->detail)
		strbuf_addf(sb, ": %s", e->detail);
}

/* The CauseType string of each error type, as it appears in the
 * "details.causes[].reason" of the API's 422 Status. */
const char *
fielderr_reason(enum fielderr_type type)
{
	switch (type) {
	case FE_INVALID:
		return "FieldValueInvalid";
	case FE_REQUIRED:
		return "FieldValueRequired";
	case FE_FORBIDDEN:
		return "FieldValueForbidden";
	case FE_NOT_SUPPORTED:
		return "FieldValueNotSupported";
	case FE_DUPLICATE:
		return "FieldValueDuplicate";
	case FE_TOO_LONG:
		return "FieldValueTooLong";
	case FE_UNKNOWN_FIELD:
		return "FieldValueUnknown";
	case FE_NOT_FOUND:
		return "FieldValueNotFound";
	}
	return "FieldValueInvalid";
}
