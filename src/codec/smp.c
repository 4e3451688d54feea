/* smp.c - the strategic merge patch (see smp.h): applying one (mergeMap)
 * and computing one (diffMaps), following k8s.io/apimachinery's
 * pkg/util/strategicpatch/patch.go function by function; each function
 * here names the Go function it follows, so the two read side by side.
 * The patch strategies come from the schema tables (struct field.patch,
 * .merge_key), where Go reads patchStrategy/patchMergeKey struct tags.
 *
 * Worked example, the body `kubectl set image deploy/web web=v2` sends
 * for a Deployment whose template has containers [web, side]:
 *   {"spec":{"template":{"spec":{
 *     "$setElementOrder/containers":[{"name":"web"},{"name":"side"}],
 *     "containers":[{"image":"v2","name":"web"}]}}}}
 * containers has strategy merge and key "name": the element named "web"
 * takes image v2 and keeps its ports, env and probes; "side" is kept;
 * the merged list is put in the order of $setElementOrder.
 *
 * JSON values are compared as Go compares the decoded interface{} values
 * (all numbers are float64: 80 and 80.0 are one value), and sorted by
 * Go's %v text of them ("443" before "80"), as patch.go sorts. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyed.h"
#include "smp.h"
#include "strbuf.h"
#include "xalloc.h"

#define DIRECTIVE        "$patch"
#define RETAIN_KEYS      "$retainKeys"
#define DELETE_PRIMITIVE "$deleteFromPrimitiveList"
#define SET_ORDER        "$setElementOrder"

/* mergepatch's error texts (k8s.io/apimachinery/pkg/util/mergepatch). */
static const char err_retain[] = "invalid patch format of retainKeys";
static const char err_primitive[] = "invalid patch format of primitive list";
static const char err_set_order[] =
    "invalid patch format of setElementOrder list";
static const char err_list_of_lists[] = "lists of lists are not supported";

/* The first error of one call, into the caller's buffer. */
struct ctx {
	char *err;
	size_t errlen;
	bool failed;
};

static int fail(struct ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct ctx *c, const char *fmt, ...)
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

/* ---- Go's view of a decoded JSON value ---- */

enum gkind { G_NIL, G_MAP, G_SLICE, G_STRING, G_NUMBER, G_BOOL };

/* An absent member and JSON null are both Go's nil. */
static enum gkind
gkind(const json_t *v)
{
	if (v == NULL)
		return G_NIL;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return G_MAP;
	case JSON_ARRAY:
		return G_SLICE;
	case JSON_STRING:
		return G_STRING;
	case JSON_INTEGER:
	case JSON_REAL:
		return G_NUMBER;
	case JSON_TRUE:
	case JSON_FALSE:
		return G_BOOL;
	default:
		return G_NIL;
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

	return names[gkind(v)];
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
static void
go_value(struct strbuf *sb, const json_t *v)
{
	size_t i, n;
	json_t *e;

	switch (gkind(v)) {
	case G_MAP: {
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
			go_value(sb, json_object_get(v, keys[i]));
		}
		strbuf_addch(sb, ']');
		free(keys);
		break;
	}
	case G_SLICE:
		strbuf_addch(sb, '[');
		json_array_foreach((json_t *)v, i, e)
		{
			if (i)
				strbuf_addch(sb, ' ');
			go_value(sb, e);
		}
		strbuf_addch(sb, ']');
		break;
	case G_STRING:
		strbuf_addstr(sb, json_string_value(v));
		break;
	case G_NUMBER:
		if (json_is_integer(v) && json_integer_value(v) < 1000000 &&
		    json_integer_value(v) > -1000000)
			strbuf_addf(sb, "%lld",
				    (long long)json_integer_value(v));
		else
			go_number(sb, json_number_value(v));
		break;
	case G_BOOL:
		strbuf_addstr(sb, json_is_true(v) ? "true" : "false");
		break;
	default:
		strbuf_addstr(sb, "<nil>");
	}
}

/* go_value into a new string the caller frees. */
static char *
go_text(const json_t *v)
{
	struct strbuf sb = STRBUF_INIT;

	go_value(&sb, v);
	return strbuf_detach(&sb);
}

/* Go's == on two decoded scalars (absent and null are both nil). */
static bool go_eq(const json_t *a, const json_t *b);

/* reflect.DeepEqual of two decoded values. */
static bool
deep_eq(const json_t *a, const json_t *b)
{
	enum gkind k = gkind(a);
	const char *key;
	json_t *v;
	size_t i;

	if (k != gkind(b))
		return false;
	if (k == G_MAP) {
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach((json_t *)a, key, v)
		{
			json_t *w = json_object_get(b, key);

			if (w == NULL || !deep_eq(v, w))
				return false;
		}
		return true;
	}
	if (k == G_SLICE) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		json_array_foreach((json_t *)a, i, v)
		{
			if (!deep_eq(v, json_array_get(b, i)))
				return false;
		}
		return true;
	}
	return go_eq(a, b);
}

static bool
go_eq(const json_t *a, const json_t *b)
{
	enum gkind k = gkind(a);

	if (k != gkind(b))
		return false;
	switch (k) {
	case G_NIL:
		return true;
	case G_STRING:
		return !strcmp(json_string_value(a), json_string_value(b));
	case G_NUMBER:
		return json_number_value(a) == json_number_value(b);
	case G_BOOL:
		return json_typeof(a) == json_typeof(b);
	default:
		return deep_eq(a, b);
	}
}

static bool
has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* extractKey: "$setElementOrder/containers" -> "containers"; NULL if k
 * is not the prefix, a slash and a name. */
