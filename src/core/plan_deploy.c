/* plan_deploy.c - Kubernetes' syncDeployment as a pure function.
 *
 * The structure follows the Kubernetes controller file by file (sync.go,
 * rolling.go, recreate.go, progress.go, rollback.go) so that it can be read
 * side by side with spec/deployment.md. Where Kubernetes calls the API, this
 * file changes its working copy in `out` and records an action instead.
 *
 * Invariants of one step:
 *  1. At most one of "scale the new RS" and "scale old RSes down" happens
 *     (creating the new RS is not a scale).
 *  2. The status written after a rollout step is computed from the RS sizes
 *     as they were when the step began (Kubernetes passes its stale RS
 *     pointers to syncRolloutStatus); only unavailableReplicas sees it.
 *  3. Nothing outside `out` is modified.
 *
 * One simplification: Kubernetes writes an RS twice in one sync when
 * isScalingEvent() and the rollout both sync its revision from the same
 * stale list, and the second write fails with a conflict and requeues. This
 * planner mutates its working copy, so the second write is a no-op and the
 * rollout step happens in the same call; the end state is the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deploy_util.h"
#include "kinds.h"
#include "labels.h"
#include "plan_deploy.h"
#include "tmplhash.h"
#include "xalloc.h"

struct st {
	const struct plan_deploy_in *in;
	struct plan_deploy_out *out;
	struct deployment *d;
	int64_t *snap; /* RS sizes when the step's RS list was taken */
	bool *deleted; /* parallel to out->rs */
	size_t alloc;
	bool have_snap;
};

/* ---- object helpers ---- */

bool
owner_ref_is(const struct owner_ref *ref, const char *kind,
	     const struct object_meta *m)
{
	if (ref->kind && kind && strcmp(ref->kind, kind))
		return false;
	if (ref->uid && *ref->uid && m->uid && *m->uid)
		return strcmp(ref->uid, m->uid) == 0;
	return ref->name && m->name && strcmp(ref->name, m->name) == 0;
}

void
deploy_controller_ref(const struct deployment *d, struct owner_ref *ref)
{
	memset(ref, 0, sizeof(*ref));
	ref->api_version = xstrdup("apps/v1");
	ref->kind = xstrdup("Deployment");
	ref->name = xstrdup(d->metadata.name);
	ref->uid = xstrdup(d->metadata.uid ? d->metadata.uid : "");
	ref->controller.set = ref->controller.v = true;
	ref->block_owner_deletion.set = ref->block_owner_deletion.v = true;
}

static const char *
rs_name(const struct replicaset *rs)
{
	return rs->metadata.name ? rs->metadata.name : "";
}

static void
add_owned(struct st *st, struct replicaset *rs)
{
	struct plan_deploy_out *o = st->out;

	if (o->nrs + 1 > st->alloc) {
		st->alloc = st->alloc ? st->alloc * 2 : 8;
		o->rs = xrealloc(o->rs, st->alloc * sizeof(*o->rs));
		st->snap = xrealloc(st->snap, st->alloc * sizeof(*st->snap));
		st->deleted =
		    xrealloc(st->deleted, st->alloc * sizeof(*st->deleted));
	}
	st->snap[o->nrs] = rs_replicas(rs);
	st->deleted[o->nrs] = false;
	o->rs[o->nrs++] = rs;
}

static void
add_released(struct st *st, struct replicaset *rs)
{
	struct plan_deploy_out *o = st->out;

	o->released =
	    xrealloc(o->released, (o->nreleased + 1) * sizeof(*o->released));
	o->released[o->nreleased++] = rs;
}

static void
write_status(struct st *st)
{
	action_add(&st->out->actions, ACT_STATUS, "Deployment",
		   st->d->metadata.name);
}

static void
write_deployment(struct st *st)
{
	action_add(&st->out->actions, ACT_UPDATE, "Deployment",
		   st->d->metadata.name);
}

static void
write_rs(struct st *st, struct replicaset *rs, int64_t old_size)
{
	struct action *a;

	if (rs_replicas(rs) != old_size) {
		a = action_add(&st->out->actions, ACT_SCALE, "ReplicaSet",
			       rs_name(rs));
		a->from = old_size;
		a->to = rs_replicas(rs);
	} else {
		action_add(&st->out->actions, ACT_UPDATE, "ReplicaSet",
			   rs_name(rs));
	}
}

static void
set_rs_replicas(struct replicaset *rs, int64_t n)
{
	rs->spec.replicas.set = true;
	rs->spec.replicas.v = n;
}

/* ---- claiming (§4) ---- */

static bool
deployment_deleting(const struct st *st)
{
	return st->d->metadata.deletion_timestamp != DTIME_UNSET;
}

