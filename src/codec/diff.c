/* diff.c - the two-way strategic merge patch (see diff.h): smp.c's
 * CreateTwoWayMergePatch, with a fallback for what it refuses. */
#include <stdbool.h>
#include <stddef.h>

#include "diff.h"
#include "smp.h"

/* Every member that changed, whole: a list or map with a {"$patch":
 * "replace"} directive, a scalar as it is; a member mod lacks, null. */
static json_t *
replace_members(json_t *orig, json_t *mod)
{
	json_t *out = json_object(), *v, *o, *r;
	const char *k;

	json_object_foreach(mod, k, v)
	{
		if ((o = json_object_get(orig, k)) && json_equal(o, v))
			continue;
		r = json_deep_copy(v);
		if (json_is_array(r))
			json_array_append_new(
			    r, json_pack("{ss}", "$patch", "replace"));
		else if (json_is_object(r))
			json_object_set_new(r, "$patch",
					    json_string("replace"));
		json_object_set_new(out, k, r);
	}
	json_object_foreach(orig, k, v)
	{
		if (json_object_get(mod, k) == NULL)
			json_object_set_new(out, k, json_null());
	}
	return out;
}

json_t *
codec_two_way_patch(json_t *orig, json_t *mod, const struct schema *s)
{
	char err[256];
	json_t *p;

	if (!json_is_object(mod))
		return json_object();
	if (!json_is_object(orig))
		orig = NULL;
	if ((p = smp_two_way(orig, mod, s, err, sizeof(err))))
		return p;
	return replace_members(orig, mod);
}
