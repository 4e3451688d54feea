/* api_int.h - what the files of the API share: the resource table, the
 * parsed request, and response helpers. Not for use outside src/api. */
#ifndef DROVER_API_INT_H
#define DROVER_API_INT_H

#include <jansson.h>

#include "api.h"
#include "fielderr.h"
#include "kinds.h"
#include "model.h"
#include "objcache.h"

/* Written values kept for their events (api_hold_written); past this the
 * oldest is dropped and its event parsed. 64 and 256 gave the same
 * figures in bench/scale's 200 Deployments (a turn writes at most 50
 * pods of one ReplicaSet). */
#define API_HELD_MAX 64

struct api {
	struct api_config cfg;
	/* The served object of the last store event, shared by the watches
	 * that get it (an rv names one event): see event_object(). */
	json_t *ev_obj;
	int64_t ev_rv;
	/* The values of this turn's creates and updates, oldest first, until
	 * their events are delivered: see api_hold_written(). */
	struct held_value {
		int64_t rv;
		json_t *v;
	} held[API_HELD_MAX];
	size_t held_head, nheld;
	/* The agents that serve their node's logs (api_serve_node_logs). */
	struct node_logs {
		char *node;
		podlog_read_fn read;
		void *arg;
	} * logs;
	size_t nlogs;
	/* The clients of joined nodes' agents (h_log_remote.c). */
	struct node_client *node_clients;
	/* Decoded stored objects at their versions (objcache.h). */
	struct objcache *cache;
	/* The OpenAPI documents, made on first use (openapi.c). */
	struct openapi_cache *openapi;
	/* Request counts and latencies (h_metrics.c). */
	struct req_count *req_counts;
	struct req_latency *req_latencies;
};

/* The Kubernetes minor version drover reports in /version (kubectl's
 * dispatcher, /usr/bin/kubectl, runs the kubectl of that minor) and in
 * the OpenAPI documents' info. */
#define DROVER_K8S_MINOR "28"

/* A request after routing. */
struct route {
	const struct kind_info *res;
	const char *ns;   /* NULL: all namespaces (lists, watches) */
	const char *name; /* NULL: the collection */
	const char *sub;  /* NULL, "status", "scale" */
	bool dry_run;     /* dryRun=All: answer as if done, store nothing */
	/* A GET whose Accept asks for a meta.k8s.io Table (table.c): its
	 * version ("v1", "v1beta1"), "" for none; and ?includeObject=. */
	char table[8];
	int include;    /* enum table_include */
	char buf[1024]; /* storage for the pieces above */
};

struct query {
	char *keys[32];
	char *vals[32];
	size_t n;
};

void query_parse(const char *q, struct query *out);
/* The request's query: its decoded args if the server gave them, else
 * its query string parsed. */
void query_of(const struct api_req *req, struct query *out);
void query_release(struct query *q);
const char *query_get(const struct query *q, const char *key);
/* A boolean parameter as the API server reads it (Go's
 * strconv.ParseBool): "1", "t", "T", "true", "True", "TRUE" are true
 * (the Python client sends watch=True); absent or anything else false. */
bool query_bool(const struct query *q, const char *key);

/* Responses. */
void resp_json(struct api_resp *resp, int status, json_t *body);
void resp_status(struct api_resp *resp, int code, const char *reason,
		 const char *message, const struct kind_info *res,
		 const char *name, const struct fielderr_list *causes);
void resp_not_found(struct api_resp *resp, const struct kind_info *res,
		    const char *name);
void resp_store_error(struct api_resp *resp, int err,
		      const struct kind_info *res, const char *name);
/* 500 InternalError in Kubernetes' shape ("Internal error occurred: ",
 * the cause in details.causes): a write the store could not commit. */
void resp_internal(struct api_resp *resp, const char *cause);
/* 503 ServiceUnavailable: the store is read-only. */
void resp_store_unavailable(struct api_resp *resp);
void resp_invalid(struct api_resp *resp, const struct kind_info *res,
		  const char *name, const struct fielderr_list *errs);

/* h_service.c: 0 if no other stored Service holds one of the ports of
 * Service o, else -1 with the answer (422, "provided port is already
 * allocated" on spec.ports[i].port) in resp. */
int service_ports_free(struct api *a, const struct object *o,
		       struct api_resp *resp);
/* h_service.c: 0 unless a targetPort of Service o is a name that none of
 * the pods (and pod templates) it selects declares; then -1 with the
 * answer (422 on spec.ports[i].targetPort) in resp. */
int service_target_ports_known(struct api *a, const struct object *o,
			       struct api_resp *resp);

