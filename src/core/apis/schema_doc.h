/* schema_doc.h - the descriptions of the model's types and fields, what
 * `kubectl explain deployment.spec.strategy` prints (through the OpenAPI
 * documents, src/api/openapi.c). Kept beside the field tables rather than
 * in their rows so that the rows stay one line each; keyed by the
 * schema's name (struct schema.name, the C struct: "deployment_spec") and
 * the field's JSON name. Texts are Kubernetes' (k8s.io/api types.go
 * comments), shortened, with drover's differences said.
 *
 * Example: schema_doc(&dspec_s, "replicas") -> "Number of desired pods.
 * This is a pointer to distinguish between explicit zero and not
 * specified. Defaults to 1." Pure, static data. */
#ifndef DROVER_SCHEMA_DOC_H
#define DROVER_SCHEMA_DOC_H

#include "schema.h"

/* The description of field json of s (json NULL: of the type s itself),
 * or NULL when there is none. */
const char *schema_doc(const struct schema *s, const char *json);

#endif
