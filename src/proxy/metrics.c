/* metrics.c - the proxy's counters read from any thread: per service,
 * endpoint and revision, and their Prometheus text exposition (format
 * 0.0.4: counters end in _total, the latency histogram has cumulative
 * buckets in seconds, _sum and _count). */
#include <errno.h>
#include <string.h>

#include "histogram.h"
#include "metrics.h"
#include "pstate.h"

/* Prometheus' default buckets, with finer ones below 5 ms: a request
 * through the proxy on one host takes a fraction of a millisecond. */
const double px_bucket_le[PX_NBUCKETS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1,    0.25,  0.5,    1,     2.5,  5,     10,
};

static const char *const klass[5] = {"1xx", "2xx", "3xx", "4xx", "5xx"};

/* Counts a response of endpoint e: its status class for the endpoint and
 * its revision, and the latency for the revision's histogram. Statuses
 * outside 100..599 are not counted. */
void
px_count_response(struct pep *e, int status, uint64_t ns)
{
	struct prev *r = e->rev;
	double sec = (double)ns / 1e9;
	int i, k = status / 100 - 1;

	if (k < 0 || k > 4)
		return;
	CNT_ADD(e->req[k], 1);
	if (r == NULL)
		return;
	CNT_ADD(r->req[k], 1);
	CNT_ADD(r->count, 1);
	CNT_ADD(r->sum_ns, ns);
	for (i = 0; i < PX_NBUCKETS && sec > px_bucket_le[i]; i++)
		;
	CNT_ADD(r->bucket[i], 1);
}

static struct psvc *
find_svc(struct proxy *p, const char *name)
{
	struct psvc *s;

	HASH_FIND_STR(p->svcs, name, s);
	return s;
}

int
proxy_service_stats(struct proxy *p, const char *service,
		    struct proxy_service_stats *out)
{
	struct psvc *s;
	int rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	uv_mutex_lock(&p->mu);
	if ((s = find_svc(p, service)) != NULL) {
		out->listen_error = atomic_load(&s->listen_error);
		out->active = CNT_GET(s->active);
		out->total = CNT_GET(s->total);
		out->connect_failures = CNT_GET(s->fails);
		out->rejected = CNT_GET(s->rejected);
		rc = 0;
	}
	uv_mutex_unlock(&p->mu);
	return rc;
}

int
proxy_endpoint_stats(struct proxy *p, const char *service, const char *key,
		     struct proxy_endpoint_stats *out)
{
	struct psvc *s;
	struct pep *e = NULL;
	int i, rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	uv_mutex_lock(&p->mu);
	if ((s = find_svc(p, service)) != NULL)
		HASH_FIND_STR(s->by_key, key, e);
	if (e) {
		out->state = e->state;
		out->active = CNT_GET(e->active);
		out->total = CNT_GET(e->total);
		out->connect_failures = CNT_GET(e->fails);
		for (i = 0; i < 5; i++)
			out->requests[i] = CNT_GET(e->req[i]);
		rc = 0;
	}
	uv_mutex_unlock(&p->mu);
	return rc;
}

int
proxy_revision_stats(struct proxy *p, const char *service, const char *revision,
		     struct proxy_revision_stats *out)
{
	struct psvc *s;
	struct prev *r = NULL;
	int i, rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	uv_mutex_lock(&p->mu);
	if ((s = find_svc(p, service)) != NULL)
		for (r = s->revs; r && strcmp(r->name, revision); r = r->next)
			;
	if (r) {
		for (i = 0; i < 5; i++)
			out->requests[i] = CNT_GET(r->req[i]);
		out->count = CNT_GET(r->count);
		out->sum_seconds = (double)CNT_GET(r->sum_ns) / 1e9;
		rc = 0;
	}
	uv_mutex_unlock(&p->mu);
	return rc;
}

int
proxy_endpoint_idle(struct proxy *p, const char *service, const char *key)
{
	struct proxy_endpoint_stats st;

	if (proxy_endpoint_stats(p, service, key, &st) < 0)
		return 1;
	return st.active == 0;
}

/* The labels service, [endpoint, revision,] [xname] of a sample. */
static void
labels(struct strbuf *l, const struct psvc *s, const struct pep *e,
       const char *rev, const char *xname, const char *xval)
{
	strbuf_reset(l);
	metrics_label(l, "service", s->name);
	if (e)
		metrics_label(l, "endpoint", e->key);
	if (rev)
		metrics_label(l, "revision", rev);
	if (xname)
		metrics_label(l, xname, xval);
}

static void
sample(struct strbuf *sb, struct strbuf *l, const char *name,
       const struct psvc *s, const struct pep *e, const char *rev,
       const char *xname, const char *xval, uint64_t v)
{
	labels(l, s, e, rev, xname, xval);
	metrics_sample_u64(sb, name, l->buf, v);
}

