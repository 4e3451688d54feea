/* plan_rc_update.c - one step of the ReplicationController rolling
 * update (kubectl's RollingUpdater and the simple-rolling-update design;
 * the step list and its order are in plan_rc_update.h).
 *
 * Invariants the steps keep (tests/unit/test_plan_rc_update.c):
 *  1. At most desired + 1 pods are asked for (maxSurge 1), and OLD is
 *     scaled down only by what NEXT has available beyond
 *     desired - 0 (maxUnavailable 0): never fewer available pods than
 *     desired, counting the old ones as available.
 *  2. The two selectors never overlap: OLD gets the label key with
 *     "<hash>-orig" (its pods first, then its selector), NEXT with
 *     "<hash>"; a Service on the common labels keeps both sets.
 *  3. No step makes a controller create a pod that another one still
 *     controls: the old controller's selector grows only after all its
 *     pods carry the label; the renamed controller is created only after
 *     NEXT's pods were released (and it adopts them).
 *  4. Every state between two steps is recognised on a re-run (the
 *     recovery annotations, and NEXT's finalizer during the rename).
 *
 * The formulas (kubectl's scaleUp/scaleDown with maxSurge 1,
 * maxUnavailable 0, minAvailable = desired):
 *   increment = (desired + 1) - (old + new); if old is 0, desired - new
 *   decrement = (old + new) - desired - (new - newAvailable); all of old
 *               once new == desired and newAvailable == desired
 * Example, desired 3: (old 3, new 0) → new 1; (3, 1, 1 available) →
 * old 2; (2, 1) → new 2; (2, 2, 2 available) → old 1; (1, 2) → new 3;
 * (1, 3, 3 available) → old 0. At most 4 pods, never fewer than 3
 * available. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_rc_update.h"
#include "strbuf.h"
#include "xalloc.h"

/* spec.replicas, defaulted as the API does (an absent value is 1). */
static int64_t
rc_replicas(const struct replication_controller *rc)
{
	return rc->spec.replicas.set ? rc->spec.replicas.v : 1;
}

/* A recovery annotation as a count: kubectl wrote them with
 * strconv.Itoa, so only plain non-negative decimals are accepted ("3");
 * "", "-1", "3x" count as absent, and the caller fills them in again. */
int
rcu_ann_int(const struct replication_controller *rc, const char *key,
	    int64_t *v)
{
	const char *s = strmap_get(&rc->metadata.annotations, key);
	char *end;
	long long x;

	if (s == NULL || *s == '\0')
		return -1;
	x = strtoll(s, &end, 10);
	if (*end != '\0' || x < 0)
		return -1;
	*v = x;
	return 0;
}

int
rcu_desired(const struct replication_controller *rc, int64_t *v)
{
	if (rcu_ann_int(rc, ANN_RCU_DESIRED, v) == 0)
		return 0;
	return rcu_ann_int(rc, ANN_KUBECTL_DESIRED, v);
}

const char *
rcu_next_of(const struct replication_controller *old)
{
	const char *p = strmap_get(&old->metadata.annotations, ANN_RCU_PARTNER);

	if (p == NULL || *p == '\0')
		p = strmap_get(&old->metadata.annotations, ANN_KUBECTL_NEXT);
	return p && *p ? p : NULL;
}

bool
rcu_source_names(const struct replication_controller *rc, const char *name)
{
	const char *s = strmap_get(&rc->metadata.annotations, ANN_RCU_SOURCE);
	size_t n = strlen(name);

	return s && !strncmp(s, name, n) && s[n] == ':';
}

/* Drops every recovery annotation, under both namings: the renamed
 * controller and a NEXT at the end of its update carry none. */
static void
strip_annotations(struct replication_controller *rc)
{
	static const char *const keys[] = {
	    ANN_RCU_DESIRED,  ANN_RCU_PARTNER,     ANN_RCU_SOURCE,
	    ANN_RCU_ORIGINAL, ANN_KUBECTL_DESIRED, ANN_KUBECTL_NEXT,
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		strmap_del(&rc->metadata.annotations, keys[i]);
}

/* The size NEXT is to reach when nothing on it says so (the seed: "using
 * the current size of foo"): the count -f gave, else OLD's size before
 * the update (original-replicas), else its current size. After an
 * interrupted rollout OLD has already shrunk (3 -> 2), so its current
 * size alone would end the update with fewer pods than it began. */
static int64_t
fill_desired(const struct plan_rcu_in *in)
{
	int64_t v;

	if (in->desired >= 0)
		return in->desired;
	if (rcu_ann_int(in->old, ANN_RCU_ORIGINAL, &v) == 0)
		return v;
	return rc_replicas(in->old);
}

/* Writes a count annotation ("3"), replacing any earlier value. */
static void
ann_set_int(struct replication_controller *rc, const char *key, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	strmap_set(&rc->metadata.annotations, key, buf);
}

/* "foo:<uid>": the update-source-id of a partner of rc. The uid is what
 * makes the pointer safe: an OLD deleted and created again under the
 * same name has another uid, so a NEXT left by the first is recognised
 * as stale instead of being resumed against pods it never knew. */
static void
source_id(const struct replication_controller *rc, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s", rc->metadata.name,
		 rc->metadata.uid ? rc->metadata.uid : "");
}

