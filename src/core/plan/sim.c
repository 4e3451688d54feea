/* sim.c - the virtual-clock rollout simulator (see sim.h).
 *
 * One "settle" at time t repeats until nothing changes: mark pods whose
 * readiness delay has passed as Ready, run one Deployment sync and apply
 * it (as the API server would: uids, generations), then run every
 * ReplicaSet sync and apply it (create and delete pods, write status).
 * Then the clock jumps to the next moment something can change: a pod
 * becoming ready, a pod becoming available after minReadySeconds, or the
 * Deployment's progress-deadline requeue.
 *
 * The event model, and what it assumes:
 *
 *  - One node ("node-1"), no scheduler, no image pulls, no crashes: a pod
 *    is created Pending and becomes Ready exactly pod_ready_ms after its
 *    creation (sim_opts; < 0: never). Its Ready condition's
 *    lastTransitionTime is that instant, so minReadySeconds counts from it.
 *  - An in-place update (ACT_UPDATE_IN_PLACE, the InPlaceUpdate
 *    strategy) is instantaneous bookkeeping plus a restart: the pod keeps
 *    its name and uid, moves to the new RS (both RS sizes change by one),
 *    and is Running but not Ready until pod_ready_ms later
 *    (update_in_place).
 *  - Deleted pods vanish at once: no terminating phase, no grace period.
 *    Deleting a ReplicaSet takes its pods with it (the garbage collector,
 *    done synchronously).
 *  - The API server's bookkeeping is modelled (apply_deploy): uids,
 *    generation 1 on create, generation bumps on spec changes (and, for
 *    the Deployment, annotation changes), the RS status subresource kept
 *    apart from spec writes (spec §1).
 *  - Controllers are level-triggered and instantaneous: within one instant
 *    the Deployment and ReplicaSet syncs run to a fixed point; no watch
 *    latency, no informer staleness, no rate-limited requeue.
 *
 * Time only advances between settles, and only to an instant where
 * something is scheduled: the earliest pod ready_at, the earliest
 * plan_rs requeue (a pod that becomes available after minReadySeconds),
 * or the Deployment's requeue. Nothing happens in between, so a rollout
 * of 10 pods with a 1 s readiness delay takes a handful of settles, not
 * thousands of ticks (README: "complete after 2s" in 3 instants: 0 s,
 * 1 s, 2 s).
 *
 * Ownership: the world owns every object (copies of the inputs); at the
 * end the Deployment and ReplicaSets move into the sim_result and the
 * pods are freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deploy_util.h"
#include "inplace_apply.h"
#include "plan_rs.h"
#include "sim.h"
#include "tmplhash.h"
#include "xalloc.h"

/* A pod of the world plus what the simulation alone knows about it. The
 * planners see only &spod->p; victims they return are cast back.
 *
 * ready_at is an absolute virtual time. Edge case: with start 0 and
 * pod_ready_ms 0, a pod created at t=0 gets ready_at 0, which reads as
 * "never"; sim_run is always given a real start. dead: deleted in this
 * pass, freed by compact_pods() (the planners may still hold pointers
 * until the pass ends). */
struct spod {
	struct pod p;   /* first: a struct pod * is a struct spod * */
	dtime ready_at; /* when it becomes ready; 0 never / already */
	bool dead;
};

/* The simulated cluster: one Deployment, its namespace's ReplicaSets and
 * pods. `counter` feeds every uid and pod name, so names are a function of
 * the order of creation alone (the determinism sim.h promises). */
struct world {
	struct deployment d;
	struct replicaset **rs;
	size_t nrs, rs_alloc;
	struct spod **pods;
	size_t npods, pods_alloc;
	uint64_t counter;
	dtime now;
	int64_t ready_ms;
	/* rs_wake is reset at the start of each RS pass: 0 means no RS
	 * asked to be woken. */
	dtime rs_wake; /* earliest availability change reported by plan_rs */
};

