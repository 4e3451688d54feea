/* test_eviction.c - the eviction subresource's decision (eviction.c),
 * case by case from spec §11.2: a pod (phase, readiness, deleting), the
 * budgets of its namespace, and the verdict rendered as "delete",
 * "delete+rv", "decrement" or "CODE reason: message [cause] (retry N)". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "eviction.h"
#include "fixture.h"
#include "xalloc.h"

struct tpdb {
	const char *name;
	int selector; /* 0 nil, 1 app=web, 2 empty, 3 app=other */
	int64_t gen, observed, allowed, desired, current;
	const char *policy;
	int disrupted; /* entries in disruptedPods */
};

struct tcase {
	const char *what;
	const char *phase;
	bool ready, deleting, dry_run;
	struct tpdb pdbs[2];
	const char *want;
};

static const struct tcase cases[] = {
    {"a Pending pod: no budget looked at, the rv precondition",
     "Pending",
     0,
     0,
     0,
     {{"web", 1, 1, 1, 0, 5, 5, NULL, 0}},
     "delete+rv"},
    {"a Succeeded pod",
     "Succeeded",
     0,
     0,
     0,
     {{"web", 1, 1, 1, 0, 5, 5, NULL, 0}},
     "delete"},
    {"a deleting pod",
     "Running",
     1,
     1,
     0,
     {{"web", 1, 1, 1, 0, 5, 5, NULL, 0}},
     "delete"},
    {"no budget", "Running", 1, 0, 0, {{0}}, "delete"},
    {"a nil and an empty selector match nothing",
     "Running",
     1,
     0,
     0,
     {{"a", 0, 1, 1, 0, 5, 5, NULL, 0}, {"b", 2, 1, 1, 0, 5, 5, NULL, 0}},
     "delete"},
    {"two budgets",
     "Running",
     1,
     0,
     0,
     {{"a", 1, 1, 1, 1, 5, 6, NULL, 0}, {"b", 1, 1, 1, 1, 5, 6, NULL, 0}},
     "500 : This pod has more than one PodDisruptionBudget, which the "
     "eviction subresource does not support."},
    {"one disruption allowed",
     "Running",
     1,
     0,
     0,
     {{"web", 1, 1, 1, 1, 5, 6, NULL, 0}},
     "decrement"},
    {"none allowed",
     "Running",
     1,
     0,
     0,
     {{"web", 1, 1, 1, 0, 5, 5, NULL, 0}},
     "429 TooManyRequests: Cannot evict pod as it would violate the pod's "
     "disruption budget. [The disruption budget web needs 5 healthy pods "
     "and has 5 currently] (retry 0)"},
    {"the controller has not seen the new generation",
     "Running",
     1,
     0,
     0,
     {{"web", 1, 2, 1, 3, 5, 8, NULL, 0}},
     "429 TooManyRequests: Cannot evict pod as it would violate the pod's "
     "disruption budget. [The disruption budget web is still being "
     "processed by the server.] (retry 10)"},
    {"a negative count",
     "Running",
     1,
     0,
     0,
     {{"web", 1, 1, 1, -1, 5, 5, NULL, 0}},
     "403 Forbidden: poddisruptionbudget.policy \"web\" is forbidden: pdb "
     "disruptions allowed is negative"},
    {"too many unconfirmed evictions",
     "Running",
     1,
     0,
     0,
     {{"web", 1, 1, 1, 3, 5, 8, NULL, 2001}},
     "403 Forbidden: poddisruptionbudget.policy \"web\" is forbidden: "
     "DisruptedPods map too big - too many evictions not confirmed by PDB "
     "controller"},
    {"an unready pod, AlwaysAllow",
     "Running",
     0,
     0,
     0,
     {{"web", 1, 1, 1, 0, 5, 4, "AlwaysAllow", 0}},
     "delete+rv"},
    {"an unready pod while the budget is met",
     "Running",
     0,
     0,
     0,
     {{"web", 1, 1, 1, 0, 5, 5, "IfHealthyBudget", 0}},
     "delete+rv"},
    {"an unready pod while the budget is not met",
     "Running",
     0,
     0,
     0,
     {{"web", 1, 1, 1, 0, 5, 4, NULL, 0}},
     "429 TooManyRequests: Cannot evict pod as it would violate the pod's "
     "disruption budget. [The disruption budget web needs 5 healthy pods "
     "and has 4 currently] (retry 0)"},
    {"an unready pod, desired 0: the budget decides",
     "Running",
     0,
     0,
     0,
     {{"web", 1, 1, 1, 1, 0, 0, NULL, 0}},
     "decrement"},
};