/* The controller has seen its spec and has its pods (the client's
 * "wait for the RC to report the size"). Example: right after a scale
 * 3 -> 2 (generation 5), a status with observedGeneration 4, or with 5
 * and replicas 3, is not settled; 5 and 2 is. */
static bool
settled(const struct replication_controller *rc)
{
	return rc->status.observed_generation >= rc->metadata.generation &&
	       rc->status.replicas == rc_replicas(rc);
}

/* Whether metadata.finalizers holds f ("orphan", the garbage
 * collector's; FINALIZER_RCU, ours). */
static bool
has_finalizer(const struct replication_controller *rc, const char *f)
{
	size_t i;

	for (i = 0; i < rc->metadata.finalizers.n; i++)
		if (!strcmp(rc->metadata.finalizers.v[i], f))
			return true;
	return false;
}

/* A step that writes a whole controller: a copy of src the caller then
 * edits (the step owns it; target points at its name). An UPDATE keeps
 * src's resourceVersion, so the write is a compare-and-swap: if anyone
 * changed the object since the read, the API answers 409 and the client
 * simply reads and plans again. */
static void
step_obj(struct plan_rcu_step *s, enum rcu_op op, const char *name,
	 const struct replication_controller *src)
{
	s->op = op;
	s->name = name;
	s->has_obj = true;
	rc_copy(&s->obj, src);
	s->target = s->obj.metadata.name;
}

/* A step that sets rc's spec.replicas to `to` (through /scale), with
 * kubectl's progress line ("Scaling foo-next up to 2"). */
static void
step_scale(struct plan_rcu_step *s, const char *name,
	   const struct replication_controller *rc, int64_t to)
{
	s->op = RCU_SCALE;
	s->name = name;
	s->target = rc->metadata.name;
	s->from = rc_replicas(rc);
	s->to = to;
	snprintf(s->message, sizeof(s->message), "Scaling %s %s to %lld",
		 rc->metadata.name, to > s->from ? "up" : "down",
		 (long long)to);
}

/* The renamed controller: NEXT under OLD's name, as a new object
 * (no uid, version, finalizers or status), without the recovery
 * annotations. */
static void
final_of(const struct plan_rcu_in *in, struct plan_rcu_step *s)
{
	struct object_meta *m;

	step_obj(s, RCU_CREATE, "create-final", in->next);
	m = &s->obj.metadata;
	free(m->name);
	m->name = xstrdup(in->old_name);
	free(m->uid);
	free(m->resource_version);
	m->uid = m->resource_version = NULL;
	m->generation = 0;
	m->creation_timestamp = m->deletion_timestamp = DTIME_UNSET;
	m->deletion_grace_period_seconds.set = false;
	strlist_release(&m->finalizers);
	memset(&m->finalizers, 0, sizeof(m->finalizers));
	strip_annotations(&s->obj);
	schema_release(
	    schema_field(&schema_replication_controller, "status")->sub,
	    &s->obj.status);
	memset(&s->obj.status, 0, sizeof(s->obj.status));
	s->target = m->name;
	snprintf(s->message, sizeof(s->message),
		 "Renaming %s to %s: creating %s with the pods of %s",
		 in->next->metadata.name, in->old_name, in->old_name,
		 in->next->metadata.name);
}

/* The rename (NEXT becomes OLD), once OLD is gone: hold NEXT with a
 * finalizer, delete it orphaning its pods, create OLD (which adopts
 * them), release NEXT. */
static void
plan_rename(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *next = in->next;

	/* The rename's states, as a re-run finds them (OLD already gone,
	 * its pods long deleted at 0 replicas):
	 *   NEXT live, no finalizer        → hold-next
	 *   NEXT live, held                → orphan-next
	 *   NEXT deleting, "orphan" left   → wait (the collector works)
	 *   NEXT deleting, no OLD          → create-final
	 *   NEXT deleting, OLD, held       → release-next
	 *   NEXT deleting, OLD, not held   → wait (the API removes it)
	 * Kubernetes' own order (delete NEXT orphaning its pods, then create
	 * OLD) leaves nothing behind if the client dies in between: the
	 * design document accepts that race; the finalizer closes it. */
	if (next->metadata.deletion_timestamp == DTIME_UNSET) {
		if (!has_finalizer(next, FINALIZER_RCU)) {
			step_obj(out, RCU_UPDATE, "hold-next", next);
			strlist_push(&out->obj.metadata.finalizers,
				     FINALIZER_RCU);
			snprintf(out->message, sizeof(out->message),
				 "Holding %s until %s replaces it",
				 next->metadata.name, in->old_name);
			return;
		}
		out->op = RCU_DELETE_ORPHAN;
		out->name = "orphan-next";
		out->target = next->metadata.name;
		snprintf(out->message, sizeof(out->message),
			 "Releasing the pods of %s", next->metadata.name);
		return;
	}
	if (has_finalizer(next, "orphan")) {
		out->op = RCU_WAIT;
		snprintf(out->message, sizeof(out->message),
			 "waiting for the pods of %s to be released",
			 next->metadata.name);
		return;
	}
	if (in->old == NULL) {
		final_of(in, out);
		return;
	}
	if (has_finalizer(next, FINALIZER_RCU)) {
		size_t i;

		step_obj(out, RCU_UPDATE, "release-next", next);
		for (i = 0; i < out->obj.metadata.finalizers.n; i++)
			if (!strcmp(out->obj.metadata.finalizers.v[i],
				    FINALIZER_RCU)) {
				free(out->obj.metadata.finalizers.v[i]);
				memmove(
				    &out->obj.metadata.finalizers.v[i],
				    &out->obj.metadata.finalizers.v[i + 1],
				    (out->obj.metadata.finalizers.n - i - 1) *
					sizeof(char *));
				out->obj.metadata.finalizers.n--;
				break;
			}
		snprintf(out->message, sizeof(out->message),
			 "Deleting %s (renamed to %s)", next->metadata.name,
			 in->old_name);
		return;
	}
	out->op = RCU_WAIT;
	snprintf(out->message, sizeof(out->message),
		 "waiting for %s to be deleted", next->metadata.name);
}

