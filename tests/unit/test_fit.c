/* test_fit.c - NodeResourcesFit: a pod's request (sum of its containers),
 * which pods count against a node, the fit's arithmetic as a table, and
 * sched_pick with the nodes' use: the choice and kube-scheduler's
 * "0/N nodes are available: ... Insufficient cpu." message. */
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fit.h"
#include "fixture.h"
#include "placement.h"
#include "xalloc.h"

#define GI (1024LL * 1024 * 1024)
#define MI (1024LL * 1024)

static struct container *
add_container(struct pod_spec *s, const char *cpu, const char *mem)
{
	struct container *c =
	    anylist_push((struct anylist *)&s->containers, sizeof(*c));

	c->name = xstrdup("c");
	c->image = xstrdup("img");
	if (cpu)
		strmap_set(&c->resources.requests, "cpu", cpu);
	if (mem)
		strmap_set(&c->resources.requests, "memory", mem);
	return c;
}

static struct node *
mknode(const char *name, const char *cpu, const char *mem, const char *pods)
{
	struct node *n = xcalloc(1, sizeof(*n));
	struct condition c = {.type = "Ready", .status = "True"};

	n->metadata.name = xstrdup(name);
	condition_append(&n->status.conditions, &c);
	if (cpu)
		strmap_set(&n->status.allocatable, "cpu", cpu);
	if (mem)
		strmap_set(&n->status.allocatable, "memory", mem);
	if (pods)
		strmap_set(&n->status.allocatable, "pods", pods);
	return n;
}

static void
free_node(struct node *n)
{
	schema_release(&schema_node, n);
	free(n);
}

static void
test_pod_request(void **state)
{
	struct pod p = {0};
	struct res_amount r;
	struct container *c;

	(void)state;
	fit_pod_request(&p.spec, &r); /* no containers: a pod slot only */
	assert_int_equal(r.milli_cpu, 0);
	assert_int_equal(r.memory, 0);
	assert_int_equal(r.pods, 1);
	add_container(&p.spec, "250m", "64Mi");
	add_container(&p.spec, "1", NULL);
	c = add_container(&p.spec, NULL, "1G");
	/* limits are not requests: the fit never reads them */
	strmap_set(&c->resources.limits, "cpu", "8");
	fit_pod_request(&p.spec, &r);
	assert_int_equal(r.milli_cpu, 1250);
	assert_int_equal(r.memory, 64 * MI + 1000000000LL);
	assert_int_equal(r.pods, 1);
	schema_release(&schema_pod, &p);
}

static void
test_pod_counts(void **state)
{
	static const struct {
		const char *node, *phase;
		bool deleting, want;
	} cases[] = {
	    {NULL, NULL, false, false},       /* pending */
	    {"", "Pending", false, false},    /* pending */
	    {"n", NULL, false, true},         /* bound */
	    {"n", "Running", false, true},    /* running */
	    {"n", "Running", true, true},     /* being deleted: counts */
	    {"n", "Succeeded", false, false}, /* terminal */
	    {"n", "Failed", false, false},    /* terminal */
	    {"n", "Unknown", false, true},    /* not terminal */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pod p = {0};

		p.spec.node_name = (char *)cases[i].node;
		p.status.phase = (char *)cases[i].phase;
		p.metadata.deletion_timestamp =
		    cases[i].deleting ? 1767225600 : 0;
		if (fit_pod_counts(&p) != cases[i].want)
			fail_msg("case %zu", i);
	}
}

static void
test_fit_table(void **state)
{
	/* allocatable {cpu: 2, memory: 1Gi, pods: 3} in every case */
	static const struct res_amount alloc = {2000, GI, 3};
	static const struct {
		struct res_amount req, used;
		unsigned want;
	} cases[] = {
	    /* the worked example: 2 x 1 cpu bound, a third asks 1 cpu */
	    {{1000, 0, 1}, {2000, 0, 2}, FIT_CPU},
	    /* one of them gone: 1000m left, exactly enough */
	    {{1000, 0, 1}, {1000, 0, 1}, 0},
	    {{1001, 0, 1}, {1000, 0, 1}, FIT_CPU},
	    {{0, 512 * MI, 1}, {0, 512 * MI, 1}, 0},
	    {{0, 512 * MI + 1, 1}, {0, 512 * MI, 1}, FIT_MEMORY},
	    {{3000, 2 * GI, 1}, {0, 0, 0}, FIT_CPU | FIT_MEMORY},
	    /* the pod count: the fourth pod of three */
	    {{0, 0, 1}, {0, 0, 3}, FIT_PODS},
	    {{100, 0, 1}, {2000, GI, 3}, FIT_CPU | FIT_PODS},
	    /* a pod that requests nothing fits an overcommitted node */
	    {{0, 0, 1}, {5000, 4 * GI, 1}, 0},
	    /* used over allocatable (allocatable shrank): nothing more */
	    {{1, 0, 1}, {5000, 0, 1}, FIT_CPU},
	    {{INT64_MAX, 0, 1}, {INT64_MAX, 0, 0}, FIT_CPU}, /* no wrap */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned got = fit_check(&cases[i].req, &cases[i].used, &alloc);

		if (got != cases[i].want)
			fail_msg("case %zu: %u, want %u", i, got,
				 cases[i].want);
	}
}

