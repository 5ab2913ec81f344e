/* Densification: from the matched (sub-pixel) vectors to a vector at every
 * pixel, occluded ones included, by an edge-aware, confidence-weighted
 * average over a small window (a joint bilateral filter on the matches;
 * DIS (Kroeger et al. 2016) weights its patches by their residual the same
 * way). */
#include <math.h>
#include <stddef.h>

#include "vision/flow_internal.h"
#include "core/parallel.h"

#define DENSIFY_RADIUS 2
/* Grey difference (in [0, 1]) at which a neighbour's weight falls by e:
 * about 12 grey levels, so that a vector does not cross an edge. */
#define DENSIFY_SIGMA_GREY 0.05f
/* Residual floor (mean absolute grey difference in [0, 1]): about one grey
 * level, so that a perfect match does not take all the weight. */
#define DENSIFY_RESIDUAL_FLOOR 0.004f

typedef struct densify_job {
    const float *i0, *flow, *residual, *prior;
    const uint8_t *matched;
    float *out;
    int w, h;
} densify_job;

static void densify_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const densify_job *j = arg;
    int w = j->w, h = j->h;
    for (int64_t y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            int64_t p = y * w + x;
            float c = j->i0[p], su = 0, sv = 0, sw = 0;
            for (int dy = -DENSIFY_RADIUS; dy <= DENSIFY_RADIUS; dy++) {
                int64_t yy = y + dy;
                if (yy < 0 || yy >= h)
                    continue;
                for (int dx = -DENSIFY_RADIUS; dx <= DENSIFY_RADIUS; dx++) {
                    int xx = x + dx;
                    if (xx < 0 || xx >= w)
                        continue;
                    int64_t q = yy * w + xx;
                    if (!j->matched[q])
                        continue;
                    float res = j->residual[q];
                    float wt = expf(-fabsf(j->i0[q] - c) * (1.0f / DENSIFY_SIGMA_GREY)) /
                               (res > DENSIFY_RESIDUAL_FLOOR ? res : DENSIFY_RESIDUAL_FLOOR);
                    su += wt * j->flow[2 * q];
                    sv += wt * j->flow[2 * q + 1];
                    sw += wt;
                }
            }
            if (sw > 0) {
                j->out[2 * p] = su / sw;
                j->out[2 * p + 1] = sv / sw;
            } else {
                j->out[2 * p] = j->prior ? j->prior[2 * p] : 0.0f;
                j->out[2 * p + 1] = j->prior ? j->prior[2 * p + 1] : 0.0f;
            }
        }
}

void gcut__flow_densify(const float *i0, int w, int h, const float *flow,
                        const uint8_t *matched, const float *residual, const float *prior,
                        float *out, int threads)
{
    densify_job j = {i0, flow, residual, prior, matched, out, w, h};
    gcut__parallel_for(gcut__thread_count(threads, (int64_t)w * h * 25), h, densify_rows, &j);
}
