/* disruption.c - the disruption controller: a shell over plan_pdb()
 * (src/core/plan/plan_pdb.h) that keeps every PodDisruptionBudget's
 * status, as kube-controller-manager's disruption controller does.
 *
 * Keys are "namespace/name" of budgets. What enqueues what:
 *  - a budget's event: its own key;
 *  - a pod's event: every budget of the pod's namespace whose selector
 *    matches the pod's labels (Kubernetes' getPdbForPod takes the first
 *    only, and warns of more: here each is kept right);
 *  - a ReplicaSet, Deployment or ReplicationController event: every
 *    budget of its namespace (its scale is an expected count; Kubernetes
 *    reads them through listers and catches up at the next pod event).
 *
 * A sync reads the namespace from the informers, plans, writes the
 * status through /status with the budget's resourceVersion (a conflict
 * is retried with back-off, and is no sync failure), records the Events
 * (NoPods, UnmanagedPods, CalculateExpectedPodCountFailed on the budget;
 * NotDeleted on a pod an eviction let go that was not deleted within 2
 * minutes) and looks again when the first disruptedPods entry expires.
 *
 * A second queue keeps pods keyed by "namespace/name": one whose
 * DisruptionTarget condition an eviction set True but that was not
 * deleted gets it set False 2 minutes later (syncStalePodDisruption). */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "labels.h"
#include "log.h"
#include "plan_pdb.h"
#include "queue.h"
#include "xalloc.h"

struct ctl_disruption {
	struct ctl_config cfg;
	struct queue *q;
	struct queue *stale;  /* pods whose DisruptionTarget may be stale */
	struct recorder *rec; /* "controllermanager"; NULL: none */
};

static void
on_pdb(void *arg, json_t *ev)
{
	ctl_enqueue_object(((struct ctl_disruption *)arg)->q, ev);
}

/* Every budget of namespace ns, or those whose selector matches labels
 * (labels NULL: all). */
static void
enqueue_ns(struct ctl_disruption *c, const char *ns,
	   const struct strmap *labels)
{
	struct object **l;
	size_t i, n = informer_list(c->cfg.pdbs, ns, &l);
	char key[600];

	for (i = 0; i < n; i++) {
		const struct pod_disruption_budget *p = l[i]->obj;

		if (labels && (p->spec.selector == NULL ||
			       !selector_matches(p->spec.selector, labels)))
			continue;
		queue_key(key, sizeof(key), ns, p->metadata.name);
		queue_add(c->q, key);
	}
	free(l);
}

static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_disruption *c = arg;
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	json_t *labels = json_object_get(md, "labels"), *v;
	const struct object *po;
	struct strmap lm = {0};
	const char *k;
	int64_t wait;
	char key[600];

	if (ns == NULL)
		return;
	/* a DisruptionTarget left True on a pod that goes on running */
	if (name && (po = informer_find(c->cfg.pods, ns, name)) &&
	    pdb_stale_disruption(po->obj, c->cfg.now(), &wait)) {
		queue_key(key, sizeof(key), ns, name);
		queue_add_after(c->stale, key, wait);
	}
	if (informer_count(c->cfg.pdbs) == 0)
		return; /* no budget to enqueue: the common case, kept cheap */
	json_object_foreach(labels, k, v)
	{
		if (json_is_string(v))
			strmap_set(&lm, k, json_string_value(v));
	}
	enqueue_ns(c, ns, &lm);
	strmap_release(&lm);
}

static void
on_controller(void *arg, json_t *ev)
{
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));

	if (ns && informer_count(((struct ctl_disruption *)arg)->cfg.pdbs))
		enqueue_ns(arg, ns, NULL);
}

/* The typed objects of an informer's namespace, in an array the caller
 * frees (NULL-ended). */
static void *
typed(struct informer *inf, const char *ns, size_t *n)
{
	struct object **l;
	void **v;
	size_t i;

	*n = informer_list(inf, ns, &l);
	v = xcalloc(*n + 1, sizeof(*v));
	for (i = 0; i < *n; i++)
		v[i] = l[i]->obj;
	free(l);
	return v;
}

static void
record(struct ctl_disruption *c, const struct object *pdb,
       const struct pdb_plan *out, const char *ns)
{
	const struct pod_disruption_budget *p = pdb->obj;
	size_t i;

	if (c->rec == NULL)
		return;
	if (out->error)
		event_record_object(c->rec, pdb, NULL, "Warning",
				    "CalculateExpectedPodCountFailed",
				    "Failed to calculate the number of "
				    "expected pods: %s",
				    out->error);
	if (out->no_pods)
		event_record_object(c->rec, pdb, NULL, "Normal", "NoPods",
				    "No matching pods found");
	if (out->unmanaged.n) {
		struct strbuf sb = STRBUF_INIT;

		pdb_unmanaged_message(p, &sb);
		event_record_object(c->rec, pdb, NULL, "Warning",
				    "UnmanagedPods", "%s", sb.buf);
		strbuf_release(&sb);
	}
	for (i = 0; i < out->not_deleted.n; i++) {
		const struct object *pod =
		    informer_find(c->cfg.pods, ns, out->not_deleted.v[i]);

		/* Kubernetes names the namespace twice (its format string
		 * is given pdb.Namespace for both); so does drover. */
		if (pod)
			event_record_object(c->rec, pod, NULL, "Warning",
					    "NotDeleted",
					    "Pod was expected by PDB %s/%s to "
					    "be deleted but it wasn't",
					    ns, ns);
	}
}

