/* diff.c - the two-way strategic merge patch (see diff.h). */
#include <stdbool.h>
#include <stddef.h>

#include "diff.h"
#include "keyed.h"

static json_t *diff_object(json_t *orig, json_t *mod, const struct schema *s);

/* The order the server leaves a keyed list in after the patch (src/api
 * patch.c merge_keyed): the elements of orig that mod keeps, in orig's
 * order, then those mod adds, in mod's order. True if that is mod's
 * order. */
static bool
same_order(json_t *orig, json_t *mod, const char *key)
{
	size_t i, at = 0;
	json_t *e;

	json_array_foreach(orig, i, e)
	{
		json_t *id = json_object_get(e, key);

		if (keyed_find(mod, key, id) == NULL)
			continue;
		if (!json_equal(json_object_get(json_array_get(mod, at), key),
				id))
			return false;
		at++;
	}
	for (; at < json_array_size(mod); at++)
		if (keyed_find(orig, key,
			       json_object_get(json_array_get(mod, at), key)))
			return false;
	return true;
}

/* mod's list whole, with {"$patch": "replace"}. */
static json_t *
replace_list(json_t *mod)
{
	json_t *out = json_deep_copy(mod);

	json_array_append_new(out, json_pack("{ss}", "$patch", "replace"));
	return out;
}

/* The patch of a list merged by key; NULL if nothing changed. */
static json_t *
diff_keyed(json_t *orig, json_t *mod, const char *key, const struct schema *el)
{
	json_t *out, *e;
	size_t i;

	if (!keyed_well(orig, key) || !keyed_well(mod, key))
		return replace_list(mod);
	if (!same_order(orig, mod, key))
		return replace_list(mod);
	out = json_array();
	json_array_foreach(mod, i, e)
	{
		json_t *id = json_object_get(e, key);
		json_t *o = keyed_find(orig, key, id), *d;

		if (o == NULL) {
			json_array_append(out, e); /* added: whole */
			continue;
		}
		d = diff_object(o, e, el);
		if (json_object_size(d)) {
			json_object_set(d, key, id);
			json_array_append_new(out, d);
		} else {
			json_decref(d);
		}
	}
	json_array_foreach(orig, i, e)
	{
		json_t *id = json_object_get(e, key);

		if (keyed_find(mod, key, id) == NULL)
			json_array_append_new(
			    out,
			    json_pack("{sOss}", key, id, "$patch", "delete"));
	}
	if (json_array_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* The patch of one member present in both; NULL if it did not change. */
static json_t *
diff_value(json_t *o, json_t *m, const struct field *f)
{
	const char *key = keyed_merge_key(f);

	if (json_is_object(o) && json_is_object(m)) {
		json_t *d = diff_object(o, m, f ? f->sub : NULL);

		if (json_object_size(d))
			return d;
		json_decref(d);
		return NULL;
	}
	if (key && json_is_array(o) && json_is_array(m))
		return diff_keyed(o, m, key, f->sub);
	return json_equal(o, m) ? NULL : json_deep_copy(m);
}

static json_t *
diff_object(json_t *orig, json_t *mod, const struct schema *s)
{
	json_t *out = json_object(), *v;
	const char *k;

	json_object_foreach(mod, k, v)
	{
		json_t *o = json_object_get(orig, k), *d;

		if (json_is_null(v)) {
			if (o && !json_is_null(o))
				json_object_set_new(out, k, json_null());
			continue;
		}
		if (o == NULL || json_is_null(o)) {
			json_object_set_new(out, k, json_deep_copy(v));
			continue;
		}
		d = diff_value(o, v, s ? schema_field(s, k) : NULL);
		if (d)
			json_object_set_new(out, k, d);
	}
	json_object_foreach(orig, k, v)
	{
		if (!json_is_null(v) && json_object_get(mod, k) == NULL)
			json_object_set_new(out, k, json_null());
	}
	return out;
}

json_t *
codec_two_way_patch(json_t *orig, json_t *mod, const struct schema *s)
{
	if (!json_is_object(mod))
		return json_object();
	return diff_object(json_is_object(orig) ? orig : NULL, mod, s);
}
