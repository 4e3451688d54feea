/* rs.c - the ReplicaSet controller, and the ReplicationController
 * controller: one shell over plan_rs(), started once per kind.
 *
 * A ReplicationController is planned as the ReplicaSet it behaves as
 * (rc_as_replicaset: its label map becomes selector.matchLabels, kind
 * "ReplicationController"), so plan_rs matches and creates its pods with
 * a v1 ReplicationController ownerReference, and its status is written
 * to the RC itself (the status structs are the same). Example: RC web
 * {replicas 3, selector {app: web}} with 2 pods → one pod created,
 * generateName "web-", ownerReferences [{kind ReplicationController,
 * name web, controller true}].
 *
 * ReplicaSet events enqueue their own key; pod events enqueue the
 * controlling ReplicaSet (orphans: every ReplicaSet of the namespace, which
 * may adopt them). New pods are created with generateName, as Kubernetes
 * does; the victims plan_rs ranks first are deleted; pods whose labels
 * no longer match are released (their ownerReference to it removed).
 *
 * Huge counts. A plan reads every pod of the ReplicaSet (through the
 * facts the pod cache keeps, pod_facts.h) and asks for at most 500
 * creations or deletions; writing those, and committing them to disk at
 * the end of the loop turn, costs more than the plan. So the controller
 * writes at most RS_WRITES_PER_TURN pods a loop turn (a sync stops sooner
 * at CTL_SYNC_BUDGET_MS), and what is left of a plan is carried to the
 * next syncs, which write without planning again, as Kubernetes'
 * expectations hold a ReplicaSet's next plan back until the last one's
 * writes are seen. A plan that took longer than half the budget is
 * carried out from the next sync on, after the loop has polled. Worked
 * example, scaling 100,000 pods to 0 on two cores: at 90,000 pods the
 * plan (about 40 ms) picks 500 victims; ten turns of 50 deletions follow
 * (about 5 ms each, plus the commit and the delivery of their events), and
 * the API is answered between all of them. (At 100 a turn, and a sync
 * budget of 20 ms, a turn of the scheduler's bindings, the Events and a
 * ReplicaSet's 100 creations with their deliveries took 75 ms, and GET
 * /version waited up to 0.11 s.)
 *
 * A carried plan is dropped when the ReplicaSet changes (uid, generation,
 * replicas, deletion) or a write fails; a victim that is gone or was
 * replaced by a pod of the same name is skipped.
 *
 * Expectations (Kubernetes' ControllerExpectations). The pod cache gets
 * the events of this controller's writes only after the loop turn's
 * commit (informer.h), so a sync that ran right after the last part of a
 * plan would see too few pods and create them again. Each creation and
 * deletion written is expected back as an event (an ADDED pod of the
 * ReplicaSet; the victim's uid with a deletionTimestamp, or DELETED);
 * until all have come, or EXPECT_TIMEOUT_MS has passed since the last
 * write, the ReplicaSet is not planned again. Example: the last 100
 * creations of a plan are written in a check phase; a resync timer fires
 * before the next commit; its sync sees 100 creations expected and does
 * nothing; the commit delivers the 100 ADDED events, the last of which
 * clears the expectations and queues the ReplicaSet, whose next sync
 * sees every pod. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "ctl.h"
#include "informer.h"
#include "kube.h"
#include "log.h"
#include "plan_rs.h"
#include "pod_facts.h"
#include "queue.h"
#include "xalloc.h"

/* Pods written in one loop turn at most (a turn ends with the group
 * commit, before the loop polls): about what a small machine writes and
 * commits in CTL_SYNC_BUDGET_MS. Counted per turn, not per sync: a key
 * can be synced twice between two commits (after the poll, and again
 * when the events of its own writes come back). */
#define RS_WRITES_PER_TURN 50

/* Kubernetes' ExpectationsTimeout: an expectation that is never met (an
 * event lost anyhow) holds a ReplicaSet back no longer than this. */
#define EXPECT_TIMEOUT_MS (5 * 60 * 1000)

