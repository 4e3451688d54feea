/* test_plan_rs.c - the ReplicaSet planner: pods to create, the victim
 * ranking of Kubernetes' ActivePodsWithRanks, status with minReadySeconds,
 * adoption and the burst limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"
#include "plan_rs.h"
#include "xalloc.h"

struct podspec {
	const char *name;
	const char *node;  /* NULL: unscheduled */
	const char *phase; /* Pending, Running, Unknown */
	int64_t ready_s;   /* ready since T0 + ready_s; <0 not ready */
	int64_t created_s;
	int64_t restarts;
	const char *cost; /* pod-deletion-cost or NULL */
};

static struct pod *
mkpod(const struct replicaset *rs, const struct podspec *ps)
{
	struct pod *p = xcalloc(1, sizeof(*p));
	struct container_status *cs;
	char uid[64];

	rs_new_pod(rs, p);
	p->metadata.name = xstrdup(ps->name);
	snprintf(uid, sizeof(uid), "uid-%s", ps->name);
	p->metadata.uid = xstrdup(uid);
	p->metadata.creation_timestamp = T0 + DTIME_SEC(ps->created_s);
	if (ps->node)
		p->spec.node_name = xstrdup(ps->node);
	p->status.phase = xstrdup(ps->phase);
	if (ps->ready_s >= 0) {
		struct condition c = {.type = "Ready",
				      .status = "True",
				      .last_transition_time =
					  T0 + DTIME_SEC(ps->ready_s)};

		condition_append(&p->status.conditions, &c);
	}
	cs = anylist_push((struct anylist *)&p->status.container_statuses,
			  sizeof(*cs));
	cs->name = xstrdup("web");
	cs->restart_count = ps->restarts;
	if (ps->cost)
		strmap_set(&p->metadata.annotations, ANN_DELETION_COST,
			   ps->cost);
	return p;
}

/* Scales rs (with the given pods) down by `down` and returns the victims'
 * names joined by ",". */
static char *
victims(const struct podspec *ps, size_t n, int64_t down, dtime now)
{
	struct deployment *d = fx_deployment(1, "v1", NULL, NULL);
	struct replicaset *rs =
	    fx_rs(d, "web-v1", "v1", (int64_t)n - down, 0, 1, 0);
	struct pod *pods[32];
	struct plan_rs_in in = {.rs = rs, .npods = n, .now = now};
	struct plan_rs_out out;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		pods[i] = mkpod(rs, &ps[i]);
	in.pods = (const struct pod *const *)pods;
	plan_rs(&in, &out);
	assert_int_equal(out.create, 0);
	for (i = 0; i < out.nvictims; i++) {
		if (i)
			strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, out.victims[i]->metadata.name);
	}
	plan_rs_out_release(&out);
	for (i = 0; i < n; i++) {
		pod_release(pods[i]);
		free(pods[i]);
	}
	fx_free_rs(rs);
	fx_free_deployment(d);
	return strbuf_detach(&sb);
}

