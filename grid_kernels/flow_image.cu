/* The per-pixel stages of the flow on the GPU: grey conversion, the
 * pyramid's blur and halving, census signatures, gradients, flow
 * upsampling, the sub-pixel Lucas-Kanade step, the densification and the
 * median. Each kernel is one thread a pixel and computes what the CPU stage
 * of the same name in src/vision/flow_*.c computes, in the same order. */
#include "flow_device.cuh"
#include "flow_kernels.h"

static unsigned blocks_for(long long count) { return (unsigned)((count + 255) / 256); }

/* One thread a pixel. */
static __global__ void grey_kernel(const uint8_t *__restrict__ pixels, int w, int h,
                                   int channels, size_t stride, float *__restrict__ grey)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= w * h)
        return;
    const uint8_t *q = pixels + (size_t)(p / w) * stride + (size_t)(p % w) * channels;
    float v = channels >= 3 ? 0.299f * q[0] + 0.587f * q[1] + 0.114f * q[2] : (float)q[0];
    grey[p] = v * (1.0f / 255.0f);
}

/* One thread a pixel of src: the horizontal [1 4 6 4 1]/16 pass. */
static __global__ void blur_rows_kernel(const float *__restrict__ src, int w, int h,
                                        float *__restrict__ tmp)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= w * h)
        return;
    int x = p % w;
    const float *s = src + (p - x);
    int xm2 = x < 2 ? 0 : x - 2, xm1 = x < 1 ? 0 : x - 1;
    int xp1 = x + 1 < w ? x + 1 : w - 1, xp2 = x + 2 < w ? x + 2 : w - 1;
    tmp[p] = (s[xm2] + s[xp2] + 4.0f * (s[xm1] + s[xp1]) + 6.0f * s[x]) * (1.0f / 16);
}

/* One thread a pixel of the half-size level: the vertical pass where a
 * sample is kept. */
static __global__ void halve_kernel(const float *__restrict__ tmp, int w, int h,
                                    float *__restrict__ dst)
{
    int w2 = (w + 1) / 2, h2 = (h + 1) / 2;
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= w2 * h2)
        return;
    int x = 2 * (p % w2), y = 2 * (p / w2);
    int ym2 = y < 2 ? 0 : y - 2, ym1 = y < 1 ? 0 : y - 1;
    int yp1 = y + 1 < h ? y + 1 : h - 1, yp2 = y + 2 < h ? y + 2 : h - 1;
    dst[p] = (tmp[(size_t)ym2 * w + x] + tmp[(size_t)yp2 * w + x] +
              4.0f * (tmp[(size_t)ym1 * w + x] + tmp[(size_t)yp1 * w + x]) +
              6.0f * tmp[(size_t)y * w + x]) *
             (1.0f / 16);
}

/* One thread a pixel. */
static __global__ void census_kernel(const float *__restrict__ img, int w, int h, int r,
                                     uint64_t *__restrict__ sig)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= w * h)
        return;
    int x = p % w, y = p / w;
    float c = img[p];
    uint64_t s = 0;
    for (int dy = -r; dy <= r; dy++) {
        int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
        for (int dx = -r; dx <= r; dx++) {
            if (!dx && !dy)
                continue;
            int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
            s = s << 1 | (uint64_t)(img[(size_t)yy * w + xx] < c);
        }
    }
    sig[p] = s;
}

/* One thread a pixel. */
static __global__ void gradient_kernel(const float *__restrict__ img, int w, int h,
                                       float *__restrict__ gx, float *__restrict__ gy)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= w * h)
        return;
    int x = p % w, y = p / w;
    const float *r = img + (size_t)y * w;
    const float *up = img + (size_t)(y > 0 ? y - 1 : y) * w;
    const float *dn = img + (size_t)(y + 1 < h ? y + 1 : y) * w;
    float ys = (y > 0 && y + 1 < h) ? 0.5f : 1.0f;
    int xl = x > 0 ? x - 1 : x, xr = x + 1 < w ? x + 1 : x;
    float xs = (x > 0 && x + 1 < w) ? 0.5f : 1.0f;
    gx[p] = xr == xl ? 0.0f : (r[xr] - r[xl]) * xs;
    gy[p] = h == 1 ? 0.0f : (dn[x] - up[x]) * ys;
}