/* A pod uid whose deletion is expected to come back. */
struct uid_seen {
	char *uid;
	UT_hash_handle hh;
};

/* What a ReplicaSet's writes are expected to bring back as events. */
struct expect {
	char *key;             /* "ns/name" of the ReplicaSet */
	int64_t adds;          /* pods created, not seen yet */
	struct uid_seen *dels; /* pods deleted, not seen going yet */
	uint64_t last_ms;      /* uv_now() at the last write */
	UT_hash_handle hh;     /* in ctl_rs.expects */
};

/* The rest of a plan, carried to the next syncs of its ReplicaSet. */
struct carried {
	char *key; /* "ns/name" of the ReplicaSet */
	char *uid; /* the ReplicaSet it was planned for */
	int64_t generation, replicas;
	int64_t create;     /* creations left */
	char **victims;     /* names of the pods to delete, worst first */
	char **victim_uids; /* their uids */
	size_t nvictims;
	size_t next;       /* the first victim not yet deleted */
	UT_hash_handle hh; /* in ctl_rs.carried */
};

struct ctl_rs {
	struct ctl_config cfg;
	enum kind_id kind;     /* KIND_REPLICASET or _REPLICATION_CONTROLLER */
	const char *kind_name; /* "ReplicaSet", "ReplicationController" */
	struct informer *owners; /* cfg.rss or cfg.rcs */
	struct queue *q;
	struct carried *carried; /* by key */
	struct expect *expects;  /* by key */
	uv_prepare_t turn;       /* ends a loop turn: writes = 0 */
	int writes;              /* pods written in this turn */
	struct recorder *rec;    /* "replicaset-controller"; NULL: none */
};

static void
carried_free(struct ctl_rs *c, struct carried *cp)
{
	size_t i;

	if (cp == NULL)
		return;
	HASH_DEL(c->carried, cp);
	for (i = 0; i < cp->nvictims; i++) {
		free(cp->victims[i]);
		free(cp->victim_uids[i]);
	}
	free(cp->victims);
	free(cp->victim_uids);
	free(cp->key);
	free(cp->uid);
	free(cp);
}

static void
expect_free(struct ctl_rs *c, struct expect *x)
{
	struct uid_seen *u, *tmp;

	HASH_DEL(c->expects, x);
	HASH_ITER(hh, x->dels, u, tmp)
	{
		HASH_DEL(x->dels, u);
		free(u->uid);
		free(u);
	}
	free(x->key);
	free(x);
}

static struct expect *
expect_of(struct ctl_rs *c, const char *key)
{
	struct expect *x;

	HASH_FIND_STR(c->expects, key, x);
	if (x == NULL) {
		x = xcalloc(1, sizeof(*x));
		x->key = xstrdup(key);
		HASH_ADD_KEYPTR(hh, c->expects, x->key, strlen(x->key), x);
	}
	x->last_ms = uv_now(c->cfg.loop);
	return x;
}

static void
expect_delete(struct ctl_rs *c, const char *key, const char *uid)
{
	struct expect *x = expect_of(c, key);
	struct uid_seen *u;

	HASH_FIND_STR(x->dels, uid, u);
	if (u)
		return;
	u = xcalloc(1, sizeof(*u));
	u->uid = xstrdup(uid);
	HASH_ADD_KEYPTR(hh, x->dels, u->uid, strlen(u->uid), u);
}

/* Every write of key has come back, or the wait is over (and then the
 * expectations are dropped). */
static bool
expect_met(struct ctl_rs *c, const char *key)
{
	struct expect *x;

	HASH_FIND_STR(c->expects, key, x);
	if (x == NULL)
		return true;
	if ((x->adds > 0 || x->dels) &&
	    uv_now(c->cfg.loop) - x->last_ms < EXPECT_TIMEOUT_MS)
		return false;
	expect_free(c, x);
	return true;
}

