/* plan_deploy_rollback.c - Kubernetes' rollback.go: the legacy rollback
 * annotation: the template of the revision asked for copied back (spec
 * §13.2). Part of plan_deploy (see plan_deploy.c and plan_deploy_int.h). */
#include <string.h>

#include "deploy_util.h"
#include "plan_deploy_int.h"
#include "xalloc.h"

/* ---- rollback, legacy annotation path (§13.2) ---- */

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

static void
clear_rollback_to(struct st *st)
{
	strmap_del(&st->d->metadata.annotations, ANN_ROLLBACK_TO);
	pd_write_deployment(st);
}

void
pd_rollback(struct st *st)
{
	struct deployment *d = st->d;
	struct replicaset *new_rs, **old, **all;
	size_t nold, i;
	int64_t target = 0, r;

	if (pd_get_all_rs(st, true, &new_rs, &old, &nold))
		return;
	all = xmalloc((nold + 1) * sizeof(*all));
	memcpy(all, old, nold * sizeof(*all));
	all[nold] = new_rs;
	free(old);
	pd_rollback_to(d, &target);
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
