/* columns.c - the column registry (columns.h): one entry per kind, the
 * workload kinds' cells (Deployment, ReplicaSet, Pod), the default table,
 * and the text helpers the cells share. The network kinds' and the Node's
 * cells are in columns_net.c.
 *
 * Adding a kind's columns: a `static const struct column X_cols[]` of
 * rows and one line in `registry` below. A kind without an entry prints
 * Kubernetes' default (NAME, CREATED AT), as kubectl does for a custom
 * resource without additionalPrinterColumns.
 *
 * Invariants (tests/unit/test_columns.c checks them for every kind of
 * the kind registry):
 *   1. The first column is Name, format "name" (kubectl finds the name
 *      cell by that format, e.g. for `-o name` of a Table); the Event
 *      table alone has it last and wide, as Kubernetes does.
 *   2. Wide columns (priority 1) come after all the others, so that
 *      `-o wide` only appends cells and -L/--show-labels columns go last
 *      (but for Events, whose order is Kubernetes').
 *   3. A cell never fails: a missing value prints as Kubernetes prints
 *      it ("<none>", "<unknown>", "" or 0), never as an error.
 *   4. Cells read only the decoded object and `now`: the same object and
 *      time give the same row, in the API and in `drover get`. */
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "columns_int.h"
#include "apps.h"

/* ---- text helpers ---- */

/* duration.HumanDuration (apimachinery/pkg/util/duration): seconds up to
 * 2 minutes, then minutes and seconds below 10 minutes ("2m3s"), whole
 * minutes below 3 hours, hours and minutes below 8 hours ("5h30m"),
 * hours below 2 days, days and hours below 8 days ("3d4h"), days below
 * 2 years, then years and days below 8 years, then years.
 *
 * Examples: 90 s "90s", 125 s "2m5s", 200 min "3h20m", 50 h "2d2h",
 * 400 days "400d". An unset time is "<unknown>" (kubectl's
 * translateTimestampSince); less than 2 s in the future reads "0s"
 * (clock skew between two hosts), further is "<invalid>". Seconds are
 * truncated toward zero, as Go's int(d.Seconds()) does. */
void
columns_age(dtime since, dtime now, char *buf, size_t len)
{
	int64_t d = now - since, s, m, h;

	if (since == 0) {
		snprintf(buf, len, "<unknown>");
		return;
	}
	s = d / 1000;
	if (s < -1) {
		snprintf(buf, len, "<invalid>");
		return;
	}
	if (s < 0)
		s = 0;
	if (s < 120) {
		snprintf(buf, len, "%llds", (long long)s);
		return;
	}
	m = s / 60;
	if (m < 10) {
		if (s % 60 == 0)
			snprintf(buf, len, "%lldm", (long long)m);
		else
			snprintf(buf, len, "%lldm%llds", (long long)m,
				 (long long)(s % 60));
		return;
	}
	if (m < 180) {
		snprintf(buf, len, "%lldm", (long long)m);
		return;
	}
	h = m / 60;
	if (h < 8) {
		if (m % 60 == 0)
			snprintf(buf, len, "%lldh", (long long)h);
		else
			snprintf(buf, len, "%lldh%lldm", (long long)h,
				 (long long)(m % 60));
	} else if (h < 48) {
		snprintf(buf, len, "%lldh", (long long)h);
	} else if (h < 24 * 8) {
		if (h % 24 == 0)
			snprintf(buf, len, "%lldd", (long long)(h / 24));
		else
			snprintf(buf, len, "%lldd%lldh", (long long)(h / 24),
				 (long long)(h % 24));
	} else if (h < 24 * 365 * 2) {
		snprintf(buf, len, "%lldd", (long long)(h / 24));
	} else if (h < 24 * 365 * 8) {
		int64_t dy = (h / 24) % 365;

		if (dy == 0)
			snprintf(buf, len, "%lldy", (long long)(h / 24 / 365));
		else
			snprintf(buf, len, "%lldy%lldd",
				 (long long)(h / 24 / 365), (long long)dy);
	} else {
		snprintf(buf, len, "%lldy", (long long)(h / 24 / 365));
	}
}

/* A column's name as a header: ASCII upper case, "Up-to-date" ->
 * "UP-TO-DATE", cut to fit len with its NUL. */
