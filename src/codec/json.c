/* json.c - schema-driven JSON decoding (strict) and encoding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtime.h"
#include "intstr.h"
#include "json.h"
#include "strbuf.h"
#include "strmap.h"
#include "xalloc.h"

#define AT(obj, f)  ((char *)(obj) + (f)->off)
#define CAT(obj, f) ((const char *)(obj) + (f)->off)

static const char *
json_type_name(json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "boolean";
	default:
		return "null";
	}
}

/* Renders a JSON value the way Kubernetes quotes values in field errors. */
static char *
render_value(json_t *j)
{
	struct strbuf sb = STRBUF_INIT;
	char *dump;

	if (json_is_string(j)) {
		strbuf_addjsonstr(&sb, json_string_value(j));
		return strbuf_detach(&sb);
	}
	if (json_is_real(j)) {
		/* "1.5": Kubernetes quotes the text of a bad number. Use the
		 * shortest form that reads back as the same double, so 0.1
		 * stays "0.1" and not "0.10000000000000001". */
		double d = json_real_value(j);
		char tb[40];
		int prec;

		for (prec = 1; prec < 17; prec++) {
			snprintf(tb, sizeof(tb), "%.*g", prec, d);
			if (strtod(tb, NULL) == d)
				break;
		}
		snprintf(tb, sizeof(tb), "%.*g", prec, d);
		strbuf_addf(&sb, "\"%s\"", tb);
		return strbuf_detach(&sb);
	}
	dump = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	return dump ? dump : xstrdup("null");
}

/* Where a value sits in the document, as a chain of frames on the stack:
 * rendered ("spec.containers[0].image") only when an error is reported,
 * so that decoding a valid object formats no text. */
struct jpath {
	const struct jpath *up;
	enum { JP_ROOT, JP_MEMBER, JP_INDEX, JP_KEY } kind;
	const char *name; /* ROOT (the caller's prefix), MEMBER, KEY */
	size_t index;     /* INDEX */
};

static void
render_path(const struct jpath *p, struct strbuf *sb)
{
	if (p->up)
		render_path(p->up, sb);
	switch (p->kind) {
	case JP_ROOT:
		strbuf_addstr(sb, p->name);
		break;
	case JP_MEMBER:
		if (sb->len)
			strbuf_addch(sb, '.');
		strbuf_addstr(sb, p->name);
		break;
	case JP_INDEX:
		strbuf_addf(sb, "[%zu]", p->index);
		break;
	case JP_KEY:
		strbuf_addf(sb, "[%s]", p->name);
		break;
	}
}

static void
path_error(struct fielderr_list *errs, enum fielderr_type type,
	   const struct jpath *p, const char *value, const char *detail)
{
	struct strbuf sb = STRBUF_INIT;

	render_path(p, &sb);
	fielderr_add(errs, type, sb.len ? sb.buf : "<root>", value, detail);
	strbuf_release(&sb);
}

static void
type_error(struct fielderr_list *errs, const struct jpath *path, json_t *j,
	   const char *want)
{
	char *v = render_value(j);
	struct strbuf d = STRBUF_INIT;

	strbuf_addf(&d, "expected %s, got %s", want, json_type_name(j));
	path_error(errs, FE_INVALID, path, v, d.buf);
	strbuf_release(&d);
	free(v);
}

static int
decode_int(json_t *j, const struct jpath *path, struct fielderr_list *errs,
	   int64_t *out)
{
	if (json_is_integer(j)) {
		*out = json_integer_value(j);
		return 0;
	}
	if (json_is_real(j)) {
		double d = json_real_value(j);

		/* Range first: casting a double outside int64 is UB. */
		if (d >= -0x1p63 && d < 0x1p63 && d == (double)(int64_t)d) {
			*out = (int64_t)d;
			return 0;
		}
	}
	type_error(errs, path, j, "integer");
	return -1;
}

/* Go's decoder refuses a number that does not fit the field's type; the
 * text follows its "cannot unmarshal number N into ... of type int32". */
static int
check_int32(json_t *j, int64_t v, const struct jpath *path,
	    struct fielderr_list *errs)
{
	char *r;

	if (v >= INT32_MIN && v <= INT32_MAX)
		return 0;
	r = render_value(j);
	path_error(errs, FE_INVALID, path, r,
		   "cannot unmarshal number into a field of type int32");
	free(r);
	return -1;
}

static int
decode_sized_int(const struct field *f, json_t *j, const struct jpath *path,
		 struct fielderr_list *errs, int64_t *out)
{
	int64_t v;

