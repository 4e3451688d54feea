/* keyed.h - a field's strategic merge patch strategy, as its schema row
 * declares it (struct field.patch and .merge_key: containers and env
 * merge by "name", ports by "containerPort", conditions by "type",
 * finalizers as a set, DeploymentSpec.strategy retains keys). smp.c
 * reads them through these for the server's patch, the agent's two-way
 * status diff and `drover apply`'s three-way patch alike. */
#ifndef DROVER_CODEC_KEYED_H
#define DROVER_CODEC_KEYED_H

#include "schema.h"

/* The field member of schema s (NULL if s is NULL or has none). */
const struct field *keyed_field(const struct schema *s, const char *member);
/* The merge key of a list field with strategy merge; NULL: the list is
 * replaced whole (or, a list of strings with PS_MERGE, merged as a set). */
const char *keyed_merge_key(const struct field *f);
/* The field's patch strategy (enum patch_strategy flags), 0 if f is
 * NULL: PS_MERGE, PS_RETAIN_KEYS, PS_REPLACE. */
unsigned keyed_strategy(const struct field *f);

#endif
