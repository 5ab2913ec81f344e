/* The variational refinement on the GPU (src/vision/flow_variational.c
 * gives the energy and the method): per fixed-point iteration, one kernel
 * warps frame 1 and linearises the data terms, one computes the robust
 * smoothness weights, then red-black SOR (a kernel per colour: a pixel of
 * one colour reads only the other colour's increments, so the sweep is the
 * CPU's), then the increment is added. One thread a pixel throughout. */
#include "flow_device.cuh"
#include "flow_kernels.h"

#define SOR_OMEGA 1.6f
#define EPS_DATA 1e-3f
#define EPS_SMOOTH 1e-3f
#define OCCLUDED_DATA_WEIGHT 0.1f

enum {
    I0X, I0Y, I0XX, I0XY, I0YY,
    I1X, I1Y, I1XX, I1XY, I1YY,
    EDGE_R, EDGE_D,
    A11, A12, A22, B1, B2,
    S_R, S_D,
    DU, DV,
    N_PLANES
};

/* The planes of one refinement, passed by value to every kernel. */
typedef struct planes {
    float *p[N_PLANES];
} planes;

static unsigned blocks_for(long long count) { return (unsigned)((count + 255) / 256); }

static __global__ void edge_kernel(const float *__restrict__ i0, int w, int h, float k, planes P)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= w * h)
        return;
    int x = q % w, y = q / w;
    float c = i0[q];
    P.p[EDGE_R][q] = x + 1 < w ? expf(-k * fabsf(i0[q + 1] - c)) : 0.0f;
    P.p[EDGE_D][q] = y + 1 < h ? expf(-k * fabsf(i0[q + w] - c)) : 0.0f;
}

static __global__ void data_kernel(const float *__restrict__ i0, const float *__restrict__ i1,
                                   int w, int h, const uint8_t *__restrict__ occluded,
                                   float delta, float gamma, const float *__restrict__ flow,
                                   planes P)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= w * h)
        return;
    int x = q % w, y = q / w;
    float xw = (float)x + flow[2 * (size_t)q], yw = (float)y + flow[2 * (size_t)q + 1];
    P.p[DU][q] = P.p[DV][q] = 0;
    if (!(xw >= 0 && yw >= 0 && xw <= (float)(w - 1) && yw <= (float)(h - 1))) {
        P.p[A11][q] = P.p[A12][q] = P.p[A22][q] = P.p[B1][q] = P.p[B2][q] = 0;
        return;
    }
    float s1 = flow_sample(i1, w, h, xw, yw);
    float i1x = flow_sample(P.p[I1X], w, h, xw, yw);
    float i1y = flow_sample(P.p[I1Y], w, h, xw, yw);
    float ix = 0.5f * (P.p[I0X][q] + i1x), iy = 0.5f * (P.p[I0Y][q] + i1y);
    float iz = s1 - i0[q];
    float ixx = 0.5f * (P.p[I0XX][q] + flow_sample(P.p[I1XX], w, h, xw, yw));
    float ixy = 0.5f * (P.p[I0XY][q] + flow_sample(P.p[I1XY], w, h, xw, yw));
    float iyy = 0.5f * (P.p[I0YY][q] + flow_sample(P.p[I1YY], w, h, xw, yw));
    float ixz = i1x - P.p[I0X][q], iyz = i1y - P.p[I0Y][q];
    float scale = occluded && occluded[q] ? OCCLUDED_DATA_WEIGHT : 1.0f;
    float wd = scale * delta / sqrtf(iz * iz + EPS_DATA * EPS_DATA);
    float wg = scale * gamma / sqrtf(ixz * ixz + iyz * iyz + EPS_DATA * EPS_DATA);
    P.p[A11][q] = wd * ix * ix + wg * (ixx * ixx + ixy * ixy);
    P.p[A12][q] = wd * ix * iy + wg * (ixx * ixy + ixy * iyy);
    P.p[A22][q] = wd * iy * iy + wg * (ixy * ixy + iyy * iyy);
    P.p[B1][q] = -(wd * ix * iz + wg * (ixx * ixz + ixy * iyz));
    P.p[B2][q] = -(wd * iy * iz + wg * (ixy * ixz + iyy * iyz));
}

