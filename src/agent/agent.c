/* agent.c - node registration, heartbeat, and the pod watch of one node
 * (see agent.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent.h"
#include "kube.h"
#include "log.h"
#include "xalloc.h"

struct agent {
	struct agent_config cfg;
	char *node;
	uv_timer_t heartbeat;
	struct client_watch *wpod;
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
	struct utsname un;
	char buf[128];

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
	strmap_set(&st->capacity, "pods", "110");
	strmap_set(&st->allocatable, "pods", "110");
	if (st->addresses.n == 0) {
		ad =
		    anylist_push((struct anylist *)&st->addresses, sizeof(*ad));
		ad->type = xstrdup("InternalIP");
		ad->address = xstrdup("127.0.0.1");
		ad =
		    anylist_push((struct anylist *)&st->addresses, sizeof(*ad));
		ad->type = xstrdup("Hostname");
		ad->address = xstrdup(a->node);
	}
	if (uname(&un) == 0 && st->node_info.kernel_version == NULL) {
		st->node_info.kernel_version = xstrdup(un.release);
		st->node_info.operating_system = xstrdup("linux");
		st->node_info.architecture = xstrdup(
		    !strcmp(un.machine, "x86_64") ? "amd64" : un.machine);
		st->node_info.kubelet_version = xstrdup("drover-agent");
		read_line("/etc/machine-id", buf, sizeof(buf));
		st->node_info.machine_id = xstrdup(buf);
		read_line("/proc/sys/kernel/random/boot_id", buf, sizeof(buf));
		st->node_info.boot_id = xstrdup(buf);
		st->node_info.os_image = xstrdup("Linux");
	}
}

/* Creates or refreshes the Node. */
static int
register_node(struct agent *a)
{
	struct object o;
	int r = kube_get(a->cfg.client, KIND_NODE, NULL, a->node, &o), st;

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
		return st == 201 ? 0 : -1;
	}
	fill_status(a, o.obj);
	st = kube_update(a->cfg.client, &o, "status");
	object_release(&o);
	return st == 200 ? 0 : -1;
}

static void
on_heartbeat(uv_timer_t *t)
{
	struct agent *a = t->data;

	if (register_node(a))
		log_warn("agent: node %s: heartbeat failed", a->node);
}

/* Pods bound here: with no runtime yet, a pod being deleted has no
 * process to stop, so its deletion is finished at once. */
static void
on_pod(void *arg, json_t *ev)
{
	struct agent *a = arg;
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *type = json_string_value(json_object_get(ev, "type"));
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	struct client_resp r;
	char path[600];

	if (ev == NULL || !type || !ns || !name || !strcmp(type, "DELETED") ||
	    json_object_get(md, "deletionTimestamp") == NULL)
		return;
	kube_path(path, sizeof(path), KIND_POD, ns, name, NULL);
	client_request(a->cfg.client, "DELETE", path, "gracePeriodSeconds=0",
		       NULL, NULL, &r);
	if (r.status != 200 && r.status != 404)
		log_warn("agent: finishing the deletion of %s/%s: HTTP %d", ns,
			 name, r.status);
	client_resp_release(&r);
}

struct agent *
agent_start(const struct agent_config *cfg)
{
	struct agent *a = xcalloc(1, sizeof(*a));
	struct client_resp r;
	char path[256], query[600];

	a->cfg = *cfg;
	a->node = xstrdup(cfg->node_name);
	if (register_node(a)) {
		log_error("agent: cannot register node %s", a->node);
		free(a->node);
		free(a);
		return NULL;
	}
	uv_timer_init(cfg->loop, &a->heartbeat);
	a->heartbeat.data = a;
	uv_timer_start(&a->heartbeat, on_heartbeat,
		       cfg->heartbeat_ms ? cfg->heartbeat_ms : 10000,
		       cfg->heartbeat_ms ? cfg->heartbeat_ms : 10000);
	kube_path(path, sizeof(path), KIND_POD, NULL, NULL, NULL);
	snprintf(query, sizeof(query),
		 "watch=true&fieldSelector=spec.nodeName%%3D%s", a->node);
	a->wpod =
	    cfg->client->ops->watch(cfg->client, path, query, on_pod, a, &r);
	client_resp_release(&r);
	log_info("agent: node %s registered", a->node);
	return a;
}

static void
on_closed(uv_handle_t *h)
{
	struct agent *a = h->data;

	free(a->node);
	free(a);
}

void
agent_stop(struct agent *a)
{
	if (a == NULL)
		return;
	a->cfg.client->ops->unwatch(a->cfg.client, a->wpod);
	uv_timer_stop(&a->heartbeat);
	uv_close((uv_handle_t *)&a->heartbeat, on_closed);
}
