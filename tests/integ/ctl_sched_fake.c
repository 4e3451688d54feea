/* ctl_sched_fake.c - the scheduler's shell against the recording fake
 * client: NodeResourcesFit with pods it has bound but whose binding the
 * watch has not shown yet (assumed on the node, as in kube-scheduler's
 * cache), the Unschedulable condition written once, the retry when a
 * pod lets go of the node's resources, and the per-owner counts of the
 * spread score kept right across binds, bindings shown late, deletions,
 * orphaning and adoption. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "client_fake.h"
#include "ctl.h"
#include "informer.h"

#define PODS "/api/v1/namespaces/default/pods/"

static dtime
fixed_now(void)
{
	return DTIME_SEC(1800000000);
}

/* Sends one watch event (printf-style JSON) that must reach one watch. */
#define emit(c, path, ...)                                                     \
	assert_int_equal(client_fake_emitf((c), (path), __VA_ARGS__), 1)

/* A pending pod requesting 1 cpu; status is "" or a conditions list. */
static void
pod(struct client *c, const char *type, const char *name, const char *rv,
    const char *status)
{
	emit(c, "/api/v1/pods",
	     "{\"type\": \"%s\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"Pod\", \"metadata\": {\"name\": \"%s\","
	     "\"namespace\": \"default\", \"uid\": \"%s-uid\","
	     "\"resourceVersion\": \"%s\"}, \"spec\": {\"containers\":"
	     "[{\"name\": \"c\", \"image\": \"x\", \"resources\":"
	     "{\"requests\": {\"cpu\": \"1\"}}}]}, \"status\": {%s}}}",
	     type, name, name, rv, status);
}

static void
node(struct client *c, const char *type, const char *rv)
{
	emit(c, "/api/v1/nodes",
	     "{\"type\": \"%s\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"Node\", \"metadata\": {\"name\": \"host\","
	     "\"resourceVersion\": \"%s\"}, \"status\": {\"allocatable\":"
	     "{\"cpu\": \"2\", \"memory\": \"1Gi\", \"pods\": \"110\"},"
	     "\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}}}",
	     type, rv);
}

