/* smp_go.c - what applying and computing a strategic merge patch share
 * (smp_int.h): Go's view of decoded JSON, mergepatch's errors, the
 * schema's patch metadata, and the order of merged lists, following
 * k8s.io/apimachinery pkg/util/strategicpatch/patch.go.
 *
 * JSON values are compared as Go compares the decoded interface{} values
 * (all numbers are float64: 80 and 80.0 are one value), and sorted by
 * Go's %v text of them ("443" before "80"), as patch.go sorts. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyed.h"
#include "smp_int.h"
#include "xalloc.h"

int
smp_fail(struct smp_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->failed && c->err && c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	c->failed = true;
	return -1;
}

/* An absent member and JSON null are both Go's nil. */
enum smp_kind
smp_kind(const json_t *v)
{
	if (v == NULL)
		return GK_NIL;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return GK_MAP;
	case JSON_ARRAY:
		return GK_SLICE;
	case JSON_STRING:
		return GK_STRING;
	case JSON_INTEGER:
	case JSON_REAL:
		return GK_NUMBER;
	case JSON_TRUE:
	case JSON_FALSE:
		return GK_BOOL;
	default:
		return GK_NIL;
	}
}

/* reflect.TypeOf(v) as fmt prints it, for mergepatch.ErrBadArgType. */
static const char *
go_type(const json_t *v)
{
	static const char *const names[] = {
	    "<nil>",          "map[string]interface {}",
	    "[]interface {}", "string",
	    "float64",        "bool"};

	return names[smp_kind(v)];
}

/* A float64 as %v prints it: strconv's shortest 'g', which switches to
 * an exponent from 1e+06 on (1000000 -> "1e+06", 65535 -> "65535"). */
