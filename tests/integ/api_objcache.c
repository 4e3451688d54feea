/* api_objcache.c - the API's parsed copies of the objects it wrote last
 * (src/api/objcache.h): least recently used out first; the copy a patch
 * starts from is never changed by it (the strategic merge shares
 * untouched members with its target); watch events and answers carry the
 * write's resourceVersion, the store's text none; a write made behind
 * the API's back makes the next write of the key a 409, and the one after
 * reads the store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "api_testlib.h"

#include "client_local.h"
#include "objcache.h"

#define DEPLOY "/apis/apps/v1/namespaces/default/deployments"

static void
test_least_recently_used_out_first(void **state)
{
	struct objcache *c = objcache_new(2);
	json_t *a = json_string("a"), *b = json_string("b"),
	       *x = json_string("c");
	const char *text;
	int64_t rv = 0;

	(void)state;
	objcache_put(c, "pods", "default", "a", 1, a, "\"a\"");
	objcache_put(c, "pods", "default", "b", 2, b, "\"b\"");
	/* a is used: b is now the least recently used */
	assert_ptr_equal(objcache_get(c, "pods", "default", "a", &rv, &text),
			 a);
	assert_int_equal(rv, 1);
	assert_string_equal(text, "\"a\"");
	objcache_put(c, "pods", "default", "c", 3, x, "\"c\"");
	assert_int_equal(objcache_len(c), 2);
	assert_null(objcache_get(c, "pods", "default", "b", &rv, NULL));
	assert_non_null(objcache_get(c, "pods", "default", "a", &rv, NULL));
	/* the same name in another namespace or resource is another key */
	assert_null(objcache_get(c, "pods", "other", "a", &rv, NULL));
	assert_null(objcache_get(c, "services", "default", "a", &rv, NULL));
	/* a put replaces the key's entry */
	objcache_put(c, "pods", "default", "a", 4, b, "\"b\"");
	assert_ptr_equal(objcache_get(c, "pods", "default", "a", &rv, NULL), b);
	assert_int_equal(rv, 4);
	objcache_drop(c, "pods", "default", "a");
	assert_null(objcache_get(c, "pods", "default", "a", &rv, NULL));
	objcache_clear(c);
	assert_int_equal(objcache_len(c), 0);
	objcache_free(c);
	/* the cache held references of its own */
	assert_int_equal(a->refcount, 1);
	assert_int_equal(b->refcount, 1);
	assert_int_equal(x->refcount, 1);
	json_decref(a);
	json_decref(b);
	json_decref(x);
	/* no cache: everything misses */
	assert_null(objcache_new(0));
	objcache_put(NULL, "pods", "default", "a", 1, a, "");
	assert_null(objcache_get(NULL, "pods", "default", "a", &rv, NULL));
}

struct world {
	struct store *store;
	struct api *api;
	struct client *c;
	json_t *events;
};

static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct api_config cfg = {.now = fixed_now, .random = counter_random};

	w->store = store_mem_open(100);
	cfg.store = w->store;
	w->api = api_new(&cfg);
	w->c = client_local_new(w->api);
	w->events = json_array();
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;

	w->c->ops->free(w->c);
	api_free(w->api);
	store_free(w->store);
	json_decref(w->events);
	free(w);
	return 0;
}

static int
request(struct world *w, const char *method, const char *path, const char *ct,
	json_t *body, struct client_resp *r)
{
	int st;

	client_request(w->c, method, path, NULL, ct, body, r);
	st = r->status;
	json_decref(body);
	return st;
}

static const char *
rv_of(json_t *o)
{
	return json_string_value(
	    json_object_get(json_object_get(o, "metadata"), "resourceVersion"));
}

static void
on_event(void *arg, json_t *ev)
{
	struct world *w = arg;

	if (ev)
		json_array_append(w->events, ev);
}

/* A patch of the spec leaves metadata shared with the copy it started
 * from; taking resourceVersion out of the result must not take it out of
 * the copy, which is also the event of the write that made it, delivered
 * after the turn: here after a second patch that is refused. */
