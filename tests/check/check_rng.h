/* Deterministic random numbers for the generated test instances:
 * splitmix64 (a seed gives the same instances on every machine). */
#ifndef GCUT_CHECK_RNG_H
#define GCUT_CHECK_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t state;
} rng;

static inline uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) for n >= 1 (the modulo bias is irrelevant here). */
static inline int64_t rng_below(rng *r, int64_t n)
{
    return n <= 1 ? 0 : (int64_t)(rng_next(r) % (uint64_t)n);
}

/* Uniform in [lo, hi]. */
static inline int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
    return lo + rng_below(r, hi - lo + 1);
}

#endif