static const char *
extract_key(const char *k, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(k, prefix, n) || k[n] != '/' ? NULL : k + n + 1;
}

static int
no_merge_key(const json_t *m, const char *key, struct ctx *c)
{
	char *t = go_text(m);

	fail(c, "map: %s does not contain declared merge key: %s", t, key);
	free(t);
	return -1;
}

static int
bad_arg_type(const char *expected, const json_t *actual, struct ctx *c)
{
	return fail(c, "expected a %s, but received a %s", expected,
		    go_type(actual));
}

static int
bad_patch_type(const json_t *d, const json_t *m, struct ctx *c)
{
	char *t = go_text(d), *mt = go_text(m);

	fail(c, "unknown patch type: %s in map: %s", t, mt);
	free(t);
	free(mt);
	return -1;
}

/* What the schema says of member k of s: the sub-schema of a struct or
 * of a list's elements, the merge key, the strategy. Unknown members
 * (and members of maps drover keeps raw) have none: maps merge, lists
 * are replaced. */
struct meta {
	const struct schema *sub;
	const char *key;
	unsigned ps;
};

static struct meta
meta_of(const struct schema *s, const char *k)
{
	const struct field *f = keyed_field(s, k);
	struct meta m = {NULL, NULL, 0};

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
static int
elem_kind(const json_t *a, const json_t *b, enum gkind *kind, struct ctx *c)
{
	const json_t *lists[2] = {a, b};
	bool any = false;
	size_t i, l;
	json_t *v;

	for (l = 0; l < 2; l++) {
		json_array_foreach((json_t *)lists[l], i, v)
		{
			enum gkind k = gkind(v);

			if (!any && k == G_SLICE)
				return fail(c, "%s", err_list_of_lists);
			if (!any) {
				*kind = k;
				any = true;
			} else if (k != *kind) {
				char *ta = go_text(a), *tb = go_text(b);

				fail(c,
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
		return fail(c, "no elements in any of the given slices");
	return 0;
}

/* The merge key's value of a list element, for index(): nil for an
 * element that is not a map. */
static const json_t *
key_of(const json_t *v, const char *key)
{
	return key && json_is_object(v) ? json_object_get(v, key) : v;
}

/* index: the position of x in l, by merge key (maps) or by value. */
static long
index_of(const json_t *l, const json_t *x, const char *key)
{
	const json_t *want = key_of(x, key);
	size_t i;
	json_t *v;

	json_array_foreach((json_t *)l, i, v)
	{
		if (go_eq(want, key_of(v, key)))
			return (long)i;
	}
	return -1;
}

/* findMapInSliceBasedOnKeyValue: the position of the map whose key is
 * value, -1 if none, -2 (with an error) if an element is not a map. */
static long
find_by_key(const json_t *l, const char *key, const json_t *value,
	    struct ctx *c)
{
	size_t i;
	json_t *v;

	json_array_foreach((json_t *)l, i, v)
	{
		json_t *k;

		if (!json_is_object(v)) {
			fail(c, "value for key %zu is not a map.", i);
			return -2;
		}
		k = json_object_get(v, key);
		if (k && go_eq(k, value))
			return (long)i;
	}
	return -1;
}

static bool
is_delete(const json_t *v)
{
	const char *d = json_string_value(json_object_get(v, DIRECTIVE));

	return d && !strcmp(d, "delete");
}

/* normalizeSliceOrder: list sorted by the positions of its elements in
 * order (Go's insertion sort with patch.go's comparator: an element
 * missing from order sorts first); for maps, every element must have
 * the merge key and {"$patch": "delete"} elements go last. */
static json_t *
sort_by_order(const json_t *list, const json_t *order, const char *key,
	      struct ctx *c)
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
					bad_arg_type("map[string]interface {}",
						     v, c);
					goto fail;
				}
				if (!json_object_get(v, key)) {
					no_merge_key(v, key, c);
					goto fail;
				}
			}
	}
	json_array_foreach((json_t *)list, i, v)
	    json_array_append(key && is_delete(v) ? dels : keep, v);
	n = json_array_size(keep);
	a = xcalloc(n ? n : 1, sizeof(*a));
	for (i = 0; i < n; i++)
		a[i] = json_array_get(keep, i);
	for (i = 1; i < n; i++) {
		for (j = i; j > 0; j--) {
			long x = index_of(order, a[j], key),
			     y = index_of(order, a[j - 1], key);
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
			long li = index_of(server, l, key),
			     ri = index_of(server, r, key);

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
static json_t *
order_merged(const json_t *merged, const json_t *by, const json_t *server,
	     const char *key, struct ctx *c)
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
				bad_arg_type("map[string]interface {}", v, c);
				goto out;
			}
			if (id == NULL) {
				no_merge_key(v, key, c);
				goto out;
			}
			if ((at = find_by_key(by, key, id, c)) == -2)
				goto out;
			found = at >= 0;
		} else { /* partitionPrimitivesByPresentInList */
			found = index_of(by, v, NULL) >= 0;
		}
		json_array_append(found ? in : only, v);
	}
	if ((a = sort_by_order(in, by, key, c)) &&
	    (b = sort_by_order(only, server, key, c)))
		out = merge_sorted(b, a, server, key);
out:
	json_decref(in);
	json_decref(only);
	json_decref(a);
	json_decref(b);
	return out;
}

/* ---- applying a patch (mergeMap) ---- */

struct mopts {
	bool parallel;     /* MergeParallelList: the server applies the
			    * directives; false when combining two patches */
	bool ignore_nulls; /* IgnoreUnmatchedNulls */
};

