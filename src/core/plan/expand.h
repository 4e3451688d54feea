/* expand.h - Kubernetes' $(VAR) expansion of command, args and env values
 * (k8s.io/kubernetes/third_party/forked/golang/expansion), pure.
 *
 * "$(NAME)" is replaced by the variable's value when it is defined and
 * left as written when it is not; "$$" is an escaped "$"; a "$" followed
 * by anything else is kept. Env values may refer to variables defined
 * before them in the list (and to the extra ones given, e.g. PORT). */
#ifndef DROVER_EXPAND_H
#define DROVER_EXPAND_H

#include "strbuf.h"
#include "strmap.h"

/* Appends the expansion of s to out, looking names up in vars. */
void expand_vars(const char *s, const struct strmap *vars, struct strbuf *out);

#endif
