/* openapi.c - the OpenAPI v2 and v3 documents (openapi.h), generated from
 * the field tables and the kind registry, and their handler.
 *
 * A field table becomes a definition, one property per row:
 *
 *   FT_STR                 {"type":"string"}
 *   FT_INT, FT_OPTINT      {"type":"integer","format":"int32"|"int64"}
 *   FT_BOOL, FT_OPTBOOL    {"type":"boolean"}
 *   FT_TIME                {"type":"string","format":"date-time"}
 *   FT_INTSTR              {"type":"string","format":"int-or-string",
 *                           "x-kubernetes-int-or-string":true}
 *   FT_STRMAP              {"type":"object","additionalProperties":
 *                           {"type":"string"}}
 *   FT_STRLIST/FT_INTLIST  {"type":"array","items":{...}}
 *   FT_STRUCT, FT_PTR      a reference to the sub-table's definition
 *   FT_LIST                an array of references; with a merge key also
 *                          x-kubernetes-patch-merge-key/-patch-strategy
 *                          ("merge") and list-type "map"
 *   FT_RAW                 {"type":"object",
 *                           "x-kubernetes-preserve-unknown-fields":true}
 *
 * and the description from schema_doc(). A kind's definition also carries
 * x-kubernetes-group-version-kind, which kubectl explain looks for.
 * Definitions are named as Kubernetes names them (the `names` table):
 * deployment_spec -> io.k8s.api.apps.v1.DeploymentSpec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_int.h"
#include "openapi.h"
#include "schema_doc.h"
#include "xalloc.h"

#define PKG_CORE "io.k8s.api.core.v1"
#define PKG_APPS "io.k8s.api.apps.v1"
#define PKG_DISC "io.k8s.api.discovery.v1"
#define PKG_META "io.k8s.apimachinery.pkg.apis.meta.v1"

/* C struct name -> Kubernetes' package and type name. pkg NULL: the
 * package of the type that refers to it (endpoint_port is
 * discovery.v1.EndpointPort in a slice, core.v1.EndpointPort in an
 * Endpoints); name NULL (condition): the referring status's name with
 * Condition for Status (DeploymentStatus -> DeploymentCondition). A
 * struct not listed is named by its C name in the referrer's package. */
