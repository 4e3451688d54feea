/* test_plan_endpoints.c - the endpoints planner, table by table: which
 * pods become endpoints and with which conditions (Kubernetes'
 * podToEndpoint: ready = Ready and not terminating, serving = Ready,
 * terminating = deletionTimestamp), how endpoints are grouped into
 * slices by port set, which slice writes a change takes (none when
 * nothing changed; a leftover slice is recycled rather than deleted and
 * created) and what the Endpoints object says.
 *
 * Each case is a world "before" (planned, and its writes applied to a
 * fake store) and a world "after"; the plan of "after" against what
 * "before" stored is rendered as text and compared whole:
 *
 *   create|update|delete [port-set] pod(RST) ...   one slice write
 *   ep create|update|none addresses / notReady      the Endpoints write
 *
 * where R, S, T are the ready, serving and terminating conditions (a
 * '-' when false) and a port set is "name:hostPort,...". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "defaults.h"
#include "plan_endpoints.h"
#include "strbuf.h"
#include "xalloc.h"

/* A pod in a table: its app label, phase, Ready, being deleted, the
 * container port it declares (named "http" unless pname says
 * otherwise) and the host port its status reports (0: none yet). */
struct tpod {
	const char *name;
	const char *app;
	const char *phase;
	bool ready;
	bool deleting;
	int64_t hport;
	const char *pname;
};

#define MAXP 6

struct tcase {
	const char *name;
	const char *target; /* targetPort: "http" or a number */
	struct tpod before[MAXP];
	struct tpod after[MAXP];
	const char *want;
};

static struct pod *
mkpod(const struct tpod *t)
{
	struct pod *p = xcalloc(1, sizeof(*p));
	struct container *c;
	struct container_port *cp;
	struct container_status *cs;

	p->metadata.name = xstrdup(t->name);
	p->metadata.namespace = xstrdup("default");
	p->metadata.uid = xstrdup(t->name); /* uid = name, for reading */
	strmap_set(&p->metadata.labels, "app", t->app ? t->app : "web");
	if (t->deleting)
		p->metadata.deletion_timestamp = 1767225600000;
	p->spec.node_name = xstrdup("node-1");
	c = anylist_push((struct anylist *)&p->spec.containers, sizeof(*c));
	c->name = xstrdup("app");
	cp = anylist_push((struct anylist *)&c->ports, sizeof(*cp));
	cp->name = xstrdup(t->pname ? t->pname : "http");
	cp->container_port = 8080;
	cp->protocol = xstrdup("TCP");
	p->status.phase = xstrdup(t->phase ? t->phase : "Running");
	if (t->ready) {
		struct condition cond = {.type = "Ready", .status = "True"};

		condition_append(&p->status.conditions, &cond);
	}
	cs = anylist_push((struct anylist *)&p->status.container_statuses,
			  sizeof(*cs));
	cs->name = xstrdup("app");
	if (t->hport) {
		cp = anylist_push((struct anylist *)&cs->ports, sizeof(*cp));
		cp->name = xstrdup(t->pname ? t->pname : "http");
		cp->container_port = 8080;
		cp->host_port = t->hport;
	}
	return p;
}

static struct node *
mknode(void)
{
	struct node *n = xcalloc(1, sizeof(*n));
	struct node_address *a =
	    anylist_push((struct anylist *)&n->status.addresses, sizeof(*a));

	n->metadata.name = xstrdup("node-1");
	a->type = xstrdup("InternalIP");
	a->address = xstrdup("127.0.0.1");
	return n;
}

static struct service *
mksvc(const char *target)
{
	struct service *s = xcalloc(1, sizeof(*s));
	struct service_port *sp =
	    anylist_push((struct anylist *)&s->spec.ports, sizeof(*sp));
	char *end;
	long v = strtol(target, &end, 10);

	s->metadata.name = xstrdup("web");
	s->metadata.namespace = xstrdup("default");
	s->metadata.uid = xstrdup("svc-uid");
	strmap_set(&s->spec.selector, "app", "web");
	sp->name = xstrdup("http");
	sp->port = 80;
	sp->target_port = *end ? intstr_str(target) : intstr_int(v);
	defaults_service(s);
	return s;
}

/* The fake store: slices and the Endpoints object as written. */
struct world {
	struct endpoint_slice *slices[16];
	size_t nslices;
	struct endpoints *ep;
	int serial;
};

