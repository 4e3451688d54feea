/* rng.c - splitmix64 (Steele, Lea, Flood). */
#include "rng.h"

void
rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed;
}

/* The state advances by the golden-ratio increment and the output is
 * the state mixed; every 64-bit state is visited once per 2^64 calls.
 * Test vector: seeded 0, the first two outputs are 0xe220a8397b1dcdaf
 * and 0x6e789e6aa1b965f4. */
uint64_t
rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Needs lo <= hi, and hi - lo must fit an int64: the full int64 range
 * would overflow it. The modulo's bias is at most span / 2^64, far
 * below anything a property test with spans of thousands could notice. */
int64_t
rng_range(struct rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;

	return lo + (int64_t)(rng_next(r) % span);
}