static json_t *merge_map(json_t *orig, json_t *patch, const struct schema *s,
			 const struct mopts *o, struct ctx *c);

static json_t *merge_slice(json_t *orig, json_t *patch, const struct meta *m,
			   const struct mopts *o, bool del, struct ctx *c);

/* The patch's value for a member the original lacks. Kubernetes stores
 * it as it is; on the server drover applies its directives against
 * nothing, so that no "$patch" or "$setElementOrder" reaches the stored
 * object (where the decoder would refuse it as an unknown field). */
static json_t *
take(json_t *v, const struct meta *m, const struct mopts *o, struct ctx *c)
{
	json_t *empty, *r;

	if (!o->parallel)
		return json_deep_copy(v);
	if (json_is_object(v))
		return merge_map(NULL, v, m->sub, o, c);
	if (json_is_array(v) && (m->ps & PS_MERGE)) {
		empty = json_array();
		r = merge_slice(empty, v, m, o, false, c);
		json_decref(empty);
		return r;
	}
	return json_deep_copy(v);
}

/* handleDirectiveInMergeMap: {"$patch": "replace", ...} is the map as
 * given; {"$patch": "delete"} is an empty map. */
static json_t *
map_directive(json_t *d, json_t *patch, const struct schema *s,
	      const struct mopts *o, struct ctx *c)
{
	const char *name = json_string_value(d);

	if (name && !strcmp(name, "replace")) {
		json_t *r = json_deep_copy(patch), *clean;

		json_object_del(r, DIRECTIVE);
		if (!o->parallel)
			return r;
		clean = merge_map(NULL, r, s, o, c);
		json_decref(r);
		return clean;
	}
	if (name && !strcmp(name, "delete"))
		return json_object();
	bad_patch_type(d, patch, c);
	return NULL;
}

/* applyRetainKeysDirective: {"$retainKeys": ["type"], "type":
 * "Recreate"} on {"type": "RollingUpdate", "rollingUpdate": {...}}
 * clears rollingUpdate: out keeps only the listed keys, and every key
 * the patch sets must be listed. */
static int
retain_keys(json_t *out, json_t *p, const struct mopts *o, struct ctx *c)
{
	json_t *rk = json_object_get(p, RETAIN_KEYS), *v, *e;
	const char *k;
	void *tmp;
	size_t i;
	int rc = 0;

	if (rk == NULL)
		return 0;
	json_incref(rk);
	json_object_del(p, RETAIN_KEYS);
	if (!o->parallel) { /* combining patches: carry it over */
		json_t *have = json_object_get(out, RETAIN_KEYS);

		if (have && !deep_eq(have, rk)) {
			char *a = go_text(have), *b = go_text(rk);

			rc = fail(c,
				  "%s and %s are not deep equal: this may "
				  "happen when calculating the 3-way diff "
				  "patch",
				  a, b);
			free(a);
			free(b);
		} else if (have == NULL) {
			json_object_set(out, RETAIN_KEYS, rk);
		}
		goto done;
	}
	if (!json_is_array(rk)) {
		rc = fail(c, "%s", err_retain);
		goto done;
	}
	json_object_foreach(p, k, v)
	{
		bool listed = false;

		if (json_is_null(v) || has_prefix(k, DELETE_PRIMITIVE) ||
		    has_prefix(k, SET_ORDER))
			continue;
		json_array_foreach(rk, i, e) if (json_is_string(e) &&
						 !strcmp(json_string_value(e),
							 k)) listed = true;
		if (!listed) {
			rc = fail(c, "%s", err_retain);
			goto done;
		}
	}
	json_object_foreach_safe(out, tmp, k, v)
	{
		bool listed = false;

		json_array_foreach(rk, i, e) if (json_is_string(e) &&
						 !strcmp(json_string_value(e),
							 k)) listed = true;
		if (!listed)
			json_object_del(out, k);
	}
done:
	json_decref(rk);
	return rc;
}

/* mergeKeyValueEqual: 1 if two elements have the same merge key value
 * (the same value, for scalars: key NULL), 0 if not, -1 on error. */
static int
key_value_equal(const json_t *l, const json_t *r, const char *key,
		struct ctx *c)
{
	const json_t *a, *b;

	if (key == NULL)
		return go_eq(l, r);
	if (!json_is_object(l))
		return bad_arg_type("map[string]interface {}", l, c);
	if (!json_is_object(r))
		return bad_arg_type("map[string]interface {}", r, c);
	if ((a = json_object_get(l, key)) == NULL)
		return no_merge_key(l, key, c);
	if ((b = json_object_get(r, key)) == NULL)
		return no_merge_key(r, key, c);
	return go_eq(a, b);
}

/* validatePatchWithSetOrderList: the patch's items (deletions aside)
 * appear in $setElementOrder, in the same relative order. */
static int
validate_set_order(const json_t *pl, const json_t *order, const char *key,
		   struct ctx *c)
{
	json_t *nd = json_array(), *v;
	size_t i, pi = 0, si = 0;
	int rc = 0, eq;

	if (json_array_size(order) == 0 || json_array_size(pl) == 0)
		goto out;
	json_array_foreach((json_t *)pl, i, v)
	{
		if (key && !json_is_object(v)) {
			rc = bad_arg_type("map[string]interface {}", v, c);
			goto out;
		}
		if (!key || !is_delete(v))
			json_array_append(nd, v);
	}
	while (pi < json_array_size(nd) && si < json_array_size(order)) {
		json_t *x = json_array_get(nd, pi);

		if (json_is_object(x) && json_object_get(x, DIRECTIVE)) {
			pi++;
			continue;
		}
		eq = key_value_equal(x, json_array_get(order, si), key, c);
		if (eq < 0) {
			rc = -1;
			goto out;
		}
		if (eq)
			pi++;
		si++;
	}
	if (pi < json_array_size(nd) && si >= json_array_size(order)) {
		char *a = go_text(pl), *b = go_text(order);

		rc = fail(c,
			  "The order in patch list:\n%s\n doesn't match %s "
			  "list:\n%s\n",
			  a, SET_ORDER, b);
		free(a);
		free(b);
	}
out:
	json_decref(nd);
	return rc;
}