static void
test_patches_leave_the_copy_whole(void **state)
{
	struct world *w = *state;
	struct client_resp r, g;
	struct client_watch *wt;
	struct store_item it;
	json_t *ev;
	char rv[32];

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL,
		    json_pack("{sssss{ss}s{sis{s{ss}}s{s{s{ss}}s{s[{ssss}]}}}}",
			      "apiVersion", "apps/v1", "kind", "Deployment",
			      "metadata", "name", "web", "spec", "replicas", 1,
			      "selector", "matchLabels", "app", "web",
			      "template", "metadata", "labels", "app", "web",
			      "spec", "containers", "name", "web", "image",
			      "web:1"),
		    &r),
	    201);
	snprintf(rv, sizeof(rv), "%s", rv_of(r.body));
	client_resp_release(&r);
	wt = w->c->ops->watch(w->c, DEPLOY,
			      "watch=true&resourceVersion="
			      "0",
			      on_event, w, &r);
	assert_non_null(wt);
	client_resp_release(&r);
	store_deliver(w->store);
	json_array_clear(w->events);
	/* as in `drover serve`: events after the turn's commit */
	assert_int_equal(store_set_deferred(w->store, true), 0);
	assert_int_equal(request(w, "PATCH", DEPLOY "/web",
				 "application/strategic-merge-patch+json",
				 json_pack("{s{si}}", "spec", "replicas", 2),
				 &r),
			 200);
	assert_string_not_equal(rv_of(r.body), rv);
	snprintf(rv, sizeof(rv), "%s", rv_of(r.body));
	client_resp_release(&r);
	assert_int_equal(request(w, "PATCH", DEPLOY "/web",
				 "application/strategic-merge-patch+json",
				 json_pack("{s{si}}", "spec", "replicas", -1),
				 &r),
			 422);
	client_resp_release(&r);
	assert_int_equal(store_flush(w->store), 0);
	store_deliver(w->store);
	assert_int_equal(json_array_size(w->events), 1);
	ev = json_object_get(json_array_get(w->events, 0), "object");
	assert_non_null(rv_of(ev));
	assert_string_equal(rv_of(ev), rv);
	/* the next patch starts from the same copy, and answers what a GET
	 * reads from the store */
	assert_int_equal(request(w, "PATCH", DEPLOY "/web",
				 "application/strategic-merge-patch+json",
				 json_pack("{s{si}}", "spec", "replicas", 3),
				 &r),
			 200);
	assert_int_equal(request(w, "GET", DEPLOY "/web", NULL, NULL, &g), 200);
	assert_non_null(rv_of(r.body));
	assert_true(json_equal(r.body, g.body));
	client_resp_release(&r);
	client_resp_release(&g);
	/* the store keeps no resourceVersion in the text */
	assert_int_equal(
	    store_get(w->store,
		      &(struct store_key){"deployments", "default", "web"},
		      &it),
	    0);
	assert_null(strstr(it.value, "resourceVersion"));
	store_item_release(&it);
	w->c->ops->unwatch(w->c, wt);
}

/* The store is written by the API alone; a write behind its back (what
 * that rule forbids) costs one conflict, not a lost update. */
static void
test_a_write_behind_the_api_costs_one_conflict(void **state)
{
	struct world *w = *state;
	struct store_key k = {"deployments", "default", "web"};
	struct client_resp r;
	struct store_item it;
	json_t *o;
	char *text;
	int64_t rv;

	assert_int_equal(
	    request(w, "POST", DEPLOY, NULL,
		    json_pack("{sssss{ss}s{sis{s{ss}}s{s{s{ss}}s{s[{ssss}]}}}}",
			      "apiVersion", "apps/v1", "kind", "Deployment",
			      "metadata", "name", "web", "spec", "replicas", 1,
			      "selector", "matchLabels", "app", "web",
			      "template", "metadata", "labels", "app", "web",
			      "spec", "containers", "name", "web", "image",
			      "web:1"),
		    &r),
	    201);
	client_resp_release(&r);
	assert_int_equal(store_get(w->store, &k, &it), 0);
	o = json_loads(it.value, 0, NULL);
	json_object_set_new(json_object_get(o, "spec"), "replicas",
			    json_integer(5));
	text = json_dumps(o, JSON_COMPACT);
	assert_int_equal(store_update(w->store, &k, text, NULL, it.rv, &rv), 0);
	free(text);
	json_decref(o);
	store_item_release(&it);
	assert_int_equal(
	    request(w, "PATCH", DEPLOY "/web", "application/merge-patch+json",
		    json_pack("{s{s{ss}}}", "metadata", "labels", "a", "b"),
		    &r),
	    409);
	client_resp_release(&r);
	assert_int_equal(
	    request(w, "PATCH", DEPLOY "/web", "application/merge-patch+json",
		    json_pack("{s{s{ss}}}", "metadata", "labels", "a", "b"),
		    &r),
	    200);
	/* the write behind the API's back is kept */
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(r.body, "spec"), "replicas")),
			 5);
	client_resp_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_least_recently_used_out_first),
	    cmocka_unit_test_setup_teardown(test_patches_leave_the_copy_whole,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_a_write_behind_the_api_costs_one_conflict, setup,
		teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
