/* test_sched.c - node filters and scores: readiness, unschedulable,
 * nodeSelector, required and preferred node affinity, NoSchedule/
 * PreferNoSchedule taints and tolerations, the owner spread, the
 * least-allocated score and kube-scheduler's "0/N nodes are available"
 * reason. */
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

/* The pod's required node affinity, created on first use. */
static struct node_selector *
required(struct pod *p)
{
	if (p->spec.affinity == NULL)
		p->spec.affinity = xcalloc(1, sizeof(*p->spec.affinity));
	if (p->spec.affinity->node_affinity == NULL)
		p->spec.affinity->node_affinity =
		    xcalloc(1, sizeof(*p->spec.affinity->node_affinity));
	if (p->spec.affinity->node_affinity->required == NULL)
		p->spec.affinity->node_affinity->required = xcalloc(
		    1, sizeof(*p->spec.affinity->node_affinity->required));
	return p->spec.affinity->node_affinity->required;
}

/* Adds a requirement "key op values" (values separated by commas; NULL:
 * none) to a term's matchExpressions, or its matchFields if field. */
static void
add_req(struct node_selector_term *t, bool field, const char *key,
	const char *op, const char *values)
{
	struct node_selector_req_list *l =
	    field ? &t->match_fields : &t->match_expressions;
	struct node_selector_req *r =
	    anylist_push((struct anylist *)l, sizeof(*r));
	char *v, *save = NULL, *tok;

	r->key = xstrdup(key);
	r->operator= xstrdup(op);
	if (values == NULL)
		return;
	v = xstrdup(values);
	for (tok = strtok_r(v, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		strlist_push(&r->values, tok);
	free(v);
}

/* A new term of the required node affinity. */
static struct node_selector_term *
new_term(struct pod *p)
{
	struct node_selector *ns = required(p);

	return anylist_push((struct anylist *)&ns->node_selector_terms,
			    sizeof(struct node_selector_term));
}

/* One requirement against a node named n1 labelled zone=z1, gen=3
 * (labels.Requirement.Matches; matchFields on metadata.name). */
static void
test_node_selector_requirements(void **state)
{
	static const struct {
		bool field;
		const char *key, *op, *values;
		bool want;
	} cases[] = {
	    {false, "zone", "In", "z1,z2", true},
	    {false, "zone", "In", "z2", false},
	    {false, "rack", "In", "r1", false}, /* absent label */
	    {false, "zone", "NotIn", "z2", true},
	    {false, "zone", "NotIn", "z1,z2", false},
	    {false, "rack", "NotIn", "r1", true}, /* absent: not in */
	    {false, "zone", "Exists", NULL, true},
	    {false, "rack", "Exists", NULL, false},
	    {false, "rack", "DoesNotExist", NULL, true},
	    {false, "zone", "DoesNotExist", NULL, false},
	    {false, "gen", "Gt", "2", true},  /* 3 > 2 */
	    {false, "gen", "Gt", "3", false}, /* 3 > 3 no */
	    {false, "gen", "Lt", "4", true},
	    {false, "gen", "Lt", "-1", false},
	    {false, "gen", "Gt", "+2", true},   /* ParseInt takes a sign */
	    {false, "gen", "Gt", "two", false}, /* not an integer */
	    {false, "zone", "Gt", "2", false},  /* label not an integer */
	    {false, "rack", "Lt", "9", false},  /* absent */
	    {false, "gen", "Gt", "99999999999999999999", false}, /* range */
	    {false, "zone", "Foo", "z1", false}, /* unknown operator */
	    {true, "metadata.name", "In", "n1", true},
	    {true, "metadata.name", "In", "n2", false},
	    {true, "metadata.name", "NotIn", "n2", true},
	    {true, "metadata.name", "NotIn", "n1", false},
	    {true, "metadata.name", "Exists", NULL, false},
	    {true, "metadata.uid", "In", "n1", false}, /* only the name */
	};
	struct node *n = mknode("n1", true);
	size_t i;

	(void)state;
	strmap_set(&n->metadata.labels, "zone", "z1");
	strmap_set(&n->metadata.labels, "gen", "3");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pod p = {0};

		add_req(new_term(&p), cases[i].field, cases[i].key, cases[i].op,
			cases[i].values);
		if (node_affinity_matches(&p.spec, n) != cases[i].want)
			fail_msg("case %zu: %s %s %s", i, cases[i].key,
				 cases[i].op,
				 cases[i].values ? cases[i].values : "");
		schema_release(&schema_pod, &p);
	}
	free_node(n);
}

/* Terms are ORed, requirements within a term ANDed, an empty term
 * matches nothing, and nodeSelector must hold as well. Node n1 is
 * labelled zone=z1, disk=ssd. */
static void
test_node_selector_terms(void **state)
{
	static const struct {
		const char *name;
		/* up to two terms of up to two "key op values" each; NULL
		 * key ends a term, an empty term is {NULL} */
		struct {
			const char *key, *op, *values;
		} t[2][2];
		size_t nterms;
		const char *selector; /* nodeSelector disk=<value>, or NULL */
		bool want;
	} cases[] = {
	    {"one term, both hold",
	     {{{"zone", "In", "z1"}, {"disk", "Exists", NULL}}},
	     1,
	     NULL,
	     true},
	    {"one term, one fails (AND)",
	     {{{"zone", "In", "z1"}, {"disk", "In", "hdd"}}},
	     1,
	     NULL,
	     false},
	    {"second term holds (OR)",
	     {{{"zone", "In", "z9"}}, {{"disk", "In", "ssd"}}},
	     2,
	     NULL,
	     true},
	    {"no term holds",
	     {{{"zone", "In", "z9"}}, {{"disk", "In", "hdd"}}},
	     2,
	     NULL,
	     false},
	    {"an empty term matches nothing", {{{NULL}}}, 1, NULL, false},
	    {"empty term, then one that holds",
	     {{{NULL}}, {{"zone", "Exists", NULL}}},
	     2,
	     NULL,
	     true},
	    {"affinity holds, nodeSelector does not",
	     {{{"zone", "In", "z1"}}},
	     1,
	     "hdd",
	     false},
	    {"both hold", {{{"zone", "In", "z1"}}}, 1, "ssd", true},
	    {"no affinity, nodeSelector holds", {{{NULL}}}, 0, "ssd", true},
	};
	struct node *n = mknode("n1", true);
	size_t i, j, k;

	(void)state;
	strmap_set(&n->metadata.labels, "zone", "z1");
	strmap_set(&n->metadata.labels, "disk", "ssd");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pod p = {0};

		for (j = 0; j < cases[i].nterms; j++) {
			struct node_selector_term *t = new_term(&p);

			for (k = 0; k < 2 && cases[i].t[j][k].key; k++)
				add_req(t, false, cases[i].t[j][k].key,
					cases[i].t[j][k].op,
					cases[i].t[j][k].values);
		}
		if (cases[i].selector)
			strmap_set(&p.spec.node_selector, "disk",
				   cases[i].selector);
		if (node_affinity_matches(&p.spec, n) != cases[i].want)
			fail_msg("case %zu: %s", i, cases[i].name);
		schema_release(&schema_pod, &p);
	}
	free_node(n);
}

