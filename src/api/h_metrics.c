/* h_metrics.c - GET /metrics (the Prometheus text format of every
 * collector registered with the daemon's registry), and the API's own
 * families: requests by verb, resource and code and their latencies, as
 * Kubernetes' API server counts them (k8s.io/apiserver/pkg/endpoints/
 * metrics: apiserver_request_total, apiserver_request_duration_seconds),
 * and the store's writes and commits.
 *
 * Series are hashed by their label values (uthash) and written in the
 * order they first appeared. Example after one create and one list:
 *
 *   drover_apiserver_request_total{verb="CREATE",resource="deployments",
 *       subresource="",code="201"} 1
 *   drover_apiserver_request_total{verb="LIST",resource="pods",
 *       subresource="",code="200"} 1 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "api_int.h"
#include "clock.h"
#include "histogram.h"
#include "metrics.h"
#include "xalloc.h"

/* One series of apiserver_request_total; key "VERB resource sub code". */
struct req_count {
	char *key;
	char *verb, *resource, *sub;
	int code;
	uint64_t n;
	UT_hash_handle hh;
};

/* One series of apiserver_request_duration_seconds; key "VERB res sub". */
struct req_latency {
	char *key;
	char *verb, *resource, *sub;
	struct histogram h;
	UT_hash_handle hh;
};

/* The verb as the metrics label it: Kubernetes' verb in capitals (GET,
 * LIST, CREATE, ...), the HTTP method for a request that names no
 * resource. */
static const char *
metrics_verb(const char *method, const struct route *rt, char *buf, size_t len)
{
	size_t i;

	if (rt == NULL)
		return method;
	snprintf(buf, len, "%s", api_verb(method, rt));
	for (i = 0; buf[i]; i++)
		if (buf[i] >= 'a' && buf[i] <= 'z')
			buf[i] -= 'a' - 'A';
	return buf;
}

void
api_metrics_observe_verb(struct api *a, const char *verb,
			 const struct route *rt, int code, uint64_t started)
{
	const char *res = rt && rt->res ? rt->res->plural : "";
	const char *sub = rt && rt->sub ? rt->sub : "";
	double secs = (double)(clock_mono_ns() - started) / 1e9;
	struct req_count *c;
	struct req_latency *l;
	char key[256];

	snprintf(key, sizeof(key), "%s %s %s", verb, res, sub);
	HASH_FIND_STR(a->req_latencies, key, l);
	if (l == NULL) {
		l = xcalloc(1, sizeof(*l));
		l->key = xstrdup(key);
		l->verb = xstrdup(verb);
		l->resource = xstrdup(res);
		l->sub = xstrdup(sub);
		histogram_init(&l->h, histogram_apiserver_bounds,
			       HISTOGRAM_NBOUNDS(histogram_apiserver_bounds));
		HASH_ADD_KEYPTR(hh, a->req_latencies, l->key, strlen(l->key),
				l);
	}
	histogram_observe(&l->h, secs);
	snprintf(key + strlen(key), sizeof(key) - strlen(key), " %d", code);
	HASH_FIND_STR(a->req_counts, key, c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		c->key = xstrdup(key);
		c->verb = l->verb;
		c->resource = l->resource;
		c->sub = l->sub;
		c->code = code;
		HASH_ADD_KEYPTR(hh, a->req_counts, c->key, strlen(c->key), c);
	}
	c->n++;
}

void
api_metrics_observe(struct api *a, const struct api_req *req,
		    const struct route *rt, int code, uint64_t started)
{
	char vb[32];

	api_metrics_observe_verb(a,
				 metrics_verb(req->method, rt, vb, sizeof(vb)),
				 rt, code, started);
}

void
api_metrics_free(struct api *a)
{
	struct req_count *c, *ct;
	struct req_latency *l, *lt;

	HASH_ITER(hh, a->req_counts, c, ct)
	{
		HASH_DEL(a->req_counts, c);
		free(c->key);
		free(c); /* its label strings are its latency series' */
	}
	HASH_ITER(hh, a->req_latencies, l, lt)
	{
		HASH_DEL(a->req_latencies, l);
		free(l->key);
		free(l->verb);
		free(l->resource);
		free(l->sub);
		histogram_release(&l->h);
		free(l);
	}
}

static void
labels(struct strbuf *lb, const char *verb, const char *res, const char *sub)
{
	strbuf_reset(lb);
	metrics_label(lb, "verb", verb);
	metrics_label(lb, "resource", res);
	metrics_label(lb, "subresource", sub);
}

