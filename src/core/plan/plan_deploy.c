/* plan_deploy.c - Kubernetes' syncDeployment as a pure function.
 *
 * It is split along the Kubernetes controller's files, so that each can be
 * read side by side with its Go file and spec/deployment.md: this file is
 * sync.go (the sync, claiming, the RS list, scale, history cleanup) and
 * the entry point; plan_deploy_rolling.c, plan_deploy_recreate.c,
 * plan_deploy_rollback.c and plan_deploy_progress.c are rolling.go,
 * recreate.go, rollback.go and progress.go (with the status half of
 * sync.go); plan_deploy_int.h is what they share. Where Kubernetes calls
 * the API, the planner changes its working copy in `out` and records an
 * action instead.
 *
 * The steps that decide numbers (scale(), reconcileNewReplicaSet,
 * reconcileOldReplicaSets and its two passes, the Recreate scale-down,
 * rollback(), calculateStatus, syncRolloutStatus' conditions, the
 * requeue, cleanupDeployment's victims) are pure: const inputs in, a value
 * out (a size, a resize_list, a status). Only the sync and its appliers
 * (pd_apply_resizes, pd_scale_rs_event, pd_write_status, ...) touch the
 * working state `struct st`.
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
#include "plan_deploy_int.h"
#include "tmplhash.h"
#include "xalloc.h"

/* ---- object helpers ---- */

/* The uid decides when both sides have one (a Deployment deleted and
 * re-created under the same name is another owner); objects from a file
 * (drover plan) often have none, and then the name does. Example: ref
 * {Deployment web, uid d1} against Deployment web with uid d2: false;
 * against a web read from a file, no uid: true. A ref or caller without
 * a kind does not test it. */
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

/* The ownerReference Kubernetes' controller gives an RS it creates or
 * adopts (controller and blockOwnerDeletion true); fills ref with
 * strings it owns, released with the RS. */
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

const char *
pd_rs_name(const struct replicaset *rs)
{
	return rs->metadata.name ? rs->metadata.name : "";
}

/* Appends rs (owned by out from now on) to the step's RS list, with its
 * snapshot size and a not-deleted mark; the three arrays stay parallel. */
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

void
pd_write_status(struct st *st)
{
	action_add(&st->out->actions, ACT_STATUS, "Deployment",
		   st->d->metadata.name);
}

void
pd_write_deployment(struct st *st)
{
	action_add(&st->out->actions, ACT_UPDATE, "Deployment",
		   st->d->metadata.name);
}

/* Records the write of rs: a scale (from -> to) when its size changed,
 * else an update (annotations, minReadySeconds). explain prints the two
 * as "scale ReplicaSet web-1 10 → 8" and "update ReplicaSet web-1". */
static void
write_rs(struct st *st, struct replicaset *rs, int64_t old_size)
{
	struct action *a;

	if (rs_replicas(rs) != old_size) {
		a = action_add(&st->out->actions, ACT_SCALE, "ReplicaSet",
			       pd_rs_name(rs));
		a->from = old_size;
		a->to = rs_replicas(rs);
	} else {
		action_add(&st->out->actions, ACT_UPDATE, "ReplicaSet",
			   pd_rs_name(rs));
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

/* ClaimReplicaSets (ControllerRefManager, §4): for every RS of the
 * namespace, oldest listed first:
 *  - ours and matching the selector: owned;
 *  - ours and no longer matching: released (ownerReference dropped),
 *    unless the Deployment is being deleted (then left for the garbage
 *    collector);
 *  - an orphan that matches and is not being deleted: adopted;
 *  - anyone else's: ignored.
 * Each release and adoption is one update action. A released RS goes
 * to out->released: the step neither scales nor deletes it, and it is
 * the user's from then on. RSes of another namespace are skipped when
 * both sides name one (a file given to `drover plan` may name none). */
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
				   pd_rs_name(rs));
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
			   pd_rs_name(rs));
	}
}