static void
go_number(struct strbuf *sb, double d)
{
	char buf[64];
	int prec, exp;

	for (prec = 0; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	exp = atoi(strchr(buf, 'e') + 1);
	if (exp < -4 || exp >= 6) {
		char *e = strchr(buf, 'e'), *z = e;

		/* Go drops trailing zeros of the mantissa ("1e+06"). */
		while (z > buf && z[-1] == '0')
			z--;
		if (z > buf && z[-1] == '.')
			z--;
		strbuf_add(sb, buf, (size_t)(z - buf));
		strbuf_addstr(sb, e);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", prec - exp > 0 ? prec - exp : 0, d);
	strbuf_addstr(sb, buf);
}

/* Go's %v of a decoded JSON value (maps with sorted keys, strings bare),
 * for mergepatch's messages and for the sort keys of diffLists. */
void
smp_go_value(struct strbuf *sb, const json_t *v)
{
	size_t i, n;
	json_t *e;

	switch (smp_kind(v)) {
	case GK_MAP: {
		const char **keys, *k;

		n = json_object_size(v);
		keys = xcalloc(n ? n : 1, sizeof(*keys));
		i = 0;
		json_object_foreach((json_t *)v, k, e) keys[i++] = k;
		for (i = 1; i < n; i++) { /* insertion sort: maps are small */
			const char *x = keys[i];
			size_t j = i;

			for (; j > 0 && strcmp(keys[j - 1], x) > 0; j--)
				keys[j] = keys[j - 1];
			keys[j] = x;
		}
		strbuf_addstr(sb, "map[");
		for (i = 0; i < n; i++) {
			strbuf_addf(sb, "%s%s:", i ? " " : "", keys[i]);
			smp_go_value(sb, json_object_get(v, keys[i]));
		}
		strbuf_addch(sb, ']');
		free(keys);
		break;
	}
	case GK_SLICE:
		strbuf_addch(sb, '[');
		json_array_foreach((json_t *)v, i, e)
		{
			if (i)
				strbuf_addch(sb, ' ');
			smp_go_value(sb, e);
		}
		strbuf_addch(sb, ']');
		break;
	case GK_STRING:
		strbuf_addstr(sb, json_string_value(v));
		break;
	case GK_NUMBER:
		if (json_is_integer(v) && json_integer_value(v) < 1000000 &&
		    json_integer_value(v) > -1000000)
			strbuf_addf(sb, "%lld",
				    (long long)json_integer_value(v));
		else
			go_number(sb, json_number_value(v));
		break;
	case GK_BOOL:
		strbuf_addstr(sb, json_is_true(v) ? "true" : "false");
		break;
	default:
		strbuf_addstr(sb, "<nil>");
	}
}

/* smp_go_value into a new string the caller frees. */
char *
smp_go_text(const json_t *v)
{
	struct strbuf sb = STRBUF_INIT;

	smp_go_value(&sb, v);
	return strbuf_detach(&sb);
}

/* reflect.DeepEqual of two decoded values. */
bool
smp_deep_eq(const json_t *a, const json_t *b)
{
	enum smp_kind k = smp_kind(a);
	const char *key;
	json_t *v;
	size_t i;

	if (k != smp_kind(b))
		return false;
	if (k == GK_MAP) {
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach((json_t *)a, key, v)
		{
			json_t *w = json_object_get(b, key);

			if (w == NULL || !smp_deep_eq(v, w))
				return false;
		}
		return true;
	}
	if (k == GK_SLICE) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		json_array_foreach((json_t *)a, i, v)
		{
			if (!smp_deep_eq(v, json_array_get(b, i)))
				return false;
		}
		return true;
	}
	return smp_go_eq(a, b);
}

bool
smp_go_eq(const json_t *a, const json_t *b)
{
	enum smp_kind k = smp_kind(a);

	if (k != smp_kind(b))
		return false;
	switch (k) {
	case GK_NIL:
		return true;
	case GK_STRING:
		return !strcmp(json_string_value(a), json_string_value(b));
	case GK_NUMBER:
		return json_number_value(a) == json_number_value(b);
	case GK_BOOL:
		return json_typeof(a) == json_typeof(b);
	default:
		return smp_deep_eq(a, b);
	}
}

bool
smp_has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int
smp_no_merge_key(const json_t *m, const char *key, struct smp_ctx *c)
{
	char *t = smp_go_text(m);

	smp_fail(c, "map: %s does not contain declared merge key: %s", t, key);
	free(t);
	return -1;
}

int
smp_bad_arg_type(const char *expected, const json_t *actual, struct smp_ctx *c)
{
	return smp_fail(c, "expected a %s, but received a %s", expected,
			go_type(actual));
}

struct smp_meta
smp_meta_of(const struct schema *s, const char *k)
{
	const struct field *f = keyed_field(s, k);
	struct smp_meta m = {NULL, NULL, 0};

	if (f == NULL)
		return m;
	m.ps = keyed_strategy(f);
	m.key = f->merge_key;
	if (f->type == FT_STRUCT || f->type == FT_PTR || f->type == FT_LIST)
		m.sub = f->sub;
	return m;
}

/* sliceElementType: every element of a and b (either may be NULL) is of
 * one kind, not a list. */
int
smp_elem_kind(const json_t *a, const json_t *b, enum smp_kind *kind,
	      struct smp_ctx *c)
{
	const json_t *lists[2] = {a, b};
	bool any = false;
	size_t i, l;
	json_t *v;

	for (l = 0; l < 2; l++) {
		json_array_foreach((json_t *)lists[l], i, v)
		{
			enum smp_kind k = smp_kind(v);

			if (!any && k == GK_SLICE)
				return smp_fail(c, "%s", SMP_ERR_LIST_OF_LISTS);
			if (!any) {
				*kind = k;
				any = true;
			} else if (k != *kind) {
				char *ta = smp_go_text(a), *tb = smp_go_text(b);

				smp_fail(
				    c,
				    "list element types are not identical: "
				    "[%s %s]",
				    ta, tb);
				free(ta);
				free(tb);
				return -1;
			}
		}
	}
	if (!any)
		return smp_fail(c, "no elements in any of the given slices");
	return 0;
}

/* The merge key's value of a list element, for index(): nil for an
 * element that is not a map. */
const json_t *
smp_key_of(const json_t *v, const char *key)
{
	return key && json_is_object(v) ? json_object_get(v, key) : v;
}

/* index: the position of x in l, by merge key (maps) or by value. */
long
smp_index_of(const json_t *l, const json_t *x, const char *key)
{
	const json_t *want = smp_key_of(x, key);
	size_t i;
	json_t *v;

	json_array_foreach((json_t *)l, i, v)
	{
		if (smp_go_eq(want, smp_key_of(v, key)))
			return (long)i;
	}
	return -1;
}

/* findMapInSliceBasedOnKeyValue: the position of the map whose key is
 * value, -1 if none, -2 (with an error) if an element is not a map. */
long
smp_find_by_key(const json_t *l, const char *key, const json_t *value,
		struct smp_ctx *c)
{
	size_t i;
	json_t *v;

	json_array_foreach((json_t *)l, i, v)
	{
		json_t *k;

		if (!json_is_object(v)) {
			smp_fail(c, "value for key %zu is not a map.", i);
			return -2;
		}
		k = json_object_get(v, key);
		if (k && smp_go_eq(k, value))
			return (long)i;
	}
	return -1;
}

bool
smp_is_delete(const json_t *v)
{
	const char *d = json_string_value(json_object_get(v, SMP_DIRECTIVE));

	return d && !strcmp(d, "delete");
}

/* normalizeSliceOrder: list sorted by the positions of its elements in
 * order (Go's insertion sort with patch.go's comparator: an element
 * missing from order sorts first); for maps, every element must have
 * the merge key and {"$patch": "delete"} elements go last. */
json_t *
smp_sort_by_order(const json_t *list, const json_t *order, const char *key,
		  struct smp_ctx *c)
{
	json_t *keep = json_array(), *dels = json_array(), *v;
	json_t **a;
	size_t i, j, n;

	if (key) {
		const json_t *both[2] = {list, order};

		for (j = 0; j < 2; j++)
			json_array_foreach((json_t *)both[j], i, v)
			{
				if (!json_is_object(v)) {
					smp_bad_arg_type(
					    "map[string]interface {}", v, c);
					goto fail;
				}
				if (!json_object_get(v, key)) {
					smp_no_merge_key(v, key, c);
					goto fail;
				}
			}
	}
	json_array_foreach((json_t *)list, i, v)
	    json_array_append(key && smp_is_delete(v) ? dels : keep, v);
	n = json_array_size(keep);
	a = xcalloc(n ? n : 1, sizeof(*a));
	for (i = 0; i < n; i++)
		a[i] = json_array_get(keep, i);
	for (i = 1; i < n; i++) {
		for (j = i; j > 0; j--) {
			long x = smp_index_of(order, a[j], key),
			     y = smp_index_of(order, a[j - 1], key);
			json_t *t;

			if (x >= 0 && y >= 0 && x >= y)
				break;
			t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	}
	json_array_clear(keep);
	for (i = 0; i < n; i++)
		json_array_append(keep, a[i]);
	free(a);
	json_array_extend(keep, dels);
	json_decref(dels);
	return keep;
fail:
	json_decref(keep);
	json_decref(dels);
	return NULL;
}

/* mergeSortedSlice: left (server-only items) and right (patch items),
 * each in its order, interleaved by the live order: an item of left
 * comes first only when both are in server and it is earlier there.
 * Example, server [a, b], left [b], right [a, c] -> [a, c, b]. */
static json_t *
merge_sorted(const json_t *left, const json_t *right, const json_t *server,
	     const char *key)
{
	size_t i = 0, j = 0, nl = json_array_size(left),
	       nr = json_array_size(right);
	json_t *out = json_array();

	while (i < nl || j < nr) {
		json_t *l = json_array_get(left, i),
		       *r = json_array_get(right, j);

		if (i >= nl) {
			json_array_append(out, r);
			j++;
		} else if (j >= nr) {
			json_array_append(out, l);
			i++;
		} else {
			long li = smp_index_of(server, l, key),
			     ri = smp_index_of(server, r, key);

			if (li >= 0 && ri >= 0 && li < ri) {
				json_array_append(out, l);
				i++;
			} else {
				json_array_append(out, r);
				j++;
			}
		}
	}
	return out;
}

/* The merged list in its final order (the end of mergeSlice, and of
 * mergePatchIntoOriginal): its items named by `by` (the patch, or
 * $setElementOrder) in by's order, the others in server's order, the two
 * interleaved by normalizeElementOrder. key NULL: a list of scalars. */
json_t *
smp_order_merged(const json_t *merged, const json_t *by, const json_t *server,
		 const char *key, struct smp_ctx *c)
{
	json_t *in = json_array(), *only = json_array(), *v, *a = NULL,
	       *b = NULL, *out = NULL;
	size_t i;

	json_array_foreach((json_t *)merged, i, v)
	{
		bool found;

		if (key) { /* partitionMapsByPresentInList */
			json_t *id = json_object_get(v, key);
			long at;

			if (!json_is_object(v)) {
				smp_bad_arg_type("map[string]interface {}", v,
						 c);
				goto out;
			}
			if (id == NULL) {
				smp_no_merge_key(v, key, c);
				goto out;
			}
			if ((at = smp_find_by_key(by, key, id, c)) == -2)
				goto out;
			found = at >= 0;
		} else { /* partitionPrimitivesByPresentInList */
			found = smp_index_of(by, v, NULL) >= 0;
		}
		json_array_append(found ? in : only, v);
	}
	if ((a = smp_sort_by_order(in, by, key, c)) &&
	    (b = smp_sort_by_order(only, server, key, c)))
		out = merge_sorted(b, a, server, key);
out:
	json_decref(in);
	json_decref(only);
	json_decref(a);
	json_decref(b);
	return out;
}

/* mergeKeyValueEqual: 1 if two elements have the same merge key value
 * (the same value, for scalars: key NULL), 0 if not, -1 on error. */
int
smp_key_value_equal(const json_t *l, const json_t *r, const char *key,
		    struct smp_ctx *c)
{
	const json_t *a, *b;

	if (key == NULL)
		return smp_go_eq(l, r);
	if (!json_is_object(l))
		return smp_bad_arg_type("map[string]interface {}", l, c);
	if (!json_is_object(r))
		return smp_bad_arg_type("map[string]interface {}", r, c);
	if ((a = json_object_get(l, key)) == NULL)
		return smp_no_merge_key(l, key, c);
	if ((b = json_object_get(r, key)) == NULL)
		return smp_no_merge_key(r, key, c);
	return smp_go_eq(a, b);
}
