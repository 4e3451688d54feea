/* cmd_describe.c - `drover describe`: kubectl's multi-line descriptions of
 * deployments, replicasets, pods, services, budgets and nodes (the last
 * in describe_node.c).
 *
 *   drover describe KIND [NAME...] | KIND/NAME...
 *
 * Without a name, every object of the kind in the namespace is
 * described. The text is built as tabwriter input (cells end in '\t')
 * and aligned like kubectl's describe output. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "columns.h"
#include "common.h"
#include "deploy_util.h"
#include "labels.h"
#include "object.h"
#include "xalloc.h"

static const char usage_text[] =
    "usage: drover describe KIND [NAME...]\n"
    "       drover describe KIND/NAME...\n"
    "\n"
    "KIND: deployments (deploy), replicasets (rs), pods (po), services\n"
    "(svc), poddisruptionbudgets (pdb), nodes (no); other kinds show their\n"
    "metadata. Each description ends with the object's Events.\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE, -n NAMESPACE.\n";

static int
cmp_toleration(const void *a, const void *b)
{
	const struct toleration *x = *(const struct toleration *const *)a;
	const struct toleration *y = *(const struct toleration *const *)b;

	return strcmp(x->key ? x->key : "", y->key ? y->key : "");
}

/* kubectl's printTolerationsMultiline: one a line, sorted by key,
 * "key[=value][:effect][ op=Exists][ for Ns]". */
static void
add_tolerations(struct strbuf *sb, const struct toleration_list *l)
{
	const struct toleration **v = xcalloc(l->n + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < l->n; i++)
		v[i] = &l->v[i];
	qsort(v, l->n, sizeof(*v), cmp_toleration);
	strbuf_addstr(sb, "Tolerations:\t");
	if (l->n == 0)
		strbuf_addstr(sb, "<none>\n");
	for (i = 0; i < l->n; i++) {
		const struct toleration *t = v[i];
		bool key = t->key && *t->key, effect = t->effect && *t->effect;

		if (i)
			strbuf_addstr(sb, "\t");
		strbuf_addstr(sb, key ? t->key : "");
		if (t->value && *t->value)
			strbuf_addf(sb, "=%s", t->value);
		if (effect)
			strbuf_addf(sb, ":%s", t->effect);
		if (t->operator&& !strcmp(t->operator, "Exists") &&
		    !(t->value && *t->value))
			strbuf_addstr(sb, key || effect ? " op=Exists"
							: "op=Exists");
		if (t->toleration_seconds.set)
			strbuf_addf(sb, " for %llds",
				    (long long)t->toleration_seconds.v);
		strbuf_addch(sb, '\n');
	}
	free(v);
}

static void
add_meta(struct strbuf *sb, const struct object_meta *m, bool created)
{
	strbuf_addf(sb, "Name:\t%s\n", m->name ? m->name : "");
	strbuf_addf(sb, "Namespace:\t%s\n", m->namespace ? m->namespace : "");
	if (created) {
		strbuf_addstr(sb, "CreationTimestamp:\t");
		cli_describe_time(sb, m->creation_timestamp);
		strbuf_addch(sb, '\n');
	}
}

static void
add_intstr(struct strbuf *sb, const struct intstr *v)
{
	if (v->type == INTSTR_STRING)
		strbuf_addstr(sb, v->sval);
	else
		strbuf_addf(sb, "%lld", (long long)v->ival);
}

static void
rs_list(struct strbuf *sb, struct replicaset **v, size_t n)
{
	size_t i;

	if (n == 0) {
		strbuf_addstr(sb, "<none>");
		return;
	}
	for (i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s (%lld/%lld replicas created)",
			    i ? ", " : "", v[i]->metadata.name,
			    (long long)v[i]->status.replicas,
			    (long long)rs_replicas(v[i]));
}

static void
describe_deployment(struct client *c, const struct deployment *d,
		    struct strbuf *sb)
{
	const struct deployment_status *st = &d->status;
	struct replicaset **rs = NULL, **olds, *new_rs = NULL;
	size_t nrs = 0, nold = 0, i;

