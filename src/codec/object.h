/* object.h - whole Kubernetes objects <-> JSON: apiVersion/kind dispatch,
 * Lists, defaulting and validation in the order the API server applies
 * them (decode strictly, default, validate). */
#ifndef DROVER_CODEC_OBJECT_H
#define DROVER_CODEC_OBJECT_H

#include <jansson.h>

#include "fielderr.h"
#include "kinds.h"

/* Decodes one object document. Unknown apiVersion/kind, unknown fields and
 * type errors go to errs. With `prepare`, defaults are applied and the
 * object validated (more errors). Returns 0 if errs gained nothing; on
 * failure out->obj is NULL. */
int object_decode(json_t *doc, bool prepare, struct object *out,
		  struct fielderr_list *errs);

/* Encodes an object (with apiVersion and kind set). New reference. */
json_t *object_encode(const struct object *o);

/* A decode failure of one document in a manifest. */
struct manifest_error {
	char *what; /* `Deployment "web"` or `document 2` */
	struct fielderr_list errs;
};

struct manifest_errors {
	struct manifest_error *v;
	size_t n;
	size_t alloc;
	char *syntax; /* a YAML/JSON syntax error, or NULL */
};

void manifest_errors_release(struct manifest_errors *e);
/* Writes every error, one per line, Kubernetes style. */
void manifest_errors_format(const struct manifest_errors *e, struct strbuf *sb);

/* Parses YAML or JSON (several documents, Lists expanded), decodes,
 * defaults and validates every object. Returns 0 with all objects in out,
 * or -1 with every problem in errs (out then holds nothing). */
int manifest_load(const char *buf, size_t len, bool prepare,
		  struct object_list *out, struct manifest_errors *errs);

#endif