static void
svc_metrics(struct strbuf *sb, struct strbuf *l, struct psvc *svcs)
{
	static const char *const names[5] = {
	    "drover_proxy_listener_up", "drover_proxy_connections_active",
	    "drover_proxy_connections_total",
	    "drover_proxy_connect_failures_total",
	    "drover_proxy_rejected_total"};
	static const char *const types[5] = {"gauge", "gauge", "counter",
					     "counter", "counter"};
	static const char *const texts[5] = {
	    "1 when the service's port is bound and listening.",
	    "Client connections open.", "Client connections accepted.",
	    "Backend connects that failed or timed out.",
	    "Connections or requests no endpoint could take."};
	struct psvc *s, *tmp;
	int m;

	for (m = 0; m < 5; m++) {
		metrics_family(sb, names[m], types[m], texts[m]);
		HASH_ITER(hh, svcs, s, tmp)
		{
			uint64_t v = m == 0 ? atomic_load(&s->listen_error) == 0
				     : m == 1 ? CNT_GET(s->active)
				     : m == 2 ? CNT_GET(s->total)
				     : m == 3 ? CNT_GET(s->fails)
					      : CNT_GET(s->rejected);

			sample(sb, l, names[m], s, NULL, NULL, NULL, NULL, v);
		}
	}
}

static void
ep_metrics(struct strbuf *sb, struct strbuf *l, struct psvc *svcs)
{
	static const char *const names[3] = {
	    "drover_proxy_endpoint_connections_active",
	    "drover_proxy_endpoint_connections_total",
	    "drover_proxy_endpoint_connect_failures_total"};
	static const char *const texts[3] = {
	    "Backend connections open to the endpoint.",
	    "Backend connections made to the endpoint.",
	    "Connects to the endpoint that failed or timed out."};
	const char *rn = "drover_proxy_endpoint_requests_total";
	struct psvc *s, *tmp;
	size_t i;
	int m, k;

	for (m = 0; m < 3; m++) {
		metrics_family(sb, names[m], m ? "counter" : "gauge", texts[m]);
		HASH_ITER(hh, svcs, s, tmp)
		for (i = 0; i < s->n_eps; i++) {
			struct pep *e = s->eps[i];
			uint64_t v = m == 0   ? CNT_GET(e->active)
				     : m == 1 ? CNT_GET(e->total)
					      : CNT_GET(e->fails);

			sample(sb, l, names[m], s, e,
			       e->rev ? e->rev->name : "", NULL, NULL, v);
		}
	}
	metrics_family(sb, rn, "counter",
		       "HTTP responses from the endpoint, by status class.");
	HASH_ITER(hh, svcs, s, tmp)
	for (i = 0; i < s->n_eps; i++) {
		struct pep *e = s->eps[i];

		for (k = 0; k < 5; k++)
			sample(sb, l, rn, s, e, e->rev ? e->rev->name : "",
			       "code", klass[k], CNT_GET(e->req[k]));
	}
}

static void
rev_metrics(struct strbuf *sb, struct strbuf *l, struct psvc *svcs)
{
	const char *hn = "drover_proxy_request_duration_seconds";
	uint64_t counts[PX_NBUCKETS];
	struct psvc *s, *tmp;
	struct prev *r;
	int i, k;

	metrics_family(sb, "drover_proxy_requests_total", "counter",
		       "HTTP responses by revision and status class.");
	HASH_ITER(hh, svcs, s, tmp)
	for (r = s->revs; r; r = r->next)
		for (k = 0; k < 5; k++)
			sample(sb, l, "drover_proxy_requests_total", s, NULL,
			       r->name, "code", klass[k], CNT_GET(r->req[k]));
	metrics_family(
	    sb, hn, "histogram",
	    "Time from a request's first byte to its response's last.");
	HASH_ITER(hh, svcs, s, tmp)
	for (r = s->revs; r; r = r->next) {
		/* a copy of the counters as src/core/base/histogram.h has them */
		struct histogram h = {.bounds = px_bucket_le,
				      .nbounds = PX_NBUCKETS,
				      .counts = counts};

		for (i = 0; i < PX_NBUCKETS; i++)
			h.count += counts[i] = CNT_GET(r->bucket[i]);
		h.count += CNT_GET(r->bucket[PX_NBUCKETS]);
		h.sum = (double)CNT_GET(r->sum_ns) / 1e9;
		labels(l, s, NULL, r->name, NULL, NULL);
		metrics_histogram(sb, hn, l->buf, &h);
	}
}

/* A metrics_collect_fn (src/sys/metrics.h): arg is the proxy. */
void
proxy_metrics_collect(void *arg, struct strbuf *out)
{
	proxy_metrics_append(arg, out);
}

void
proxy_metrics_append(struct proxy *p, struct strbuf *sb)
{
	struct strbuf l = STRBUF_INIT;

	uv_mutex_lock(&p->mu);
	svc_metrics(sb, &l, p->svcs);
	ep_metrics(sb, &l, p->svcs);
	rev_metrics(sb, &l, p->svcs);
	uv_mutex_unlock(&p->mu);
	strbuf_release(&l);
}
