/* metrics.h - a registry of metric collectors and the Prometheus text
 * exposition format 0.0.4 they write (the daemon's GET /metrics).
 *
 * A collector is a function that appends whole metric families to a
 * strbuf: for each family its HELP and TYPE lines, then all its samples
 * together (the format requires one family's samples to be contiguous,
 * and a family to come from one collector). The registry calls the
 * collectors in the order they were registered:
 *
 *   # HELP drover_workqueue_adds_total Total number of adds handled by workqueue
 *   # TYPE drover_workqueue_adds_total counter
 *   drover_workqueue_adds_total{name="deployment"} 12
 *   drover_workqueue_adds_total{name="replicaset"} 30
 *
 * Kubernetes registers its metrics in a global registry
 * (legacyregistry); here the daemon makes one registry and hands it to
 * the parts that register collectors: the API (requests, the store), the
 * work queues, the process, and later the proxy (whose counters live on
 * another thread: its collector takes its own lock) and the endpoints
 * controller.
 *
 * Ownership: the registry copies collector names; arg stays the caller's
 * and must outlive the registration (metrics_unregister, or
 * metrics_free). Registration and collection happen on one thread (the
 * daemon's loop); a collector that reads another thread's counters
 * synchronises itself. */
#ifndef DROVER_SYS_METRICS_H
#define DROVER_SYS_METRICS_H

#include <stdint.h>

#include "histogram.h"
#include "strbuf.h"

/* The Content-Type of the exposition. */
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

typedef void (*metrics_collect_fn)(void *arg, struct strbuf *out);

struct metrics;

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);
/* 0, or -1 if a collector of that name is registered already. */
int metrics_register(struct metrics *m, const char *name, metrics_collect_fn fn,
		     void *arg);
/* 0, or -1 if there is none of that name. */
int metrics_unregister(struct metrics *m, const char *name);
/* Appends every collector's families to out. */
void metrics_collect(struct metrics *m, struct strbuf *out);

/* ---- writing the exposition (for collectors) ---- */

/* "# HELP name help\n# TYPE name type\n"; type is counter, gauge,
 * histogram, summary or untyped; help is escaped (\\ and \n). */
void metrics_family(struct strbuf *out, const char *name, const char *type,
		    const char *help);
/* Appends key="value" to a label list (a comma first unless labels is
 * empty), with value escaped as the format requires: backslash, double
 * quote and line feed become \\, \" and \n. Example: a queue named
 * `a"b` gives name="a\"b". */
void metrics_label(struct strbuf *labels, const char *key, const char *value);
/* Appends value escaped as a label value (no quotes). */
void metrics_escape(struct strbuf *out, const char *value);
/* Appends a float as Go's strconv.FormatFloat(v, 'g', -1, 64) does:
 * the shortest text that reads back as v; +Inf, -Inf, NaN. */
void metrics_float(struct strbuf *out, double v);
/* "name{labels} value\n" (no braces when labels is NULL or ""). */
void metrics_sample(struct strbuf *out, const char *name, const char *labels,
		    double value);
void metrics_sample_u64(struct strbuf *out, const char *name,
			const char *labels, uint64_t value);
/* A histogram's samples: name_bucket{labels,le="b"} for every bound and
 * +Inf (cumulative), name_sum{labels}, name_count{labels}. */
void metrics_histogram(struct strbuf *out, const char *name, const char *labels,
		       const struct histogram *h);

#endif