static void
world_release(struct world *w)
{
	size_t i;

	for (i = 0; i < w->nslices; i++) {
		schema_release(&schema_endpoint_slice, w->slices[i]);
		free(w->slices[i]);
	}
	if (w->ep) {
		schema_release(&schema_endpoints, w->ep);
		free(w->ep);
	}
}

/* Applies out to w as the API would: creates get a name, updates
 * replace by name, deletes remove by name. */
static void
apply(struct world *w, const struct plan_endpoints_out *out)
{
	size_t i, j;
	char name[32];

	for (i = 0; i < out->slices.n; i++) {
		const struct ep_slice_action *a = &out->slices.v[i];
		struct endpoint_slice *s = NULL;

		for (j = 0; j < w->nslices && a->op != EP_CREATE; j++)
			if (!strcmp(w->slices[j]->metadata.name,
				    a->slice.metadata.name))
				break;
		if (a->op == EP_DELETE) {
			assert_true(j < w->nslices);
			schema_release(&schema_endpoint_slice, w->slices[j]);
			free(w->slices[j]);
			w->slices[j] = w->slices[--w->nslices];
			continue;
		}
		s = xcalloc(1, sizeof(*s));
		schema_copy(&schema_endpoint_slice, s, &a->slice);
		if (a->op == EP_CREATE) {
			snprintf(name, sizeof(name), "web-%d", w->serial++);
			s->metadata.name = xstrdup(name);
			w->slices[w->nslices++] = s;
		} else {
			assert_true(j < w->nslices);
			schema_release(&schema_endpoint_slice, w->slices[j]);
			free(w->slices[j]);
			w->slices[j] = s;
		}
	}
	if (out->endpoints_op != EP_NONE) {
		if (w->ep) {
			schema_release(&schema_endpoints, w->ep);
			free(w->ep);
		}
		w->ep = xcalloc(1, sizeof(*w->ep));
		schema_copy(&schema_endpoints, w->ep, &out->endpoints);
	}
}

static void
render_ports(const struct endpoint_port_list *l, struct strbuf *sb)
{
	size_t i;

	strbuf_addstr(sb, "[");
	for (i = 0; i < l->n; i++)
		strbuf_addf(sb, "%s%s:%lld", i ? "," : "", l->v[i].name,
			    (long long)l->v[i].port);
	strbuf_addstr(sb, "]");
}

static void
render(const struct plan_endpoints_out *out, struct strbuf *sb)
{
	static const char *const ops[] = {"none", "create", "update", "delete"};
	size_t i, j, k;

	for (i = 0; i < out->slices.n; i++) {
		const struct ep_slice_action *a = &out->slices.v[i];

		strbuf_addf(sb, "%s ", ops[a->op]);
		if (a->op == EP_DELETE) {
			strbuf_addf(sb, "%s; ", a->slice.metadata.name);
			continue;
		}
		render_ports(&a->slice.ports, sb);
		for (j = 0; j < a->slice.endpoints.n; j++) {
			const struct endpoint *e = &a->slice.endpoints.v[j];

			strbuf_addf(sb, " %s(%c%c%c)", e->target_ref->name,
				    e->conditions.ready.v ? 'R' : '-',
				    e->conditions.serving.v ? 'S' : '-',
				    e->conditions.terminating.v ? 'T' : '-');
		}
		strbuf_addstr(sb, "; ");
	}
	strbuf_addf(sb, "ep %s", ops[out->endpoints_op]);
	for (i = 0; i < out->endpoints.subsets.n; i++) {
		const struct endpoint_subset *ss = &out->endpoints.subsets.v[i];

		strbuf_addstr(sb, " ");
		render_ports(&ss->ports, sb);
		for (k = 0; k < ss->addresses.n; k++)
			strbuf_addf(sb, " %s",
				    ss->addresses.v[k].target_ref->name);
		if (ss->not_ready_addresses.n)
			strbuf_addstr(sb, " /");
		for (k = 0; k < ss->not_ready_addresses.n; k++)
			strbuf_addf(
			    sb, " %s",
			    ss->not_ready_addresses.v[k].target_ref->name);
	}
}

