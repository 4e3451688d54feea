/* defaulting.h - the three moves of Kubernetes' SetDefaults_* functions,
 * shared by every API group's defaults: a string set when empty, an
 * optional integer set when unset, or when unset or 0. Each only fills
 * what is absent and never overwrites a value the user wrote. */
#ifndef DROVER_DEFAULTING_H
#define DROVER_DEFAULTING_H

#include <stdint.h>
#include <stdlib.h>

#include "schema.h"
#include "xalloc.h"

/* A Go string field is unset when empty: "" is replaced as NULL is. */
static inline void
def_str(char **s, const char *v)
{
	if (*s == NULL || **s == '\0') {
		free(*s);
		*s = xstrdup(v);
	}
}

/* For *int32 fields in Go (replicas, revisionHistoryLimit, ...) "unset"
 * is nil, and an explicit 0 stays 0, as here. */
static inline void
def_int(struct opt_int *o, int64_t v)
{
	if (!o->set) {
		o->set = true;
		o->v = v;
	}
}

/* Unset or 0 (a Go field whose zero value means "default"). */
static inline void
def_int_or_zero(struct opt_int *o, int64_t v)
{
	if (!o->set || o->v == 0) {
		o->set = true;
		o->v = v;
	}
}

#endif