/* mergePatchIntoOriginal for one "$setElementOrder/<list>" directive
 * (sv, already removed from p): merges p's <list> into out's and orders
 * the result by sv, then the live order. Example, live containers [a,
 * b], patch {"$setElementOrder/containers": [{"name": "b"}, {"name":
 * "a"}], "containers": [{"name": "a", "image": "x"}]} -> [b, a] with a's
 * image x. */
static int
set_order_one(json_t *out, json_t *p, const char *k, json_t *sv,
	      const struct schema *s, const struct mopts *o, struct ctx *c)
{
	const char *okey;
	json_t *ol, *pl, *merged, *both, *empty;
	struct meta m;
	enum gkind kind;
	const char *key;

	if (!o->parallel) { /* combining patches: carry it over */
		json_t *have = json_object_get(out, k);

		if (have && !deep_eq(have, sv))
			return fail(c, "%s", err_set_order);
		if (have == NULL)
			json_object_set_new(out, k, json_deep_copy(sv));
	}
	if (!json_is_array(sv))
		return bad_arg_type("[]interface {}", sv, c);
	if ((okey = extract_key(k, SET_ORDER)) == NULL)
		return fail(c, "%s", err_set_order);
	ol = json_object_get(out, okey);
	pl = json_object_get(p, okey);
	if (ol && !json_is_array(ol))
		return bad_arg_type("[]interface {}", ol, c);
	if (pl && !json_is_array(pl))
		return bad_arg_type("[]interface {}", pl, c);
	m = meta_of(s, okey);
	if (validate_set_order(pl, sv, m.key, c))
		return -1;
	if (ol && pl)
		merged = (m.ps & PS_MERGE)
			     ? merge_slice(ol, pl, &m, o, false, c)
			     : json_deep_copy(pl);
	else if (pl)
		merged = take(pl, &m, o, c);
	else if (ol)
		merged = json_deep_copy(ol);
	else
		return 0;
	if (merged == NULL)
		return -1;
	if (json_array_size(merged) == 0) {
		both = json_incref(merged);
	} else {
		if (elem_kind(ol, pl, &kind, c)) {
			json_decref(merged);
			return -1;
		}
		key = kind == G_MAP ? m.key : NULL;
		if (kind == G_MAP && key == NULL) {
			json_decref(merged);
			return fail(c, "%s", err_set_order);
		}
		empty = json_array();
		both = order_merged(merged, sv, ol ? ol : empty, key, c);
		json_decref(empty);
	}
	json_decref(merged);
	if (both == NULL)
		return -1;
	json_object_set_new(out, okey, both);
	json_object_del(p, okey);
	return 0;
}

static int
set_element_orders(json_t *out, json_t *p, const struct schema *s,
		   const struct mopts *o, struct ctx *c)
{
	json_t *keys = json_array(), *v;
	const char *k;
	size_t i;
	int rc = 0;

	json_object_foreach(p, k, v) if (has_prefix(k, SET_ORDER))
	    json_array_append_new(keys, json_string(k));
	json_array_foreach(keys, i, v)
	{
		const char *name = json_string_value(v);
		json_t *sv = json_incref(json_object_get(p, name));

		json_object_del(p, name);
		rc = set_order_one(out, p, name, sv, s, o, c);
		json_decref(sv);
		if (rc)
			break;
	}
	json_decref(keys);
	return rc;
}

/* deleteFromSlice: cur without the values of del. */
static json_t *
delete_from_slice(const json_t *cur, const json_t *del)
{
	json_t *out = json_array(), *v;
	size_t i;

	json_array_foreach((json_t *)cur, i, v)
	{
		if (index_of(del, v, NULL) < 0)
			json_array_append(out, v);
	}
	return out;
}

/* mergeSliceWithSpecialElements: {"$patch": "delete"} elements remove
 * their namesakes from orig; a {"$patch": "replace"} element makes the
 * other elements the whole list. *o2 and *p2 get the list to merge into
 * and the patch without its directive elements. */
static int
special_elements(json_t *orig, json_t *patch, const char *key, json_t **o2,
		 json_t **p2, struct ctx *c)
{
	json_t *out = json_is_array(orig) ? json_deep_copy(orig) : json_array(),
	       *rest = json_array(), *v;
	bool replace = false;
	size_t i;

	json_array_foreach(patch, i, v)
	{
		json_t *d = json_object_get(v, DIRECTIVE);
		const char *name = json_string_value(d);

		if (d == NULL) {
			json_array_append(rest, v);
		} else if (name && !strcmp(name, "delete")) {
			json_t *id = json_object_get(v, key);
			long at;

			if (id == NULL) {
				no_merge_key(v, key, c);
				goto fail;
			}
			while ((at = find_by_key(out, key, id, c)) >= 0)
				json_array_remove(out, (size_t)at);
			if (at == -2)
				goto fail;
		} else if (name && !strcmp(name, "replace")) {
			replace = true;
		} else if (name && !strcmp(name, "merge")) {
			fail(c, "merging lists cannot yet be specified in the "
				"patch");
			goto fail;
		} else {
			bad_patch_type(d, v, c);
			goto fail;
		}
	}
	if (replace) {
		json_decref(out);
		*o2 = rest;
		*p2 = json_array();
	} else {
		*o2 = out;
		*p2 = rest;
	}
	return 0;
fail:
	json_decref(out);
	json_decref(rest);
	return -1;
}

