/* policy.c - the field table of policy/v1 PodDisruptionBudget, in the
 * order of k8s.io/api/policy/v1 types.go (policy.h; the rules of the rows
 * in schema_rows.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "schema_rows.h"

/* minAvailable and maxUnavailable are *IntOrString: absent when unset. */
static const struct field pdb_spec_f[] = {
    F(pdb_spec, "minAvailable", 1, FT_INTSTR, min_available, O, NULL),
    F(pdb_spec, "selector", 2, FT_PTR, selector, O, &schema_label_selector),
    F(pdb_spec, "maxUnavailable", 3, FT_INTSTR, max_unavailable, O, NULL),
    F(pdb_spec, "unhealthyPodEvictionPolicy", 4, FT_STR,
      unhealthy_pod_eviction_policy, O, NULL),
};
static const struct schema pdb_spec_s = SCHEMA(pdb_spec, pdb_spec_f);

/* disruptionsAllowed, currentHealthy, desiredHealthy and expectedPods
 * have no omitempty: a fresh budget prints them as 0. Conditions merge by
 * "type" in a strategic merge patch. */
static const struct field pdb_status_f[] = {
    F(pdb_status, "observedGeneration", 1, FT_INT, observed_generation, O | I64,
      NULL),
    F(pdb_status, "disruptedPods", 2, FT_STRMAP, disrupted_pods, O | FF_TIMEMAP,
      NULL),
    F(pdb_status, "disruptionsAllowed", 3, FT_INT, disruptions_allowed, I32,
      NULL),
    F(pdb_status, "currentHealthy", 4, FT_INT, current_healthy, I32, NULL),
    F(pdb_status, "desiredHealthy", 5, FT_INT, desired_healthy, I32, NULL),
    F(pdb_status, "expectedPods", 6, FT_INT, expected_pods, I32, NULL),
    FK(pdb_status, "conditions", 7, conditions, O, &schema_condition_v1,
       "type"),
};
const struct schema schema_pdb_status = SCHEMA(pdb_status, pdb_status_f);

static const struct field pdb_f[] = {
    F(pod_disruption_budget, "apiVersion", 0, FT_STR, api_version, O, NULL),
    F(pod_disruption_budget, "kind", 0, FT_STR, kind, O, NULL),
    F(pod_disruption_budget, "metadata", 1, FT_STRUCT, metadata, 0,
      &schema_object_meta),
    F(pod_disruption_budget, "spec", 2, FT_STRUCT, spec, 0, &pdb_spec_s),
    F(pod_disruption_budget, "status", 3, FT_STRUCT, status, 0,
      &schema_pdb_status),
};
const struct schema schema_pod_disruption_budget =
    SCHEMA(pod_disruption_budget, pdb_f);

void
pdb_release(struct pod_disruption_budget *p)
{
	schema_release(&schema_pod_disruption_budget, p);
}

void
pdb_copy(struct pod_disruption_budget *dst,
	 const struct pod_disruption_budget *src)
{
	schema_copy(&schema_pod_disruption_budget, dst, src);
}

void
pdb_status_release(struct pdb_status *s)
{
	schema_release(&schema_pdb_status, s);
}

void
pdb_status_copy(struct pdb_status *dst, const struct pdb_status *src)
{
	schema_copy(&schema_pdb_status, dst, src);
}
