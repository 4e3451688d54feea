/* rng.h - a seeded PRNG (splitmix64) for simulations and property tests.
 * The core never seeds itself: the caller passes the seed, so every run is
 * reproducible from it. */
#ifndef DROVER_RNG_H
#define DROVER_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s;
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [lo, hi]. */
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi);

#endif
