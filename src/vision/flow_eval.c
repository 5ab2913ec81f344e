/* Judging and showing a flow field: endpoint and angular error against
 * ground truth, and the colour-wheel picture of the Middlebury benchmark
 * (Baker et al., IJCV 2011). */
#include <math.h>
#include <stddef.h>

#include "core/context.h"

static int known(const float *f)
{
    return isfinite(f[0]) && isfinite(f[1]) && fabsf(f[0]) <= GCUT_FLOW_UNKNOWN &&
           fabsf(f[1]) <= GCUT_FLOW_UNKNOWN;
}

gcut_status gcut_flow_error(gcut_context *ctx, const float *flow, const float *truth, int width,
                            int height, double *epe, double *aae, int64_t *known_count)
{
    gcut__clear_error(ctx);
    if (!flow || !truth || width < 1 || height < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow error: bad arguments");
    double sum_epe = 0, sum_aae = 0;
    int64_t count = 0, n = (int64_t)width * height;
    for (int64_t p = 0; p < n; p++) {
        const float *g = truth + 2 * p, *f = flow + 2 * p;
        if (!known(g))
            continue;
        double du = (double)f[0] - g[0], dv = (double)f[1] - g[1];
        sum_epe += sqrt(du * du + dv * dv);
        double dot = (double)f[0] * g[0] + (double)f[1] * g[1] + 1.0;
        double norm = sqrt(((double)f[0] * f[0] + (double)f[1] * f[1] + 1.0) *
                           ((double)g[0] * g[0] + (double)g[1] * g[1] + 1.0));
        double c = dot / norm;
        sum_aae += acos(c > 1 ? 1 : c < -1 ? -1 : c);
        count++;
    }
    if (known_count)
        *known_count = count;
    if (!count)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow error: no pixel of the ground truth is known");
    if (epe)
        *epe = sum_epe / (double)count;
    if (aae)
        *aae = sum_aae / (double)count * (180.0 / 3.14159265358979323846);
    return GCUT_OK;
}

/* The wheel's hues, in the proportions of Baker et al.'s colorcode.cpp:
 * red-yellow 15, yellow-green 6, green-cyan 4, cyan-blue 11, blue-magenta
 * 13, magenta-red 6 (chosen to be perceptually even). */
#define WHEEL_SIZE 55

static void wheel_colour(int k, double rgb[3])
{
    static const int seg[6] = {15, 6, 4, 11, 13, 6};
    /* (start colour, end colour) of each segment. */
    static const double ends[7][3] = {{255, 0, 0},   {255, 255, 0}, {0, 255, 0}, {0, 255, 255},
                                      {0, 0, 255},   {255, 0, 255}, {255, 0, 0}};
    int s = 0;
    while (k >= seg[s])
        k -= seg[s++];
    double t = (double)k / seg[s];
    for (int c = 0; c < 3; c++)
        rgb[c] = ends[s][c] + t * (ends[s + 1][c] - ends[s][c]);
}

gcut_status gcut_flow_colorize(gcut_context *ctx, const float *flow, int width, int height,
                               double max_motion, uint8_t *rgb)
{
    gcut__clear_error(ctx);
    if (!flow || !rgb || width < 1 || height < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow colorize: bad arguments");
    int64_t n = (int64_t)width * height;
    double maxrad = max_motion;
    if (!(maxrad > 0)) {
        maxrad = 0;
        for (int64_t p = 0; p < n; p++)
            if (known(flow + 2 * p)) {
                double r = hypot(flow[2 * p], flow[2 * p + 1]);
                if (r > maxrad)
                    maxrad = r;
            }
        if (maxrad == 0)
            maxrad = 1;
    }
    for (int64_t p = 0; p < n; p++) {
        uint8_t *o = rgb + 3 * p;
        if (!known(flow + 2 * p)) {
            o[0] = o[1] = o[2] = 0;
            continue;
        }
        double fx = flow[2 * p] / maxrad, fy = flow[2 * p + 1] / maxrad;
        double rad = sqrt(fx * fx + fy * fy);
        double a = atan2(-fy, -fx) / 3.14159265358979323846;
        double fk = (a + 1.0) / 2.0 * (WHEEL_SIZE - 1);
        int k0 = (int)fk, k1 = (k0 + 1) % WHEEL_SIZE;
        double f = fk - k0, c0[3], c1[3];
        wheel_colour(k0 % WHEEL_SIZE, c0);
        wheel_colour(k1, c1);
        for (int c = 0; c < 3; c++) {
            double col = ((1 - f) * c0[c] + f * c1[c]) / 255.0;
            if (rad <= 1)
                col = 1 - rad * (1 - col); /* more saturated with the motion */
            else
                col *= 0.75; /* beyond the range: darker */
            o[c] = (uint8_t)(255.0 * col);
        }
    }
    return GCUT_OK;
}
