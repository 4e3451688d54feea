/* test_columns.c - the column registry (src/core/columns.h): every kind of
 * the kind registry has a table that starts with Name and whose rows are
 * well formed; the cells of each kind match what Kubernetes prints
 * (printers.go), case by case; HumanDuration's ages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "columns.h"
#include "fixture.h"
#include "xalloc.h"

/* The cells of o joined by '|', the wide ones too if wide. */
static char *
cells(const struct object *o, bool wide, dtime now)
{
	const struct column *c;
	struct strbuf sb = STRBUF_INIT;
	size_t n, i;

	c = columns_of(o->k->id, &n);
	for (i = 0; i < n; i++) {
		if (c[i].priority && !wide)
			continue;
		if (sb.len)
			strbuf_addch(&sb, '|');
		c[i].cell(o, now, &sb);
	}
	return strbuf_detach(&sb);
}

/* The upper-cased column names, as kubectl prints the header. */
static char *
header(enum kind_id id, bool wide)
{
	const struct column *c;
	struct strbuf sb = STRBUF_INIT;
	size_t n, i;
	char name[64];

	c = columns_of(id, &n);
	for (i = 0; i < n; i++) {
		if (c[i].priority && !wide)
			continue;
		columns_header(c[i].name, name, sizeof(name));
		strbuf_addf(&sb, "%s%s", sb.len ? "|" : "", name);
	}
	return strbuf_detach(&sb);
}

static void
test_every_kind_has_well_formed_columns(void **state)
{
	const struct kind_info *k;
	size_t nk, i, n, j, l;

	(void)state;
	k = kinds_all(&nk);
	for (i = 0; i < nk; i++) {
		const struct column *c = columns_of(k[i].id, &n);
		/* Kubernetes' Event table: Name last and wide, wide columns
		 * between the others (eventColumnDefinitions) */
		bool event = k[i].id == KIND_EVENT;

		assert_true(n >= 2);
		if (event) {
			assert_string_equal(c[n - 1].name, "Name");
			assert_string_equal(c[n - 1].format, "name");
		} else {
			assert_string_equal(c[0].name, "Name");
			assert_string_equal(c[0].format, "name");
		}
		for (j = 0; j < n; j++) {
			assert_non_null(c[j].cell);
			assert_non_null(c[j].description);
			assert_true(!strcmp(c[j].type, "string") ||
				    !strcmp(c[j].type, "integer") ||
				    !strcmp(c[j].type, "date"));
			assert_true(c[j].priority == 0 || c[j].priority == 1);
			/* the wide columns come after the others */
			if (j && c[j - 1].priority == 1 && !event)
				assert_int_equal(c[j].priority, 1);
			for (l = 0; l < j; l++)
				assert_string_not_equal(c[l].name, c[j].name);
		}
	}
}

