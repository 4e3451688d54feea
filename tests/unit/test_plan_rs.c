/* test_plan_rs.c - the ReplicaSet planner: pods to create, the victim
 * ranking of Kubernetes' ActivePodsWithRanks, status with minReadySeconds,
 * adoption, release (labels that left the selector) and the burst limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"
#include "labels.h"
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

/* ClaimPods' release: spec 3, pods a, b, c; c relabeled app=debug is
 * released and not counted, and one pod is created in its place. A
 * ReplicaSet being deleted leaves c out without releasing it. */
static void
test_release_when_labels_leave_the_selector(void **state)
{
	struct deployment *d = fx_deployment(3, "v1", NULL, NULL);
	struct replicaset *rs = fx_rs(d, "web-v1", "v1", 3, 0, 1, 0);
	struct podspec ps[3] = {{"a", "n1", "Running", 0, 0, 0, NULL},
				{"b", "n1", "Running", 0, 0, 0, NULL},
				{"c", "n1", "Running", 0, 0, 0, NULL}};
	struct pod *pods[3];
	struct plan_rs_in in = {
	    .rs = rs, .npods = 3, .now = T0 + DTIME_SEC(100)};
	struct plan_rs_out out;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		pods[i] = mkpod(rs, &ps[i]);
	strmap_set(&pods[2]->metadata.labels, "app", "debug");
	in.pods = (const struct pod *const *)pods;
	plan_rs(&in, &out);
	assert_int_equal(out.nrelease, 1);
	assert_ptr_equal(out.release[0], pods[2]);
	assert_int_equal(out.create, 1);
	assert_int_equal(out.nvictims, 0);
	assert_int_equal(out.status.replicas, 2);
	plan_rs_out_release(&out);

	rs->metadata.deletion_timestamp = T0 + DTIME_SEC(99);
	plan_rs(&in, &out);
	assert_int_equal(out.nrelease, 0);
	assert_int_equal(out.create, 0);
	assert_int_equal(out.status.replicas, 2);
	plan_rs_out_release(&out);
	for (i = 0; i < 3; i++) {
		pod_release(pods[i]);
		free(pods[i]);
	}
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

/* calculateStatus read from the pods directly: the controlled active
 * pods (by uid, or by name for a reference without one) and the active
 * orphans the selector matches. */
static void
oracle_status(const struct replicaset *rs, struct pod *const *pods, size_t n,
	      dtime now, struct replicaset_status *st)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++) {
		const struct pod *p = pods[i];
		const struct owner_ref *ref = meta_controller_ref(&p->metadata);
		bool mine;

		if (!pod_is_active(p))
			continue;
		/* its own (or an orphan) while the selector matches: one
		 * that stopped matching is released, not counted */
		if (ref)
			mine = ref->uid ? !strcmp(ref->uid, rs->metadata.uid)
					: !strcmp(ref->name, rs->metadata.name);
		else
			mine = true;
		if (!mine ||
		    !selector_matches(rs->spec.selector, &p->metadata.labels))
			continue;
		st->replicas++;
		st->fully_labeled_replicas += labels_subset(
		    &rs->spec.template.metadata.labels, &p->metadata.labels);
		st->ready_replicas += pod_is_ready(p);
		st->available_replicas +=
		    pod_is_available(p, rs->spec.min_ready_seconds, now);
	}
}

/* Plans from the facts the controller's cache keeps give what plans from
 * the pods give, whatever falls outside the facts' fast paths: uids and
 * node names too long to keep inline, a reference by name (no uid), pods
 * with more labels than the template, or fewer, pods whose labels left
 * the selector (released), adoptable orphans and pods of another
 * ReplicaSet. */