/* mergeSliceWithoutSpecialElements: each patch element merges into the
 * element of orig with its key, or is appended. */
static json_t *
merge_keyed(json_t *orig, json_t *patch, const struct meta *m,
	    const struct mopts *o, struct ctx *c)
{
	json_t *out = json_deep_copy(orig), *v, *r;
	size_t i;

	json_array_foreach(patch, i, v)
	{
		json_t *id = json_object_get(v, m->key);
		long at;

		if (id == NULL) {
			no_merge_key(v, m->key, c);
			goto fail;
		}
		if ((at = find_by_key(out, m->key, id, c)) == -2)
			goto fail;
		if (at >= 0)
			r = merge_map(json_array_get(out, (size_t)at), v,
				      m->sub, o, c);
		else
			r = o->parallel ? merge_map(NULL, v, m->sub, o, c)
					: json_deep_copy(v);
		if (r == NULL)
			goto fail;
		if (at >= 0)
			json_array_set_new(out, (size_t)at, r);
		else
			json_array_append_new(out, r);
	}
	return out;
fail:
	json_decref(out);
	return NULL;
}

/* mergeSlice: a list with strategy merge. Lists of maps merge by key
 * (worked example: target [{"name":"a","image":"x"},{"name":"b"}],
 * patch [{"name":"a","image":"y"},{"name":"b","$patch":"delete"},
 * {"name":"c"}] -> [{"name":"a","image":"y"},{"name":"c"}]); lists of
 * scalars are a set union, or with del (a $deleteFromPrimitiveList
 * list) lose the patch's values: finalizers ["a","b"] with
 * {"$deleteFromPrimitiveList/finalizers": ["a"]} -> ["b"]. */
static json_t *
merge_slice(json_t *orig, json_t *patch, const struct meta *m,
	    const struct mopts *o, bool del, struct ctx *c)
{
	json_t *o2 = NULL, *p2 = NULL, *merged = NULL, *r = NULL, *v;
	enum gkind kind;
	size_t i;

	if (json_array_size(orig) == 0 && json_array_size(patch) == 0)
		return json_array();
	if (elem_kind(orig, patch, &kind, c))
		return NULL;
	if (kind != G_MAP) {
		if (o->parallel && del)
			return delete_from_slice(orig, patch);
		o2 = json_deep_copy(orig);
		p2 = json_deep_copy(patch);
		merged = json_array(); /* deduplicateScalars(orig + patch) */
		json_array_foreach(o2, i, v) if (index_of(merged, v, NULL) < 0)
		    json_array_append(merged, v);
		json_array_foreach(p2, i, v) if (index_of(merged, v, NULL) < 0)
		    json_array_append(merged, v);
		r = order_merged(merged, p2, o2, NULL, c);
		goto out;
	}
	if (m->key == NULL) {
		fail(c, "cannot merge lists without merge key for type struct");
		return NULL;
	}
	if (special_elements(orig, patch, m->key, &o2, &p2, c))
		return NULL;
	if ((merged = merge_keyed(o2, p2, m, o, c)) == NULL)
		goto out;
	r = order_merged(merged, p2, o2, m->key, c);
out:
	json_decref(o2);
	json_decref(p2);
	json_decref(merged);
	return r;
}

/* One member k of a patch merged into out (the loop body of mergeMap). */
static int
merge_member(json_t *out, const char *k, json_t *v, const struct schema *s,
	     const struct mopts *o, struct ctx *c)
{
	const char *key = k;
	bool del = false;
	struct meta m;
	json_t *cur, *r;

	if (has_prefix(k, DELETE_PRIMITIVE)) {
		if (!o->parallel) { /* combining patches: carry it over */
			json_object_set_new(out, k, json_deep_copy(v));
			return 0;
		}
		if ((key = extract_key(k, DELETE_PRIMITIVE)) == NULL ||
		    !json_is_array(v))
			return fail(c, "%s", err_primitive);
		del = true;
	}
	if (json_is_null(v)) {
		json_object_del(out, key);
		if (o->ignore_nulls)
			return 0;
	}
	m = meta_of(s, key);
	cur = json_object_get(out, key);
	if (del && (cur == NULL || !(m.ps & PS_MERGE))) {
		if (cur && !json_is_array(cur))
			return fail(c, "%s", err_primitive);
		if (cur) /* a list without strategy merge */
			return fail(c, "%s", err_primitive);
		return 0; /* nothing to delete from */
	}
	if (o->parallel && json_is_object(v) && is_delete(v) &&
	    (cur == NULL || !json_is_object(cur))) {
		json_object_del(out, key);
		return 0;
	}
	if (cur == NULL || gkind(cur) != gkind(v))
		r = take(v, &m, o, c);
	else if (json_is_object(v))
		r = (m.ps & PS_REPLACE) ? take(v, &m, o, c)
					: merge_map(cur, v, m.sub, o, c);
	else if (json_is_array(v))
		r = (m.ps & PS_MERGE) ? merge_slice(cur, v, &m, o, del, c)
				      : json_deep_copy(v);
	else
		r = json_deep_copy(v);
	if (r == NULL)
		return -1;
	json_object_set_new(out, key, r);
	return 0;
}

