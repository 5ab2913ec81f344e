/* Variational refinement of a flow field (Brox, Bruhn, Papenberg and
 * Weickert, ECCV 2004, in the form DIS (Kroeger et al. 2016) uses at every
 * scale): minimise
 *   E(u, v) = sum_p delta Psi(I1(p + w) - I0(p))^2 + gamma Psi(|grad I1(p + w) -
 *             grad I0(p)|^2) + sum_{p~q} alpha g_pq Psi(|w_p - w_q|^2)
 * with Psi(s^2) = sqrt(s^2 + eps^2) (robust, L1-like) and an edge-aware
 * g_pq = exp(-edge |I0(p) - I0(q)| * 255), so that the flow may jump where
 * frame 0 does. Each fixed-point iteration warps frame 1 by the current
 * flow, linearises the data terms around it, freezes the robust weights
 * (lagged diffusivity) and solves the linear system for the increment by
 * red-black SOR. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "vision/flow_internal.h"
#include "core/parallel.h"

#define SOR_OMEGA 1.6f
#define EPS_DATA 1e-3f   /* a quarter grey level, in [0, 1] units */
#define EPS_SMOOTH 1e-3f /* pixels per pixel */
#define OCCLUDED_DATA_WEIGHT 0.1f

/* Per-pixel arrays of one refinement, each w*h floats. */
enum {
    I0X, I0Y, I0XX, I0XY, I0YY, /* frame 0's derivatives */
    I1X, I1Y, I1XX, I1XY, I1YY, /* frame 1's, warped by sampling */
    EDGE_R, EDGE_D,             /* g_pq to the right and down neighbours */
    A11, A12, A22, B1, B2,      /* the linearised data terms */
    S_R, S_D,                   /* smoothness weights to the right and down */
    DU, DV,                     /* the increment */
    N_PLANES
};

typedef struct refine_job {
    const float *i0, *i1;
    const uint8_t *occluded;
    const gcut__flow_refine_params *p;
    float *flow;
    float *plane[N_PLANES];
    int w, h;
    int colour; /* SOR: which of the two checkerboard colours to update */
} refine_job;

static void edge_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const refine_job *j = arg;
    int w = j->w, h = j->h;
    float k = j->p->edge * 255.0f;
    for (int64_t y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            int64_t q = y * w + x;
            float c = j->i0[q];
            j->plane[EDGE_R][q] = x + 1 < w ? expf(-k * fabsf(j->i0[q + 1] - c)) : 0.0f;
            j->plane[EDGE_D][q] = y + 1 < h ? expf(-k * fabsf(j->i0[q + w] - c)) : 0.0f;
        }
}

/* Warp frame 1 by the current flow and linearise the data terms there. */
static void data_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const refine_job *j = arg;
    int w = j->w, h = j->h;
    float *const *P = j->plane;
    for (int64_t y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            int64_t q = y * w + x;
            float xw = (float)x + j->flow[2 * q], yw = (float)y + j->flow[2 * q + 1];
            P[DU][q] = P[DV][q] = 0;
            if (!(xw >= 0 && yw >= 0 && xw <= (float)(w - 1) && yw <= (float)(h - 1))) {
                /* Leaves frame 1: no data, the smoothness term decides. */
                P[A11][q] = P[A12][q] = P[A22][q] = P[B1][q] = P[B2][q] = 0;
                continue;
            }
            float i1 = gcut__flow_sample(j->i1, w, h, xw, yw);
            float i1x = gcut__flow_sample(P[I1X], w, h, xw, yw);
            float i1y = gcut__flow_sample(P[I1Y], w, h, xw, yw);
            float ix = 0.5f * (P[I0X][q] + i1x), iy = 0.5f * (P[I0Y][q] + i1y);
            float iz = i1 - j->i0[q];
            float ixx = 0.5f * (P[I0XX][q] + gcut__flow_sample(P[I1XX], w, h, xw, yw));
            float ixy = 0.5f * (P[I0XY][q] + gcut__flow_sample(P[I1XY], w, h, xw, yw));
            float iyy = 0.5f * (P[I0YY][q] + gcut__flow_sample(P[I1YY], w, h, xw, yw));
            float ixz = i1x - P[I0X][q], iyz = i1y - P[I0Y][q];
            float scale = j->occluded && j->occluded[q] ? OCCLUDED_DATA_WEIGHT : 1.0f;
            float wd = scale * j->p->delta / sqrtf(iz * iz + EPS_DATA * EPS_DATA);
            float wg =
                scale * j->p->gamma / sqrtf(ixz * ixz + iyz * iyz + EPS_DATA * EPS_DATA);
            P[A11][q] = wd * ix * ix + wg * (ixx * ixx + ixy * ixy);
            P[A12][q] = wd * ix * iy + wg * (ixx * ixy + ixy * iyy);
            P[A22][q] = wd * iy * iy + wg * (ixy * ixy + iyy * iyy);
            P[B1][q] = -(wd * ix * iz + wg * (ixx * ixz + ixy * iyz));
            P[B2][q] = -(wd * iy * iz + wg * (ixy * ixz + iyy * iyz));
        }
}

