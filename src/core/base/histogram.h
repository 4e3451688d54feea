/* histogram.h - a cumulative histogram of observations (Prometheus'
 * histogram: fixed upper bounds, a count per bucket, the sum and the
 * count), pure data for the metrics of the queues, the API and the
 * store; src/sys/metrics.h writes it out.
 *
 * Example, bounds {0.01, 0.1, 1}: observing 0.005, 0.05 and 5 gives
 * buckets le=0.01: 1, le=0.1: 2, le=1: 2, le=+Inf: 3; sum 5.055;
 * count 3. An observation equal to a bound falls in that bound's bucket
 * (Prometheus' "less than or equal").
 *
 * Ownership: the bounds are the caller's (static arrays) and must be
 * sorted ascending; counts belongs to the histogram (histogram_release).
 * Not thread-safe: callers that observe on one thread and read on
 * another hold a lock and read a copy (histogram_copy). */
#ifndef DROVER_HISTOGRAM_H
#define DROVER_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

struct histogram {
	const double *bounds; /* upper bounds, ascending, +Inf implied */
	size_t nbounds;
	uint64_t *counts; /* nbounds: observations in (bound[i-1], bound[i]] */
	double sum;
	uint64_t count; /* all observations (the +Inf bucket) */
};

void histogram_init(struct histogram *h, const double *bounds, size_t n);
void histogram_release(struct histogram *h);
void histogram_observe(struct histogram *h, double v);
/* Observations <= bounds[i] (cumulative, as exposed). */
uint64_t histogram_cumulative(const struct histogram *h, size_t i);
/* dst (initialised or zeroed) becomes a copy of src. */
void histogram_copy(struct histogram *dst, const struct histogram *src);

/* Kubernetes' buckets. workqueue_*_duration_seconds:
 * ExponentialBuckets(10e-9, 10, 10), 1e-8 s to 10 s. */
extern const double histogram_workqueue_bounds[10];
/* apiserver_request_duration_seconds: 0.005 s to 60 s. */
extern const double histogram_apiserver_bounds[23];
/* etcd's wal_fsync_duration_seconds: ExponentialBuckets(0.001, 2, 14),
 * 1 ms to 8.192 s. */
extern const double histogram_fsync_bounds[14];

#define HISTOGRAM_NBOUNDS(a) (sizeof(a) / sizeof((a)[0]))

#endif