/* mergeMap: orig (borrowed, may be NULL) with patch merged in, a new
 * object. The order of work is Kubernetes': a "$patch" directive of
 * the map, then "$retainKeys", then the "$setElementOrder" lists, then
 * the members ("$deleteFromPrimitiveList" ones last). */
static json_t *
merge_map(json_t *orig, json_t *patch, const struct schema *s,
	  const struct mopts *o, struct ctx *c)
{
	json_t *d = json_object_get(patch, DIRECTIVE), *out, *p, *v;
	const char *k;
	int pass;

	if (d)
		return map_directive(d, patch, s, o, c);
	out = json_is_object(orig) ? json_deep_copy(orig) : json_object();
	p = json_copy(patch); /* shallow: handled keys are removed */
	if (retain_keys(out, p, o, c) || set_element_orders(out, p, s, o, c))
		goto fail;
	for (pass = 0; pass < 2; pass++) {
		json_object_foreach(p, k, v)
		{
			if (has_prefix(k, DELETE_PRIMITIVE) != (pass == 1))
				continue;
			if (merge_member(out, k, v, s, o, c))
				goto fail;
		}
	}
	json_decref(p);
	return out;
fail:
	json_decref(p);
	json_decref(out);
	return NULL;
}

/* Every "$patch" directive of the patch must be one Kubernetes knows:
 * "replace" or "delete" (a list element saying "merge" is refused as
 * Kubernetes refuses it), checked before anything is merged, so that a
 * directive where the target has nothing to merge with is refused too. */
static int
check_directives(json_t *patch, bool in_list, struct ctx *c)
{
	const char *k, *d;
	json_t *v;
	size_t i;

	if (json_is_array(patch)) {
		json_array_foreach(patch, i, v)
		{
			if (check_directives(v, true, c))
				return -1;
		}
		return 0;
	}
	if (!json_is_object(patch))
		return 0;
	if ((v = json_object_get(patch, DIRECTIVE))) {
		d = json_string_value(v);
		if (in_list && d && !strcmp(d, "merge"))
			return fail(c, "merging lists cannot yet be specified "
				       "in the patch");
		if (d == NULL || (strcmp(d, "replace") && strcmp(d, "delete")))
			return bad_patch_type(v, patch, c);
	}
	json_object_foreach(patch, k, v)
	{
		if (check_directives(v, false, c))
			return -1;
	}
	return 0;
}

/* json.Unmarshal's word for a value that is not an object. */
static const char *
json_word(const json_t *v)
{
	switch (gkind(v)) {
	case G_SLICE:
		return "array";
	case G_STRING:
		return "string";
	case G_NUMBER:
		return "number";
	default:
		return "bool";
	}
}

json_t *
smp_apply(json_t *target, json_t *patch, const struct schema *s, char *err,
	  size_t errlen)
{
	struct ctx c = {err, errlen, false};
	const struct mopts o = {true, true};

	if (json_is_null(patch))
		return json_is_object(target) ? json_deep_copy(target)
					      : json_object();
	if (!json_is_object(patch)) {
		fail(&c,
		     "json: cannot unmarshal %s into Go value of type "
		     "map[string]interface {}",
		     json_word(patch));
		return NULL;
	}
	if (check_directives(patch, false, &c))
		return NULL;
	return merge_map(json_is_object(target) ? target : NULL, patch, s, &o,
			 &c);
}

/* ---- computing a patch (diffMaps) ---- */

struct dopts {
	bool set_order;        /* SetElementOrder */
	bool ignore_changes;   /* IgnoreChangesAndAdditions */
	bool ignore_deletions; /* IgnoreDeletions */
	bool retain;           /* BuildRetainKeysDirective */
};

static json_t *diff_maps(json_t *orig, json_t *mod, const struct schema *s,
			 const struct dopts *d, struct ctx *c);

/* sortScalars (and the order of sortMergeListsByNameArray, by the merge
 * key): a stable sort by Go's %v text. */
static json_t *
sort_by_text(const json_t *list, const char *key)
{
	size_t n = json_array_size(list), i, j;
	json_t **a = xcalloc(n ? n : 1, sizeof(*a)), *out = json_array();
	char **t = xcalloc(n ? n : 1, sizeof(*t));

	for (i = 0; i < n; i++) {
		a[i] = json_array_get(list, i);
		t[i] = go_text(key_of(a[i], key));
	}
	for (i = 1; i < n; i++) {
		for (j = i; j > 0 && strcmp(t[j], t[j - 1]) < 0; j--) {
			json_t *x = a[j];
			char *y = t[j];

			a[j] = a[j - 1];
			t[j] = t[j - 1];
			a[j - 1] = x;
			t[j - 1] = y;
		}
	}
	for (i = 0; i < n; i++) {
		json_array_append(out, a[i]);
		free(t[i]);
	}
	free(a);
	free(t);
	return out;
}

/* diffListsOfMaps: walks the two lists sorted by merge key; an element
 * in both gives its diffMaps with its key (if not empty), one only in
 * mod is added whole, one only in orig gives {key, "$patch": "delete"}.
 * *pl gets the changes, *dl the deletions. */
static int
diff_lists_of_maps(json_t *orig, json_t *mod, const struct meta *m,
		   const struct dopts *d, json_t **pl, json_t **dl,
		   struct ctx *c)
{
	json_t *os = sort_by_text(orig, m->key),
	       *ms = sort_by_text(mod, m->key);
	size_t i = 0, j = 0, no = json_array_size(os), nm = json_array_size(ms);
	int rc = 0;