static const struct {
	const char *c, *pkg, *name;
} names[] = {
    {"owner_ref", PKG_META, "OwnerReference"},
    {"object_meta", PKG_META, "ObjectMeta"},
    {"selector_req", PKG_META, "LabelSelectorRequirement"},
    {"label_selector", PKG_META, "LabelSelector"},
    {"field_ref", PKG_CORE, "ObjectFieldSelector"},
    {"env_source", PKG_CORE, "EnvVarSource"},
    {"env_var", PKG_CORE, "EnvVar"},
    {"container_port", PKG_CORE, "ContainerPort"},
    {"exec_action", PKG_CORE, "ExecAction"},
    {"http_header", PKG_CORE, "HTTPHeader"},
    {"http_get_action", PKG_CORE, "HTTPGetAction"},
    {"tcp_socket_action", PKG_CORE, "TCPSocketAction"},
    {"probe", PKG_CORE, "Probe"},
    {"resources", PKG_CORE, "ResourceRequirements"},
    {"lifecycle_handler", PKG_CORE, "LifecycleHandler"},
    {"lifecycle", PKG_CORE, "Lifecycle"},
    {"capabilities", PKG_CORE, "Capabilities"},
    {"security_context", PKG_CORE, "SecurityContext"},
    {"pod_security_context", PKG_CORE, "PodSecurityContext"},
    {"container", PKG_CORE, "Container"},
    {"toleration", PKG_CORE, "Toleration"},
    {"pod_spec", PKG_CORE, "PodSpec"},
    {"pod_template", PKG_CORE, "PodTemplateSpec"},
    {"condition", NULL, NULL},
    {"rolling_update", PKG_APPS, "RollingUpdateDeployment"},
    {"in_place_update", PKG_APPS, "InPlaceUpdateDeployment"},
    {"deployment_strategy", PKG_APPS, "DeploymentStrategy"},
    {"deployment_spec", PKG_APPS, "DeploymentSpec"},
    {"deployment_status", PKG_APPS, "DeploymentStatus"},
    {"deployment", PKG_APPS, "Deployment"},
    {"replicaset_spec", PKG_APPS, "ReplicaSetSpec"},
    {"replicaset_status", PKG_APPS, "ReplicaSetStatus"},
    {"replicaset", PKG_APPS, "ReplicaSet"},
    {"state_waiting", PKG_CORE, "ContainerStateWaiting"},
    {"state_running", PKG_CORE, "ContainerStateRunning"},
    {"state_terminated", PKG_CORE, "ContainerStateTerminated"},
    {"container_state", PKG_CORE, "ContainerState"},
    {"container_status", PKG_CORE, "ContainerStatus"},
    {"pod_ip", PKG_CORE, "PodIP"},
    {"pod_status", PKG_CORE, "PodStatus"},
    {"pod", PKG_CORE, "Pod"},
    {"taint", PKG_CORE, "Taint"},
    {"node_spec", PKG_CORE, "NodeSpec"},
    {"node_address", PKG_CORE, "NodeAddress"},
    {"node_info", PKG_CORE, "NodeSystemInfo"},
    {"node_status", PKG_CORE, "NodeStatus"},
    {"node", PKG_CORE, "Node"},
    {"service_port", PKG_CORE, "ServicePort"},
    {"service_spec", PKG_CORE, "ServiceSpec"},
    {"service", PKG_CORE, "Service"},
    {"object_ref", PKG_CORE, "ObjectReference"},
    {"endpoint_conditions", PKG_DISC, "EndpointConditions"},
    {"endpoint", PKG_DISC, "Endpoint"},
    {"endpoint_port", NULL, "EndpointPort"},
    {"endpoint_slice", PKG_DISC, "EndpointSlice"},
    {"endpoint_address", PKG_CORE, "EndpointAddress"},
    {"endpoint_subset", PKG_CORE, "EndpointSubset"},
    {"endpoints", PKG_CORE, "Endpoints"},
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

/* The package part of a full name ("io.k8s.api.apps.v1"). */
static void
package_of(const char *full, char *buf, size_t len)
{
	const char *dot = strrchr(full, '.');

	snprintf(buf, len, "%.*s", dot ? (int)(dot - full) : 0, full);
}

/* The definition name of s referred to from the type named parent
 * (NULL for a kind's own table). */
static void
def_name(const struct schema *s, const char *parent, char *buf, size_t len)
{
	char pkg[128] = PKG_CORE;
	size_t i;

	if (parent)
		package_of(parent, pkg, sizeof(pkg));
	for (i = 0; i < NNAMES; i++) {
		const char *p, *dot;

		if (strcmp(names[i].c, s->name))
			continue;
		p = names[i].pkg ? names[i].pkg : pkg;
		if (names[i].name) {
			snprintf(buf, len, "%s.%s", p, names[i].name);
			return;
		}
		/* condition: DeploymentStatus -> DeploymentCondition */
		dot = parent ? strrchr(parent, '.') : NULL;
		snprintf(buf, len, "%s.%.*sCondition", p,
			 dot && strstr(dot, "Status")
			     ? (int)(strstr(dot, "Status") - dot - 1)
			     : 0,
			 dot ? dot + 1 : "");
		return;
	}
	snprintf(buf, len, "%s.%s", pkg, s->name);
}

struct gen {
	json_t *defs;       /* name -> definition */
	const char *prefix; /* "#/components/schemas/" or "#/definitions/" */
	bool v3;
};

static void define(struct gen *g, const struct schema *s, const char *name,
		   const struct kind_info *k);

/* A reference to the definition of s, defining it first if needed. */
static json_t *
ref_to(struct gen *g, const struct schema *s, const char *parent)
{
	char name[256], ref[320];

	def_name(s, parent, name, sizeof(name));
	if (json_object_get(g->defs, name) == NULL)
		define(g, s, name, NULL);
	snprintf(ref, sizeof(ref), "%s%s", g->prefix, name);
	return json_pack("{ss}", "$ref", ref);
}

static json_t *
integer(unsigned flags)
{
	return json_pack("{ssss}", "type", "integer", "format",
			 flags & FF_INT32 ? "int32" : "int64");
}

/* Patch strategies the field tables do not hold (they hold merge keys):
 * Kubernetes' `patchStrategy:"retainKeys"` on DeploymentSpec.strategy,
 * so that kubectl apply sends {"strategy":{"$retainKeys":["type"],
 * "type":"Recreate"}} and the server drops rollingUpdate. */
static const char *
retain_keys(const struct schema *s, const char *json)
{
	if (!strcmp(s->name, "deployment_spec") && !strcmp(json, "strategy"))
		return "retainKeys";
	return NULL;
}

/* The property of field f of parent_schema, whose definition is named
 * parent. */
static json_t *
property(struct gen *g, const struct schema *parent_schema,
	 const struct field *f, const char *parent, const char *doc)
{
	json_t *p = NULL;

	switch (f->type) {
	case FT_STR:
		p = json_pack("{ss}", "type", "string");
		break;
	case FT_INT:
	case FT_OPTINT:
		p = integer(f->flags);
		break;
	case FT_BOOL:
	case FT_OPTBOOL:
		p = json_pack("{ss}", "type", "boolean");
		break;
	case FT_TIME:
		p = json_pack("{ssss}", "type", "string", "format",
			      "date-time");
		break;
	case FT_INTSTR:
		p = json_pack("{sssssb}", "type", "string", "format",
			      "int-or-string", "x-kubernetes-int-or-string",
			      true);
		break;
	case FT_STRMAP:
		p = json_pack("{sss{ss}}", "type", "object",
			      "additionalProperties", "type", "string");
		break;
	case FT_STRLIST:
		p = json_pack("{sss{ss}}", "type", "array", "items", "type",
			      "string");
		break;
	case FT_INTLIST:
		p = json_pack("{ssso}", "type", "array", "items",
			      integer(FF_INT64));
		break;
	case FT_STRUCT:
	case FT_PTR:
		if (g->v3) /* Kubernetes' v3 form, room for a description */
			p = json_pack("{s[o]}", "allOf",
				      ref_to(g, f->sub, parent));
		else
			p = ref_to(g, f->sub, parent);
		break;
	case FT_LIST:
		p = json_pack("{ssso}", "type", "array", "items",
			      ref_to(g, f->sub, parent));
		if (f->merge_key) {
			json_object_set_new(p, "x-kubernetes-patch-merge-key",
					    json_string(f->merge_key));
			json_object_set_new(p, "x-kubernetes-patch-strategy",
					    json_string("merge"));
			json_object_set_new(p, "x-kubernetes-list-type",
					    json_string("map"));
			json_object_set_new(p, "x-kubernetes-list-map-keys",
					    json_pack("[s]", f->merge_key));
		}
		break;
	case FT_RAW:
		p = json_pack("{sssb}", "type", "object",
			      "x-kubernetes-preserve-unknown-fields", true);
		break;
	}
	if (p == NULL)
		p = json_object();
	/* v2 forbids siblings of $ref, but Kubernetes' documents have
	 * them, and kubectl reads them (description, patch strategy) */
	if (doc)
		json_object_set_new(p, "description", json_string(doc));
	if ((doc = retain_keys(parent_schema, f->json)))
		json_object_set_new(p, "x-kubernetes-patch-strategy",
				    json_string(doc));
	return p;
}

/* Adds the definition of s under name (k: the kind whose table s is). */
static void
define(struct gen *g, const struct schema *s, const char *name,
       const struct kind_info *k)
{
	json_t *d = json_pack("{sss{}}", "type", "object", "properties");
	json_t *props = json_object_get(d, "properties");
	const char *doc = schema_doc(s, NULL);
	size_t i;

	/* in first, so that a type that refers back to itself stops */
	json_object_set_new(g->defs, name, d);
	if (doc)
		json_object_set_new(d, "description", json_string(doc));
	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];

		json_object_set_new(
		    props, f->json,
		    property(g, s, f, name, schema_doc(s, f->json)));
	}
	if (k)
		json_object_set_new(d, "x-kubernetes-group-version-kind",
				    json_pack("[{ssssss}]", "group", k->group,
					      "version", k->version, "kind",
					      k->kind));
}

