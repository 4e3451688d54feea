/* apps_defaults.c - SetDefaults_Deployment and SetDefaults_ReplicaSet
 * (pkg/apis/apps/v1/defaults.go; spec/deployment.md §1):
 *
 *   SetDefaults_Deployment     replicas 1, strategy RollingUpdate with
 *                              25% / 25%, revisionHistoryLimit 10,
 *                              progressDeadlineSeconds 600 (drover's
 *                              InPlaceUpdate: maxUnavailable 25%)
 *   SetDefaults_ReplicaSet     replicas 1
 *
 * and the pod template's, through core's defaults_pod_spec. As
 * core_defaults.c: idempotent, and never over a value the user wrote. */
#include <stdlib.h>
#include <string.h>

#include "apps_defaults.h"
#include "core_defaults.h"
#include "defaulting.h"
#include "xalloc.h"

void
defaults_deployment(struct deployment *d)
{
	struct deployment_spec *s = &d->spec;

	def_int(&s->replicas, 1);
	def_str(&s->strategy.type, "RollingUpdate");
	/* The 25% values only for RollingUpdate: a Recreate Deployment
	 * keeps no rollingUpdate block (validation forbids one). */
	if (strcmp(s->strategy.type, "RollingUpdate") == 0) {
		struct rolling_update *ru = s->strategy.rolling_update;

		if (ru == NULL)
			ru = s->strategy.rolling_update =
			    xcalloc(1, sizeof(*ru));
		if (ru->max_unavailable.type == INTSTR_UNSET)
			ru->max_unavailable = intstr_str("25%");
		if (ru->max_surge.type == INTSTR_UNSET)
			ru->max_surge = intstr_str("25%");
	}
	/* InPlaceUpdate: maxUnavailable 25%, the default only for this
	 * type (like rollingUpdate's for RollingUpdate). */
	if (strcmp(s->strategy.type, "InPlaceUpdate") == 0) {
		struct in_place_update *ip = s->strategy.in_place_update;

		if (ip == NULL)
			ip = s->strategy.in_place_update =
			    xcalloc(1, sizeof(*ip));
		if (ip->max_unavailable.type == INTSTR_UNSET)
			ip->max_unavailable = intstr_str("25%");
	}
	def_int(&s->revision_history_limit, 10);
	def_int(&s->progress_deadline_seconds, 600);
	defaults_pod_spec(&s->template.spec);
}

void
defaults_replicaset(struct replicaset *rs)
{
	def_int(&rs->spec.replicas, 1);
	defaults_pod_spec(&rs->spec.template.spec);
}