/* Plans pods against w and returns the plan (out owned by the caller). */
static void
plan(const struct service *svc, const struct tpod *tp, struct world *w,
     const struct node *n, struct plan_endpoints_out *out)
{
	struct pod *pods[MAXP];
	const struct pod *cp[MAXP];
	const struct endpoint_slice *sl[16];
	size_t np = 0, i;
	struct plan_endpoints_in in = {0};

	for (np = 0; np < MAXP && tp[np].name; np++) {
		pods[np] = mkpod(&tp[np]);
		cp[np] = pods[np];
	}
	for (i = 0; i < w->nslices; i++)
		sl[i] = w->slices[i];
	in.svc = svc;
	in.pods = cp;
	in.npods = np;
	in.nodes = &n;
	in.nnodes = 1;
	in.slices = sl;
	in.nslices = w->nslices;
	in.endpoints = w->ep;
	plan_endpoints(&in, out);
	for (i = 0; i < np; i++) {
		pod_release(pods[i]);
		free(pods[i]);
	}
}

static const struct tcase cases[] = {
    /* Two ready pods, each with its own host port: two slices (one per
     * port set), one Endpoints subset per port set. */
    {"two ready pods, two port sets",
     "http",
     {{0}},
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, true, false, 31002, NULL}},
     "create [http:31001] web-a(RS-); create [http:31002] web-b(RS-); "
     "ep create [http:31001] web-a [http:31002] web-b"},
    /* Equal port sets share a slice (a declared hostPort). */
    {"same host port, one slice",
     "http",
     {{0}},
     {{"web-b", NULL, NULL, true, false, 31001, NULL},
      {"web-a", NULL, NULL, false, false, 31001, NULL}},
     "create [http:31001] web-a(---) web-b(RS-); "
     "ep create [http:31001] web-b / web-a"},
    /* Not ready: in the slice with ready=serving=false, and in the
     * Endpoints' notReadyAddresses. */
    {"not ready pod",
     "http",
     {{0}},
     {{"web-a", NULL, NULL, false, false, 31001, NULL}},
     "create [http:31001] web-a(---); ep create [http:31001] / web-a"},
    /* Terminating and Ready: serving but not ready; left out of the
     * Endpoints object. */
    {"terminating ready pod",
     "http",
     {{0}},
     {{"web-a", NULL, NULL, true, true, 31001, NULL},
      {"web-b", NULL, NULL, true, false, 31002, NULL}},
     "create [http:31001] web-a(-ST); create [http:31002] web-b(RS-); "
     "ep create [http:31002] web-b"},
    /* Left out: Succeeded/Failed, no host port yet, another app, the
     * named port absent. */
    {"pods left out",
     "http",
     {{0}},
     {{"web-a", NULL, "Succeeded", false, false, 31001, NULL},
      {"web-b", NULL, "Failed", false, false, 31002, NULL},
      {"web-c", NULL, NULL, false, false, 0, NULL},
      {"api-a", "api", NULL, true, false, 31003, NULL},
      {"web-d", NULL, NULL, true, false, 31004, "admin"}},
     "ep create"},
    /* A numeric targetPort names the containerPort. */
    {"numeric target port",
     "8080",
     {{0}},
     {{"web-a", NULL, NULL, true, false, 31001, NULL}},
     "create [http:31001] web-a(RS-); ep create [http:31001] web-a"},
    {"numeric target port not declared",
     "9090",
     {{0}},
     {{"web-a", NULL, NULL, true, false, 31001, NULL}},
     "ep create"},
    /* Nothing changed: no write at all. */
    {"unchanged: no writes",
     "http",
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, false, false, 31002, NULL}},
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, false, false, 31002, NULL}},
     "ep none [http:31001] web-a [http:31002] / web-b"},
    /* web-b becomes ready: its slice and the Endpoints are updated. */
    {"pod becomes ready",
     "http",
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, false, false, 31002, NULL}},
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, true, false, 31002, NULL}},
     "update [http:31002] web-b(RS-); "
     "ep update [http:31001] web-a [http:31002] web-b"},
    /* web-a is deleted (marked): terminating in its slice, gone from
     * the Endpoints. */
    {"pod terminating",
     "http",
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, true, false, 31002, NULL}},
     {{"web-a", NULL, NULL, false, true, 31001, NULL},
      {"web-b", NULL, NULL, true, false, 31002, NULL}},
     "update [http:31001] web-a(--T); ep update [http:31002] web-b"},
    /* web-a is replaced by web-c on another port: the slice of 31001
     * is recycled for 31003 (one update, no create and delete). */
    {"replacement recycles the slice",
     "http",
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, true, false, 31002, NULL}},
     {{"web-b", NULL, NULL, true, false, 31002, NULL},
      {"web-c", NULL, NULL, false, false, 31003, NULL}},
     "update [http:31003] web-c(---); "
     "ep update [http:31002] web-b [http:31003] / web-c"},
    /* All pods gone: the slices go, the Endpoints is emptied. */
    {"scaled to zero",
     "http",
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, true, false, 31002, NULL}},
     {{0}},
     "delete web-0; delete web-1; ep update"},
    /* A pod joins a port set that has a slice: that slice grows. */
    {"join an existing port set",
     "http",
     {{"web-a", NULL, NULL, true, false, 31001, NULL}},
     {{"web-a", NULL, NULL, true, false, 31001, NULL},
      {"web-b", NULL, NULL, true, false, 31001, NULL}},
     "update [http:31001] web-a(RS-) web-b(RS-); "
     "ep update [http:31001] web-a web-b"},
};

