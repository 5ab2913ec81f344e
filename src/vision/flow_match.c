/* Matching for the flow: census signatures, the assignment's windowed arcs
 * and costs, the vectors of an assignment and their sub-pixel refinement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "vision/flow_internal.h"
#include "core/parallel.h"

typedef struct census_job {
    const float *img;
    uint64_t *sig;
    int w, h, half;
} census_job;

static void census_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const census_job *j = arg;
    int w = j->w, h = j->h, r = j->half;
    for (int64_t y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            float c = j->img[y * w + x];
            uint64_t s = 0;
            for (int dy = -r; dy <= r; dy++) {
                int64_t yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                for (int dx = -r; dx <= r; dx++) {
                    if (!dx && !dy)
                        continue;
                    int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                    s = s << 1 | (j->img[yy * w + xx] < c);
                }
            }
            j->sig[y * w + x] = s;
        }
}

void gcut__flow_census(const float *img, int w, int h, int patch, uint64_t *sig, int threads)
{
    census_job j = {img, sig, w, h, patch / 2};
    gcut__parallel_for(gcut__thread_count(threads, (int64_t)w * h), h, census_rows, &j);
}

typedef struct arcs_job {
    const float *i0, *i1, *prior;
    const uint64_t *sig0, *sig1;
    const gcut_flow_options *opt;
    gcut__flow_arcs *arcs;
    int w, h;
} arcs_job;

/* The window's centre for pixel (x, y): the prior's rounded target. */
static void window_centre(const float *prior, int w, int x, int y, int *cx, int *cy)
{
    *cx = x, *cy = y;
    if (prior) {
        const float *f = prior + 2 * ((size_t)y * w + x);
        *cx += (int)lrintf(f[0]);
        *cy += (int)lrintf(f[1]);
    }
}

/* Mean absolute grey difference over the patch (grey levels, rounded). */
static int32_t patch_sad(const float *i0, const float *i1, int w, int h, int x, int y, int qx,
                         int qy, int half)
{
    float sum = 0;
    for (int dy = -half; dy <= half; dy++) {
        int y0 = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
        int y1 = qy + dy < 0 ? 0 : qy + dy >= h ? h - 1 : qy + dy;
        for (int dx = -half; dx <= half; dx++) {
            int x0 = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
            int x1 = qx + dx < 0 ? 0 : qx + dx >= w ? w - 1 : qx + dx;
            sum += fabsf(i0[(size_t)y0 * w + x0] - i1[(size_t)y1 * w + x1]);
        }
    }
    int side = 2 * half + 1;
    return (int32_t)lrintf(sum * 255.0f / (float)(side * side));
}

static void arcs_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const arcs_job *j = arg;
    const gcut_flow_options *o = j->opt;
    int w = j->w, h = j->h, rad = o->radius, half = o->patch / 2;
    int32_t n = (int32_t)((int64_t)w * h);
    for (int64_t y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            int32_t p = (int32_t)(y * w + x);
            int cx, cy;
            window_centre(j->prior, w, x, (int)y, &cx, &cy);
            int64_t k = j->arcs->row_ptr[p];
            for (int dy = -rad; dy <= rad; dy++) {
                int qy = cy + dy;
                if (qy < 0 || qy >= h)
                    continue;
                for (int dx = -rad; dx <= rad; dx++) {
                    int qx = cx + dx;
                    if (qx < 0 || qx >= w)
                        continue;
                    int32_t q = (int32_t)((int64_t)qy * w + qx);
                    int32_t data = o->cost == GCUT_FLOW_SAD
                                       ? patch_sad(j->i0, j->i1, w, h, x, (int)y, qx, qy, half)
                                       : GCUT_FLOW_CENSUS_BIT *
                                             __builtin_popcountll(j->sig0[p] ^ j->sig1[q]);
                    j->arcs->col[k] = q;
                    j->arcs->cost[k] = data + o->motion_penalty * (abs(dx) + abs(dy));
                    k++;
                }
            }
            j->arcs->col[k] = n + p; /* the dummy: this row's own column */
            j->arcs->cost[k] = o->occlusion_cost;
        }
}

/* How many of [c - r, c + r] lie in [0, size). */
static int window_span(int c, int r, int size)
{
    int lo = c - r < 0 ? 0 : c - r, hi = c + r >= size ? size - 1 : c + r;
    return hi >= lo ? hi - lo + 1 : 0;
}

