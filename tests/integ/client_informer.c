/* client_informer.c - the informer's life against the recording fake:
 * it lists, then watches from the list's resourceVersion; events change
 * the cache and reach the subscribers; when the watch ends (the stream
 * broke, or an ERROR event: 410 Gone) it lists again from the loop after
 * RELIST_MS, tells the subscribers what the new list changed (DELETED
 * for what is gone, ADDED for what is new, MODIFIED for a new version,
 * nothing for what is the same) and watches from the new list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <uv.h>

#include "client_fake.h"
#include "informer.h"

#define DEPLOYS "/apis/apps/v1/deployments"

struct told {
	int n;
	char what[8][64]; /* "TYPE name" */
};

static void
on_told(void *arg, json_t *ev)
{
	struct told *t = arg;
	const char *type = json_string_value(json_object_get(ev, "type"));
	const char *name = json_string_value(json_object_get(
	    json_object_get(json_object_get(ev, "object"), "metadata"),
	    "name"));

	if (t->n < 8)
		snprintf(t->what[t->n], sizeof(t->what[0]), "%s %s", type,
			 name ? name : "-");
	t->n++;
}

static json_t *
deploy(const char *name, const char *rv)
{
	char text[600];
	json_t *j;

	snprintf(text, sizeof(text),
		 "{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\","
		 " \"metadata\": {\"name\": \"%s\", \"namespace\": "
		 "\"default\", \"resourceVersion\": \"%s\"},"
		 " \"spec\": {\"replicas\": 1, \"selector\": {\"matchLabels\":"
		 " {\"app\": \"%s\"}}, \"template\": {\"metadata\": "
		 "{\"labels\": {\"app\": \"%s\"}}, \"spec\": "
		 "{\"containers\": [{\"name\": \"c\", \"image\": \"x\"}]}}}}",
		 name, rv, name, name);
	j = json_loads(text, 0, NULL);
	assert_non_null(j);
	return j;
}

/* A list answer of items at resourceVersion rv (takes the items). */
static void
answer_list(struct client *c, const char *rv, json_t *items)
{
	json_t *list = json_pack("{s{ss}so}", "metadata", "resourceVersion", rv,
				 "items", items);

	client_fake_answer(c, "GET", DEPLOYS, 200, list);
	json_decref(list);
}

/* The query of the last watch the informer opened. */
static const char *
last_watch_query(struct client *c)
{
	size_t i = client_fake_count(c);

	while (i-- > 0) {
		const struct client_fake_request *r = client_fake_request(c, i);

		if (!strcmp(r->method, "GET") && strstr(r->query, "watch=true"))
			return r->query;
	}
	return "";
}

/* How many watches the informer has opened so far. */
static size_t
watches_opened(struct client *c)
{
	size_t i, n = 0;

	for (i = 0; i < client_fake_count(c); i++)
		if (strstr(client_fake_request(c, i)->query, "watch=true"))
			n++;
	return n;
}

/* Runs the loop until the informer has listed again and opened a new
 * watch (the relist timer: 1 s), at most 5 s. */
static void
run_until_relisted(uv_loop_t *loop, struct client *c)
{
	size_t before = watches_opened(c);
	uint64_t until = uv_hrtime() + 5000000000ULL;

	while (watches_opened(c) == before && uv_hrtime() < until)
		uv_run(loop, UV_RUN_ONCE);
	assert_int_equal(watches_opened(c), before + 1);
	assert_int_equal(client_fake_watches(c), 1);
}

static void
test_list_watch_relist(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct informer *inf;
	struct told t = {0};
	json_t *ev, *items;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	items = json_pack("[oo]", deploy("a", "3"), deploy("b", "4"));
	answer_list(c, "5", items);
	inf = informer_new(c, &loop, KIND_DEPLOYMENT);
	assert_non_null(inf);
	informer_subscribe(inf, on_told, &t);
	assert_int_equal(informer_count(inf), 2);
	assert_string_equal(last_watch_query(c),
			    "watch=true&allowWatchBookmarks=true&"
			    "resourceVersion=5");
	/* an event */
	ev = json_pack("{ssso}", "type", "ADDED", "object", deploy("c", "6"));
	assert_int_equal(client_fake_emit(c, DEPLOYS, ev), 1);
	json_decref(ev);
	assert_int_equal(informer_count(inf), 3);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.what[0], "ADDED c");
	/* the stream ends; meanwhile b is deleted, a changed, d created */
	items = json_pack("[ooo]", deploy("a", "8"), deploy("c", "6"),
			  deploy("d", "9"));
	answer_list(c, "9", items);
	assert_int_equal(client_fake_emit(c, DEPLOYS, NULL), 1);
	assert_int_equal(client_fake_watches(c), 0);
	assert_int_equal(t.n, 1); /* nothing before the loop runs */
	run_until_relisted(&loop, c);
	assert_int_equal(informer_count(inf), 3);
	assert_null(informer_find(inf, "default", "b"));
	assert_non_null(informer_find(inf, "default", "d"));
	assert_int_equal(t.n, 4);
	assert_string_equal(t.what[1], "MODIFIED a");
	assert_string_equal(t.what[2], "ADDED d");
	assert_string_equal(t.what[3], "DELETED b");
	assert_string_equal(last_watch_query(c),
			    "watch=true&allowWatchBookmarks=true&"
			    "resourceVersion=9");
	/* 410 Gone as an ERROR event: the same */
	answer_list(c, "12", json_pack("[o]", deploy("d", "9")));
	ev = json_pack("{ss s{sssiss}}", "type", "ERROR", "object", "kind",
		       "Status", "code", 410, "reason", "Expired");
	assert_int_equal(client_fake_emit(c, DEPLOYS, ev), 1);
	json_decref(ev);
	run_until_relisted(&loop, c);
	assert_int_equal(informer_count(inf), 1);
	assert_string_equal(last_watch_query(c),
			    "watch=true&allowWatchBookmarks=true&"
			    "resourceVersion=12");

	informer_free(inf);
	c->ops->free(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_watch_relist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