static void
test_node_allocatable(void **state)
{
	struct node *n = mknode("a", "1500m", "2Gi", "110");
	struct node *bare = mknode("b", NULL, NULL, NULL);
	struct res_amount a;

	(void)state;
	fit_node_allocatable(n, &a);
	assert_int_equal(a.milli_cpu, 1500);
	assert_int_equal(a.memory, 2 * GI);
	assert_int_equal(a.pods, 110);
	/* absent: 0, so a pod (needing one slot) fits nowhere */
	fit_node_allocatable(bare, &a);
	assert_int_equal(a.milli_cpu + a.memory + a.pods, 0);
	free_node(n);
	free_node(bare);
}

/* sched_pick with the nodes' use: a full node is skipped, and the
 * message counts every reason of every node. */
static void
test_pick_with_use(void **state)
{
	struct node *n[3] = {mknode("a", "2", "1Gi", "110"),
			     mknode("b", "4", "1Gi", "110"),
			     mknode("c", "2", "256Mi", "2")};
	struct res_amount used[3] = {{2000, 0, 2}, {1000, 0, 1}, {0, 0, 2}};
	int64_t on[3] = {2, 1, 2};
	struct sched_in in = {.nodes = (const struct node *const *)n,
			      .nnodes = 3,
			      .pods_on = on,
			      .used = used};
	struct strbuf why = STRBUF_INIT;
	const struct node *r;
	struct pod p = {0};

	(void)state;
	add_container(&p.spec, "1", "512Mi");
	in.pod = &p;
	/* a: no cpu left; c: too many pods and too little memory; b fits */
	r = sched_pick(&in, &why);
	assert_non_null(r);
	assert_string_equal(r->metadata.name, "b");
	assert_int_equal(why.len, 0);
	/* b fills up: 4000m requested of 4 */
	used[1].milli_cpu = 4000;
	assert_null(sched_pick(&in, &why));
	assert_string_equal(why.buf,
			    "0/3 nodes are available: 2 Insufficient cpu, 1 "
			    "Insufficient memory, 1 Too many pods.");
	/* without the use, resources are not looked at: the spread picks b */
	in.used = NULL;
	r = sched_pick(&in, NULL);
	assert_non_null(r);
	assert_string_equal(r->metadata.name, "b");
	strbuf_release(&why);
	schema_release(&schema_pod, &p);
	free_node(n[0]);
	free_node(n[1]);
	free_node(n[2]);
}

/* The e2e's situation in one node: allocatable cpu 2, pods requesting 1
 * cpu each: the third does not fit, with kube-scheduler's message. */
static void
test_third_pod_pending(void **state)
{
	struct node *n = mknode("host", "2", "1Gi", "110");
	struct res_amount used = {0};
	struct sched_in in = {.nodes = (const struct node *const *)&n,
			      .nnodes = 1,
			      .used = &used};
	struct strbuf why = STRBUF_INIT;
	struct pod p = {0};
	struct res_amount req;
	int i;

	(void)state;
	add_container(&p.spec, "1", NULL);
	in.pod = &p;
	fit_pod_request(&p.spec, &req);
	for (i = 0; i < 2; i++) {
		assert_ptr_equal(sched_pick(&in, &why), n);
		fit_add(&used, &req, 1);
	}
	assert_null(sched_pick(&in, &why));
	assert_string_equal(why.buf,
			    "0/1 nodes are available: 1 Insufficient cpu.");
	fit_add(&used, &req, -1); /* one goes away */
	assert_ptr_equal(sched_pick(&in, NULL), n);
	strbuf_release(&why);
	schema_release(&schema_pod, &p);
	free_node(n);
}

static void
add_port(struct container *c, int64_t host, const char *proto, const char *ip)
{
	struct container_port *p =
	    anylist_push((struct anylist *)&c->ports, sizeof(*p));

	p->container_port = 8080;
	p->host_port = host;
	p->protocol = proto ? xstrdup(proto) : NULL;
	p->host_ip = ip ? xstrdup(ip) : NULL;
}

