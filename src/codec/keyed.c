/* keyed.c - the keys of strategic-merge lists (see keyed.h). Example:
 * ports [{containerPort: 80}, {containerPort: 443}] patched with
 * [{containerPort: 443, name: https}] finds the second element by its
 * key 443 and merges the name into it; the first stays. */
#include <stddef.h>

#include "keyed.h"

const struct field *
keyed_field(const struct schema *s, const char *member)
{
	return s ? schema_field(s, member) : NULL;
}

const char *
keyed_merge_key(const struct field *f)
{
	return f && f->type == FT_LIST && (f->patch & PS_MERGE) && f->merge_key
		   ? f->merge_key
		   : NULL;
}

unsigned
keyed_strategy(const struct field *f)
{
	return f ? f->patch : 0;
}

json_t *
keyed_find(json_t *list, const char *key, json_t *value)
{
	size_t i;
	json_t *e;

	json_array_foreach(list, i, e)
	{
		if (json_equal(json_object_get(e, key), value))
			return e;
	}
	return NULL;
}

bool
keyed_well(json_t *list, const char *key)
{
	size_t i, j;
	json_t *e;

	json_array_foreach(list, i, e)
	{
		json_t *k = json_object_get(e, key);

		if (!json_is_object(e) || k == NULL || json_is_null(k))
			return false;
		for (j = 0; j < i; j++)
			if (json_equal(
				json_object_get(json_array_get(list, j), key),
				k))
				return false;
	}
	return true;
}
