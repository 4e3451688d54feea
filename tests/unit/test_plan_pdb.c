/* test_plan_pdb.c - the disruption controller's sync (plan_pdb), case by
 * case from spec §11.1: each case is a small namespace (pods with their
 * readiness and controller, the controllers' scales, a budget) and the
 * status it must get, rendered as "expected/desired/current/allowed
 * reason", plus the Events, the disruptedPods kept and the recheck. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"
#include "plan_pdb.h"
#include "xalloc.h"

/* A pod: name, ready, its controller ("rs/a", "rc/r", "" none),
 * deleting. */
struct tpod {
	const char *name;
	bool ready;
	const char *owner;
	bool deleting;
};

struct tcase {
	const char *what;
	const char *min, *max; /* "5", "50%"; NULL unset */
	bool no_selector;
	struct tpod pods[8];
	/* controllers: RS "a" (replicas ra, owned by Deployment "d" when
	 * a_in_dep), RS "b" (in Deployment "d"), RC "r"; Deployment "d" of
	 * replicas rd */
	int64_t ra, rd, rr;
	bool a_in_dep;
	/* disruptedPods entries: name and age in seconds */
	struct {
		const char *name;
		int64_t age_s;
	} disrupted[3];
	const char *want; /* "expected/desired/current/allowed reason" */
	const char *kept; /* disruptedPods kept, "a,b" ("" none) */
	const char *unmanaged, *not_deleted;
	int64_t recheck_ms;
};

static const struct tcase cases[] = {
    {"minAvailable 5 of 6 ready pods of one ReplicaSet",
     "5",
     NULL,
     false,
     {{"p1", 1, "rs/a", 0},
      {"p2", 1, "rs/a", 0},
      {"p3", 1, "rs/a", 0},
      {"p4", 1, "rs/a", 0},
      {"p5", 1, "rs/a", 0},
      {"p6", 1, "rs/a", 0}},
     6,
     0,
     0,
     false,
     {{0}},
     "6/5/6/1 SufficientPods",
     "",
     "",
     "",
     -1},
    {"an integer minAvailable counts the pods, not the scale",
     "2",
     NULL,
     false,
     {{"p1", 1, "rs/a", 0}, {"p2", 0, "rs/a", 0}},
     10,
     0,
     0,
     false,
     {{0}},
     "2/2/1/0 InsufficientPods",
     "",
     "",
     "",
     -1},
    {"maxUnavailable 25% of a Deployment mid-rollout: counted once",
     NULL,
     "25%",
     false,
     {{"p1", 1, "rs/a", 0},
      {"p2", 1, "rs/a", 0},
      {"p3", 1, "rs/b", 0},
      {"p4", 1, "rs/b", 0},
      {"p5", 0, "rs/b", 0}},
     3,
     10,
     0,
     true,
     {{0}},
     "10/7/4/0 InsufficientPods",
     "",
     "",
     "",
     -1},
    {"minAvailable 50% rounds up",
     "50%",
     NULL,
     false,
     {{"p1", 1, "rs/a", 0}, {"p2", 1, "rs/a", 0}, {"p3", 1, "rs/a", 0}},
     3,
     0,
     0,
     false,
     {{0}},
     "3/2/3/1 SufficientPods",
     "",
     "",
     "",
     -1},
    {"a ReplicationController's scale",
     NULL,
     "1",
     false,
     {{"p1", 1, "rc/r", 0}, {"p2", 1, "rc/r", 0}, {"p3", 1, "rc/r", 0}},
     0,
     0,
     3,
     false,
     {{0}},
     "3/2/3/1 SufficientPods",
     "",
     "",
     "",
     -1},
    {"maxUnavailable above the scale: desired 0",
     NULL,
     "5",
     false,
     {{"p1", 1, "rs/a", 0}},
     2,
     0,
     0,
     false,
     {{0}},
     "2/0/1/1 SufficientPods",
     "",
     "",
     "",
     -1},
    {"unmanaged pods: skipped in the sum, counted healthy",
     "50%",
     NULL,
     false,
     {{"p1", 1, "", 0}, {"p2", 1, "rs/a", 0}},
     1,
     0,
     0,
     false,
     {{0}},
     "1/1/2/1 SufficientPods",
     "",
     "p1",
     "",
     -1},
    {"only unmanaged pods: expected 0, nothing allowed",
     NULL,
     "1",
     false,
     {{"p1", 1, "", 0}, {"p2", 1, "", 0}},
     0,
     0,
     0,
     false,
     {{0}},
     "0/0/2/0 InsufficientPods",
     "",
     "p1,p2",
     "",
     -1},
    {"no selector: no pods",
     "1",
     NULL,
     true,
     {{"p1", 1, "rs/a", 0}},
     1,
     0,
     0,
     false,
     {{0}},
     "0/1/0/0 InsufficientPods",
     "",
     "",
     "",
     -1},
    {"a deleting pod is not healthy",
     "1",
     NULL,
     false,
     {{"p1", 1, "rs/a", 0}, {"p2", 1, "rs/a", 1}},
     2,
     0,
     0,
     false,
     {{0}},
     "2/1/1/0 InsufficientPods",
     "",
     "",
     "",
     -1},
    {"disruptedPods: a young entry keeps its pod out, an old one expires",
     "1",
     NULL,
     false,
     {{"p1", 1, "rs/a", 0},
      {"p2", 1, "rs/a", 0},
      {"p3", 1, "rs/a", 0},
      {"p4", 1, "rs/a", 1}},
     4,
     0,
     0,
     false,
     {{"p1", 30}, {"p2", 150}, {"p4", 10}},
     "4/1/2/1 SufficientPods",
     "p1",
     "",
     "p2",
     90000},
    {"a controller not found is a sync error: the fail safe",
     "50%",
     NULL,
     false,
     {{"p1", 1, "rs/gone", 0}},
     1,
     0,
     0,
     false,
     {{0}},
     "0/0/0/0 SyncFailed",
     "",
     "",
     "",
     -1},
};

