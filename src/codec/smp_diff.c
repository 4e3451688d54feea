/* smp_diff.c - computing a strategic merge patch (see smp.h): diffMaps,
 * CreateTwoWayMergePatch and CreateThreeWayMergePatch of
 * k8s.io/apimachinery's pkg/util/strategicpatch/patch.go, each function
 * naming the Go function it follows. Worked example, kubectl's `apply`
 * of a Deployment that drops container "side" and switches to Recreate:
 *   {"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"},
 *    "template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],
 *      "containers":[{"image":"v2","name":"web"},
 *                    {"$patch":"delete","name":"side"}]}}}} */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "smp.h"
#include "smp_int.h"
#include "xalloc.h"

struct dopts {
	bool set_order;        /* SetElementOrder */
	bool ignore_changes;   /* IgnoreChangesAndAdditions */
	bool ignore_deletions; /* IgnoreDeletions */
	bool retain;           /* BuildRetainKeysDirective */
};

static json_t *diff_maps(json_t *orig, json_t *mod, const struct schema *s,
			 const struct dopts *d, struct smp_ctx *c);

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
		t[i] = smp_go_text(smp_key_of(a[i], key));
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
diff_lists_of_maps(json_t *orig, json_t *mod, const struct smp_meta *m,
		   const struct dopts *d, json_t **pl, json_t **dl,
		   struct smp_ctx *c)
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
			rc = smp_no_merge_key(oe, m->key, c);
			break;
		}
		if (j < nm && (mk = json_object_get(me, m->key)) == NULL) {
			rc = smp_no_merge_key(me, m->key, c);
			break;
		}
		if (i < no && j < nm) {
			ot = smp_go_text(ok);
			mt = smp_go_text(mk);
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
						   SMP_DIRECTIVE, "delete"));
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
			char *a = smp_go_text(ov), *b = smp_go_text(mv);

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
			    smp_index_of(*del, ov, NULL) < 0)
				json_array_append(*del, ov);
			i++;
		}
	}
	json_decref(os);
	json_decref(ms);
}

/* isOrderSame: 1, 0, or -1 on error. */
static int
order_same(json_t *orig, json_t *mod, const char *key, struct smp_ctx *c)
{
	size_t i;
	int eq;

	if (json_array_size(orig) != json_array_size(mod))
		return 0;
	for (i = 0; i < json_array_size(mod); i++) {
		eq = smp_key_value_equal(json_array_get(orig, i),
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
diff_lists(json_t *orig, json_t *mod, const struct smp_meta *m,
	   const struct dopts *d, json_t **add, json_t **del, json_t **order,
	   struct smp_ctx *c)
{
	json_t *pl, *dl, *v;
	enum smp_kind kind;
	size_t i;
	int same;

	*add = *del = *order = NULL;
	if (json_array_size(orig) == 0) {
		if (json_array_size(mod) && !d->ignore_changes)
			*add = json_deep_copy(mod);
		return 0;
	}
	if (smp_elem_kind(orig, mod, &kind, c))
		return -1;
	if (kind == GK_MAP) {
		if (m->key == NULL)
			return smp_fail(c,
					"cannot merge lists without merge key "
					"for type struct");
		if (diff_lists_of_maps(orig, mod, m, d, &pl, &dl, c))
			return -1;
		*add = smp_sort_by_order(pl, mod, m->key, c);
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
	*add = smp_sort_by_order(pl, mod, NULL, c);
	json_decref(pl);
	if (d->set_order && ((!d->ignore_deletions && json_array_size(*del)) ||
			     (!d->ignore_changes && !smp_deep_eq(orig, mod))))
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
	    const struct schema *s, const struct dopts *d, struct smp_ctx *c)
{
	struct smp_meta m = smp_meta_of(s, k);
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
		set_list(patch, SMP_DELETE_PRIMITIVE, k, del);
		set_list(patch, SMP_SET_ORDER, k, order);
		return 0;
	}
	if (!d->ignore_changes && !smp_deep_eq(ov, mv))
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
	  const struct dopts *d, struct smp_ctx *c)
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
		if (!strcmp(k, SMP_DIRECTIVE)) { /* handleDirectiveMarker */
			if (!json_is_string(ov) || !json_is_string(mv)) {
				smp_fail(c, "invalid value for special key: %s",
					 SMP_DIRECTIVE);
				goto fail;
			}
			if (strcmp(json_string_value(ov),
				   json_string_value(mv)))
				json_object_set(patch, k, mv);
			continue;
		}
		if (smp_kind(ov) != smp_kind(mv)) {
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
		json_object_set_new(patch, SMP_RETAIN_KEYS,
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
	struct smp_ctx c = {err, errlen, false};
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
	struct smp_ctx c = {err, errlen, false};
	const struct dopts dd = {.set_order = true, .ignore_deletions = true};
	const struct dopts dx = {.set_order = true, .ignore_changes = true};
	const struct smp_mopts o = {false, false};
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
		patch = smp_merge_map(dels, delta, s, &o, &c);
	json_decref(delta);
	json_decref(dels);
	return patch;
}
