/* agent.c - node registration, heartbeat, and the pod watch of one node
 * (see agent.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <uthash.h>
#include <utlist.h>

#include "agent.h"
#include "drain.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "object.h"
#include "queue.h"
#include "rand.h"
#include "turn.h"
#include "recorder.h"
#include "runtime.h"
#include "services.h"
#include "version.h"
#include "xalloc.h"

/* What an op of the agent's to-do does. */
enum agent_op {
	/* Start what should run of the pod and write its status. */
	AGENT_OP_STATUS,
	/* The same from the API's copy of the pod, which the watch may not
	 * have delivered yet: after a 409 (another pod of that name). */
	AGENT_OP_STATUS_FRESH,
	/* A pod being deleted: its Ready=False status, the stop (SIGTERM,
	 * SIGKILL after the grace period), then the deletion. */
	AGENT_OP_TERMINATE,
	/* Finish the deletion of a pod whose processes are gone. */
	AGENT_OP_FINISH_DELETE,
	/* Kill the processes of a pod deleted at once (by uid). */
	AGENT_OP_KILL,
};

/* An op waiting in agent.todo, hashed by (kind, key) so that adding one
 * already there costs the same with ten waiting or a hundred thousand.
 * One allocation, the key in it; agent.todo owns it. */
struct queued_op {
	uint64_t seq;  /* order of arrival */
	bool deferred; /* put off once by a kick (on_kick) */
	bool dropped;  /* made needless (finish_delete): skipped at its turn */
	bool urgent;   /* in agent.urgent too */
	struct queued_op *prev, *next;   /* in agent.todo, oldest first */
	struct queued_op *uprev, *unext; /* in agent.urgent, if urgent */
	UT_hash_handle hh;               /* in agent.queued, by (kind, key) */
	const char *name; /* in key: the pod's; NULL for a kill */
	/* Hashed together, as laid out here: uthash's multi-field key, the
	 * kind's bytes then key's, without padding (see the assert). */
	enum agent_op kind;
	char key[]; /* "ns\0name" (each NUL-terminated), or the uid */
};
_Static_assert(offsetof(struct queued_op, key) ==
		   offsetof(struct queued_op, kind) + sizeof(enum agent_op),
	       "the hashed kind and key must be contiguous");

/* A kick runs ops for at most this long, then lets the loop poll for
 * I/O and goes on at the next turn: a burst of ten thousand deletions
 * must not keep the API from answering. */
#define AGENT_KICK_BUDGET_MS 10

struct agent {
	struct agent_config cfg;
	char *node;
	/* A hollow node's status patches not sent yet ([path, body] pairs)
	 * and whether one is under way: one at a time (hollow_run). */
	json_t *hollow_q;
	bool hollow_busy;
	uv_timer_t hollow_retry; /* a patch that did not reach the server */
	uv_timer_t heartbeat;
	struct hb *hb; /* the heartbeat under way (on_heartbeat), or NULL */
	uv_timer_t resync;
	/* Without a runtime: the pod watch, and the timer that opens it
	 * again once it ended (a server restart, timeoutSeconds, a failed
	 * connection) */
	struct client_watch *wpod;
	uv_timer_t rewatch;
	/* This node's pods as the watch last delivered them (with a
	 * runtime): an informer with a spec.nodeName field selector, as an
	 * agent on another host would keep. Status writes start from it
	 * instead of reading the pod back. */
	struct informer *pods;
	struct runtime *rt;
	/* Services on this node: the proxy and the drain handshake (NULL
	 * without a runtime or a proxy socket). */
	struct agent_services *svc;
	/* Wakes terminating pods whose drain wait reaches its end. */
	uv_timer_t drain_timer;
	uint64_t drain_due; /* uv_now() it is set for; 0: not set */
	/* Work deferred out of callbacks (enum agent_op), run once the
	 * writes behind it are durable. It runs in the loop's check phase,
	 * right after the group commit of the turn (store.h), so that it
	 * seldom has to commit itself; an idle handle keeps the poll from
	 * waiting meanwhile. Not the shared work queue (queue.h): see
	 * README.md. */
	struct queued_op *todo;   /* first in, first out */
	struct queued_op *queued; /* the same ops, by (kind, key) */
	/* The status ops of pods whose readiness flipped, also in todo:
	 * the kick runs them before anything else (on_kick). */
	struct queued_op *urgent;
	uint64_t seq;   /* of the last op queued */
	size_t nstatus; /* AGENT_OP_STATUS ops in todo */
	uv_check_t kick;
	uv_idle_t kick_idle;
	bool flushed; /* in this kick, the store's writes are on disk */
	/* A pod with no process yet was seen since the last start_bound:
	 * agent_start_bound has something to look for. */
	bool to_start;
	/* When the Node's status was last written (0: not yet). */
	dtime status_reported;
	int closing;
};

static void
read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)len, f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

static void
set_str(char **field, const char *v)
{
	free(*field);
	*field = xstrdup(v);
}

/* The PRETTY_NAME of /etc/os-release, as the kubelet reports osImage
 * ("Debian GNU/Linux 12 (bookworm)"); "Linux" without one. */
static void
os_image(char *buf, size_t len)
{
	FILE *f = fopen("/etc/os-release", "r");
	char line[256];
	size_t n;

	snprintf(buf, len, "Linux");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "PRETTY_NAME=", 12))
			continue;
		line[strcspn(line, "\n")] = '\0';
		n = strlen(line + 12);
		if (n >= 2 && line[12] == '"' && line[12 + n - 1] == '"')
			snprintf(buf, len, "%.*s", (int)n - 2, line + 13);
		else if (n)
			snprintf(buf, len, "%s", line + 12);
		break;
	}
	if (f)
		fclose(f);
}

/* Every field of nodeInfo, read again at each status write as the
 * kubelet does (the boot id changes with a reboot). The runtime is
 * drover's own process runtime (containerRuntimeVersion
 * "drover-process://VERSION"); there is no kube-proxy, whose version
 * Kubernetes 1.31 and later leave empty too. */
static void
fill_node_info(struct node_info *ni)
{
	struct utsname un;
	char buf[256];

	if (uname(&un) == 0) {
		set_str(&ni->kernel_version, un.release);
		set_str(&ni->architecture,
			!strcmp(un.machine, "x86_64")    ? "amd64"
			: !strcmp(un.machine, "aarch64") ? "arm64"
							 : un.machine);
	}
	set_str(&ni->operating_system, "linux");
	set_str(&ni->kubelet_version, "drover-agent");
	set_str(&ni->kube_proxy_version, "");
	set_str(&ni->container_runtime_version,
		"drover-process://" DROVER_VERSION);
	read_line("/etc/machine-id", buf, sizeof(buf));
	set_str(&ni->machine_id, buf);
	read_line("/sys/class/dmi/id/product_uuid", buf, sizeof(buf));
	set_str(&ni->system_uuid, buf);
	read_line("/proc/sys/kernel/random/boot_id", buf, sizeof(buf));
	set_str(&ni->boot_id, buf);
	os_image(buf, sizeof(buf));
	set_str(&ni->os_image, buf);
}