/* ---- the RS list of this step ---- */

/* Live (not deleted) owned RSes, optionally without `skip`, oldest first.
 * The array is the caller's to free; it has room for one more entry
 * (callers append the new RS). Entries point at out's working copies. */
size_t
pd_live_rs(struct st *st, const struct replicaset *skip,
	   struct replicaset ***out)
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

/* FilterActiveReplicaSets in place: keeps the non-NULL RSes with
 * replicas > 0, in order; returns how many. */
size_t
pd_active_only(struct replicaset **v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i] && rs_replicas(v[i]) > 0)
			v[k++] = v[i];
	return k;
}

/* Records every RS's size as the step's RS list is taken: the sizes the
 * status is computed from (invariant 2). */
static void
take_snapshot(struct st *st)
{
	size_t i;

	for (i = 0; i < st->out->nrs; i++)
		st->snap[i] = rs_replicas(st->out->rs[i]);
	st->have_snap = true;
}

/* FindNewReplicaSet: the oldest RS whose template equals the deployment's
 * ignoring the hash label. out->rs is sorted oldest first by the time
 * this runs (sync_deployment sorts it after claiming), so the first
 * match is the oldest, as Kubernetes wants when two RSes share a
 * template (possible after an upgrade changed the hash function). */
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

/* The Progressing condition (True, with reason) of a new or found RS;
 * `fmt` takes the RS name. */
static void
progressing(struct st *st, const char *status, const char *reason,
	    const char *fmt, const char *name)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, name);
	set_condition(&st->d->status.conditions, "Progressing", status, reason,
		      msg, st->in->now);
}

/* A new ReplicaSet for the deployment's current template (§4 steps 1-4):
 * named <deployment>-<pod-template-hash>, the template with the hash
 * label added to its labels and to the selector (so that old and new
 * pods never match each other's RS), created now, at the size
 * NewRSNewReplicas allows with every live RS counted. Example: web, hash
 * f4d48c756, old RS at 10, 25% surge: web-f4d48c756 at 13 - 10 = 3. */
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
	nold = pd_live_rs(st, NULL, &old);
	old[nold] = rs;
	set_rs_replicas(rs, new_rs_new_replicas(d, old, nold + 1, rs));
	free(old);
	set_new_rs_annotations(d, rs, new_revision, false);
	return rs;
}

/* getNewReplicaSet (§4): sync the existing new RS's annotations and
 * revision, or create it when `create`. The revision is max(old) + 1:
 * old RSes at 1 and 2 make the new one 3, and a re-used RS found at
 * revision 1 is renumbered 3 (its 1 goes to revision-history). When the
 * computed name is taken by an RS that is not ours with this template,
 * that is a hash collision: collisionCount is raised (the next hash
 * differs) and the step fails, to be retried. Returns 0 and sets *newp (NULL if
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

	nold = pd_live_rs(st, existing, &old);
	new_revision = max_revision(old, nold) + 1;
	free(old);
	snprintf(rev, sizeof(rev), "%lld", (long long)new_revision);
	*newp = NULL;

	/* An existing new RS whose annotations or minReadySeconds were
	 * stale is written, and that is all for the Deployment in this
	 * step: its revision annotation follows on a later sync (§4), as
	 * in Kubernetes. The rollout step still runs with the RS. */
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
				    pd_rs_name(existing));
			needs_update = true;
		}
		if (needs_update)
			pd_write_status(st);
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

		if (strcmp(pd_rs_name(other), pd_rs_name(rs)) ||
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
		pd_write_status(st);
		{
			char msg[600];

			snprintf(msg, sizeof(msg),
				 "replicasets.apps \"%s\" already exists",
				 pd_rs_name(other));
			st->out->error = xstrdup(msg);
		}
		return -1;
	}
	add_owned(st, rs);
	if (!already) {
		struct action *a = action_add(&st->out->actions, ACT_CREATE,
					      "ReplicaSet", pd_rs_name(rs));

		a->replicas = rs_replicas(rs);
		if (rs_replicas(rs) > 0)
			event_add(&st->out->events, "Normal",
				  "ScalingReplicaSet",
				  "Scaled up replica set %s to %lld",
				  pd_rs_name(rs), (long long)rs_replicas(rs));
	}
	needs_update = set_deployment_revision(d, rev);
	if (!already && deploy_has_progress_deadline(d)) {
		progressing(st, "True", REASON_NEW_RS_CREATED,
			    "Created new replica set \"%s\"", pd_rs_name(rs));
		needs_update = true;
	}
	if (needs_update)
		pd_write_status(st);
	*newp = rs;
	return 0;
}