/* NEXT must name OLD (by name and uid) in update-source-id: a NEXT
 * left by an update of another OLD of that name is refused. 0 (NEXT is
 * OLD's partner), 1 (NEXT carries no partner annotation at all: the
 * caller sees whether it can become one, check_pair), or -1 with the
 * error in out. */
static int
check_partner(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct strmap *a = &in->next->metadata.annotations;
	const char *src = strmap_get(a, ANN_RCU_SOURCE);
	const char *partner = strmap_get(a, ANN_RCU_PARTNER);
	char want[512];
	const char *colon;

	/* Three refusals, each saying what to do: a partner pointer to
	 * another controller, the same OLD name with another uid (stale:
	 * OLD was re-created since), another OLD. update-partner naming
	 * OLD without update-source-id is no proof: the seed writes it on
	 * both halves, so OLD's own partner says as much; check_pair
	 * decides then. */
	source_id(in->old, want, sizeof(want));
	if (src && !strcmp(src, want))
		return 0;
	if (src == NULL && (partner == NULL || !strcmp(partner, in->old_name)))
		return 1;
	out->op = RCU_ERROR;
	if (src == NULL) {
		snprintf(out->message, sizeof(out->message),
			 "replicationcontroller \"%s\" is the partner of "
			 "\"%s\" (%s=%s), not of \"%s\"",
			 in->next->metadata.name, partner, ANN_RCU_PARTNER,
			 partner, in->old_name);
		return -1;
	}
	colon = strrchr(src, ':');
	if (colon && (size_t)(colon - src) == strlen(in->old_name) &&
	    !strncmp(src, in->old_name, (size_t)(colon - src)))
		snprintf(out->message, sizeof(out->message),
			 "replicationcontroller \"%s\" is the partner of an "
			 "earlier \"%s\" (uid %s), not of the current one "
			 "(uid %s): the partner annotation %s is stale; "
			 "delete \"%s\" and run the update again",
			 in->next->metadata.name, in->old_name, colon + 1,
			 in->old->metadata.uid ? in->old->metadata.uid : "",
			 ANN_RCU_SOURCE, in->next->metadata.name);
	else
		snprintf(out->message, sizeof(out->message),
			 "replicationcontroller \"%s\" is the partner of "
			 "\"%s\" (%s=%s), not of \"%s\"",
			 in->next->metadata.name, src, ANN_RCU_SOURCE, src,
			 in->old_name);
	return -1;
}

/* "app=web,track=v2": a selector for a message (the map is sorted). */
static void
selector_str(const struct strmap *sel, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < sel->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s=%s",
				       i ? "," : "", sel->v[i].key,
				       sel->v[i].value);
}

/* kubectl's rule for the two selectors of an update: NEXT's has a key
 * of OLD's with another value, so no pod matches both and each
 * controller counts only its own. Example: OLD app=web,track=v1 and
 * NEXT app=web,track=v2 are apart; OLD app=web and NEXT
 * app=web,track=v2 are not (OLD's selector matches NEXT's pods). */
static bool
selectors_apart(const struct strmap *old, const struct strmap *next)
{
	size_t i;

	for (i = 0; i < old->n; i++) {
		const char *v = strmap_get(next, old->v[i].key);

		if (v && strcmp(v, old->v[i].value))
			return true;
	}
	return false;
}

/* How NEXT's pod template differs from the one the update asks for
 * (the prototype's), in the containers' names and images, as a phrase
 * into buf ("container web runs web:3, not web:2"); false when they
 * agree. Labels are not compared: a NEXT made by hand labels its pods
 * as it likes, as long as check_pair finds the selectors apart. */