/* status.allocatable.pods without --allocatable pods=N */
#define DEFAULT_MAX_PODS "1000000"

static void
fill_status(struct agent *a, struct node *n)
{
	struct node_status *st = &n->status;
	struct condition ready = {
	    .type = "Ready",
	    .status = "True",
	    .reason = "AgentReady",
	    .message = "drover agent is posting ready status",
	    .last_heartbeat_time = a->cfg.now(),
	    .last_transition_time = a->cfg.now(),
	};
	const struct condition *cur = condition_get(&st->conditions, "Ready");
	struct node_address *ad;
	struct sysinfo si;
	char buf[128];
	size_t i;

	if (cur && cur->status && !strcmp(cur->status, "True"))
		ready.last_transition_time = cur->last_transition_time;
	condition_remove(&st->conditions, "Ready");
	condition_append(&st->conditions, &ready);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	strmap_set(&st->capacity, "cpu", buf);
	strmap_set(&st->allocatable, "cpu", buf);
	if (sysinfo(&si) == 0) {
		snprintf(buf, sizeof(buf), "%lluKi",
			 (unsigned long long)si.totalram * si.mem_unit / 1024);
		strmap_set(&st->capacity, "memory", buf);
		strmap_set(&st->allocatable, "memory", buf);
	}
	/* Kubernetes' kubelet defaults to 110 pods (--max-pods); here a
	 * pod is a few processes, or only an object with --runtime none,
	 * and memory and cpu are the real bounds: a count that keeps the
	 * host's pods, not an invented cap, unless --allocatable says. */
	strmap_set(&st->capacity, "pods", DEFAULT_MAX_PODS);
	strmap_set(&st->allocatable, "pods", DEFAULT_MAX_PODS);
	/* --allocatable: what the scheduler may hand out (Kubernetes'
	 * capacity minus reserved); capacity stays the host's, except the
	 * pod count, which is a setting in both (kubelet's --max-pods). */
	for (i = 0; a->cfg.allocatable && i < a->cfg.allocatable->n; i++) {
		const struct strmap_entry *e = &a->cfg.allocatable->v[i];

		if (!strcmp(e->key, "pods"))
			strmap_set(&st->capacity, e->key, e->value);
		strmap_set(&st->allocatable, e->key, e->value);
	}
	/* the addresses of this start: an agent started again with
	 * another --address moves its node */
	for (i = 0; i < st->addresses.n; i++) {
		free(st->addresses.v[i].type);
		free(st->addresses.v[i].address);
	}
	free(st->addresses.v);
	memset(&st->addresses, 0, sizeof(st->addresses));
	ad = anylist_push((struct anylist *)&st->addresses, sizeof(*ad));
	ad->type = xstrdup("InternalIP");
	ad->address =
	    xstrdup(a->cfg.node_address ? a->cfg.node_address : "127.0.0.1");
	ad = anylist_push((struct anylist *)&st->addresses, sizeof(*ad));
	ad->type = xstrdup("Hostname");
	ad->address = xstrdup(a->node);
	st->daemon_endpoints.kubelet_endpoint.port = a->cfg.kubelet_port;
	fill_node_info(&st->node_info);
}

/* The kubelet's nodeStatusReportFrequency: the Node's status is written
 * when it changes, else at least this often; the Lease, renewed every
 * heartbeat, tells the control plane the node is alive in between. */
#define NODE_STATUS_REPORT_MS (5 * 60 * 1000)

/* nodeStatusHasChanged: the statuses differ in more than their
 * conditions' lastHeartbeatTime. */
static bool
status_changed(const struct node_status *old, const struct node_status *nw)
{
	const struct schema *s = kind_status_schema(kind_by_id(KIND_NODE));
	struct node_status cmp;
	bool eq;
	size_t i;

	schema_copy(s, &cmp, nw);
	for (i = 0; i < cmp.conditions.n; i++) {
		const struct condition *c =
		    condition_get(&old->conditions, cmp.conditions.v[i].type);

		if (c)
			cmp.conditions.v[i].last_heartbeat_time =
			    c->last_heartbeat_time;
	}
	eq = schema_equal(s, &cmp, old);
	schema_release(s, &cmp);
	return !eq;
}

/* The Node o as read: its status is filled in, and true is returned if
 * it is to be written (it changed, or was last written
 * NODE_STATUS_REPORT_MS ago); *now is the time of the check. */
static bool
status_due(struct agent *a, struct object *o, dtime *now)
{
	const struct schema *ss = kind_status_schema(kind_by_id(KIND_NODE));
	struct node_status before;
	bool due;

	schema_copy(ss, &before, &((struct node *)o->obj)->status);
	fill_status(a, o->obj);
	*now = a->cfg.now();
	due = !a->status_reported ||
	      *now - a->status_reported >= NODE_STATUS_REPORT_MS ||
	      status_changed(&before, &((struct node *)o->obj)->status);
	schema_release(ss, &before);
	return due;
}

/* Creates the Node, or writes its status when it changed or was last
 * written NODE_STATUS_REPORT_MS ago (the control plane's Ready Unknown
 * is a change: the agent's Ready True answers it at once). */
static int
register_node(struct agent *a)
{
	struct object o;
	int r = kube_get(a->cfg.client, KIND_NODE, NULL, a->node, &o), st;
	dtime now;

	if (r == -2)
		return -1;
	if (r == -1) {
		struct node *n = xcalloc(1, sizeof(*n));

		o.k = kind_by_id(KIND_NODE);
		o.obj = n;
		n->metadata.name = xstrdup(a->node);
		strmap_set(&n->metadata.labels, "kubernetes.io/hostname",
			   a->node);
		strmap_set(&n->metadata.labels, "kubernetes.io/os", "linux");
		fill_status(a, n);
		st = kube_create(a->cfg.client, &o);
		object_release(&o);
		if (st == 201)
			a->status_reported = a->cfg.now();
		return st == 201 ? 0 : -1;
	}
	if (!status_due(a, &o, &now)) {
		object_release(&o);
		return 0; /* the Lease says the node is alive */
	}
	st = kube_update(a->cfg.client, &o, "status");
	object_release(&o);
	if (st == 200)
		a->status_reported = now;
	return st == 200 ? 0 : -1;
}