/* Robust smoothness weights at the current flow (forward differences). */
static void smooth_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const refine_job *j = arg;
    int w = j->w, h = j->h;
    const float *f = j->flow;
    float alpha = j->p->alpha;
    for (int64_t y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            int64_t q = y * w + x;
            float ux = 0, vx = 0, uy = 0, vy = 0;
            if (x + 1 < w)
                ux = f[2 * (q + 1)] - f[2 * q], vx = f[2 * (q + 1) + 1] - f[2 * q + 1];
            if (y + 1 < h)
                uy = f[2 * (q + w)] - f[2 * q], vy = f[2 * (q + w) + 1] - f[2 * q + 1];
            float psi =
                alpha / sqrtf(ux * ux + vx * vx + uy * uy + vy * vy + EPS_SMOOTH * EPS_SMOOTH);
            j->plane[S_R][q] = psi * j->plane[EDGE_R][q];
            j->plane[S_D][q] = psi * j->plane[EDGE_D][q];
        }
}

static void sor_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const refine_job *j = arg;
    int w = j->w; /* no bottom check: S_D and EDGE_D are 0 on the last row */
    float *const *P = j->plane;
    const float *f = j->flow;
    float *du = P[DU], *dv = P[DV];
    for (int64_t y = begin; y < end; y++)
        for (int x = (int)((y + j->colour) & 1); x < w; x += 2) {
            int64_t q = y * w + x;
            float su = 0, sv = 0, s = 0;
            float wr = P[S_R][q], wl = x > 0 ? P[S_R][q - 1] : 0;
            float wd = P[S_D][q], wu = y > 0 ? P[S_D][q - w] : 0;
            float up = f[2 * q], vp = f[2 * q + 1];
            if (wr > 0)
                su += wr * (f[2 * (q + 1)] + du[q + 1] - up),
                    sv += wr * (f[2 * (q + 1) + 1] + dv[q + 1] - vp), s += wr;
            if (wl > 0)
                su += wl * (f[2 * (q - 1)] + du[q - 1] - up),
                    sv += wl * (f[2 * (q - 1) + 1] + dv[q - 1] - vp), s += wl;
            if (wd > 0)
                su += wd * (f[2 * (q + w)] + du[q + w] - up),
                    sv += wd * (f[2 * (q + w) + 1] + dv[q + w] - vp), s += wd;
            if (wu > 0)
                su += wu * (f[2 * (q - w)] + du[q - w] - up),
                    sv += wu * (f[2 * (q - w) + 1] + dv[q - w] - vp), s += wu;
            float a11 = P[A11][q] + s, a22 = P[A22][q] + s, a12 = P[A12][q];
            if (a11 > 0)
                du[q] += SOR_OMEGA * ((P[B1][q] - a12 * dv[q] + su) / a11 - du[q]);
            if (a22 > 0)
                dv[q] += SOR_OMEGA * ((P[B2][q] - a12 * du[q] + sv) / a22 - dv[q]);
        }
}

static void apply_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const refine_job *j = arg;
    for (int64_t q = begin * j->w; q < end * j->w; q++) {
        j->flow[2 * q] += j->plane[DU][q];
        j->flow[2 * q + 1] += j->plane[DV][q];
    }
}

gcut_status gcut__flow_refine(gcut_context *ctx, const float *i0, const float *i1, int w, int h,
                              const uint8_t *occluded, const gcut__flow_refine_params *p,
                              float *flow, int threads)
{
    if (p->iterations < 1)
        return GCUT_OK;
    size_t n = (size_t)w * (size_t)h;
    float *block = malloc(n * N_PLANES * sizeof *block);
    if (!block)
        return gcut__fail(ctx, GCUT_E_NOMEM, "flow: out of memory for the refinement of a "
                          "%d x %d level", w, h);
    refine_job j = {i0, i1, occluded, p, flow, {NULL}, w, h, 0};
    for (int k = 0; k < N_PLANES; k++)
        j.plane[k] = block + (size_t)k * n;
    gcut__flow_gradient(i0, w, h, j.plane[I0X], j.plane[I0Y], threads);
    gcut__flow_gradient(j.plane[I0X], w, h, j.plane[I0XX], j.plane[I0XY], threads);
    gcut__flow_gradient(j.plane[I0Y], w, h, j.plane[DU], j.plane[I0YY], threads);
    gcut__flow_gradient(i1, w, h, j.plane[I1X], j.plane[I1Y], threads);
    gcut__flow_gradient(j.plane[I1X], w, h, j.plane[I1XX], j.plane[I1XY], threads);
    gcut__flow_gradient(j.plane[I1Y], w, h, j.plane[DU], j.plane[I1YY], threads);
    int parts = gcut__thread_count(threads, (int64_t)n);
    gcut__parallel_for(parts, h, edge_rows, &j);
    for (int it = 0; it < p->iterations; it++) {
        gcut__parallel_for(parts, h, data_rows, &j);
        gcut__parallel_for(parts, h, smooth_rows, &j);
        for (int sweep = 0; sweep < p->sor_sweeps; sweep++)
            for (j.colour = 0; j.colour < 2; j.colour++)
                gcut__parallel_for(parts, h, sor_rows, &j);
        gcut__parallel_for(parts, h, apply_rows, &j);
    }
    free(block);
    return GCUT_OK;
}