static bool
containers_differ(const struct replication_controller *next,
		  const struct replication_controller *proto, char *buf,
		  size_t len)
{
	const struct container_list *want =
	    &proto->spec.template.spec.containers;
	const struct container_list *have =
	    &next->spec.template.spec.containers;
	size_t i, j;

	if (want->n != have->n) {
		snprintf(buf, len, "its pods have %zu containers, not %zu",
			 have->n, want->n);
		return true;
	}
	for (i = 0; i < want->n; i++) {
		const struct container *w = &want->v[i], *h = NULL;

		for (j = 0; j < have->n && h == NULL; j++)
			if (!strcmp(have->v[j].name, w->name))
				h = &have->v[j];
		if (h == NULL) {
			snprintf(buf, len, "its pods have no container %s",
				 w->name);
			return true;
		}
		if (strcmp(h->image ? h->image : "",
			   w->image ? w->image : "")) {
			snprintf(buf, len, "its container %s runs %s, not %s",
				 w->name, h->image ? h->image : "",
				 w->image ? w->image : "");
			return true;
		}
	}
	return false;
}

/* A NEXT without partner annotations may be taken into the update (the
 * seed: "if both exist, assume that we are in a partial rollout") when
 * the two are fit to be partners: selectors apart, and NEXT's containers
 * those the update asks for. 0, or -1 with a refusal that says how to go
 * on. */
static int
check_pair(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *old = in->old, *next = in->next;
	char why[256], os[256], ns[256];

	if (!selectors_apart(&old->spec.selector, &next->spec.selector)) {
		selector_str(&old->spec.selector, os, sizeof(os));
		selector_str(&next->spec.selector, ns, sizeof(ns));
		out->op = RCU_ERROR;
		snprintf(out->message, sizeof(out->message),
			 "replicationcontroller \"%s\" exists and is not "
			 "the next controller of \"%s\": its selector (%s) "
			 "does not keep its pods apart from those of \"%s\" "
			 "(%s); the new selector needs a key of the old one "
			 "with another value. Change its selector, delete "
			 "it, or choose another name for the new controller",
			 next->metadata.name, old->metadata.name, ns,
			 old->metadata.name, os);
		return -1;
	}
	if (in->proto && containers_differ(next, in->proto, why, sizeof(why))) {
		out->op = RCU_ERROR;
		snprintf(out->message, sizeof(out->message),
			 "replicationcontroller \"%s\" exists and is not "
			 "the next controller of this update of \"%s\": %s. "
			 "Update to what it runs instead, delete it, or "
			 "choose another name for the new controller",
			 next->metadata.name, old->metadata.name, why);
		return -1;
	}
	return 0;
}

/* Takes a NEXT that check_pair accepted into the update: OLD first
 * (update-partner, original-replicas), then NEXT (update-partner,
 * update-source-id, desired-replicas), so that a run killed between the
 * two finds NEXT still bare and does it again. */
static void
plan_adopt(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *old = in->old, *next = in->next;
	const char *p = strmap_get(&old->metadata.annotations, ANN_RCU_PARTNER);
	char sid[512];
	int64_t v;

	if (!p || strcmp(p, next->metadata.name) ||
	    rcu_ann_int(old, ANN_RCU_ORIGINAL, &v)) {
		step_obj(out, RCU_UPDATE, "adopt-old", old);
		strmap_set(&out->obj.metadata.annotations, ANN_RCU_PARTNER,
			   next->metadata.name);
		if (rcu_ann_int(old, ANN_RCU_ORIGINAL, &v))
			ann_set_int(&out->obj, ANN_RCU_ORIGINAL,
				    rc_replicas(old));
		snprintf(out->message, sizeof(out->message),
			 "Preparing %s for the update to %s",
			 old->metadata.name, next->metadata.name);
		return;
	}
	step_obj(out, RCU_UPDATE, "adopt-next", next);
	source_id(old, sid, sizeof(sid));
	strmap_set(&out->obj.metadata.annotations, ANN_RCU_PARTNER,
		   old->metadata.name);
	strmap_set(&out->obj.metadata.annotations, ANN_RCU_SOURCE, sid);
	if (rcu_desired(next, &v)) {
		v = fill_desired(in);
		ann_set_int(&out->obj, ANN_RCU_DESIRED, v);
	}
	snprintf(out->message, sizeof(out->message),
		 "Taking %s into the update of %s: desired replicas %lld",
		 next->metadata.name, old->metadata.name, (long long)v);
}

/* Before NEXT exists: OLD gets the pointers and, with a label key, the
 * label on its template, its pods and its selector, in that order. */