static void
claim_replicasets(struct st *st)
{
	const struct plan_deploy_in *in = st->in;
	const struct label_selector *sel = st->d->spec.selector;
	size_t i;

	for (i = 0; i < in->nrs; i++) {
		const struct replicaset *src = in->rs[i];
		const struct owner_ref *ref =
		    meta_controller_ref(&src->metadata);
		bool match = selector_matches(sel, &src->metadata.labels);
		struct replicaset *rs;

		if (src->metadata.namespace && st->d->metadata.namespace &&
		    strcmp(src->metadata.namespace, st->d->metadata.namespace))
			continue;
		if (ref) {
			if (!owner_ref_is(ref, "Deployment", &st->d->metadata))
				continue; /* someone else's */
			rs = xmalloc(sizeof(*rs));
			replicaset_copy(rs, src);
			if (match || deployment_deleting(st)) {
				if (match)
					add_owned(st, rs);
				else
					replicaset_release(rs), free(rs);
				continue;
			}
			/* Release: drop our ownerReference. */
			meta_remove_owner_refs(&rs->metadata, "Deployment",
					       st->d->metadata.uid,
					       st->d->metadata.name);
			add_released(st, rs);
			action_add(&st->out->actions, ACT_UPDATE, "ReplicaSet",
				   rs_name(rs));
			continue;
		}
		if (deployment_deleting(st) || !match ||
		    src->metadata.deletion_timestamp != DTIME_UNSET)
			continue;
		/* Adopt an orphan that matches. */
		rs = xmalloc(sizeof(*rs));
		replicaset_copy(rs, src);
		{
			struct owner_ref *r = anylist_push(
			    (struct anylist *)&rs->metadata.owner_references,
			    sizeof(*r));

			deploy_controller_ref(st->d, r);
		}
		add_owned(st, rs);
		action_add(&st->out->actions, ACT_UPDATE, "ReplicaSet",
			   rs_name(rs));
	}
}

/* ---- the RS list of this step ---- */

/* Live (not deleted) owned RSes, optionally without `skip`, oldest first. */
static size_t
live_rs(struct st *st, const struct replicaset *skip, struct replicaset ***out)
{
	struct plan_deploy_out *o = st->out;
	struct replicaset **v = xmalloc((o->nrs + 1) * sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < o->nrs; i++)
		if (!st->deleted[i] && o->rs[i] != skip)
			v[n++] = o->rs[i];
	*out = v;
	return n;
}

static size_t
active_only(struct replicaset **v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i] && rs_replicas(v[i]) > 0)
			v[k++] = v[i];
	return k;
}

static void
take_snapshot(struct st *st)
{
	size_t i;

	for (i = 0; i < st->out->nrs; i++)
		st->snap[i] = rs_replicas(st->out->rs[i]);
	st->have_snap = true;
}

/* FindNewReplicaSet: the oldest RS whose template equals the deployment's
 * ignoring the hash label. */
static struct replicaset *
find_new_rs(struct st *st)
{
	size_t i;

	for (i = 0; i < st->out->nrs; i++)
		if (!st->deleted[i] &&
		    rs_matches_template(st->d, st->out->rs[i]))
			return st->out->rs[i];
	return NULL;
}

static void
progressing(struct st *st, const char *status, const char *reason,
	    const char *fmt, const char *name)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, name);
	set_condition(&st->d->status.conditions, "Progressing", status, reason,
		      msg, st->in->now);
}

/* A new ReplicaSet for the deployment's current template (§4 steps 1-4). */
static struct replicaset *
make_new_rs(struct st *st, const char *hash, int64_t new_revision)
{
	const struct deployment *d = st->d;
	struct replicaset *rs = xcalloc(1, sizeof(*rs));
	struct owner_ref *ref;
	struct replicaset **old;
	size_t nold;
	char name[512];

	snprintf(name, sizeof(name), "%s-%s", d->metadata.name, hash);
	rs->api_version = xstrdup("apps/v1");
	rs->kind = xstrdup("ReplicaSet");
	rs->metadata.name = xstrdup(name);
	rs->metadata.namespace = xstrdup(d->metadata.namespace);
	rs->metadata.creation_timestamp = st->in->now;
	ref = anylist_push((struct anylist *)&rs->metadata.owner_references,
			   sizeof(*ref));
	deploy_controller_ref(d, ref);
	pod_template_copy(&rs->spec.template, &d->spec.template);
	strmap_set(&rs->spec.template.metadata.labels, LABEL_POD_TEMPLATE_HASH,
		   hash);
	strmap_copy(&rs->metadata.labels, &rs->spec.template.metadata.labels);
	rs->spec.selector = xcalloc(1, sizeof(*rs->spec.selector));
	if (d->spec.selector)
		schema_copy(&schema_label_selector, rs->spec.selector,
			    d->spec.selector);
	strmap_set(&rs->spec.selector->match_labels, LABEL_POD_TEMPLATE_HASH,
		   hash);
	rs->spec.min_ready_seconds = d->spec.min_ready_seconds;
	set_rs_replicas(rs, 0);
	nold = live_rs(st, NULL, &old);
	old[nold] = rs;
	set_rs_replicas(rs, new_rs_new_replicas(d, old, nold + 1, rs));
	free(old);
	set_new_rs_annotations(d, rs, new_revision, false);
	return rs;
}

/* getNewReplicaSet (§4): sync the existing new RS's annotations and
 * revision, or create it when `create`. Returns 0 and sets *newp (NULL if
 * there is none and !create), or -1 on a hash collision. */