/* One thread a fine pixel. */
static __global__ void upsample_kernel(const float *__restrict__ coarse, int wc, int hc,
                                       float *__restrict__ fine, int wf, int hf)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= wf * hf)
        return;
    int x = p % wf, y = p / wf;
    float sx = (float)wc / (float)wf, sy = (float)hc / (float)hf;
    float cy = ((float)y + 0.5f) * sy - 0.5f;
    cy = cy < 0 ? 0 : cy > (float)(hc - 1) ? (float)(hc - 1) : cy;
    int y0 = (int)cy, y1 = y0 + 1 < hc ? y0 + 1 : y0;
    float fy = cy - (float)y0;
    float cx = ((float)x + 0.5f) * sx - 0.5f;
    cx = cx < 0 ? 0 : cx > (float)(wc - 1) ? (float)(wc - 1) : cx;
    int x0 = (int)cx, x1 = x0 + 1 < wc ? x0 + 1 : x0;
    float fx = cx - (float)x0;
    for (int k = 0; k < 2; k++) {
        const float *r0 = coarse + 2 * (size_t)y0 * wc + k;
        const float *r1 = coarse + 2 * (size_t)y1 * wc + k;
        float top = r0[2 * x0] + fx * (r0[2 * x1] - r0[2 * x0]);
        float bot = r1[2 * x0] + fx * (r1[2 * x1] - r1[2 * x0]);
        fine[2 * (size_t)p + k] = (top + fy * (bot - top)) / (k ? sy : sx);
    }
}

#define SUBPIXEL_STEPS 3

/* One thread a pixel: inverse-compositional Lucas-Kanade from the matched
 * integer vector, as subpixel_rows in src/vision/flow_match.c. */
static __global__ void subpixel_kernel(const float *__restrict__ i0, const float *__restrict__ i1,
                                       const float *__restrict__ gx, const float *__restrict__ gy,
                                       int w, int h, int r, const uint8_t *__restrict__ matched,
                                       float *__restrict__ flow, float *__restrict__ residual)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= w * h)
        return;
    if (!matched[p]) {
        residual[p] = 1.0f;
        return;
    }
    int x = p % w, y = p / w;
    float *f = flow + 2 * (size_t)p;
    float u0 = f[0], v0 = f[1], u = u0, v = v0;
    float hxx = 0, hxy = 0, hyy = 0;
    for (int dy = -r; dy <= r; dy++) {
        int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
        for (int dx = -r; dx <= r; dx++) {
            int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
            float ax = gx[(size_t)yy * w + xx], ay = gy[(size_t)yy * w + xx];
            hxx += ax * ax, hxy += ax * ay, hyy += ay * ay;
        }
    }
    float det = hxx * hyy - hxy * hxy;
    if (det > 1e-9f * (hxx + hyy) * (hxx + hyy) && det > 1e-12f) {
        for (int step = 0; step < SUBPIXEL_STEPS; step++) {
            float bx = 0, by = 0;
            for (int dy = -r; dy <= r; dy++) {
                int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                for (int dx = -r; dx <= r; dx++) {
                    int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                    size_t q = (size_t)yy * w + xx;
                    float e = flow_sample(i1, w, h, (float)xx + u, (float)yy + v) - i0[q];
                    bx += gx[q] * e, by += gy[q] * e;
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
        int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
        for (int dx = -r; dx <= r; dx++) {
            int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
            sum += fabsf(flow_sample(i1, w, h, (float)xx + u, (float)yy + v) -
                         i0[(size_t)yy * w + xx]);
        }
    }
    f[0] = u, f[1] = v;
    residual[p] = sum / (float)((2 * r + 1) * (2 * r + 1));
}

/* The constants of src/vision/flow_densify.c. */
#define DENSIFY_RADIUS 2
#define DENSIFY_SIGMA_GREY 0.05f
#define DENSIFY_RESIDUAL_FLOOR 0.004f

/* One thread a pixel. */
static __global__ void densify_kernel(const float *__restrict__ i0, int w, int h,
                                      const float *__restrict__ flow,
                                      const uint8_t *__restrict__ matched,
                                      const float *__restrict__ residual,
                                      const float *__restrict__ prior, float *__restrict__ out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= w * h)
        return;
    int x = p % w, y = p / w;
    float c = i0[p], su = 0, sv = 0, sw = 0;
    for (int dy = -DENSIFY_RADIUS; dy <= DENSIFY_RADIUS; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= h)
            continue;
        for (int dx = -DENSIFY_RADIUS; dx <= DENSIFY_RADIUS; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= w)
                continue;
            size_t q = (size_t)yy * w + xx;
            if (!matched[q])
                continue;
            float res = residual[q];
            float wt = expf(-fabsf(i0[q] - c) * (1.0f / DENSIFY_SIGMA_GREY)) /
                       (res > DENSIFY_RESIDUAL_FLOOR ? res : DENSIFY_RESIDUAL_FLOOR);
            su += wt * flow[2 * q];
            sv += wt * flow[2 * q + 1];
            sw += wt;
        }
    }
    if (sw > 0) {
        out[2 * (size_t)p] = su / sw;
        out[2 * (size_t)p + 1] = sv / sw;
    } else {
        out[2 * (size_t)p] = prior ? prior[2 * (size_t)p] : 0.0f;
        out[2 * (size_t)p + 1] = prior ? prior[2 * (size_t)p + 1] : 0.0f;
    }
}