static void
test_facts_give_the_same_plan(void **state)
{
	static const char *phases[] = {"Pending", "Running", "Unknown"};
	static const char *nodes[] = {
	    "a", "b",
	    "a-node-name-much-longer-than-forty-characters-kept-in-the-pod",
	    NULL};
	struct deployment *d = fx_deployment(1, "v1", NULL, NULL);
	unsigned seed = 11;
	size_t n = 300, i, trial;

	(void)state;
	for (trial = 0; trial < 4; trial++) {
		int64_t want = (int64_t[]){0, 120, 300, 700}[trial];
		struct replicaset *rs = fx_rs(d, "web-v1", "v1", want, 0, 1, 0);
		struct pod **pods = xcalloc(n, sizeof(*pods));
		struct pod_facts *facts = xcalloc(n, sizeof(*facts));
		const struct pod_facts **fp = xcalloc(n, sizeof(*fp));
		struct plan_rs_in in = {
		    .rs = rs, .npods = n, .now = T0 + DTIME_SEC(5000)};
		struct plan_rs_out a, b;
		struct replicaset_status want_st = {0};

		if (trial == 3) { /* a uid longer than the facts keep inline */
			free(rs->metadata.uid);
			rs->metadata.uid =
			    xstrdup("a-replicaset-uid-of-sixty-characters-"
				    "000000000000000");
		}
		rs->spec.min_ready_seconds = trial;
		/* a template label the selector does not name */
		strmap_set(&rs->spec.template.metadata.labels, "tier", "front");
		for (i = 0; i < n; i++) {
			char name[32];
			struct podspec ps = {name,
					     nodes[rand_r(&seed) % 4],
					     phases[rand_r(&seed) % 3],
					     (int64_t)(rand_r(&seed) % 6000) -
						 1000,
					     (int64_t)(rand_r(&seed) % 4000),
					     (int64_t)(rand_r(&seed) % 3),
					     NULL};
			struct owner_ref *ref;

			snprintf(name, sizeof(name), "p%03zu", i);
			pods[i] = mkpod(rs, &ps);
			ref = &pods[i]->metadata.owner_references.v[0];
			switch (i % 7) {
			case 1: /* an extra label: still fully labeled */
				strmap_set(&pods[i]->metadata.labels, "x", "y");
				break;
			case 2: /* a template label changed: not fully */
				strmap_set(&pods[i]->metadata.labels, "tier",
					   "back");
				break;
			case 3: /* a reference by name */
				free(ref->uid);
				ref->uid = NULL;
				break;
			case 4: /* an orphan */
				ref->controller.v = false;
				break;
			case 5: /* another ReplicaSet's */
				free(ref->uid);
				ref->uid = xstrdup("another-uid");
				break;
			case 6: /* a selector label changed: released */
				strmap_set(&pods[i]->metadata.labels,
					   "pod-template-hash", "other");
				break;
			}
			pod_facts_init(&facts[i], pods[i]);
			fp[i] = &facts[i];
		}
		in.pods = (const struct pod *const *)pods;
		plan_rs(&in, &a);
		in.facts = fp;
		plan_rs(&in, &b);
		assert_int_equal(a.create, b.create);
		assert_int_equal(a.nvictims, b.nvictims);
		for (i = 0; i < a.nvictims; i++)
			assert_ptr_equal(a.victims[i], b.victims[i]);
		assert_int_equal(a.nadopt, b.nadopt);
		for (i = 0; i < a.nadopt; i++)
			assert_ptr_equal(a.adopt[i], b.adopt[i]);
		assert_int_equal(a.nrelease, b.nrelease);
		for (i = 0; i < a.nrelease; i++)
			assert_ptr_equal(a.release[i], b.release[i]);
		assert_true(schema_equal(schema_replicaset.fields[4].sub,
					 &a.status, &b.status));
		assert_int_equal(a.requeue_after_ms, b.requeue_after_ms);
		/* and both are what the pods themselves say */
		oracle_status(rs, pods, n, in.now, &want_st);
		assert_int_equal(a.status.replicas, want_st.replicas);
		assert_int_equal(a.status.fully_labeled_replicas,
				 want_st.fully_labeled_replicas);
		assert_int_equal(a.status.ready_replicas,
				 want_st.ready_replicas);
		assert_int_equal(a.status.available_replicas,
				 want_st.available_replicas);
		/* the cases above were all met */
		assert_true(a.status.fully_labeled_replicas <
			    a.status.replicas);
		assert_true(a.nadopt > 0);
		assert_true(a.nrelease > 0);
		plan_rs_out_release(&a);
		plan_rs_out_release(&b);
		for (i = 0; i < n; i++) {
			pod_release(pods[i]);
			free(pods[i]);
		}
		free(pods);
		free(facts);
		free(fp);
		fx_free_rs(rs);
	}
	fx_free_deployment(d);
}

/* The facts of a pod, field by field (pod_facts.h's worked example). */
static void
test_pod_facts(void **state)
{
	struct deployment *d = fx_deployment(1, "v1", NULL, NULL);
	struct replicaset *rs = fx_rs(d, "web-v1", "v1", 1, 0, 1, 0);
	struct podspec ps = {"p", "local", "Running", 3, 1, 1, "-7"};
	struct pod *p = mkpod(rs, &ps);
	struct pod_facts f;

	(void)state;
	pod_facts_init(&f, p);
	assert_ptr_equal(f.pod, p);
	assert_true(f.active && f.ready && !f.unassigned);
	assert_true(f.has_controller && f.controller_kind_rs);
	assert_int_equal(f.phase, 2);
	assert_int_equal(f.ready_time, T0 + DTIME_SEC(3));
	assert_int_equal(f.created, T0 + DTIME_SEC(1));
	assert_int_equal(f.cost, -7);
	assert_int_equal(f.restarts, 1);
	assert_string_equal(pod_facts_controller(&f), rs->metadata.uid);
	assert_string_equal(pod_facts_node(&f), "local");
	assert_string_equal(pod_facts_uid(&f), "uid-p");
	assert_true(f.labels_fp ==
		    labels_fingerprint(&rs->spec.template.metadata.labels));
	/* a label more: another fingerprint */
	strmap_set(&p->metadata.labels, "x", "y");
	pod_facts_init(&f, p);
	assert_false(f.labels_fp ==
		     labels_fingerprint(&rs->spec.template.metadata.labels));
	/* deleted, and a malformed cost */
	p->metadata.deletion_timestamp = T0;
	strmap_set(&p->metadata.annotations, ANN_DELETION_COST, "12x");
	pod_facts_init(&f, p);
	assert_false(f.active);
	assert_int_equal(f.cost, 0);
	pod_release(p);
	free(p);
	fx_free_rs(rs);
	fx_free_deployment(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_victim_ranking),
	    cmocka_unit_test(test_create_and_status),
	    cmocka_unit_test(test_adopt_and_burst),
	    cmocka_unit_test(test_release_when_labels_leave_the_selector),
	    cmocka_unit_test(test_victims_are_the_sorted_prefix),
	    cmocka_unit_test(test_facts_give_the_same_plan),
	    cmocka_unit_test(test_pod_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