void
agent_set_kubelet_port(struct agent *a, int port)
{
	a->cfg.kubelet_port = port;
	if (register_node(a))
		log_warn("agent: node %s: its log port was not written",
			 a->node);
}

/* Creates or renews the node's Lease (kube-node-lease/NODE, held by the
 * node for 40 s, renewed at every heartbeat, 10 s), as the kubelet does; owned
 * by the Node. */
static int
renew_lease(struct agent *a)
{
	struct object o, no;
	struct lease *l;
	int r = kube_get(a->cfg.client, KIND_LEASE, NODE_LEASE_NAMESPACE,
			 a->node, &o),
	    st;

	if (r == -2)
		return -1;
	if (r == -1) {
		l = xcalloc(1, sizeof(*l));
		o.k = kind_by_id(KIND_LEASE);
		o.obj = l;
		l->metadata.name = xstrdup(a->node);
		l->metadata.namespace = xstrdup(NODE_LEASE_NAMESPACE);
		if (kube_get(a->cfg.client, KIND_NODE, NULL, a->node, &no) ==
		    0) {
			struct owner_ref *ref = anylist_push(
			    (struct anylist *)&l->metadata.owner_references,
			    sizeof(*ref));

			ref->api_version = xstrdup("v1");
			ref->kind = xstrdup("Node");
			ref->name = xstrdup(a->node);
			ref->uid = xstrdup(
			    object_meta(&no)->uid ? object_meta(&no)->uid : "");
			object_release(&no);
		}
		l->spec.holder_identity = xstrdup(a->node);
		l->spec.lease_duration_seconds =
		    (struct opt_int){.set = true, .v = NODE_LEASE_DURATION_S};
		l->spec.renew_time = a->cfg.now();
		st = kube_create(a->cfg.client, &o);
		object_release(&o);
		return st == 201 ? 0 : -1;
	}
	l = o.obj;
	if (l->spec.holder_identity == NULL) /* taken back */
		l->spec.holder_identity = xstrdup(a->node);
	l->spec.renew_time = a->cfg.now();
	st = kube_update(a->cfg.client, &o, NULL);
	object_release(&o);
	return st == 200 ? 0 : -1;
}

/* The heartbeat without blocking the loop (a client with
 * request_async): the Node is read, its status written if due
 * (status_due), then the Lease renewed with a merge patch of its holder
 * and renewTime, each step in the answer of the one before. A Node or a
 * Lease that is not there is made again the blocking way
 * (register_node, renew_lease), as at the start. One heartbeat at a time:
 * one that finds the last still under way waits for the next tick. At
 * 1,000 nodes in one process (--hollow-nodes) the blocking heartbeats,
 * three requests each, one after the other, took longer than the 40 s
 * grace while the control plane was busy, and nodes went Ready Unknown;
 * a real agent's loop (probes, the pods' statuses) waited as long.
 *
 * The steps carry a struct hb of their own (the agent's hollow patches
 * carry the agent), so that agent_stop cancels this request alone
 * (client_cancel) and frees it. */
struct hb {
	struct agent *a;
};

static void hb_lease(struct hb *h);

static void
hb_end(struct hb *h, const char *what, const struct client_resp *r)
{
	struct agent *a = h->a;

	if (what) {
		char buf[256];

		log_warn("agent: node %s: %s: %s", a->node, what,
			 client_resp_message(r, buf, sizeof(buf)));
	}
	a->hb = NULL;
	free(h);
}

static void
hb_lease_done(void *arg, struct client_resp *r)
{
	struct hb *h = arg;

	if (r->status == 404 && renew_lease(h->a) == 0) {
		hb_end(h, NULL, r); /* made again */
		return;
	}
	hb_end(h, r->status == 200 ? NULL : "the Lease was not renewed", r);
}

static void
hb_lease(struct hb *h)
{
	struct agent *a = h->a;
	char path[512], ts[40];
	json_t *body;

	dtime_format_micro(a->cfg.now(), ts);
	body = json_pack("{s{ssss}}", "spec", "holderIdentity", a->node,
			 "renewTime", ts);
	kube_path(path, sizeof(path), KIND_LEASE, NODE_LEASE_NAMESPACE, a->node,
		  NULL);
	if (client_request_async(a->cfg.client, "PATCH", path, NULL,
				 "application/merge-patch+json", body,
				 hb_lease_done, h)) {
		log_warn("agent: node %s: the Lease was not renewed", a->node);
		hb_end(h, NULL, NULL);
	}
	json_decref(body);
}

static void
hb_status_done(void *arg, struct client_resp *r)
{
	struct hb *h = arg;

	if (r->status == 200)
		h->a->status_reported = h->a->cfg.now();
	else
		log_warn("agent: node %s: heartbeat failed: HTTP %d",
			 h->a->node, r->status);
	hb_lease(h);
}

static void
hb_node_got(void *arg, struct client_resp *r)
{
	struct hb *h = arg;
	struct agent *a = h->a;
	struct fielderr_list errs = {0};
	struct object o = {0};
	char path[512];
	json_t *body;
	dtime now;

	if (r->status == 404) { /* deleted: registered again */
		if (register_node(a))
			log_warn("agent: node %s: heartbeat failed", a->node);
		hb_lease(h);
		return;
	}
	if (r->status != 200 || object_decode(r->body, false, &o, &errs)) {
		fielderr_list_release(&errs);
		log_warn("agent: node %s: heartbeat failed: HTTP %d", a->node,
			 r->status);
		hb_lease(h);
		return;
	}
	if (!status_due(a, &o, &now)) {
		object_release(&o);
		hb_lease(h);
		return;
	}
	body = object_encode(&o);
	object_release(&o);
	kube_path(path, sizeof(path), KIND_NODE, NULL, a->node, "status");
	if (client_request_async(a->cfg.client, "PUT", path, NULL, NULL, body,
				 hb_status_done, h))
		hb_lease(h);
	json_decref(body);
}

static void
on_heartbeat(uv_timer_t *t)
{
	struct agent *a = t->data;
	char path[512];

	if (a->hb)
		return; /* the last one is still under way */
	a->hb = xcalloc(1, sizeof(*a->hb));
	a->hb->a = a;
	kube_path(path, sizeof(path), KIND_NODE, NULL, a->node, NULL);
	if (client_request_async(a->cfg.client, "GET", path, NULL, NULL, NULL,
				 hb_node_got, a->hb) == 0)
		return;
	/* a client without request_async: the blocking way */
	free(a->hb);
	a->hb = NULL;
	if (register_node(a))
		log_warn("agent: node %s: heartbeat failed", a->node);
	if (renew_lease(a))
		log_warn("agent: node %s: the Lease was not renewed", a->node);
}