static struct pod_disruption_budget *
budget(const struct tpdb *t)
{
	struct pod_disruption_budget *b = xcalloc(1, sizeof(*b));
	int i;

	b->metadata.name = xstrdup(t->name);
	b->metadata.namespace = xstrdup("default");
	b->metadata.generation = t->gen;
	if (t->selector) {
		b->spec.selector = xcalloc(1, sizeof(*b->spec.selector));
		if (t->selector != 2)
			strmap_set(&b->spec.selector->match_labels, "app",
				   t->selector == 1 ? "web" : "other");
	}
	if (t->policy)
		b->spec.unhealthy_pod_eviction_policy = xstrdup(t->policy);
	b->status.observed_generation = t->observed;
	b->status.disruptions_allowed = t->allowed;
	b->status.desired_healthy = t->desired;
	b->status.current_healthy = t->current;
	for (i = 0; i < t->disrupted; i++) {
		char n[32];

		snprintf(n, sizeof(n), "old-%d", i);
		strmap_set(&b->status.disrupted_pods, n,
			   "2026-01-01T00:00:00Z");
	}
	return b;
}

static void
render(const struct eviction_out *o, char *buf, size_t len)
{
	if (o->verdict == EVICT_DELETE)
		snprintf(buf, len, o->precondition ? "delete+rv" : "delete");
	else if (o->verdict == EVICT_DECREMENT)
		snprintf(buf, len, "decrement");
	else if (o->cause)
		snprintf(buf, len, "%d %s: %s [%s] (retry %d)", o->code,
			 o->reason, o->message, o->cause, o->retry_after);
	else
		snprintf(buf, len, "%d %s: %s", o->code, o->reason, o->message);
}

static void
run(const struct tcase *c, struct eviction_out *out,
    struct pod_disruption_budget **b, size_t *nb, struct pod *p)
{
	struct eviction_in in = {
	    .pod = p, .pdbs = b, .dry_run = c->dry_run, .now = T0 + 1234};
	size_t i;

	memset(p, 0, sizeof(*p));
	p->metadata.name = xstrdup("web-1");
	p->metadata.namespace = xstrdup("default");
	strmap_set(&p->metadata.labels, "app", "web");
	p->status.phase = xstrdup(c->phase);
	if (c->ready)
		condition_append(
		    &p->status.conditions,
		    &(struct condition){.type = "Ready", .status = "True"});
	if (c->deleting)
		p->metadata.deletion_timestamp = T0;
	for (i = 0, *nb = 0; i < 2 && c->pdbs[i].name; i++)
		b[(*nb)++] = budget(&c->pdbs[i]);
	in.npdbs = *nb;
	eviction_decide(&in, out);
}

static void
test_cases(void **state)
{
	size_t i, j, nb;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pod_disruption_budget *b[2];
		struct eviction_out out;
		struct pod p;
		char got[600];

		run(&cases[i], &out, b, &nb, &p);
		render(&out, got, sizeof(got));
		if (strcmp(got, cases[i].want))
			fail_msg("%s:\n got: %s\nwant: %s", cases[i].what, got,
				 cases[i].want);
		eviction_release(&out);
		pod_release(&p);
		for (j = 0; j < nb; j++) {
			pdb_release(b[j]);
			free(b[j]);
		}
	}
}

/* The decrement: one fewer, the condition flips at 0, the pod recorded
 * at the second (metav1.Time); a dry run answers the same and writes
 * nothing. */
static void
test_decrement(void **state)
{
	static const struct tcase c = {
	    "", "Running", 1, 0, 0, {{"web", 1, 1, 1, 1, 5, 6, NULL, 0}}, ""};
	struct tcase dry = c;
	struct pod_disruption_budget *b[2];
	struct eviction_out out;
	struct pod p;
	const struct condition *cond;
	size_t nb;

	(void)state;
	run(&c, &out, b, &nb, &p);
	assert_int_equal(out.verdict, EVICT_DECREMENT);
	assert_true(out.status_write);
	assert_ptr_equal(out.pdb, b[0]);
	assert_int_equal(out.status.disruptions_allowed, 0);
	assert_string_equal(strmap_get(&out.status.disrupted_pods, "web-1"),
			    "2026-01-01T00:00:01Z");
	cond = condition_get(&out.status.conditions, "DisruptionAllowed");
	assert_string_equal(cond->status, "False");
	assert_string_equal(cond->reason, "InsufficientPods");
	assert_int_equal(cond->observed_generation, 1);
	eviction_release(&out);
	pod_release(&p);
	pdb_release(b[0]);
	free(b[0]);

	dry.dry_run = true;
	run(&dry, &out, b, &nb, &p);
	assert_int_equal(out.verdict, EVICT_DECREMENT);
	assert_false(out.status_write);
	assert_null(strmap_get(&out.status.disrupted_pods, "web-1"));
	eviction_release(&out);
	pod_release(&p);
	pdb_release(b[0]);
	free(b[0]);
}

static void
test_mark_pod(void **state)
{
	struct pod p = {0};
	const struct condition *c;

	(void)state;
	eviction_mark_pod(&p, T0);
	eviction_mark_pod(&p, T0 + 5000); /* again: the time stays */
	assert_int_equal(p.status.conditions.n, 1);
	c = &p.status.conditions.v[0];
	assert_string_equal(c->type, "DisruptionTarget");
	assert_string_equal(c->status, "True");
	assert_string_equal(c->reason, "EvictionByEvictionAPI");
	assert_string_equal(c->message, "Eviction API: evicting");
	assert_int_equal(c->last_transition_time, T0);
	pod_release(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_decrement),
	    cmocka_unit_test(test_mark_pod),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