static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_disruption *c = arg;
	const struct object *po;
	struct pdb_world w = {0};
	struct pdb_plan out;
	void *pods, *rss, *deps, *rcs;
	char ns[256], name[256];
	int r = 0;

	if (queue_split_key(key, ns, sizeof(ns), name, sizeof(name)) ||
	    (po = informer_find(c->cfg.pdbs, ns, name)) == NULL)
		return 0; /* gone: nothing to keep */
	w.pdb = po->obj;
	w.pods = pods = typed(c->cfg.pods, ns, &w.npods);
	w.rses = rss = typed(c->cfg.rss, ns, &w.nrs);
	w.deps = deps = typed(c->cfg.deploys, ns, &w.ndeps);
	w.rcs = rcs = typed(c->cfg.rcs, ns, &w.nrcs);
	w.now = c->cfg.now();
	plan_pdb(&w, &out);
	record(c, po, &out, ns);
	if (out.write) {
		struct pod_disruption_budget nw;
		struct object o = {po->k, &nw};
		int st;

		pdb_copy(&nw, w.pdb);
		pdb_status_release(&nw.status);
		pdb_status_copy(&nw.status, &out.status);
		st = kube_update(c->cfg.client, &o, "status");
		pdb_release(&nw);
		if (st == 409) {
			r = -1; /* a newer budget: again, from the cache */
		} else if (st != 200) {
			log_warn("disruption %s: write status: HTTP %d", key,
				 st);
			r = -1;
		}
	}
	if (r == 0 && out.recheck_ms >= 0)
		*requeue = out.recheck_ms;
	plan_pdb_release(&out);
	free(pods);
	free(rss);
	free(deps);
	free(rcs);
	return r;
}

/* syncStalePodDisruption: the condition set False (its reason and
 * message cleared, lastTransitionTime now) once 2 minutes have passed
 * without a deletion. */
static int
sync_stale(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_disruption *c = arg;
	const struct object *po;
	struct pod np;
	struct object o;
	struct condition *cond;
	char ns[256], name[256];
	int64_t wait;
	int st;

	if (queue_split_key(key, ns, sizeof(ns), name, sizeof(name)) ||
	    (po = informer_find(c->cfg.pods, ns, name)) == NULL ||
	    !pdb_stale_disruption(po->obj, c->cfg.now(), &wait))
		return 0;
	if (wait > 0) {
		*requeue = wait;
		return 0;
	}
	pod_copy(&np, po->obj);
	cond = condition_find(&np.status.conditions, "DisruptionTarget");
	free(cond->status);
	cond->status = xstrdup("False");
	free(cond->reason);
	cond->reason = NULL;
	free(cond->message);
	cond->message = NULL;
	cond->last_transition_time = c->cfg.now();
	o = (struct object){po->k, &np};
	st = kube_update(c->cfg.client, &o, "status");
	pod_release(&np);
	if (st == 200)
		log_info("disruption: pod %s: reset a stale DisruptionTarget "
			 "condition to False",
			 key);
	return st == 200 || st == 404 ? 0 : -1;
}

struct ctl_disruption *
ctl_disruption_start(const struct ctl_config *cfg)
{
	struct ctl_disruption *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	c->q = queue_new(cfg->loop, "disruption", sync_one, c);
	queue_set_settle(c->q, cfg->settle, cfg->settle_arg);
	c->stale = queue_new(cfg->loop, "stale_pod_disruption", sync_stale, c);
	c->rec =
	    event_broadcaster_recorder(cfg->events, "controllermanager", NULL);
	informer_subscribe(cfg->pdbs, on_pdb, c);
	informer_subscribe(cfg->pods, on_pod, c);
	informer_subscribe(cfg->rss, on_controller, c);
	informer_subscribe(cfg->deploys, on_controller, c);
	informer_subscribe(cfg->rcs, on_controller, c);
	return c;
}

void
ctl_disruption_stop(struct ctl_disruption *c)
{
	if (c == NULL)
		return;
	informer_unsubscribe(c->cfg.pdbs, c);
	informer_unsubscribe(c->cfg.pods, c);
	informer_unsubscribe(c->cfg.rss, c);
	informer_unsubscribe(c->cfg.deploys, c);
	informer_unsubscribe(c->cfg.rcs, c);
	queue_free(c->q);
	queue_free(c->stale);
	free(c);
}

void
ctl_disruption_resync(struct ctl_disruption *c)
{
	ctl_enqueue_all(c->cfg.pdbs, c->q);
}