/* getAllReplicaSetsAndSyncRevision: the new RS (maybe created) and the
 * old ones, oldest first. *oldp is allocated; the caller frees it. */
int
pd_get_all_rs(struct st *st, bool create, struct replicaset **newp,
	      struct replicaset ***oldp, size_t *noldp)
{
	int r = get_new_rs(st, create, newp);

	if (r) {
		*oldp = NULL;
		*noldp = 0;
		return r;
	}
	*noldp = pd_live_rs(st, *newp, oldp);
	take_snapshot(st);
	return 0;
}

/* ---- scaling one RS (§7.4) ---- */

/* scaleReplicaSet: writes rs when its size or its desired/max annotations
 * differ; returns true if the size changed. The annotations are stamped
 * with the budget of this moment (replicas, replicas + surge): the
 * denominators of the next proportional scale. Example: rs at 8 with
 * desired-replicas 10 after spec.replicas became 15 (maxSurge 3): to 8
 * writes the annotations 15 and 18 only (an update, no event, false);
 * to 11 also scales it and records "Scaled up replica set ... to 11
 * from 8". */
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
			  to > from ? "up" : "down", pd_rs_name(rs),
			  (long long)to, (long long)from);
	return size;
}

/* scaleReplicaSetAndRecordEvent: nothing at all when the size is right. */
bool
pd_scale_rs_event(struct st *st, struct replicaset *rs, int64_t to)
{
	if (rs_replicas(rs) == to)
		return false;
	return scale_rs(st, rs, to);
}

/* ---- decisions' results, applied ---- */

void
resize_add(struct resize_list *l, const struct replicaset *rs, int64_t to,
	   bool refresh)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n].rs = rs;
	l->v[l->n].to = to;
	l->v[l->n].refresh = refresh;
	l->n++;
}

void
resize_list_release(struct resize_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The working copy a decision's const pointer names: decisions are handed
 * the working copies themselves, so this is the same object. */
static struct replicaset *
working_rs(struct st *st, const struct replicaset *rs)
{
	size_t i;

	for (i = 0; i < st->out->nrs; i++)
		if (st->out->rs[i] == rs)
			return st->out->rs[i];
	abort(); /* a decision named an RS the step does not own */
}

bool
pd_apply_resizes(struct st *st, const struct resize_list *l)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct replicaset *rs = working_rs(st, l->v[i].rs);

		if (l->v[i].refresh ? scale_rs(st, rs, l->v[i].to)
				    : pd_scale_rs_event(st, rs, l->v[i].to))
			changed = true;
	}
	return changed;
}

/* ---- history cleanup (§14) ---- */

/* cleanupDeployment's choice: when more old RSes than
 * revisionHistoryLimit are not being deleted, the surplus oldest-revision
 * ones go, but only those that are fully scaled down (spec and status 0)
 * and whose status is current. Example: limit 2, five old RSes at
 * revisions 1..5, revision 2 still has a pod: the surplus is 3
 * (revisions 1, 2, 3); 1 and 3 are deleted, 2 is kept and not replaced
 * by 4, so three old RSes stay until 2's pod is gone. */
