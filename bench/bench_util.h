/* What the C benchmarks share: a monotonic clock, the median of a run's
 * times, sorting file names, and the nearest-neighbour upscale the image
 * benches use. Include after the file's feature macros (clock_gettime is
 * POSIX). */
#ifndef GCUT_BENCH_UTIL_H
#define GCUT_BENCH_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (v is sorted in place); 0 when n is 0. */
static inline double bench_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* qsort order of an array of file names (char *). */
static inline int bench_cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Nearest-neighbour upscale of `c`-channel pixels by f (>= 1); NULL when
 * out of memory. */
static inline uint8_t *bench_upscale(const uint8_t *src, int w, int h, int c, double f, int *ow,
                                     int *oh)
{
    int W = (int)(w * f), H = (int)(h * f);
    uint8_t *out = malloc((size_t)W * (size_t)H * (size_t)c);
    if (!out)
        return NULL;
    for (int y = 0; y < H; y++) {
        int sy = (int)(y / f);
        for (int x = 0; x < W; x++) {
            int sx = (int)(x / f);
            memcpy(out + ((size_t)y * W + x) * c, src + ((size_t)sy * w + sx) * c, (size_t)c);
        }
    }
    *ow = W;
    *oh = H;
    return out;
}

#endif
