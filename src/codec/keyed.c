/* keyed.c - a field's patch strategy and merge key (see keyed.h).
 * Example: container ports have strategy merge and key "containerPort",
 * so [{containerPort: 80}, {containerPort: 443}] patched with
 * [{containerPort: 443, name: https}] merges the name into the second
 * element; the first stays. */
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