/* ---- paths ---- */

/* "AppsV1" / "CoreV1" / "DiscoveryV1" for operation ids. */
static void
op_group(const struct kind_info *k, char *buf, size_t len)
{
	char g[64];
	size_t i;

	snprintf(g, sizeof(g), "%s", *k->group ? k->group : "core");
	for (i = 0; g[i]; i++)
		if (g[i] == '.') {
			g[i] = '\0';
			break;
		}
	g[0] = (char)(g[0] - 'a' + 'A');
	snprintf(buf, len, "%s%c%s", g, k->version[0] - 'a' + 'A',
		 k->version + 1);
}

static json_t *
query_param(struct gen *g, const char *name, const char *desc)
{
	if (g->v3)
		return json_pack("{sssssss{ss}}", "name", name, "in", "query",
				 "description", desc, "schema", "type",
				 "string");
	return json_pack("{ssssssss}", "name", name, "in", "query",
			 "description", desc, "type", "string");
}

/* The parameters of a write: dryRun, fieldManager, fieldValidation (the
 * one kubectl looks for before it leaves validation to the server). */
static json_t *
write_params(struct gen *g)
{
	return json_pack(
	    "[ooo]",
	    query_param(g, "dryRun",
			"When present, indicates that modifications should "
			"not be persisted. Valid values are: All"),
	    query_param(g, "fieldManager",
			"fieldManager is a name associated with the actor or "
			"entity that is making these changes."),
	    query_param(g, "fieldValidation",
			"fieldValidation instructs the server on how to "
			"handle objects in the request containing unknown or "
			"duplicate fields. Valid values are: Ignore, Warn, "
			"Strict (drover: unknown fields are always "
			"refused)."));
}

