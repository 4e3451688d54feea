/* rollout.c - kubectl's rollout status / history / undo logic, as pure
 * functions over objects the CLI has already read (spec/deployment.md
 * §13.1, §15). kubectl's own code lives in
 * k8s.io/kubectl/pkg/polymorphichelpers (rollout_status.go:
 * DeploymentStatusViewer.Status; history.go; rollback.go:
 * DeploymentRollbacker and deploymentRevision). The CLI watches, prints
 * and writes; nothing here does I/O.
 *
 * A worked example of status during a 3-replica rollout, observed
 * generation caught up:
 *
 *   updated 1, replicas 4, available 3 -> "1 out of 3 new replicas have
 *                                          been updated..."
 *   updated 3, replicas 4, available 3 -> "1 old replicas are pending
 *                                          termination..."
 *   updated 3, replicas 3, available 2 -> "2 of 3 updated replicas are
 *                                          available..."
 *   updated 3, replicas 3, available 3 -> "successfully rolled out"
 *
 * It never reads the Available condition nor NewReplicaSetAvailable:
 * done means counts, exactly as kubectl. */
#include <stdlib.h>
#include <string.h>

#include "deploy_util.h"
#include "rollout.h"
#include "tmplhash.h"
#include "xalloc.h"

/* One evaluation of the status viewer; the CLI calls it on every watch
 * event until it returns DONE or FAILED. The checks are ordered as in
 * kubectl: revision, observed generation, deadline, then the three
 * count conditions; the first that applies decides. Waiting messages
 * end with '\n' (kubectl prints them as they are), errors do not
 * (kubectl prefixes "error: " and adds the newline). msg is the
 * caller's, appended to. */
enum rollout_state
rollout_status(const struct deployment *d, int64_t revision, struct strbuf *msg)
{
	const char *name = d->metadata.name ? d->metadata.name : "";
	const struct deployment_status *st = &d->status;
	const struct condition *c;

	/* --revision=N: the Deployment's revision annotation must be N.
	 * A missing or unparsable annotation never equals N (strtoll gives
	 * 0 and N > 0), and prints as an empty string. */
	if (revision > 0) {
		const char *cur =
		    strmap_get(&d->metadata.annotations, ANN_REVISION);

		if (cur == NULL || strtoll(cur, NULL, 10) != revision) {
			strbuf_addf(msg,
				    "desired revision (%lld) is different from "
				    "the running revision (%s)",
				    (long long)revision, cur ? cur : "");
			return ROLLOUT_FAILED;
		}
	}
	/* The controller has not seen the latest spec: every count below
	 * could describe the previous template, so none of them is
	 * trusted. */
	if (d->metadata.generation > st->observed_generation) {
		strbuf_addstr(msg, "Waiting for deployment spec update to be "
				   "observed...\n");
		return ROLLOUT_WAITING;
	}
	c = condition_get(&st->conditions, "Progressing");
	if (c && c->reason && !strcmp(c->reason, REASON_TIMED_OUT)) {
		strbuf_addf(msg,
			    "deployment \"%s\" exceeded its progress "
			    "deadline",
			    name);
		return ROLLOUT_FAILED;
	}
	/* spec.replicas is defaulted to 1 by the API server, so "unset"
	 * only happens for objects read from files; kubectl skips the
	 * check then, and so does this. */
	if (d->spec.replicas.set && st->updated_replicas < d->spec.replicas.v) {
		strbuf_addf(msg,
			    "Waiting for deployment \"%s\" rollout to finish: "
			    "%lld out of %lld new replicas have been "
			    "updated...\n",
			    name, (long long)st->updated_replicas,
			    (long long)d->spec.replicas.v);
		return ROLLOUT_WAITING;
	}
	/* status.replicas counts every live pod of every RS, so this is
	 * the number of old pods still there (surge, or not yet scaled
	 * down). */
	if (st->replicas > st->updated_replicas) {
		strbuf_addf(msg,
			    "Waiting for deployment \"%s\" rollout to finish: "
			    "%lld old replicas are pending termination...\n",
			    name,
			    (long long)(st->replicas - st->updated_replicas));
		return ROLLOUT_WAITING;
	}
	if (st->available_replicas < st->updated_replicas) {
		strbuf_addf(msg,
			    "Waiting for deployment \"%s\" rollout to finish: "
			    "%lld of %lld updated replicas are available...\n",
			    name, (long long)st->available_replicas,
			    (long long)st->updated_replicas);
		return ROLLOUT_WAITING;
	}
	strbuf_addf(msg, "deployment \"%s\" successfully rolled out\n", name);
	return ROLLOUT_DONE;
}

/* Ascending revision. RSes whose annotation does not parse never get
 * here (rollout_history filters them). Equal revisions (two RSes
 * claiming the same number, which the controller never writes) come
 * out in qsort's unspecified order. */
static int
cmp_rev(const void *a, const void *b)
{
	int64_t x, y;

	rs_revision(*(struct replicaset *const *)a, &x);
	rs_revision(*(struct replicaset *const *)b, &y);
	return x < y ? -1 : x > y;
}

/* The rows of `rollout history`: RSes with a revision >= 1, ascending.
 * *out is one calloc'd array of pointers into rs (the caller frees the
 * array, not the RSes; rs must outlive it). nrs + 1 entries are
 * allocated so that an empty result is still a valid array. RSes
 * without a revision annotation are left out; kubectl would list them
 * as revision 0. */