static void on_kick(uv_check_t *h);

static void
on_kick_idle(uv_idle_t *h)
{
	(void)h;
}

static void
kick(struct agent *a)
{
	uv_check_start(&a->kick, on_kick);
	uv_idle_start(&a->kick_idle, on_kick_idle);
}

/* Queues op kind of the pod key/name (key: its namespace), or, name
 * NULL, of the pod whose uid is key, unless it waits already. Returns
 * the op waiting. */
static struct queued_op *
defer(struct agent *a, enum agent_op kind, const char *key, const char *name)
{
	size_t klen = strlen(key), len = klen + (name ? 1 + strlen(name) : 0);
	struct queued_op *q = xcalloc(1, sizeof(*q) + len + 1), *old;

	q->kind = kind;
	memcpy(q->key, key, klen);
	if (name) {
		q->name = q->key + klen + 1;
		memcpy(q->key + klen + 1, name, len - klen - 1);
	}
	HASH_FIND(hh, a->queued, &q->kind, sizeof(q->kind) + len, old);
	if (old) {
		old->dropped = false; /* needed again */
		free(q);
		return old;
	}
	q->seq = ++a->seq;
	a->nstatus += kind == AGENT_OP_STATUS;
	HASH_ADD(hh, a->queued, kind, sizeof(q->kind) + len, q);
	DL_APPEND(a->todo, q);
	kick(a);
	return q;
}

/* Takes q out of todo; the caller frees it. */
static void
unqueue(struct agent *a, struct queued_op *q)
{
	HASH_DEL(a->queued, q);
	DL_DELETE(a->todo, q);
	if (q->urgent)
		DL_DELETE2(a->urgent, q, uprev, unext);
	a->nstatus -= q->kind == AGENT_OP_STATUS;
}

/* The op kind of pod ns/name waiting in the to-do, or NULL. */
static struct queued_op *
find_queued(struct agent *a, enum agent_op kind, const char *ns,
	    const char *name)
{
	size_t nl = strlen(ns), len = nl + 1 + strlen(name);
	struct queued_op *q = xcalloc(1, sizeof(*q) + len + 1), *found;

	q->kind = kind;
	memcpy(q->key, ns, nl);
	memcpy(q->key + nl + 1, name, len - nl - 1);
	HASH_FIND(hh, a->queued, &q->kind, sizeof(q->kind) + len, found);
	free(q);
	return found;
}

/* Deletes the pod for good (its processes are stopped). A deletion it
 * finished makes the ones still waiting needless: the stop and the exit
 * of the process each queue one, and the second would only get a 404. */
static void
finish_delete(struct agent *a, const char *ns, const char *name)
{
	struct client_resp r;
	struct queued_op *q;
	char path[600];

	kube_path(path, sizeof(path), KIND_POD, ns, name, NULL);
	client_request(a->cfg.client, "DELETE", path, "gracePeriodSeconds=0",
		       NULL, NULL, &r);
	if (r.status != 200 && r.status != 404)
		log_warn("agent: finishing the deletion of %s/%s: HTTP %d", ns,
			 name, r.status);
	else if ((q = find_queued(a, AGENT_OP_FINISH_DELETE, ns, name)))
		q->dropped = true;
	client_resp_release(&r);
}

/* This node's pod of op q in the informer, or NULL. */
static const struct object *
cache_find(struct agent *a, const struct queued_op *q)
{
	if (a->pods == NULL || q->name == NULL)
		return NULL;
	return informer_find(a->pods, q->key, q->name);
}

/* A copy of the pod as the watch last delivered it (the API's without a
 * cache). A pod the cache no longer has was deleted: its DELETED event
 * queued the kill, and asking the API would only get a 404. */
static int
get_pod(struct agent *a, const char *ns, const char *name, struct object *o)
{
	if (a->pods == NULL)
		return kube_get(a->cfg.client, KIND_POD, ns, name, o);
	return informer_get(a->pods, ns, name, o);
}

/* Starting or stopping a process acts on a write (a binding, a deletion)
 * that must be on disk first, as the store commits in groups (store.h):
 * one flush per kick, before the first such act. */
static bool
durable(struct agent *a)
{
	if (!a->flushed)
		a->flushed = client_flush(a->cfg.client) == 0;
	return a->flushed;
}

static void drain_wake_at(struct agent *a, int64_t ms);

/* An in-place update of p's containers (a new image, command or args:
 * runtime_update_due): the runtime marked them not ready, so the status
 * written next says Ready=False and the endpoints controller takes the
 * pod out of its Services. Once the drain handshake says no proxy sends
 * it anything (as terminate() waits for it), or when its
 * terminationGracePeriodSeconds since the change would run out, the
 * runtime restarts them: SIGTERM, SIGKILL after what is left of the
 * grace period (DRAIN_MIN_KILL_S at least). Example: grace 30 s, spec
 * changed at t, drained at t + 1.5 s: SIGTERM then, SIGKILL at t + 30 s
 * at the latest. */
static void
update_in_place(struct agent *a, const struct pod *p)
{
	const struct opt_int *g = &p->spec.termination_grace_period_seconds;
	int64_t grace = g->set ? g->v : 30, kill_after = grace;
	dtime since, now, end;

	if (!runtime_update_due(a->rt, p->metadata.uid, &since))
		return;
	now = a->cfg.now();
	end = since + DTIME_SEC(grace);
	if (grace > 0) {
		if (now < end - DTIME_SEC(DRAIN_MIN_KILL_S) &&
		    !agent_services_drained(a->svc, p)) {
			drain_wake_at(a,
				      end - DTIME_SEC(DRAIN_MIN_KILL_S) - now);
			return;
		}
		kill_after = drain_kill_after(end, now);
		if (kill_after > grace)
			kill_after = grace;
	}
	agent_services_forget(a->svc, p->metadata.uid);
	runtime_update(a->rt, p->metadata.uid, kill_after);
}

/* Starts what should run of p and does not yet; updates in place what
 * runs with an older image, command or args. */
static void
start(struct agent *a, const struct pod *p)
{
	if (p->metadata.deletion_timestamp == 0 &&
	    (runtime_knows(a->rt, p->metadata.uid) || durable(a))) {
		runtime_ensure(a->rt, p);
		update_in_place(a, p);
	}
}

/* Every pod of this node being deleted, or waiting for an in-place
 * update, asks the drain question again. */