/* Required node affinity filters with nodeSelector's reason: a pod
 * requiring zone In [z1, z2] on three nodes in z3 stays Pending with
 * kube-scheduler's message; a node labelled z2 takes it. */
static void
test_required_affinity_reason(void **state)
{
	struct node *n[4] = {mknode("a", true), mknode("b", true),
			     mknode("c", true), mknode("d", true)};
	struct pod p = {0};
	struct strbuf why = STRBUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++)
		strmap_set(&n[i]->metadata.labels, "zone", "z3");
	add_req(new_term(&p), false, "zone", "In", "z1,z2");
	assert_null(pick(&p, n, 3, NULL, 0, &why));
	assert_string_equal(why.buf,
			    "0/3 nodes are available: 3 node(s) didn't match "
			    "Pod's node affinity/selector.");
	/* a node failing nodeSelector counts under the same reason, once */
	strmap_set(&p.spec.node_selector, "disk", "ssd");
	strbuf_reset(&why);
	assert_null(pick(&p, n, 3, NULL, 0, &why));
	assert_string_equal(why.buf,
			    "0/3 nodes are available: 3 node(s) didn't match "
			    "Pod's node affinity/selector.");
	strmap_set(&n[3]->metadata.labels, "zone", "z2");
	strmap_set(&n[3]->metadata.labels, "disk", "ssd");
	assert_string_equal(pick(&p, n, 4, NULL, 0, NULL), "d");
	strbuf_release(&why);
	schema_release(&schema_pod, &p);
	for (i = 0; i < 4; i++)
		free_node(n[i]);
}

