/* policy_validate.h - Kubernetes' validation of PodDisruptionBudgets
 * (pkg/apis/policy/validation). As core_validate.h: every problem is
 * appended to errs. */
#ifndef DROVER_POLICY_VALIDATE_H
#define DROVER_POLICY_VALIDATE_H

#include "fielderr.h"
#include "policy.h"

void validate_pdb(const struct pod_disruption_budget *p,
		  struct fielderr_list *errs);
/* ValidatePodDisruptionBudgetStatusUpdate: the counts are not negative. */
void validate_pdb_status(const struct pdb_status *s,
			 struct fielderr_list *errs);

#endif