static void
test_victim_ranking(void **state)
{
	static const struct {
		const char *name;
		struct podspec pods[6];
		size_t n;
		int64_t down;
		const char *want;
	} cases[] = {
	    {"unscheduled before scheduled",
	     {{"a", "n1", "Running", 0, 0, 0, NULL},
	      {"b", NULL, "Pending", -1, 0, 0, NULL}},
	     2,
	     1,
	     "b"},
	    {"Pending < Unknown < Running",
	     {{"a", "n1", "Running", -1, 0, 0, NULL},
	      {"b", "n1", "Unknown", -1, 0, 0, NULL},
	      {"c", "n1", "Pending", -1, 0, 0, NULL}},
	     3,
	     2,
	     "c,b"},
	    {"not ready before ready",
	     {{"a", "n1", "Running", 5, 0, 0, NULL},
	      {"b", "n1", "Running", -1, 0, 0, NULL}},
	     2,
	     1,
	     "b"},
	    {"lower deletion cost first",
	     {{"a", "n1", "Running", 5, 0, 0, "10"},
	      {"b", "n1", "Running", 5, 0, 0, "100"},
	      {"c", "n1", "Running", 5, 0, 0, "-5"}},
	     3,
	     2,
	     "c,a"},
	    {"doubled up on a node first",
	     {{"a", "n1", "Running", 5, 0, 0, NULL},
	      {"b", "n2", "Running", 5, 0, 0, NULL},
	      {"c", "n2", "Running", 5, 0, 0, NULL}},
	     3,
	     1,
	     "b"},
	    {"ready for less time first (log buckets)",
	     {{"a", "n1", "Running", 10, 0, 0, NULL},
	      {"b", "n1", "Running", 990, 0, 0, NULL}},
	     2,
	     1,
	     "b"},
	    {"more restarts first",
	     {{"a", "n1", "Running", 10, 0, 1, NULL},
	      {"b", "n1", "Running", 10, 0, 7, NULL}},
	     2,
	     1,
	     "b"},
	    {"newer first",
	     {{"a", "n1", "Running", 10, 0, 0, NULL},
	      {"b", "n1", "Running", 10, 900, 0, NULL}},
	     2,
	     1,
	     "b"},
	    {"deleting all needs no order",
	     {{"a", "n1", "Running", 10, 0, 0, NULL},
	      {"b", "n1", "Running", 10, 900, 0, NULL}},
	     2,
	     2,
	     "a,b"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = victims(cases[i].pods, cases[i].n, cases[i].down,
				    T0 + DTIME_SEC(1000));

		if (strcmp(got, cases[i].want))
			fail_msg("%s: got %s want %s", cases[i].name, got,
				 cases[i].want);
		free(got);
	}
}

static void
test_create_and_status(void **state)
{
	struct deployment *d = fx_deployment(1, "v1", NULL, NULL);
	struct replicaset *rs = fx_rs(d, "web-v1", "v1", 5, 0, 1, 0);
	struct podspec ps[] = {
	    {"a", "n1", "Running", 0, 0, 0, NULL},  /* available */
	    {"b", "n1", "Running", 98, 0, 0, NULL}, /* ready, not yet avail */
	    {"c", "n1", "Pending", -1, 0, 0, NULL},
	};
	struct pod *pods[4];
	struct plan_rs_in in = {
	    .rs = rs, .npods = 4, .now = T0 + DTIME_SEC(100)};
	struct plan_rs_out out;
	size_t i;

	(void)state;
	rs->spec.min_ready_seconds = 5;
	rs->metadata.generation = 3;
	for (i = 0; i < 3; i++)
		pods[i] = mkpod(rs, &ps[i]);
	/* a terminating pod does not count */
	pods[3] = mkpod(rs, &ps[0]);
	pods[3]->metadata.deletion_timestamp = T0 + 1;
	in.pods = (const struct pod *const *)pods;
	plan_rs(&in, &out);
	assert_int_equal(out.create, 2);
	assert_int_equal(out.nvictims, 0);
	assert_int_equal(out.status.replicas, 3);
	assert_int_equal(out.status.ready_replicas, 2);
	assert_int_equal(out.status.available_replicas, 1);
	assert_int_equal(out.status.fully_labeled_replicas, 3);
	assert_int_equal(out.status.observed_generation, 3);
	assert_true(out.status_changed);
	/* b becomes available strictly after 98 + 5 s */
	assert_int_equal(out.requeue_after_ms, DTIME_SEC(3) + 1);
	plan_rs_out_release(&out);
	for (i = 0; i < 4; i++) {
		pod_release(pods[i]);
		free(pods[i]);
	}
	fx_free_rs(rs);
	fx_free_deployment(d);
}

static void
test_adopt_and_burst(void **state)
{
	struct deployment *d = fx_deployment(1, "v1", NULL, NULL);
	struct replicaset *rs = fx_rs(d, "web-v1", "v1", 2000, 0, 1, 0);
	struct podspec ps = {"orphan", "n1", "Running", 0, 0, 0, NULL};
	struct pod *p = mkpod(rs, &ps);
	const struct pod *pods[1] = {p};
	struct plan_rs_in in = {
	    .rs = rs, .pods = pods, .npods = 1, .now = T0 + DTIME_SEC(100)};
	struct plan_rs_out out;

	(void)state;
	meta_remove_owner_refs(&p->metadata, "ReplicaSet", "uid-web-v1",
			       "web-v1");
	plan_rs(&in, &out);
	assert_int_equal(out.nadopt, 1);
	assert_int_equal(out.status.replicas, 1);
	assert_int_equal(out.create, RS_BURST_REPLICAS);
	plan_rs_out_release(&out);
	pod_release(p);
	free(p);
	fx_free_rs(rs);
	fx_free_deployment(d);
}

/* The victims of a scale-down by k are exactly the first k of a full
 * sort by ranked_pod_cmp, whatever k and the pods (the planner selects
 * them with a heap instead of sorting every pod). The times are all
 * distinct: with equal ready times Kubernetes' order is not transitive
 * (uid decides one pair, restarts the next), and no two sorts need
 * agree. */
static void
test_victims_are_the_sorted_prefix(void **state)
{
	static const char *phases[] = {"Pending", "Running", "Unknown"};
	static const char *nodes[] = {"a", "b", "c", NULL};
	struct deployment *d = fx_deployment(1, "v1", NULL, NULL);
	unsigned seed = 8;
	size_t n = 700, i, trial;

	(void)state;
	for (trial = 0; trial < 6; trial++) {
		int64_t down = (int64_t[]){1, 2, 37, 350, 499, 500}[trial];
		struct replicaset *rs =
		    fx_rs(d, "web-v1", "v1", (int64_t)n - down, 0, 1, 0);
		struct pod **pods = xcalloc(n, sizeof(*pods));
		struct ranked_pod *all = xcalloc(n, sizeof(*all));
		struct plan_rs_in in = {
		    .rs = rs, .npods = n, .now = T0 + DTIME_SEC(5000)};
		struct plan_rs_out out;
		const char **node_of = xcalloc(n, sizeof(*node_of));

		for (i = 0; i < n; i++) {
			char name[32];
			struct podspec ps = {name,
					     nodes[rand_r(&seed) % 4],
					     phases[rand_r(&seed) % 3],
					     (int64_t)((i * 7919) % 2000) - 5,
					     (int64_t)((i * 7907) % 4000),
					     (int64_t)(rand_r(&seed) % 3),
					     NULL};

			snprintf(name, sizeof(name), "p%03zu", i);
			pods[i] = mkpod(rs, &ps);
			node_of[i] = ps.node ? ps.node : "";
		}
		in.pods = (const struct pod *const *)pods;
		plan_rs(&in, &out);
		assert_int_equal(out.nvictims, (size_t)down);
		for (i = 0; i < n; i++) {
			size_t j, on = 0;

			for (j = 0; j < n; j++)
				on += !strcmp(node_of[i], node_of[j]);
			ranked_pod_init(&all[i], pods[i], (int64_t)on, in.now);
		}
		qsort(all, n, sizeof(*all), ranked_pod_cmp);
		for (i = 0; i < (size_t)down; i++)
			assert_string_equal(out.victims[i]->metadata.name,
					    all[i].pod->metadata.name);
		plan_rs_out_release(&out);
		for (i = 0; i < n; i++) {
			pod_release(pods[i]);
			free(pods[i]);
		}
		free(pods);
		free(all);
		free(node_of);
		fx_free_rs(rs);
	}
	fx_free_deployment(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_victim_ranking),
	    cmocka_unit_test(test_create_and_status),
	    cmocka_unit_test(test_adopt_and_burst),
	    cmocka_unit_test(test_victims_are_the_sorted_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
