/* The image pyramid of the flow: grey conversion, blur, halving, flow
 * upsampling and gradients. */
#include <stddef.h>

#include "vision/flow_internal.h"
#include "core/parallel.h"

void gcut__flow_grey(const uint8_t *pixels, int w, int h, int channels, size_t stride,
                     float *grey)
{
    for (int y = 0; y < h; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        float *out = grey + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++) {
            const uint8_t *p = row + (size_t)x * (size_t)channels;
            /* ITU-R BT.601 luma, as OpenCV's grey conversion. */
            float v = channels >= 3 ? 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2] : p[0];
            out[x] = v * (1.0f / 255.0f);
        }
    }
}

typedef struct blur_job {
    const float *src;
    float *tmp, *dst;
    int w, h, pass;
} blur_job;

static void blur_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const blur_job *j = arg;
    int w = j->w, h = j->h;
    for (int64_t y = begin; y < end; y++) {
        if (j->pass == 0) { /* horizontal, src -> tmp */
            const float *s = j->src + y * w;
            float *t = j->tmp + y * w;
            for (int x = 0; x < w; x++) {
                int xm2 = x < 2 ? 0 : x - 2, xm1 = x < 1 ? 0 : x - 1;
                int xp1 = x + 1 < w ? x + 1 : w - 1, xp2 = x + 2 < w ? x + 2 : w - 1;
                t[x] = (s[xm2] + s[xp2] + 4.0f * (s[xm1] + s[xp1]) + 6.0f * s[x]) * (1.0f / 16);
            }
        } else { /* vertical, tmp -> dst */
            int64_t ym2 = y < 2 ? 0 : y - 2, ym1 = y < 1 ? 0 : y - 1;
            int64_t yp1 = y + 1 < h ? y + 1 : h - 1, yp2 = y + 2 < h ? y + 2 : h - 1;
            const float *a = j->tmp + ym2 * w, *b = j->tmp + ym1 * w, *c = j->tmp + y * w,
                        *d = j->tmp + yp1 * w, *e = j->tmp + yp2 * w;
            float *o = j->dst + y * w;
            for (int x = 0; x < w; x++)
                o[x] = (a[x] + e[x] + 4.0f * (b[x] + d[x]) + 6.0f * c[x]) * (1.0f / 16);
        }
    }
}

void gcut__flow_blur5(const float *src, int w, int h, float *tmp, float *dst, int threads)
{
    blur_job j = {src, tmp, dst, w, h, 0};
    int parts = gcut__thread_count(threads, (int64_t)w * h);
    gcut__parallel_for(parts, h, blur_rows, &j);
    j.pass = 1;
    gcut__parallel_for(parts, h, blur_rows, &j);
}

void gcut__flow_downsample(const float *src, int w, int h, float *tmp, float *dst, int threads)
{
    /* Rows blurred into tmp; the vertical pass only where a sample is kept. */
    blur_job j = {src, tmp, NULL, w, h, 0};
    int parts = gcut__thread_count(threads, (int64_t)w * h);
    gcut__parallel_for(parts, h, blur_rows, &j);
    int w2 = (w + 1) / 2, h2 = (h + 1) / 2;
    for (int y2 = 0; y2 < h2; y2++) {
        int y = 2 * y2;
        int ym2 = y < 2 ? 0 : y - 2, ym1 = y < 1 ? 0 : y - 1;
        int yp1 = y + 1 < h ? y + 1 : h - 1, yp2 = y + 2 < h ? y + 2 : h - 1;
        const float *a = tmp + (size_t)ym2 * w, *b = tmp + (size_t)ym1 * w,
                    *c = tmp + (size_t)y * w, *d = tmp + (size_t)yp1 * w,
                    *e = tmp + (size_t)yp2 * w;
        float *o = dst + (size_t)y2 * w2;
        for (int x2 = 0; x2 < w2; x2++) {
            int x = 2 * x2;
            o[x2] = (a[x] + e[x] + 4.0f * (b[x] + d[x]) + 6.0f * c[x]) * (1.0f / 16);
        }
    }
}

typedef struct upsample_job {
    const float *coarse;
    float *fine;
    int wc, hc, wf, hf;
} upsample_job;

static void upsample_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const upsample_job *j = arg;
    float sx = (float)j->wc / (float)j->wf, sy = (float)j->hc / (float)j->hf;
    for (int64_t y = begin; y < end; y++) {
        /* Pixel centres: fine (x + 0.5) maps to coarse (x + 0.5) * s. */
        float cy = ((float)y + 0.5f) * sy - 0.5f;
        if (cy < 0)
            cy = 0;
        if (cy > (float)(j->hc - 1))
            cy = (float)(j->hc - 1);
        int y0 = (int)cy, y1 = y0 + 1 < j->hc ? y0 + 1 : y0;
        float fy = cy - (float)y0;
        for (int x = 0; x < j->wf; x++) {
            float cx = ((float)x + 0.5f) * sx - 0.5f;
            if (cx < 0)
                cx = 0;
            if (cx > (float)(j->wc - 1))
                cx = (float)(j->wc - 1);
            int x0 = (int)cx, x1 = x0 + 1 < j->wc ? x0 + 1 : x0;
            float fx = cx - (float)x0;
            for (int k = 0; k < 2; k++) {
                const float *r0 = j->coarse + 2 * (size_t)y0 * j->wc + k;
                const float *r1 = j->coarse + 2 * (size_t)y1 * j->wc + k;
                float top = r0[2 * x0] + fx * (r0[2 * x1] - r0[2 * x0]);
                float bot = r1[2 * x0] + fx * (r1[2 * x1] - r1[2 * x0]);
                j->fine[2 * ((size_t)y * j->wf + x) + k] =
                    (top + fy * (bot - top)) / (k ? sy : sx);
            }
        }
    }
}

void gcut__flow_upsample(const float *coarse, int wc, int hc, float *fine, int wf, int hf,
                         int threads)
{
    upsample_job j = {coarse, fine, wc, hc, wf, hf};
    gcut__parallel_for(gcut__thread_count(threads, (int64_t)wf * hf), hf, upsample_rows, &j);
}

typedef struct gradient_job {
    const float *img;
    float *gx, *gy;
    int w, h;
} gradient_job;

static void gradient_rows(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    const gradient_job *j = arg;
    int w = j->w, h = j->h;
    for (int64_t y = begin; y < end; y++) {
        const float *r = j->img + y * w;
        const float *up = j->img + (y > 0 ? y - 1 : y) * w;
        const float *dn = j->img + (y + 1 < h ? y + 1 : y) * w;
        float ys = (y > 0 && y + 1 < h) ? 0.5f : 1.0f;
        for (int x = 0; x < w; x++) {
            int xl = x > 0 ? x - 1 : x, xr = x + 1 < w ? x + 1 : x;
            float xs = (x > 0 && x + 1 < w) ? 0.5f : 1.0f;
            j->gx[y * w + x] = xr == xl ? 0.0f : (r[xr] - r[xl]) * xs;
            j->gy[y * w + x] = h == 1 ? 0.0f : (dn[x] - up[x]) * ys;
        }
    }
}

void gcut__flow_gradient(const float *img, int w, int h, float *gx, float *gy, int threads)
{
    gradient_job j = {img, gx, gy, w, h};
    gcut__parallel_for(gcut__thread_count(threads, (int64_t)w * h), h, gradient_rows, &j);
}