static void
own(struct object_meta *m, const char *kind, const char *api_version,
    const char *name, const char *uid)
{
	struct owner_ref *r =
	    anylist_push((struct anylist *)&m->owner_references, sizeof(*r));

	r->api_version = xstrdup(api_version);
	r->kind = xstrdup(kind);
	r->name = xstrdup(name);
	r->uid = xstrdup(uid);
	r->controller.set = r->controller.v = true;
}

static void
meta(struct object_meta *m, const char *name, const char *uid)
{
	m->name = xstrdup(name);
	m->namespace = xstrdup("default");
	m->uid = xstrdup(uid);
}

static void
run_case(const struct tcase *c)
{
	struct pod_disruption_budget pdb = {0};
	struct pod *pods[8];
	struct replicaset a = {0}, b = {0};
	struct deployment d = {0};
	struct replication_controller r = {0};
	struct replicaset *rses[] = {&a, &b};
	struct deployment *deps[] = {&d};
	struct replication_controller *rcs[] = {&r};
	struct pdb_world w = {.pdb = &pdb,
			      .pods = pods,
			      .rses = rses,
			      .nrs = 2,
			      .deps = deps,
			      .ndeps = 1,
			      .rcs = rcs,
			      .nrcs = 1,
			      .now = T0 + 3600 * 1000};
	struct pdb_plan out;
	const struct condition *cond;
	char got[200];
	size_t i, n = 0;

	meta(&pdb.metadata, "web", "uid-pdb");
	pdb.metadata.generation = 3;
	if (c->min)
		pdb.spec.min_available = fx_intstr(c->min);
	if (c->max)
		pdb.spec.max_unavailable = fx_intstr(c->max);
	if (!c->no_selector) {
		pdb.spec.selector = xcalloc(1, sizeof(*pdb.spec.selector));
		strmap_set(&pdb.spec.selector->match_labels, "app", "web");
	}
	for (i = 0; i < 3 && c->disrupted[i].name; i++) {
		char t[32];

		dtime_format(w.now - c->disrupted[i].age_s * 1000, t);
		strmap_set(&pdb.status.disrupted_pods, c->disrupted[i].name, t);
	}
	meta(&a.metadata, "a", "uid-a");
	a.spec.replicas = (struct opt_int){.set = true, .v = c->ra};
	if (c->a_in_dep)
		own(&a.metadata, "Deployment", "apps/v1", "d", "uid-d");
	meta(&b.metadata, "b", "uid-b");
	own(&b.metadata, "Deployment", "apps/v1", "d", "uid-d");
	meta(&d.metadata, "d", "uid-d");
	d.spec.replicas = (struct opt_int){.set = true, .v = c->rd};
	meta(&r.metadata, "r", "uid-r");
	r.spec.replicas = (struct opt_int){.set = true, .v = c->rr};
	for (i = 0; i < 8 && c->pods[i].name; i++) {
		const struct tpod *t = &c->pods[i];
		struct pod *p = xcalloc(1, sizeof(*p));

		meta(&p->metadata, t->name, t->name);
		strmap_set(&p->metadata.labels, "app", "web");
		if (!strncmp(t->owner, "rs/", 3))
			own(&p->metadata, "ReplicaSet", "apps/v1", t->owner + 3,
			    !strcmp(t->owner + 3, "gone") ? "uid-gone"
			    : !strcmp(t->owner + 3, "a")  ? "uid-a"
							  : "uid-b");
		else if (!strncmp(t->owner, "rc/", 3))
			own(&p->metadata, "ReplicationController", "v1", "r",
			    "uid-r");
		if (t->deleting)
			p->metadata.deletion_timestamp = T0;
		if (t->ready)
			condition_append(&p->status.conditions,
					 &(struct condition){.type = "Ready",
							     .status = "True"});
		pods[n++] = p;
	}
	w.npods = n;
	plan_pdb(&w, &out);
	cond = condition_get(&out.status.conditions,
			     PDB_CONDITION_DISRUPTION_ALLOWED);
	snprintf(got, sizeof(got), "%lld/%lld/%lld/%lld %s",
		 (long long)out.status.expected_pods,
		 (long long)out.status.desired_healthy,
		 (long long)out.status.current_healthy,
		 (long long)out.status.disruptions_allowed,
		 cond && cond->reason ? cond->reason : "-");
	if (strcmp(got, c->want))
		fail_msg("%s: got %s, want %s", c->what, got, c->want);
	{
		struct strbuf kept = STRBUF_INIT, um = STRBUF_INIT,
			      nd = STRBUF_INIT;

		for (i = 0; i < out.status.disrupted_pods.n; i++)
			strbuf_addf(&kept, "%s%s", i ? "," : "",
				    out.status.disrupted_pods.v[i].key);
		for (i = 0; i < out.unmanaged.n; i++)
			strbuf_addf(&um, "%s%s", i ? "," : "",
				    out.unmanaged.v[i]);
		for (i = 0; i < out.not_deleted.n; i++)
			strbuf_addf(&nd, "%s%s", i ? "," : "",
				    out.not_deleted.v[i]);
		if (strcmp(kept.buf ? kept.buf : "", c->kept) ||
		    strcmp(um.buf ? um.buf : "", c->unmanaged) ||
		    strcmp(nd.buf ? nd.buf : "", c->not_deleted) ||
		    out.recheck_ms != c->recheck_ms)
			fail_msg("%s: kept %s unmanaged %s not deleted %s "
				 "recheck %lld",
				 c->what, kept.buf ? kept.buf : "",
				 um.buf ? um.buf : "", nd.buf ? nd.buf : "",
				 (long long)out.recheck_ms);
		strbuf_release(&kept);
		strbuf_release(&um);
		strbuf_release(&nd);
	}
	/* observedGeneration: the budget's, but for the fail safe */
	if (out.error) {
		assert_string_equal(out.error,
				    "found no controllers for pod \"p1\"");
		assert_int_equal(out.status.observed_generation, 0);
		assert_string_equal(cond->message, out.error);
		assert_string_equal(cond->status, "False");
	} else {
		assert_int_equal(out.status.observed_generation, 3);
		assert_int_equal(cond->observed_generation, 3);
		assert_int_equal(cond->last_transition_time, w.now);
	}
	assert_true(out.write);
	plan_pdb_release(&out);
	for (i = 0; i < n; i++) {
		pod_release(pods[i]);
		free(pods[i]);
	}
	pdb_release(&pdb);
	replicaset_release(&a);
	replicaset_release(&b);
	deployment_release(&d);
	rc_release(&r);
}

