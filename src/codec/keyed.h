/* keyed.h - the lists of Kubernetes' strategic merge patch that merge
 * element by element: a list field whose schema declares a merge key
 * (struct field.merge_key: containers and env by "name", ports by
 * "containerPort", conditions by "type"). The server's patch (patch.c),
 * the agent's two-way status diff (diff.c) and `drover apply`'s
 * three-way patch (cmd_apply.c) all read the keys through these, so they
 * cannot disagree on which lists merge and how an element is found. */
#ifndef DROVER_CODEC_KEYED_H
#define DROVER_CODEC_KEYED_H

#include <jansson.h>
#include <stdbool.h>

#include "schema.h"

/* The field member of schema s (NULL if s is NULL or has none). */
const struct field *keyed_field(const struct schema *s, const char *member);
/* The merge key of a list field with strategy merge; NULL: the list is
 * replaced whole (or, a list of strings with PS_MERGE, merged as a set). */
const char *keyed_merge_key(const struct field *f);
/* The field's patch strategy (enum patch_strategy flags), 0 if f is
 * NULL: PS_MERGE, PS_RETAIN_KEYS, PS_REPLACE. */
unsigned keyed_strategy(const struct field *f);
/* The element of list whose key member equals value, or NULL (a
 * borrowed reference). */
json_t *keyed_find(json_t *list, const char *key, json_t *value);
/* Every element of list is an object with a non-null key member, and no
 * two share one: the list can be merged by key. */
bool keyed_well(json_t *list, const char *key);

#endif
