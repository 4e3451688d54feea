/* client_guard.c - the hot-write guard (src/client/guard.h) over the
 * recording fake, on a clock the test moves: every request goes through;
 * an object written the same past 100 times within a second is counted
 * (each write past the 100th) and warned of, a warning every 10 s at
 * most per guard; windows start again; writes of changing content are
 * not a loop, writes that differ only in resourceVersion and condition
 * times are; creates (POST to a collection) and reads are not writes;
 * thousands of objects written a few times each count nothing, and a
 * path in a loop is seen while they churn the table; the counters are
 * in /metrics per component. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_fake.h"
#include "guard.h"
#include "strbuf.h"

static dtime clock_ms = 1000000;

static dtime
fake_now(void)
{
	return clock_ms;
}

#define POD "/api/v1/namespaces/default/pods/h"

static void
req(struct client *c, const char *method, const char *path)
{
	struct client_resp r;

	client_request(c, method, path, NULL, NULL, NULL, &r);
	client_resp_release(&r);
}

static void
writes(struct client *c, const char *method, const char *path, int n)
{
	while (n-- > 0)
		req(c, method, path);
}

static void
test_a_loop_is_counted_past_the_threshold(void **state)
{
	struct client *fake = client_fake_new(NULL);
	struct client *g = client_guard_new(fake, "t-loop", fake_now);

	(void)state;
	writes(g, "PUT", POD, GUARD_HOT_WRITES);
	assert_int_equal(client_guard_hot_writes("t-loop"), 0);
	writes(g, "PUT", POD, 1);
	assert_int_equal(client_guard_hot_writes("t-loop"), 1);
	writes(g, "PUT", POD, 49);
	assert_int_equal(client_guard_hot_writes("t-loop"), 50);
	/* Every request went through. */
	assert_int_equal(client_fake_count(fake), GUARD_HOT_WRITES + 50);
	/* A new window starts from 0. */
	clock_ms += GUARD_WINDOW_MS;
	writes(g, "PUT", POD, GUARD_HOT_WRITES);
	assert_int_equal(client_guard_hot_writes("t-loop"), 50);
	/* Writes spread over windows never count: 60 a window. */
	clock_ms += GUARD_WINDOW_MS;
	for (int w = 0; w < 5; w++, clock_ms += GUARD_WINDOW_MS)
		writes(g, "PUT", POD "/status", 60);
	assert_int_equal(client_guard_hot_writes("t-loop"), 50);
	g->ops->free(g);
	fake->ops->free(fake);
}

/* PUTs of POD whose bodies are a status with `replicas` and a version
 * and a condition time that change at every write. */
static void
status_puts(struct client *c, int n, bool changing)
{
	int i;

	for (i = 0; i < n; i++) {
		struct client_resp r;
		json_t *b = json_pack(
		    "{s{ss}s{sis[{sssssi}]}}", "metadata", "resourceVersion",
		    i % 2 ? "17" : "18", "status", "replicas", changing ? i : 3,
		    "conditions", "type", "Available", "lastUpdateTime",
		    i % 2 ? "2026-01-01T00:00:00Z" : "2026-01-01T00:00:01Z",
		    "observedGeneration", 2);

		client_request(c, "PUT", POD "/status", NULL, NULL, b, &r);
		client_resp_release(&r);
		json_decref(b);
	}
}

static void
test_only_writes_of_the_same_content_are_a_loop(void **state)
{
	struct client *fake = client_fake_new(NULL);
	struct client *g = client_guard_new(fake, "t-same", fake_now);

	(void)state;
	clock_ms += GUARD_WINDOW_MS;
	/* A status that changes at each write: 500 in a window, no loop. */
	status_puts(g, 500, true);
	assert_int_equal(client_guard_hot_writes("t-same"), 0);
	/* The same status, only its version and times moving: a loop. */
	clock_ms += GUARD_WINDOW_MS;
	status_puts(g, GUARD_HOT_WRITES + 7, false);
	assert_int_equal(client_guard_hot_writes("t-same"), 7);
	/* Alternating DELETE and PUT of one object: runs of one. */
	clock_ms += GUARD_WINDOW_MS;
	for (int i = 0; i < 300; i++)
		req(g, i % 2 ? "DELETE" : "PATCH", POD);
	assert_int_equal(client_guard_hot_writes("t-same"), 7);
	g->ops->free(g);
	fake->ops->free(fake);
}

static void
test_creates_and_reads_are_not_writes(void **state)
{
	struct client *fake = client_fake_new(NULL);
	struct client *g = client_guard_new(fake, "t-creates", fake_now);

	(void)state;
	writes(g, "POST", "/api/v1/namespaces/default/pods", 500);
	writes(g, "GET", POD, 500);
	writes(g, "POST", "/api/v1/nodes", 500);
	assert_int_equal(client_guard_hot_writes("t-creates"), 0);
	/* A POST to a subresource writes its object. */
	writes(g, "POST", POD "/binding", GUARD_HOT_WRITES + 1);
	assert_int_equal(client_guard_hot_writes("t-creates"), 1);
	g->ops->free(g);
	fake->ops->free(fake);
}