void
api_metrics_collect(void *arg, struct strbuf *out)
{
	struct api *a = arg;
	struct req_count *c;
	struct req_latency *l;
	struct strbuf lb = STRBUF_INIT;
	uint64_t hits, misses;
	char code[16];

	metrics_family(out, "drover_apiserver_request_total", "counter",
		       "Counter of apiserver requests broken out for each "
		       "verb, resource, subresource and HTTP response code.");
	for (c = a->req_counts; c; c = c->hh.next) {
		labels(&lb, c->verb, c->resource, c->sub);
		snprintf(code, sizeof(code), "%d", c->code);
		metrics_label(&lb, "code", code);
		metrics_sample_u64(out, "drover_apiserver_request_total",
				   lb.buf, c->n);
	}
	metrics_family(out, "drover_apiserver_request_duration_seconds",
		       "histogram",
		       "Response latency distribution in seconds for each "
		       "verb, resource and subresource.");
	for (l = a->req_latencies; l; l = l->hh.next) {
		labels(&lb, l->verb, l->resource, l->sub);
		metrics_histogram(out,
				  "drover_apiserver_request_duration_seconds",
				  lb.buf, &l->h);
	}
	strbuf_release(&lb);
	objcache_counts(a->cache, &hits, &misses);
	metrics_family(out, "drover_apiserver_object_cache_lookups_total",
		       "counter",
		       "Reads of a stored object before a write of it, by "
		       "whether the decoded object was cached at the stored "
		       "version.");
	metrics_sample_u64(out, "drover_apiserver_object_cache_lookups_total",
			   "result=\"hit\"", hits);
	metrics_sample_u64(out, "drover_apiserver_object_cache_lookups_total",
			   "result=\"miss\"", misses);
}

void
api_store_metrics_collect(void *arg, struct strbuf *out)
{
	struct api *a = arg;
	struct store_stats st;
	struct strbuf lb = STRBUF_INIT;

	memset(&st, 0, sizeof(st));
	store_stats(a->cfg.store, &st);
	metrics_family(out, "drover_store_writes_total", "counter",
		       "Writes applied by the store, by operation.");
	metrics_label(&lb, "operation", "create");
	metrics_sample_u64(out, "drover_store_writes_total", lb.buf,
			   st.creates);
	strbuf_reset(&lb);
	metrics_label(&lb, "operation", "update");
	metrics_sample_u64(out, "drover_store_writes_total", lb.buf,
			   st.updates);
	strbuf_reset(&lb);
	metrics_label(&lb, "operation", "delete");
	metrics_sample_u64(out, "drover_store_writes_total", lb.buf,
			   st.deletes);
	metrics_family(out, "drover_store_commits_total", "counter",
		       "Groups of writes committed by the store.");
	metrics_sample_u64(out, "drover_store_commits_total", NULL, st.commits);
	metrics_family(out, "drover_store_commit_failures_total", "counter",
		       "Groups of writes the store could not commit and "
		       "rolled back (a full disk, an I/O error).");
	metrics_sample_u64(out, "drover_store_commit_failures_total", NULL,
			   st.commit_failures);
	metrics_family(out, "drover_store_commit_duration_seconds", "histogram",
		       "Time the event loop spent committing a group of "
		       "writes, in seconds.");
	metrics_histogram(out, "drover_store_commit_duration_seconds", NULL,
			  &st.commit_seconds);
	metrics_family(out, "drover_store_fsync_duration_seconds", "histogram",
		       "Latency of the store's background syncs of its "
		       "write-ahead log, in seconds.");
	metrics_histogram(out, "drover_store_fsync_duration_seconds", NULL,
			  &st.fsync_seconds);
	store_stats_release(&st);
	strbuf_release(&lb);
}

void
h_metrics(struct api *a, const struct api_req *req, struct api_resp *resp)
{
	struct strbuf sb = STRBUF_INIT;

	resp->stateless = true; /* counters, nothing of the store's objects */
	if (a->cfg.metrics == NULL) {
		resp_status(resp, 404, "NotFound",
			    "the server could not find the requested resource",
			    NULL, NULL, NULL);
		return;
	}
	if (strcmp(req->method, "GET")) {
		resp_status(resp, 405, "MethodNotAllowed",
			    "the server does not allow this method on the "
			    "requested resource",
			    NULL, NULL, NULL);
		return;
	}
	metrics_collect(a->cfg.metrics, &sb);
	resp->status = 200;
	resp->body = strbuf_detach(&sb);
	resp->content_type = METRICS_CONTENT_TYPE;
}
