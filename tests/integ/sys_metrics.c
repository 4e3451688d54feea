/* sys_metrics.c - the metrics registry and the text format: collectors
 * run in registration order, names are unique and can be removed; label
 * values are escaped (backslash, double quote, line feed) and HELP text
 * too (backslash, line feed); floats are the shortest text that reads
 * back, in Go's form (strconv.FormatFloat 'g', -1), with +Inf/-Inf/NaN; a histogram writes cumulative buckets, +Inf,
 * _sum and _count; the process collector reads /proc/self. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"
#include "metrics_process.h"

static void
collect_a(void *arg, struct strbuf *out)
{
	(*(int *)arg)++;
	strbuf_addstr(out, "a\n");
}

static void
collect_b(void *arg, struct strbuf *out)
{
	(*(int *)arg)++;
	strbuf_addstr(out, "b\n");
}

static void
test_registry(void **state)
{
	struct metrics *m = metrics_new();
	struct strbuf sb = STRBUF_INIT;
	int na = 0, nb = 0;

	(void)state;
	assert_int_equal(metrics_register(m, "a", collect_a, &na), 0);
	assert_int_equal(metrics_register(m, "b", collect_b, &nb), 0);
	assert_int_equal(metrics_register(m, "a", collect_b, &nb), -1);
	metrics_collect(m, &sb);
	assert_string_equal(sb.buf, "a\nb\n");
	assert_int_equal(na, 1);
	assert_int_equal(nb, 1);
	assert_int_equal(metrics_unregister(m, "a"), 0);
	assert_int_equal(metrics_unregister(m, "a"), -1);
	strbuf_reset(&sb);
	metrics_collect(m, &sb);
	assert_string_equal(sb.buf, "b\n");
	assert_int_equal(na, 1);
	strbuf_release(&sb);
	metrics_free(m);
}

static void
test_escaping(void **state)
{
	static const struct {
		const char *value, *want;
	} cases[] = {
	    {"deployment", "q=\"deployment\""},
	    {"", "q=\"\""},
	    {"a\"b", "q=\"a\\\"b\""},
	    {"back\\slash", "q=\"back\\\\slash\""},
	    {"two\nlines", "q=\"two\\nlines\""},
	    {"\\\"\n", "q=\"\\\\\\\"\\n\""},
	    {"tab\tstays", "q=\"tab\tstays\""},
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		metrics_label(&sb, "q", cases[i].value);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("%zu: got %s, want %s", i, sb.buf,
				 cases[i].want);
	}
	/* a second label is comma-separated */
	metrics_label(&sb, "code", "200");
	assert_string_equal(sb.buf, "q=\"tab\tstays\",code=\"200\"");
	/* HELP: backslash and line feed only, quotes stay */
	strbuf_reset(&sb);
	metrics_family(&sb, "x_total", "counter", "say \"hi\"\\\nthere");
	assert_string_equal(sb.buf, "# HELP x_total say \"hi\"\\\\\\nthere\n"
				    "# TYPE x_total counter\n");
	strbuf_release(&sb);
}

static void
test_floats(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
	    {0, "0"},
	    {1, "1"},
	    {0.1, "0.1"},
	    {1e-8, "1e-08"},
	    {10, "10"},
	    {0.005, "0.005"},
	    {1.25, "1.25"},
	    {123456, "123456"},
	    {1e6, "1e+06"},
	    {123456789, "1.23456789e+08"},
	    {43302912, "4.3302912e+07"},
	    {0.0001, "0.0001"},
	    {0.00001234, "1.234e-05"},
	    {0.1 + 0.2, "0.30000000000000004"},
	    {-2.5, "-2.5"},
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		metrics_float(&sb, cases[i].v);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("%.17g: got %s, want %s", cases[i].v, sb.buf,
				 cases[i].want);
	}
	strbuf_reset(&sb);
	metrics_float(&sb, INFINITY);
	metrics_float(&sb, -INFINITY);
	metrics_float(&sb, NAN);
	assert_string_equal(sb.buf, "+Inf-InfNaN");
	strbuf_release(&sb);
}

static void
test_samples_and_histogram(void **state)
{
	static const double b[] = {0.01, 0.1};
	struct histogram h;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	metrics_sample(&sb, "g", NULL, 1.5);
	metrics_sample(&sb, "g", "", 2);
	metrics_sample_u64(&sb, "c_total", "a=\"x\"", 18446744073709551615u);
	assert_string_equal(sb.buf, "g 1.5\ng 2\n"
				    "c_total{a=\"x\"} 18446744073709551615\n");
	strbuf_reset(&sb);
	histogram_init(&h, b, 2);
	histogram_observe(&h, 0.005);
	histogram_observe(&h, 0.05);
	histogram_observe(&h, 0.05);
	histogram_observe(&h, 3);
	metrics_histogram(&sb, "d_seconds", "name=\"q\"", &h);
	assert_string_equal(sb.buf,
			    "d_seconds_bucket{name=\"q\",le=\"0.01\"} 1\n"
			    "d_seconds_bucket{name=\"q\",le=\"0.1\"} 3\n"
			    "d_seconds_bucket{name=\"q\",le=\"+Inf\"} 4\n"
			    "d_seconds_sum{name=\"q\"} 3.105\n"
			    "d_seconds_count{name=\"q\"} 4\n");
	strbuf_reset(&sb);
	metrics_histogram(&sb, "e", NULL, &h);
	assert_non_null(strstr(sb.buf, "e_bucket{le=\"+Inf\"} 4\ne_sum 3.105\n"
				       "e_count 4\n"));
	histogram_release(&h);
	strbuf_release(&sb);
}

/* The value of the sample line "name value" in text, or -1. */
static double
sample(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p += n;
	}
	return -1;
}

static void
test_process(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	double rss, fds, start, cpu;
	volatile double spin = 0;
	int i;

	(void)state;
	for (i = 0; i < 20000000; i++) /* some CPU time to count */
		spin = spin + i;
	metrics_process_collect(NULL, &sb);
	assert_non_null(strstr(sb.buf, "# TYPE process_cpu_seconds_total "
				       "counter\n"));
	assert_non_null(strstr(sb.buf, "# TYPE process_resident_memory_bytes "
				       "gauge\n"));
	rss = sample(sb.buf, "process_resident_memory_bytes");
	fds = sample(sb.buf, "process_open_fds");
	start = sample(sb.buf, "process_start_time_seconds");
	cpu = sample(sb.buf, "process_cpu_seconds_total");
	assert_true(rss > 100 * 1024);
	assert_true(fds >= 3); /* stdin, stdout, stderr */
	assert_true(cpu > 0);
	/* started within the last hour, not in the future */
	assert_true(start > (double)time(NULL) - 3600);
	assert_true(start <= (double)time(NULL) + 1);
	assert_true(sample(sb.buf, "process_max_fds") >= fds);
	strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registry),
	    cmocka_unit_test(test_escaping),
	    cmocka_unit_test(test_floats),
	    cmocka_unit_test(test_samples_and_histogram),
	    cmocka_unit_test(test_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