static void
test_table(void **state)
{
	const struct node *n = mknode();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tcase *c = &cases[i];
		struct service *svc = mksvc(c->target);
		struct world w = {0};
		struct plan_endpoints_out out;
		struct strbuf sb = STRBUF_INIT;

		if (c->before[0].name) {
			plan(svc, c->before, &w, n, &out);
			apply(&w, &out);
			plan_endpoints_out_release(&out);
		}
		plan(svc, c->after, &w, n, &out);
		render(&out, &sb);
		if (strcmp(sb.buf, c->want))
			fail_msg("%s:\n got  %s\n want %s", c->name, sb.buf,
				 c->want);
		/* applying the plan converges: a second plan writes nothing */
		apply(&w, &out);
		plan_endpoints_out_release(&out);
		plan(svc, c->after, &w, n, &out);
		if (out.slices.n || out.endpoints_op != EP_NONE)
			fail_msg("%s: a second plan still writes", c->name);
		plan_endpoints_out_release(&out);
		strbuf_release(&sb);
		world_release(&w);
		schema_release(&schema_service, svc);
		free(svc);
	}
	schema_release(&schema_node, (void *)n);
	free((void *)n);
}

/* What a created slice carries for the proxy and the garbage
 * collector: the service-name label, managed-by, a controller
 * ownerReference to the Service, addressType IPv4, the node's address,
 * nodeName, targetRef, and the port's protocol and appProtocol. */
static void
test_created_slice_shape(void **state)
{
	const struct node *n = mknode();
	struct service *svc = mksvc("http");
	struct tpod tp[MAXP] = {
	    {"web-a", NULL, NULL, true, false, 31001, NULL}};
	struct world w = {0};
	struct plan_endpoints_out out;
	const struct endpoint_slice *s;
	const struct owner_ref *r;

	(void)state;
	svc->spec.ports.v[0].app_protocol = xstrdup("http");
	strmap_set(&svc->metadata.labels, "team", "a");
	plan(svc, tp, &w, n, &out);
	assert_int_equal(out.slices.n, 1);
	assert_int_equal(out.slices.v[0].op, EP_CREATE);
	s = &out.slices.v[0].slice;
	assert_string_equal(s->metadata.generate_name, "web-");
	assert_null(s->metadata.name);
	assert_string_equal(s->metadata.namespace, "default");
	assert_string_equal(s->api_version, "discovery.k8s.io/v1");
	assert_string_equal(s->kind, "EndpointSlice");
	assert_string_equal(s->address_type, "IPv4");
	assert_string_equal(strmap_get(&s->metadata.labels, LABEL_SERVICE_NAME),
			    "web");
	assert_string_equal(strmap_get(&s->metadata.labels, LABEL_MANAGED_BY),
			    MANAGED_BY_CONTROLLER);
	assert_string_equal(strmap_get(&s->metadata.labels, "team"), "a");
	r = meta_controller_ref(&s->metadata);
	assert_non_null(r);
	assert_string_equal(r->kind, "Service");
	assert_string_equal(r->uid, "svc-uid");
	assert_string_equal(s->endpoints.v[0].addresses.v[0], "127.0.0.1");
	assert_string_equal(s->endpoints.v[0].node_name, "node-1");
	assert_string_equal(s->endpoints.v[0].target_ref->kind, "Pod");
	assert_string_equal(s->endpoints.v[0].target_ref->uid, "web-a");
	assert_string_equal(s->ports.v[0].protocol, "TCP");
	assert_string_equal(s->ports.v[0].app_protocol, "http");
	assert_int_equal(s->ports.v[0].port, 31001);
	assert_int_equal(out.nready, 1);
	assert_string_equal(out.endpoints.metadata.name, "web");
	assert_string_equal(out.endpoints.subsets.v[0].addresses.v[0].ip,
			    "127.0.0.1");
	plan_endpoints_out_release(&out);
	world_release(&w);
	schema_release(&schema_service, svc);
	free(svc);
	schema_release(&schema_node, (void *)n);
	free((void *)n);
}