/* One operation on kind k: action is Kubernetes' x-kubernetes-action
 * ("get", "list", "create", "put", "patch", "delete"); body: whether it
 * takes the object (create, put). */
static json_t *
operation(struct gen *g, const struct kind_info *k, const char *verb,
	  const char *action, const char *what, bool body, bool writes,
	  const char *ref)
{
	char id[160], grp[96];
	json_t *op, *ok;

	op_group(k, grp, sizeof(grp));
	/* "patchAppsV1NamespacedDeployment", "listCoreV1Node" */
	snprintf(id, sizeof(id), "%s%s%s%s", verb, grp,
		 k->namespaced ? "Namespaced" : "", k->kind);
	if (g->v3)
		ok =
		    json_pack("{sss{s{s{ss}}}}", "description", "OK", "content",
			      "application/json", "schema", "$ref", ref);
	else
		ok = json_pack("{sss{ss}}", "description", "OK", "schema",
			       "$ref", ref);
	op = json_pack("{sss[s]sssss{so}}", "description", what, "tags", grp,
		       "operationId", id, "x-kubernetes-action", action,
		       "responses", "200", ok);
	json_object_set_new(op, "x-kubernetes-group-version-kind",
			    json_pack("{ssssss}", "group", k->group, "version",
				      k->version, "kind", k->kind));
	json_object_set_new(op, "parameters",
			    writes ? write_params(g) : json_array());
	/* No requestBody on PATCH: with one that names the strategic merge
	 * patch type, kubectl 1.33 would build apply patches from these
	 * schemas instead of its compiled-in types (kubectl-compat §5). */
	if (body && g->v3)
		json_object_set_new(op, "requestBody",
				    json_pack("{s{s{s{ss}}}sb}", "content",
					      "application/json", "schema",
					      "$ref", ref, "required", true));
	else if (body)
		json_array_append_new(json_object_get(op, "parameters"),
				      json_pack("{sssssbs{ss}}", "name", "body",
						"in", "body", "required", true,
						"schema", "$ref", ref));
	return op;
}

static json_t *
path_param(struct gen *g, const char *name, const char *desc)
{
	if (g->v3)
		return json_pack("{sssssssbs{ss}}", "name", name, "in", "path",
				 "description", desc, "required", true,
				 "schema", "type", "string");
	return json_pack("{sssssssbss}", "name", name, "in", "path",
			 "description", desc, "required", true, "type",
			 "string");
}

