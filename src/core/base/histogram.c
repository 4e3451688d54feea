/* histogram.c - cumulative histograms of observations (see histogram.h).
 *
 * Prometheus' histogram: a fixed, sorted list of upper bounds ("le"),
 * a count per bucket, the sum and the count of all observations. Each
 * observation is counted once, in the first bucket whose bound is >= the
 * value (bounds are inclusive, as Prometheus' client libraries make
 * them); the exposition (histogram_cumulative) then adds the buckets up,
 * so that bucket i says how many observations were <= bound i, and the
 * implicit "+Inf" bucket equals the count.
 *
 * Worked example, bounds {0.005, 0.025, 0.05}: observations 0.001,
 * 0.005, 0.03 and 2.0 land in buckets 0, 0, 2 and +Inf; the stored
 * counts are {2, 0, 1}, the exposed ones le="0.005" 2, le="0.025" 2,
 * le="0.05" 3, le="+Inf" 4; sum 2.036, count 4. A value above every
 * bound is counted only in the sum and the count.
 *
 * The bound tables are Kubernetes' own, so that dashboards made for
 * kube-apiserver and client-go read drover's figures unchanged. */
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "xalloc.h"

/* client-go's workqueue metrics: exponential from 10 ns to 10 s (a
 * queue's wait and a sync's duration span both ends). */
const double histogram_workqueue_bounds[10] = {
    1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10,
};

/* k8s.io/apiserver/pkg/endpoints/metrics: requestLatencies. */
const double histogram_apiserver_bounds[23] = {
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
    3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60,
};

/* etcd's wal_fsync_duration_seconds: 1 ms doubling to 8 s, so that
 * drover's store and etcd's WAL compare bucket by bucket. */
const double histogram_fsync_bounds[14] = {
    0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064,
    0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192,
};

void
histogram_init(struct histogram *h, const double *bounds, size_t n)
{
	h->bounds = bounds;
	h->nbounds = n;
	h->counts = n ? xcalloc(n, sizeof(*h->counts)) : NULL;
	h->sum = 0;
	h->count = 0;
}

void
histogram_release(struct histogram *h)
{
	free(h->counts);
	h->counts = NULL;
	h->nbounds = 0;
}

void
histogram_observe(struct histogram *h, double v)
{
	size_t lo = 0, hi = h->nbounds;

	/* the first bound >= v; none: only the +Inf bucket */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->bounds[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->nbounds)
		h->counts[lo]++;
	h->sum += v;
	h->count++;
}

uint64_t
histogram_cumulative(const struct histogram *h, size_t i)
{
	uint64_t n = 0;
	size_t j;

	for (j = 0; j <= i && j < h->nbounds; j++)
		n += h->counts[j];
	return n;
}

void
histogram_copy(struct histogram *dst, const struct histogram *src)
{
	if (dst->counts == NULL || dst->nbounds != src->nbounds) {
		free(dst->counts);
		dst->counts = src->nbounds
				  ? xcalloc(src->nbounds, sizeof(*dst->counts))
				  : NULL;
	}
	dst->bounds = src->bounds;
	dst->nbounds = src->nbounds;
	if (src->nbounds)
		memcpy(dst->counts, src->counts,
		       src->nbounds * sizeof(*dst->counts));
	dst->sum = src->sum;
	dst->count = src->count;
}