/* h_service.c: spec.clusterIP and clusterIPs of Service o, written
 * (old: the stored Service of an update, else NULL). Created: the address
 * of the API server's node (its InternalIP), where a client on this host
 * reaches the Service, or left empty before that node exists; another
 * address is refused (422). Updated: kept; another value is refused as
 * Kubernetes refuses it (immutable). 0, or -1 with the answer in resp. */
int service_cluster_ip(struct api *a, struct object *o,
		       const struct object *old, struct api_resp *resp);

/* Stored JSON text -> the object as served (resourceVersion set). */
json_t *served_object(const struct store_item *it);
/* The same as text appended to out, without parsing: the store holds
 * text the codec wrote, {"apiVersion":..,"kind":..,"metadata":{...},...}
 * with no resourceVersion, so it goes in at the head of metadata. A
 * 20,000-pod list is a copy of its items instead of a parse and a print
 * of each. false (nothing appended) if the text is not of that shape. */
bool served_text(const struct store_item *it, struct strbuf *out);
/* served_object() of a store event's item, decoded once for all the
 * watches that receive the event: a new reference to a shared object,
 * which no one may modify. The value a create or an update was answered
 * with (api_hold_written) stands in for the parse when its event comes:
 * that parse was 18% of the daemon's CPU while the template of 200
 * Deployments changed, which now roll 10-14% sooner as objects, for
 * 0.4-0.5 MB more RSS with 100 pods (13.0 -> 13.5 MB: the values are
 * freed after the delivery instead of at once). Earlier tries kept more
 * for longer: the values of a turn until its commit (0.7 MB of RSS, no
 * CPU saved that the rollout bench could see), a ring of the last 512
 * written values (`test_huge_scale` 10-20% slower, the held values
 * crowding the heap), a cache of the 512 objects written last (commit
 * e8a1ee6: 1.4-2 MB more RSS). */
json_t *event_object(struct api *a, const struct store_item *it);
/* Keeps a reference to v, the value of the create or update that got rv
 * (resourceVersion set, as served), for event_object(): written and
 * answered read-only (the in-process client's callers only read an
 * answer), it is the event's object, unparsed. Held values are released
 * as the events of later versions are delivered, so a loop turn's writes
 * at most are held. */
void api_hold_written(struct api *a, int64_t rv, json_t *v);

/* Metrics (h_metrics.c): GET /metrics, and the accounting of one
 * request that began at started (clock_mono_ns) and was answered code;
 * rt NULL for a request that names no resource. verb NULL: from the
 * method and the route (a watch passes "WATCH"). */
void h_metrics(struct api *a, const struct api_req *req, struct api_resp *resp);
void api_metrics_observe(struct api *a, const struct api_req *req,
			 const struct route *rt, int code, uint64_t started);
void api_metrics_observe_verb(struct api *a, const char *verb,
			      const struct route *rt, int code,
			      uint64_t started);
void api_metrics_free(struct api *a);

/* Handlers. */
void h_discovery(struct api *a, const struct api_req *req,
		 struct api_resp *resp);
void h_get(struct api *a, struct route *rt, const struct query *q,
	   struct api_resp *resp);
/* pods/log of a pod on node, whose agent is not in this process: a
 * deferred answer from that agent (h_log_remote.c). 0, or -1 if the node
 * says nowhere to ask (resp untouched). */
struct podlog_req;
int h_log_remote(struct api *a, const char *node, const struct route *rt,
		 const struct podlog_req *rq, struct api_resp *resp);
void h_log_remote_free(struct api *a);
void h_log(struct api *a, struct route *rt, const struct query *q,
	   struct api_resp *resp);
void h_list(struct api *a, struct route *rt, const struct query *q,
	    struct api_resp *resp);
void h_create(struct api *a, struct route *rt, const struct api_req *req,
	      struct api_resp *resp);
void h_update(struct api *a, struct route *rt, const struct api_req *req,
	      struct api_resp *resp);
void h_patch(struct api *a, struct route *rt, const struct api_req *req,
	     struct api_resp *resp);
/* The text to store for o, and in *j the value it was printed from,
 * which the answer reuses rather than parsing the text back (the caller
 * owns both); no resourceVersion (the store's rv is the truth). */
char *api_encode_text(const struct object *o, json_t **j);
/* The request's body as JSON (a new reference), or NULL with a 400
 * answer in resp (garbage, or no body). */
json_t *api_parse_body(const struct api_req *req, struct api_resp *resp);
void h_inplace(struct api *a, struct route *rt, const struct api_req *req,
	       struct api_resp *resp);
/* The stored object of the route, decoded (with its resourceVersion)
 * into o and its store item into it, both the caller's to release; else
 * the answer in resp (404, 500) and -1. */