static int
get_new_rs(struct st *st, bool create, struct replicaset **newp)
{
	struct deployment *d = st->d;
	struct replicaset *existing = find_new_rs(st), **old, *rs;
	size_t nold, i;
	int64_t new_revision;
	char hash[16], rev[24];
	bool needs_update = false, already = false;

	nold = live_rs(st, existing, &old);
	new_revision = max_revision(old, nold) + 1;
	free(old);
	snprintf(rev, sizeof(rev), "%lld", (long long)new_revision);
	*newp = NULL;

	if (existing) {
		bool changed =
		    set_new_rs_annotations(d, existing, new_revision, true);

		if (changed || existing->spec.min_ready_seconds !=
				   d->spec.min_ready_seconds) {
			existing->spec.min_ready_seconds =
			    d->spec.min_ready_seconds;
			write_rs(st, existing, rs_replicas(existing));
			*newp = existing;
			return 0;
		}
		needs_update = set_deployment_revision(
		    d, strmap_get(&existing->metadata.annotations, ANN_REVISION)
			   ? strmap_get(&existing->metadata.annotations,
					ANN_REVISION)
			   : "");
		if (deploy_has_progress_deadline(d) &&
		    !condition_get(&d->status.conditions, "Progressing")) {
			progressing(st, "True", REASON_FOUND_NEW_RS,
				    "Found new replica set \"%s\"",
				    rs_name(existing));
			needs_update = true;
		}
		if (needs_update)
			write_status(st);
		*newp = existing;
		return 0;
	}
	if (!create)
		return 0;

	tmplhash_compute(&d->spec.template, &d->status.collision_count, hash);
	rs = make_new_rs(st, hash, new_revision);
	for (i = 0; i < st->in->nrs; i++) {
		const struct replicaset *other = st->in->rs[i];
		const struct owner_ref *ref;

		if (strcmp(rs_name(other), rs_name(rs)) ||
		    (other->metadata.namespace && d->metadata.namespace &&
		     strcmp(other->metadata.namespace, d->metadata.namespace)))
			continue;
		ref = meta_controller_ref(&other->metadata);
		if (ref && owner_ref_is(ref, "Deployment", &d->metadata) &&
		    rs_matches_template(d, other)) {
			/* Our RS already: use the stored one. */
			replicaset_release(rs);
			replicaset_copy(rs, other);
			already = true;
			break;
		}
		/* A hash collision: bump collisionCount and retry later. */
		replicaset_release(rs);
		free(rs);
		d->status.collision_count.set = true;
		d->status.collision_count.v++;
		write_status(st);
		{
			char msg[600];

			snprintf(msg, sizeof(msg),
				 "replicasets.apps \"%s\" already exists",
				 rs_name(other));
			st->out->error = xstrdup(msg);
		}
		return -1;
	}
	add_owned(st, rs);
	if (!already) {
		struct action *a = action_add(&st->out->actions, ACT_CREATE,
					      "ReplicaSet", rs_name(rs));

		a->replicas = rs_replicas(rs);
		if (rs_replicas(rs) > 0)
			event_add(&st->out->events, "Normal",
				  "ScalingReplicaSet",
				  "Scaled up replica set %s to %lld",
				  rs_name(rs), (long long)rs_replicas(rs));
	}
	needs_update = set_deployment_revision(d, rev);
	if (!already && deploy_has_progress_deadline(d)) {
		progressing(st, "True", REASON_NEW_RS_CREATED,
			    "Created new replica set \"%s\"", rs_name(rs));
		needs_update = true;
	}
	if (needs_update)
		write_status(st);
	*newp = rs;
	return 0;
}

/* getAllReplicaSetsAndSyncRevision: the new RS (maybe created) and the
 * old ones, oldest first. *oldp is allocated; the caller frees it. */
static int
get_all_rs(struct st *st, bool create, struct replicaset **newp,
	   struct replicaset ***oldp, size_t *noldp)
{
	int r = get_new_rs(st, create, newp);

	if (r) {
		*oldp = NULL;
		*noldp = 0;
		return r;
	}
	*noldp = live_rs(st, *newp, oldp);
	take_snapshot(st);
	return 0;
}

/* ---- scaling one RS (§7.4) ---- */

/* scaleReplicaSet: writes rs when its size or its desired/max annotations
 * differ; returns true if the size changed. */
static bool
scale_rs(struct st *st, struct replicaset *rs, int64_t to)
{
	const struct deployment *d = st->d;
	int64_t from = rs_replicas(rs);
	int64_t desired = deploy_replicas(d), max = desired + max_surge(d);
	bool size = from != to;

	if (!size && !replicas_annotations_need_update(rs, desired, max))
		return false;
	set_rs_replicas(rs, to);
	set_replicas_annotations(rs, desired, max);
	write_rs(st, rs, from);
	if (size)
		event_add(&st->out->events, "Normal", "ScalingReplicaSet",
			  "Scaled %s replica set %s to %lld from %lld",
			  to > from ? "up" : "down", rs_name(rs), (long long)to,
			  (long long)from);
	return size;
}

/* scaleReplicaSetAndRecordEvent: nothing at all when the size is right. */
static bool
scale_rs_event(struct st *st, struct replicaset *rs, int64_t to)
{
	if (rs_replicas(rs) == to)
		return false;
	return scale_rs(st, rs, to);
}

/* ---- status (§10, §11) ---- */

static int64_t
snap_of(const struct st *st, const struct replicaset *rs)
{
	size_t i;

	for (i = 0; i < st->out->nrs; i++)
		if (st->out->rs[i] == rs)
			return st->have_snap ? st->snap[i] : rs_replicas(rs);
	return rs_replicas(rs);
}