gcut_status gcut__flow_arcs_build(gcut_context *ctx, const float *i0, const float *i1,
                                  const uint64_t *sig0, const uint64_t *sig1, int w, int h,
                                  const float *prior, const gcut_flow_options *opt, int threads,
                                  gcut__flow_arcs *arcs)
{
    memset(arcs, 0, sizeof *arcs);
    int64_t n = (int64_t)w * h;
    if (2 * n > INT32_MAX)
        return gcut__fail(ctx, GCUT_E_OVERFLOW, "flow: %d x %d pixels is too many for the "
                          "assignment's int32 column ids", w, h);
    arcs->rows = (int32_t)n;
    arcs->cols = (int32_t)(2 * n);
    arcs->row_ptr = malloc((size_t)(n + 1) * sizeof *arcs->row_ptr);
    if (!arcs->row_ptr)
        return gcut__fail(ctx, GCUT_E_NOMEM, "flow: out of memory for the assignment's rows");
    int64_t m = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int cx, cy;
            window_centre(prior, w, x, y, &cx, &cy);
            arcs->row_ptr[(int64_t)y * w + x] = m;
            m += (int64_t)window_span(cx, opt->radius, w) * window_span(cy, opt->radius, h) + 1;
        }
    arcs->row_ptr[n] = m;
    arcs->col = malloc((size_t)m * sizeof *arcs->col);
    arcs->cost = malloc((size_t)m * sizeof *arcs->cost);
    if (!arcs->col || !arcs->cost) {
        gcut__flow_arcs_free(arcs);
        return gcut__fail(ctx, GCUT_E_NOMEM, "flow: out of memory for %lld assignment arcs",
                          (long long)m);
    }
    arcs_job j = {i0, i1, prior, sig0, sig1, opt, arcs, w, h};
    gcut__parallel_for(gcut__thread_count(threads, m), h, arcs_rows, &j);
    return GCUT_OK;
}

void gcut__flow_arcs_free(gcut__flow_arcs *arcs)
{
    free(arcs->row_ptr);
    free(arcs->col);
    free(arcs->cost);
    memset(arcs, 0, sizeof *arcs);
}

int64_t gcut__flow_from_assignment(const int32_t *row_to_col, int w, int h, float *flow,
                                   uint8_t *matched)
{
    int64_t n = (int64_t)w * h, dummies = 0;
    for (int64_t p = 0; p < n; p++) {
        int32_t q = row_to_col[p];
        if (q < 0 || q >= n) {
            matched[p] = 0;
            flow[2 * p] = flow[2 * p + 1] = 0;
            dummies++;
            continue;
        }
        matched[p] = 1;
        flow[2 * p] = (float)(q % w - p % w);
        flow[2 * p + 1] = (float)(q / w - p / w);
    }
    return dummies;
}

typedef struct subpixel_job {
    const float *i0, *i1, *gx, *gy;
    const uint8_t *matched;
    float *flow, *residual;
    int w, h, half;
} subpixel_job;

#define SUBPIXEL_STEPS 3

static void subpixel_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const subpixel_job *j = arg;
    int w = j->w, h = j->h, r = j->half;
    for (int64_t y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            int64_t p = y * w + x;
            if (!j->matched[p]) {
                j->residual[p] = 1.0f;
                continue;
            }
            float *f = j->flow + 2 * p;
            float u0 = f[0], v0 = f[1], u = u0, v = v0;
            float hxx = 0, hxy = 0, hyy = 0;
            for (int dy = -r; dy <= r; dy++) {
                int64_t yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                for (int dx = -r; dx <= r; dx++) {
                    int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                    float ax = j->gx[yy * w + xx], ay = j->gy[yy * w + xx];
                    hxx += ax * ax, hxy += ax * ay, hyy += ay * ay;
                }
            }
            float det = hxx * hyy - hxy * hxy;
            /* Inverse compositional (Baker and Matthews 2004): the template's
             * Hessian is fixed, each step moves the target by -H^-1 b. An
             * aperture (det near 0) keeps the integer match. */
            if (det > 1e-9f * (hxx + hyy) * (hxx + hyy) && det > 1e-12f) {
                for (int step = 0; step < SUBPIXEL_STEPS; step++) {
                    float bx = 0, by = 0;
                    for (int dy = -r; dy <= r; dy++) {
                        int64_t yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                        for (int dx = -r; dx <= r; dx++) {
                            int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                            float e = gcut__flow_sample(j->i1, w, h, (float)xx + u,
                                                        (float)yy + v) -
                                      j->i0[yy * w + xx];
                            bx += j->gx[yy * w + xx] * e, by += j->gy[yy * w + xx] * e;
                        }
                    }
                    u -= (hyy * bx - hxy * by) / det;
                    v -= (hxx * by - hxy * bx) / det;
                }
                if (!(fabsf(u - u0) <= 1.0f && fabsf(v - v0) <= 1.0f))
                    u = u0, v = v0;
            }
            float sum = 0;
            for (int dy = -r; dy <= r; dy++) {
                int64_t yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                for (int dx = -r; dx <= r; dx++) {
                    int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                    sum += fabsf(gcut__flow_sample(j->i1, w, h, (float)xx + u, (float)yy + v) -
                                 j->i0[yy * w + xx]);
                }
            }
            f[0] = u, f[1] = v;
            j->residual[p] = sum / (float)((2 * r + 1) * (2 * r + 1));
        }
}

void gcut__flow_subpixel(const float *i0, const float *i1, const float *gx, const float *gy,
                         int w, int h, int patch, const uint8_t *matched, float *flow,
                         float *residual, int threads)
{
    subpixel_job j = {i0, i1, gx, gy, matched, flow, residual, w, h, patch / 2};
    gcut__parallel_for(gcut__thread_count(threads, (int64_t)w * h * patch * patch), h,
                       subpixel_rows, &j);
}