int api_load(struct api *a, struct route *rt, struct store_item *it,
	     struct object *o, struct api_resp *resp);
/* Kubernetes' verb of a routed request (RequestInfo's): get, list,
 * create, update, patch, delete, deletecollection; the method for any
 * other. A watch is a list here, as the metrics count it. */
const char *api_verb(const char *method, const struct route *rt);
/* /drover/v1/... (h_drover.c): true if the path is one (resp filled). */
bool h_drover(struct api *a, const struct api_req *req, struct api_resp *resp);
/* NodeRestriction (node_authz.c): 0 if req->node may do it, else -1 with
 * the 403 in resp. */
int api_node_authorize(struct api *a, const struct api_req *req,
		       const struct route *rt, struct api_resp *resp);
/* POST pods/NAME/eviction (h_evict.c). */
void h_evict(struct api *a, struct route *rt, const struct api_req *req,
	     struct api_resp *resp);
void h_bind(struct api *a, struct route *rt, const struct api_req *req,
	    struct api_resp *resp);
void h_delete(struct api *a, struct route *rt, const struct query *q,
	      const struct api_req *req, struct api_resp *resp);

/* Matching for lists and watches: label and field selectors from the
 * query, parsed as fields.ParseSelector does and limited to the field
 * labels kid supports. Returns -1 and fills resp (400) on a bad
 * selector. */
struct filter {
	enum kind_id kid; /* whose field labels are supported */
	struct label_selector labels;
	bool has_labels;
	char *field_path[8];
	char *field_value[8];
	bool field_neg[8];
	size_t nfields;
};
int filter_parse(const struct query *q, enum kind_id kid, struct filter *f,
		 struct api_resp *resp);
bool filter_match(const struct filter *f, const struct store_item *it,
		  json_t *obj);
void filter_release(struct filter *f);

int route_parse(const char *path, struct route *rt);

/* Server-side printing (table.c). */
enum table_include {
	TABLE_INCLUDE_METADATA, /* the default: a PartialObjectMetadata */
	TABLE_INCLUDE_OBJECT,
	TABLE_INCLUDE_NONE,
};
/* True if an Accept header asks for a meta.k8s.io Table; its version
 * ("v1" or "v1beta1") into version. */
bool table_wanted(const char *accept, char *version, size_t len);
/* ?includeObject=None|Metadata|Object. */
enum table_include table_include_parse(const char *s);
/* The Table of n served objects of kind k (the objects are only read),
 * with metadata.resourceVersion rv (NULL: none). New reference. */
json_t *table_of(const struct kind_info *k, json_t *const *objs, size_t n,
		 const char *rv, const char *version, enum table_include inc,
		 dtime now);
/* One row of a Table of kind k (the Table's version): a list sent in
 * pieces prints its rows one at a time. New reference. */
json_t *table_row_of(const struct kind_info *k, json_t *obj,
		     const char *version, enum table_include inc, dtime now);
/* The text of an empty Table of kind k up to its rows, ending with
 * "rows":[ (the caller prints the rows and "]}"); NULL on a failure.
 * Ownership: the caller frees it. */
char *table_head_text(const struct kind_info *k, const char *rv,
		      const char *version);
/* The one-row Table of a get or a watch event: the object's own
 * resourceVersion. */
json_t *table_of_one(const struct kind_info *k, json_t *obj,
		     const char *version, enum table_include inc, dtime now);

/* Request options (options.c). */
/* A 422 Status for invalid request options: `CreateOptions.meta.k8s.io ""
 * is invalid: ...`. */
void resp_options_invalid(struct api_resp *resp, const char *options_kind,
			  const struct fielderr_list *errs);
/* ValidateDryRun of n dryRun values: 1 for a dry run, 0 for none; -1
 * with a 422 Status naming options_kind ("CreateOptions") in resp. */
int dry_run_check(const char *const *vals, size_t n, const char *options_kind,
		  struct api_resp *resp);
/* The same for every dryRun value of the query string. */
int dry_run_query(const struct query *q, const char *options_kind,
		  struct api_resp *resp);
/* True if Content-Type ct names the media type want, parameters aside. */
bool media_type_is(const char *ct, const char *want);
/* A body to decode must be JSON: 0, or -1 with a 415 Status in resp. */
int body_media_type(const struct api_req *req, struct api_resp *resp);
/* A resourceVersion to list or watch from ("" and absent: 0); -1 with a
 * 400 Status in resp if it is not an unsigned number. */
int rv_parse(const char *s, int64_t *out, struct api_resp *resp);

#endif
