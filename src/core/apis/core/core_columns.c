/* core_columns.c - the tables of Pods and ReplicationControllers
 * (printers.go: printPod, printReplicationController) and the cell texts
 * workloads share (core_columns.h). Services, Endpoints and Nodes are in
 * core_columns_net.c, Events in core_columns_event.c. */
#include <stdio.h>
#include <string.h>

#include "core_columns.h"

/* ---- workloads: containers, images (wide) ----
 *
 * printers.go's layoutContainerCells: the template's container names and
 * images, comma separated, in the template's order; then the selector in
 * FormatLabelSelector's form. Example, a Deployment with a sidecar:
 *
 *   CONTAINERS   IMAGES                  SELECTOR
 *   web,side     nginx:1.25,busybox:1.36 app=web
 */

void
columns_containers(const struct pod_spec *s, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < s->containers.n; i++)
		strbuf_addf(out, "%s%s", i ? "," : "",
			    s->containers.v[i].name ? s->containers.v[i].name
						    : "");
}

void
columns_images(const struct pod_spec *s, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < s->containers.n; i++)
		strbuf_addf(out, "%s%s", i ? "," : "",
			    s->containers.v[i].image ? s->containers.v[i].image
						     : "");
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

const struct column columns_pod[] = {
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
const size_t columns_pod_n = COLUMNS_N(columns_pod);

/* ---- ReplicationController (printReplicationController) ----
 *
 * A ReplicaSet's columns: DESIRED is spec.replicas (1 if unset), CURRENT
 * status.replicas, READY status.readyReplicas; the selector is a plain
 * map ("app=web"). */

static void
cell_rc_desired(const struct object *o, dtime now, struct strbuf *out)
{
	const struct replication_controller *rc = o->obj;

	(void)now;
	strbuf_addf(
	    out, "%lld",
	    (long long)(rc->spec.replicas.set ? rc->spec.replicas.v : 1));
}

static void
cell_rc_current(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)((const struct replication_controller *)o->obj)
			->status.replicas);
}

static void
cell_rc_ready(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)((const struct replication_controller *)o->obj)
			->status.ready_replicas);
}

static void
cell_rc_containers(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_containers(&((const struct replication_controller *)o->obj)
				->spec.template.spec,
			   out);
}

static void
cell_rc_images(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_images(&((const struct replication_controller *)o->obj)
			    ->spec.template.spec,
		       out);
}

static void
cell_rc_selector(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_labels(
	    &((const struct replication_controller *)o->obj)->spec.selector,
	    out);
}

const struct column columns_rc[] = {
    NAME_COL,
    {"Desired", "integer", "", 0, "Number of desired pods.", cell_rc_desired},
    {"Current", "integer", "", 0, "Number of actual pods.", cell_rc_current},
    {"Ready", "integer", "", 0, "Number of ready pods.", cell_rc_ready},
    AGE_COL,
    WORKLOAD_WIDE_COLS(cell_rc_containers, cell_rc_images, cell_rc_selector),
};
const size_t columns_rc_n = COLUMNS_N(columns_rc);