void
columns_header(const char *name, char *buf, size_t len)
{
	size_t i;

	for (i = 0; len && name[i] && i + 1 < len; i++)
		buf[i] = name[i] >= 'a' && name[i] <= 'z'
			     ? (char)(name[i] - 'a' + 'A')
			     : name[i];
	if (len)
		buf[i] = '\0';
}

/* --show-labels: "app=web,tier=front" in key order, "<none>" if none. */
void
columns_labels(const struct strmap *m, struct strbuf *sb)
{
	size_t i;

	if (m->n == 0) {
		strbuf_addstr(sb, "<none>");
		return;
	}
	for (i = 0; i < m->n; i++)
		strbuf_addf(sb, "%s%s=%s", i ? "," : "", m->v[i].key,
			    m->v[i].value);
}

/* The SELECTOR cell: matchLabels first, then the expressions in their
 * order. Example: {matchLabels {app: web}, matchExpressions
 * [{tier In [a, b]}, {canary DoesNotExist}]} prints
 * "app=web,tier in (a,b),!canary". NULL or empty prints "<none>". */
void
columns_selector(const struct label_selector *s, struct strbuf *sb)
{
	size_t start = sb->len, i, j;

	if (s == NULL) {
		strbuf_addstr(sb, "<none>");
		return;
	}
	for (i = 0; i < s->match_labels.n; i++)
		strbuf_addf(sb, "%s%s=%s", i ? "," : "",
			    s->match_labels.v[i].key,
			    s->match_labels.v[i].value);
	for (i = 0; i < s->match_expressions.n; i++) {
		const struct selector_req *r = &s->match_expressions.v[i];
		const char *op = r->operator? r->operator: "";

		if (sb->len > start)
			strbuf_addch(sb, ',');
		if (!strcmp(op, "Exists")) {
			strbuf_addstr(sb, r->key);
		} else if (!strcmp(op, "DoesNotExist")) {
			strbuf_addf(sb, "!%s", r->key);
		} else {
			strbuf_addf(sb, "%s %s (", r->key,
				    !strcmp(op, "In") ? "in" : "notin");
			for (j = 0; j < r->values.n; j++)
				strbuf_addf(sb, "%s%s", j ? "," : "",
					    r->values.v[j]);
			strbuf_addch(sb, ')');
		}
	}
	if (sb->len == start)
		strbuf_addstr(sb, "<none>");
}

/* The host ports the agent gave the pod's containers, from the
 * container statuses: a named port as "http:30001", an unnamed one as
 * "8080:30002" (container port, host port); "<none>" before any is
 * allocated. */
void
columns_pod_ports(const struct pod *p, struct strbuf *sb)
{
	size_t i, j, start = sb->len;

	for (i = 0; i < p->status.container_statuses.n; i++) {
		const struct container_status *st =
		    &p->status.container_statuses.v[i];

		for (j = 0; j < st->ports.n; j++) {
			const struct container_port *cp = &st->ports.v[j];

			if (cp->host_port == 0)
				continue; /* not allocated yet */
			if (sb->len > start)
				strbuf_addch(sb, ',');
			if (cp->name && *cp->name)
				strbuf_addf(sb, "%s:%lld", cp->name,
					    (long long)cp->host_port);
			else
				strbuf_addf(sb, "%lld:%lld",
					    (long long)cp->container_port,
					    (long long)cp->host_port);
		}
	}
	if (sb->len == start)
		strbuf_addstr(sb, "<none>");
}

/* ---- cells every kind has ---- */

/* NAME: metadata.name. AGE: HumanDuration since creationTimestamp, at
 * the `now` the caller gives (the server's clock for a Table, the
 * client's for `drover get`: a Table's AGE is the server's text and
 * kubectl prints it as is). */

void
column_cell_name(const struct object *o, dtime now, struct strbuf *out)
{
	const struct object_meta *m = object_meta(o);

	(void)now;
	strbuf_addstr(out, m->name ? m->name : "");
}

void
column_cell_age(const struct object *o, dtime now, struct strbuf *out)
{
	char buf[32];

	columns_age(object_meta(o)->creation_timestamp, now, buf, sizeof(buf));
	strbuf_addstr(out, buf);
}

