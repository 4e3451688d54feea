/* policy_validate.c - ValidatePodDisruptionBudget (pkg/apis/policy/
 * validation/validation.go), with Kubernetes' field paths and messages,
 * in its order: the metadata (a namespaced DNS subdomain name), then
 * ValidatePodDisruptionBudgetSpec: both minAvailable and maxUnavailable
 * set, each one's ValidatePositiveIntOrPercent and
 * IsNotMoreThan100Percent, the selector (ValidateLabelSelector), and
 * unhealthyPodEvictionPolicy among the supported values.
 *
 * Example: spec {minAvailable: "150%", maxUnavailable: 1} gives
 *   spec: Invalid value: ...: minAvailable and maxUnavailable cannot be
 *     both set
 *   spec.minAvailable: Invalid value: "150%": must not be greater than
 *     100%
 * Kubernetes prints the whole spec struct as the first error's value
 * (Go's %#v, with pointers); drover prints the two fields as JSON. */
#include <stdio.h>
#include <string.h>

#include "labels.h"
#include "policy_validate.h"
#include "validation.h"

static void
render_intstr(const struct intstr *v, struct strbuf *sb)
{
	if (v->type == INTSTR_INT)
		strbuf_addf(sb, "%lld", (long long)v->ival);
	else
		strbuf_addjsonstr(sb, v->sval ? v->sval : "");
}

void
validate_pdb(const struct pod_disruption_budget *p, struct fielderr_list *errs)
{
	const struct pdb_spec *s = &p->spec;
	const char *pol = s->unhealthy_pod_eviction_policy;

	validate_object_meta(&p->metadata, true, "metadata", errs);
	if (s->min_available.type != INTSTR_UNSET &&
	    s->max_unavailable.type != INTSTR_UNSET) {
		struct strbuf v = STRBUF_INIT;

		strbuf_addstr(&v, "{\"minAvailable\":");
		render_intstr(&s->min_available, &v);
		strbuf_addstr(&v, ",\"maxUnavailable\":");
		render_intstr(&s->max_unavailable, &v);
		strbuf_addch(&v, '}');
		fielderr_add(errs, FE_INVALID, "spec", v.buf,
			     "minAvailable and maxUnavailable cannot be both "
			     "set");
		strbuf_release(&v);
	}
	if (s->min_available.type != INTSTR_UNSET) {
		validate_intstr_nonneg(&s->min_available, "spec.minAvailable",
				       errs);
		validate_not_over_100_percent(&s->min_available,
					      "spec.minAvailable", errs);
	}
	if (s->max_unavailable.type != INTSTR_UNSET) {
		validate_intstr_nonneg(&s->max_unavailable,
				       "spec.maxUnavailable", errs);
		validate_not_over_100_percent(&s->max_unavailable,
					      "spec.maxUnavailable", errs);
	}
	if (s->selector)
		validate_selector(s->selector, "spec.selector", errs);
	if (pol && strcmp(pol, PDB_ALWAYS_ALLOW) &&
	    strcmp(pol, PDB_IF_HEALTHY_BUDGET))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED,
				  "spec.unhealthyPodEvictionPolicy", pol,
				  "supported values: \"AlwaysAllow\", "
				  "\"IfHealthyBudget\"");
}

void
validate_pdb_status(const struct pdb_status *s, struct fielderr_list *errs)
{
	val_nonneg(s->disruptions_allowed, "status.disruptionsAllowed", errs);
	val_nonneg(s->current_healthy, "status.currentHealthy", errs);
	val_nonneg(s->desired_healthy, "status.desiredHealthy", errs);
	val_nonneg(s->expected_pods, "status.expectedPods", errs);
}
