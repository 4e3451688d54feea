/* smp.c - applying a strategic merge patch (see smp.h), mergeMap of
 * k8s.io/apimachinery's pkg/util/strategicpatch/patch.go, function by
 * function; each function here names the Go function it follows, so the
 * two read side by side. The patch strategies come from the schema
 * tables (struct field.patch, .merge_key), where Go reads
 * patchStrategy/patchMergeKey struct tags.
 *
 * Worked example, the body `kubectl set image deploy/web web=v2` sends
 * for a Deployment whose template has containers [web, side]:
 *   {"spec":{"template":{"spec":{
 *     "$setElementOrder/containers":[{"name":"web"},{"name":"side"}],
 *     "containers":[{"image":"v2","name":"web"}]}}}}
 * containers has strategy merge and key "name": the element named "web"
 * takes image v2 and keeps its ports, env and probes; "side" is kept;
 * the merged list is put in the order of $setElementOrder. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "smp.h"
#include "smp_int.h"

/* extractKey: "$setElementOrder/containers" -> "containers"; NULL if k
 * is not the prefix, a slash and a name. */
static const char *
extract_key(const char *k, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(k, prefix, n) || k[n] != '/' ? NULL : k + n + 1;
}

static int
bad_patch_type(const json_t *d, const json_t *m, struct smp_ctx *c)
{
	char *t = smp_go_text(d), *mt = smp_go_text(m);

	smp_fail(c, "unknown patch type: %s in map: %s", t, mt);
	free(t);
	free(mt);
	return -1;
}

static json_t *merge_slice(json_t *orig, json_t *patch,
			   const struct smp_meta *m, const struct smp_mopts *o,
			   bool del, struct smp_ctx *c);

/* The patch's value for a member the original lacks. Kubernetes stores
 * it as it is; on the server drover applies its directives against
 * nothing, so that no "$patch" or "$setElementOrder" reaches the stored
 * object (where the decoder would refuse it as an unknown field). */
static json_t *
take(json_t *v, const struct smp_meta *m, const struct smp_mopts *o,
     struct smp_ctx *c)
{
	json_t *empty, *r;