static void
reterminate(struct agent *a)
{
	struct object **v;
	size_t n, i;
	dtime since;

	if (a->pods == NULL)
		return;
	n = informer_list(a->pods, NULL, &v);
	for (i = 0; i < n; i++) {
		const struct object_meta *m = object_meta(v[i]);

		if (m->deletion_timestamp)
			defer(a, AGENT_OP_TERMINATE, m->namespace, m->name);
		else if (a->rt && m->uid &&
			 runtime_update_due(a->rt, m->uid, &since))
			defer(a, AGENT_OP_STATUS, m->namespace, m->name);
	}
	free(v);
}

static void
on_drain_timer(uv_timer_t *t)
{
	struct agent *a = t->data;

	a->drain_due = 0;
	reterminate(a);
}

/* The drain state changed (services.h). */
static void
on_drain_changed(void *arg)
{
	reterminate(arg);
}

/* Asks again in ms at the latest: a drain wait ends with the grace
 * period even if no proxy answers. */
static void
drain_wake_at(struct agent *a, int64_t ms)
{
	uint64_t due = uv_now(a->cfg.loop) + (uint64_t)(ms > 0 ? ms : 0);

	if (a->drain_due && a->drain_due <= due)
		return;
	a->drain_due = due;
	uv_timer_start(&a->drain_timer, on_drain_timer,
		       (uint64_t)(ms > 0 ? ms : 0), 0);
}

/* The pod-template-hash of one of this node's pods (services.h). */
static const char *
pod_revision(void *arg, const char *ns, const char *name)
{
	struct agent *a = arg;
	const struct object *o =
	    a->pods ? informer_find(a->pods, ns, name) : NULL;

	return o ? strmap_get(&((const struct pod *)o->obj)->metadata.labels,
			      "pod-template-hash")
		 : NULL;
}

/* Writes the runtime's view of a pod into its status, if it changed:
 * a strategic merge patch from the status the informer holds (the last
 * the agent knew) to the new one, with the pod's uid as its precondition
 * (kube_patch_status). It carries no resourceVersion, so a cache behind
 * the agent's own write of this turn does not make it conflict; a 409
 * means the pod was re-created under the same name. With starting,
 * first starts what should run and does not yet. */
static void
write_status(struct agent *a, const char *ns, const char *name, bool starting,
	     bool fresh)
{
	const struct schema *s = kind_status_schema(kind_by_id(KIND_POD));
	struct object got = {0};
	const struct object *o = NULL;
	const struct pod *p;
	struct pod_status st;

	if (!fresh && a->pods)
		o = informer_find(a->pods, ns, name);
	if (o == NULL) {
		if (kube_get(a->cfg.client, KIND_POD, ns, name, &got))
			return;
		o = &got;
	}
	p = o->obj;
	if (p->metadata.deletion_timestamp &&
	    p->metadata.deletion_grace_period_seconds.set &&
	    p->metadata.deletion_grace_period_seconds.v == 0) {
		/* its deletion is finished (a finalizer may hold it): it
		 * stays still, as the kubelet leaves a pod it deleted. An
		 * exit noticed after the finish wrote its terminated state
		 * once more under load (test_finalizers, under the
		 * sanitizers). */
		object_release(&got);
		return;
	}
	if (starting)
		start(a, p);
	schema_copy(s, &st, &p->status);
	if (runtime_status(a->rt, p, &st) &&
	    kube_patch_status(a->cfg.client, o, &st) == 409)
		/* Another pod of that name: again, from the API's copy,
		 * which the watch may not have delivered yet. */
		defer(a, AGENT_OP_STATUS_FRESH, ns, name);
	schema_release(s, &st);
	object_release(&got);
}

/* A pod being deleted: its Ready=False status first, then, once no
 * proxy sends it anything new and none has a connection to it left (the
 * drain handshake, core/drain.h) or when the grace period would run out,
 * the stop (SIGTERM, SIGKILL after what is left of the grace period),
 * then the deletion. */
static void
terminate(struct agent *a, const char *ns, const char *name)
{
	struct object o;
	const struct object_meta *m;
	int64_t grace, now, kill_after;

	if (get_pod(a, ns, name, &o))
		return;
	m = object_meta(&o);
	grace = m->deletion_grace_period_seconds.set
		    ? m->deletion_grace_period_seconds.v
		    : 30;
	write_status(a, ns, name, false, false);
	now = a->cfg.now();
	kill_after = grace;
	if (grace > 0 && m->deletion_timestamp) {
		int64_t wait_until =
		    m->deletion_timestamp - DTIME_SEC(DRAIN_MIN_KILL_S);

		if (now < wait_until &&
		    !agent_services_drained(a->svc, o.obj)) {
			drain_wake_at(a, wait_until - now);
			object_release(&o);
			return;
		}
		kill_after = drain_kill_after(m->deletion_timestamp, now);
		if (kill_after > grace)
			kill_after = grace;
	}
	if (durable(a) && runtime_stop(a->rt, m->uid, kill_after))
		finish_delete(a, ns, name);
	object_release(&o);
}

/* One deferred op (enum agent_op). */
static void
run_op(struct agent *a, const struct queued_op *q)
{
	switch (q->kind) {
	case AGENT_OP_KILL:
		if (durable(a)) /* force-deleted: kill */
			runtime_stop(a->rt, q->key, 0);
		break;
	case AGENT_OP_FINISH_DELETE:
		finish_delete(a, q->key, q->name);
		break;
	case AGENT_OP_TERMINATE:
		terminate(a, q->key, q->name);
		break;
	case AGENT_OP_STATUS:
	case AGENT_OP_STATUS_FRESH:
		write_status(a, q->key, q->name, true,
			     q->kind == AGENT_OP_STATUS_FRESH);
		break;
	}
}

/* Runs q's op, taken out of todo first: an op the run adds again
 * waits at the end. */
static void
run_queued(struct agent *a, struct queued_op *q)
{
	unqueue(a, q);
	if (!q->dropped)
		run_op(a, q);
	free(q);
}

/* The kick has had its share: AGENT_KICK_BUDGET_MS since it started, or,
 * once it has run an op (ran), the loop turn's budget of CPU, which the
 * controllers' work may have spent before it (turn.h). */
static bool
kick_spent(uint64_t started, size_t ran)
{
	return queue_overtime_ms(started, AGENT_KICK_BUDGET_MS) ||
	       (ran > 0 && turn_over_ms(QUEUE_TURN_BUDGET_MS));
}

/* Starts the processes of the pods bound here that wait in todo (up to
 * op seq), and nothing else: their ops stay queued, and the kick writes
 * their statuses. true if it started any. */