/* The collection and object paths of kind k into paths. */
static void
kind_paths(struct gen *g, const struct kind_info *k, json_t *paths)
{
	char base[256], coll[320], item[384], ref[320], def[256];
	json_t *c, *it, *params;

	def_name(k->schema, NULL, def, sizeof(def));
	snprintf(ref, sizeof(ref), "%s%s", g->prefix, def);
	snprintf(base, sizeof(base), "%s%s%s", *k->group ? "/apis/" : "/api/",
		 k->api_version,
		 k->namespaced ? "/namespaces/{namespace}" : "");
	snprintf(coll, sizeof(coll), "%s/%s", base, k->plural);
	snprintf(item, sizeof(item), "%s/{name}", coll);

	params = json_array();
	if (k->namespaced)
		json_array_append_new(
		    params, path_param(g, "namespace",
				       "object name and auth scope, such as "
				       "for teams and projects"));
	c = json_pack("{soso}", "get",
		      operation(g, k, "list", "list",
				"list objects of the kind", false, false, ref),
		      "post",
		      operation(g, k, "create", "post", "create an object",
				true, true, ref));
	json_object_set(c, "parameters", params);
	json_object_set_new(paths, coll, c);

	json_array_append_new(params,
			      path_param(g, "name", "name of the object"));
	it = json_pack(
	    "{sosososo}", "get",
	    operation(g, k, "read", "get", "read the specified object", false,
		      false, ref),
	    "put",
	    operation(g, k, "replace", "put", "replace the specified object",
		      true, true, ref),
	    "patch",
	    operation(g, k, "patch", "patch",
		      "partially update the specified object", false, true,
		      ref),
	    "delete",
	    operation(g, k, "delete", "delete", "delete an object", false,
		      false, ref));
	json_object_set_new(it, "parameters", params);
	json_object_set_new(paths, item, it);
	if (k->namespaced) { /* the list across namespaces (`get -A`) */
		json_t *op = operation(g, k, "list", "list",
				       "list objects of the kind in every "
				       "namespace",
				       false, false, ref);

		snprintf(coll, sizeof(coll), "%s%s/%s",
			 *k->group ? "/apis/" : "/api/", k->api_version,
			 k->plural);
		json_object_set_new(
		    op, "operationId",
		    json_sprintf("list%s%sForAllNamespaces",
				 json_string_value(json_array_get(
				     json_object_get(op, "tags"), 0)),
				 k->kind));
		json_object_set_new(paths, coll, json_pack("{so}", "get", op));
	}
}

/* Definitions and paths of every kind of group-version gv (NULL: all). */
static bool
generate(struct gen *g, const char *gv, json_t *paths)
{
	const struct kind_info *k;
	size_t n, i;
	bool any = false;

	k = kinds_all(&n);
	for (i = 0; i < n; i++) {
		char name[256];

		if (gv && strcmp(k[i].api_version, gv))
			continue;
		any = true;
		def_name(k[i].schema, NULL, name, sizeof(name));
		define(g, k[i].schema, name, &k[i]);
		kind_paths(g, &k[i], paths);
	}
	return any;
}

static json_t *
info(void)
{
	return json_pack("{ssss}", "title", "Kubernetes", "version",
			 "v1." DROVER_K8S_MINOR ".0");
}

json_t *
openapi_v3_document(const char *gv)
{
	struct gen g = {json_object(), "#/components/schemas/", true};
	json_t *paths = json_object();

	if (!generate(&g, gv, paths)) {
		json_decref(g.defs);
		json_decref(paths);
		return NULL;
	}
	return json_pack("{sssoso s{so}}", "openapi", "3.0.0", "info", info(),
			 "paths", paths, "components", "schemas", g.defs);
}

json_t *
openapi_v2_document(void)
{
	struct gen g = {json_object(), "#/definitions/", false};
	json_t *paths = json_object();

	generate(&g, NULL, paths);
	return json_pack("{sssososo}", "swagger", "2.0", "info", info(),
			 "paths", paths, "definitions", g.defs);
}