	if (!o->parallel)
		return json_deep_copy(v);
	if (json_is_object(v))
		return smp_merge_map(NULL, v, m->sub, o, c);
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
	      const struct smp_mopts *o, struct smp_ctx *c)
{
	const char *name = json_string_value(d);

	if (name && !strcmp(name, "replace")) {
		json_t *r = json_deep_copy(patch), *clean;

		json_object_del(r, SMP_DIRECTIVE);
		if (!o->parallel)
			return r;
		clean = smp_merge_map(NULL, r, s, o, c);
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
retain_keys(json_t *out, json_t *p, const struct smp_mopts *o,
	    struct smp_ctx *c)
{
	json_t *rk = json_object_get(p, SMP_RETAIN_KEYS), *v, *e;
	const char *k;
	void *tmp;
	size_t i;
	int rc = 0;

	if (rk == NULL)
		return 0;
	json_incref(rk);
	json_object_del(p, SMP_RETAIN_KEYS);
	if (!o->parallel) { /* combining patches: carry it over */
		json_t *have = json_object_get(out, SMP_RETAIN_KEYS);

		if (have && !smp_deep_eq(have, rk)) {
			char *a = smp_go_text(have), *b = smp_go_text(rk);

			rc = smp_fail(c,
				      "%s and %s are not deep equal: this may "
				      "happen when calculating the 3-way diff "
				      "patch",
				      a, b);
			free(a);
			free(b);
		} else if (have == NULL) {
			json_object_set(out, SMP_RETAIN_KEYS, rk);
		}
		goto done;
	}
	if (!json_is_array(rk)) {
		rc = smp_fail(c, "%s", SMP_ERR_RETAIN);
		goto done;
	}
	json_object_foreach(p, k, v)
	{
		bool listed = false;

		if (json_is_null(v) ||
		    smp_has_prefix(k, SMP_DELETE_PRIMITIVE) ||
		    smp_has_prefix(k, SMP_SET_ORDER))
			continue;
		json_array_foreach(rk, i, e) if (json_is_string(e) &&
						 !strcmp(json_string_value(e),
							 k)) listed = true;
		if (!listed) {
			rc = smp_fail(c, "%s", SMP_ERR_RETAIN);
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

/* validatePatchWithSetOrderList: the patch's items (deletions aside)
 * appear in $setElementOrder, in the same relative order. */
static int
validate_set_order(const json_t *pl, const json_t *order, const char *key,
		   struct smp_ctx *c)
{
	json_t *nd = json_array(), *v;
	size_t i, pi = 0, si = 0;
	int rc = 0, eq;

	if (json_array_size(order) == 0 || json_array_size(pl) == 0)
		goto out;
	json_array_foreach((json_t *)pl, i, v)
	{
		if (key && !json_is_object(v)) {
			rc = smp_bad_arg_type("map[string]interface {}", v, c);
			goto out;
		}
		if (!key || !smp_is_delete(v))
			json_array_append(nd, v);
	}
	while (pi < json_array_size(nd) && si < json_array_size(order)) {
		json_t *x = json_array_get(nd, pi);

		if (json_is_object(x) && json_object_get(x, SMP_DIRECTIVE)) {
			pi++;
			continue;
		}
		eq = smp_key_value_equal(x, json_array_get(order, si), key, c);
		if (eq < 0) {
			rc = -1;
			goto out;
		}
		if (eq)
			pi++;
		si++;
	}
	if (pi < json_array_size(nd) && si >= json_array_size(order)) {
		char *a = smp_go_text(pl), *b = smp_go_text(order);

		rc = smp_fail(c,
			      "The order in patch list:\n%s\n doesn't match %s "
			      "list:\n%s\n",
			      a, SMP_SET_ORDER, b);
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
	      const struct schema *s, const struct smp_mopts *o,
	      struct smp_ctx *c)
{
	const char *okey;
	json_t *ol, *pl, *merged, *both, *empty;
	struct smp_meta m;
	enum smp_kind kind;
	const char *key;

	if (!o->parallel) { /* combining patches: carry it over */
		json_t *have = json_object_get(out, k);

		if (have && !smp_deep_eq(have, sv))
			return smp_fail(c, "%s", SMP_ERR_SET_ORDER);
		if (have == NULL)
			json_object_set_new(out, k, json_deep_copy(sv));
	}
	if (!json_is_array(sv))
		return smp_bad_arg_type("[]interface {}", sv, c);
	if ((okey = extract_key(k, SMP_SET_ORDER)) == NULL)
		return smp_fail(c, "%s", SMP_ERR_SET_ORDER);
	ol = json_object_get(out, okey);
	pl = json_object_get(p, okey);
	if (ol && !json_is_array(ol))
		return smp_bad_arg_type("[]interface {}", ol, c);
	if (pl && !json_is_array(pl))
		return smp_bad_arg_type("[]interface {}", pl, c);
	m = smp_meta_of(s, okey);
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
		if (smp_elem_kind(ol, pl, &kind, c)) {
			json_decref(merged);
			return -1;
		}
		key = kind == GK_MAP ? m.key : NULL;
		if (kind == GK_MAP && key == NULL) {
			json_decref(merged);
			return smp_fail(c, "%s", SMP_ERR_SET_ORDER);
		}
		empty = json_array();
		both = smp_order_merged(merged, sv, ol ? ol : empty, key, c);
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
		   const struct smp_mopts *o, struct smp_ctx *c)
{
	json_t *keys = json_array(), *v;
	const char *k;
	size_t i;
	int rc = 0;

	json_object_foreach(p, k, v) if (smp_has_prefix(k, SMP_SET_ORDER))
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
		if (smp_index_of(del, v, NULL) < 0)
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
		 json_t **p2, struct smp_ctx *c)
{
	json_t *out = json_is_array(orig) ? json_deep_copy(orig) : json_array(),
	       *rest = json_array(), *v;
	bool replace = false;
	size_t i;

	json_array_foreach(patch, i, v)
	{
		json_t *d = json_object_get(v, SMP_DIRECTIVE);
		const char *name = json_string_value(d);

		if (d == NULL) {
			json_array_append(rest, v);
		} else if (name && !strcmp(name, "delete")) {
			json_t *id = json_object_get(v, key);
			long at;

			if (id == NULL) {
				smp_no_merge_key(v, key, c);
				goto fail;
			}
			while ((at = smp_find_by_key(out, key, id, c)) >= 0)
				json_array_remove(out, (size_t)at);
			if (at == -2)
				goto fail;
		} else if (name && !strcmp(name, "replace")) {
			replace = true;
		} else if (name && !strcmp(name, "merge")) {
			smp_fail(c,
				 "merging lists cannot yet be specified in the "
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
merge_keyed(json_t *orig, json_t *patch, const struct smp_meta *m,
	    const struct smp_mopts *o, struct smp_ctx *c)
{
	json_t *out = json_copy(orig), *v, *r; /* elements replaced, not
						  changed: see smp_merge_map */
	size_t i;

	json_array_foreach(patch, i, v)
	{
		json_t *id = json_object_get(v, m->key);
		long at;

		if (id == NULL) {
			smp_no_merge_key(v, m->key, c);
			goto fail;
		}
		if ((at = smp_find_by_key(out, m->key, id, c)) == -2)
			goto fail;
		if (at >= 0)
			r = smp_merge_map(json_array_get(out, (size_t)at), v,
					  m->sub, o, c);
		else
			r = o->parallel ? smp_merge_map(NULL, v, m->sub, o, c)
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
merge_slice(json_t *orig, json_t *patch, const struct smp_meta *m,
	    const struct smp_mopts *o, bool del, struct smp_ctx *c)
{
	json_t *o2 = NULL, *p2 = NULL, *merged = NULL, *r = NULL, *v;
	enum smp_kind kind;
	size_t i;

	if (json_array_size(orig) == 0 && json_array_size(patch) == 0)
		return json_array();
	if (smp_elem_kind(orig, patch, &kind, c))
		return NULL;
	if (kind != GK_MAP) {
		if (o->parallel && del)
			return delete_from_slice(orig, patch);
		o2 = json_deep_copy(orig);
		p2 = json_deep_copy(patch);
		merged = json_array(); /* deduplicateScalars(orig + patch) */
		json_array_foreach(o2, i,
				   v) if (smp_index_of(merged, v, NULL) < 0)
		    json_array_append(merged, v);
		json_array_foreach(p2, i,
				   v) if (smp_index_of(merged, v, NULL) < 0)
		    json_array_append(merged, v);
		r = smp_order_merged(merged, p2, o2, NULL, c);
		goto out;
	}
	if (m->key == NULL) {
		smp_fail(
		    c, "cannot merge lists without merge key for type struct");
		return NULL;
	}
	if (special_elements(orig, patch, m->key, &o2, &p2, c))
		return NULL;
	if ((merged = merge_keyed(o2, p2, m, o, c)) == NULL)
		goto out;
	r = smp_order_merged(merged, p2, o2, m->key, c);
out:
	json_decref(o2);
	json_decref(p2);
	json_decref(merged);
	return r;
}

/* One member k of a patch merged into out (the loop body of mergeMap). */
static int
merge_member(json_t *out, const char *k, json_t *v, const struct schema *s,
	     const struct smp_mopts *o, struct smp_ctx *c)
{
	const char *key = k;
	bool del = false;
	struct smp_meta m;
	json_t *cur, *r;

	if (smp_has_prefix(k, SMP_DELETE_PRIMITIVE)) {
		if (!o->parallel) { /* combining patches: carry it over */
			json_object_set_new(out, k, json_deep_copy(v));
			return 0;
		}
		if ((key = extract_key(k, SMP_DELETE_PRIMITIVE)) == NULL ||
		    !json_is_array(v))
			return smp_fail(c, "%s", SMP_ERR_PRIMITIVE);
		del = true;
	}
	if (json_is_null(v)) {
		json_object_del(out, key);
		if (o->ignore_nulls)
			return 0;
	}
	m = smp_meta_of(s, key);
	cur = json_object_get(out, key);
	/* A deletion list needs a merged list to delete from. Kubernetes
	 * would store the deletion list itself where there is none, and
	 * replace a list without strategy merge by it; drover deletes
	 * nothing from nothing and refuses the second. */
	if (del && cur == NULL)
		return 0;
	if (del && (!json_is_array(cur) || !(m.ps & PS_MERGE)))
		return smp_fail(c, "%s", SMP_ERR_PRIMITIVE);
	if (o->parallel && json_is_object(v) && smp_is_delete(v) &&
	    (cur == NULL || !json_is_object(cur))) {
		json_object_del(out, key);
		return 0;
	}
	if (cur == NULL || smp_kind(cur) != smp_kind(v))
		r = take(v, &m, o, c);
	else if (json_is_object(v))
		r = (m.ps & PS_REPLACE) ? take(v, &m, o, c)
					: smp_merge_map(cur, v, m.sub, o, c);
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
json_t *
smp_merge_map(json_t *orig, json_t *patch, const struct schema *s,
	      const struct smp_mopts *o, struct smp_ctx *c)
{
	json_t *d = json_object_get(patch, SMP_DIRECTIVE), *out, *p, *v;
	const char *k;
	int pass;

	if (d)
		return map_directive(d, patch, s, o, c);
	/* Shallow: a member the patch does not touch is shared with orig,
	 * and every member it touches is replaced in out by a new value
	 * (merge_member never changes a value in place), so orig stays as
	 * it was. A status patch of a pod copies the top-level map and the
	 * status, not the spec. */
	out = json_is_object(orig) ? json_copy(orig) : json_object();
	p = json_copy(patch); /* shallow: handled keys are removed */
	if (retain_keys(out, p, o, c) || set_element_orders(out, p, s, o, c))
		goto fail;
	for (pass = 0; pass < 2; pass++) {
		json_object_foreach(p, k, v)
		{
			if (smp_has_prefix(k, SMP_DELETE_PRIMITIVE) !=
			    (pass == 1))
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
check_directives(json_t *patch, bool in_list, struct smp_ctx *c)
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
	if ((v = json_object_get(patch, SMP_DIRECTIVE))) {
		d = json_string_value(v);
		if (in_list && d && !strcmp(d, "merge"))
			return smp_fail(c,
					"merging lists cannot yet be specified "
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
	switch (smp_kind(v)) {
	case GK_SLICE:
		return "array";
	case GK_STRING:
		return "string";
	case GK_NUMBER:
		return "number";
	default:
		return "bool";
	}
}

json_t *
smp_apply(json_t *target, json_t *patch, const struct schema *s, char *err,
	  size_t errlen)
{
	struct smp_ctx c = {err, errlen, false};
	const struct smp_mopts o = {true, true};

	if (json_is_null(patch))
		return json_is_object(target) ? json_deep_copy(target)
					      : json_object();
	if (!json_is_object(patch)) {
		smp_fail(&c,
			 "json: cannot unmarshal %s into Go value of type "
			 "map[string]interface {}",
			 json_word(patch));
		return NULL;
	}
	if (check_directives(patch, false, &c))
		return NULL;
	return smp_merge_map(json_is_object(target) ? target : NULL, patch, s,
			     &o, &c);
}
