/* apps_validate.c - ValidateDeployment and ValidateReplicaSet
 * (apps_validate.h), with Kubernetes' field paths and messages. Where
 * each rule comes from (pkg/apis/apps/validation/validation.go):
 * ValidateDeploymentSpec, ValidateDeploymentStrategy,
 * ValidateRollingUpdateDeployment, ValidatePositiveIntOrPercent,
 * IsNotMoreThan100Percent, ValidateReplicaSetSpec,
 * ValidatePodTemplateSpecForReplicaSet; drover's InPlaceUpdate strategy
 * follows the rolling update's rules for its one knob. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps_validate.h"
#include "core_validate.h"
#include "intstr.h"
#include "labels.h"
#include "validation.h"
#include "xalloc.h"

/* Selector and template shared by Deployment and ReplicaSet
 * (ValidateDeploymentSpec, ValidateReplicaSetSpec and
 * ValidatePodTemplateSpecForReplicaSet).
 *
 * The order of the errors, as Kubernetes appends them:
 *   1. selector missing (Required), else ValidateLabelSelector's errors,
 *      then "empty selector is invalid for deployment" (a selector with
 *      neither matchLabels nor matchExpressions), then "invalid label
 *      selector" when the selector could not be converted;
 *   2. the template's labels must match the selector, unless the
 *      selector is empty (matches everything) or invalid (not compared);
 *   3. ValidatePodTemplateSpec: labels, annotations, pod spec;
 *   4. restartPolicy must be Always (a ReplicaSet's pods must keep
 *      running) and activeDeadlineSeconds is forbidden (it would kill
 *      them all at a fixed age).
 *
 * Example: selector {app: web}, template labels {app: api}:
 *   spec.template.metadata.labels: Invalid value:
 *   map[string]string{"app":"api"}: `selector` does not match template
 *   `labels`
 *
 * Difference: when the selector is invalid Kubernetes skips the whole
 * template (3 and 4 included); drover still reports the template's own
 * errors. rs_always is true for both callers today. */
static void
validate_selector_template(const struct label_selector *sel,
			   const struct pod_template *t,
			   struct fielderr_list *errs, bool rs_always)
{
	struct strbuf p = STRBUF_INIT;
	bool bad = false;

	if (sel == NULL) {
		fielderr_add(errs, FE_REQUIRED, "spec.selector", NULL, "");
	} else {
		size_t before = errs->n;

		validate_selector(sel, "spec.selector", errs);
		bad = errs->n != before;
		val_render_selector(sel, &p);
		/* ReplicaSet reuses the Deployment's message verbatim. */
		if (selector_is_empty(sel))
			fielderr_add(errs, FE_INVALID, "spec.selector", p.buf,
				     "empty selector is invalid for "
				     "deployment");
		/* LabelSelectorAsSelector fails on what validation
		 * refused; the template is then not compared. */
		if (bad)
			fielderr_add(errs, FE_INVALID, "spec.selector", p.buf,
				     "invalid label selector");
		strbuf_reset(&p);
	}
	/* A missing selector converts to "nothing", which matches no
	 * labels; an empty one to "everything", which is not checked. */
	if (sel == NULL || (!bad && !selector_is_empty(sel) &&
			    !selector_matches(sel, &t->metadata.labels))) {
		val_render_map(&t->metadata.labels, &p);
		fielderr_add(errs, FE_INVALID, "spec.template.metadata.labels",
			     p.buf,
			     "`selector` does not match template `labels`");
	}
	/* ValidatePodTemplateSpec checks the template's labels and
	 * annotations under spec.template, not spec.template.metadata. */
	validate_labels(&t->metadata.labels, "spec.template.labels", errs);
	validate_annotations(&t->metadata.annotations,
			     "spec.template.annotations", errs);
	validate_pod_spec(&t->spec, "spec.template.spec", errs);
	if (rs_always && t->spec.restart_policy &&
	    strcmp(t->spec.restart_policy, "Always"))
		fielderr_addf_str(
		    errs, FE_NOT_SUPPORTED, "spec.template.spec.restartPolicy",
		    t->spec.restart_policy, "supported values: \"Always\"");
	if (t->spec.active_deadline_seconds.set)
		fielderr_add(errs, FE_FORBIDDEN,
			     "spec.template.spec.activeDeadlineSeconds", NULL,
			     "activeDeadlineSeconds in ReplicaSet is not "
			     "Supported");
	strbuf_release(&p);
}