	add_meta(sb, &d->metadata, true);
	cli_describe_labels(sb, "Labels", &d->metadata.labels);
	cli_describe_annotations(sb, "Annotations", &d->metadata.annotations);
	strbuf_addstr(sb, "Selector:\t");
	columns_selector(d->spec.selector, sb);
	strbuf_addf(sb,
		    "\nReplicas:\t%lld desired | %lld updated | %lld total | "
		    "%lld available | %lld unavailable\n",
		    (long long)deploy_replicas(d),
		    (long long)st->updated_replicas, (long long)st->replicas,
		    (long long)st->available_replicas,
		    (long long)st->unavailable_replicas);
	strbuf_addf(sb, "StrategyType:\t%s\n",
		    d->spec.strategy.type ? d->spec.strategy.type : "");
	strbuf_addf(sb, "MinReadySeconds:\t%lld\n",
		    (long long)d->spec.min_ready_seconds);
	if (d->spec.strategy.rolling_update) {
		strbuf_addstr(sb, "RollingUpdateStrategy:\t");
		add_intstr(sb,
			   &d->spec.strategy.rolling_update->max_unavailable);
		strbuf_addstr(sb, " max unavailable, ");
		add_intstr(sb, &d->spec.strategy.rolling_update->max_surge);
		strbuf_addstr(sb, " max surge\n");
	}
	cli_describe_template(&d->spec.template, sb);
	if (st->conditions.n) {
		strbuf_addstr(sb, "Conditions:\n  Type\tStatus\tReason\n"
				  "  ----\t------\t------\n");
		for (i = 0; i < st->conditions.n; i++)
			strbuf_addf(sb, "  %s \t%s\t%s\n",
				    st->conditions.v[i].type,
				    st->conditions.v[i].status,
				    st->conditions.v[i].reason
					? st->conditions.v[i].reason
					: "");
	}
	if (cli_owned_rs(c, d->metadata.namespace, d->metadata.uid, &rs,
			 &nrs) == 0) {
		olds = calloc(nrs + 1, sizeof(*olds));
		for (i = 0; i < nrs; i++) {
			if (new_rs == NULL && rs_matches_template(d, rs[i]))
				new_rs = rs[i];
			else if (rs_replicas(rs[i]) != 0)
				olds[nold++] = rs[i];
		}
		strbuf_addstr(sb, "OldReplicaSets:\t");
		rs_list(sb, olds, nold);
		strbuf_addstr(sb, "\nNewReplicaSet:\t");
		rs_list(sb, &new_rs, new_rs ? 1 : 0);
		strbuf_addch(sb, '\n');
		free(olds);
		cli_rs_free(rs, nrs);
	}
	cli_describe_events(c, kind_by_id(KIND_DEPLOYMENT), &d->metadata, sb);
}

/* Counts the pods of a selector by phase: kubectl's "Pods Status". */
static void
pod_phases(struct client *c, const char *ns, const struct label_selector *sel,
	   int64_t counts[4])
{
	const struct kind_info *k = kind_by_id(KIND_POD);
	struct client_resp r;
	struct strbuf s = STRBUF_INIT, q = STRBUF_INIT;
	char path[1024], *e;
	json_t *it;
	size_t i;

	memset(counts, 0, 4 * sizeof(counts[0]));
	columns_selector(sel, &s);
	e = cli_urlencode(strcmp(s.buf, "<none>") ? s.buf : "");
	strbuf_addf(&q, "labelSelector=%s", e);
	free(e);
	cli_path(path, sizeof(path), k, ns, NULL, NULL);
	client_request(c, "GET", path, q.buf, NULL, NULL, &r);
	json_array_foreach(json_object_get(r.body, "items"), i, it)
	{
		const char *ph = json_string_value(
		    json_object_get(json_object_get(it, "status"), "phase"));

		if (ph && !strcmp(ph, "Running"))
			counts[0]++;
		else if (ph && !strcmp(ph, "Succeeded"))
			counts[2]++;
		else if (ph && !strcmp(ph, "Failed"))
			counts[3]++;
		else
			counts[1]++;
	}
	client_resp_release(&r);
	strbuf_release(&s);
	strbuf_release(&q);
}