void
rollout_history(struct replicaset *const *rs, size_t nrs,
		struct replicaset ***out, size_t *n)
{
	size_t i;
	int64_t r;

	*out = xcalloc(nrs + 1, sizeof(**out));
	*n = 0;
	for (i = 0; i < nrs; i++)
		if (rs_revision(rs[i], &r) == 0 && r > 0)
			(*out)[(*n)++] = rs[i];
	xqsort(*out, *n, sizeof(**out), cmp_rev);
}

/* `kubectl rollout undo` (spec §13.1, kubectl's deploymentRevision and
 * DeploymentRollbacker.Rollback). rs is every RS of the Deployment (old
 * and new). r is overwritten; release it with undo_result_release
 * whatever its kind.
 *
 * Target: --to-revision N > 0 picks the RS with revision N (the last one
 * in rs if several claim it; kubectl takes the first). N == 0 picks the
 * second-highest revision, found in one pass that keeps the highest and
 * the second highest seen so far. Example: revisions 3, 5, 4 in that
 * order: after 3 max=3; after 5 max=5, second=3 (target the RS of 3);
 * after 4 second=4 (target that RS). Two RSes both at the highest
 * revision make that number the second highest too, as in kubectl.
 *
 * The patch (UNDO_PATCH): the target's template without the
 * pod-template-hash label (the controller adds it back, and the RS is
 * found again by template equality), and the annotations: the
 * Deployment's own skip-listed ones (revision, desired/max replicas,
 * last-applied configuration...) kept, every other one taken from the
 * target RS. The caller writes both with one update; the controller
 * then adopts the old RS as the new one and renumbers it max + 1
 * (plan_deploy_rollback.c is the legacy server-side path). */
void
rollout_undo(const struct deployment *d, struct replicaset *const *rs,
	     size_t nrs, int64_t to_revision, const char *kind_name,
	     struct undo_result *r)
{
	const struct replicaset *target = NULL;
	int64_t rev, max = 0, second = 0;
	size_t i;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->message);
	if (to_revision < 0) {
		r->kind = UNDO_ERROR;
		strbuf_addf(&r->message,
			    "unable to find specified revision %lld in history",
			    (long long)to_revision);
		return;
	}
	if (to_revision > 0) {
		for (i = 0; i < nrs; i++)
			if (rs_revision(rs[i], &rev) == 0 && rev == to_revision)
				target = rs[i];
		if (target == NULL) {
			r->kind = UNDO_ERROR;
			strbuf_addf(&r->message,
				    "unable to find specified revision %lld in "
				    "history",
				    (long long)to_revision);
			return;
		}
	} else {
		/* max/tmax: the highest revision and its RS;
		 * second/target: the second highest and its RS. */
		const struct replicaset *tmax = NULL;

		for (i = 0; i < nrs; i++) {
			if (rs_revision(rs[i], &rev) || rev <= 0)
				continue;
			if (rev > max) {
				second = max;
				target = tmax;
				max = rev;
				tmax = rs[i];
			} else if (rev > second) {
				second = rev;
				target = rs[i];
			}
		}
		if (second == 0 || target == NULL) {
			r->kind = UNDO_ERROR;
			strbuf_addf(&r->message,
				    "no rollout history found for deployment "
				    "\"%s\"",
				    d->metadata.name);
			return;
		}
	}
	rs_revision(target, &r->revision);
	/* Checked after the target is found, as kubectl does, so that a
	 * bad --to-revision is reported even on a paused Deployment. */
	if (d->spec.paused) {
		r->kind = UNDO_ERROR;
		strbuf_addstr(&r->message,
			      "you cannot rollback a paused deployment; resume "
			      "it first with 'kubectl rollout resume' and try "
			      "again");
		return;
	}
	if (tmpl_equal_ignore_hash(&d->spec.template, &target->spec.template)) {
		r->kind = UNDO_SKIPPED;
		strbuf_addf(&r->message,
			    "%s skipped rollback (current template already "
			    "matches revision %lld)",
			    kind_name, (long long)r->revision);
		return;
	}
	r->kind = UNDO_PATCH;
	pod_template_copy(&r->template, &target->spec.template);
	strmap_del(&r->template.metadata.labels, LABEL_POD_TEMPLATE_HASH);
	for (i = 0; i < d->metadata.annotations.n; i++)
		if (skip_copy_annotation(d->metadata.annotations.v[i].key))
			strmap_set(&r->annotations,
				   d->metadata.annotations.v[i].key,
				   d->metadata.annotations.v[i].value);
	for (i = 0; i < target->metadata.annotations.n; i++)
		if (!skip_copy_annotation(
			target->metadata.annotations.v[i].key))
			strmap_set(&r->annotations,
				   target->metadata.annotations.v[i].key,
				   target->metadata.annotations.v[i].value);
	strbuf_addf(&r->message, "%s rolled back", kind_name);
}

/* Safe on every kind: members never set are zeroed by rollout_undo's
 * memset. */
void
undo_result_release(struct undo_result *r)
{
	strbuf_release(&r->message);
	pod_template_release(&r->template);
	strmap_release(&r->annotations);
}