size_t
openapi_group_versions(const char *gvs[16])
{
	const struct kind_info *k;
	size_t n, i, j, m = 0;

	k = kinds_all(&n);
	for (i = 0; i < n; i++) {
		for (j = 0; j < m; j++)
			if (!strcmp(gvs[j], k[i].api_version))
				break;
		if (j == m && m < 16)
			gvs[m++] = k[i].api_version;
	}
	return m;
}

/* ---- the cache and the handler ---- */

struct openapi_cache {
	char *v2;    /* the Swagger 2.0 document, text */
	char *v2pb;  /* the same as protobuf (no NUL inside) */
	char *index; /* the v3 index, text */
	struct {
		char path[80]; /* "apis/apps/v1" */
		char *text;
	} gv[16];
	size_t ngv;
};

/* FNV-1a 64 of the text, as the ?hash= of the index (Kubernetes uses a
 * SHA-512; kubectl only compares it). */
static void
hash_of(const char *s, char *buf, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	snprintf(buf, len, "%016llX", (unsigned long long)h);
}

static struct openapi_cache *
cache_of(struct api *a)
{
	struct openapi_cache *c = a->openapi;
	const char *gvs[16];
	json_t *index;
	size_t n, i;

	if (c)
		return c;
	c = xcalloc(1, sizeof(*c));
	index = openapi_v2_document();
	c->v2 = json_dumps(index, JSON_COMPACT);
	{
		struct strbuf pb = STRBUF_INIT;

		openapi_v2_protobuf(index, &pb);
		c->v2pb = strbuf_detach(&pb);
	}
	json_decref(index);
	index = json_object();
	n = openapi_group_versions(gvs);
	for (i = 0; i < n; i++) {
		json_t *doc = openapi_v3_document(gvs[i]);
		char url[160], hash[32];

		snprintf(c->gv[i].path, sizeof(c->gv[i].path), "%s%s",
			 strchr(gvs[i], '/') ? "apis/" : "api/", gvs[i]);
		c->gv[i].text = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
		hash_of(c->gv[i].text, hash, sizeof(hash));
		snprintf(url, sizeof(url), "/openapi/v3/%s?hash=%s",
			 c->gv[i].path, hash);
		json_object_set_new(
		    index, c->gv[i].path,
		    json_pack("{ss}", "serverRelativeURL", url));
	}
	c->ngv = n;
	{
		json_t *doc = json_pack("{so}", "paths", index);

		c->index = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
	}
	a->openapi = c;
	return c;
}

void
openapi_cache_free(struct openapi_cache *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->ngv; i++)
		free(c->gv[i].text);
	free(c->v2);
	free(c->v2pb);
	free(c->index);
	free(c);
}

static void
answer_text(struct api_resp *resp, const char *text, const char *type)
{
	resp->status = 200;
	resp->content_type = type;
	resp->body = xstrdup(text);
}

void
h_openapi(struct api *a, const struct api_req *req, struct api_resp *resp)
{
	const char *p = req->path, *acc = req->accept;
	struct openapi_cache *c;
	size_t i;

	resp->stateless = true;
	c = cache_of(a);
	if (!strcmp(p, "/openapi/v2") || !strcmp(p, "/openapi/v2/")) {
		/* kubectl asks for the protobuf form only; the type must be
		 * one Go's mime.ParseMediaType reads (kubectl-compat §5) */
		if (acc && strstr(acc, "protobuf") && !strstr(acc, "json")) {
			answer_text(resp, c->v2pb, "application/octet-stream");
			return;
		}
		answer_text(resp, c->v2, "application/json");
		return;
	}
	if (!strcmp(p, "/openapi/v3") || !strcmp(p, "/openapi/v3/")) {
		answer_text(resp, c->index, "application/json");
		return;
	}
	if (!strncmp(p, "/openapi/v3/", 12))
		for (i = 0; i < c->ngv; i++)
			if (!strcmp(p + 12, c->gv[i].path)) {
				answer_text(resp, c->gv[i].text,
					    "application/json");
				return;
			}
	resp_status(resp, 404, "NotFound",
		    "the server could not find the requested resource", NULL,
		    NULL, NULL);
}
