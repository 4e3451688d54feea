/* json.h - model structs <-> jansson values, driven by the schema tables.
 *
 * Decoding is strict like the Kubernetes API server's strict field
 * validation: an unknown member is an error with its path, a value of the
 * wrong JSON type is an error with its path, and decoding goes on so that
 * every problem is reported at once. JSON null means "absent". */
#ifndef DROVER_CODEC_JSON_H
#define DROVER_CODEC_JSON_H

#include <jansson.h>

#include "fielderr.h"
#include "schema.h"

/* Decodes j into obj (which must be zeroed by the caller). Errors are added
 * to errs with paths below `path` ("" for the root). Returns the number of
 * errors added; obj is filled as far as possible and must be released with
 * schema_release() either way. */
int codec_decode(const struct schema *s, json_t *j, void *obj, const char *path,
		 struct fielderr_list *errs);

/* Encodes obj; the caller owns the returned reference. */
json_t *codec_encode(const struct schema *s, const void *obj);

#endif