size_t
pd_history_victims(const struct deployment *d,
		   const struct replicaset *const *old, size_t nold,
		   const struct replicaset ***victims)
{
	const struct replicaset **c, **v;
	size_t n = 0, nv = 0, i;
	int64_t diff;

	*victims = NULL;
	if (!deploy_has_revision_history_limit(d))
		return 0;
	c = xmalloc((nold + 1) * sizeof(*c));
	v = xmalloc((nold + 1) * sizeof(*v));
	for (i = 0; i < nold; i++)
		if (old[i] &&
		    old[i]->metadata.deletion_timestamp == DTIME_UNSET)
			c[n++] = old[i];
	diff = (int64_t)n - d->spec.revision_history_limit.v;
	if (diff > 0) {
		xqsort(c, n, sizeof(*c), rs_cmp_revision);
		for (i = 0; i < (size_t)diff; i++) {
			const struct replicaset *rs = c[i];

			if (rs->status.replicas != 0 || rs_replicas(rs) != 0 ||
			    rs->metadata.generation >
				rs->status.observed_generation ||
			    rs->metadata.deletion_timestamp != DTIME_UNSET)
				continue;
			v[nv++] = rs;
		}
	}
	free(c);
	*victims = v;
	return nv;
}

/* cleanupDeployment (§14): deletes what pd_history_victims chose. */
void
pd_cleanup_deployment(struct st *st, struct replicaset **old, size_t nold)
{
	const struct replicaset **v;
	size_t n = pd_history_victims(st->d, rs_ro(old), nold, &v), i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < st->out->nrs; k++)
			if (st->out->rs[k] == v[i])
				st->deleted[k] = true;
		action_add(&st->out->actions, ACT_DELETE, "ReplicaSet",
			   pd_rs_name(v[i]));
	}
	free(v);
}

/* ---- scale() (§7) ---- */

/* FindActiveOrLatest over old (newest first) and new_rs: the only RS
 * with replicas, or, when none has any, the new RS or else the newest
 * old one; NULL when two or more have replicas. Examples: old web-3
 * (0) and web-2 (0), new web-4 (0): web-4; the same without web-4:
 * web-3; old web-2 at 5, new web-4 at 0: web-2; web-2 at 5 and web-4
 * at 3: NULL (proportional scaling decides). */