/* The default table's "Created At": the RFC 3339 creation time. */
static void
cell_created_at(const struct object *o, dtime now, struct strbuf *out)
{
	char buf[64];

	(void)now;
	dtime_format(object_meta(o)->creation_timestamp, buf);
	strbuf_addstr(out, buf);
}

/* ---- workloads: containers, images, selector (wide) ----
 *
 * printers.go's layoutContainerCells: the template's container names and
 * images, comma separated, in the template's order; then the selector in
 * FormatLabelSelector's form. Example, a Deployment with a sidecar:
 *
 *   CONTAINERS   IMAGES                  SELECTOR
 *   web,side     nginx:1.25,busybox:1.36 app=web
 */

static void
containers_of(const struct pod_spec *s, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < s->containers.n; i++)
		strbuf_addf(out, "%s%s", i ? "," : "",
			    s->containers.v[i].name ? s->containers.v[i].name
						    : "");
}

static void
images_of(const struct pod_spec *s, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < s->containers.n; i++)
		strbuf_addf(out, "%s%s", i ? "," : "",
			    s->containers.v[i].image ? s->containers.v[i].image
						     : "");
}

/* The pod template of a Deployment, ReplicaSet or ReplicationController. */
static const struct pod_template *
template_of(const struct object *o)
{
	switch (o->k->id) {
	case KIND_DEPLOYMENT:
		return &((const struct deployment *)o->obj)->spec.template;
	case KIND_REPLICATION_CONTROLLER:
		return &((const struct replication_controller *)o->obj)
			    ->spec.template;
	default:
		return &((const struct replicaset *)o->obj)->spec.template;
	}
}

static void
cell_containers(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	containers_of(&template_of(o)->spec, out);
}

static void
cell_images(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	images_of(&template_of(o)->spec, out);
}

/* A ReplicationController's selector is a plain map: "app=web". */
static void
cell_selector(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	if (o->k->id == KIND_REPLICATION_CONTROLLER)
		columns_labels(&((const struct replication_controller *)o->obj)
				    ->spec.selector,
			       out);
	else
		columns_selector(o->k->selector(o->obj), out);
}

#define WORKLOAD_WIDE_COLS                                                     \
	{"Containers",                                                         \
	 "string",                                                             \
	 "",                                                                   \
	 1,                                                                    \
	 "Names of each container in the template.",                           \
	 cell_containers},                                                     \
	    {"Images",                                                         \
	     "string",                                                         \
	     "",                                                               \
	     1,                                                                \
	     "Images referenced by each container in the template.",           \
	     cell_images},                                                     \
	{                                                                      \
		"Selector", "string", "", 1,                                   \
		    "Label selector for pods. Existing ReplicaSets whose "     \
		    "pods are selected by this will be the ones affected by "  \
		    "this deployment.",                                        \
		    cell_selector                                              \
	}

/* ---- Deployment (printDeployment) ----
 *
 * READY is status.readyReplicas / spec.replicas (the desired count, 1 if
 * unset), UP-TO-DATE status.updatedReplicas, AVAILABLE
 * status.availableReplicas. Mid-rollout of 4 replicas with maxSurge 1:
 *
 *   NAME  READY  UP-TO-DATE  AVAILABLE  AGE
 *   web   4/4    2           4          3m
 *
 * (5 pods exist, 4 ready: READY can't exceed what status counts, and
 * the desired count stays 4.) */

static void
cell_deploy_ready(const struct object *o, dtime now, struct strbuf *out)
{
	const struct deployment *d = o->obj;

	(void)now;
	strbuf_addf(out, "%lld/%lld", (long long)d->status.ready_replicas,
		    (long long)deploy_replicas(d));
}

static void
cell_deploy_updated(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)((const struct deployment *)o->obj)
			->status.updated_replicas);
}

static void
cell_deploy_available(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)((const struct deployment *)o->obj)
			->status.available_replicas);
}

static const struct column deployment_cols[] = {
    NAME_COL,
    {"Ready", "string", "", 0, "Number of the pod with ready state",
     cell_deploy_ready},
    {"Up-to-date", "integer", "", 0,
     "Total number of non-terminated pods targeted by this deployment that "
     "have the desired template spec.",
     cell_deploy_updated},
    {"Available", "integer", "", 0,
     "Total number of available pods (ready for at least minReadySeconds) "
     "targeted by this deployment.",
     cell_deploy_available},
    AGE_COL,
    WORKLOAD_WIDE_COLS,
};
static const size_t deployment_cols_n = COLUMNS_N(deployment_cols);

