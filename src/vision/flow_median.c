/* Median filtering of a flow field (each component over a 5 x 5 window),
 * the outlier removal of Sun, Roth and Black ("Secrets of optical flow
 * estimation", CVPR 2010): a blob of wrong vectors smaller than half the
 * window, left by a wrong match at a coarse level, is replaced by its
 * surroundings before the next level starts from it. */
#include <stddef.h>

#include "vision/flow_internal.h"
#include "core/parallel.h"

#define MEDIAN_RADIUS 2

typedef struct median_job {
    const float *in;
    float *out;
    int w, h;
} median_job;

/* The median of v[0..n-1] (n odd or even: the upper middle), by insertion
 * sort: n is at most 25. */
static float median_of(float *v, int n)
{
    for (int i = 1; i < n; i++) {
        float x = v[i];
        int k = i - 1;
        while (k >= 0 && v[k] > x) {
            v[k + 1] = v[k];
            k--;
        }
        v[k + 1] = x;
    }
    return v[n / 2];
}

static void median_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const median_job *j = arg;
    int w = j->w, h = j->h;
    float u[(2 * MEDIAN_RADIUS + 1) * (2 * MEDIAN_RADIUS + 1)];
    float v[(2 * MEDIAN_RADIUS + 1) * (2 * MEDIAN_RADIUS + 1)];
    for (int64_t y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            int n = 0;
            for (int dy = -MEDIAN_RADIUS; dy <= MEDIAN_RADIUS; dy++) {
                int64_t yy = y + dy;
                if (yy < 0 || yy >= h)
                    continue;
                for (int dx = -MEDIAN_RADIUS; dx <= MEDIAN_RADIUS; dx++) {
                    int xx = x + dx;
                    if (xx < 0 || xx >= w)
                        continue;
                    u[n] = j->in[2 * (yy * w + xx)];
                    v[n] = j->in[2 * (yy * w + xx) + 1];
                    n++;
                }
            }
            j->out[2 * (y * w + x)] = median_of(u, n);
            j->out[2 * (y * w + x) + 1] = median_of(v, n);
        }
}

void gcut__flow_median(const float *in, int w, int h, float *out, int threads)
{
    median_job j = {in, out, w, h};
    gcut__parallel_for(gcut__thread_count(threads, (int64_t)w * h * 25), h, median_rows, &j);
}
