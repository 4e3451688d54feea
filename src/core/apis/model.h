/* model.h - every typed object drover stores and plans with, by API
 * group: meta.h (ObjectMeta, LabelSelector, Condition), core.h (Pod,
 * ReplicationController, Node, Service, Endpoints, Event), apps.h
 * (Deployment, ReplicaSet), discovery.h (EndpointSlice), policy.h
 * (PodDisruptionBudget), coordination.h (Lease). Include the
 * group's header where one group is enough; this one where a file deals
 * with several.
 *
 * Ownership: every object owns all of its strings, maps, lists and optional
 * sub-structs. Release an object with <kind>_release() (which zeroes it),
 * copy it with <kind>_copy(). Optional sub-structs (FT_PTR) are heap
 * pointers owned by their parent. */
#ifndef DROVER_MODEL_H
#define DROVER_MODEL_H

#include "apps.h"
#include "coordination.h"
#include "core.h"
#include "discovery.h"
#include "meta.h"
#include "policy.h"

#endif