/* calculateStatus over the step's RS list (all live owned RSes). */
static void
calculate_status(struct st *st, const struct replicaset *new_rs,
		 struct deployment_status *ns)
{
	const struct deployment *d = st->d;
	struct replicaset **all;
	size_t n = live_rs(st, NULL, &all), i;
	int64_t spec = 0;

	for (i = 0; i < n; i++)
		spec += snap_of(st, all[i]);
	memset(ns, 0, sizeof(*ns));
	ns->observed_generation = d->metadata.generation;
	ns->replicas = rs_live_sum(all, n);
	ns->updated_replicas = new_rs ? new_rs->status.replicas : 0;
	ns->ready_replicas = rs_ready_sum(all, n);
	ns->available_replicas = rs_available_sum(all, n);
	ns->unavailable_replicas = spec - ns->available_replicas;
	if (ns->unavailable_replicas < 0)
		ns->unavailable_replicas = 0;
	ns->collision_count = d->status.collision_count;
	for (i = 0; i < d->status.conditions.n; i++)
		condition_append(&ns->conditions, &d->status.conditions.v[i]);
	if (ns->available_replicas >= deploy_replicas(d) - max_unavailable(d))
		set_condition(
		    &ns->conditions, "Available", "True", REASON_MIN_AVAILABLE,
		    "Deployment has minimum availability.", st->in->now);
	else
		set_condition(&ns->conditions, "Available", "False",
			      REASON_MIN_UNAVAILABLE,
			      "Deployment does not have minimum availability.",
			      st->in->now);
	free(all);
}

static const struct schema *
status_schema(void)
{
	/* The status struct is the 5th field of the deployment schema. */
	return kind_status_schema(kind_by_id(KIND_DEPLOYMENT));
}

/* Replaces d.status with ns (taking ownership) and records the write,
 * unless they are equal. Returns true if written. */
static bool
commit_status(struct st *st, struct deployment_status *ns)
{
	if (schema_equal(status_schema(), &st->d->status, ns)) {
		schema_release(status_schema(), ns);
		return false;
	}
	schema_release(status_schema(), &st->d->status);
	st->d->status = *ns;
	write_status(st);
	return true;
}

/* requeueStuckDeployment (§11.5). */
static void
requeue_stuck(struct st *st, const struct deployment_status *ns)
{
	const struct deployment *d = st->d;
	const struct condition *c =
	    condition_get(&d->status.conditions, "Progressing");
	int64_t after;

	if (!deploy_has_progress_deadline(d) || c == NULL)
		return;
	if (deployment_complete(d, ns) ||
	    (c->reason && !strcmp(c->reason, REASON_TIMED_OUT)))
		return;
	after = c->last_update_time +
		DTIME_SEC(d->spec.progress_deadline_seconds.v) - st->in->now;
	if (after < 1000)
		st->out->requeue_after_ms = 0;
	else
		st->out->requeue_after_ms = after + 1000;
}

/* syncRolloutStatus (§11.4). */
static void
sync_rollout_status(struct st *st, const struct replicaset *new_rs)
{
	struct deployment *d = st->d;
	struct deployment_status ns;
	const struct condition *cur;
	bool complete_already;
	const char *name = new_rs ? rs_name(new_rs) : d->metadata.name;
	const char *what = new_rs ? "ReplicaSet" : "Deployment";
	char msg[600];

	calculate_status(st, new_rs, &ns);
	if (!deploy_has_progress_deadline(d))
		condition_remove(&ns.conditions, "Progressing");
	cur = condition_get(&d->status.conditions, "Progressing");
	complete_already = ns.replicas == ns.updated_replicas && cur &&
			   cur->reason &&
			   !strcmp(cur->reason, REASON_NEW_RS_AVAILABLE);
	if (deploy_has_progress_deadline(d) && !complete_already) {
		if (deployment_complete(d, &ns)) {
			snprintf(msg, sizeof(msg),
				 "%s \"%s\" has successfully progressed.", what,
				 name);
			set_condition(&ns.conditions, "Progressing", "True",
				      REASON_NEW_RS_AVAILABLE, msg,
				      st->in->now);
		} else if (deployment_progressing(d, &ns)) {
			struct condition c = {
			    .type = "Progressing",
			    .status = "True",
			    .reason = REASON_RS_UPDATED,
			    .message = msg,
			    .last_update_time = st->in->now,
			    .last_transition_time = st->in->now,
			};

			snprintf(msg, sizeof(msg), "%s \"%s\" is progressing.",
				 what, name);
			if (cur) {
				if (cur->status && !strcmp(cur->status, "True"))
					c.last_transition_time =
					    cur->last_transition_time;
				condition_remove(&ns.conditions, "Progressing");
			}
			/* SetDeploymentCondition on a list without it */
			condition_append(&ns.conditions, &c);
		} else if (deployment_timed_out(d, &ns, st->in->now)) {
			snprintf(msg, sizeof(msg),
				 "%s \"%s\" has timed out progressing.", what,
				 name);
			set_condition(&ns.conditions, "Progressing", "False",
				      REASON_TIMED_OUT, msg, st->in->now);
		}
	}
	/* ReplicaFailure: the new RS's, else any RS's, else none. */
	{
		const struct condition *rf = NULL;
		size_t i;

		if (new_rs)
			rf = condition_get(&new_rs->status.conditions,
					   "ReplicaFailure");
		for (i = 0; !rf && i < st->out->nrs; i++)
			if (!st->deleted[i])
				rf = condition_get(
				    &st->out->rs[i]->status.conditions,
				    "ReplicaFailure");
		if (rf && rf->status && !strcmp(rf->status, "True"))
			set_condition(&ns.conditions, "ReplicaFailure", "True",
				      rf->reason ? rf->reason : "",
				      rf->message ? rf->message : "",
				      st->in->now);
		else
			condition_remove(&ns.conditions, "ReplicaFailure");
	}
	if (schema_equal(status_schema(), &d->status, &ns)) {
		requeue_stuck(st, &ns);
		schema_release(status_schema(), &ns);
		return;
	}
	commit_status(st, &ns);
}