static void
test_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* A budget whose status is already what the sync computes is not
 * written again; a change of generation makes it written. */
static void
test_unchanged_is_not_written(void **state)
{
	struct pod_disruption_budget pdb = {0};
	struct pod p = {0};
	struct pod *pods[] = {&p};
	struct pdb_world w = {.pdb = &pdb, .pods = pods, .npods = 1, .now = T0};
	struct pdb_plan out, again;

	(void)state;
	meta(&pdb.metadata, "web", "uid-pdb");
	pdb.metadata.generation = 1;
	pdb.spec.min_available = fx_intstr("1");
	pdb.spec.selector = xcalloc(1, sizeof(*pdb.spec.selector));
	meta(&p.metadata, "p1", "uid-p1");
	condition_append(
	    &p.status.conditions,
	    &(struct condition){.type = "Ready", .status = "True"});
	plan_pdb(&w, &out);
	assert_true(out.write);
	pdb_status_release(&pdb.status);
	pdb_status_copy(&pdb.status, &out.status);
	w.now = T0 + 5000;
	plan_pdb(&w, &again);
	assert_false(again.write);
	plan_pdb_release(&again);
	pdb.metadata.generation = 2;
	plan_pdb(&w, &again);
	assert_true(again.write);
	/* the condition's status did not change: its time stays */
	assert_int_equal(
	    condition_get(&again.status.conditions, "DisruptionAllowed")
		->last_transition_time,
	    T0);
	plan_pdb_release(&again);
	plan_pdb_release(&out);
	pdb_release(&pdb);
	pod_release(&p);
}

