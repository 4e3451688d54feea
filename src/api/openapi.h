/* openapi.h - OpenAPI v2 and v3 documents generated from drover's own
 * field tables (src/core/schema.h) and kind registry (src/core/apis/kinds.h),
 * for kubectl's apply, create -f and explain.
 *
 * What kubectl reads (notes/kubectl-compat.md §5):
 *   GET /openapi/v3                  the index: one serverRelativeURL per
 *                                    group-version, with a ?hash=
 *   GET /openapi/v3/apis/apps/v1     components.schemas (one definition
 *                                    per model type, Kubernetes' names:
 *                                    io.k8s.api.apps.v1.Deployment) and
 *                                    paths whose PATCH declares the
 *                                    fieldValidation query parameter, so
 *                                    that kubectl >= 1.27 leaves validation
 *                                    to the server (fieldValidation=Strict)
 *   GET /openapi/v2                  kubectl asks for protobuf: the
 *                                    Swagger 2.0 definitions as gnostic's
 *                                    openapi_v2.Document (openapi_pb.c),
 *                                    which kubectl 1.20 validates
 *                                    manifests against and explains from;
 *                                    with Accept: application/json, the
 *                                    Swagger 2.0 document itself.
 *
 * The documents only change with the binary: api.c keeps them once made
 * (struct openapi_cache, freed by openapi_cache_free). */
#ifndef DROVER_OPENAPI_H
#define DROVER_OPENAPI_H

#include <jansson.h>

#include "strbuf.h"

/* The group-versions served: "v1", "apps/v1", "discovery.k8s.io/v1", in
 * the registry's order; *n receives the count (at most 16). */
size_t openapi_group_versions(const char *gvs[16]);

/* The OpenAPI 3.0 document of group-version gv ("apps/v1"), or NULL for a
 * group-version drover does not serve. New reference. */
json_t *openapi_v3_document(const char *gv);
/* The Swagger 2.0 document of every group-version. New reference. */
json_t *openapi_v2_document(void);
/* openapi_pb.c: doc (openapi_v2_document) as gnostic's protobuf
 * openapi_v2.Document, swagger, info and definitions, appended to out;
 * it holds no NUL byte. */
void openapi_v2_protobuf(json_t *doc, struct strbuf *out);

struct openapi_cache;
struct api;
struct api_req;
struct api_resp;

/* GET /openapi/v2, /openapi/v3 and /openapi/v3/PATH (PATH "api/v1",
 * "apis/apps/v1"); 404 for anything else under /openapi/. */
void h_openapi(struct api *a, const struct api_req *req, struct api_resp *resp);
void openapi_cache_free(struct openapi_cache *c);

#endif