static const struct replicaset *
find_active_or_latest(const struct replicaset *new_rs,
		      const struct replicaset *const *old, size_t nold)
{
	const struct replicaset *only = NULL;
	size_t active = 0, i;

	if (new_rs == NULL && nold == 0)
		return NULL;
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

/* scale() (§7): the resizes of a scaling event. `old` is newest first,
 * as Kubernetes sorts it (controller.ReplicaSetsByCreationTimestamp
 * reversed) before it calls FindActiveOrLatest.
 *  - One active RS (or none): it takes the whole spec.replicas.
 *  - The new RS is saturated (spec and available = replicas): every old
 *    RS with replicas goes to 0.
 *  - Otherwise (RollingUpdate only) the difference between maxPods and
 *    the active RSes' sum is spread in proportion to their sizes
 *    (getProportion: size * allowed / the max-replicas annotation,
 *    rounded half away from zero), biggest RS first (on a tie the newer
 *    when adding, the older when removing), the leftover to the first
 *    (ReplicaSetsBySizeNewer / BySizeOlder). Example: replicas
 *    10 -> 15, maxSurge 3, old 8 and new 5, both annotated max-replicas
 *    13: allowed 18, to_add 5; old 8 * 18 / 13 = 11.08 -> 11 (+3), new
 *    5 * 18 / 13 = 6.92 -> 7 (+2); nothing left over. */
static struct resize_list
scale_decision(const struct deployment *d, const struct replicaset *new_rs,
	       const struct replicaset *const *old, size_t nold)
{
	const struct replicaset *one = find_active_or_latest(new_rs, old, nold);
	struct resize_list l = {0};
	struct replicaset **act;
	int64_t allowed, to_add, added = 0, *target;
	size_t n, i;

	if (one) {
		if (rs_replicas(one) != deploy_replicas(d))
			resize_add(&l, one, deploy_replicas(d), false);
		return l;
	}
	if (is_saturated(d, new_rs)) {
		for (i = 0; i < nold; i++)
			if (rs_replicas(old[i]) > 0)
				resize_add(&l, old[i], 0, false);
		return l;
	}
	if (deploy_is_inplace(d))
		return inplace_scale_decision(d, new_rs, old, nold);
	if (!deploy_is_rolling(d))
		return l;
	act = xmalloc((nold + 1) * sizeof(*act));
	memcpy(act, old, nold * sizeof(*act));
	act[nold] = (struct replicaset *)new_rs;
	n = pd_active_only(act, nold + 1);
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
		resize_add(&l, act[i], target[i], true);
	free(target);
	free(act);
	return l;
}

/* sync(): the paused / scaling path (§6): scale() on the RS list (never
 * creating the new RS), history cleanup only while paused without a
 * rollback pending, then the status without Progressing changes. */
static void
sync_scale(struct st *st)
{
	struct replicaset *new_rs, **old;
	size_t nold;

	struct resize_list l;

	pd_get_all_rs(st, false, &new_rs, &old, &nold);
	xqsort(old, nold, sizeof(*old), rs_cmp_creation_rev);
	l = scale_decision(st->d, new_rs, rs_ro(old), nold);
	pd_apply_resizes(st, &l);
	resize_list_release(&l);
	if (st->d->spec.paused &&
	    !strmap_get(&st->d->metadata.annotations, ANN_ROLLBACK_TO))
		pd_cleanup_deployment(st, old, nold);
	free(old);
	pd_sync_deployment_status(st, new_rs);
}

/* ---- the sync (§6) ---- */

/* isScalingEvent's test: an active RS (old or new) whose desired-replicas
 * annotation differs from spec.replicas, i.e. spec.replicas changed since
 * the RS was last scaled. Example: old RS at 8 annotated 10, new at 5;
 * spec.replicas set to 15: a scaling event, so the step is scale(), not
 * a rollout step. */
static bool
scaling_event(const struct deployment *d, const struct replicaset *new_rs,
	      const struct replicaset *const *old, size_t nold)
{
	int64_t desired;
	size_t i;

	for (i = 0; i <= nold; i++) {
		const struct replicaset *rs = i < nold ? old[i] : new_rs;

		if (rs == NULL || rs_replicas(rs) == 0)
			continue;
		if (int_annotation(&rs->metadata.annotations,
				   ANN_DESIRED_REPLICAS, &desired) &&
		    desired != deploy_replicas(d))
			return true;
	}
	return false;
}

/* isScalingEvent: takes the RS list (which syncs the new RS's revision,
 * as Kubernetes' getAllReplicaSetsAndSyncRevision(false) does) and
 * tests it. */
static bool
is_scaling_event(struct st *st)
{
	struct replicaset *new_rs, **old;
	size_t nold;
	bool r;

	pd_get_all_rs(st, false, &new_rs, &old, &nold);
	r = scaling_event(st->d, new_rs, rs_ro(old), nold);
	free(old);
	return r;
}

/* checkPausedConditions (§12)'s decision: the Progressing reason to set
 * (DeploymentPaused when paused, DeploymentResumed when resumed after a
 * pause), or NULL: nothing without a deadline, nothing once the deadline
 * was exceeded (a timed-out rollout stays timed out while paused), and
 * nothing when the condition already says it. */
static const char *
paused_condition(const struct deployment *d)
{
	const struct condition *c;
	bool paused_cond;

	if (!deploy_has_progress_deadline(d))
		return NULL;
	c = condition_get(&d->status.conditions, "Progressing");
	if (c && c->reason && !strcmp(c->reason, REASON_TIMED_OUT))
		return NULL;
	paused_cond = c && c->reason && !strcmp(c->reason, REASON_PAUSED);
	if (d->spec.paused && !paused_cond)
		return REASON_PAUSED;
	if (!d->spec.paused && paused_cond)
		return REASON_RESUMED;
	return NULL;
}

/* checkPausedConditions (§12): sets the condition decided above (status
 * Unknown: a paused Deployment neither progresses nor fails). */
static void
check_paused_conditions(struct st *st)
{
	const char *reason = paused_condition(st->d);

	if (reason == NULL)
		return;
	set_condition(&st->d->status.conditions, "Progressing", "Unknown",
		      reason,
		      !strcmp(reason, REASON_PAUSED) ? "Deployment is paused"
						     : "Deployment is resumed",
		      st->in->now);
	pd_write_status(st);
}

/* syncDeployment (deployment_controller.go), in Kubernetes' order:
 * an empty selector selects every pod and is refused (only the
 * observedGeneration is written); claim; a deleting Deployment only
 * syncs its status; paused conditions; then the first of: paused ->
 * scale only; a rollback annotation -> rollback; a scaling event ->
 * scale(); else the strategy's rollout step. */
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
			pd_write_status(st);
		}
		return;
	}
	claim_replicasets(st);
	xqsort(st->out->rs, st->out->nrs, sizeof(*st->out->rs),
	       rs_cmp_creation);
	if (deployment_deleting(st)) {
		struct replicaset *new_rs, **old;
		size_t nold;

		pd_get_all_rs(st, false, &new_rs, &old, &nold);
		free(old);
		pd_sync_deployment_status(st, new_rs);
		return;
	}
	check_paused_conditions(st);
	if (d->spec.paused) {
		sync_scale(st);
		return;
	}
	if (pd_rollback_to(d, &rev)) {
		pd_rollback(st);
		return;
	}
	if (is_scaling_event(st)) {
		sync_scale(st);
		return;
	}
	if (deploy_is_rolling(d))
		pd_rollout_rolling(st);
	else if (deploy_is_inplace(d))
		pd_rollout_inplace(st);
	else if (d->spec.strategy.type &&
		 !strcmp(d->spec.strategy.type, "Recreate"))
		pd_rollout_recreate(st);
}