static bool
plan_prepare_old(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *old = in->old;
	const char *key = in->label_key;
	const char *have_next = rcu_next_of(old);
	const char *tv, *sv, *value;
	int64_t orig;
	bool keyed = key && *key;

	/* tv: the key on OLD's template, sv: in its selector. An OLD made
	 * by an earlier update already has both (deployment=<its hash>):
	 * it keeps that value, which differs from NEXT's, so the selectors
	 * still never overlap. A fresh OLD gets "<hash of OLD>-orig". */
	tv =
	    keyed ? strmap_get(&old->spec.template.metadata.labels, key) : NULL;
	sv = keyed ? strmap_get(&old->spec.selector, key) : NULL;
	value = sv ? sv : tv ? tv : in->old_label_value;
	if (!have_next || strcmp(have_next, in->next_name) ||
	    rcu_ann_int(old, ANN_RCU_ORIGINAL, &orig) || (keyed && !tv)) {
		step_obj(out, RCU_UPDATE, "relabel-old", old);
		strmap_set(&out->obj.metadata.annotations, ANN_RCU_PARTNER,
			   in->next_name);
		if (rcu_ann_int(old, ANN_RCU_ORIGINAL, &orig))
			ann_set_int(&out->obj, ANN_RCU_ORIGINAL,
				    rc_replicas(old));
		if (keyed && !tv)
			strmap_set(&out->obj.spec.template.metadata.labels, key,
				   value);
		if (keyed)
			snprintf(out->message, sizeof(out->message),
				 "Preparing %s for the update to %s (label "
				 "%s=%s)",
				 old->metadata.name, in->next_name, key, value);
		else
			snprintf(out->message, sizeof(out->message),
				 "Preparing %s for the update to %s",
				 old->metadata.name, in->next_name);
		return true;
	}
	/* The template carries the key now, so every pod OLD creates from
	 * here on has it; those it made before get it here. The caller
	 * lists them again on every call (a pod created from a template
	 * read just before the update shows up in the next list). */
	if (keyed && in->nold_unlabeled > 0) {
		size_t i;

		out->op = RCU_LABEL_PODS;
		out->name = "label-pods";
		out->target = old->metadata.name;
		out->label_key = key;
		out->label_value = tv;
		for (i = 0; i < in->nold_unlabeled; i++)
			strlist_push(&out->pods, in->old_unlabeled[i]);
		snprintf(out->message, sizeof(out->message),
			 "Labelling %zu pods of %s with %s=%s",
			 in->nold_unlabeled, old->metadata.name, key, tv);
		return true;
	}
	/* Last the selector: OLD's pods all match it already, so the
	 * ReplicaSet shell neither adopts nor creates (and it counts its
	 * pods by controller reference anyway). */
	if (keyed && !sv) {
		step_obj(out, RCU_UPDATE, "select-old", old);
		strmap_set(&out->obj.spec.selector, key, tv);
		snprintf(out->message, sizeof(out->message),
			 "Adding %s=%s to the selector of %s", key, tv,
			 old->metadata.name);
		return true;
	}
	return false;
}

/* Both exist: scale one of them, wait, or finish (kubectl's
 * RollingUpdater.Update loop body, one step at a time: the scale-up,
 * then after --update-period the scale-down; both controllers must
 * report their size first, as scaleAndWait did). The summary line is
 * kubectl's, printed once by the client. */
static void
plan_rollout(const struct plan_rcu_in *in, int64_t desired,
	     struct plan_rcu_step *out)
{
	const struct replication_controller *old = in->old, *next = in->next;
	int64_t o = rc_replicas(old), n = rc_replicas(next);
	int64_t inc, dec, avail = in->next_available;

	/* e.g. "Scaling up web-next from 0 to 3, scaling down web from 3
	 * to 0 (keep 3 pods available, don't exceed 4 pods)" */
	snprintf(out->summary, sizeof(out->summary),
		 "Scaling up %s from %lld to %lld, scaling down %s from %lld "
		 "to 0 (keep %lld pods available, don't exceed %lld pods)",
		 next->metadata.name, (long long)n, (long long)desired,
		 old->metadata.name, (long long)o, (long long)desired,
		 (long long)desired + 1);
	if (!settled(next) || !settled(old)) {
		const struct replication_controller *w =
		    settled(next) ? old : next;

		out->op = RCU_WAIT;
		snprintf(out->message, sizeof(out->message),
			 "waiting for %s to have %lld pods (has %lld)",
			 w->metadata.name, (long long)rc_replicas(w),
			 (long long)w->status.replicas);
		return;
	}
	if (n == desired && o == 0) {
		out->op = RCU_DELETE;
		out->name = "delete-old";
		out->target = old->metadata.name;
		snprintf(out->message, sizeof(out->message),
			 "Update succeeded. Deleting %s", old->metadata.name);
		return;
	}
	/* scaleUp: fill the surge budget (desired + maxSurge 1) with new
	 * pods; with OLD empty, jump to desired. Example, desired 3: old 3,
	 * new 0 → inc 1; old 2, new 1 → inc 1; old 0, new 2 → inc 1. */
	inc = (desired + 1) - (o + n);
	if (o == 0)
		inc = desired - n;
	if (inc > 0 && n < desired) {
		step_scale(out, "scale-next", next,
			   n + inc > desired ? desired : n + inc);
		return;
	}
	if (o > 0) {
		/* scaleDown: what may go while desired pods stay
		 * available, the new pods not yet available counted as
		 * missing. Example, desired 3: old 3, new 1 with 0
		 * available → 4 - 3 - 1 = 0 (wait); with 1 → 1. */
		/* Once NEXT is full and all available, OLD goes to 0 in
		 * one step: old 1, new 3 with 3 available -> old 0. */
		dec = (o + n) - desired - (n - avail);
		if (n == desired && avail >= desired)
			dec = o;
		if (dec > 0) {
			step_scale(out, "scale-old", old,
				   o - dec < 0 ? 0 : o - dec);
			return;
		}
	}
	out->op = RCU_WAIT;
	snprintf(out->message, sizeof(out->message),
		 "waiting for the pods of %s to become available (%lld of "
		 "%lld)",
		 next->metadata.name, (long long)avail, (long long)n);
}
/* The seed's answer to a rollback with no new controller to roll back
 * from: an error that says to roll out the old version instead. */
