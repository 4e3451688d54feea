/* plan_deploy_rollback.c - Kubernetes' rollback.go: the legacy rollback
 * annotation: the template of the revision asked for copied back (spec
 * §13.2). Part of plan_deploy (see plan_deploy.c and plan_deploy_int.h). */
#include <string.h>

#include "deploy_util.h"
#include "plan_deploy_int.h"
#include "xalloc.h"

/* ---- rollback, legacy annotation path (§13.2) ---- */

/* getRollbackTo: the revision the annotation asks for. "3" -> 3, "0" ->
 * 0 (the previous revision); absent, "", "abc" or "3x" -> false, and an
 * invalid value is ignored as Kubernetes ignores it: the sync goes on
 * as if there were no request, and the annotation stays. */
bool
pd_rollback_to(const struct deployment *d, int64_t *rev)
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

/* Every outcome ends here: the request is answered once, found or not,
 * by dropping the annotation in a normal update of the Deployment (the
 * template change, if any, rides in the same write). */
static void
clear_rollback_to(struct st *st)
{
	strmap_del(&st->d->metadata.annotations, ANN_ROLLBACK_TO);
	pd_write_deployment(st);
}

/* What rollback() decided; every outcome clears the annotation. */
struct rollback_decision {
	enum {
		RB_NO_LAST,   /* revision 0 asked, no previous revision */
		RB_NOT_FOUND, /* no RS carries the revision asked for */
		RB_UNCHANGED, /* that RS's template is the current one */
		RB_ROLL_BACK, /* copy rs's template back to the Deployment */
	} kind;
	int64_t target;              /* the revision rolled back to */
	const struct replicaset *rs; /* RB_UNCHANGED, RB_ROLL_BACK */
};

/* rollback(): revision 0 means the previous one (LastRevision, the
 * second highest: with RSes at revisions 3, 5 and 6, the current is 6
 * and 0 means 5). The first RS (in all[]'s order) at the target revision
 * decides. all[] may hold NULL.
 *
 * Examples, RSes at 1 (template A) and 2 (template B, the Deployment's):
 * rollbackTo 1 or 0 -> RB_ROLL_BACK to A; rollbackTo 2 -> RB_UNCHANGED;
 * rollbackTo 7 -> RB_NOT_FOUND. With a single RS at 1, 0 asks for a
 * previous revision that does not exist: RB_NO_LAST. An RS whose
 * revision annotation does not parse is never a target. */
static struct rollback_decision
rollback_decision(const struct deployment *d,
		  const struct replicaset *const *all, size_t n)
{
	struct rollback_decision r = {.kind = RB_NOT_FOUND};
	size_t i;
	int64_t rev;

	pd_rollback_to(d, &r.target);
	if (r.target == 0) {
		r.target = last_revision(rs_rw(all), n);
		if (r.target == 0) {
			r.kind = RB_NO_LAST;
			return r;
		}
	}
	for (i = 0; i < n; i++) {
		if (all[i] == NULL || rs_revision(all[i], &rev) ||
		    rev != r.target)
			continue;
		r.rs = all[i];
		r.kind = rs_matches_template(d, all[i]) ? RB_UNCHANGED
							: RB_ROLL_BACK;
		return r;
	}
	return r;
}

/* rollbackToTemplate: the Deployment takes rs's template (without the
 * pod-template-hash label) and rs's annotations, keeping its own
 * annotations that are never copied (skip_copy_annotation: revision,
 * last-applied and the like) and dropping the others (setDeployment
 * AnnotationsTo).
 *
 * Example: the Deployment has {revision: 3, change-cause: "v3", team:
 * a}, the RS {revision: 1, change-cause: "v1", desired-replicas: 10}.
 * Result: {revision: 3, change-cause: "v1"}. team goes (only the RS's
 * annotations come back), desired-replicas is skip-listed and not
 * copied. `kubectl rollout undo` writes the same set (spec §13.1).
 * The hash label is dropped because it is the RS's alone: a
 * Deployment's template never carries one (and rs_matches_template
 * ignores it, so the next sync finds rs as the new RS either way). */
static void
roll_back_to(struct deployment *d, const struct replicaset *rs)
{
	struct strmap keep = {0};
	const struct strmap *ra = &rs->metadata.annotations;
	size_t k;

	pod_template_release(&d->spec.template);
	pod_template_copy(&d->spec.template, &rs->spec.template);
	strmap_del(&d->spec.template.metadata.labels, LABEL_POD_TEMPLATE_HASH);
	for (k = 0; k < d->metadata.annotations.n; k++)
		if (skip_copy_annotation(d->metadata.annotations.v[k].key))
			strmap_set(&keep, d->metadata.annotations.v[k].key,
				   d->metadata.annotations.v[k].value);
	for (k = 0; k < ra->n; k++)
		if (!skip_copy_annotation(ra->v[k].key))
			strmap_set(&keep, ra->v[k].key, ra->v[k].value);
	strmap_release(&d->metadata.annotations);
	d->metadata.annotations = keep;
}

/* rollback (§13.2): decide, then apply: the template copied back (the
 * next sync rolls it out), an event, the annotation cleared.
 *
 * As in Kubernetes the new RS of the current template is found or
 * created first (create is true), and nothing is resized here. Example:
 * RSes at 1 (A), 2 (B), 3 (C, current), rollbackTo 0: the target is 2,
 * the template becomes B, event "Rolled back deployment "web" to
 * revision 2". The next sync finds the revision-2 RS as the new RS and
 * renumbers it 4 with revision-history "2" (set_new_rs_annotations),
 * then rolls out towards it under the usual surge and unavailable
 * limits. On a hash collision the step fails before deciding and the
 * annotation stays, so the request is retried with the step. */
void
pd_rollback(struct st *st)
{
	struct deployment *d = st->d;
	struct replicaset *new_rs, **old, **all;
	struct rollback_decision r;
	size_t nold;

	if (pd_get_all_rs(st, true, &new_rs, &old, &nold))
		return;
	all = xmalloc((nold + 1) * sizeof(*all));
	memcpy(all, old, nold * sizeof(*all));
	all[nold] = new_rs;
	free(old);
	r = rollback_decision(d, rs_ro(all), nold + 1);
	switch (r.kind) {
	case RB_NO_LAST:
		event_add(&st->out->events, "Warning",
			  "DeploymentRollbackRevisionNotFound",
			  "Unable to find last revision.");
		break;
	case RB_NOT_FOUND:
		event_add(&st->out->events, "Warning",
			  "DeploymentRollbackRevisionNotFound",
			  "Unable to find the revision to rollback to.");
		break;
	case RB_UNCHANGED:
		event_add(&st->out->events, "Warning",
			  "DeploymentRollbackTemplateUnchanged",
			  "The rollback revision contains the same "
			  "template as current deployment \"%s\"",
			  d->metadata.name);
		break;
	case RB_ROLL_BACK:
		roll_back_to(d, r.rs);
		event_add(&st->out->events, "Normal", "DeploymentRollback",
			  "Rolled back deployment \"%s\" to revision %lld",
			  d->metadata.name, (long long)r.target);
		break;
	}
	clear_rollback_to(st);
	free(all);
}
