/* test_histogram.c - the core's cumulative histogram: observations land
 * in the first bucket whose bound is >= them (a value equal to a bound
 * counts in it, as Prometheus' "le"), above every bound only in +Inf;
 * sum and count; copies; Kubernetes' bucket tables are ascending. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "histogram.h"

static const double bounds[] = {0.01, 0.1, 1};

static void
test_observe_table(void **state)
{
	static const struct {
		const char *name;
		double obs[6];
		size_t n;
		uint64_t want_cum[3]; /* le=0.01, 0.1, 1 */
		uint64_t want_count;
		double want_sum;
	} cases[] = {
	    {"none", {0}, 0, {0, 0, 0}, 0, 0},
	    {"header example", {0.005, 0.05, 5}, 3, {1, 2, 2}, 3, 5.055},
	    {"equal to a bound counts in it",
	     {0.01, 0.1, 1},
	     3,
	     {1, 2, 3},
	     3,
	     1.11},
	    {"zero and negatives in the first", {0, -1}, 2, {2, 2, 2}, 2, -1},
	    {"above all: +Inf only", {2, 30}, 2, {0, 0, 0}, 2, 32},
	    {"just above a bound", {0.0100001}, 1, {0, 1, 1}, 1, 0.0100001},
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct histogram h;

		histogram_init(&h, bounds, 3);
		for (j = 0; j < cases[i].n; j++)
			histogram_observe(&h, cases[i].obs[j]);
		for (j = 0; j < 3; j++)
			if (histogram_cumulative(&h, j) != cases[i].want_cum[j])
				fail_msg(
				    "%s: le=%g: %llu, want %llu", cases[i].name,
				    bounds[j],
				    (unsigned long long)histogram_cumulative(&h,
									     j),
				    (unsigned long long)cases[i].want_cum[j]);
		if (h.count != cases[i].want_count)
			fail_msg("%s: count %llu", cases[i].name,
				 (unsigned long long)h.count);
		if (h.sum < cases[i].want_sum - 1e-12 ||
		    h.sum > cases[i].want_sum + 1e-12)
			fail_msg("%s: sum %g, want %g", cases[i].name, h.sum,
				 cases[i].want_sum);
		histogram_release(&h);
	}
}

static void
test_copy(void **state)
{
	struct histogram h, c;

	(void)state;
	memset(&c, 0, sizeof(c));
	histogram_init(&h, bounds, 3);
	histogram_observe(&h, 0.05);
	histogram_copy(&c, &h);
	histogram_observe(&h, 0.05); /* the copy does not move */
	assert_int_equal(c.count, 1);
	assert_int_equal(histogram_cumulative(&c, 1), 1);
	assert_int_equal(h.count, 2);
	histogram_copy(&c, &h); /* into an initialised one */
	assert_int_equal(histogram_cumulative(&c, 2), 2);
	histogram_release(&h);
	histogram_release(&c);
}

static void
check_ascending(const double *b, size_t n, const char *what)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (!(b[i - 1] < b[i]))
			fail_msg("%s: bound %zu (%g) not above %g", what, i,
				 b[i], b[i - 1]);
}

static void
test_kubernetes_buckets(void **state)
{
	(void)state;
	check_ascending(histogram_workqueue_bounds,
			HISTOGRAM_NBOUNDS(histogram_workqueue_bounds),
			"workqueue");
	check_ascending(histogram_apiserver_bounds,
			HISTOGRAM_NBOUNDS(histogram_apiserver_bounds),
			"apiserver");
	check_ascending(histogram_fsync_bounds,
			HISTOGRAM_NBOUNDS(histogram_fsync_bounds), "fsync");
	/* ExponentialBuckets(10e-9, 10, 10): 1e-8 ... 10 */
	assert_true(histogram_workqueue_bounds[0] == 1e-8);
	assert_true(histogram_workqueue_bounds[9] == 10);
	assert_true(histogram_apiserver_bounds[0] == 0.005);
	assert_true(histogram_apiserver_bounds[22] == 60);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_observe_table),
	    cmocka_unit_test(test_copy),
	    cmocka_unit_test(test_kubernetes_buckets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
