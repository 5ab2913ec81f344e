/* Interactive re-segmentation: a segmentation session on each GrabCut image
 * (upscaled, nearest neighbour, to about --megapixels), its first seeds the
 * robot user's scribbles (scribbles1/), then --additions more, each a disk
 * of the ground truth's label dropped on a mislabelled pixel of the last
 * mask (the robot user of Gulshan et al.). Per state: the session's update
 * (seeds in, mask out) and cut times; and a one-shot gcut_segment_image()
 * of the same state in the same run, whose mask must be the same.
 *
 * Usage: segment-session-bench DATA_DIR [--megapixels M] [--additions N]
 *                              [--only NAME] [--device cpu|gpu|auto]
 * DATA_DIR is the shared data's grabcut/ folder. Prints a markdown table
 * (medians over the additions) and exits 1 if a mask differs. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcut.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Nearest-neighbour upscale of `c`-channel pixels by f (>= 1). */
static uint8_t *upscale(const uint8_t *src, int w, int h, int c, double f, int *ow, int *oh)
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

/* One state more: a disk of the truth's label on a mislabelled pixel (not
 * in the unknown band), picked at random; 0 when none is left. */
static int add_disk(uint64_t *rs, const uint8_t *truth, const uint8_t *mask, uint8_t *seeds, int w,
                    int h, int radius)
{
    int64_t n = (int64_t)w * h, wrong = 0;
    for (int64_t i = 0; i < n; i++)
        wrong += truth[i] != 128 && (truth[i] > 128) != (mask[i] != 0) && !seeds[i];
    if (!wrong)
        return 0;
    *rs = *rs * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t pick = (int64_t)((*rs >> 11) % (uint64_t)wrong), at = -1;
    for (int64_t i = 0; i < n && at < 0; i++)
        if (truth[i] != 128 && (truth[i] > 128) != (mask[i] != 0) && !seeds[i] && pick-- == 0)
            at = i;
    int cx = (int)(at % w), cy = (int)(at / w);
    uint8_t label = truth[at] > 128 ? GCUT_SEED_FG : GCUT_SEED_BG;
    for (int y = cy - radius; y <= cy + radius; y++)
        for (int x = cx - radius; x <= cx + radius; x++)
            if (x >= 0 && y >= 0 && x < w && y < h &&
                (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius &&
                truth[(size_t)y * w + x] != 128 && (truth[(size_t)y * w + x] > 128) == (label == GCUT_SEED_FG))
                seeds[(size_t)y * w + x] = label;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR [--megapixels M] [--additions N] [--only NAME] "
                        "[--device cpu|gpu|auto]\n",
                argv[0]);
        return 2;
    }
    const char *dir = argv[1], *only = NULL;
    double megapixels = 4.0;
    int additions = 10;
    gcut_device device = GCUT_DEVICE_AUTO;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--megapixels") && i + 1 < argc)
            megapixels = atof(argv[++i]);
        else if (!strcmp(argv[i], "--additions") && i + 1 < argc)
            additions = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            const char *d = argv[++i];
            device = !strcmp(d, "cpu") ? GCUT_DEVICE_CPU : !strcmp(d, "gpu") ? GCUT_DEVICE_GPU
                                                                            : GCUT_DEVICE_AUTO;
        } else {
            fprintf(stderr, "segment-session-bench: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (additions < 1 || additions > 100 || !(megapixels > 0 && megapixels <= 64)) {
        fprintf(stderr, "segment-session-bench: --additions 1..100, --megapixels (0, 64]\n");
        return 2;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/scribbles1", dir);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "segment-session-bench: no %s\n", path);
        return 1;
    }
    char *names[64];
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < 64;) {
        const char *suffix = strstr(e->d_name, "-anno.png");
        if (suffix && suffix[9] == '\0') {
            names[count] = malloc((size_t)(suffix - e->d_name) + 1);
            memcpy(names[count], e->d_name, (size_t)(suffix - e->d_name));
            names[count][suffix - e->d_name] = '\0';
            count++;
        }
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, cmp_name);

    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = device;
    gcut_context *ctx = NULL;
    if (gcut_context_create(&opt, &ctx) != GCUT_OK)
        return 1;
    printf("| image | pixels | session create ms | update ms (median) | update ms (max) | "
           "cut ms (median) | cut ms (max) | one-shot ms (median) | solver |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    int bad = 0;
    for (int k = 0; k < count; k++) {
        if (only && !strstr(names[k], only))
            continue;
        gcut_image *im = NULL, *sc = NULL, *gt = NULL;
        char ip[1024], sp[1024], gp[1024];
        snprintf(ip, sizeof ip, "%s/images/%s.jpg", dir, names[k]);
        snprintf(sp, sizeof sp, "%s/scribbles1/%s-anno.png", dir, names[k]);
        snprintf(gp, sizeof gp, "%s/gt/%s.png", dir, names[k]);
        if (gcut_image_load(ctx, ip, &im) || gcut_image_load(ctx, sp, &sc) ||
            gcut_image_load(ctx, gp, &gt)) {
            fprintf(stderr, "%s: %s\n", names[k], gcut_last_error(ctx));
            gcut_image_destroy(im);
            gcut_image_destroy(sc);
            gcut_image_destroy(gt);
            continue;
        }
        int w = gcut_image_width(im), h = gcut_image_height(im), c = gcut_image_channels(im);
        int n0 = w * h;
        uint8_t *seeds0 = calloc((size_t)n0, 1), *truth0 = malloc((size_t)n0);
        gcut_seeds_add_scribbles(ctx, seeds0, w, h, sc, NULL, NULL);
        int gc = gcut_image_channels(gt);
        for (int i = 0; i < n0; i++)
            truth0[i] = gcut_image_pixels(gt)[(size_t)i * gc];
        double f = sqrt(megapixels * 1e6 / n0);
        if (f < 1)
            f = 1;
        int W, H, W2, H2;
        uint8_t *pix = upscale(gcut_image_pixels(im), w, h, c, f, &W, &H);
        uint8_t *seeds = upscale(seeds0, w, h, 1, f, &W2, &H2);
        uint8_t *truth = upscale(truth0, w, h, 1, f, &W2, &H2);
        size_t n = (size_t)W * H;
        uint8_t *mask = malloc(n), *want = malloc(n);
        gcut_segment_options so;
        gcut_segment_options_init(&so);
        gcut_segment_session *ss = NULL;
        double t0 = gcut_clock_ms();
        gcut_status st = gcut_segment_session_create(ctx, pix, W, H, c, (size_t)W * c, &so, &ss);
        double create_ms = gcut_clock_ms() - t0;
        double upd[101], cut[101], one[101];
        int states = 0;
        uint64_t rs = 12345 + (uint64_t)k;
        const char *algo = "?";
        for (int s = 0; !st && s <= additions; s++) {
            if (s > 0 && !add_disk(&rs, truth, mask, seeds, W, H, (int)(4 * f) + 2))
                break;
            gcut_segment_info info, ref;
            double t1 = gcut_clock_ms();
            st = gcut_segment_session_update(ss, seeds, mask, &info);
            double t2 = gcut_clock_ms();
            if (!st)
                st = gcut_segment_image(ctx, pix, W, H, c, (size_t)W * c, seeds, &so, want, &ref);
            double t3 = gcut_clock_ms();
            if (st)
                break;
            if (memcmp(mask, want, n) != 0) {
                fprintf(stderr, "%s, state %d: the session's mask differs\n", names[k], s);
                bad = 1;
            }
            algo = info.algo;
            /* The first update also prepares nothing more (create did):
             * every state counts, the first too. */
            upd[states] = t2 - t1;
            cut[states] = info.time_cut_ms;
            one[states] = t3 - t2;
            states++;
        }
        if (st) {
            fprintf(stderr, "%s: %s\n", names[k], gcut_last_error(ctx));
            bad = 1;
        } else {
            double upd_max = 0, cut_max = 0;
            for (int s = 0; s < states; s++) {
                upd_max = upd[s] > upd_max ? upd[s] : upd_max;
                cut_max = cut[s] > cut_max ? cut[s] : cut_max;
            }
            printf("| %s (%d states) | %dx%d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n",
                   names[k], states, W, H, create_ms, median(upd, states), upd_max,
                   median(cut, states), cut_max, median(one, states), algo);
            fflush(stdout);
        }
        gcut_segment_session_destroy(ss);
        free(pix);
        free(seeds);
        free(truth);
        free(seeds0);
        free(truth0);
        free(mask);
        free(want);
        gcut_image_destroy(im);
        gcut_image_destroy(sc);
        gcut_image_destroy(gt);
    }
    for (int k = 0; k < count; k++)
        free(names[k]);
    gcut_context_destroy(ctx);
    return bad;
}