const char *
sim_result_name(enum sim_result_kind k)
{
	switch (k) {
	case SIM_COMPLETE:
		return "complete";
	case SIM_DEADLINE_EXCEEDED:
		return "ProgressDeadlineExceeded";
	case SIM_STALLED:
		return "stalled";
	case SIM_LIMIT:
		return "limit";
	}
	return "?";
}

/* "rs-00000001", "pod-00000002", ...: uids are opaque to the planners
 * (they compare them for equality and use them as the last tiebreak of
 * victim ranking), so a counter gives a stable, readable order. */
static void
new_uid(struct world *w, const char *prefix, char *buf, size_t len)
{
	snprintf(buf, len, "%s-%08llu", prefix,
		 (unsigned long long)++w->counter);
}

/* A 5-character pod name suffix from the counter, like generateName.
 * The alphabet is Kubernetes' rand.SafeEncodeString one (27 characters:
 * no vowels, so no words, and no 0, 1 or 3); the API server picks the
 * characters at random, the simulator derives them from FNV-1a of the RS
 * name and the counter, taking base-27 digits of the 32-bit hash (27^5 =
 * 14,348,907 < 2^32, so the five digits are well defined). Collisions are
 * possible in principle and not checked: the uid, not the name, is what
 * the planners key on. The counter is hashed as its in-memory bytes, so
 * the names are the same on every little-endian host. */
static void
pod_suffix(struct world *w, const char *base, char *out)
{
	static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
	uint64_t c = ++w->counter;
	uint32_t h = fnv1a32(2166136261u, base, strlen(base));
	int i;

	h = fnv1a32(h, &c, sizeof(c));
	for (i = 0; i < 5; i++) {
		out[i] = alphabet[h % 27];
		h /= 27;
	}
	out[5] = '\0';
}

/* The world takes ownership of sp. */
static void
add_pod(struct world *w, struct spod *sp)
{
	ALLOC_GROW(w->pods, w->npods + 1, w->pods_alloc);
	w->pods[w->npods++] = sp;
}

/* A new pod of rs, named and given a uid like the API server would, on
 * the one simulated node, created at `created`. */
static struct spod *
new_pod(struct world *w, const struct replicaset *rs, dtime created)
{
	struct spod *sp = xcalloc(1, sizeof(*sp));
	char name[512], suf[8], uid[64];

	rs_new_pod(rs, &sp->p);
	pod_suffix(w, rs->metadata.name, suf);
	snprintf(name, sizeof(name), "%s-%s", rs->metadata.name, suf);
	sp->p.metadata.name = xstrdup(name);
	new_uid(w, "pod", uid, sizeof(uid));
	sp->p.metadata.uid = xstrdup(uid);
	sp->p.metadata.creation_timestamp = created;
	sp->p.spec.node_name = xstrdup("node-1");
	return sp;
}

/* The world takes ownership of rs (heap-allocated, freed by remove_rs or
 * sim_result_release). */
static void
add_rs(struct world *w, struct replicaset *rs)
{
	ALLOC_GROW(w->rs, w->nrs + 1, w->rs_alloc);
	w->rs[w->nrs++] = rs;
}

/* What the kubelet reports when readiness probes pass: phase Running and
 * a Ready=True condition whose lastTransitionTime is `at` (replacing any
 * earlier Ready condition). */
static void
set_ready(struct pod *p, dtime at)
{
	struct condition c = {
	    .type = "Ready", .status = "True", .last_transition_time = at};

	free(p->status.phase);
	p->status.phase = xstrdup("Running");
	condition_remove(&p->status.conditions, "Ready");
	condition_append(&p->status.conditions, &c);
}