static bool
start_bound(struct agent *a, uint64_t started, uint64_t seq, size_t *ran)
{
	struct queued_op *q;
	bool any = false;

	a->to_start = false;
	for (q = a->nstatus && a->rt ? a->todo : NULL;
	     q && q->seq <= seq && !kick_spent(started, *ran); q = q->next) {
		const struct object *c;

		if (q->kind == AGENT_OP_STATUS &&
		    (c = cache_find(a, q)) != NULL &&
		    !runtime_knows(
			a->rt, ((const struct pod *)c->obj)->metadata.uid)) {
			start(a, c->obj);
			any = true;
			(*ran)++;
		}
	}
	return any;
}

void
agent_start_bound(struct agent *a)
{
	if (a == NULL || a->rt == NULL || !a->to_start || a->nstatus == 0)
		return; /* settles come often: no walk of todo for nothing */
	a->flushed = false;
	start_bound(a, uv_hrtime(), a->seq, &(size_t){0});
}

/* The kick first does what moves rollouts on: the statuses of pods whose
 * readiness flipped (a pod turning ready lets the next ones start; one
 * turning unready leaves its endpoints), then those of the other pods
 * that run already, then the starts of new pods. When it did any of
 * that, the rest (the statuses of the pods just started, terminations,
 * deletions) waits for the next kick, once, so that the controllers can act
 * on the readiness first. Ops added meanwhile wait for the next kick. Past
 * AGENT_KICK_BUDGET_MS the rest waits too, in its place: a kick costs the
 * work it does, not the length of the backlog. */
static void
on_kick(uv_check_t *h)
{
	struct agent *a = h->data;
	struct queued_op *q, *next;
	uint64_t started = uv_hrtime(), seq = a->seq;
	bool urgent = false;
	size_t ran = 0;

	uv_check_stop(&a->kick);
	uv_idle_stop(&a->kick_idle);
	a->flushed = false;
	/* Each run takes its op out of urgent (unqueue). */
	while ((q = a->urgent) != NULL && !kick_spent(started, ran)) {
		run_queued(a, q);
		urgent = true;
		ran++;
	}
	for (q = a->nstatus ? a->todo : NULL;
	     q && q->seq <= seq && !kick_spent(started, ran); q = next) {
		const struct object *c;
		const char *uid;

		next = q->next;
		if (q->kind != AGENT_OP_STATUS ||
		    (c = cache_find(a, q)) == NULL)
			continue;
		uid = ((const struct pod *)c->obj)->metadata.uid;
		if (a->rt && !runtime_knows(a->rt, uid))
			continue; /* new: started below */
		run_queued(a, q);
		urgent = true;
		ran++;
	}
	if (start_bound(a, started, seq, &ran))
		urgent = true;
	for (q = a->todo; q && q->seq <= seq && !kick_spent(started, ran);
	     q = next) {
		next = q->next;
		if (urgent && !q->deferred) {
			q->deferred = true;
		} else {
			run_queued(a, q);
			ran++;
		}
	}
	if (a->todo)
		kick(a);
}

static void
on_runtime_change(void *arg, const char *ns, const char *name,
		  enum runtime_change what)
{
	struct agent *a = arg;
	struct queued_op *q;

	if (what == RUNTIME_STOPPED) {
		defer(a, AGENT_OP_FINISH_DELETE, ns, name);
		return;
	}
	q = defer(a, AGENT_OP_STATUS, ns, name);
	if (what == RUNTIME_READY_CHANGED && !q->urgent) {
		q->urgent = true;
		DL_APPEND2(a->urgent, q, uprev, unext);
	}
}

/* A pod of this node as the informer has it now. */
static void
pod_seen(struct agent *a, const struct object *o)
{
	const struct pod *p = o->obj;
	const char *uid = p->metadata.uid, *ns = p->metadata.namespace,
		   *name = p->metadata.name;

	if (uid == NULL || ns == NULL || name == NULL)
		return;
	/* A pod that ran before this agent started: take its processes
	 * back (live restore) before anything else happens to it. */
	if (!runtime_knows(a->rt, uid) && p->status.container_statuses.n)
		runtime_adopt(a->rt, p);
	if (p->metadata.deletion_timestamp) {
		/* First out of the endpoints (Ready=False is written), then
		 * SIGTERM: on the next loop turn. */
		runtime_unready(a->rt, uid);
		defer(a, AGENT_OP_TERMINATE, ns, name);
	} else {
		if (a->rt && !runtime_knows(a->rt, uid))
			a->to_start = true;
		defer(a, AGENT_OP_STATUS, ns,
		      name); /* starts what should run */
	}
}

/* Pods bound here, after the informer took the event (with a runtime),
 * or straight from the watch (without one, nothing is cached: a pod
 * being deleted has no process to stop, so its deletion is finished at
 * once). */
static void hollow_run(struct agent *a, json_t *pod);

#define REWATCH_MS 1000

/* Opens the pod watch of an agent without a runtime: the current pods
 * come first (as ADDED), then their changes. 0, or -1 if it could not
 * be opened (on_rewatch tries again). */
static void on_pod(void *arg, json_t *ev);
static void on_rewatch(uv_timer_t *t);

static int
watch_pods(struct agent *a)
{
	char path[256], query[600];
	struct client_resp r;

	kube_path(path, sizeof(path), KIND_POD, NULL, NULL, NULL);
	snprintf(query, sizeof(query),
		 "watch=true&fieldSelector=spec.nodeName%%3D%s", a->node);
	a->wpod = a->cfg.client->ops->watch(a->cfg.client, path, query, on_pod,
					    a, &r);
	client_resp_release(&r);
	return a->wpod ? 0 : -1;
}

/* The watch ended: it is opened again after REWATCH_MS and a random part
 * of it, so that a thousand agents that lost the control plane together
 * do not come back together. */
static void
rewatch_later(struct agent *a)
{
	unsigned char r;

	rand_bytes(&r, 1);
	uv_timer_start(&a->rewatch, on_rewatch,
		       REWATCH_MS + (uint64_t)REWATCH_MS * r / 256, 0);
}

static void
on_rewatch(uv_timer_t *t)
{
	struct agent *a = t->data;

	if (a->wpod)
		a->cfg.client->ops->unwatch(a->cfg.client, a->wpod);
	a->wpod = NULL;
	if (watch_pods(a))
		rewatch_later(a);
}