static void
test_fit_counts_assumed_pods_and_retries_when_room_frees(void **state)
{
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_sched *s;
	const struct client_fake_request *rq;
	const json_t *cond;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	client_fake_answer_empty_list(c, KIND_POD);
	client_fake_answer_empty_list(c, KIND_NODE);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	cfg.nodes = informer_new(c, &loop, KIND_NODE);
	s = ctl_sched_start(&cfg);
	assert_non_null(s);
	node(c, "ADDED", "6");

	/* two pods of 1 cpu on a node of 2: both bound */
	pod(c, "ADDED", "a", "7", "");
	pod(c, "ADDED", "b", "8", "");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "a/binding"), 1);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "b/binding"), 1);

	/* the watch has not shown either binding: a third pod must still
	 * find the node full */
	client_fake_clear(c);
	pod(c, "ADDED", "p", "9", "");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "p/binding"), 0);
	rq = client_fake_last(c, "PUT", PODS "p/status");
	assert_non_null(rq);
	cond = json_array_get(
	    json_object_get(json_object_get(rq->body, "status"), "conditions"),
	    0);
	assert_string_equal(json_string_value(json_object_get(cond, "type")),
			    "PodScheduled");
	assert_string_equal(json_string_value(json_object_get(cond, "status")),
			    "False");
	assert_string_equal(json_string_value(json_object_get(cond, "reason")),
			    "Unschedulable");
	assert_string_equal(json_string_value(json_object_get(cond, "message")),
			    "0/1 nodes are available: 1 Insufficient cpu.");

	/* an event of b written before its binding (no nodeName yet)
	 * arrives late: b stays assumed, neither bound again nor losing
	 * its cpu to p */
	client_fake_clear(c);
	pod(c, "MODIFIED", "b", "9", "\"phase\": \"Pending\"");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "b/binding"), 0);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "p/binding"), 0);

	/* the watch shows the condition; a node change retries p, which
	 * still does not fit, and the same status is not written again */
	pod(c, "MODIFIED", "p", "10",
	    "\"conditions\": [{\"type\": \"PodScheduled\", \"status\":"
	    "\"False\", \"reason\": \"Unschedulable\", \"message\": \"0/1 "
	    "nodes are available: 1 Insufficient cpu.\"}]");
	client_fake_clear(c);
	node(c, "MODIFIED", "11");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count(c), 0);

	/* a goes away (deleted before its binding showed): 1 cpu is free
	 * and p is bound without any node changing */
	pod(c, "DELETED", "a", "12", "");
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(client_fake_count_of(c, "POST", PODS "p/binding"), 1);

	ctl_sched_stop(s);
	informer_free(cfg.pods);
	informer_free(cfg.nodes);
	c->ops->free(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

/* A Ready node with room for everything. */
static void
named_node(struct client *c, const char *name, const char *rv)
{
	emit(c, "/api/v1/nodes",
	     "{\"type\": \"ADDED\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"Node\", \"metadata\": {\"name\": \"%s\","
	     "\"resourceVersion\": \"%s\"}, \"status\": {\"allocatable\":"
	     "{\"cpu\": \"8\", \"memory\": \"8Gi\", \"pods\": \"110\"},"
	     "\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}}}",
	     name, rv);
}

/* A pod requesting nothing, controlled by owner (NULL: none), bound to
 * node ("": pending), being deleted if deleting. */
static void
owned_pod(struct client *c, const char *type, const char *name, const char *rv,
	  const char *owner, const char *node, bool deleting)
{
	char refs[300] = "", del[80] = "", bind[80] = "";

	if (owner)
		snprintf(refs, sizeof(refs),
			 ", \"ownerReferences\": [{\"apiVersion\": \"apps/v1\","
			 "\"kind\": \"ReplicaSet\", \"name\": \"rs\", \"uid\":"
			 "\"%s\", \"controller\": true}]",
			 owner);
	if (deleting)
		snprintf(del, sizeof(del),
			 ", \"deletionTimestamp\": \"2027-01-15T08:00:00Z\"");
	if (*node)
		snprintf(bind, sizeof(bind), ", \"nodeName\": \"%s\"", node);
	emit(c, "/api/v1/pods",
	     "{\"type\": \"%s\", \"object\": {\"apiVersion\": \"v1\","
	     "\"kind\": \"Pod\", \"metadata\": {\"name\": \"%s\","
	     "\"namespace\": \"default\", \"uid\": \"%s-uid\","
	     "\"resourceVersion\": \"%s\"%s%s}, \"spec\": {\"containers\":"
	     "[{\"name\": \"c\", \"image\": \"x\"}]%s}}}",
	     type, name, name, rv, refs, del, bind);
}

/* The node the last binding of pod name asked for, or "". */
static const char *
bound_to(struct client *c, const char *name)
{
	char path[200];
	const struct client_fake_request *rq;

	snprintf(path, sizeof(path), PODS "%s/binding", name);
	rq = client_fake_last(c, "POST", path);
	if (rq == NULL)
		return "";
	return json_string_value(
	    json_object_get(json_object_get(rq->body, "target"), "name"));
}

/* Pending pod name of rs1 is bound to want. */
static void
place(struct client *c, uv_loop_t *loop, const char *name, const char *rv,
      const char *want)
{
	owned_pod(c, "ADDED", name, rv, "rs1", "", false);
	uv_run(loop, UV_RUN_NOWAIT);
	if (strcmp(bound_to(c, name), want))
		fail_msg("%s bound to \"%s\", want %s", name, bound_to(c, name),
			 want);
}

static void
test_owner_counts_across_bind_and_delete(void **state)
{
	static const char *const first[6][2] = {
	    {"w0", "b"}, {"w1", "c"}, {"w2", "a"},
	    {"w3", "b"}, {"w4", "c"}, {"w5", "a"},
	};
	uv_loop_t loop;
	struct client *c;
	struct ctl_config cfg = {0};
	struct ctl_sched *s;
	char rv[16];
	int i;

	(void)state;
	uv_loop_init(&loop);
	c = client_fake_new(&loop);
	client_fake_echo_writes(c, true);
	cfg.loop = &loop;
	cfg.client = c;
	cfg.now = fixed_now;
	client_fake_answer_empty_list(c, KIND_POD);
	client_fake_answer_empty_list(c, KIND_NODE);
	cfg.pods = informer_new(c, &loop, KIND_POD);
	cfg.nodes = informer_new(c, &loop, KIND_NODE);
	s = ctl_sched_start(&cfg);
	assert_non_null(s);
	named_node(c, "a", "6");
	named_node(c, "b", "7");
	named_node(c, "c", "8");
	/* another owner's pods sit unevenly: 3 on a, 1 on c */
	owned_pod(c, "ADDED", "x1", "9", "other", "a", false);
	owned_pod(c, "ADDED", "x2", "10", "other", "a", false);
	owned_pod(c, "ADDED", "x3", "11", "other", "a", false);
	owned_pod(c, "ADDED", "x4", "12", "other", "c", false);

	/* six pods of rs1 in one pass: 2/2/2, in placement.c's order */
	for (i = 0; i < 6; i++) {
		snprintf(rv, sizeof(rv), "%d", 20 + i);
		owned_pod(c, "ADDED", first[i][0], rv, "rs1", "", false);
	}
	uv_run(&loop, UV_RUN_NOWAIT);
	for (i = 0; i < 6; i++)
		if (strcmp(bound_to(c, first[i][0]), first[i][1]))
			fail_msg("%s bound to \"%s\", want %s", first[i][0],
				 bound_to(c, first[i][0]), first[i][1]);

	/* the watch shows w0's and w3's bindings: they count once on b
	 * (twice, b would hold 4 of rs1 and w6 would go to c); rs1 is at
	 * 2/2/2 and b has the fewest pods */
	owned_pod(c, "MODIFIED", "w0", "30", "rs1", "b", false);
	owned_pod(c, "MODIFIED", "w3", "31", "rs1", "b", false);
	place(c, &loop, "w6", "32", "b");

	/* w1 (shown bound) and w4 (still assumed) go: c holds none of rs1,
	 * and takes the next two (0, then 1 < 2) */
	owned_pod(c, "MODIFIED", "w1", "33", "rs1", "c", false);
	owned_pod(c, "DELETED", "w1", "34", "rs1", "c", false);
	owned_pod(c, "DELETED", "w4", "35", "rs1", "", false);
	place(c, &loop, "w7", "36", "c");
	place(c, &loop, "w8", "37", "c");

	/* w2 is being deleted: a counts 1 of rs1 (w5), the fewest */
	owned_pod(c, "MODIFIED", "w2", "38", "rs1", "a", true);
	place(c, &loop, "w9", "39", "a");

	/* w5 is orphaned: a counts 1 (w9) again */
	owned_pod(c, "MODIFIED", "w5", "40", NULL, "a", false);
	place(c, &loop, "w10", "41", "a");

	/* rs1 adopts x1 and x2 on a: a 4, b 3, c 2 */
	owned_pod(c, "MODIFIED", "x1", "42", "rs1", "a", false);
	owned_pod(c, "MODIFIED", "x2", "43", "rs1", "a", false);
	place(c, &loop, "w11", "44", "c");

	ctl_sched_stop(s);
	informer_free(cfg.pods);
	informer_free(cfg.nodes);
	c->ops->free(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
		test_fit_counts_assumed_pods_and_retries_when_room_frees),
	    cmocka_unit_test(test_owner_counts_across_bind_and_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