/* Gives every input RS a uid and, when the input has no pods for it, the
 * pods its status describes: available ones ready long ago, the other
 * ready ones ready now, the rest pending.
 *
 * Example: an RS with status {replicas 4, readyReplicas 3,
 * availableReplicas 2} and no pods in the input gets pods 0-1 Ready since
 * its creation (available whatever minReadySeconds is, once that much
 * time has passed since creation), pod 2 Ready since now (ready, not yet
 * available if minReadySeconds > 0), pod 3 Pending and ready
 * pod_ready_ms from now. This lets `drover plan --simulate` start from a
 * Deployment and RS list alone (a `kubectl get -o yaml` of them), as most
 * inputs are. When the input does carry pods of an RS, they are taken
 * as they are and none are invented for it.
 *
 * Input pods that are not ready become ready pod_ready_ms after the start,
 * whatever their age. */
static void
synthesize_pods(struct world *w, const struct replicaset *const *rs, size_t nrs,
		const struct pod *const *pods, size_t npods)
{
	size_t i, j;
	char uid[64];

	for (i = 0; i < nrs; i++) {
		struct replicaset *c = xmalloc(sizeof(*c));
		bool has = false;
		int64_t k;

		replicaset_copy(c, rs[i]);
		if (c->metadata.uid == NULL || !*c->metadata.uid) {
			free(c->metadata.uid);
			new_uid(w, "rs", uid, sizeof(uid));
			c->metadata.uid = xstrdup(uid);
		}
		add_rs(w, c);
		for (j = 0; j < npods && !has; j++) {
			const struct owner_ref *ref =
			    meta_controller_ref(&pods[j]->metadata);

			has = ref &&
			      owner_ref_is(ref, "ReplicaSet", &rs[i]->metadata);
		}
		if (has)
			continue;
		for (k = 0; k < c->status.replicas; k++) {
			struct spod *sp =
			    new_pod(w, c, c->metadata.creation_timestamp);

			if (k < c->status.available_replicas)
				set_ready(&sp->p,
					  c->metadata.creation_timestamp
					      ? c->metadata.creation_timestamp
					      : 1);
			else if (k < c->status.ready_replicas)
				set_ready(&sp->p, w->now);
			else
				sp->p.status.phase = xstrdup("Pending");
			if (!pod_is_ready(&sp->p) && w->ready_ms >= 0)
				sp->ready_at = w->now + w->ready_ms;
			add_pod(w, sp);
		}
	}
	for (j = 0; j < npods; j++) {
		struct spod *sp = xcalloc(1, sizeof(*sp));

		pod_copy(&sp->p, pods[j]);
		if (sp->p.metadata.uid == NULL) {
			new_uid(w, "pod", uid, sizeof(uid));
			sp->p.metadata.uid = xstrdup(uid);
		}
		if (!pod_is_ready(&sp->p) && w->ready_ms >= 0)
			sp->ready_at = w->now + w->ready_ms;
		add_pod(w, sp);
	}
}

/* The world's RS of that name, or NULL. Names are unique in the
 * namespace, as in the API server. */
static struct replicaset *
world_rs(struct world *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nrs; i++)
		if (!strcmp(w->rs[i]->metadata.name, name))
			return w->rs[i];
	return NULL;
}

/* Deletes an RS and marks the pods it controls dead (background
 * cascading deletion collapsed into one instant). */
static void
remove_rs(struct world *w, const char *name)
{
	size_t i, j;

	for (i = 0; i < w->nrs; i++) {
		struct replicaset *rs = w->rs[i];

		if (strcmp(rs->metadata.name, name))
			continue;
		/* Garbage collection: its pods go too. */
		for (j = 0; j < w->npods; j++) {
			const struct owner_ref *ref =
			    meta_controller_ref(&w->pods[j]->p.metadata);

			if (ref &&
			    owner_ref_is(ref, "ReplicaSet", &rs->metadata))
				w->pods[j]->dead = true;
		}
		replicaset_release(rs);
		free(rs);
		memmove(&w->rs[i], &w->rs[i + 1],
			(w->nrs - i - 1) * sizeof(*w->rs));
		w->nrs--;
		return;
	}
}

/* Frees the pods marked dead and closes the gaps, keeping the order of
 * the others (creation order, which the victim tiebreaks never depend on
 * but the output's object list does). */