static void
on_pod(void *arg, json_t *ev)
{
	struct agent *a = arg;
	json_t *obj = json_object_get(ev, "object");
	json_t *md = json_object_get(obj, "metadata");
	const char *type = json_string_value(json_object_get(ev, "type"));
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	const char *uid = json_string_value(json_object_get(md, "uid"));
	bool deleting = json_object_get(md, "deletionTimestamp") != NULL;
	const struct object *o;

	if (ev == NULL && a->rt == NULL && a->wpod) {
		rewatch_later(a); /* the watch is closed from the timer */
		return;
	}
	if (ev == NULL || !type || !ns || !name || !uid)
		return;
	if (a->rt == NULL) {
		if (deleting && strcmp(type, "DELETED"))
			defer(a, AGENT_OP_FINISH_DELETE, ns, name);
		else if (a->cfg.hollow && !deleting && strcmp(type, "DELETED"))
			hollow_run(a, obj);
		return;
	}
	if (!strcmp(type, "DELETED")) {
		agent_services_forget(a->svc, uid);
		defer(a, AGENT_OP_KILL, uid, NULL);
		return;
	}
	if ((o = informer_find(a->pods, ns, name)) != NULL)
		pod_seen(a, o);
}

static void hollow_done(void *arg, struct client_resp *r);
static void hollow_next(struct agent *a);

static void
hollow_again(uv_timer_t *t)
{
	hollow_next(t->data);
}

/* Sends the next queued status patch of a hollow node, if none is under
 * way: one at a time, as a kubelet's status manager writes (a burst of
 * a hundred parallel requests from one client made as many TLS
 * handshakes at once, and the server refused them). */
static void
hollow_next(struct agent *a)
{
	json_t *item;

	if (a->hollow_busy || uv_is_active((uv_handle_t *)&a->hollow_retry) ||
	    a->hollow_q == NULL || json_array_size(a->hollow_q) == 0)
		return;
	item = json_array_get(a->hollow_q, 0);
	if (client_request_async(a->cfg.client, "PATCH",
				 json_string_value(json_array_get(item, 0)),
				 NULL, "application/merge-patch+json",
				 json_array_get(item, 1), hollow_done, a) == 0)
		a->hollow_busy = true;
	else
		log_warn("agent: a hollow pod's status was not sent");
}

/* The patch at the head went: the next. One that did not reach the
 * server (status 0) is sent again a second later; a refusal is dropped
 * (the pod's next event tries again). */
static void
hollow_done(void *arg, struct client_resp *r)
{
	struct agent *a = arg;

	a->hollow_busy = false;
	if (r->status == 0) { /* again in a second */
		uv_timer_start(&a->hollow_retry, hollow_again, 1000, 0);
		return;
	}
	if (json_array_size(a->hollow_q))
		json_array_remove(a->hollow_q, 0);
	hollow_next(a);
}

/* A hollow node (agent_config.hollow): a pod bound here is reported
 * running and ready at once, with every container started, as
 * Kubemark's hollow kubelet reports what its fake runtime runs. One
 * merge patch of the status, queued and sent without blocking (a fleet
 * of agents shares one loop); a pod that says Running and Ready already
 * is left alone. One marked not ready while its node was Ready Unknown
 * (the node lifecycle controller's MarkPodsNotReady) is reported again,
 * as the kubelet's status manager does once the node is back. */
static void
hollow_run(struct agent *a, json_t *pod)
{
	json_t *st = json_object_get(pod, "status"), *cs = json_array();
	json_t *conds = json_array(), *patch, *c;
	const char *phase = json_string_value(json_object_get(st, "phase"));
	const char *ns = json_string_value(
	    json_object_get(json_object_get(pod, "metadata"), "namespace"));
	const char *name = json_string_value(
	    json_object_get(json_object_get(pod, "metadata"), "name"));
	const char *addr =
	    a->cfg.node_address ? a->cfg.node_address : "127.0.0.1";
	static const char *const types[] = {"PodScheduled", "Initialized",
					    "ContainersReady", "Ready"};
	char now[40], path[600];
	size_t i;
	bool ready = false;

	json_array_foreach(json_object_get(st, "conditions"), i, c)
	{
		const char *t = json_string_value(json_object_get(c, "type"));
		const char *v = json_string_value(json_object_get(c, "status"));

		ready = ready ||
			(t && v && !strcmp(t, "Ready") && !strcmp(v, "True"));
	}
	if (phase && !strcmp(phase, "Running") && ready) {
		json_decref(cs);
		json_decref(conds);
		return;
	}
	/* whole seconds, as Kubernetes writes condition times */
	dtime_format(a->cfg.now() / DTIME_SEC(1) * DTIME_SEC(1), now);
	for (i = 0; i < sizeof(types) / sizeof(*types); i++)
		json_array_append_new(
		    conds, json_pack("{ss ss ss}", "type", types[i], "status",
				     "True", "lastTransitionTime", now));
	json_array_foreach(
	    json_object_get(json_object_get(pod, "spec"), "containers"), i, c)
	{
		const char *image =
		    json_string_value(json_object_get(c, "image"));

		json_array_append_new(
		    cs, json_pack("{ss ss ss sb sb si s{s{ss}}}", "name",
				  json_string_value(json_object_get(c, "name")),
				  "image", image ? image : "", "imageID", "",
				  "ready", 1, "started", 1, "restartCount", 0,
				  "state", "running", "startedAt", now));
	}
	patch = json_pack("{s{ss ss ss ss so so}}", "status", "phase",
			  "Running", "hostIP", addr, "podIP", addr, "startTime",
			  now, "conditions", conds, "containerStatuses", cs);
	kube_path(path, sizeof(path), KIND_POD, ns, name, "status");
	if (a->hollow_q == NULL)
		a->hollow_q = json_array();
	json_array_append_new(a->hollow_q, json_pack("[s o]", path, patch));
	hollow_next(a);
}

/* What an event would do, for every pod of the cache. */
static void
on_resync(uv_timer_t *t)
{
	struct agent *a = t->data;
	struct object **v;
	size_t n, i;

	if (a->pods == NULL)
		return;
	n = informer_list(a->pods, NULL, &v);
	for (i = 0; i < n; i++) {
		const struct object_meta *m = object_meta(v[i]);

		defer(a,
		      m->deletion_timestamp ? AGENT_OP_TERMINATE
					    : AGENT_OP_STATUS,
		      m->namespace, m->name);
	}
	free(v);
}

static bool
pod_exists(void *arg, const char *uid)
{
	struct object_list *pods = arg;
	size_t i;

	for (i = 0; i < pods->n; i++) {
		const char *u = object_meta(&pods->v[i])->uid;

		if (u && !strcmp(u, uid))
			return true;
	}
	return false;
}

