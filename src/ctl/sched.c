/* sched.c - the scheduler: binds each pending pod to a node chosen by the
 * core's sched_pick(), through the pods/binding subresource, so that a
 * multi-host setup runs the same code. Pods that fit nowhere get a
 * PodScheduled=False/Unschedulable condition with kube-scheduler's
 * message, and are retried when nodes change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "kube.h"
#include "log.h"
#include "queue.h"
#include "sched.h"
#include "xalloc.h"

struct ctl_sched {
	struct ctl_config cfg;
	struct queue *q;
	struct client_watch *wpod, *wnode;
};

static bool
pending(json_t *pod)
{
	json_t *md = json_object_get(pod, "metadata");
	const char *node = json_string_value(
	    json_object_get(json_object_get(pod, "spec"), "nodeName"));

	return (node == NULL || !*node) &&
	       json_object_get(md, "deletionTimestamp") == NULL;
}

static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_sched *c = arg;
	json_t *obj = json_object_get(ev, "object");
	json_t *md = json_object_get(obj, "metadata");
	const char *type = json_string_value(json_object_get(ev, "type"));
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	char key[600];

	if (ev == NULL || !type || !ns || !name || !strcmp(type, "DELETED"))
		return;
	if (!pending(obj))
		return;
	ctl_key(key, sizeof(key), ns, name);
	queue_add(c->q, key);
}

/* Node changes: every pending pod may fit now. */
static void
on_node(void *arg, json_t *ev)
{
	struct ctl_sched *c = arg;
	struct object_list pods;
	char key[600];
	size_t i;

	if (ev == NULL || kube_list(c->cfg.client, KIND_POD, NULL, &pods))
		return;
	for (i = 0; i < pods.n; i++) {
		const struct pod *p = pods.v[i].obj;

		if ((p->spec.node_name && *p->spec.node_name) ||
		    p->metadata.deletion_timestamp)
			continue;
		ctl_key(key, sizeof(key), p->metadata.namespace,
			p->metadata.name);
		queue_add(c->q, key);
	}
	object_list_release(&pods);
}

static int
unschedulable(struct ctl_sched *c, struct object *po, const char *why)
{
	struct pod *p = po->obj;
	struct condition *cur =
	    condition_find(&p->status.conditions, "PodScheduled");
	struct condition cond = {.type = "PodScheduled",
				 .status = "False",
				 .reason = "Unschedulable",
				 .message = (char *)why,
				 .last_transition_time = c->cfg.now()};

	if (cur && cur->message && !strcmp(cur->message, why))
		return 0;
	condition_remove(&p->status.conditions, "PodScheduled");
	condition_append(&p->status.conditions, &cond);
	log_info("scheduler: %s/%s: %s", p->metadata.namespace,
		 p->metadata.name, why);
	return kube_update(c->cfg.client, po, "status") == 200 ? 0 : -1;
}

static bool
is_pending(const struct pod *p)
{
	return (p->spec.node_name == NULL || !*p->spec.node_name) &&
	       !p->metadata.deletion_timestamp;
}

static int
bind_pod(struct ctl_sched *c, const struct pod *p, const struct node *n)
{
	json_t *b =
	    json_pack("{sssss{ss}s{ssss}}", "apiVersion", "v1", "kind",
		      "Binding", "metadata", "name", p->metadata.name, "target",
		      "kind", "Node", "name", n->metadata.name);
	struct client_resp resp;
	char path[600];
	int r;

	kube_path(path, sizeof(path), KIND_POD, p->metadata.namespace,
		  p->metadata.name, "binding");
	client_request(c->cfg.client, "POST", path, NULL, NULL, b, &resp);
	json_decref(b);
	r = resp.status == 201 || resp.status == 409 ? 0 : -1;
	client_resp_release(&resp);
	return r;
}

/* Schedules the key's pod and, while the lists are at hand, every other
 * pending pod (one list per wave of new pods, not one per pod). */
static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_sched *c = arg;
	struct object_list nodes = {0}, pods = {0};
	const struct node **np;
	const struct pod **pp;
	char ns[256], name[256];
	size_t i, k;
	int r = 0;

	(void)requeue;
	if (ctl_split_key(key, ns, sizeof(ns), name, sizeof(name)))
		return 0;
	if (kube_list(c->cfg.client, KIND_NODE, NULL, &nodes) ||
	    kube_list(c->cfg.client, KIND_POD, NULL, &pods)) {
		object_list_release(&nodes);
		object_list_release(&pods);
		return -1;
	}
	np = xcalloc(nodes.n + 1, sizeof(*np));
	for (i = 0; i < nodes.n; i++)
		np[i] = nodes.v[i].obj;
	pp = xcalloc(pods.n + 1, sizeof(*pp));
	for (i = k = 0; i < pods.n; i++)
		if (!is_pending(pods.v[i].obj) &&
		    !((struct pod *)pods.v[i].obj)->metadata.deletion_timestamp)
			pp[k++] = pods.v[i].obj;
	for (i = 0; i < pods.n; i++) {
		struct pod *p = pods.v[i].obj;
		struct strbuf why = STRBUF_INIT;
		const struct node *chosen;

		if (!is_pending(p))
			continue;
		chosen =
		    sched_pick(&(struct sched_in){p, np, nodes.n, pp, k}, &why);
		if (chosen && bind_pod(c, p, chosen) == 0) {
			/* it counts for the spread of the next ones */
			free(p->spec.node_name);
			p->spec.node_name = xstrdup(chosen->metadata.name);
			pp[k++] = p;
		} else if (chosen) {
			r = -1;
		} else if (unschedulable(c, &pods.v[i], why.buf)) {
			r = -1;
		}
		strbuf_release(&why);
	}
	free(np);
	free(pp);
	object_list_release(&nodes);
	object_list_release(&pods);
	return r;
}

struct ctl_sched *
ctl_sched_start(const struct ctl_config *cfg)
{
	struct ctl_sched *c = xcalloc(1, sizeof(*c));
	struct client_resp r;
	char path[256];

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "scheduler", sync_one, c);
	kube_path(path, sizeof(path), KIND_POD, NULL, NULL, NULL);
	c->wpod = cfg->client->ops->watch(cfg->client, path, "watch=true",
					  on_pod, c, &r);
	client_resp_release(&r);
	kube_path(path, sizeof(path), KIND_NODE, NULL, NULL, NULL);
	c->wnode = cfg->client->ops->watch(cfg->client, path, "watch=true",
					   on_node, c, &r);
	client_resp_release(&r);
	if (!c->wpod || !c->wnode) {
		ctl_sched_stop(c);
		return NULL;
	}
	return c;
}

void
ctl_sched_stop(struct ctl_sched *c)
{
	if (c == NULL)
		return;
	c->cfg.client->ops->unwatch(c->cfg.client, c->wpod);
	c->cfg.client->ops->unwatch(c->cfg.client, c->wnode);
	queue_free(c->q);
	free(c);
}