static void
compact_pods(struct world *w)
{
	size_t i, k = 0;

	for (i = 0; i < w->npods; i++) {
		if (w->pods[i]->dead) {
			pod_release(&w->pods[i]->p);
			free(w->pods[i]);
		} else {
			w->pods[k++] = w->pods[i];
		}
	}
	w->npods = k;
}

/* The sub-schema of a top-level struct field by its JSON name ("spec",
 * "status"), to compare or release just that part of an object. */
static const struct schema *
sub(const struct schema *s, const char *json)
{
	size_t i;

	for (i = 0; i < s->nfields; i++)
		if (!strcmp(s->fields[i].json, json))
			return s->fields[i].sub;
	return NULL;
}

static const struct replicaset *new_rs_of(struct world *w);

/* ACT_UPDATE_IN_PLACE as the API server stores it (inplace_apply, the
 * same function): the pod keeps its name, uid and node; in one
 * transaction its containers' spec, its pod-template-hash label and
 * controller reference move to the Deployment's new RS, the old RS's
 * spec.replicas drops by 1 and the new one's rises by 1; its containers
 * restart, so it is Running but not Ready until pod_ready_ms later
 * (never, if < 0). A pod or RS that is gone, or a refused update, is
 * skipped (the controller would re-plan). */
static void
update_in_place(struct world *w, const char *name)
{
	struct replicaset *to = (struct replicaset *)new_rs_of(w), *from = NULL;
	struct spod *sp = NULL;
	const struct owner_ref *ref;
	char err[512];
	size_t i;

	for (i = 0; i < w->npods; i++)
		if (!w->pods[i]->dead &&
		    !strcmp(w->pods[i]->p.metadata.name, name))
			sp = w->pods[i];
	if (sp == NULL || to == NULL)
		return;
	ref = meta_controller_ref(&sp->p.metadata);
	for (i = 0; ref && i < w->nrs; i++)
		if (owner_ref_is(ref, "ReplicaSet", &w->rs[i]->metadata))
			from = w->rs[i];
	if (from == NULL || from == to ||
	    inplace_apply(&sp->p, from, to, err, sizeof(err)) != INPLACE_OK)
		return;
	condition_remove(&sp->p.status.conditions, "Ready");
	sp->ready_at = w->ready_ms >= 0 ? w->now + w->ready_ms : 0;
}

/* Applies a Deployment step the way the API server stores it.
 *
 * - The Deployment: out->d replaces the stored one; the generation is
 *   bumped once when the step wrote the object (ACT_UPDATE, not only
 *   /status) and its spec or annotations changed (spec §1: annotations
 *   are copied to ReplicaSets, so they count as spec for this purpose).
 *   Status writes never bump it.
 * - A new RS (not in the world by name): stored with a fresh uid,
 *   generation 1 and creationTimestamp now, whatever the planner put
 *   there.
 * - An existing RS: its spec, labels and annotations are replaced; the
 *   generation bumps when the spec changed; the status and uid stay the
 *   stored ones, because status belongs to the ReplicaSet controller and
 *   reaches the world only through run_rs_controllers().
 * - Deleted RSes go first, with their pods.
 *
 * out->released (RSes whose controller reference the sync removed) are
 * stored like out->rs. */