static void
nothing_to_roll_back(struct plan_rcu_step *out, const char *name)
{
	out->op = RCU_ERROR;
	snprintf(out->message, sizeof(out->message),
		 "replicationcontrollers \"%s\" not found: nothing to roll "
		 "back; you may want to simply do a new rollout with the old "
		 "version",
		 name);
}

/* Only NEXT exists: the rename (or, NEW named, the last cleanup) of an
 * update of OLD, if NEXT says it is one. On --rollback (roles swapped:
 * NEXT is the original) the in-flight controller is gone: either this
 * rollback already deleted it (the original points back at it), or there
 * is nothing to roll back, which the seed makes an error ("Exit and
 * indicate to the user that they may want to simply do a new rollout
 * with the old version"). */
static void
plan_only_next(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *next = in->next;

	if (in->rollback && !rcu_source_names(next, in->old_name) &&
	    in->acted) {
		out->op = RCU_DONE;
		snprintf(out->message, sizeof(out->message), "%s rolled back",
			 next->metadata.name);
		return;
	}
	if (in->rollback && !rcu_source_names(next, in->old_name)) {
		nothing_to_roll_back(out, in->old_name);
		return;
	}
	if (!rcu_source_names(next, in->old_name)) {
		const char *src =
		    strmap_get(&next->metadata.annotations, ANN_RCU_SOURCE);

		out->op = RCU_ERROR;
		if (src)
			snprintf(out->message, sizeof(out->message),
				 "replicationcontroller \"%s\" is the "
				 "partner of %s, not of \"%s\"",
				 next->metadata.name, src, in->old_name);
		else
			snprintf(out->message, sizeof(out->message),
				 "replicationcontrollers \"%s\" not found",
				 in->old_name);
		if (!src && !in->rename) {
			/* NEXT named, OLD deleted, annotations dropped */
			out->op = RCU_DONE;
			snprintf(out->message, sizeof(out->message),
				 "%s already replaced %s", next->metadata.name,
				 in->old_name);
		}
		return;
	}
	if (in->rename) {
		plan_rename(in, out);
		return;
	}
	step_obj(out, RCU_UPDATE, "clean-next", next);
	strip_annotations(&out->obj);
	snprintf(out->message, sizeof(out->message),
		 "Dropping the update annotations of %s", next->metadata.name);
}

/* Only OLD: done if OLD is the product of this very update (a re-run
 * after the rename), else prepare OLD and create NEXT. */
static void
plan_only_old(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *old = in->old;
	const char *key = in->label_key;
	char sid[512];

	if (!in->rollback && key && *key && in->label_value &&
	    strmap_get(&old->spec.selector, key) &&
	    !strcmp(strmap_get(&old->spec.selector, key), in->label_value)) {
		out->op = RCU_DONE;
		snprintf(out->message, sizeof(out->message),
			 "%s is already at this template (%s=%s)", in->old_name,
			 key, in->label_value);
		return;
	}
	if (in->rollback || in->proto == NULL) {
		nothing_to_roll_back(out, in->next_name);
		return;
	}
	if (plan_prepare_old(in, out))
		return;
	step_obj(out, RCU_CREATE, "create-next", in->proto);
	free(out->obj.metadata.name);
	out->obj.metadata.name = xstrdup(in->next_name);
	out->target = out->obj.metadata.name;
	out->obj.spec.replicas.set = true;
	out->obj.spec.replicas.v = 0;
	source_id(old, sid, sizeof(sid));
	strmap_set(&out->obj.metadata.annotations, ANN_RCU_SOURCE, sid);
	strmap_set(&out->obj.metadata.annotations, ANN_RCU_PARTNER,
		   old->metadata.name);
	ann_set_int(&out->obj, ANN_RCU_DESIRED,
		    in->desired >= 0 ? in->desired : rc_replicas(old));
	snprintf(out->message, sizeof(out->message), "Created %s",
		 in->next_name);
}

/* --rollback with both: NEXT is the original controller; it takes back
 * its original size and points at the in-flight one (the seed's "set
 * desired-replicas annotation on foo to match the annotation on
 * foo-next"), once. true when out holds a step or an error. The
 * in-flight controller must be in an update of the original: a
 * controller that merely has the name is not rolled back (and
 * deleted). */