static void
test_unmanaged_message(void **state)
{
	struct pod_disruption_budget pdb = {0};
	struct strbuf sb = STRBUF_INIT;
	struct selector_req *r;

	(void)state;
	pdb.spec.selector = xcalloc(1, sizeof(*pdb.spec.selector));
	strmap_set(&pdb.spec.selector->match_labels, "app", "web");
	r = anylist_push(
	    (struct anylist *)&pdb.spec.selector->match_expressions,
	    sizeof(*r));
	r->key = xstrdup("tier");
	r->operator= xstrdup("In");
	strlist_push(&r->values, "a");
	strlist_push(&r->values, "b");
	pdb_unmanaged_message(&pdb, &sb);
	assert_string_equal(
	    sb.buf,
	    "Pods selected by this PodDisruptionBudget (selector: "
	    "&LabelSelector{MatchLabels:map[string]string{app: web,},"
	    "MatchExpressions:[]LabelSelectorRequirement{"
	    "LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},},}) "
	    "were found to be unmanaged. As a result, the status of the PDB "
	    "cannot be calculated correctly, which may result in undefined "
	    "behavior. To account for these pods please set "
	    "\".spec.minAvailable\" field of the PDB to an integer value.");
	strbuf_release(&sb);
	pdb_release(&pdb);
}

/* nonTerminatingPodHasStaleDisruptionCondition */
static void
test_stale_disruption(void **state)
{
	struct pod p = {0};
	int64_t wait;

	(void)state;
	assert_false(pdb_stale_disruption(&p, T0, &wait));
	condition_append(&p.status.conditions,
			 &(struct condition){.type = "DisruptionTarget",
					     .status = "True",
					     .reason = "EvictionByEvictionAPI",
					     .last_transition_time = T0});
	assert_true(pdb_stale_disruption(&p, T0 + 30000, &wait));
	assert_int_equal(wait, 90000);
	assert_true(pdb_stale_disruption(&p, T0 + 200000, &wait));
	assert_int_equal(wait, 0);
	p.metadata.deletion_timestamp = T0; /* being deleted: not stale */
	assert_false(pdb_stale_disruption(&p, T0 + 200000, &wait));
	p.metadata.deletion_timestamp = 0;
	p.status.phase = xstrdup("Failed"); /* finished: not stale */
	assert_false(pdb_stale_disruption(&p, T0 + 200000, &wait));
	free(p.status.phase);
	p.status.phase = NULL;
	free(p.status.conditions.v[0].reason); /* the kubelet's: never */
	p.status.conditions.v[0].reason = xstrdup("TerminationByKubelet");
	assert_false(pdb_stale_disruption(&p, T0 + 200000, &wait));
	pod_release(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_stale_disruption),
	    cmocka_unit_test(test_unchanged_is_not_written),
	    cmocka_unit_test(test_unmanaged_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