	if (decode_int(j, path, errs, &v))
		return -1;
	if ((f->flags & FF_INT32) && check_int32(j, v, path, errs))
		return -1;
	*out = v;
	return 0;
}

static void decode_value(const struct field *f, json_t *j, void *p,
			 const struct jpath *path, struct fielderr_list *errs);

static void
decode_struct(const struct schema *s, json_t *j, void *obj,
	      const struct jpath *path, struct fielderr_list *errs)
{
	const char *key;
	json_t *val;
	size_t i;

	if (!json_is_object(j)) {
		type_error(errs, path, j, "object");
		return;
	}
	json_object_foreach(j, key, val)
	{
		const struct field *f = NULL;
		struct jpath sub = {path, JP_MEMBER, key, 0};

		for (i = 0; i < s->nfields; i++)
			if (strcmp(s->fields[i].json, key) == 0) {
				f = &s->fields[i];
				break;
			}
		if (f == NULL) {
			path_error(errs, FE_UNKNOWN_FIELD, &sub, NULL,
				   "field not declared in schema");
			continue;
		}
		if (json_is_null(val))
			continue;
		decode_value(f, val, AT(obj, f), &sub, errs);
	}
}

int
codec_decode(const struct schema *s, json_t *j, void *obj, const char *path,
	     struct fielderr_list *errs)
{
	struct jpath root = {NULL, JP_ROOT, path, 0};
	size_t before = errs->n;

	decode_struct(s, j, obj, &root, errs);
	return (int)(errs->n - before);
}

static void
decode_value(const struct field *f, json_t *j, void *p,
	     const struct jpath *path, struct fielderr_list *errs)
{
	size_t i;

	switch (f->type) {
	case FT_STR:
		if (json_is_string(j))
			*(char **)p = xstrdup(json_string_value(j));
		else
			type_error(errs, path, j, "string");
		break;
	case FT_RAW:
		*(char **)p = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS |
						JSON_ENCODE_ANY);
		break;
	case FT_INT:
		decode_sized_int(f, j, path, errs, p);
		break;
	case FT_OPTINT: {
		struct opt_int *o = p;

		if (decode_sized_int(f, j, path, errs, &o->v) == 0)
			o->set = true;
		break;
	}
	case FT_BOOL:
		if (json_is_boolean(j))
			*(bool *)p = json_is_true(j);
		else
			type_error(errs, path, j, "boolean");
		break;
	case FT_OPTBOOL: {
		struct opt_bool *o = p;

		if (json_is_boolean(j)) {
			o->v = json_is_true(j);
			o->set = true;
		} else {
			type_error(errs, path, j, "boolean");
		}
		break;
	}
	case FT_TIME:
		if (!json_is_string(j) ||
		    dtime_parse(json_string_value(j), p) != 0) {
			char *v = render_value(j);

			path_error(errs, FE_INVALID, path, v,
				   "must be an RFC 3339 time");
			free(v);
		}
		break;
	case FT_INTSTR: {
		struct intstr *v = p;

		if (json_is_integer(j)) {
			if (check_int32(j, json_integer_value(j), path, errs) ==
			    0)
				*v = intstr_int(json_integer_value(j));
		} else if (json_is_string(j)) {
			*v = intstr_str(json_string_value(j));
		} else {
			char *r = render_value(j);

			path_error(errs, FE_INVALID, path, r,
				   "must be an integer or percentage");
			free(r);
		}
		break;
	}
	case FT_STRMAP: {
		const char *k;
		json_t *v;

		if (!json_is_object(j)) {
			type_error(errs, path, j, "object");
			break;
		}
		json_object_foreach(j, k, v)
		{
			struct jpath sub = {path, JP_KEY, k, 0};

			if (json_is_string(v))
				strmap_set(p, k, json_string_value(v));
			else
				type_error(errs, &sub, v, "string");
		}
		break;
	}
	case FT_STRLIST: {
		json_t *v;

		if (!json_is_array(j)) {
			type_error(errs, path, j, "array");
			break;
		}
		json_array_foreach(j, i, v)
		{
			struct jpath sub = {path, JP_INDEX, NULL, i};

			if (json_is_string(v))
				strlist_push(p, json_string_value(v));
			else
				type_error(errs, &sub, v, "string");
		}
		break;
	}
	case FT_INTLIST: {
		json_t *v;

		if (!json_is_array(j)) {
			type_error(errs, path, j, "array");
			break;
		}
		json_array_foreach(j, i, v)
		{
			struct jpath sub = {path, JP_INDEX, NULL, i};
			int64_t x;

			if (decode_int(v, &sub, errs, &x) == 0)
				intlist_push(p, x);
		}
		break;
	}
	case FT_STRUCT:
		decode_struct(f->sub, j, p, path, errs);
		break;
	case FT_PTR:
		if (!json_is_object(j)) {
			type_error(errs, path, j, "object");
			break;
		}
		*(void **)p = xcalloc(1, f->sub->size);
		decode_struct(f->sub, j, *(void **)p, path, errs);
		break;
	case FT_LIST: {
		json_t *v;

		if (!json_is_array(j)) {
			type_error(errs, path, j, "array");
			break;
		}
		json_array_foreach(j, i, v)
		{
			void *el = anylist_push(p, f->sub->size);
			struct jpath sub = {path, JP_INDEX, NULL, i};

			decode_struct(f->sub, v, el, &sub, errs);
		}
		break;
	}
	}
}