static bool
plan_point_back(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *old = in->old, *next = in->next;
	char sid[512];
	const char *src =
	    strmap_get(&next->metadata.annotations, ANN_RCU_SOURCE);
	int64_t orig;

	source_id(old, sid, sizeof(sid));
	if (src && !strcmp(src, sid) && rcu_desired(next, &orig) == 0)
		return false;
	if (!rcu_source_names(old, next->metadata.name)) {
		out->op = RCU_ERROR;
		snprintf(out->message, sizeof(out->message),
			 "replicationcontroller \"%s\" is not the next "
			 "controller of an update of \"%s\": nothing to "
			 "roll back",
			 old->metadata.name, next->metadata.name);
		return true;
	}
	if (rcu_ann_int(next, ANN_RCU_ORIGINAL, &orig) &&
	    rcu_desired(old, &orig))
		orig = rc_replicas(old) + rc_replicas(next);
	step_obj(out, RCU_UPDATE, "point-back", next);
	strmap_set(&out->obj.metadata.annotations, ANN_RCU_SOURCE, sid);
	strmap_set(&out->obj.metadata.annotations, ANN_RCU_PARTNER,
		   old->metadata.name);
	strmap_del(&out->obj.metadata.annotations, ANN_KUBECTL_DESIRED);
	ann_set_int(&out->obj, ANN_RCU_DESIRED, orig);
	snprintf(out->message, sizeof(out->message),
		 "Rolling back: %s returns to %lld replicas",
		 next->metadata.name, (long long)orig);
	return true;
}

/* Forward with both: NEXT must be OLD's partner (or fit to become one,
 * then taken in) and at the template this run asks for. true when out
 * holds a step or an error. */
static bool
plan_check_next(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *next = in->next;
	const char *v = NULL;
	char why[256] = "";
	int r = check_partner(in, out);

	if (r < 0)
		return true;
	if (r > 0) {
		if (check_pair(in, out) == 0)
			plan_adopt(in, out);
		return true;
	}
	if (in->label_key && *in->label_key && in->label_value) {
		v = strmap_get(&next->spec.selector, in->label_key);
		if (v && !strcmp(v, in->label_value))
			v = NULL;
	}
	if (v == NULL && in->proto &&
	    containers_differ(next, in->proto, why, sizeof(why)))
		v = why;
	if (v) {
		out->op = RCU_ERROR;
		snprintf(out->message, sizeof(out->message),
			 "an update of %s to another template is in "
			 "progress (%s, %s%s%s): run it again with "
			 "the same arguments, or abort it with "
			 "--rollback",
			 in->old_name, next->metadata.name,
			 v == why ? "" : in->label_key, v == why ? "" : "=", v);
		return true;
	}
	return false;
}

/* The dispatcher: the seed's initialization table, in order.
 *   rename in progress (NEXT being deleted)  → plan_rename
 *   neither exists                           → error, OLD not found
 *   only NEXT                                → the rename, or (NEW
 *                                              named) its cleanup
 *   only OLD                                 → prepare OLD, create NEXT
 *   both                                     → check the partner (or
 *                                              take NEXT in), fill
 *                                              desired-replicas, rollout
 * With --rollback (roles swapped by the caller) "both" first re-points
 * NEXT (the original) at the in-flight controller. */
void
plan_rcu(const struct plan_rcu_in *in, struct plan_rcu_step *out)
{
	const struct replication_controller *old = in->old, *next = in->next;
	int64_t desired;

	memset(out, 0, sizeof(*out));
	if (in->rename && next &&
	    next->metadata.deletion_timestamp != DTIME_UNSET) {
		plan_rename(in, out);
		return;
	}
	if (old && old->metadata.deletion_timestamp != DTIME_UNSET) {
		out->op = RCU_WAIT;
		snprintf(out->message, sizeof(out->message),
			 "waiting for %s to be deleted", old->metadata.name);
		return;
	}
	if (old == NULL && next == NULL) {
		out->op = RCU_ERROR;
		snprintf(out->message, sizeof(out->message),
			 "replicationcontrollers \"%s\" not found",
			 in->old_name);
		return;
	}
	if (old == NULL) {
		plan_only_next(in, out);
		return;
	}
	if (next == NULL) {
		plan_only_old(in, out);
		return;
	}
	if (next->metadata.deletion_timestamp != DTIME_UNSET) {
		out->op = RCU_WAIT;
		snprintf(out->message, sizeof(out->message),
			 "waiting for %s to be deleted", next->metadata.name);
		return;
	}
	if (in->rollback ? plan_point_back(in, out) : plan_check_next(in, out))
		return;
	if (rcu_desired(next, &desired)) {
		/* the seed: "populate the desired-replicas annotation" */
		desired = fill_desired(in);
		step_obj(out, RCU_UPDATE, "annotate-next", next);
		ann_set_int(&out->obj, ANN_RCU_DESIRED, desired);
		snprintf(out->message, sizeof(out->message),
			 "Setting the desired replicas of %s to %lld",
			 next->metadata.name, (long long)desired);
		return;
	}
	plan_rollout(in, desired, out);
}

const char *
rcu_key_in_progress(const struct replication_controller *next, const char *key)
{
	if (strmap_get(&next->spec.selector, key) == NULL &&
	    strmap_get(&next->spec.selector, RCU_LABEL_KEY_KUBECTL))
		return RCU_LABEL_KEY_KUBECTL;
	return key;
}

bool
plan_rcu_resumes(const struct plan_rcu_in *in,
		 const struct plan_rcu_step *first)
{
	return !in->rollback && in->next != NULL && first->op != RCU_ERROR &&
	       first->op != RCU_DONE;
}