	*pl = json_array();
	*dl = json_array();
	while (i < no || j < nm) {
		json_t *oe = json_array_get(os, i), *me = json_array_get(ms, j);
		json_t *ok = NULL, *mk = NULL;
		char *ot = NULL, *mt = NULL;
		int cmp = 0;

		if (i < no && (ok = json_object_get(oe, m->key)) == NULL) {
			rc = no_merge_key(oe, m->key, c);
			break;
		}
		if (j < nm && (mk = json_object_get(me, m->key)) == NULL) {
			rc = no_merge_key(me, m->key, c);
			break;
		}
		if (i < no && j < nm) {
			ot = go_text(ok);
			mt = go_text(mk);
			cmp = strcmp(ot, mt);
			free(ot);
			free(mt);
		}
		if (i < no && j < nm && cmp == 0) {
			json_t *pv = diff_maps(oe, me, m->sub, d, c);

			if (pv == NULL) {
				rc = -1;
				break;
			}
			if (json_object_size(pv)) {
				json_object_set_new(pv, m->key,
						    json_deep_copy(mk));
				json_array_append_new(*pl, pv);
			} else {
				json_decref(pv);
			}
			i++;
			j++;
		} else if (i >= no || (j < nm && cmp > 0)) {
			if (!d->ignore_changes)
				json_array_append_new(*pl, json_deep_copy(me));
			j++;
		} else {
			if (!d->ignore_deletions)
				json_array_append_new(
				    *dl, json_pack("{sOss}", m->key, ok,
						   DIRECTIVE, "delete"));
			i++;
		}
	}
	json_decref(os);
	json_decref(ms);
	if (rc) {
		json_decref(*pl);
		json_decref(*dl);
		*pl = *dl = NULL;
	}
	return rc;
}

/* diffListsOfScalars: the values mod adds and those it drops. */
static void
diff_lists_of_scalars(json_t *orig, json_t *mod, const struct dopts *d,
		      json_t **add, json_t **del)
{
	json_t *os = sort_by_text(orig, NULL), *ms = sort_by_text(mod, NULL);
	size_t i = 0, j = 0, no = json_array_size(os), nm = json_array_size(ms);

	*add = json_array();
	*del = json_array();
	while (i < no || j < nm) {
		json_t *ov = json_array_get(os, i), *mv = json_array_get(ms, j);
		int cmp = 0;

		if (i < no && j < nm) {
			char *a = go_text(ov), *b = go_text(mv);

			cmp = strcmp(a, b);
			free(a);
			free(b);
		}
		if (i < no && j < nm && cmp == 0) {
			i++;
			j++;
		} else if (i >= no || (j < nm && cmp > 0)) {
			if (!d->ignore_changes)
				json_array_append(*add, mv);
			j++;
		} else {
			if (!d->ignore_deletions &&
			    index_of(*del, ov, NULL) < 0)
				json_array_append(*del, ov);
			i++;
		}
	}
	json_decref(os);
	json_decref(ms);
}

/* isOrderSame: 1, 0, or -1 on error. */
static int
order_same(json_t *orig, json_t *mod, const char *key, struct ctx *c)
{
	size_t i;
	int eq;

	if (json_array_size(orig) != json_array_size(mod))
		return 0;
	for (i = 0; i < json_array_size(mod); i++) {
		eq = key_value_equal(json_array_get(orig, i),
				     json_array_get(mod, i), key, c);
		if (eq <= 0)
			return eq;
	}
	return 1;
}

/* diffLists: the patch of a list with strategy merge: *add (changes and
 * additions, then {"$patch": "delete"} elements), *del (the values a
 * list of scalars drops: $deleteFromPrimitiveList) and *order (the
 * $setElementOrder list: mod's keys, when the list changed). Each is
 * NULL or a new array. */
static int
diff_lists(json_t *orig, json_t *mod, const struct meta *m,
	   const struct dopts *d, json_t **add, json_t **del, json_t **order,
	   struct ctx *c)
{
	json_t *pl, *dl, *v;
	enum gkind kind;
	size_t i;
	int same;

	*add = *del = *order = NULL;
	if (json_array_size(orig) == 0) {
		if (json_array_size(mod) && !d->ignore_changes)
			*add = json_deep_copy(mod);
		return 0;
	}
	if (elem_kind(orig, mod, &kind, c))
		return -1;
	if (kind == G_MAP) {
		if (m->key == NULL)
			return fail(c, "cannot merge lists without merge key "
				       "for type struct");
		if (diff_lists_of_maps(orig, mod, m, d, &pl, &dl, c))
			return -1;
		*add = sort_by_order(pl, mod, m->key, c);
		json_decref(pl);
		if (*add == NULL ||
		    (same = order_same(orig, mod, m->key, c)) < 0) {
			json_decref(dl);
			json_decref(*add);
			*add = NULL;
			return -1;
		}
		json_array_extend(*add, dl);
		json_decref(dl);
		if (d->set_order &&
		    ((!d->ignore_changes && (json_array_size(*add) || !same)) ||
		     (!d->ignore_deletions && json_array_size(*add)))) {
			*order = json_array();
			json_array_foreach(mod, i, v) json_array_append_new(
			    *order, json_pack("{sO}", m->key,
					      json_object_get(v, m->key)));
		}
		return 0;
	}
	diff_lists_of_scalars(orig, mod, d, &pl, del);
	*add = sort_by_order(pl, mod, NULL, c);
	json_decref(pl);
	if (d->set_order && ((!d->ignore_deletions && json_array_size(*del)) ||
			     (!d->ignore_changes && !deep_eq(orig, mod))))
		*order = json_deep_copy(mod);
	return 0;
}

/* Sets patch[prefix/k] (or patch[k] with no prefix) to v if v is a
 * non-empty list; drops v otherwise. */
