/* test_sched.c - node filters and scores: readiness, unschedulable,
 * nodeSelector, NoSchedule/PreferNoSchedule taints and tolerations, the
 * spread score and kube-scheduler's "0/N nodes are available" reason. */
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"
#include "placement.h"
#include "xalloc.h"

static struct node *
mknode(const char *name, bool ready)
{
	struct node *n = xcalloc(1, sizeof(*n));
	struct condition c = {.type = "Ready",
			      .status = ready ? "True" : "False"};

	n->metadata.name = xstrdup(name);
	condition_append(&n->status.conditions, &c);
	return n;
}

static void
taint(struct node *n, const char *key, const char *value, const char *effect)
{
	struct taint *t =
	    anylist_push((struct anylist *)&n->spec.taints, sizeof(*t));

	t->key = xstrdup(key);
	t->value = xstrdup(value);
	t->effect = xstrdup(effect);
}

static void
tolerate(struct pod *p, const char *key, const char *op, const char *value,
	 const char *effect)
{
	struct toleration *t =
	    anylist_push((struct anylist *)&p->spec.tolerations, sizeof(*t));

	t->key = xstrdup(key);
	t->operator= xstrdup(op);
	t->value = xstrdup(value);
	t->effect = xstrdup(effect);
}

static void
free_node(struct node *n)
{
	schema_release(&schema_node, n);
	free(n);
}

static const char *
pick(struct pod *p, struct node **nodes, size_t n, struct pod **bound,
     size_t nb, struct strbuf *why)
{
	int64_t on[8] = {0};
	struct sched_in in = {.pod = p,
			      .nodes = (const struct node *const *)nodes,
			      .nnodes = n,
			      .pods_on = on};
	const struct node *r;
	size_t i, j;

	for (i = 0; i < n && i < 8; i++)
		for (j = 0; j < nb; j++)
			if (!strcmp(bound[j]->spec.node_name,
				    nodes[i]->metadata.name))
				on[i]++;
	r = sched_pick(&in, why);
	return r ? r->metadata.name : NULL;
}

static void
test_filters_and_reason(void **state)
{
	struct node *n[4] = {mknode("a", false), mknode("b", true),
			     mknode("c", true), mknode("d", true)};
	struct pod p = {0};
	struct strbuf why = STRBUF_INIT;

	(void)state;
	n[1]->spec.unschedulable = true;
	strmap_set(&n[2]->metadata.labels, "disk", "hdd");
	taint(n[3], "dedicated", "gpu", "NoSchedule");
	strmap_set(&n[3]->metadata.labels, "disk", "ssd");
	strmap_set(&p.spec.node_selector, "disk", "ssd");
	assert_null(pick(&p, n, 4, NULL, 0, &why));
	assert_string_equal(why.buf,
			    "0/4 nodes are available: 1 node(s) were not "
			    "ready, 1 node(s) were unschedulable, 1 node(s) "
			    "didn't match Pod's node affinity/selector, 1 "
			    "node(s) had untolerated taint {dedicated: gpu}.");
	strbuf_reset(&why);
	/* tolerating the taint makes d schedulable */
	tolerate(&p, "dedicated", "Equal", "gpu", "NoSchedule");
	assert_string_equal(pick(&p, n, 4, NULL, 0, &why), "d");
	strmap_release(&p.spec.node_selector);
	strmap_set(&p.spec.node_selector, "disk", "hdd");
	assert_string_equal(pick(&p, n, 4, NULL, 0, &why), "c");
	strmap_release(&p.spec.node_selector);
	assert_string_equal(pick(&p, n, 4, NULL, 0, &why), "c"); /* name */
	/* tolerating unschedulable */
	tolerate(&p, "node.kubernetes.io/unschedulable", "Exists", NULL,
		 "NoSchedule");
	assert_string_equal(pick(&p, n, 4, NULL, 0, &why), "b");
	strbuf_release(&why);
	schema_release(&schema_pod, &p);
	for (size_t i = 0; i < 4; i++)
		free_node(n[i]);
}

static void
test_scores(void **state)
{
	struct node *n[2] = {mknode("a", true), mknode("b", true)};
	struct pod p = {0}, q = {0};
	struct pod *bound[1] = {&q};

	(void)state;
	/* PreferNoSchedule is avoided, not refused */
	taint(n[0], "old", "", "PreferNoSchedule");
	assert_string_equal(pick(&p, n, 2, NULL, 0, NULL), "b");
	free_node(n[0]);
	n[0] = mknode("a", true);
	/* spread: b already has a pod */
	q.spec.node_name = xstrdup("b");
	assert_string_equal(pick(&p, n, 2, bound, 1, NULL), "a");
	schema_release(&schema_pod, &q);
	free_node(n[0]);
	free_node(n[1]);
}

static void
test_toleration_matching(void **state)
{
	struct taint t = {.key = "k", .value = "v", .effect = "NoSchedule"};
	static const struct {
		const char *key, *op, *value, *effect;
		bool want;
	} cases[] = {
	    {"k", "Equal", "v", "NoSchedule", true},
	    {"k", "", "v", "", true},
	    {"k", "Equal", "w", "NoSchedule", false},
	    {"k", "Exists", NULL, NULL, true},
	    {NULL, "Exists", NULL, NULL, true}, /* tolerates everything */
	    {"k", "Exists", NULL, "NoExecute", false},
	    {"x", "Exists", NULL, NULL, false},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct toleration tol = {.key = (char *)cases[i].key,
					 .operator=(char *) cases[i].op,
					 .value = (char *)cases[i].value,
					 .effect = (char *)cases[i].effect};

		if (toleration_matches(&tol, &t) != cases[i].want)
			fail_msg("case %zu", i);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_filters_and_reason),
	    cmocka_unit_test(test_scores),
	    cmocka_unit_test(test_toleration_matching),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