void
plan_rcu_step_release(struct plan_rcu_step *s)
{
	if (s->has_obj)
		rc_release(&s->obj);
	strlist_release(&s->pods);
	memset(s, 0, sizeof(*s));
}

/* ---- the preview ----
 *
 * drover rolling-update --dry-run and drover plan --rc-update: the same
 * plan_rcu calls on private copies of OLD and NEXT, applying each step
 * as the API and the controllers would (a create gets a uid and
 * generation 1, an update bumps the generation, a scale is reported at
 * once, a finalizer-free deleted object vanishes) and making every new
 * pod available at once, so the only steps left are writes. A plan that
 * would wait here never ends; a cap of 10,000 steps turns that into an
 * error rather than a hang. */

/* A copy that owns itself, or NULL. */
static struct replication_controller *
dup_rc(const struct replication_controller *rc)
{
	struct replication_controller *c;

	if (rc == NULL)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	rc_copy(c, rc);
	return c;
}

/* Frees a dup_rc() copy; NULL is fine. */
static void
free_rc(struct replication_controller *rc)
{
	if (rc) {
		rc_release(rc);
		free(rc);
	}
}

/* The written object as the API would store it and its controller
 * would report it: generation bumped, the pods there at once. */
static struct replication_controller *
stored(const struct replication_controller *w, int64_t gen, const char *uid)
{
	struct replication_controller *c = dup_rc(w);

	c->metadata.generation = gen;
	if (c->metadata.uid == NULL)
		c->metadata.uid = xstrdup(uid);
	c->status.observed_generation = gen;
	c->status.replicas = rc_replicas(c);
	return c;
}

/* The loop over the steps: each step's line goes to out, then the step
 * is applied to the copies. *t picks the copy a step acts on by name
 * (OLD's, else NEXT's: the rename creates OLD's name again, which the
 * CREATE case tells apart). */
int
plan_rcu_preview(const struct plan_rcu_in *given, struct strbuf *out)
{
	struct plan_rcu_in in = *given;
	struct replication_controller *old = dup_rc(given->old);
	struct replication_controller *next = dup_rc(given->next);
	struct plan_rcu_step s;
	bool summarized = false;
	int rc = -1, i, n = 0;

	for (i = 0; i < 10000; i++) {
		struct replication_controller **t;

		in.old = old;
		in.next = next;
		in.next_available = next ? rc_replicas(next) : 0;
		in.acted = n > 0;
		plan_rcu(&in, &s);
		if (i == 0 && plan_rcu_resumes(&in, &s))
			strbuf_addf(out,
				    "Continuing update with existing "
				    "controller %s.\n",
				    next->metadata.name);
		if (s.summary[0] && !summarized) {
			strbuf_addf(out, "%s\n", s.summary);
			summarized = true;
		}
		if (s.op == RCU_WAIT || s.op == RCU_ERROR || s.op == RCU_DONE) {
			/* every pod is available at once here: a wait
			 * would never end */
			if (s.op == RCU_DONE) {
				if (n == 0)
					strbuf_addf(out, "%s\n", s.message);
				rc = 0;
			} else {
				strbuf_addf(out, "error: %s\n", s.message);
			}
			plan_rcu_step_release(&s);
			break;
		}
		n++;
		strbuf_addf(out, "%s\n", s.message);
		t = old && s.target && !strcmp(s.target, old->metadata.name)
			? &old
			: &next;
		switch (s.op) {
		case RCU_CREATE:
			if (!strcmp(s.target, given->old_name)) {
				/* the renamed controller: the end */
				free_rc(old);
				old = stored(&s.obj, 1, "preview-final");
			} else {
				free_rc(next);
				next = stored(&s.obj, 1, "preview-next");
			}
			break;
		case RCU_UPDATE: {
			struct replication_controller *w =
			    stored(&s.obj, (*t)->metadata.generation + 1, "");

			free_rc(*t);
			*t = w;
			/* the garbage collector drops a finalizer-free
			 * deleted object */
			if (w->metadata.deletion_timestamp != DTIME_UNSET &&
			    w->metadata.finalizers.n == 0) {
				free_rc(*t);
				*t = NULL;
			}
			break;
		}
		case RCU_SCALE:
			(*t)->spec.replicas.set = true;
			(*t)->spec.replicas.v = s.to;
			(*t)->metadata.generation++;
			(*t)->status.observed_generation =
			    (*t)->metadata.generation;
			(*t)->status.replicas = s.to;
			break;
		case RCU_LABEL_PODS:
			in.old_unlabeled = NULL;
			in.nold_unlabeled = 0;
			break;
		case RCU_DELETE:
			free_rc(*t);
			*t = NULL;
			break;
		case RCU_DELETE_ORPHAN:
			/* released at once; the finalizer keeps it */
			(*t)->metadata.deletion_timestamp = 1;
			break;
		default:
			break;
		}
		plan_rcu_step_release(&s);
		if (i == 9999)
			strbuf_addstr(out, "error: the plan does not end\n");
	}
	if (rc == 0)
		strbuf_addf(out, "Update complete: %s\n",
			    given->rename ? given->old_name : given->next_name);
	free_rc(old);
	free_rc(next);
	return rc;
}