static void
apply_deploy(struct world *w, struct plan_deploy_out *out)
{
	const struct schema *dspec = sub(&schema_deployment, "spec");
	const struct schema *rsspec = sub(&schema_replicaset, "spec");
	size_t i;
	int64_t gen = w->d.metadata.generation;
	bool spec_changed = !schema_equal(dspec, &w->d.spec, &out->d.spec) ||
			    !strmap_equal(&w->d.metadata.annotations,
					  &out->d.metadata.annotations);
	bool updated = false;

	for (i = 0; i < out->actions.n; i++) {
		const struct action *a = &out->actions.v[i];

		if (a->op == ACT_UPDATE && !strcmp(a->kind, "Deployment"))
			updated = true;
		if (a->op == ACT_DELETE && !strcmp(a->kind, "ReplicaSet"))
			remove_rs(w, a->name);
	}
	deployment_release(&w->d);
	deployment_copy(&w->d, &out->d);
	w->d.metadata.generation = gen + (updated && spec_changed ? 1 : 0);
	for (i = 0; i < out->nrs + out->nreleased; i++) {
		/* i indexes out->rs, then out->released. */
		const struct replicaset *n =
		    i < out->nrs ? out->rs[i] : out->released[i - out->nrs];
		struct replicaset *cur = world_rs(w, n->metadata.name);
		char uid[64];

		if (cur == NULL) {
			cur = xmalloc(sizeof(*cur));
			replicaset_copy(cur, n);
			free(cur->metadata.uid);
			new_uid(w, "rs", uid, sizeof(uid));
			cur->metadata.uid = xstrdup(uid);
			cur->metadata.generation = 1;
			cur->metadata.creation_timestamp = w->now;
			add_rs(w, cur);
			continue;
		}
		/* ReplicaSet: generation bumps on a spec change only. */
		gen = cur->metadata.generation;
		if (!schema_equal(rsspec, &cur->spec, &n->spec))
			gen++;
		{
			struct replicaset_status keep = cur->status;
			char *keep_uid = xstrdup(cur->metadata.uid);

			memset(&cur->status, 0, sizeof(cur->status));
			replicaset_release(cur);
			replicaset_copy(cur, n);
			/* status is the RS controller's; keep the stored */
			schema_release(sub(&schema_replicaset, "status"),
				       &cur->status);
			cur->status = keep;
			free(cur->metadata.uid);
			cur->metadata.uid = keep_uid;
		}
		cur->metadata.generation = gen;
	}
	for (i = 0; i < out->actions.n; i++)
		if (out->actions.v[i].op == ACT_UPDATE_IN_PLACE)
			update_in_place(w, out->actions.v[i].name);
	compact_pods(w);
}

/* The planners' view of the pods: a fresh array (caller frees) of
 * pointers into the world, valid until the next compact_pods(). */
static const struct pod **
pod_ptrs(struct world *w)
{
	const struct pod **v = xmalloc((w->npods + 1) * sizeof(*v));
	size_t i;

	for (i = 0; i < w->npods; i++)
		v[i] = &w->pods[i]->p;
	return v;
}

/* One ReplicaSet controller pass over every RS. Returns true if anything
 * changed.
 *
 * Every RS sees the same snapshot of pods, taken before the pass: pods an
 * earlier RS created or deleted in this pass are not (or still) in it.
 * That is harmless because each plan_rs counts only the pods it controls
 * or may adopt, and an adoption is written into the pod at once, so a
 * later RS sees the controller reference and leaves the pod alone.
 *
 * Applying the plan: adopted pods get the RS's controller reference,
 * victims die, `create` pods are made Pending with creationTimestamp now
 * (ready pod_ready_ms later), and a changed status replaces the stored
 * one (ownership of out.status moves into the RS). A requeue (the
 * earliest moment a ready pod passes minReadySeconds) becomes rs_wake. */