static void
add_controlled_by(struct strbuf *sb, const struct object_meta *m)
{
	const struct owner_ref *ref = meta_controller_ref(m);

	if (ref)
		strbuf_addf(sb, "Controlled By:\t%s/%s\n", ref->kind,
			    ref->name);
}

static void
describe_replicaset(struct client *c, const struct replicaset *rs,
		    struct strbuf *sb)
{
	int64_t n[4];
	size_t i;

	add_meta(sb, &rs->metadata, false);
	strbuf_addstr(sb, "Selector:\t");
	columns_selector(rs->spec.selector, sb);
	strbuf_addch(sb, '\n');
	cli_describe_labels(sb, "Labels", &rs->metadata.labels);
	cli_describe_annotations(sb, "Annotations", &rs->metadata.annotations);
	add_controlled_by(sb, &rs->metadata);
	strbuf_addf(sb, "Replicas:\t%lld current / %lld desired\n",
		    (long long)rs->status.replicas, (long long)rs_replicas(rs));
	pod_phases(c, rs->metadata.namespace, rs->spec.selector, n);
	strbuf_addf(sb,
		    "Pods Status:\t%lld Running / %lld Waiting / %lld "
		    "Succeeded / %lld Failed\n",
		    (long long)n[0], (long long)n[1], (long long)n[2],
		    (long long)n[3]);
	cli_describe_template(&rs->spec.template, sb);
	if (rs->status.conditions.n) {
		strbuf_addstr(sb, "Conditions:\n  Type\tStatus\tReason\n"
				  "  ----\t------\t------\n");
		for (i = 0; i < rs->status.conditions.n; i++)
			strbuf_addf(sb, "  %s \t%s\t%s\n",
				    rs->status.conditions.v[i].type,
				    rs->status.conditions.v[i].status,
				    rs->status.conditions.v[i].reason
					? rs->status.conditions.v[i].reason
					: "");
	}
	cli_describe_events(c, kind_by_id(KIND_REPLICASET), &rs->metadata, sb);
}

/* The Services of the pod's namespace whose selector picks it (those
 * that route to it), as "web, api"; "<none>". */