static json_t *
encode_value(const struct field *f, const void *p)
{
	size_t i;
	char tb[32];

	switch (f->type) {
	case FT_STR: {
		const char *s = *(char *const *)p;

		if (s == NULL || ((f->flags & FF_OMITEMPTY) && *s == '\0'))
			return NULL;
		return json_string(s);
	}
	case FT_RAW: {
		const char *s = *(char *const *)p;

		return s ? json_loads(s, JSON_DECODE_ANY, NULL) : NULL;
	}
	case FT_INT: {
		int64_t v = *(const int64_t *)p;

		if (v == 0 && (f->flags & FF_OMITEMPTY))
			return NULL;
		return json_integer(v);
	}
	case FT_OPTINT: {
		const struct opt_int *o = p;

		return o->set ? json_integer(o->v) : NULL;
	}
	case FT_BOOL: {
		bool v = *(const bool *)p;

		if (!v && (f->flags & FF_OMITEMPTY))
			return NULL;
		return json_boolean(v);
	}
	case FT_OPTBOOL: {
		const struct opt_bool *o = p;

		return o->set ? json_boolean(o->v) : NULL;
	}
	case FT_TIME: {
		dtime t = *(const dtime *)p;

		if (t == DTIME_UNSET)
			return (f->flags & FF_NULLTIME) ? json_null() : NULL;
		if (f->flags & FF_MICROTIME)
			dtime_format_micro(t, tb);
		else
			dtime_format(t, tb);
		return json_string(tb);
	}
	case FT_INTSTR: {
		const struct intstr *v = p;

		if (v->type == INTSTR_INT)
			return json_integer(v->ival);
		if (v->type == INTSTR_STRING)
			return json_string(v->sval);
		return NULL;
	}
	case FT_STRMAP: {
		const struct strmap *m = p;
		json_t *o;

		if (m->n == 0 && (f->flags & FF_OMITEMPTY))
			return NULL;
		o = json_object();
		for (i = 0; i < m->n; i++)
			json_object_set_new(o, m->v[i].key,
					    json_string(m->v[i].value));
		return o;
	}
	case FT_STRLIST: {
		const struct strlist *l = p;
		json_t *a;

		if (l->n == 0 && (f->flags & FF_OMITEMPTY))
			return NULL;
		a = json_array();
		for (i = 0; i < l->n; i++)
			json_array_append_new(a, json_string(l->v[i]));
		return a;
	}
	case FT_INTLIST: {
		const struct intlist *l = p;
		json_t *a;

		if (l->n == 0 && (f->flags & FF_OMITEMPTY))
			return NULL;
		a = json_array();
		for (i = 0; i < l->n; i++)
			json_array_append_new(a, json_integer(l->v[i]));
		return a;
	}
	case FT_STRUCT:
		if ((f->flags & FF_OMITEMPTY) && schema_is_empty(f->sub, p))
			return NULL;
		return codec_encode(f->sub, p);
	case FT_PTR: {
		const void *s = *(void *const *)p;

		return s ? codec_encode(f->sub, s) : NULL;
	}
	case FT_LIST: {
		const struct anylist *l = p;
		json_t *a;

		if (l->n == 0 && (f->flags & FF_OMITEMPTY))
			return NULL;
		a = json_array();
		for (i = 0; i < l->n; i++)
			json_array_append_new(
			    a, codec_encode(f->sub, (const char *)l->v +
							i * f->sub->size));
		return a;
	}
	}
	return NULL;
}

json_t *
codec_encode(const struct schema *s, const void *obj)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];
		json_t *v = encode_value(f, CAT(obj, f));

		if (v)
			json_object_set_new(o, f->json, v);
	}
	return o;
}
