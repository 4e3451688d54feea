/* validate.h - Kubernetes' API validation of every kind drover serves,
 * by API group: validation.h (what the groups share: object metadata,
 * names), core_validate.h, apps_validate.h, discovery_validate.h.
 *
 * Each function appends every problem it finds to errs (field path, value,
 * reason, with Kubernetes' messages) and never stops at the first one. Run
 * it after defaulting: it assumes defaulted objects, as the API server
 * does. */
#ifndef DROVER_VALIDATE_H
#define DROVER_VALIDATE_H

#include "apps_validate.h"
#include "coordination_validate.h"
#include "core_validate.h"
#include "discovery_validate.h"
#include "policy_validate.h"
#include "validation.h"

#endif