struct agent *
agent_start(const struct agent_config *cfg)
{
	struct agent *a = xcalloc(1, sizeof(*a));
	struct object_list pods = {0};
	bool listed;
	size_t i;
	char query[600];

	a->cfg = *cfg;
	a->node = xstrdup(cfg->node_name);
	uv_check_init(cfg->loop, &a->kick);
	a->kick.data = a;
	turn_attach(cfg->loop);
	uv_idle_init(cfg->loop, &a->kick_idle);
	a->kick_idle.data = a;
	uv_timer_init(cfg->loop, &a->hollow_retry);
	a->hollow_retry.data = a;
	uv_timer_init(cfg->loop, &a->rewatch);
	a->rewatch.data = a;
	uv_timer_init(cfg->loop, &a->drain_timer);
	a->drain_timer.data = a;
	if (cfg->pod_dir) {
		struct runtime_config rc = {
		    .loop = cfg->loop,
		    .log_dir = cfg->pod_dir,
		    .node_name = a->node,
		    .address = cfg->node_address,
		    .now = cfg->now,
		    .changed = on_runtime_change,
		    .arg = a,
		    .port_lo = cfg->port_lo,
		    .port_hi = cfg->port_hi,
		    .sec = {cfg->default_user ? cfg->default_uid : -1,
			    cfg->default_user ? cfg->default_gid : -1},
		    .rec = event_broadcaster_recorder(cfg->events, "kubelet",
						      a->node),
		};

		a->rt = runtime_new(&rc);
	}
	if (register_node(a)) {
		log_error("agent: cannot register node %s", a->node);
		agent_stop(a);
		return NULL;
	}
	if (renew_lease(a))
		log_warn("agent: node %s: the Lease was not renewed", a->node);
	/* the kubelet's first Event, about its Node (whose uid it takes to
	 * be the node's name, as the kubelet does) */
	event_record(
	    event_broadcaster_recorder(cfg->events, "kubelet", a->node),
	    &(struct event_ref){
		.kind = "Node", .name = a->node, .uid = a->node},
	    "Normal", "Starting", "Starting kubelet.");
	uv_timer_init(cfg->loop, &a->heartbeat);
	a->heartbeat.data = a;
	uv_timer_start(&a->heartbeat, on_heartbeat,
		       cfg->heartbeat_ms ? cfg->heartbeat_ms : 10000,
		       cfg->heartbeat_ms ? cfg->heartbeat_ms : 10000);
	if (cfg->resync_ms > 0) {
		uv_timer_init(cfg->loop, &a->resync);
		a->resync.data = a;
		uv_timer_start(&a->resync, on_resync, (uint64_t)cfg->resync_ms,
			       (uint64_t)cfg->resync_ms);
	}
	/* One list of the pods at start: the host ports of this node's pods
	 * are held before anything can start (live restore keeps them; no
	 * new pod gets one), and after the watch has delivered them, the
	 * processes no pod accounts for are stopped (runtime_sweep). Only
	 * this agent starts processes, so the list cannot miss one. */
	snprintf(query, sizeof(query), "fieldSelector=spec.nodeName%%3D%s",
		 a->node);
	listed = a->rt && kube_list_query(cfg->client, KIND_POD, NULL, query,
					  &pods) == 0;
	for (i = 0; listed && i < pods.n; i++) {
		const struct pod *p = pods.v[i].obj;

		if (p->spec.node_name && !strcmp(p->spec.node_name, a->node))
			runtime_reserve(a->rt, p);
	}
	snprintf(query, sizeof(query), "spec.nodeName=%s", a->node);
	if (a->rt) {
		a->pods = informer_new_selected(cfg->client, cfg->loop,
						KIND_POD, query);
		if (a->pods == NULL)
			log_error("agent: node %s: cannot watch its pods",
				  a->node);
	}
	if (a->pods && cfg->proxy_socket) {
		struct agent_services_config sc = {
		    .loop = cfg->loop,
		    .client = cfg->client,
		    .node = a->node,
		    .address =
			cfg->node_address ? cfg->node_address : "127.0.0.1",
		    .socket = cfg->proxy_socket,
		    .log = cfg->proxy_log,
		    .revision = pod_revision,
		    .changed = on_drain_changed,
		    .arg = a,
		    .rec = event_broadcaster_recorder(cfg->events, "kube-proxy",
						      a->node),
		};

		a->svc = agent_services_start(&sc);
		if (a->svc == NULL)
			log_error("agent: node %s: cannot watch Services",
				  a->node);
	}
	if (a->pods) {
		struct object **v;
		size_t n;

		informer_subscribe(a->pods, on_pod, a);
		/* The pods the watch delivered at once, before the
		 * subscription. */
		n = informer_list(a->pods, NULL, &v);
		for (i = 0; i < n; i++)
			pod_seen(a, v[i]);
		free(v);
	} else if (a->rt == NULL && watch_pods(a)) {
		rewatch_later(a);
	}
	if (listed) {
		runtime_sweep(a->rt, pod_exists, &pods);
		object_list_release(&pods);
	}
	log_info("agent: node %s registered", a->node);
	return a;
}

static void
on_closed(uv_handle_t *h)
{
	struct agent *a = h->data;

	if (--a->closing)
		return;
	while (a->todo) {
		struct queued_op *q = a->todo;

		unqueue(a, q);
		free(q);
	}
	free(a->node);
	free(a);
}

void
agent_stop(struct agent *a)
{
	if (a == NULL)
		return;
	json_decref(a->hollow_q); /* what was not sent: the client's free
				     cancels the one under way */
	a->hollow_q = NULL;
	if (a->hb) { /* its answer is not to come */
		client_cancel(a->cfg.client, a->hb);
		free(a->hb);
		a->hb = NULL;
	}
	if (a->wpod)
		a->cfg.client->ops->unwatch(a->cfg.client, a->wpod);
	agent_services_stop(a->svc);
	informer_free(a->pods);
	if (a->rt)
		runtime_free(a->rt);
	a->closing = 5;
	turn_detach();
	uv_timer_stop(&a->rewatch);
	uv_close((uv_handle_t *)&a->rewatch, on_closed);
	uv_close((uv_handle_t *)&a->kick, on_closed);
	uv_close((uv_handle_t *)&a->kick_idle, on_closed);
	uv_timer_stop(&a->drain_timer);
	uv_close((uv_handle_t *)&a->drain_timer, on_closed);
	uv_timer_stop(&a->hollow_retry);
	uv_close((uv_handle_t *)&a->hollow_retry, on_closed);
	if (a->heartbeat.loop) {
		a->closing++;
		uv_timer_stop(&a->heartbeat);
		uv_close((uv_handle_t *)&a->heartbeat, on_closed);
	}
	if (a->resync.loop) {
		a->closing++;
		uv_timer_stop(&a->resync);
		uv_close((uv_handle_t *)&a->resync, on_closed);
	}
}

void
agent_metrics_collect(void *arg, struct strbuf *out)
{
	struct agent *a = arg;

	if (a)
		agent_services_metrics(a->svc, out);
}
