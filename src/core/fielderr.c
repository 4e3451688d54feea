/* fielderr.c - field error lists and their Kubernetes rendering. */
#include <stdlib.h>

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

void
fielderr_add(struct fielderr_list *l, enum fielderr_type type,
	     const char *field, const char *value, const char *detail)
{
	struct fielderr *e;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	e = &l->v[l->n++];
	e->type = type;
	e->field = xstrdup(field);
	e->value = xstrdup(value);
	e->detail = xstrdup(detail);
}

void
fielderr_addf_str(struct fielderr_list *l, enum fielderr_type type,
		  const char *field, const char *value, const char *detail)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addjsonstr(&sb, value ? value : "");
	fielderr_add(l, type, field, sb.buf, detail);
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
	}
	if (e->detail && *e->detail)
		strbuf_addf(sb, ": %s", e->detail);
}

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
	}
	return "FieldValueInvalid";
}