/* A Service without a selector: the planner leaves its endpoints
 * alone, as Kubernetes' controllers do. A slice not managed by the
 * controller (no managed-by label) is never touched either. */
static void
test_no_selector_and_foreign_slices(void **state)
{
	const struct node *n = mknode();
	struct service *svc = mksvc("http");
	struct tpod tp[MAXP] = {
	    {"web-a", NULL, NULL, true, false, 31001, NULL}};
	struct world w = {0};
	struct plan_endpoints_out out;
	struct endpoint_slice *foreign = xcalloc(1, sizeof(*foreign));

	(void)state;
	strmap_release(&svc->spec.selector);
	plan(svc, tp, &w, n, &out);
	assert_int_equal(out.slices.n, 0);
	assert_int_equal(out.endpoints_op, EP_NONE);
	plan_endpoints_out_release(&out);

	strmap_set(&svc->spec.selector, "app", "web");
	foreign->metadata.name = xstrdup("mine");
	strmap_set(&foreign->metadata.labels, LABEL_SERVICE_NAME, "web");
	w.slices[w.nslices++] = foreign;
	plan(svc, tp, &w, n, &out);
	assert_int_equal(out.slices.n, 1);
	assert_int_equal(out.slices.v[0].op, EP_CREATE);
	plan_endpoints_out_release(&out);
	world_release(&w);
	schema_release(&schema_service, svc);
	free(svc);
	schema_release(&schema_node, (void *)n);
	free((void *)n);
}

/* More than 100 endpoints of one port set: cut into slices of 100. */
static void
test_slice_size_limit(void **state)
{
	const struct node *n = mknode();
	struct service *svc = mksvc("http");
	struct pod *pods[250];
	const struct pod *cp[250];
	struct plan_endpoints_in in = {0};
	struct plan_endpoints_out out;
	char name[32];
	size_t i;

	(void)state;
	for (i = 0; i < 250; i++) {
		struct tpod t = {name, NULL, NULL, true, false, 31001, NULL};

		snprintf(name, sizeof(name), "web-%03zu", i);
		pods[i] = mkpod(&t);
		cp[i] = pods[i];
	}
	in.svc = svc;
	in.pods = cp;
	in.npods = 250;
	in.nodes = &n;
	in.nnodes = 1;
	plan_endpoints(&in, &out);
	assert_int_equal(out.slices.n, 3);
	assert_int_equal(out.slices.v[0].slice.endpoints.n, 100);
	assert_int_equal(out.slices.v[1].slice.endpoints.n, 100);
	assert_int_equal(out.slices.v[2].slice.endpoints.n, 50);
	assert_int_equal(out.endpoints.subsets.n, 1);
	assert_int_equal(out.endpoints.subsets.v[0].addresses.n, 250);
	/* stored, the three slices of one port set are each found again:
	 * a second plan writes nothing */
	{
		const struct endpoint_slice *sl[3];
		struct plan_endpoints_out again;

		for (i = 0; i < 3; i++) {
			snprintf(name, sizeof(name), "web-%zu", i);
			out.slices.v[i].slice.metadata.name = xstrdup(name);
			sl[i] = &out.slices.v[i].slice;
		}
		in.slices = sl;
		in.nslices = 3;
		in.endpoints = &out.endpoints;
		plan_endpoints(&in, &again);
		assert_int_equal(again.slices.n, 0);
		assert_int_equal(again.endpoints_op, EP_NONE);
		plan_endpoints_out_release(&again);
	}
	plan_endpoints_out_release(&out);
	for (i = 0; i < 250; i++) {
		pod_release(pods[i]);
		free(pods[i]);
	}
	schema_release(&schema_service, svc);
	free(svc);
	schema_release(&schema_node, (void *)n);
	free((void *)n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_created_slice_shape),
	    cmocka_unit_test(test_no_selector_and_foreign_slices),
	    cmocka_unit_test(test_slice_size_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