/* syncDeploymentStatus: status without touching Progressing. */
static void
sync_deployment_status(struct st *st, const struct replicaset *new_rs)
{
	struct deployment_status ns;

	calculate_status(st, new_rs, &ns);
	commit_status(st, &ns);
}

/* ---- history cleanup (§14) ---- */

static void
cleanup_deployment(struct st *st, struct replicaset **old, size_t nold)
{
	const struct deployment *d = st->d;
	struct replicaset **c;
	size_t n = 0, i, k;
	int64_t diff;

	if (!deploy_has_revision_history_limit(d))
		return;
	c = xmalloc((nold + 1) * sizeof(*c));
	for (i = 0; i < nold; i++)
		if (old[i] &&
		    old[i]->metadata.deletion_timestamp == DTIME_UNSET)
			c[n++] = old[i];
	diff = (int64_t)n - d->spec.revision_history_limit.v;
	if (diff > 0) {
		xqsort(c, n, sizeof(*c), rs_cmp_revision);
		for (i = 0; i < (size_t)diff; i++) {
			struct replicaset *rs = c[i];

			if (rs->status.replicas != 0 || rs_replicas(rs) != 0 ||
			    rs->metadata.generation >
				rs->status.observed_generation ||
			    rs->metadata.deletion_timestamp != DTIME_UNSET)
				continue;
			for (k = 0; k < st->out->nrs; k++)
				if (st->out->rs[k] == rs)
					st->deleted[k] = true;
			action_add(&st->out->actions, ACT_DELETE, "ReplicaSet",
				   rs_name(rs));
		}
	}
	free(c);
}

/* ---- scale() (§7) ---- */

/* FindActiveOrLatest; sorts old newest-first as Kubernetes does. */
static struct replicaset *
find_active_or_latest(struct replicaset *new_rs, struct replicaset **old,
		      size_t nold)
{
	struct replicaset *only = NULL;
	size_t active = 0, i;

	if (new_rs == NULL && nold == 0)
		return NULL;
	xqsort(old, nold, sizeof(*old), rs_cmp_creation_rev);
	for (i = 0; i < nold; i++)
		if (rs_replicas(old[i]) > 0) {
			active++;
			only = old[i];
		}
	if (new_rs && rs_replicas(new_rs) > 0) {
		active++;
		only = new_rs;
	}
	if (active == 0)
		return new_rs ? new_rs : old[0];
	return active == 1 ? only : NULL;
}

static void
scale(struct st *st, struct replicaset *new_rs, struct replicaset **old,
      size_t nold)
{
	const struct deployment *d = st->d;
	struct replicaset *one = find_active_or_latest(new_rs, old, nold);
	struct replicaset **act;
	int64_t allowed, to_add, added = 0, *target;
	size_t n, i;

	if (one) {
		if (rs_replicas(one) != deploy_replicas(d))
			scale_rs_event(st, one, deploy_replicas(d));
		return;
	}
	if (is_saturated(d, new_rs)) {
		for (i = 0; i < nold; i++)
			if (rs_replicas(old[i]) > 0)
				scale_rs_event(st, old[i], 0);
		return;
	}
	if (!deploy_is_rolling(d))
		return;
	act = xmalloc((nold + 1) * sizeof(*act));
	memcpy(act, old, nold * sizeof(*act));
	act[nold] = new_rs;
	n = active_only(act, nold + 1);
	allowed =
	    deploy_replicas(d) > 0 ? deploy_replicas(d) + max_surge(d) : 0;
	to_add = allowed - rs_spec_sum(act, n);
	if (to_add > 0)
		xqsort(act, n, sizeof(*act), rs_cmp_size_newer);
	else if (to_add < 0)
		xqsort(act, n, sizeof(*act), rs_cmp_size_older);
	target = xmalloc((n + 1) * sizeof(*target));
	for (i = 0; i < n; i++) {
		int64_t p =
		    to_add ? get_proportion(act[i], d, to_add, added) : 0;

		target[i] = rs_replicas(act[i]) + p;
		added += p;
	}
	if (n > 0 && to_add != 0) {
		target[0] += to_add - added; /* leftover to the first */
		if (target[0] < 0)
			target[0] = 0;
	}
	for (i = 0; i < n; i++)
		scale_rs(st, act[i], target[i]);
	free(target);
	free(act);
}