/* ---- ReplicaSet (printReplicaSet), ReplicationController
 * (printReplicationController: the same columns) ----
 *
 * DESIRED is spec.replicas, CURRENT status.replicas (pods that exist and
 * are not terminating), READY status.readyReplicas. An old ReplicaSet
 * being scaled down: "web-6fcc  1  2  2" until its second pod is gone. */

/* A ReplicationController has a ReplicaSet's status (printReplication
 * Controller prints the same columns). */
static const struct replicaset_status *
rs_status_of(const struct object *o)
{
	return o->k->id == KIND_REPLICATION_CONTROLLER
		   ? &((const struct replication_controller *)o->obj)->status
		   : &((const struct replicaset *)o->obj)->status;
}

static void
cell_rs_desired(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)(o->k->replicas(o->obj)->set
				    ? o->k->replicas(o->obj)->v
				    : 1));
}

static void
cell_rs_current(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld", (long long)rs_status_of(o)->replicas);
}

static void
cell_rs_ready(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld", (long long)rs_status_of(o)->ready_replicas);
}

static const struct column replicaset_cols[] = {
    NAME_COL,
    {"Desired", "integer", "", 0, "Number of desired pods.", cell_rs_desired},
    {"Current", "integer", "", 0, "Number of actual pods.", cell_rs_current},
    {"Ready", "integer", "", 0, "Number of ready pods.", cell_rs_ready},
    AGE_COL,
    WORKLOAD_WIDE_COLS,
};
static const size_t replicaset_cols_n = COLUMNS_N(replicaset_cols);

/* ---- Pod (printPod) ----
 *
 *   NAME        READY  STATUS            RESTARTS  AGE
 *   web-1-abc   1/2    CrashLoopBackOff  5         2m
 *
 * RESTARTS sums the containers' restartCount; Kubernetes 1.22+ appends
 * " (2m ago)" from the last termination, which drover's container
 * statuses do not record yet, so the column is the count alone. The
 * wide columns: IP and NODE ("<none>" until the pod is bound and
 * started), NOMINATED NODE and READINESS GATES (drover has neither:
 * "<none>"), then drover's PORTS. */

/* printPod's READY and STATUS: the ready count counts containers that
 * are ready and running; the reason is the phase, else status.reason,
 * else (last container first) a waiting or terminated reason, and
 * "Terminating" once deletionTimestamp is set. Example: a pod whose
 * only container crashes is "0/1 CrashLoopBackOff". */
static const char *
pod_reason(const struct pod *p, int64_t *ready, char *buf, size_t len)
{
	const char *reason = p->status.phase ? p->status.phase : "Pending";
	size_t i;

	*ready = 0;
	if (p->status.reason)
		reason = p->status.reason;
	for (i = p->status.container_statuses.n; i-- > 0;) {
		const struct container_status *c =
		    &p->status.container_statuses.v[i];

		if (c->state.waiting && c->state.waiting->reason &&
		    *c->state.waiting->reason) {
			reason = c->state.waiting->reason;
		} else if (c->state.terminated && c->state.terminated->reason &&
			   *c->state.terminated->reason) {
			reason = c->state.terminated->reason;
		} else if (c->state.terminated) {
			snprintf(
			    buf, len,
			    c->state.terminated->signal ? "Signal:%lld"
							: "ExitCode:%lld",
			    (long long)(c->state.terminated->signal
					    ? c->state.terminated->signal
					    : c->state.terminated->exit_code));
			reason = buf;
		} else if (c->ready && c->state.running) {
			(*ready)++;
		}
	}
	if (p->metadata.deletion_timestamp)
		reason = "Terminating";
	return reason;
}

static void
cell_pod_ready(const struct object *o, dtime now, struct strbuf *out)
{
	const struct pod *p = o->obj;
	int64_t ready;
	char buf[64];

	(void)now;
	pod_reason(p, &ready, buf, sizeof(buf));
	strbuf_addf(out, "%lld/%zu", (long long)ready, p->spec.containers.n);
}