/* The entry point: out owns a copy of the Deployment and of every RS
 * the step touches; the RSes cleanupDeployment deleted are released
 * here, after the step, so that pointers stay valid during it. */
void
plan_deploy(const struct plan_deploy_in *in, struct plan_deploy_out *out)
{
	struct st st = {.in = in, .out = out};
	size_t i, k;

	/* The budget is reported for `drover plan` and the simulator: for
	 * RollingUpdate the resolved surge and the clamped unavailable (10
	 * replicas at 25%: 3 and 2), for InPlaceUpdate no surge and the
	 * in-place budget, nothing for Recreate. */
	memset(out, 0, sizeof(*out));
	out->requeue_after_ms = -1;
	deployment_copy(&out->d, in->d);
	st.d = &out->d;
	if (deploy_is_rolling(st.d)) {
		out->budget.set = true;
		out->budget.replicas = deploy_replicas(st.d);
		out->budget.surge = max_surge(st.d);
		out->budget.unavailable = max_unavailable(st.d);
	} else if (deploy_is_inplace(st.d)) {
		out->budget.set = true; /* no surge */
		out->budget.replicas = deploy_replicas(st.d);
		out->budget.unavailable = inplace_max_unavailable(st.d);
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
		if (!strcmp(pd_rs_name(out->rs[i]), name))
			return out->rs[i];
	for (i = 0; i < out->nreleased; i++)
		if (!strcmp(pd_rs_name(out->released[i]), name))
			return out->released[i];
	return NULL;
}