static void
set_list(json_t *patch, const char *prefix, const char *k, json_t *v)
{
	struct strbuf sb = STRBUF_INIT;

	if (json_array_size(v)) {
		if (prefix)
			strbuf_addf(&sb, "%s/%s", prefix, k);
		json_object_set_new(patch, prefix ? sb.buf : k, v);
	} else {
		json_decref(v);
	}
	strbuf_release(&sb);
}

/* handleMapDiff, handleSliceDiff and replacePatchFieldIfNotEqual for a
 * member k present in orig and mod with values of one kind. */
static int
diff_member(json_t *patch, const char *k, json_t *ov, json_t *mv,
	    const struct schema *s, const struct dopts *d, struct ctx *c)
{
	struct meta m = meta_of(s, k);
	struct dopts sub = *d;
	json_t *pv, *add, *del, *order;

	sub.retain = (m.ps & PS_RETAIN_KEYS) != 0;
	if (json_is_object(ov) && !(m.ps & PS_REPLACE)) {
		if ((pv = diff_maps(ov, mv, m.sub, &sub, c)) == NULL)
			return -1;
		if (json_object_size(pv))
			json_object_set_new(patch, k, pv);
		else
			json_decref(pv);
		return 0;
	}
	if (json_is_array(ov) && (m.ps & PS_MERGE)) {
		if (diff_lists(ov, mv, &m, &sub, &add, &del, &order, c))
			return -1;
		set_list(patch, NULL, k, add);
		set_list(patch, DELETE_PRIMITIVE, k, del);
		set_list(patch, SET_ORDER, k, order);
		return 0;
	}
	if (!d->ignore_changes && !deep_eq(ov, mv))
		json_object_set_new(patch, k, json_deep_copy(mv));
	return 0;
}

/* hasAdditionalNewField: orig has a non-null key mod lacks. */
static bool
has_additional(json_t *orig, json_t *mod)
{
	const char *k;
	json_t *v;

	json_object_foreach(orig, k, v)
	{
		if (!json_is_null(v) && json_object_get(mod, k) == NULL)
			return true;
	}
	return false;
}

/* diffMaps: the patch from orig to mod (either may be NULL: empty). */
static json_t *
diff_maps(json_t *orig, json_t *mod, const struct schema *s,
	  const struct dopts *d, struct ctx *c)
{
	json_t *patch = json_object(), *retain = json_array(), *mv, *ov;
	const char *k;

	json_object_foreach(mod, k, mv)
	{
		if (d->retain && !json_is_null(mv))
			json_array_append_new(retain, json_string(k));
		if ((ov = json_object_get(orig, k)) == NULL) {
			if (!d->ignore_changes)
				json_object_set_new(patch, k,
						    json_deep_copy(mv));
			continue;
		}
		if (!strcmp(k, DIRECTIVE)) { /* handleDirectiveMarker */
			if (!json_is_string(ov) || !json_is_string(mv)) {
				fail(c, "invalid value for special key: %s",
				     DIRECTIVE);
				goto fail;
			}
			if (strcmp(json_string_value(ov),
				   json_string_value(mv)))
				json_object_set(patch, k, mv);
			continue;
		}
		if (gkind(ov) != gkind(mv)) {
			if (!d->ignore_changes)
				json_object_set_new(patch, k,
						    json_deep_copy(mv));
			continue;
		}
		if (diff_member(patch, k, ov, mv, s, d, c))
			goto fail;
	}
	if (!d->ignore_deletions) /* updatePatchIfMissing */
		json_object_foreach(orig, k, ov)
		{
			if (json_object_get(mod, k) == NULL)
				json_object_set_new(patch, k, json_null());
		}
	if (json_array_size(retain) &&
	    (json_object_size(patch) || has_additional(orig, mod)))
		json_object_set_new(patch, RETAIN_KEYS,
				    sort_by_text(retain, NULL));
	json_decref(retain);
	return patch;
fail:
	json_decref(retain);
	json_decref(patch);
	return NULL;
}

json_t *
smp_two_way(json_t *orig, json_t *mod, const struct schema *s, char *err,
	    size_t errlen)
{
	struct ctx c = {err, errlen, false};
	const struct dopts d = {.set_order = true};

	return diff_maps(json_is_object(orig) ? orig : NULL,
			 json_is_object(mod) ? mod : NULL, s, &d, &c);
}

/* The patch is the difference from cur to mod without deletions (delta),
 * plus the deletions from orig to mod; delta is merged into the
 * deletions as a patch is merged into a patch (directives carried over,
 * nulls kept). Example: orig {"a":1,"b":2}, mod {"a":1,"c":3}, cur
 * {"a":1,"b":2,"d":4} -> {"b":null,"c":3} (d, set by someone else,
 * stays). */
json_t *
smp_three_way(json_t *orig, json_t *mod, json_t *cur, const struct schema *s,
	      char *err, size_t errlen)
{
	struct ctx c = {err, errlen, false};
	const struct dopts dd = {.set_order = true, .ignore_deletions = true};
	const struct dopts dx = {.set_order = true, .ignore_changes = true};
	const struct mopts o = {false, false};
	json_t *delta, *dels, *patch = NULL;

	if (!json_is_object(orig))
		orig = NULL;
	if (!json_is_object(mod))
		mod = NULL;
	if (!json_is_object(cur))
		cur = NULL;
	delta = diff_maps(cur, mod, s, &dd, &c);
	dels = diff_maps(orig, mod, s, &dx, &c);
	if (delta && dels)
		patch = merge_map(dels, delta, s, &o, &c);
	json_decref(delta);
	json_decref(dels);
	return patch;
}