/* sync(): the paused / scaling path (§6). */
static void
sync_scale(struct st *st)
{
	struct replicaset *new_rs, **old;
	size_t nold;

	get_all_rs(st, false, &new_rs, &old, &nold);
	scale(st, new_rs, old, nold);
	if (st->d->spec.paused &&
	    !strmap_get(&st->d->metadata.annotations, ANN_ROLLBACK_TO))
		cleanup_deployment(st, old, nold);
	free(old);
	sync_deployment_status(st, new_rs);
}

/* ---- RollingUpdate (§8) ---- */

/* reconcileNewReplicaSet (§8.3). */
static bool
reconcile_new_rs(struct st *st, struct replicaset **all, size_t nall,
		 struct replicaset *new_rs)
{
	const struct deployment *d = st->d;

	if (new_rs == NULL || rs_replicas(new_rs) == deploy_replicas(d))
		return false;
	if (rs_replicas(new_rs) > deploy_replicas(d))
		return scale_rs_event(st, new_rs, deploy_replicas(d));
	return scale_rs_event(st, new_rs,
			      new_rs_new_replicas(d, all, nall, new_rs));
}

/* cleanupUnhealthyReplicas (§8.4): shrink old RSes by their unavailable
 * pods, oldest first, at most max_cleanup in total. Returns the number
 * removed, or -1 on a stale status (more available than desired). */
static int64_t
cleanup_unhealthy(struct st *st, struct replicaset **old, size_t nold,
		  int64_t max_cleanup)
{
	int64_t total = 0;
	size_t i;

	xqsort(old, nold, sizeof(*old), rs_cmp_creation);
	for (i = 0; i < nold; i++) {
		struct replicaset *rs = old[i];
		int64_t unhealthy, n;

		if (total >= max_cleanup)
			break;
		if (rs_replicas(rs) == 0)
			continue;
		unhealthy = rs_replicas(rs) - rs->status.available_replicas;
		if (unhealthy == 0)
			continue;
		n = max_cleanup - total < unhealthy ? max_cleanup - total
						    : unhealthy;
		if (n < 0)
			return -1;
		scale_rs_event(st, rs, rs_replicas(rs) - n);
		total += n;
	}
	return total;
}

/* scaleDownOldReplicaSetsForRollingUpdate (§8.4): remove available old
 * pods while keeping minAvailable. */
static int64_t
scale_down_old(struct st *st, struct replicaset **all, size_t nall,
	       struct replicaset **old, size_t nold)
{
	const struct deployment *d = st->d;
	int64_t min_avail = deploy_replicas(d) - max_unavailable(d);
	int64_t avail = rs_available_sum(all, nall), budget, total = 0;
	size_t i;

	if (avail <= min_avail)
		return 0;
	budget = avail - min_avail;
	xqsort(old, nold, sizeof(*old), rs_cmp_creation);
	for (i = 0; i < nold; i++) {
		struct replicaset *rs = old[i];
		int64_t n;

		if (total >= budget)
			break;
		if (rs_replicas(rs) == 0)
			continue;
		n = rs_replicas(rs) < budget - total ? rs_replicas(rs)
						     : budget - total;
		scale_rs_event(st, rs, rs_replicas(rs) - n);
		total += n;
	}
	return total;
}

/* reconcileOldReplicaSets (§8.4). Example (10 replicas, surge 3, unavail
 * 2): old 10 + new 3 desired, new pods not ready: 13 - 8 - 3 = 2 old pods
 * may go. */
static bool
reconcile_old_rs(struct st *st, struct replicaset **all, size_t nall,
		 struct replicaset **old_active, size_t nold,
		 struct replicaset *new_rs)
{
	const struct deployment *d = st->d;
	int64_t min_avail, new_unavail, max_down, cleaned, scaled;
	struct replicaset **both;

	if (rs_spec_sum(old_active, nold) == 0)
		return false;
	min_avail = deploy_replicas(d) - max_unavailable(d);
	new_unavail = rs_replicas(new_rs) - new_rs->status.available_replicas;
	max_down = rs_spec_sum(all, nall) - min_avail - new_unavail;
	if (max_down <= 0)
		return false;
	cleaned = cleanup_unhealthy(st, old_active, nold, max_down);
	if (cleaned < 0)
		return false;
	both = xmalloc((nold + 1) * sizeof(*both));
	memcpy(both, old_active, nold * sizeof(*both));
	both[nold] = new_rs;
	scaled = scale_down_old(st, both, nold + 1, old_active, nold);
	free(both);
	return cleaned + scaled > 0;
}

static void
rollout_rolling(struct st *st)
{
	struct replicaset *new_rs, **old, **all, **old_active;
	size_t nold, nact;
	bool done;

	if (get_all_rs(st, true, &new_rs, &old, &nold))
		return;
	all = xmalloc((nold + 1) * sizeof(*all));
	memcpy(all, old, nold * sizeof(*all));
	all[nold] = new_rs;
	done = reconcile_new_rs(st, all, nold + 1, new_rs);
	if (!done) {
		old_active = xmalloc((nold + 1) * sizeof(*old_active));
		memcpy(old_active, old, nold * sizeof(*old_active));
		nact = active_only(old_active, nold);
		done = reconcile_old_rs(st, all, nold + 1, old_active, nact,
					new_rs);
		free(old_active);
	}
	if (!done && deployment_complete(st->d, &st->d->status))
		cleanup_deployment(st, old, nold);
	sync_rollout_status(st, new_rs);
	free(all);
	free(old);
}