static bool
run_rs_controllers(struct world *w)
{
	const struct pod **ptrs = pod_ptrs(w);
	size_t npods = w->npods, i, nrs = w->nrs;
	bool changed = false;

	w->rs_wake = 0;
	for (i = 0; i < nrs; i++) {
		struct replicaset *rs = w->rs[i];
		struct plan_rs_in in = {
		    .rs = rs, .pods = ptrs, .npods = npods, .now = w->now};
		struct plan_rs_out out;
		size_t k;
		int64_t c;

		plan_rs(&in, &out);
		for (k = 0; k < out.nadopt; k++) {
			struct pod *p = (struct pod *)out.adopt[k];
			struct owner_ref *ref = anylist_push(
			    (struct anylist *)&p->metadata.owner_references,
			    sizeof(*ref));

			rs_controller_ref(rs, ref);
			changed = true;
		}
		for (k = 0; k < out.nvictims; k++) {
			((struct spod *)out.victims[k])->dead = true;
			changed = true;
		}
		for (c = 0; c < out.create; c++) {
			struct spod *sp = new_pod(w, rs, w->now);

			sp->p.status.phase = xstrdup("Pending");
			if (w->ready_ms >= 0)
				sp->ready_at = w->now + w->ready_ms;
			add_pod(w, sp);
			changed = true;
		}
		if (out.status_changed) {
			schema_release(sub(&schema_replicaset, "status"),
				       &rs->status);
			rs->status = out.status;
			memset(&out.status, 0, sizeof(out.status));
			changed = true;
		}
		if (out.requeue_after_ms >= 0) {
			dtime at = w->now + out.requeue_after_ms;

			if (w->rs_wake == 0 || at < w->rs_wake)
				w->rs_wake = at;
		}
		plan_rs_out_release(&out);
	}
	free(ptrs);
	compact_pods(w);
	return changed;
}

/* The kubelet's side: every pod whose ready_at has come becomes Ready as
 * of ready_at. The clock never jumps past a ready_at (it jumps to the
 * earliest one), so ready_at is now itself here. Returns true if any
 * did. */
static bool
mark_ready(struct world *w)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < w->npods; i++) {
		struct spod *sp = w->pods[i];

		if (sp->ready_at && sp->ready_at <= w->now) {
			set_ready(&sp->p, sp->ready_at);
			sp->ready_at = 0;
			changed = true;
		}
	}
	return changed;
}

/* The RS whose template equals the Deployment's, ignoring the
 * pod-template-hash label; the first such in world order (for counting
 * only: the planner chooses the new RS itself, oldest first). */
static const struct replicaset *
new_rs_of(struct world *w)
{
	size_t i;

	for (i = 0; i < w->nrs; i++)
		if (rs_matches_template(&w->d, w->rs[i]))
			return w->rs[i];
	return NULL;
}

/* Counts the live pods (not Succeeded, not Failed, not being deleted) by
 * new and old RS, and the available ones with their own RS's
 * minReadySeconds. A pod with no RS owner counts as old. */
static struct sim_sample
sample(struct world *w)
{
	struct sim_sample s = {0};
	const struct replicaset *nrs = new_rs_of(w);
	size_t i, j;

	for (i = 0; i < w->npods; i++) {
		const struct pod *p = &w->pods[i]->p;
		const struct owner_ref *ref = meta_controller_ref(&p->metadata);
		const struct replicaset *owner = NULL;

		if (!pod_is_active(p))
			continue;
		for (j = 0; ref && j < w->nrs; j++)
			if (owner_ref_is(ref, "ReplicaSet",
					 &w->rs[j]->metadata)) {
				owner = w->rs[j];
				break;
			}
		s.total++;
		if (owner && owner == nrs)
			s.new_++;
		else
			s.old++;
		if (pod_is_available(
			p, owner ? owner->spec.min_ready_seconds : 0, w->now))
			s.available++;
	}
	return s;
}

/* Appends a step; the step takes the actions (acts is left empty). */
static void
push_step(struct sim_result *r, int64_t t, struct action_list *acts,
	  struct sim_sample s)
{
	struct sim_step *st;

	ALLOC_GROW(r->steps, r->nsteps + 1, r->alloc);
	st = &r->steps[r->nsteps++];
	st->t_ms = t;
	st->actions = *acts;
	memset(acts, 0, sizeof(*acts));
	st->pods = s;
}

/* Whether the Deployment step shrank some RS: availability right after
 * such a step is what the safety property (min available >= replicas -
 * maxUnavailable) is checked against. */
static bool
has_scale_down(const struct action_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].op == ACT_SCALE && l->v[i].to < l->v[i].from)
			return true;
	return false;
}

/* Keeps the extremes over every sample: peak total pods, minimum
 * available. */
