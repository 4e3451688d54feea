/* labels.h - label selectors: matching, the string form used by
 * `-l`/labelSelector, and the syntax rules for keys and values.
 *
 * The matching rules are Kubernetes' LabelSelectorAsSelector: every
 * matchLabels pair must be present, every matchExpressions requirement must
 * hold (In, NotIn, Exists, DoesNotExist). A selector with nothing in it
 * matches everything; a NULL selector matches nothing. */
#ifndef DROVER_LABELS_H
#define DROVER_LABELS_H

#include <stdbool.h>

#include "fielderr.h"
#include "meta.h"

bool selector_matches(const struct label_selector *sel,
		      const struct strmap *labels);
bool selector_is_empty(const struct label_selector *sel);
/* Every pair of want is in have. */
bool labels_subset(const struct strmap *want, const struct strmap *have);

/* Parses "a=b,c!=d,e in (x,y),!f,g" into sel (zeroed by the caller).
 * Returns 0, or -1 with a message in err. */
int selector_parse(const char *s, struct label_selector *sel, char *err,
		   size_t errlen);

/* Syntax checks with Kubernetes' messages; errors are added under path. */
void validate_label_key(const char *key, const char *path,
			struct fielderr_list *errs);
void validate_label_value(const char *value, const char *path,
			  struct fielderr_list *errs);
void validate_labels(const struct strmap *m, const char *path,
		     struct fielderr_list *errs);
void validate_selector(const struct label_selector *sel, const char *path,
		       struct fielderr_list *errs);

#endif