static void
cell_pod_status(const struct object *o, dtime now, struct strbuf *out)
{
	int64_t ready;
	char buf[64];

	(void)now;
	strbuf_addstr(out, pod_reason(o->obj, &ready, buf, sizeof(buf)));
}

static void
cell_pod_restarts(const struct object *o, dtime now, struct strbuf *out)
{
	const struct pod *p = o->obj;
	int64_t restarts = 0;
	size_t i;

	(void)now;
	for (i = 0; i < p->status.container_statuses.n; i++)
		restarts += p->status.container_statuses.v[i].restart_count;
	strbuf_addf(out, "%lld", (long long)restarts);
}

static void
or_none(const char *s, struct strbuf *out)
{
	strbuf_addstr(out, s && *s ? s : "<none>");
}

static void
cell_pod_ip(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	or_none(((const struct pod *)o->obj)->status.pod_ip, out);
}

static void
cell_pod_node(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	or_none(((const struct pod *)o->obj)->spec.node_name, out);
}

/* drover has no preemption and no readiness gates: "<none>", as
 * Kubernetes prints for a pod without them. */
static void
cell_none(const struct object *o, dtime now, struct strbuf *out)
{
	(void)o;
	(void)now;
	strbuf_addstr(out, "<none>");
}

static void
cell_pod_ports(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_pod_ports(o->obj, out);
}

static const struct column pod_cols[] = {
    NAME_COL,
    {"Ready", "string", "", 0,
     "The aggregate readiness state of this pod for accepting traffic.",
     cell_pod_ready},
    {"Status", "string", "", 0,
     "The aggregate status of the containers in this pod.", cell_pod_status},
    {"Restarts", "string", "", 0,
     "The number of times the containers in this pod have been restarted.",
     cell_pod_restarts},
    AGE_COL,
    {"IP", "string", "", 1, "IP address allocated to the pod.", cell_pod_ip},
    {"Node", "string", "", 1, "Name of the Node this pod is assigned to.",
     cell_pod_node},
    {"Nominated Node", "string", "", 1,
     "Name of the node the scheduler nominated for this pod.", cell_none},
    {"Readiness Gates", "string", "", 1,
     "Pod readiness gates: conditions that must be true besides the "
     "containers' readiness.",
     cell_none},
    /* drover's own: the host ports the agent gave the pod */
    {"Ports", "string", "", 1,
     "drover: the host ports allocated to the pod's named container ports "
     "(name:hostPort).",
     cell_pod_ports},
};
static const size_t pod_cols_n = COLUMNS_N(pod_cols);

/* ---- the default (DefaultTableConvertor) ----
 *
 * What the API server prints for a resource without a printer:
 *
 *   NAME   CREATED AT
 *   web    2026-01-01T00:00:00Z
 */

static const struct column default_cols[] = {
    NAME_COL,
    {"Created At", "date", "", 0,
     "CreationTimestamp is a timestamp representing the server time when "
     "this object was created.",
     cell_created_at},
};

/* The registry: kind -> its columns. A kind not listed gets
 * default_cols. */
static const struct {
	enum kind_id kind;
	const struct column *cols;
	const size_t *n;
} registry[] = {
    {KIND_DEPLOYMENT, deployment_cols, &deployment_cols_n},
    {KIND_REPLICASET, replicaset_cols, &replicaset_cols_n},
    {KIND_REPLICATION_CONTROLLER, replicaset_cols, &replicaset_cols_n},
    {KIND_POD, pod_cols, &pod_cols_n},
    {KIND_SERVICE, columns_service, &columns_service_n},
    {KIND_ENDPOINTS, columns_endpoints_tbl, &columns_endpoints_n},
    {KIND_ENDPOINT_SLICE, columns_endpoint_slice, &columns_endpoint_slice_n},
    {KIND_NODE, columns_node, &columns_node_n},
    {KIND_EVENT, columns_event, &columns_event_n},
};

const struct column *
columns_of(enum kind_id id, size_t *n)
{
	size_t i;

	for (i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (registry[i].kind == id) {
			*n = *registry[i].n;
			return registry[i].cols;
		}
	*n = sizeof(default_cols) / sizeof(default_cols[0]);
	return default_cols;
}