/* ---- Recreate (§9) ---- */

static bool
pod_owned_by(const struct pod *p, const struct replicaset *rs)
{
	const struct owner_ref *ref = meta_controller_ref(&p->metadata);

	return ref && owner_ref_is(ref, "ReplicaSet", &rs->metadata);
}

/* oldPodsRunning: old RSes report live pods, or a pod of an owned RS
 * other than the new one is not terminal (terminating pods count). */
static bool
old_pods_running(struct st *st, const struct replicaset *new_rs,
		 struct replicaset **old, size_t nold)
{
	size_t i, j;

	if (rs_live_sum(old, nold) > 0)
		return true;
	for (i = 0; i < st->in->npods; i++) {
		const struct pod *p = st->in->pods[i];
		const char *phase = p->status.phase ? p->status.phase : "";

		if (new_rs && pod_owned_by(p, new_rs))
			continue;
		if (!strcmp(phase, "Failed") || !strcmp(phase, "Succeeded"))
			continue;
		if (!selector_matches(st->d->spec.selector,
				      &p->metadata.labels))
			continue;
		for (j = 0; j < nold; j++)
			if (pod_owned_by(p, old[j]))
				return true;
	}
	return false;
}

static void
rollout_recreate(struct st *st)
{
	struct replicaset *new_rs, **old;
	size_t nold, i;
	bool scaled = false;

	if (get_all_rs(st, false, &new_rs, &old, &nold))
		return;
	for (i = 0; i < nold; i++)
		if (rs_replicas(old[i]) > 0 && scale_rs_event(st, old[i], 0))
			scaled = true;
	if (scaled || old_pods_running(st, new_rs, old, nold)) {
		sync_rollout_status(st, new_rs);
		free(old);
		return;
	}
	if (new_rs == NULL) {
		free(old);
		if (get_all_rs(st, true, &new_rs, &old, &nold))
			return;
	}
	scale_rs_event(st, new_rs, deploy_replicas(st->d));
	if (deployment_complete(st->d, &st->d->status))
		cleanup_deployment(st, old, nold);
	sync_rollout_status(st, new_rs);
	free(old);
}

/* ---- rollback, legacy annotation path (§13.2) ---- */

static bool
rollback_to(const struct deployment *d, int64_t *rev)
{
	const char *v = strmap_get(&d->metadata.annotations, ANN_ROLLBACK_TO);
	char *end;
	long long x;

	if (v == NULL || *v == '\0')
		return false;
	x = strtoll(v, &end, 10);
	if (*end != '\0')
		return false;
	*rev = x;
	return true;
}

static void
clear_rollback_to(struct st *st)
{
	strmap_del(&st->d->metadata.annotations, ANN_ROLLBACK_TO);
	write_deployment(st);
}

static void
rollback(struct st *st)
{
	struct deployment *d = st->d;
	struct replicaset *new_rs, **old, **all;
	size_t nold, i;
	int64_t target = 0, r;

	if (get_all_rs(st, true, &new_rs, &old, &nold))
		return;
	all = xmalloc((nold + 1) * sizeof(*all));
	memcpy(all, old, nold * sizeof(*all));
	all[nold] = new_rs;
	free(old);
	rollback_to(d, &target);
	if (target == 0) {
		target = last_revision(all, nold + 1);
		if (target == 0) {
			event_add(&st->out->events, "Warning",
				  "DeploymentRollbackRevisionNotFound",
				  "Unable to find last revision.");
			clear_rollback_to(st);
			free(all);
			return;
		}
	}
	for (i = 0; i < nold + 1; i++) {
		struct replicaset *rs = all[i];
		size_t k;

		if (rs == NULL || rs_revision(rs, &r) || r != target)
			continue;
		if (!rs_matches_template(d, rs)) {
			struct strmap keep = {0};
			const struct strmap *ra = &rs->metadata.annotations;

			pod_template_release(&d->spec.template);
			pod_template_copy(&d->spec.template,
					  &rs->spec.template);
			strmap_del(&d->spec.template.metadata.labels,
				   LABEL_POD_TEMPLATE_HASH);
			for (k = 0; k < d->metadata.annotations.n; k++)
				if (skip_copy_annotation(
					d->metadata.annotations.v[k].key))
					strmap_set(
					    &keep,
					    d->metadata.annotations.v[k].key,
					    d->metadata.annotations.v[k].value);
			for (k = 0; k < ra->n; k++)
				if (!skip_copy_annotation(ra->v[k].key))
					strmap_set(&keep, ra->v[k].key,
						   ra->v[k].value);
			strmap_release(&d->metadata.annotations);
			d->metadata.annotations = keep;
			event_add(&st->out->events, "Normal",
				  "DeploymentRollback",
				  "Rolled back deployment \"%s\" to revision "
				  "%lld",
				  d->metadata.name, (long long)target);
		} else {
			event_add(&st->out->events, "Warning",
				  "DeploymentRollbackTemplateUnchanged",
				  "The rollback revision contains the same "
				  "template as current deployment \"%s\"",
				  d->metadata.name);
		}
		clear_rollback_to(st);
		free(all);
		return;
	}
	event_add(&st->out->events, "Warning",
		  "DeploymentRollbackRevisionNotFound",
		  "Unable to find the revision to rollback to.");
	clear_rollback_to(st);
	free(all);
}