static void
add_services_of(struct client *c, const struct pod *p, struct strbuf *sb)
{
	struct client_resp r;
	char path[512];
	json_t *it;
	size_t i, n = 0;

	cli_path(path, sizeof(path), kind_by_id(KIND_SERVICE),
		 p->metadata.namespace, NULL, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	strbuf_addstr(sb, "Services:\t");
	json_array_foreach(json_object_get(r.body, "items"), i, it)
	{
		struct object o = {0};
		const struct service *svc;

		if (r.status != 200 || cli_decode(it, KIND_SERVICE, &o))
			continue;
		svc = o.obj;
		if (svc->spec.selector.n &&
		    labels_subset(&svc->spec.selector, &p->metadata.labels))
			strbuf_addf(sb, "%s%s", n++ ? ", " : "",
				    svc->metadata.name);
		object_release(&o);
	}
	if (n == 0)
		strbuf_addstr(sb, "<none>");
	strbuf_addch(sb, '\n');
	client_resp_release(&r);
}

/* GetPodQOS for cpu and memory: Guaranteed when every container limits
 * both and requests (if given) equal the limits, BestEffort when none
 * requests or limits anything, Burstable otherwise. Values are compared
 * as written ("1" and "1000m" count as different here). */
static const char *
qos_class(const struct pod_spec *s)
{
	static const char *const names[] = {"cpu", "memory"};
	bool any = false, guaranteed = true;
	size_t i, j;

	for (i = 0; i < s->containers.n; i++) {
		const struct resources *r = &s->containers.v[i].resources;

		any = any || r->limits.n || r->requests.n;
		for (j = 0; j < 2; j++) {
			const char *l = strmap_get(&r->limits, names[j]);
			const char *q = strmap_get(&r->requests, names[j]);

			if (l == NULL || (q && strcmp(q, l)))
				guaranteed = false;
		}
	}
	if (!any)
		return "BestEffort";
	return guaranteed ? "Guaranteed" : "Burstable";
}

static void
describe_pod(struct client *c, const struct pod *p, struct strbuf *sb)
{
	const struct pod_status *st = &p->status;
	struct pod_template t = {0};
	size_t i;

	add_meta(sb, &p->metadata, false);
	strbuf_addstr(sb, "Priority:\t0\n");
	strbuf_addf(sb, "Service Account:\t%s\n",
		    p->spec.service_account_name ? p->spec.service_account_name
						 : "default");
	strbuf_addf(sb, "Node:\t%s\n",
		    p->spec.node_name && *p->spec.node_name ? p->spec.node_name
							    : "<none>");
	if (st->start_time) {
		strbuf_addstr(sb, "Start Time:\t");
		cli_describe_time(sb, st->start_time);
		strbuf_addch(sb, '\n');
	}
	cli_describe_labels(sb, "Labels", &p->metadata.labels);
	cli_describe_annotations(sb, "Annotations", &p->metadata.annotations);
	if (p->metadata.deletion_timestamp) {
		strbuf_addstr(sb, "Status:\tTerminating (lasts <unknown>)\n");
	} else {
		strbuf_addf(sb, "Status:\t%s\n",
			    st->phase ? st->phase : "Pending");
	}
	if (st->reason)
		strbuf_addf(sb, "Reason:\t%s\n", st->reason);
	if (st->message)
		strbuf_addf(sb, "Message:\t%s\n", st->message);
	strbuf_addf(sb, "IP:\t%s\n", st->pod_ip ? st->pod_ip : "");
	add_controlled_by(sb, &p->metadata);
	add_services_of(c, p, sb);
	/* The containers, as in a template, then the pod's own state. */
	t.spec = p->spec;
	{
		struct strbuf tmp = STRBUF_INIT;
		const char *from;

		cli_describe_containers(&t, &st->container_statuses, &tmp);
		/* drop the "Pod Template:" and "  Labels:" lines */
		from = strstr(tmp.buf, "  Containers:");
		strbuf_addstr(sb, from ? from : tmp.buf);
		strbuf_release(&tmp);
	}
	if (st->conditions.n) {
		strbuf_addstr(sb, "Conditions:\n  Type\tStatus\n");
		for (i = 0; i < st->conditions.n; i++)
			strbuf_addf(sb, "  %s \t%s \n",
				    st->conditions.v[i].type,
				    st->conditions.v[i].status);
	}
	strbuf_addf(sb, "QoS Class:\t%s\n", qos_class(&p->spec));
	cli_describe_labels(sb, "Node-Selectors", &p->spec.node_selector);
	add_tolerations(sb, &p->spec.tolerations);
	cli_describe_events(c, kind_by_id(KIND_POD), &p->metadata, sb);
}

/* The Node annotation in which each node's agent publishes the state of
 * its proxy's listeners (agent/services.h: LISTENERS_ANNOTATION). */
#define LISTENERS_ANNOTATION "proxy.drover.io/listeners"

/* The nodes' listener states, {node: {listener: state}}; NULL if the
 * nodes cannot be listed. */
static json_t *
listener_states(struct client *c)
{
	struct client_resp r;
	json_t *out = NULL, *items, *n;
	char path[256];
	size_t i;

	cli_path(path, sizeof(path), kind_by_id(KIND_NODE), NULL, NULL, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	items = json_object_get(r.body, "items");
	if (r.status == 200 && json_is_array(items)) {
		out = json_object();
		json_array_foreach(items, i, n)
		{
			json_t *md = json_object_get(n, "metadata");
			const char *name =
			    json_string_value(json_object_get(md, "name"));
			const char *text = json_string_value(
			    json_object_get(json_object_get(md, "annotations"),
					    LISTENERS_ANNOTATION));
			json_t *v = text ? json_loads(text, 0, NULL) : NULL;

			if (name && json_is_object(v))
				json_object_set(out, name, v);
			json_decref(v);
		}
	}
	client_resp_release(&r);
	return out;
}

/* One line per node that runs a proxy: "NODE: listening", or why the
 * listener of Service port p cannot open ("<none>": no node has said
 * yet). The listener is named as the agent names it: "ns/name", or
 * "ns/name:port" when the Service has several ports. */
static void
add_listeners(const struct service *s, const struct service_port *p,
	      json_t *states, struct strbuf *sb)
{
	const char *node;
	json_t *v;
	char name[600];
	int n = 0;

	if (s->spec.ports.n > 1 && p->name)
		snprintf(name, sizeof(name), "%s/%s:%s", s->metadata.namespace,
			 s->metadata.name, p->name);
	else
		snprintf(name, sizeof(name), "%s/%s", s->metadata.namespace,
			 s->metadata.name);
	strbuf_addstr(sb, "Listener:\t");
	json_object_foreach(states, node, v)
	{
		const char *st = json_string_value(json_object_get(v, name));

		if (st == NULL)
			continue;
		strbuf_addf(sb, "%s%s: %s%s", n++ ? ", " : "", node, st,
			    strcmp(st, "listening") ? " (trying again)" : "");
	}
	if (n == 0)
		strbuf_addstr(sb, "<none>");
	strbuf_addch(sb, '\n');
}

/* kubectl's describeService: the selector, type, and per port its
 * number, target port and endpoints (the Endpoints object's ready
 * addresses for that port; "<none>" when the Service has none); and
 * drover's own line, the state of each node's listener for the port
 * (listening, or why not). */
static void
describe_service(struct client *c, const struct service *s, struct strbuf *sb)
{
	const struct object_meta *m = &s->metadata;
	struct object eo = {0};
	const struct endpoints *e = NULL;
	json_t *j = NULL, *states = listener_states(c);
	struct client_resp r;
	char path[1024];
	size_t i;

	add_meta(sb, m, false);
	cli_describe_labels(sb, "Labels", &m->labels);
	cli_describe_annotations(sb, "Annotations", &m->annotations);
	strbuf_addstr(sb, "Selector:\t");
	columns_labels(&s->spec.selector, sb);
	strbuf_addf(sb, "\nType:\t%s\n", s->spec.type ? s->spec.type : "");
	/* an absent Endpoints object is not an error here */
	cli_path(path, sizeof(path), kind_by_id(KIND_ENDPOINTS), m->namespace,
		 m->name, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	if (r.status == 200 && (j = json_incref(r.body)) &&
	    cli_decode(j, KIND_ENDPOINTS, &eo) == 0)
		e = eo.obj;
	client_resp_release(&r);
	for (i = 0; i < s->spec.ports.n; i++) {
		const struct service_port *p = &s->spec.ports.v[i];
		const char *name = p->name && *p->name ? p->name : "<unset>";

		strbuf_addf(sb, "Port:\t%s  %lld/%s\n", name,
			    (long long)p->port, p->protocol ? p->protocol : "");
		strbuf_addstr(sb, "TargetPort:\t");
		add_intstr(sb, &p->target_port);
		strbuf_addf(sb, "/%s\n", p->protocol ? p->protocol : "");
		if (p->app_protocol)
			strbuf_addf(sb, "AppProtocol:\t%s\n", p->app_protocol);
		strbuf_addstr(sb, "Endpoints:\t");
		if (e)
			columns_endpoints(e, p->name ? p->name : "", sb);
		else
			strbuf_addstr(sb, "<none>");
		strbuf_addch(sb, '\n');
		add_listeners(s, p, states, sb);
	}
	cli_describe_events(c, kind_by_id(KIND_SERVICE), m, sb);
	object_release(&eo);
	json_decref(j);
	json_decref(states);
}

/* kubectl's describePodDisruptionBudgetV1. */
static void
describe_pdb(struct client *c, const struct pod_disruption_budget *p,
	     struct strbuf *sb)
{
	const struct intstr *v = p->spec.min_available.type != INTSTR_UNSET
				     ? &p->spec.min_available
				     : &p->spec.max_unavailable;

	strbuf_addf(sb, "Name:\t%s\nNamespace:\t%s\n", p->metadata.name,
		    p->metadata.namespace ? p->metadata.namespace : "");
	if (v->type != INTSTR_UNSET) {
		strbuf_addstr(sb, v == &p->spec.min_available
				      ? "Min available:\t"
				      : "Max unavailable:\t");
		add_intstr(sb, v);
		strbuf_addch(sb, '\n');
	}
	strbuf_addstr(sb, "Selector:\t");
	if (p->spec.selector)
		columns_selector(p->spec.selector, sb);
	else
		strbuf_addstr(sb, "<unset>");
	strbuf_addf(
	    sb,
	    "\nStatus:\n    Allowed disruptions:\t%lld\n    Current:\t%lld\n"
	    "    Desired:\t%lld\n    Total:\t%lld\n",
	    (long long)p->status.disruptions_allowed,
	    (long long)p->status.current_healthy,
	    (long long)p->status.desired_healthy,
	    (long long)p->status.expected_pods);
	cli_describe_events(c, kind_by_id(KIND_POD_DISRUPTION_BUDGET),
			    &p->metadata, sb);
}

static int
describe_obj(struct client *c, const struct kind_info *k, json_t *j)
{
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
	struct object o = {0};

	if (cli_decode(j, k->id, &o))
		return 1;
	switch (k->id) {
	case KIND_DEPLOYMENT:
		describe_deployment(c, o.obj, &text);
		break;
	case KIND_REPLICASET:
		describe_replicaset(c, o.obj, &text);
		break;
	case KIND_REPLICATION_CONTROLLER: {
		struct replicaset view;

		rc_as_replicaset(o.obj, &view);
		describe_replicaset(c, &view, &text);
		replicaset_release(&view);
		break;
	}
	case KIND_POD:
		describe_pod(c, o.obj, &text);
		break;
	case KIND_SERVICE:
		describe_service(c, o.obj, &text);
		break;
	case KIND_POD_DISRUPTION_BUDGET:
		describe_pdb(c, o.obj, &text);
		break;
	case KIND_NODE:
		cli_describe_node(c, o.obj, &text);
		break;
	default:
		add_meta(&text, object_meta(&o), true);
		if (k->id != KIND_EVENT)
			cli_describe_events(c, k, object_meta(&o), &text);
		break;
	}
	cli_tabwrite(text.buf, 0, 2, &out);
	fputs(out.buf, stdout);
	strbuf_release(&text);
	strbuf_release(&out);
	object_release(&o);
	return 0;
}

static int
describe_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct kind_info *k = NULL;
	struct client *c;
	json_t *j, *it;
	size_t n;
	int ch, rc, i, shown = 0;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		fputs(usage_text, stderr);
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "error: you must specify the type of resource "
				"to describe\n");
		fputs(usage_text, stderr);
		return 2;
	}
	c = cli_client();
	if (!strchr(argv[optind], '/')) {
		if ((k = cli_kind_find(argv[optind])) == NULL) {
			c->ops->free(c);
			return cli_error("the server doesn't have a resource "
					 "type \"%s\"",
					 argv[optind]);
		}
		optind++;
		if (optind == argc) {
			struct client_resp r;
			char path[1024];

			cli_path(path, sizeof(path), k, cli_g.ns, NULL, NULL);
			client_request(c, "GET", path, NULL, NULL, NULL, &r);
			if (r.status != 200)
				rc = cli_resp_error(&r, k, NULL);
			else if (json_array_size(
				     json_object_get(r.body, "items")) == 0 &&
				 k->namespaced)
				fprintf(stderr,
					"No resources found in %s "
					"namespace.\n",
					cli_g.ns);
			else if (json_array_size(
				     json_object_get(r.body, "items")) == 0)
				fputs("No resources found\n", stderr);
			json_array_foreach(json_object_get(r.body, "items"), n,
					   it)
			{
				if (shown++)
					fputs("\n\n", stdout); /* kubectl's */
				if (describe_obj(c, k, it))
					rc = 1;
			}
			client_resp_release(&r);
			c->ops->free(c);
			return rc;
		}
	}
	for (i = optind; i < argc; i++) {
		const struct kind_info *ki = k;
		const char *name = argv[i];

		if (k == NULL && cli_kind_slash_name(argv[i], &ki, &name)) {
			rc = 1;
			continue;
		}
		if (cli_get(c, ki, cli_g.ns, name, &j)) {
			rc = 1;
			continue;
		}
		if (shown++)
			fputs("\n\n", stdout);
		if (describe_obj(c, ki, j))
			rc = 1;
		json_decref(j);
	}
	c->ops->free(c);
	return rc;
}

const struct cmd_entry cmd_describe_entry = {
    "describe", usage_text, "show the details of objects", describe_run};