/* A pod event meets what its ReplicaSet expected of it. */
static void
expect_observe(struct ctl_rs *c, json_t *ev)
{
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *md = json_object_get(json_object_get(ev, "object"), "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *uid = json_string_value(json_object_get(md, "uid"));
	json_t *r;
	struct expect *x = NULL;
	struct uid_seen *u;
	char key[600];
	size_t i;

	if (c->expects == NULL || type == NULL || ns == NULL)
		return;
	json_array_foreach(json_object_get(md, "ownerReferences"), i, r)
	{
		const char *kind =
		    json_string_value(json_object_get(r, "kind"));
		const char *name =
		    json_string_value(json_object_get(r, "name"));

		if (json_is_true(json_object_get(r, "controller")) && kind &&
		    name && !strcmp(kind, c->kind_name)) {
			queue_key(key, sizeof(key), ns, name);
			HASH_FIND_STR(c->expects, key, x);
		}
	}
	if (x == NULL)
		return;
	if (!strcmp(type, "ADDED") && x->adds > 0)
		x->adds--;
	if (uid && (!strcmp(type, "DELETED") ||
		    json_object_get(md, "deletionTimestamp"))) {
		HASH_FIND_STR(x->dels, uid, u);
		if (u) {
			HASH_DEL(x->dels, u);
			free(u->uid);
			free(u);
		}
	}
	if (x->adds <= 0 && x->dels == NULL)
		expect_free(c, x);
}

/* The carried plan of key, if it was made for rs as it is now. */
static struct carried *
carried_for(struct ctl_rs *c, const char *key, const struct replicaset *rs)
{
	struct carried *cp;

	HASH_FIND_STR(c->carried, key, cp);
	if (cp && (strcmp(cp->uid, rs->metadata.uid ? rs->metadata.uid : "") ||
		   cp->generation != rs->metadata.generation ||
		   cp->replicas != rs_replicas(rs) ||
		   rs->metadata.deletion_timestamp != DTIME_UNSET)) {
		carried_free(c, cp);
		cp = NULL;
	}
	return cp;
}

/* Keeps what plan_rs asked to create and delete (copies of the names). */
static struct carried *
carry(struct ctl_rs *c, const char *key, const struct replicaset *rs,
      const struct plan_rs_out *out)
{
	struct carried *cp = xcalloc(1, sizeof(*cp));
	size_t i;

	cp->key = xstrdup(key);
	cp->uid = xstrdup(rs->metadata.uid ? rs->metadata.uid : "");
	cp->generation = rs->metadata.generation;
	cp->replicas = rs_replicas(rs);
	cp->create = out->create;
	cp->nvictims = out->nvictims;
	cp->victims = xcalloc(out->nvictims + 1, sizeof(char *));
	cp->victim_uids = xcalloc(out->nvictims + 1, sizeof(char *));
	for (i = 0; i < out->nvictims; i++) {
		const struct object_meta *m = &out->victims[i]->metadata;

		cp->victims[i] = xstrdup(m->name ? m->name : "");
		cp->victim_uids[i] = xstrdup(m->uid ? m->uid : "");
	}
	HASH_ADD_KEYPTR(hh, c->carried, cp->key, strlen(cp->key), cp);
	return cp;
}

static bool
carried_done(const struct carried *cp)
{
	return cp->create == 0 && cp->next == cp->nvictims;
}

/* Writes the next part of a carried plan: creations, then deletions,
 * stopping at the first failure (Kubernetes' slow start stops at the
 * first failed batch), at RS_WRITES_PER_TURN and at CTL_SYNC_BUDGET_MS.
 * Returns 0 or the failed HTTP status. */
static int
carry_out(struct ctl_rs *c, const struct replicaset *rs, struct carried *cp)
{
	uint64_t started = uv_hrtime();
	const char *ns = rs->metadata.namespace;
	struct object rso = {kind_by_id(KIND_REPLICASET), (void *)rs};
	char key[600];
	int n = 0, st;

	queue_key(key, sizeof(key), ns, rs->metadata.name);
	while (cp->create > 0 && c->writes < RS_WRITES_PER_TURN &&
	       !(n && ctl_overtime(started))) {
		struct object po = {kind_by_id(KIND_POD), NULL};

		po.obj = xcalloc(1, sizeof(struct pod));
		rs_new_pod(rs, po.obj);
		st = kube_create(c->cfg.client, &po);
		if (st == 201)
			event_record_object(
			    c->rec, &rso, NULL, "Normal", "SuccessfulCreate",
			    "Created pod: %s", object_meta(&po)->name);
		else
			event_record_object(c->rec, &rso, NULL, "Warning",
					    "FailedCreate",
					    "Error creating: HTTP %d", st);
		object_release(&po);
		if (st != 201)
			return st;
		expect_of(c, key)->adds++;
		cp->create--;
		c->writes++;
		n++;
	}
	while (cp->next < cp->nvictims && c->writes < RS_WRITES_PER_TURN &&
	       !(n && ctl_overtime(started))) {
		const char *name = cp->victims[cp->next];
		const struct object *o = informer_find(c->cfg.pods, ns, name);
		const char *uid = o ? object_meta(o)->uid : NULL;

		cp->next++;
		/* gone, or another pod by that name now: not a victim */
		if (!uid || strcmp(uid, cp->victim_uids[cp->next - 1]))
			continue;
		st = kube_delete(c->cfg.client, KIND_POD, ns, name);
		if (st == 200)
			event_record_object(c->rec, &rso, NULL, "Normal",
					    "SuccessfulDelete",
					    "Deleted pod: %s", name);
		else if (st != 404)
			event_record_object(c->rec, &rso, NULL, "Warning",
					    "FailedDelete",
					    "Error deleting: HTTP %d", st);
		if (st != 200 && st != 404)
			return st;
		if (st == 200)
			expect_delete(c, key, uid);
		c->writes++;
		n++;
	}
	return 0;
}

/* Writes status into the ReplicaSet rso (the cache's copy, which may be
 * behind a write of this turn: the Deployment controller's scale, our own
 * last status): on a 409, once more on the API's copy, as Kubernetes'
 * updateReplicaSetStatus does. Takes status. 0 or the HTTP status. */
static int
write_status(struct ctl_rs *c, struct object *rso,
	     struct replicaset_status *status)
{
	const struct kind_info *k = kind_by_id(c->kind);
	const struct schema *sch = kind_status_schema(k);
	struct replicaset_status *rs = kind_status(k, rso->obj);
	const struct object_meta *m = object_meta(rso);
	struct object fresh;
	int st;

	schema_release(sch, rs);
	schema_copy(sch, rs, status);
	st = kube_update(c->cfg.client, rso, "status");
	if (st == 409 && kube_get(c->cfg.client, c->kind, m->namespace, m->name,
				  &fresh) == 0) {
		struct replicaset_status *f = kind_status(k, fresh.obj);

		schema_release(sch, f);
		schema_copy(sch, f, status);
		st = kube_update(c->cfg.client, &fresh, "status");
		object_release(&fresh);
	}
	schema_release(sch, status);
	memset(status, 0, sizeof(*status));
	return st == 200 ? 0 : st;
}

static void
on_rs(void *arg, json_t *ev)
{
	ctl_enqueue_object(((struct ctl_rs *)arg)->q, ev);
}

static void
on_pod(void *arg, json_t *ev)
{
	struct ctl_rs *c = arg;

	expect_observe(c, ev);
	ctl_enqueue_owner(c->owners, c->q, ev, c->kind_name);
}

/* The informer's derive function for pods: their facts (pod_facts.h). */
static void *
derive_facts(const struct object *o)
{
	struct pod_facts *f = xmalloc(sizeof(*f));

	pod_facts_init(f, o->obj);
	return f;
}

/* Plans one step for rs from its pods and the orphans it may adopt. */
static void
plan(struct ctl_rs *c, const struct replicaset *rs, const char *ns,
     struct plan_rs_out *out)
{
	struct object **cache, **orphans;
	struct plan_rs_in in = {0};
	const struct pod_facts **pf;
	const struct pod **pp;
	size_t i, nmine, norph;

	/* Its own pods and the orphans it may adopt: nothing else of the
	 * namespace can matter to plan_rs. */
	nmine = informer_dependents(c->cfg.pods, rs->metadata.uid, ns, &cache);
	norph = informer_dependents(c->cfg.pods, NULL, ns, &orphans);
	pp = xcalloc(nmine + norph + 1, sizeof(*pp));
	pf = xcalloc(nmine + norph + 1, sizeof(*pf));
	for (i = 0; i < nmine; i++) {
		pf[in.npods] = informer_derived(c->cfg.pods, cache[i]);
		pp[in.npods++] = cache[i]->obj;
	}
	for (i = 0; i < norph; i++)
		if (!meta_has_owner(object_meta(orphans[i]),
				    rs->metadata.uid)) {
			pf[in.npods] =
			    informer_derived(c->cfg.pods, orphans[i]);
			pp[in.npods++] = orphans[i]->obj; /* not twice */
		}
	free(cache);
	free(orphans);
	in.rs = rs;
	in.pods = pp;
	in.facts = pf;
	in.now = c->cfg.now();
	plan_rs(&in, out);
	free(pp);
	free(pf);
}

/* Writes a copy of pod (the cache is not ours to change) with a
 * controller reference to rs (own) or without its references to rs: the
 * update's status. */
static int
write_owner(struct ctl_rs *c, const struct replicaset *rs,
	    const struct pod *pod, bool own)
{
	struct object po = {kind_by_id(KIND_POD), NULL};
	struct pod *p = xcalloc(1, sizeof(*p));
	struct owner_ref *ref;
	int st;

	pod_copy(p, pod);
	po.obj = p;
	if (own) {
		ref = anylist_push(
		    (struct anylist *)&p->metadata.owner_references,
		    sizeof(*ref));
		rs_controller_ref(rs, ref);
	} else {
		meta_remove_owner_refs(&p->metadata, rs_owner_kind(rs),
				       rs->metadata.uid, rs->metadata.name);
	}
	st = kube_update(c->cfg.client, &po, NULL);
	object_release(&po);
	return st;
}

/* Claims what plan_rs chose: adopts the orphans, releases the pods whose
 * labels no longer match (ClaimPods' release patch removes the reference).
 * A released pod already gone is no failure (Kubernetes ignores a 404
 * there too); any other failure is, and the sync is retried. */
static int
claim(struct ctl_rs *c, const struct replicaset *rs,
      const struct plan_rs_out *out)
{
	size_t i;
	int st, fail = 0;

	for (i = 0; i < out->nadopt; i++)
		if ((st = write_owner(c, rs, out->adopt[i], true)) != 200)
			fail = st;
	for (i = 0; !fail && i < out->nrelease; i++)
		if ((st = write_owner(c, rs, out->release[i], false)) != 200 &&
		    st != 404)
			fail = st;
	return fail;
}

/* The ReplicaSet rso stands for: itself, or an RC's view in *view. */
static struct replicaset *
as_replicaset(struct ctl_rs *c, const struct object *rso,
	      struct replicaset *view)
{
	if (c->kind == KIND_REPLICASET)
		return rso->obj;
	rc_as_replicaset(rso->obj, view);
	return view;
}

static int
sync_one(void *arg, const char *key, int64_t *requeue)
{
	struct ctl_rs *c = arg;
	struct object rso;
	struct plan_rs_out out;
	struct replicaset *rs, view = {0};
	struct carried *cp;
	char ns[256], name[256];
	uint64_t started;
	int fail = 0;

	if (queue_split_key(key, ns, sizeof(ns), name, sizeof(name)))
		return 0;
	/* From the cache: a stale copy would only make the status write
	 * fail with 409. */
	if (informer_get(c->owners, ns, name, &rso)) {
		struct expect *x;

		HASH_FIND_STR(c->carried, key, cp);
		carried_free(c, cp);
		HASH_FIND_STR(c->expects, key, x);
		if (x)
			expect_free(c, x);
		return 0; /* deleted */
	}
	rs = as_replicaset(c, &rso, &view);
	if ((cp = carried_for(c, key, rs)) != NULL) {
		/* the rest of the last plan first; then a new plan */
		fail = carry_out(c, rs, cp);
		if (fail || carried_done(cp))
			carried_free(c, cp);
		if (fail)
			log_warn("%s %s: HTTP %d", c->kind_name, key, fail);
		else
			*requeue = 0;
		goto done;
	}
	if (!expect_met(c, key)) {
		/* The cache is behind this controller's writes: the events
		 * that meet the expectations queue the key again. */
		goto done;
	}
	started = uv_hrtime();
	plan(c, rs, ns, &out);
	fail = claim(c, rs, &out);
	if (!fail && (out.create || out.nvictims)) {
		cp = carry(c, key, rs, &out);
		/* A long plan has had its share of this turn. */
		if (!queue_overtime_ms(started, CTL_SYNC_BUDGET_MS / 2))
			fail = carry_out(c, rs, cp);
		if (fail || carried_done(cp))
			carried_free(c, cp);
		else
			*requeue = 0;
	}
	if (!fail && out.status_changed)
		fail = write_status(c, &rso, &out.status);
	if (fail)
		log_warn("%s %s: HTTP %d", c->kind_name, key, fail);
	else if (out.create || out.nvictims)
		log_debug("%s %s: planned %lld creations, %zu deletions",
			  c->kind_name, key, (long long)out.create,
			  out.nvictims);
	if (!fail && out.requeue_after_ms >= 0 && *requeue != 0)
		*requeue = out.requeue_after_ms;
	/* More to create or delete than one burst: plan again at once
	 * (after the loop has polled). */
	if (!fail && (out.create == RS_BURST_REPLICAS ||
		      out.nvictims == RS_BURST_REPLICAS))
		*requeue = 0;
	plan_rs_out_release(&out);
done:
	if (rs == &view)
		replicaset_release(&view);
	object_release(&rso);
	return fail ? -1 : 0;
}

static void
free_rs(uv_handle_t *h)
{
	free(h->data);
}

static void
on_turn(uv_prepare_t *h)
{
	((struct ctl_rs *)h->data)->writes = 0;
}

static struct ctl_rs *
start(const struct ctl_config *cfg, enum kind_id kind)
{
	struct ctl_rs *c = xcalloc(1, sizeof(*c));

	c->cfg = *cfg;
	c->kind = kind;
	c->kind_name = kind_by_id(kind)->kind;
	c->owners = kind == KIND_REPLICASET ? cfg->rss : cfg->rcs;
	c->q = queue_new(cfg->loop, kind_by_id(kind)->singular, sync_one, c);
	queue_set_settle(c->q, cfg->settle, cfg->settle_arg);
	c->rec = event_broadcaster_recorder(cfg->events,
					    kind == KIND_REPLICASET
						? "replicaset-controller"
						: "replication-controller",
					    NULL);
	uv_prepare_init(cfg->loop, &c->turn);
	c->turn.data = c;
	uv_prepare_start(&c->turn, on_turn);
	uv_unref((uv_handle_t *)&c->turn); /* keeps no loop alive */
	informer_subscribe(c->owners, on_rs, c);
	informer_subscribe(cfg->pods, on_pod, c);
	informer_set_derive(cfg->pods, derive_facts);
	return c;
}

struct ctl_rs *
ctl_rs_start(const struct ctl_config *cfg)
{
	return start(cfg, KIND_REPLICASET);
}

struct ctl_rs *
ctl_rc_start(const struct ctl_config *cfg)
{
	return cfg->rcs ? start(cfg, KIND_REPLICATION_CONTROLLER) : NULL;
}

void
ctl_rs_stop(struct ctl_rs *c)
{
	if (c == NULL)
		return;
	informer_unsubscribe(c->owners, c);
	informer_unsubscribe(c->cfg.pods, c);
	while (c->carried)
		carried_free(c, c->carried);
	while (c->expects)
		expect_free(c, c->expects);
	queue_free(c->q);
	uv_prepare_stop(&c->turn);
	uv_close((uv_handle_t *)&c->turn, free_rs);
}

void
ctl_rs_resync(struct ctl_rs *c)
{
	ctl_enqueue_all(c->owners, c->q);
}