static void
test_many_objects_count_nothing_and_a_loop_is_seen_among_them(void **state)
{
	struct client *fake = client_fake_new(NULL);
	struct client *g = client_guard_new(fake, "t-many", fake_now);
	char path[128];
	int i;

	(void)state;
	clock_ms += GUARD_WINDOW_MS;
	/* 20,000 pods written 5 times each in one window. */
	for (i = 0; i < 20000 * 5; i++) {
		snprintf(path, sizeof(path),
			 "/api/v1/namespaces/default/pods/p%d", i % 20000);
		req(g, "PUT", path);
	}
	assert_int_equal(client_guard_hot_writes("t-many"), 0);
	/* One pod in a loop while 5,000 others are written: 300 writes of
	 * it, 200 past the threshold, less one for each other path landing
	 * on its slot (5,000 over 1,024 slots: about 5). */
	clock_ms += GUARD_WINDOW_MS;
	for (i = 0; i < 5000; i++) {
		snprintf(path, sizeof(path),
			 "/api/v1/namespaces/default/pods/q%d", i);
		req(g, "PUT", path);
		if (i % 16 == 0 && i / 16 < 300)
			req(g, "PUT", POD);
	}
	assert_in_range(client_guard_hot_writes("t-many"), 180, 200);
	g->ops->free(g);
	fake->ops->free(fake);
}

/* The lines of the log (stderr) that fn writes. */
static char *
log_of(void (*fn)(struct client *), struct client *g)
{
	char tmpl[] = "/tmp/guard-log-XXXXXX";
	int fd = mkstemp(tmpl), saved;
	char *buf = calloc(1, 8192);
	ssize_t n;

	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	fn(g);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, 8191, 0);
	assert_true(n >= 0);
	close(fd);
	unlink(tmpl);
	return buf;
}

static size_t
count_of(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

static void
two_loops(struct client *g)
{
	clock_ms += GUARD_WINDOW_MS;
	writes(g, "PUT", POD, GUARD_HOT_WRITES + 10);
	writes(g, "PUT", POD "2", GUARD_HOT_WRITES + 10);
}

static void
a_third_later(struct client *g)
{
	clock_ms += GUARD_WARN_EVERY_MS;
	writes(g, "PUT", POD "3", GUARD_HOT_WRITES + 1);
}

static void
test_warnings_name_the_object_and_are_rate_limited(void **state)
{
	struct client *fake = client_fake_new(NULL);
	struct client *g = client_guard_new(fake, "t-warn", fake_now);
	char *log;

	(void)state;
	log = log_of(two_loops, g);
	assert_int_equal(count_of(log, "a write loop"), 1);
	assert_non_null(strstr(log, "t-warn: " POD " written the same more "
				    "than 100 times within 1000 ms (PUT): a "
				    "write loop\n"));
	free(log);
	log = log_of(a_third_later, g);
	assert_int_equal(count_of(log, "a write loop"), 1);
	assert_non_null(strstr(log, POD "3 written the same more than 100"));
	assert_non_null(strstr(log, "(and 1 more warnings held back)"));
	free(log);
	assert_int_equal(client_guard_hot_writes("t-warn"), 21);
	g->ops->free(g);
	fake->ops->free(fake);
}

static void
test_metrics(void **state)
{
	struct client *fake = client_fake_new(NULL);
	struct client *g = client_guard_new(fake, "t-metrics", fake_now);
	struct strbuf out = STRBUF_INIT;

	(void)state;
	clock_ms += GUARD_WINDOW_MS;
	writes(g, "PUT", POD, GUARD_HOT_WRITES + 3);
	/* A guard made again for the same component counts on. */
	g->ops->free(g);
	g = client_guard_new(fake, "t-metrics", fake_now);
	clock_ms += GUARD_WINDOW_MS;
	writes(g, "PUT", POD, GUARD_HOT_WRITES + 2);
	client_guard_metrics_collect(NULL, &out);
	assert_non_null(strstr(out.buf, "# TYPE drover_controller_hot_writes_"
					"total counter\n"));
	assert_non_null(strstr(out.buf, "drover_controller_hot_writes_total{"
					"controller=\"t-metrics\"} 5\n"));
	assert_non_null(strstr(out.buf, "drover_controller_hot_writes_total{"
					"controller=\"t-creates\"} 1\n"));
	strbuf_release(&out);
	g->ops->free(g);
	fake->ops->free(fake);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_loop_is_counted_past_the_threshold),
	    cmocka_unit_test(test_only_writes_of_the_same_content_are_a_loop),
	    cmocka_unit_test(test_creates_and_reads_are_not_writes),
	    cmocka_unit_test(
		test_many_objects_count_nothing_and_a_loop_is_seen_among_them),
	    cmocka_unit_test(
		test_warnings_name_the_object_and_are_rate_limited),
	    cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
