/* proxy_wire.c - the agent <-> proxy process control messages
 * (src/proxy/wire.h): a table survives its JSON line whole, and a broken
 * message is refused with a reason, never half-read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

static void
test_round_trip(void **state)
{
	const struct proxy_endpoint eps[] = {
	    {"127.0.0.1", 30001, "default/web-a/u1", "5d4f", PROXY_EP_READY},
	    {"127.0.0.1", 30002, "default/web-b/u2", "", PROXY_EP_DRAINING},
	};
	const struct proxy_service svcs[] = {
	    {"default/web:http", "127.0.0.1", 8000, PROXY_HTTP,
	     PROXY_LEAST_CONN, 5000, 200, eps, 2},
	    {"default/db", "127.0.0.1", 8001, PROXY_TCP, PROXY_ROUND_ROBIN, 0,
	     0, NULL, 0},
	};
	const struct proxy_table t = {svcs, 2, 7};
	json_t *msg = proxy_wire_table(7, &t), *back;
	char *text = json_dumps(msg, JSON_COMPACT);
	struct proxy_table *got;
	const char *why = NULL;
	int64_t gen = 0;

	(void)state;
	back = json_loads(text, 0, NULL);
	assert_int_equal(proxy_wire_parse_table(back, &gen, &got, &why), 0);
	assert_int_equal(gen, 7);
	assert_int_equal(got->n_services, 2);
	assert_string_equal(got->services[0].name, "default/web:http");
	assert_int_equal(got->services[0].port, 8000);
	assert_int_equal(got->services[0].mode, PROXY_HTTP);
	assert_int_equal(got->services[0].balance, PROXY_LEAST_CONN);
	assert_int_equal(got->services[0].idle_timeout_ms, 5000);
	assert_int_equal(got->services[0].connect_timeout_ms, 200);
	assert_int_equal(got->services[0].n_endpoints, 2);
	assert_string_equal(got->services[0].endpoints[1].key,
			    "default/web-b/u2");
	assert_int_equal(got->services[0].endpoints[1].state,
			 PROXY_EP_DRAINING);
	assert_string_equal(got->services[0].endpoints[0].revision, "5d4f");
	assert_int_equal(got->services[1].n_endpoints, 0);
	proxy_wire_table_free(got);
	json_decref(back);
	json_decref(msg);
	free(text);
}

static void
test_refused(void **state)
{
	static const char *const bad[] = {
	    "{\"op\":\"table\"}", /* no generation */
	    "{\"op\":\"table\",\"gen\":1,\"services\":{}}",
	    "{\"op\":\"table\",\"gen\":1,\"services\":[{\"name\":\"a\"}]}",
	    "{\"op\":\"table\",\"gen\":1,\"services\":[{\"name\":\"a\","
	    "\"address\":\"127.0.0.1\",\"port\":70000}]}",
	    "{\"op\":\"table\",\"gen\":1,\"services\":[{\"name\":\"a\","
	    "\"address\":\"127.0.0.1\",\"port\":80,\"mode\":\"udp\"}]}",
	    "{\"op\":\"table\",\"gen\":1,\"services\":[{\"name\":\"a\","
	    "\"address\":\"127.0.0.1\",\"port\":80,\"endpoints\":[{"
	    "\"address\":\"127.0.0.1\",\"port\":1,\"key\":\"k\","
	    "\"state\":\"maybe\"}]}]}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *m = json_loads(bad[i], 0, NULL);
		struct proxy_table *t = (struct proxy_table *)1;
		const char *why = NULL;
		int64_t gen;

		assert_non_null(m);
		assert_int_equal(proxy_wire_parse_table(m, &gen, &t, &why), -1);
		assert_null(t);
		assert_non_null(why);
		json_decref(m);
	}
}

struct lines {
	char got[4][32];
	int n, stop_after;
};

static bool
take(void *arg, const char *line, size_t n)
{
	struct lines *l = arg;

	snprintf(l->got[l->n], sizeof(l->got[l->n]), "%.*s", (int)n, line);
	return ++l->n != l->stop_after;
}

/* Lines split anywhere across reads come out whole, the unfinished rest
 * waits, and a reader that says stop gets nothing more. */
static void
test_feed(void **state)
{
	struct strbuf in = STRBUF_INIT;
	struct lines l = {.stop_after = -1};

	(void)state;
	proxy_wire_feed(&in, "{\"a\":1}\n{\"b\"", 12, take, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.got[0], "{\"a\":1}");
	assert_int_equal(in.len, 4); /* {"b" waits */
	proxy_wire_feed(&in, ":2}\n\nx", 6, take, &l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.got[1], "{\"b\":2}");
	assert_string_equal(l.got[2], "");
	assert_int_equal(in.len, 1);
	strbuf_release(&in);

	l = (struct lines){.stop_after = 1};
	proxy_wire_feed(&in, "1\n2\n", 4, take, &l);
	assert_int_equal(l.n, 1);
	strbuf_release(&in);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_feed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