/* A maxUnavailable of 0 refused on path with detail: its value as
 * written (0 as 0, "0%" as "0%"). */
static void
zero_unavailable(const struct intstr *v, const char *path, const char *detail,
		 struct fielderr_list *errs)
{
	struct strbuf s = STRBUF_INIT;

	if (v->type == INTSTR_STRING)
		strbuf_addjsonstr(&s, v->sval);
	else
		strbuf_addf(&s, "%lld", (long long)v->ival);
	fielderr_add(errs, FE_INVALID, path, s.buf, detail);
	strbuf_release(&s);
}

/* ValidateRollingUpdateDeployment. The both-zero rule looks at the raw
 * numbers, not the resolved counts (getIntOrPercentValue: 0 and "0%" are
 * zero, and so is a malformed string): maxSurge 0 with maxUnavailable
 * "1%" of 1 replica resolves to 0 unavailable (it rounds down) yet is
 * accepted, and ResolveFenceposts then makes maxUnavailable 1 so the
 * rollout still moves. The error is on
 * maxUnavailable with its value as written: 0 prints as 0, "0%" as
 * "0%". maxSurge may exceed 100% (200% of 4 = 8 extra pods);
 * maxUnavailable may not (more than every pod unavailable is
 * meaningless). */
static void
validate_rolling_update(const struct rolling_update *ru,
			struct fielderr_list *errs)
{
	const char *ps = "spec.strategy.rollingUpdate.maxSurge";
	const char *pu = "spec.strategy.rollingUpdate.maxUnavailable";

	/* Kubernetes' order: maxUnavailable's form, maxSurge's form, the
	 * both-zero rule, the 100% cap. The both-zero rule runs even after
	 * a form error: maxUnavailable "-5%" with maxSurge 0 gets the
	 * percent error and "may not be 0" both ("-5%" reads as 0). */
	validate_intstr_nonneg(&ru->max_unavailable, pu, errs);
	validate_intstr_nonneg(&ru->max_surge, ps, errs);
	if (intstr_raw_value(&ru->max_unavailable) == 0 &&
	    intstr_raw_value(&ru->max_surge) == 0)
		zero_unavailable(&ru->max_unavailable, pu,
				 "may not be 0 when `maxSurge` is 0", errs);
	validate_not_over_100_percent(&ru->max_unavailable, pu, errs);
}

/* spec.strategy.inPlaceUpdate: Kubernetes' checks of a rollingUpdate's
 * maxUnavailable with maxSurge fixed at 0 (an in-place update never
 * surges): not negative, a valid percent, not 0 (0 and "0%" would never
 * let a pod update: Kubernetes' "may not be 0 when `maxSurge` is 0"),
 * not more than 100%. "1%" of 5 rounds down to 0 and is accepted, the
 * budget then being 1 (inplace_max_unavailable); 7 of 5 is accepted and
 * clamped to 5, as Kubernetes accepts an integer above replicas. */
static void
validate_in_place_update(const struct in_place_update *ip,
			 struct fielderr_list *errs)
{
	const char *pu = "spec.strategy.inPlaceUpdate.maxUnavailable";
	size_t before = errs->n;

	/* Unlike the rolling rule, "may not be 0" is only said of a value
	 * that is otherwise well formed: "-5%" gets one error, not two. */
	validate_intstr_nonneg(&ip->max_unavailable, pu, errs);
	if (errs->n == before && intstr_raw_value(&ip->max_unavailable) == 0)
		zero_unavailable(&ip->max_unavailable, pu,
				 "may not be 0 when strategy `type` is "
				 "'InPlaceUpdate' (there is no surge)",
				 errs);
	validate_not_over_100_percent(&ip->max_unavailable, pu, errs);
}

/* ValidateDeployment = ValidateObjectMeta + ValidateDeploymentSpec, in
 * Kubernetes' order: replicas, selector and template, strategy,
 * minReadySeconds, revisionHistoryLimit, progressDeadlineSeconds. The
 * spec's rollbackTo (extensions/v1beta1) is not modelled. Status is not
 * validated (it is the controller's). */
