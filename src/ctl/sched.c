/* sched.c - the scheduler: binds each pending pod to a node chosen by the
 * core's sched_pick(), through the pods/binding subresource, so that a
 * multi-host setup runs the same code. Pods that fit nowhere get a
 * PodScheduled=False/Unschedulable condition with kube-scheduler's
 * message, and are retried when nodes change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "queue.h"
#include "placement.h"
#include "xalloc.h"

struct ctl_sched {
	struct ctl_config cfg;
	struct queue *q;
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

/* One key for the whole scheduler: a pass binds every pending pod. */
#define PASS_KEY "pending/pods"

static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_sched *c = arg;
	json_t *obj = json_object_get(ev, "object");
	const char *type = json_string_value(json_object_get(ev, "type"));

	if (ev && type && strcmp(type, "DELETED") && pending(obj))
		queue_add(c->q, PASS_KEY);
}

/* Node changes: every pending pod may fit now. */
static void
on_node(void *arg, json_t *ev)
{
	if (ev)
		queue_add(((struct ctl_sched *)arg)->q, PASS_KEY);
}

static int
unschedulable(struct ctl_sched *c, const struct pod *cached, const char *why)
{
	const struct condition *cur =
	    condition_get(&cached->status.conditions, "PodScheduled");
	struct condition cond = {.type = "PodScheduled",
				 .status = "False",
				 .reason = "Unschedulable",
				 .message = (char *)why,
				 .last_transition_time = c->cfg.now()};
	struct object po = {kind_by_id(KIND_POD), NULL};
	struct pod *p;
	int r;

	if (cur && cur->message && !strcmp(cur->message, why))
		return 0;
	p = xcalloc(1, sizeof(*p)); /* a copy: the cache is not ours */
	pod_copy(p, cached);
	po.obj = p;
	condition_remove(&p->status.conditions, "PodScheduled");
	condition_append(&p->status.conditions, &cond);
	log_info("scheduler: %s/%s: %s", p->metadata.namespace,
		 p->metadata.name, why);
	r = kube_update(c->cfg.client, &po, "status") == 200 ? 0 : -1;
	object_release(&po);
	return r;
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

/* A node's index in a pass, by name. */
struct node_ix {
	const char *name; /* the node cache's */
	size_t i;
	UT_hash_handle hh;
};

/* Binds every pending pod. The pods already bound to each node are
 * counted once per pass (the spread score), so a pass costs one look at
 * each pod however many are pending. */
static int
sync_locked(struct ctl_sched *c, bool *more)
{
	uint64_t started = uv_hrtime();
	struct object **nl, **pl;
	const struct node **np;
	struct node_ix *ix = NULL, *x, *tmp, *xs;
	int64_t *on;
	size_t nn, npods, i;
	int r = 0;

	nn = informer_list(c->cfg.nodes, NULL, &nl);
	npods = informer_list(c->cfg.pods, NULL, &pl);
	np = xcalloc(nn + 1, sizeof(*np));
	on = xcalloc(nn + 1, sizeof(*on));
	xs = xcalloc(nn + 1, sizeof(*xs));
	for (i = 0; i < nn; i++) {
		np[i] = nl[i]->obj;
		xs[i].name = np[i]->metadata.name ? np[i]->metadata.name : "";
		xs[i].i = i;
		HASH_ADD_KEYPTR(hh, ix, xs[i].name, strlen(xs[i].name), &xs[i]);
	}
	for (i = 0; i < npods; i++) {
		const struct pod *p = pl[i]->obj;

		if (is_pending(p) || p->metadata.deletion_timestamp)
			continue;
		HASH_FIND_STR(ix, p->spec.node_name, x);
		if (x)
			on[x->i]++;
	}
	for (i = 0; i < npods; i++) {
		const struct pod *p = pl[i]->obj;
		struct strbuf why = STRBUF_INIT;
		const struct node *chosen;

		if (!is_pending(p))
			continue;
		if (ctl_overtime(started)) {
			*more = true;
			break;
		}
		chosen = sched_pick(&(struct sched_in){p, np, nn, on}, &why);
		if (chosen && bind_pod(c, p, chosen) == 0) {
			/* it counts for the spread of the next ones */
			HASH_FIND_STR(ix, chosen->metadata.name, x);
			if (x)
				on[x->i]++;
		} else if (chosen) {
			r = -1;
		} else if (unschedulable(c, p, why.buf)) {
			r = -1;
		}
		strbuf_release(&why);
	}
	HASH_ITER(hh, ix, x, tmp)
	HASH_DEL(ix, x);
	free(xs);
	free(on);
	free(np);
	free(nl);
	free(pl);
	return r;
}

static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_sched *c = arg;
	int r;

	bool more = false;

	(void)key;
	ctl_hold(&c->cfg);
	r = sync_locked(c, &more);
	ctl_release(&c->cfg);
	if (r == 0 && more)
		*requeue = 0; /* the rest after the loop has polled */
	return r;
}

struct ctl_sched *
ctl_sched_start(const struct ctl_config *cfg)
{
	struct ctl_sched *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "scheduler", sync_one, c);
	informer_subscribe(cfg->pods, on_pod, c);
	informer_subscribe(cfg->nodes, on_node, c);
	return c;
}

void
ctl_sched_stop(struct ctl_sched *c)
{
	if (c == NULL)
		return;
	informer_unsubscribe(c->cfg.pods, c);
	informer_unsubscribe(c->cfg.nodes, c);
	queue_free(c->q);
	free(c);
}

void
ctl_sched_resync(struct ctl_sched *c)
{
	queue_add(c->q, PASS_KEY);
}