/* ---- the sync (§6) ---- */

static bool
is_scaling_event(struct st *st)
{
	struct replicaset *new_rs, **old;
	size_t nold, i;
	int64_t desired;
	bool r = false;

	get_all_rs(st, false, &new_rs, &old, &nold);
	for (i = 0; i <= nold && !r; i++) {
		struct replicaset *rs = i < nold ? old[i] : new_rs;

		if (rs == NULL || rs_replicas(rs) == 0)
			continue;
		if (int_annotation(&rs->metadata.annotations,
				   ANN_DESIRED_REPLICAS, &desired) &&
		    desired != deploy_replicas(st->d))
			r = true;
	}
	free(old);
	return r;
}

/* checkPausedConditions (§12). */
static void
check_paused_conditions(struct st *st)
{
	struct deployment *d = st->d;
	const struct condition *c;
	bool paused_cond;

	if (!deploy_has_progress_deadline(d))
		return;
	c = condition_get(&d->status.conditions, "Progressing");
	if (c && c->reason && !strcmp(c->reason, REASON_TIMED_OUT))
		return;
	paused_cond = c && c->reason && !strcmp(c->reason, REASON_PAUSED);
	if (d->spec.paused && !paused_cond) {
		set_condition(&d->status.conditions, "Progressing", "Unknown",
			      REASON_PAUSED, "Deployment is paused",
			      st->in->now);
		write_status(st);
	} else if (!d->spec.paused && paused_cond) {
		set_condition(&d->status.conditions, "Progressing", "Unknown",
			      REASON_RESUMED, "Deployment is resumed",
			      st->in->now);
		write_status(st);
	}
}

static void
sync_deployment(struct st *st)
{
	struct deployment *d = st->d;
	int64_t rev;

	if (d->spec.selector && selector_is_empty(d->spec.selector)) {
		event_add(&st->out->events, "Warning", "SelectingAll",
			  "This deployment is selecting all pods. A non-empty "
			  "selector is required.");
		if (d->status.observed_generation < d->metadata.generation) {
			d->status.observed_generation = d->metadata.generation;
			write_status(st);
		}
		return;
	}
	claim_replicasets(st);
	xqsort(st->out->rs, st->out->nrs, sizeof(*st->out->rs),
	       rs_cmp_creation);
	if (deployment_deleting(st)) {
		struct replicaset *new_rs, **old;
		size_t nold;

		get_all_rs(st, false, &new_rs, &old, &nold);
		free(old);
		sync_deployment_status(st, new_rs);
		return;
	}
	check_paused_conditions(st);
	if (d->spec.paused) {
		sync_scale(st);
		return;
	}
	if (rollback_to(d, &rev)) {
		rollback(st);
		return;
	}
	if (is_scaling_event(st)) {
		sync_scale(st);
		return;
	}
	if (deploy_is_rolling(d))
		rollout_rolling(st);
	else if (d->spec.strategy.type &&
		 !strcmp(d->spec.strategy.type, "Recreate"))
		rollout_recreate(st);
}

void
plan_deploy(const struct plan_deploy_in *in, struct plan_deploy_out *out)
{
	struct st st = {.in = in, .out = out};
	size_t i, k;

	memset(out, 0, sizeof(*out));
	out->requeue_after_ms = -1;
	deployment_copy(&out->d, in->d);
	st.d = &out->d;
	if (deploy_is_rolling(st.d)) {
		out->budget.set = true;
		out->budget.replicas = deploy_replicas(st.d);
		out->budget.surge = max_surge(st.d);
		out->budget.unavailable = max_unavailable(st.d);
	}
	sync_deployment(&st);
	/* Drop deleted RSes and keep the rest oldest first. */
	for (i = k = 0; i < out->nrs; i++) {
		if (st.deleted[i]) {
			replicaset_release(out->rs[i]);
			free(out->rs[i]);
		} else {
			out->rs[k++] = out->rs[i];
		}
	}
	out->nrs = k;
	xqsort(out->rs, out->nrs, sizeof(*out->rs), rs_cmp_creation);
	free(st.snap);
	free(st.deleted);
}

void
plan_deploy_out_release(struct plan_deploy_out *out)
{
	size_t i;

	deployment_release(&out->d);
	for (i = 0; i < out->nrs; i++) {
		replicaset_release(out->rs[i]);
		free(out->rs[i]);
	}
	free(out->rs);
	for (i = 0; i < out->nreleased; i++) {
		replicaset_release(out->released[i]);
		free(out->released[i]);
	}
	free(out->released);
	action_list_release(&out->actions);
	event_list_release(&out->events);
	free(out->error);
	memset(out, 0, sizeof(*out));
}

const void *
plan_deploy_object(const struct plan_deploy_out *out, const char *kind,
		   const char *name)
{
	size_t i;

	if (!strcmp(kind, "Deployment"))
		return out->d.metadata.name &&
			       !strcmp(out->d.metadata.name, name)
			   ? &out->d
			   : NULL;
	for (i = 0; i < out->nrs; i++)
		if (!strcmp(rs_name(out->rs[i]), name))
			return out->rs[i];
	for (i = 0; i < out->nreleased; i++)
		if (!strcmp(rs_name(out->released[i]), name))
			return out->released[i];
	return NULL;
}