/* NodePorts: the declared host ports with their defaults, and the
 * conflict rule of HostPortInfo.CheckConflict as a table. */
static void
test_host_ports_and_conflicts(void **state)
{
	static const struct {
		const char *name;
		struct host_port want, used;
		bool conflict;
	} cases[] = {
	    {"same port, both everywhere",
	     {8000, "TCP", "0.0.0.0"},
	     {8000, "TCP", "0.0.0.0"},
	     true},
	    {"everywhere against one address",
	     {8000, "TCP", "0.0.0.0"},
	     {8000, "TCP", "127.0.0.1"},
	     true},
	    {"one address against everywhere",
	     {8000, "TCP", "127.0.0.1"},
	     {8000, "TCP", "0.0.0.0"},
	     true},
	    {"same address",
	     {8000, "TCP", "127.0.0.1"},
	     {8000, "TCP", "127.0.0.1"},
	     true},
	    {"other addresses",
	     {8000, "TCP", "127.0.0.1"},
	     {8000, "TCP", "127.0.0.2"},
	     false},
	    {"other protocol",
	     {8000, "UDP", "0.0.0.0"},
	     {8000, "TCP", "0.0.0.0"},
	     false},
	    {"other port",
	     {8001, "TCP", "0.0.0.0"},
	     {8000, "TCP", "0.0.0.0"},
	     false},
	};
	struct pod p = {0};
	struct container *c;
	struct host_port *hp;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (fit_ports_conflict(&cases[i].want, 1, &cases[i].used, 1) !=
		    cases[i].conflict)
			fail_msg("case %s", cases[i].name);
	}
	assert_false(fit_ports_conflict(NULL, 0, &cases[0].used, 1));
	c = add_container(&p.spec, NULL, NULL);
	add_port(c, 0, NULL, NULL); /* no hostPort: not a host port */
	assert_int_equal(fit_pod_host_ports(&p.spec, &hp), 0);
	assert_null(hp);
	add_port(c, 8000, NULL, NULL);
	add_port(c, 53, "UDP", "127.0.0.1");
	assert_int_equal(fit_pod_host_ports(&p.spec, &hp), 2);
	assert_int_equal(hp[0].port, 8000);
	assert_string_equal(hp[0].protocol, "TCP");
	assert_string_equal(hp[0].ip, "0.0.0.0");
	assert_int_equal(hp[1].port, 53);
	assert_string_equal(hp[1].protocol, "UDP");
	assert_string_equal(hp[1].ip, "127.0.0.1");
	free(hp);
	schema_release(&schema_pod, &p);
}

/* Two pods declaring hostPort 8000 and one node: the second stays
 * Pending with kube-scheduler's NodePorts message; on a second node it
 * fits there; a pod without host ports is not filtered. */
static void
test_node_ports_filter(void **state)
{
	struct pod p = {0}, plain = {0};
	struct node *a = mknode("a", NULL, NULL, "110");
	struct node *b = mknode("b", NULL, NULL, "110");
	const struct node *one[] = {a}, *two[] = {a, b};
	struct host_port held = {8000, "TCP", "0.0.0.0"};
	struct host_port_set on_a[] = {{&held, 1}, {NULL, 0}};
	struct strbuf why = STRBUF_INIT;
	struct sched_in in = {
	    .pod = &p, .nodes = one, .nnodes = 1, .ports = on_a};

	(void)state;
	add_port(add_container(&p.spec, NULL, NULL), 8000, NULL, NULL);
	add_container(&plain.spec, NULL, NULL);
	assert_null(sched_pick(&in, &why));
	assert_string_equal(why.buf,
			    "0/1 nodes are available: 1 node(s) didn't have "
			    "free ports for the requested pod ports.");
	in.nodes = two;
	in.nnodes = 2;
	assert_ptr_equal(sched_pick(&in, NULL), b);
	in.pod = &plain; /* no host port: a (the smaller name) fits */
	assert_ptr_equal(sched_pick(&in, NULL), a);
	in.pod = &p;
	in.ports = NULL; /* ports not looked at */
	assert_ptr_equal(sched_pick(&in, NULL), a);
	strbuf_release(&why);
	schema_release(&schema_pod, &p);
	schema_release(&schema_pod, &plain);
	free_node(a);
	free_node(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pod_request),
	    cmocka_unit_test(test_pod_counts),
	    cmocka_unit_test(test_fit_table),
	    cmocka_unit_test(test_node_allocatable),
	    cmocka_unit_test(test_pick_with_use),
	    cmocka_unit_test(test_third_pod_pending),
	    cmocka_unit_test(test_host_ports_and_conflicts),
	    cmocka_unit_test(test_node_ports_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