static void
observe(struct sim_result *r, struct sim_sample s)
{
	if (s.total > r->peak_pods)
		r->peak_pods = s.total;
	if (s.available < r->min_available)
		r->min_available = s.available;
}

/* The main loop. Invariant at the top of each outer iteration: the world
 * is settled for the instants before w.now, and w.now is either the start
 * or an instant something was scheduled for. Inner loop (one settle):
 * mark ready, Deployment sync + apply, ReplicaSet pass + apply, repeated
 * while anything changed. A settle takes a few rounds (each Deployment
 * step does one thing, as in Kubernetes: the README's t=0 has two
 * steps, then a round where nothing changes); 10000 is a guard
 * against a planner that never reaches a fixed point, not a limit that
 * real inputs meet. */
int
sim_run(const struct deployment *d, const struct replicaset *const *rs,
	size_t nrs, const struct pod *const *pods, size_t npods,
	const struct sim_opts *o, struct sim_result *r)
{
	struct world w = {0};
	dtime deploy_wake = 0, input_timeout = -1;
	size_t i, guard;

	memset(r, 0, sizeof(*r));
	if (d->metadata.name == NULL)
		return -1;
	w.now = o->start;
	w.ready_ms = o->pod_ready_ms;
	deployment_copy(&w.d, d);
	if (w.d.metadata.uid == NULL)
		w.d.metadata.uid = xstrdup("deployment-uid");
	if (w.d.metadata.generation == 0)
		w.d.metadata.generation = 1;
	synthesize_pods(&w, rs, nrs, pods, npods);
	{
		const struct condition *c0 =
		    condition_get(&w.d.status.conditions, "Progressing");

		/* Remember a TimedOut condition the input already had, so
		 * that it alone does not end the run. */
		if (c0 && c0->reason && !strcmp(c0->reason, REASON_TIMED_OUT))
			input_timeout = c0->last_update_time;
	}
	r->min_available = INT64_MAX;
	r->min_available_after_scale_down = INT64_MAX;
	/* Stays SIM_LIMIT if the loop ends on max_steps or max_ms. */
	r->result = SIM_LIMIT;

	for (;;) {
		const struct condition *c;

		observe(r, sample(&w));
		for (guard = 0; guard < 10000; guard++) {
			const struct replicaset **rsp;
			struct plan_deploy_in in = {.d = &w.d, .now = w.now};
			struct plan_deploy_out out;
			const struct pod **pp = pod_ptrs(&w);
			bool changed = mark_ready(&w), scaled_down;
			struct sim_sample s;

			rsp = xmalloc((w.nrs + 1) * sizeof(*rsp));
			for (i = 0; i < w.nrs; i++)
				rsp[i] = w.rs[i];
			in.rs = rsp;
			in.nrs = w.nrs;
			in.pods = pp;
			in.npods = w.npods;
			plan_deploy(&in, &out);
			free(rsp);
			free(pp);
			r->budget = out.budget;
			/* requeue_after_ms: -1 none, 0 "now, rate limited"
			 * (handled below), else after that long. */
			deploy_wake = out.requeue_after_ms < 0
					  ? 0
					  : w.now + out.requeue_after_ms;
			apply_deploy(&w, &out);
			scaled_down = has_scale_down(&out.actions);
			if (run_rs_controllers(&w))
				changed = true;
			s = sample(&w);
			observe(r, s);
			if (scaled_down &&
			    s.available < r->min_available_after_scale_down)
				r->min_available_after_scale_down = s.available;
			/* Only steps where the Deployment planner acted are
			 * recorded; pods becoming ready or the RS controller
			 * alone changing things make no row. */
			if (out.actions.n) {
				changed = true;
				push_step(r, w.now - o->start, &out.actions, s);
			}
			plan_deploy_out_release(&out);
			if (!changed || r->nsteps >= o->max_steps)
				break;
		}
		c = condition_get(&w.d.status.conditions, "Progressing");
		/* A deadline that passed during this run ends it; one the
		 * input already had does not (progress clears it). */
		if (c && c->reason && !strcmp(c->reason, REASON_TIMED_OUT) &&
		    c->last_update_time != input_timeout) {
			r->result = SIM_DEADLINE_EXCEEDED;
			break;
		}
		/* Complete: DeploymentComplete (updated = replicas = available
		 * = spec.replicas, generation observed), no old pod left
		 * (status counts could be complete while old pods are still
		 * terminating in Kubernetes; here old pods vanish at once, so
		 * this is only a guard), and, when there is a deadline, the
		 * Progressing reason NewReplicaSetAvailable written. */
		if (deployment_complete(&w.d, &w.d.status) &&
		    sample(&w).old == 0 &&
		    (!deploy_has_progress_deadline(&w.d) ||
		     (c && c->reason &&
		      !strcmp(c->reason, REASON_NEW_RS_AVAILABLE)))) {
			r->result = SIM_COMPLETE;
			break;
		}
		if (r->nsteps >= o->max_steps)
			break;
		/* The next moment something can change: the earliest of
		 * a pod's ready_at, rs_wake and deploy_wake.
		 *
		 * A requeue "now" (0, Kubernetes' rate-limited retry) is
		 * what the deadline code returns when the deadline is less
		 * than 1 s away (spec §11.5); Kubernetes retries with
		 * back-off until it passes. The simulator
		 * jumps to the first millisecond past it: lastUpdateTime +
		 * progressDeadlineSeconds + 1 ms (the deadline test is
		 * strict). Example: lastUpdateTime 10.000 s, deadline 600
		 * s: next = 610.001 s, where the sync writes TimedOut. If
		 * that too is not in the future, one millisecond later, so
		 * the clock always moves. */
		{
			dtime next = 0;

			for (i = 0; i < w.npods; i++)
				if (w.pods[i]->ready_at &&
				    (next == 0 || w.pods[i]->ready_at < next))
					next = w.pods[i]->ready_at;
			if (w.rs_wake && (next == 0 || w.rs_wake < next))
				next = w.rs_wake;
			if (deploy_wake) {
				dtime at = deploy_wake;

				if (at <= w.now && c)
					at = c->last_update_time +
					     DTIME_SEC(
						 w.d.spec
						     .progress_deadline_seconds
						     .v) +
					     1;
				if (at <= w.now)
					at = w.now + 1;
				if (next == 0 || at < next)
					next = at;
			}
			/* Nothing scheduled: the rollout cannot move without
			 * an outside change. That is "stalled", unless a
			 * TimedOut condition stands (even the input's own),
			 * which is reported as exceeded. */
			if (next == 0) {
				r->result =
				    c && c->reason &&
					    !strcmp(c->reason, REASON_TIMED_OUT)
					? SIM_DEADLINE_EXCEEDED
					: SIM_STALLED;
				break;
			}
			if (next - o->start > o->max_ms)
				break;
			w.now = next;
		}
	}
	r->duration_ms = w.now - o->start;
	if (r->min_available == INT64_MAX)
		r->min_available = 0;
	/* The result takes the Deployment and the RS array; the pods are
	 * the world's alone and go here. */
	r->d = w.d;
	r->rs = w.rs;
	r->nrs = w.nrs;
	for (i = 0; i < w.npods; i++) {
		pod_release(&w.pods[i]->p);
		free(w.pods[i]);
	}
	free(w.pods);
	return 0;
}

/* Frees what sim_run put in r and zeroes it, so a second release is a
 * no-op. */
void
sim_result_release(struct sim_result *r)
{
	size_t i;

	for (i = 0; i < r->nsteps; i++)
		action_list_release(&r->steps[i].actions);
	free(r->steps);
	deployment_release(&r->d);
	for (i = 0; i < r->nrs; i++) {
		replicaset_release(r->rs[i]);
		free(r->rs[i]);
	}
	free(r->rs);
	memset(r, 0, sizeof(*r));
}