static void
test_headers_are_kubernetes(void **state)
{
	static const struct {
		enum kind_id id;
		bool wide;
		const char *want;
	} cases[] = {
	    {KIND_DEPLOYMENT, false, "NAME|READY|UP-TO-DATE|AVAILABLE|AGE"},
	    {KIND_DEPLOYMENT, true,
	     "NAME|READY|UP-TO-DATE|AVAILABLE|AGE|CONTAINERS|IMAGES|SELECTOR"},
	    {KIND_REPLICASET, false, "NAME|DESIRED|CURRENT|READY|AGE"},
	    {KIND_POD, false, "NAME|READY|STATUS|RESTARTS|AGE"},
	    {KIND_POD, true,
	     "NAME|READY|STATUS|RESTARTS|AGE|IP|NODE|NOMINATED NODE|"
	     "READINESS GATES|PORTS"},
	    {KIND_NODE, false, "NAME|STATUS|ROLES|AGE|VERSION"},
	    {KIND_NODE, true,
	     "NAME|STATUS|ROLES|AGE|VERSION|INTERNAL-IP|EXTERNAL-IP|OS-IMAGE|"
	     "KERNEL-VERSION|CONTAINER-RUNTIME"},
	    {KIND_SERVICE, true,
	     "NAME|TYPE|CLUSTER-IP|EXTERNAL-IP|PORT(S)|AGE|SELECTOR"},
	    {KIND_ENDPOINTS, false, "NAME|ENDPOINTS|AGE"},
	    {KIND_ENDPOINT_SLICE, false,
	     "NAME|ADDRESSTYPE|PORTS|ENDPOINTS|AGE"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *h = header(cases[i].id, cases[i].wide);

		if (strcmp(h, cases[i].want))
			fail_msg("case %zu: %s, want %s", i, h, cases[i].want);
		free(h);
	}
}

static void
test_deployment_and_replicaset_cells(void **state)
{
	struct deployment *d = fx_deployment(3, "nginx:1", NULL, NULL);
	struct replicaset *rs = fx_rs(d, "web-abc", "nginx:1", 3, 2, 1, 0);
	struct object od = {kind_by_id(KIND_DEPLOYMENT), d};
	struct object ors = {kind_by_id(KIND_REPLICASET), rs};
	char *s;

	(void)state;
	d->metadata.creation_timestamp = T0;
	d->status.ready_replicas = 2;
	d->status.updated_replicas = 3;
	d->status.available_replicas = 1;
	s = cells(&od, true, T0 + 125 * 1000);
	assert_string_equal(s, "web|2/3|3|1|2m5s|web|nginx:1|app=web");
	free(s);
	rs->status.replicas = 3;
	rs->status.ready_replicas = 2;
	s = cells(&ors, false, T0 + 3600 * 1000);
	assert_string_equal(s, "web-abc|3|3|2|60m");
	free(s);
	fx_free_rs(rs);
	fx_free_deployment(d);
}

/* A pod with one container per status given: ready running, waiting
 * with a reason, or terminated with an exit code. */
static void
test_pod_cells(void **state)
{
	struct pod p = {0};
	struct object o = {kind_by_id(KIND_POD), &p};
	struct container *c;
	struct container_status *st;
	char *s;

	(void)state;
	p.metadata.name = xstrdup("web-1");
	p.metadata.creation_timestamp = T0;
	p.status.phase = xstrdup("Running");
	c = anylist_push((struct anylist *)&p.spec.containers, sizeof(*c));
	c->name = xstrdup("a");
	c = anylist_push((struct anylist *)&p.spec.containers, sizeof(*c));
	c->name = xstrdup("b");
	st = anylist_push((struct anylist *)&p.status.container_statuses,
			  sizeof(*st));
	st->name = xstrdup("a");
	st->ready = true;
	st->restart_count = 2;
	st->state.running = xcalloc(1, sizeof(*st->state.running));
	st = anylist_push((struct anylist *)&p.status.container_statuses,
			  sizeof(*st));
	st->name = xstrdup("b");
	st->restart_count = 3;
	st->state.waiting = xcalloc(1, sizeof(*st->state.waiting));
	st->state.waiting->reason = xstrdup("CrashLoopBackOff");
	s = cells(&o, true, T0 + 5000);
	assert_string_equal(s, "web-1|1/2|CrashLoopBackOff|5|5s|<none>|<none>|"
			       "<none>|<none>|<none>");
	free(s);
	/* a pod being deleted is Terminating whatever its containers say */
	p.metadata.deletion_timestamp = T0 + 1000;
	p.spec.node_name = xstrdup("node-1");
	p.status.pod_ip = xstrdup("127.0.0.1");
	s = cells(&o, true, T0 + 5000);
	assert_string_equal(s, "web-1|1/2|Terminating|5|5s|127.0.0.1|node-1|"
			       "<none>|<none>|<none>");
	free(s);
	schema_release(&schema_pod, &p);
}

static void
test_node_cells(void **state)
{
	struct node n = {0};
	struct object o = {kind_by_id(KIND_NODE), &n};
	struct condition *c;
	struct node_address *a;
	char *s;

	(void)state;
	n.metadata.name = xstrdup("node-1");
	n.metadata.creation_timestamp = T0;
	/* no Ready condition yet: Unknown */
	s = cells(&o, false, T0 + 10 * 1000);
	assert_string_equal(s, "node-1|Unknown|<none>|10s|");
	free(s);
	c = anylist_push((struct anylist *)&n.status.conditions, sizeof(*c));
	c->type = xstrdup("Ready");
	c->status = xstrdup("True");
	n.spec.unschedulable = true;
	strmap_set(&n.metadata.labels, "node-role.kubernetes.io/control-plane",
		   "");
	strmap_set(&n.metadata.labels, "kubernetes.io/role", "edge");
	strmap_set(&n.metadata.labels, "node-role.kubernetes.io/edge", "");
	n.status.node_info.kubelet_version = xstrdup("drover-agent");
	n.status.node_info.kernel_version = xstrdup("6.1.0");
	a = anylist_push((struct anylist *)&n.status.addresses, sizeof(*a));
	a->type = xstrdup("InternalIP");
	a->address = xstrdup("127.0.0.1");
	s = cells(&o, true, T0 + 3 * 86400 * 1000LL);
	assert_string_equal(s, "node-1|Ready,SchedulingDisabled|control-"
			       "plane,edge|3d|drover-agent|127.0.0.1|"
			       "<none>|<unknown>|6.1.0|drover-process");
	free(s);
	schema_release(&schema_node, &n);
}

static void
test_service_and_endpoints_cells(void **state)
{
	struct service svc = {0};
	struct endpoints ep = {0};
	struct object os = {kind_by_id(KIND_SERVICE), &svc};
	struct object oe = {kind_by_id(KIND_ENDPOINTS), &ep};
	struct service_port *sp;
	struct endpoint_subset *ss;
	struct endpoint_port *pp;
	char *s;
	int i;

	(void)state;
	svc.metadata.name = xstrdup("web");
	svc.metadata.creation_timestamp = T0;
	svc.spec.type = xstrdup("ClusterIP");
	strmap_set(&svc.spec.selector, "app", "web");
	sp = anylist_push((struct anylist *)&svc.spec.ports, sizeof(*sp));
	sp->port = 80;
	sp = anylist_push((struct anylist *)&svc.spec.ports, sizeof(*sp));
	sp->port = 81;
	sp->protocol = xstrdup("TCP");
	s = cells(&os, true, T0);
	assert_string_equal(
	    s, "web|ClusterIP|<none>|<none>|80/TCP,81/TCP|0s|app=web");
	free(s);
	/* the address the API set: the API server's node's */
	svc.spec.cluster_ip = xstrdup("127.0.0.1");
	strlist_push(&svc.spec.cluster_ips, "127.0.0.1");
	s = cells(&os, false, T0);
	assert_string_equal(s,
			    "web|ClusterIP|127.0.0.1|<none>|80/TCP,81/TCP|0s");
	free(s);

	ep.metadata.name = xstrdup("web");
	ep.metadata.creation_timestamp = T0;
	s = cells(&oe, false, T0);
	assert_string_equal(s, "web|<none>|0s");
	free(s);
	ss = anylist_push((struct anylist *)&ep.subsets, sizeof(*ss));
	pp = anylist_push((struct anylist *)&ss->ports, sizeof(*pp));
	pp->port = 31001;
	for (i = 0; i < 5; i++) {
		struct endpoint_address *a =
		    anylist_push((struct anylist *)&ss->addresses, sizeof(*a));
		char ip[32];

		snprintf(ip, sizeof(ip), "127.0.0.%d", i + 1);
		a->ip = xstrdup(ip);
	}
	/* at most three, then " + N more..." (formatEndpoints) */
	s = cells(&oe, false, T0);
	assert_string_equal(s, "web|127.0.0.1:31001,127.0.0.2:31001,"
			       "127.0.0.3:31001 + 2 more...|0s");
	free(s);
	schema_release(&schema_service, &svc);
	schema_release(&schema_endpoints, &ep);
}

/* duration.HumanDuration, its boundaries. */
static void
test_age_is_human_duration(void **state)
{
	static const struct {
		int64_t s;
		const char *want;
	} cases[] = {
	    {0, "0s"},
	    {119, "119s"},
	    {120, "2m"},
	    {125, "2m5s"},
	    {599, "9m59s"},
	    {600, "10m"},
	    {10799, "179m"},
	    {10800, "3h"},
	    {5 * 3600 + 60, "5h1m"},
	    {8 * 3600, "8h"},
	    {47 * 3600, "47h"},
	    {48 * 3600, "2d"},
	    {50 * 3600, "2d2h"},
	    {8 * 86400, "8d"},
	    {730 * 86400, "2y"},
	    {731 * 86400, "2y1d"},
	    {8 * 365 * 86400, "8y"},
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		columns_age(T0, T0 + cases[i].s * 1000, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("%llds: %s, want %s", (long long)cases[i].s,
				 buf, cases[i].want);
	}
	columns_age(0, T0, buf, sizeof(buf));
	assert_string_equal(buf, "<unknown>");
	columns_age(T0 + 5000, T0, buf, sizeof(buf));
	assert_string_equal(buf, "<invalid>");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_kind_has_well_formed_columns),
	    cmocka_unit_test(test_headers_are_kubernetes),
	    cmocka_unit_test(test_deployment_and_replicaset_cells),
	    cmocka_unit_test(test_pod_cells),
	    cmocka_unit_test(test_node_cells),
	    cmocka_unit_test(test_service_and_endpoints_cells),
	    cmocka_unit_test(test_age_is_human_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