void
validate_deployment(const struct deployment *d, struct fielderr_list *errs)
{
	const struct deployment_spec *s = &d->spec;
	const char *type = s->strategy.type ? s->strategy.type : "";

	validate_object_meta(&d->metadata, true, "metadata", errs);
	val_nonneg_opt(&s->replicas, "spec.replicas", errs);
	validate_selector_template(s->selector, &s->template, errs, true);
	if (!strcmp(type, "Recreate")) {
		if (s->strategy.rolling_update)
			fielderr_add(errs, FE_FORBIDDEN,
				     "spec.strategy.rollingUpdate", NULL,
				     "may not be specified when strategy "
				     "`type` is 'Recreate'");
		if (s->strategy.in_place_update)
			fielderr_add(errs, FE_FORBIDDEN,
				     "spec.strategy.inPlaceUpdate", NULL,
				     "may not be specified when strategy "
				     "`type` is 'Recreate'");
	} else if (!strcmp(type, "RollingUpdate")) {
		if (s->strategy.rolling_update == NULL)
			fielderr_add(errs, FE_REQUIRED,
				     "spec.strategy.rollingUpdate", NULL,
				     "this should be defaulted and never be "
				     "nil");
		else
			validate_rolling_update(s->strategy.rolling_update,
						errs);
		if (s->strategy.in_place_update)
			fielderr_add(errs, FE_FORBIDDEN,
				     "spec.strategy.inPlaceUpdate", NULL,
				     "may not be specified when strategy "
				     "`type` is 'RollingUpdate'");
	} else if (!strcmp(type, "InPlaceUpdate")) {
		if (s->strategy.rolling_update)
			fielderr_add(errs, FE_FORBIDDEN,
				     "spec.strategy.rollingUpdate", NULL,
				     "may not be specified when strategy "
				     "`type` is 'InPlaceUpdate'");
		if (s->strategy.in_place_update == NULL)
			fielderr_add(errs, FE_REQUIRED,
				     "spec.strategy.inPlaceUpdate", NULL,
				     "this should be defaulted and never be "
				     "nil");
		else
			validate_in_place_update(s->strategy.in_place_update,
						 errs);
	} else {
		/* Kubernetes reports this on spec.strategy itself. */
		fielderr_addf_str(errs, FE_NOT_SUPPORTED, "spec.strategy", type,
				  "supported values: \"InPlaceUpdate\", "
				  "\"Recreate\", \"RollingUpdate\"");
	}
	val_nonneg(s->min_ready_seconds, "spec.minReadySeconds", errs);
	val_nonneg_opt(&s->revision_history_limit, "spec.revisionHistoryLimit",
		       errs);
	/* progressDeadlineSeconds -1 with minReadySeconds 0 gets both
	 * errors below (negative, and not above minReadySeconds), as in
	 * Kubernetes, which checks the two independently. */
	if (s->progress_deadline_seconds.set) {
		val_nonneg(s->progress_deadline_seconds.v,
			   "spec.progressDeadlineSeconds", errs);
		/* A deadline no longer than minReadySeconds would fire
		 * before a single pod could count as available: with
		 * minReadySeconds 30, progressDeadlineSeconds 30 is
		 * refused and 31 accepted. */
		if (s->progress_deadline_seconds.v <= s->min_ready_seconds)
			fielderr_addf_int(errs, FE_INVALID,
					  "spec.progressDeadlineSeconds",
					  s->progress_deadline_seconds.v,
					  "must be greater than "
					  "minReadySeconds");
	}
}

/* ValidateReplicaSet = ValidateObjectMeta + ValidateReplicaSetSpec:
 * replicas, minReadySeconds, then the selector and template rules the
 * Deployment uses (the "for deployment" message included, as Kubernetes
 * reuses it). */
void
validate_replicaset(const struct replicaset *rs, struct fielderr_list *errs)
{
	validate_object_meta(&rs->metadata, true, "metadata", errs);
	val_nonneg_opt(&rs->spec.replicas, "spec.replicas", errs);
	val_nonneg(rs->spec.min_ready_seconds, "spec.minReadySeconds", errs);
	validate_selector_template(rs->spec.selector, &rs->spec.template, errs,
				   true);
}