static __global__ void smooth_kernel(int w, int h, float alpha, const float *__restrict__ f,
                                     planes P)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= w * h)
        return;
    int x = q % w, y = q / w;
    float ux = 0, vx = 0, uy = 0, vy = 0;
    if (x + 1 < w)
        ux = f[2 * (q + 1)] - f[2 * q], vx = f[2 * (q + 1) + 1] - f[2 * q + 1];
    if (y + 1 < h)
        uy = f[2 * (q + w)] - f[2 * q], vy = f[2 * (q + w) + 1] - f[2 * q + 1];
    float psi = alpha / sqrtf(ux * ux + vx * vx + uy * uy + vy * vy + EPS_SMOOTH * EPS_SMOOTH);
    P.p[S_R][q] = psi * P.p[EDGE_R][q];
    P.p[S_D][q] = psi * P.p[EDGE_D][q];
}

/* One thread a pixel of the given colour ((x + y) % 2 == colour). */
static __global__ void sor_kernel(int w, int h, int colour, const float *__restrict__ f, planes P)
{
    int half_w = (w + 1) / 2;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= half_w * h)
        return;
    int y = t / half_w, x = 2 * (t % half_w) + ((y + colour) & 1);
    if (x >= w)
        return;
    int q = y * w + x;
    float *du = P.p[DU], *dv = P.p[DV];
    float su = 0, sv = 0, s = 0;
    float wr = P.p[S_R][q], wl = x > 0 ? P.p[S_R][q - 1] : 0;
    float wd = P.p[S_D][q], wu = y > 0 ? P.p[S_D][q - w] : 0;
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
    float a11 = P.p[A11][q] + s, a22 = P.p[A22][q] + s, a12 = P.p[A12][q];
    float du_q = du[q];
    if (a11 > 0)
        du_q += SOR_OMEGA * ((P.p[B1][q] - a12 * dv[q] + su) / a11 - du_q);
    du[q] = du_q;
    if (a22 > 0)
        dv[q] += SOR_OMEGA * ((P.p[B2][q] - a12 * du_q + sv) / a22 - dv[q]);
}

static __global__ void apply_kernel(int n, float *__restrict__ f, planes P)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n)
        return;
    f[2 * q] += P.p[DU][q];
    f[2 * q + 1] += P.p[DV][q];
}

extern "C" int gcut__flow_refine_planes(void) { return N_PLANES; }

extern "C" cudaError_t gcut__flow_refine_launch(const float *i0, const float *i1, int w, int h,
                                                const uint8_t *occluded,
                                                const gcut__flow_drefine *p, float *flow,
                                                float *block, cudaStream_t stream)
{
    if (p->iterations < 1)
        return cudaSuccess;
    size_t n = (size_t)w * h;
    planes P;
    for (int k = 0; k < N_PLANES; k++)
        P.p[k] = block + (size_t)k * n;
    cudaError_t err;
    /* Derivatives of both frames; DU is scratch for the unused yx ones. */
    if ((err = gcut__flow_gradient_launch(i0, w, h, P.p[I0X], P.p[I0Y], stream)) ||
        (err = gcut__flow_gradient_launch(P.p[I0X], w, h, P.p[I0XX], P.p[I0XY], stream)) ||
        (err = gcut__flow_gradient_launch(P.p[I0Y], w, h, P.p[DU], P.p[I0YY], stream)) ||
        (err = gcut__flow_gradient_launch(i1, w, h, P.p[I1X], P.p[I1Y], stream)) ||
        (err = gcut__flow_gradient_launch(P.p[I1X], w, h, P.p[I1XX], P.p[I1XY], stream)) ||
        (err = gcut__flow_gradient_launch(P.p[I1Y], w, h, P.p[DU], P.p[I1YY], stream)))
        return err;
    const unsigned b = blocks_for((long long)n), b_half = blocks_for((long long)((w + 1) / 2) * h);
    edge_kernel<<<b, 256, 0, stream>>>(i0, w, h, p->edge * 255.0f, P);
    for (int it = 0; it < p->iterations; it++) {
        data_kernel<<<b, 256, 0, stream>>>(i0, i1, w, h, occluded, p->delta, p->gamma, flow, P);
        smooth_kernel<<<b, 256, 0, stream>>>(w, h, p->alpha, flow, P);
        for (int sweep = 0; sweep < p->sor_sweeps; sweep++)
            for (int colour = 0; colour < 2; colour++)
                sor_kernel<<<b_half, 256, 0, stream>>>(w, h, colour, flow, P);
        apply_kernel<<<b, 256, 0, stream>>>((int)n, flow, P);
    }
    return cudaPeekAtLastError();
}
