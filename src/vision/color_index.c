/* Distinct colours by a bitmap over the 2^24 RGB values (2 MB) with a rank
 * per 64-bit word: a pixel's colour number is the count of present colours
 * below it, so the numbering is the sorted order, whatever the threads. */
#include "vision/color_index.h"

#include <stdlib.h>

#include "core/big_alloc.h"
#include "core/parallel.h"

#define WORDS ((1 << 24) / 64)

static inline uint32_t key_of(const uint8_t *p)
{
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* Bits set in v (SWAR): inline, where __builtin_popcountll without -mpopcnt
 * is a library call per pixel. */
static inline uint32_t bit_count(uint64_t v)
{
    v = v - ((v >> 1) & UINT64_C(0x5555555555555555));
    v = (v & UINT64_C(0x3333333333333333)) + ((v >> 2) & UINT64_C(0x3333333333333333));
    v = (v + (v >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (uint32_t)((v * UINT64_C(0x0101010101010101)) >> 56);
}

typedef struct number_job {
    const uint8_t *rgb;
    const uint64_t *bits;
    const uint32_t *rank;
    uint32_t *of_pixel;
    uint32_t *pixels_of;
} number_job;

static void number_pixels(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const number_job *j = arg;
    for (int64_t i = begin; i < end; i++) {
        uint32_t key = key_of(j->rgb + 3 * i);
        uint64_t below = j->bits[key >> 6] & ((UINT64_C(1) << (key & 63)) - 1);
        j->of_pixel[i] = j->rank[key >> 6] + bit_count(below);
    }
}

/* Each pixel into its colour's count (atomic: integer sums, the same for
 * any number of threads). */
static void count_pixels(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const number_job *j = arg;
    for (int64_t i = begin; i < end; i++)
        __atomic_fetch_add(&j->pixels_of[j->of_pixel[i]], 1u, __ATOMIC_RELAXED);
}

typedef struct mark_job {
    const uint8_t *rgb;
    uint64_t *bits;
} mark_job;

/* Each pixel's colour bit; an atomic OR, since neighbouring parts share
 * words (the set of bits is the same for any number of threads). */
static void mark_colours(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const mark_job *j = arg;
    for (int64_t i = begin; i < end; i++) {
        uint32_t key = key_of(j->rgb + 3 * i);
        uint64_t bit = UINT64_C(1) << (key & 63);
        if (!(__atomic_load_n(&j->bits[key >> 6], __ATOMIC_RELAXED) & bit))
            __atomic_fetch_or(&j->bits[key >> 6], bit, __ATOMIC_RELAXED);
    }
}

gcut_status gcut__color_index_build(gcut_context *ctx, const uint8_t *rgb, int64_t n,
                                    int threads, gcut__color_index *out)
{
    out->count = 0;
    out->colors = NULL;
    out->pixels_of = NULL;
    out->of_pixel = gcut__big_alloc((size_t)n * sizeof(uint32_t));
    uint64_t *bits = calloc(WORDS, sizeof *bits);
    uint32_t *rank = malloc(WORDS * sizeof *rank);
    if (!out->of_pixel || !bits || !rank)
        goto nomem;
    mark_job marks = {rgb, bits};
    gcut__parallel_for(gcut__thread_count(threads, n), n, mark_colours, &marks);
    uint32_t total = 0;
    for (int w = 0; w < WORDS; w++) {
        rank[w] = total;
        total += bit_count(bits[w]);
    }
    out->count = total;
    out->colors = malloc((size_t)total * 3);
    out->pixels_of = calloc(total ? total : 1, sizeof(uint32_t));
    if (!out->colors || !out->pixels_of)
        goto nomem;
    uint8_t *c = out->colors;
    for (int w = 0; w < WORDS; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1) {
            uint32_t key = (uint32_t)w << 6 | (uint32_t)__builtin_ctzll(b);
            *c++ = (uint8_t)(key >> 16);
            *c++ = (uint8_t)(key >> 8);
            *c++ = (uint8_t)key;
        }
    number_job job = {rgb, bits, rank, out->of_pixel, out->pixels_of};
    gcut__parallel_for(gcut__thread_count(threads, n), n, number_pixels, &job);
    /* Once per image, so that a seed state's counts per colour come from
     * its seeds alone (segment.c). */
    gcut__parallel_for(gcut__thread_count(threads, n), n, count_pixels, &job);
    free(bits);
    free(rank);
    return GCUT_OK;
nomem:
    free(bits);
    free(rank);
    gcut__color_index_free(out);
    return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory indexing the colours of %lld pixels",
                      (long long)n);
}

void gcut__color_index_free(gcut__color_index *ci)
{
    if (!ci)
        return;
    free(ci->colors);
    free(ci->of_pixel);
    free(ci->pixels_of);
    ci->colors = NULL;
    ci->of_pixel = NULL;
    ci->pixels_of = NULL;
    ci->count = 0;
}
