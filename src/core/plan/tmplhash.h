/* tmplhash.h - pod-template-hash: a short, stable name for a pod template.
 *
 * Kubernetes' ComputeHash: FNV-1a 32-bit over a deterministic dump of the
 * template (drover's canonical schema dump, not Go's), then, when a
 * collision count is set, its value as a little-endian uint32 padded to 8
 * bytes; the decimal digits of the result are mapped to the alphabet
 * "bcdfghjklmnpqrstvwxz2456789" (SafeEncodeString). */
#ifndef DROVER_TMPLHASH_H
#define DROVER_TMPLHASH_H

#include <stdint.h>

#include "model.h"

/* Writes the hash (at most 10 characters + NUL) into out[16].
 * collision_count may be NULL. */
void tmplhash_compute(const struct pod_template *t,
		      const struct opt_int *collision_count, char out[16]);

/* The FNV-1a 32-bit step, exposed for tests. */
uint32_t fnv1a32(uint32_t h, const void *data, size_t n);
/* The same in 64 bits, from FNV1A64_BASIS or a previous result (Go's
 * New64a): the hash of the pod facts' label sets and of the hot-write
 * guard's writes. */
#define FNV1A64_BASIS 14695981039346656037ULL
uint64_t fnv1a64(uint64_t h, const void *data, size_t n);

/* True if a and b are equal ignoring the pod-template-hash label
 * (Kubernetes' EqualIgnoreHash). */
bool tmpl_equal_ignore_hash(const struct pod_template *a,
			    const struct pod_template *b);

#endif
