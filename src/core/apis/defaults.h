/* defaults.h - Kubernetes' API defaulting of every kind drover serves,
 * by API group: core_defaults.h, apps_defaults.h, discovery_defaults.h.
 * Defaulting is idempotent and runs on every write before validation, so
 * that equal manifests give equal stored objects (and equal pod-template
 * hashes). */
#ifndef DROVER_DEFAULTS_H
#define DROVER_DEFAULTS_H

#include "apps_defaults.h"
#include "core_defaults.h"
#include "discovery_defaults.h"

#endif