/* Preferred terms: the sum of the matching weights, compared after the
 * PreferNoSchedule taints and before the spread. Weights 80 for
 * disk=ssd and 20 for zone=z1; a (disk=ssd, 5 pods) scores 80, b
 * (zone=z1, no pods) 20, c (both, 9 pods) 100: c wins although it has
 * the most pods; with a PreferNoSchedule taint on c, a wins. */
static void
test_preferred_affinity_score(void **state)
{
	struct node *n[3] = {mknode("a", true), mknode("b", true),
			     mknode("c", true)};
	struct pod p = {0};
	struct pod *bound[14];
	struct preferred_scheduling_term *t;
	struct node_affinity *na;
	size_t i;

	(void)state;
	strmap_set(&n[0]->metadata.labels, "disk", "ssd");
	strmap_set(&n[1]->metadata.labels, "zone", "z1");
	strmap_set(&n[2]->metadata.labels, "disk", "ssd");
	strmap_set(&n[2]->metadata.labels, "zone", "z1");
	p.spec.affinity = xcalloc(1, sizeof(*p.spec.affinity));
	na = p.spec.affinity->node_affinity = xcalloc(1, sizeof(*na));
	t = anylist_push((struct anylist *)&na->preferred, sizeof(*t));
	t->weight = 80;
	add_req(&t->preference, false, "disk", "In", "ssd");
	t = anylist_push((struct anylist *)&na->preferred, sizeof(*t));
	t->weight = 20;
	add_req(&t->preference, false, "zone", "In", "z1");
	assert_int_equal(node_affinity_preferred(&p.spec, n[0]), 80);
	assert_int_equal(node_affinity_preferred(&p.spec, n[1]), 20);
	assert_int_equal(node_affinity_preferred(&p.spec, n[2]), 100);
	for (i = 0; i < 14; i++) {
		bound[i] = xcalloc(1, sizeof(**bound));
		bound[i]->spec.node_name = xstrdup(i < 5 ? "a" : "c");
	}
	assert_string_equal(pick(&p, n, 3, bound, 14, NULL), "c");
	taint(n[2], "old", "", "PreferNoSchedule");
	assert_string_equal(pick(&p, n, 3, bound, 14, NULL), "a");
	for (i = 0; i < 14; i++) {
		schema_release(&schema_pod, bound[i]);
		free(bound[i]);
	}
	schema_release(&schema_pod, &p);
	for (i = 0; i < 3; i++)
		free_node(n[i]);
}

/* The owner spread, placement.c's worked example: 6 pods of one
 * ReplicaSet on a, b, c already holding 3, 0 and 1 pods of other owners
 * land 2/2/2, in the order b c a b c a. A pod without an owner
 * (owner_on NULL) is spread by all pods: it goes to b (2 pods, before c
 * on the name). */