#define MEDIAN_RADIUS 2
#define MEDIAN_SIDE (2 * MEDIAN_RADIUS + 1)

static __device__ float median_of(float *v, int n)
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

/* One thread a pixel, its window's values in registers and local memory. */
static __global__ void median_kernel(const float *__restrict__ in, int w, int h,
                                     float *__restrict__ out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= w * h)
        return;
    int x = p % w, y = p / w;
    float u[MEDIAN_SIDE * MEDIAN_SIDE], v[MEDIAN_SIDE * MEDIAN_SIDE];
    int n = 0;
    for (int dy = -MEDIAN_RADIUS; dy <= MEDIAN_RADIUS; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= h)
            continue;
        for (int dx = -MEDIAN_RADIUS; dx <= MEDIAN_RADIUS; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= w)
                continue;
            u[n] = in[2 * ((size_t)yy * w + xx)];
            v[n] = in[2 * ((size_t)yy * w + xx) + 1];
            n++;
        }
    }
    out[2 * (size_t)p] = median_of(u, n);
    out[2 * (size_t)p + 1] = median_of(v, n);
}

extern "C" cudaError_t gcut__flow_grey_launch(const uint8_t *pixels, int w, int h, int channels,
                                              size_t stride, float *grey, cudaStream_t stream)
{
    grey_kernel<<<blocks_for((long long)w * h), 256, 0, stream>>>(pixels, w, h, channels,
                                                                   stride, grey);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_downsample_launch(const float *src, int w, int h, float *tmp,
                                                    float *dst, cudaStream_t stream)
{
    blur_rows_kernel<<<blocks_for((long long)w * h), 256, 0, stream>>>(src, w, h, tmp);
    long long half = (long long)((w + 1) / 2) * ((h + 1) / 2);
    halve_kernel<<<blocks_for(half), 256, 0, stream>>>(tmp, w, h, dst);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_census_launch(const float *img, int w, int h, int patch,
                                                uint64_t *sig, cudaStream_t stream)
{
    census_kernel<<<blocks_for((long long)w * h), 256, 0, stream>>>(img, w, h, patch / 2, sig);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_gradient_launch(const float *img, int w, int h, float *gx,
                                                  float *gy, cudaStream_t stream)
{
    gradient_kernel<<<blocks_for((long long)w * h), 256, 0, stream>>>(img, w, h, gx, gy);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_upsample_launch(const float *coarse, int wc, int hc,
                                                  float *fine, int wf, int hf,
                                                  cudaStream_t stream)
{
    upsample_kernel<<<blocks_for((long long)wf * hf), 256, 0, stream>>>(coarse, wc, hc, fine,
                                                                         wf, hf);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_subpixel_launch(const float *i0, const float *i1,
                                                  const float *gx, const float *gy, int w,
                                                  int h, int patch, const uint8_t *matched,
                                                  float *flow, float *residual,
                                                  cudaStream_t stream)
{
    subpixel_kernel<<<blocks_for((long long)w * h), 256, 0, stream>>>(
        i0, i1, gx, gy, w, h, patch / 2, matched, flow, residual);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_densify_launch(const float *i0, int w, int h,
                                                 const float *flow, const uint8_t *matched,
                                                 const float *residual, const float *prior,
                                                 float *out, cudaStream_t stream)
{
    densify_kernel<<<blocks_for((long long)w * h), 256, 0, stream>>>(i0, w, h, flow, matched,
                                                                      residual, prior, out);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_median_launch(const float *in, int w, int h, float *out,
                                                cudaStream_t stream)
{
    median_kernel<<<blocks_for((long long)w * h), 256, 0, stream>>>(in, w, h, out);
    return cudaPeekAtLastError();
}