static void
test_owner_spread(void **state)
{
	struct node *n[3] = {mknode("a", true), mknode("b", true),
			     mknode("c", true)};
	int64_t on[3] = {3, 0, 1}, owner[3] = {0, 0, 0};
	struct sched_in in = {.nodes = (const struct node *const *)n,
			      .nnodes = 3,
			      .pods_on = on,
			      .owner_on = owner};
	static const char want[] = "bcabca";
	struct pod p = {0};
	const struct node *r;
	size_t i, k;

	(void)state;
	in.pod = &p;
	for (k = 0; k < 6; k++) {
		r = sched_pick(&in, NULL);
		assert_non_null(r);
		if (r->metadata.name[0] != want[k])
			fail_msg("pick %zu: %s, want %c", k + 1,
				 r->metadata.name, want[k]);
		for (i = 0; i < 3; i++)
			if (n[i] == r) {
				on[i]++;
				owner[i]++;
			}
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(owner[i], 2);
	/* 5/2/3 now: without an owner, the fewest pods at all */
	in.owner_on = NULL;
	r = sched_pick(&in, NULL);
	assert_string_equal(r->metadata.name, "b");
	for (i = 0; i < 3; i++)
		free_node(n[i]);
}

/* NodeResourcesLeastAllocated, integer as in kube-scheduler: per
 * resource (allocatable - requested) * 100 / allocatable, requested
 * counting the pod's own request, 0 when over or nothing allocatable;
 * the mean of cpu and memory. */
static void
test_least_allocated_score(void **state)
{
	static const struct {
		struct res_amount req, used, alloc;
		int64_t want;
	} cases[] = {
	    /* cpu (4000-2000)*100/4000 = 50, memory (1024-512)*100/1024 =
	     * 50: (50+50)/2 = 50 */
	    {{1000, 256 << 20, 1},
	     {1000, 256 << 20, 1},
	     {4000, 1 << 30, 110},
	     50},
	    /* empty node of the same size: (75+75)/2 = 75 */
	    {{1000, 256 << 20, 1}, {0, 0, 0}, {4000, 1 << 30, 110}, 75},
	    /* nothing requested, nothing used: (100+100)/2 = 100 */
	    {{0, 0, 1}, {0, 0, 0}, {2000, 1 << 30, 110}, 100},
	    /* no memory allocatable: the memory half is 0 */
	    {{500, 0, 1}, {0, 0, 0}, {2000, 0, 110}, 37}, /* (75+0)/2 */
	    /* cpu over: 0 for cpu; memory (100-10)*100/100 = 90; 45 */
	    {{3000, 10, 1}, {0, 0, 0}, {2000, 100, 110}, 45},
	    /* integer division: cpu (3000-1000)*100/3000 = 66 */
	    {{1000, 0, 1}, {0, 0, 0}, {3000, 0, 110}, 33},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t got = least_allocated_score(
		    &cases[i].req, &cases[i].used, &cases[i].alloc);

		if (got != cases[i].want)
			fail_msg("case %zu: %lld, want %lld", i, (long long)got,
				 (long long)cases[i].want);
	}
}

/* A tie on the owner's pods goes to the least allocated node, then to
 * the fewest pods. a and b have 4 cpu and 1Gi each and one pod of the
 * owner; a has 3 pods requesting 1 cpu in all, b 1 pod requesting 3 cpu.
 * For a pod requesting 500m: a scores ((4000-1500)*100/4000 +
 * 100)/2 = (62+100)/2 = 81, b ((4000-3500)*100/4000 + 100)/2 =
 * (12+100)/2 = 56: a, despite its 3 pods. With nothing requested
 * anywhere both score 100, and b's single pod wins. */
static void
test_spread_ties_by_least_allocated(void **state)
{
	struct node *n[2] = {mknode("a", true), mknode("b", true)};
	int64_t on[2] = {3, 1}, owner[2] = {1, 1};
	struct res_amount used[2] = {{1000, 0, 3}, {3000, 0, 1}};
	struct sched_in in = {.nodes = (const struct node *const *)n,
			      .nnodes = 2,
			      .pods_on = on,
			      .owner_on = owner,
			      .used = used};
	struct pod p = {0};
	struct container *c;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		strmap_set(&n[i]->status.allocatable, "cpu", "4");
		strmap_set(&n[i]->status.allocatable, "memory", "1Gi");
		strmap_set(&n[i]->status.allocatable, "pods", "110");
	}
	c = anylist_push((struct anylist *)&p.spec.containers, sizeof(*c));
	c->name = xstrdup("app");
	strmap_set(&c->resources.requests, "cpu", "500m");
	in.pod = &p;
	assert_string_equal(sched_pick(&in, NULL)->metadata.name, "a");
	/* the owner's count comes first: one more of its pods on a */
	owner[0] = 2;
	assert_string_equal(sched_pick(&in, NULL)->metadata.name, "b");
	/* nothing requested: equal scores, fewest pods */
	owner[0] = 1;
	used[0].milli_cpu = used[1].milli_cpu = 0;
	strmap_release(&c->resources.requests);
	assert_string_equal(sched_pick(&in, NULL)->metadata.name, "b");
	schema_release(&schema_pod, &p);
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
	    cmocka_unit_test(test_node_selector_requirements),
	    cmocka_unit_test(test_node_selector_terms),
	    cmocka_unit_test(test_required_affinity_reason),
	    cmocka_unit_test(test_preferred_affinity_score),
	    cmocka_unit_test(test_owner_spread),
	    cmocka_unit_test(test_least_allocated_score),
	    cmocka_unit_test(test_spread_ties_by_least_allocated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
