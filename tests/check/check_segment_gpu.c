/* Segmentation on the GPU against the CPU path (check_segment_gpu.h). */
#define _POSIX_C_SOURCE 200809L

#include "check_segment_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcut.h"

/* One input: pixels (any of 1-4 channels, with a stride), seeds. */
typedef struct seg_input {
    char what[96];
    int w, h, channels;
    size_t stride;
    uint8_t *pixels, *seeds;
    int must_fail; /* an input both paths refuse */
} seg_input;

static void input_free(seg_input *in)
{
    free(in->pixels);
    free(in->seeds);
    memset(in, 0, sizeof *in);
}

/* The bundled sample and its scribbles, from the working directory or a
 * parent (the source tree, or a build directory inside it). */
static int load_sample(seg_input *in, char *err, size_t err_size)
{
    static const char *const prefixes[] = {"", "../", "../../"};
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    gcut_image *im = NULL, *sc = NULL;
    int ok = 0;
    for (int k = 0; k < 3 && ctx && !im; k++) {
        char path[256];
        snprintf(path, sizeof path, "%ssamples/teddy.jpg", prefixes[k]);
        if (access(path, R_OK) != 0)
            continue;
        if (gcut_image_load(ctx, path, &im) != GCUT_OK)
            break;
        snprintf(path, sizeof path, "%ssamples/teddy-scribbles.png", prefixes[k]);
        if (gcut_image_load(ctx, path, &sc) != GCUT_OK)
            break;
    }
    if (!im || !sc) {
        snprintf(err, err_size, "samples/teddy.jpg and its scribbles: %s",
                 ctx && (im || sc) ? gcut_last_error(ctx)
                                   : "not found from the working directory or its parents");
        goto done;
    }
    in->w = gcut_image_width(im);
    in->h = gcut_image_height(im);
    in->channels = gcut_image_channels(im);
    in->stride = (size_t)in->w * (size_t)in->channels;
    size_t bytes = in->stride * (size_t)in->h;
    in->pixels = malloc(bytes);
    in->seeds = calloc((size_t)in->w * (size_t)in->h, 1);
    if (!in->pixels || !in->seeds) {
        snprintf(err, err_size, "out of memory");
        goto done;
    }
    memcpy(in->pixels, gcut_image_pixels(im), bytes);
    if (gcut_seeds_add_scribbles(ctx, in->seeds, in->w, in->h, sc, NULL, NULL) != GCUT_OK) {
        snprintf(err, err_size, "the sample's scribbles: %s", gcut_last_error(ctx));
        goto done;
    }
    snprintf(in->what, sizeof in->what, "sample teddy.jpg %dx%d", in->w, in->h);
    ok = 1;
done:
    gcut_image_destroy(im);
    gcut_image_destroy(sc);
    gcut_context_destroy(ctx);
    return ok;
}

/* A synthetic image: a disk of one colour over a gradient of another, with
 * noise, seeded by a scribble inside the disk and a frame (or a box
 * alone: no foreground seeds). */
static int make_synthetic(seg_input *in, int kind, uint64_t *s)
{
    static const int channels_of[] = {1, 3, 4};
    switch (kind) {
    case 0: /* random sizes, rarely whole tiles */
    case 1:
    case 2:
        in->w = 2 + (int)(check_mix(s) % 500);
        in->h = 2 + (int)(check_mix(s) % 260);
        in->channels = channels_of[kind];
        break;
    case 3: /* one pixel wide */
        in->w = 1;
        in->h = 3 + (int)(check_mix(s) % 300);
        in->channels = 3;
        break;
    default: /* one pixel tall */
        in->w = 3 + (int)(check_mix(s) % 300);
        in->h = 1;
        in->channels = 1;
        break;
    }
    in->stride =
        (size_t)in->w * (size_t)in->channels + (size_t)(check_mix(s) % 3) * (in->channels == 4);
    in->pixels = calloc(in->stride * (size_t)in->h, 1);
    in->seeds = calloc((size_t)in->w * (size_t)in->h, 1);
    if (!in->pixels || !in->seeds)
        return 0;
    const int w = in->w, h = in->h, noise = 1 + (int)(check_mix(s) % 60);
    const double cx = (double)(check_mix(s) % (uint64_t)w),
                 cy = (double)(check_mix(s) % (uint64_t)h);
    const double rad = 1.0 + (double)(check_mix(s) % (uint64_t)(w > h ? w : h)) / 2;
    const uint8_t fg[3] = {(uint8_t)check_mix(s), (uint8_t)check_mix(s), (uint8_t)check_mix(s)};
    const uint8_t bg[3] = {(uint8_t)check_mix(s), (uint8_t)check_mix(s), (uint8_t)check_mix(s)};
    const int box = check_mix(s) % 3 == 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = in->pixels + (size_t)y * in->stride + (size_t)x * (size_t)in->channels;
            double dx = x - cx, dy = y - cy;
            int inside = dx * dx + dy * dy <= rad * rad;
            for (int c = 0; c < in->channels; c++) {
                int base = c == 3 ? 255 : inside ? fg[c] : bg[c] + (x + y) % 32;
                int v = base + (int)(check_mix(s) % (uint64_t)(2 * noise + 1)) - noise;
                p[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
            uint8_t *sd = &in->seeds[(size_t)y * w + x];
            int frame = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            if (frame && (w > 2 || h > 2))
                *sd = GCUT_SEED_BG;
            else if (!box && dx * dx + dy * dy <= rad * rad / 9)
                *sd = GCUT_SEED_FG;
        }
    /* Thin images: one end background, the other foreground, the rest free. */
    if (w <= 2 && h <= 2) {
        memset(in->seeds, 0, (size_t)w * h);
        in->seeds[0] = GCUT_SEED_BG;
    } else if (w == 1 || h == 1) {
        int n = w * h;
        memset(in->seeds, 0, (size_t)n);
        in->seeds[0] = GCUT_SEED_BG;
        if (!box)
            in->seeds[n - 1] = GCUT_SEED_FG;
    }
    /* Something left to segment, always. */
    size_t free_pixels = 0;
    for (size_t i = 0; i < (size_t)w * h; i++)
        free_pixels += in->seeds[i] == GCUT_SEED_NONE;
    if (!free_pixels)
        in->seeds[(size_t)(h / 2) * w + w / 2] = GCUT_SEED_NONE;
    snprintf(in->what, sizeof in->what, "synthetic %dx%d, %d channels, stride %zu%s", w, h,
             in->channels, in->stride, box ? ", box" : "");
    return 1;
}

/* Inputs both paths must refuse. */
static int make_refused(seg_input *in, int kind, uint64_t *s)
{
    in->w = kind == 0 ? 1 : 3 + (int)(check_mix(s) % 40);
    in->h = kind == 0 ? 1 : 3 + (int)(check_mix(s) % 40);
    in->channels = 3;
    in->stride = (size_t)in->w * 3;
    in->pixels = malloc(in->stride * (size_t)in->h);
    in->seeds = calloc((size_t)in->w * (size_t)in->h, 1);
    if (!in->pixels || !in->seeds)
        return 0;
    for (size_t i = 0; i < in->stride * (size_t)in->h; i++)
        in->pixels[i] = (uint8_t)check_mix(s);
    const char *why = "";
    if (kind == 0) {
        why = "1x1, unseeded";
    } else if (kind == 1) {
        why = "every pixel seeded";
        for (int i = 0; i < in->w * in->h; i++)
            in->seeds[i] = i % 2 ? GCUT_SEED_FG : GCUT_SEED_BG;
    } else {
        why = "no background seed";
        in->seeds[in->w + 1] = GCUT_SEED_FG;
    }
    in->must_fail = 1;
    snprintf(in->what, sizeof in->what, "%dx%d, %s", in->w, in->h, why);
    return 1;
}

/* The whole file at `path` (NULL if unreadable); its size in *size. */
static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            uint8_t *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *size = len;
    return buf;
}

typedef struct seg_run {
    gcut_status st;
    char message[512];
    uint8_t *mask;
    gcut_segment_info info;
} seg_run;

static void run_one(gcut_context *ctx, const seg_input *in, const gcut_segment_options *o,
                    seg_run *out)
{
    out->mask = malloc((size_t)in->w * (size_t)in->h);
    out->st = out->mask ? gcut_segment_image(ctx, in->pixels, in->w, in->h, in->channels,
                                             in->stride, in->seeds, o, out->mask, &out->info)
                        : GCUT_E_NOMEM;
    snprintf(out->message, sizeof out->message, "%s", out->st ? gcut_last_error(ctx) : "");
}

/* Whether two successful runs agree: everything equal (masks, flow,
 * energy, beta, K, cuts, the saved graphs byte for byte). Both solvers
 * return the same source side (the pixels that cannot reach the sink), so
 * the masks agree even where minimum cuts tie (lambda 0, say). Returns 1,
 * or 0 with the reason in `why`. */
static int agree(const seg_input *in, const seg_run *c, const seg_run *g, const char *graph_c,
                 const char *graph_g, char *why, size_t why_size)
{
    const gcut_segment_info *a = &c->info, *b = &g->info;
    const size_t n = (size_t)in->w * (size_t)in->h;
    if (strcmp(b->device, "cpu") == 0) {
        snprintf(why, why_size, "the GPU run reports device 'cpu'");
        return 0;
    }
    if (a->beta != b->beta || a->hard_cap != b->hard_cap) {
        snprintf(why, why_size, "beta %.17g / %.17g, K %d / %d (cpu / gpu)", a->beta, b->beta,
                 a->hard_cap, b->hard_cap);
        return 0;
    }
    size_t la = 0, lb = 0;
    uint8_t *fa = slurp(graph_c, &la), *fb = slurp(graph_g, &lb);
    const int same_graph = fa && fb && la == lb && memcmp(fa, fb, la) == 0;
    free(fa);
    free(fb);
    size_t differ = 0, cpu_only = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (c->mask[i] != g->mask[i]) {
            differ++;
            cpu_only += c->mask[i] != 0;
            first = first < i ? first : i;
        }
    const int same_numbers = a->flow == b->flow && a->energy == b->energy &&
                             a->iterations == b->iterations && a->foreground == b->foreground;
    if (same_graph && same_numbers && differ == 0)
        return 1;
    snprintf(why, why_size,
             "%s; flow %lld / %lld, energy %.17g / %.17g, iterations %d / %d, foreground "
             "%lld / %lld (cpu / gpu); %zu pixels differ (%zu on the CPU's side only), the "
             "first at (%zu, %zu)",
             same_graph ? "equal graphs" : "the saved graphs differ", (long long)a->flow,
             (long long)b->flow, a->energy, b->energy, a->iterations, b->iterations,
             (long long)a->foreground, (long long)b->foreground, differ, cpu_only,
             n ? first % (size_t)in->w : 0, n ? first / (size_t)in->w : 0);
    return 0;
}

/* Runs both paths on `in` with `o` (the GPU's verified when o->verify). */
static void run_both(gcut_context *cpu, gcut_context *gpu, const seg_input *in,
                     gcut_segment_options *o, const char *graph_c, const char *graph_g, seg_run *c,
                     seg_run *g)
{
    int verify = o->verify;
    o->verify = 0;
    o->save_graph = graph_c;
    remove(graph_c);
    run_one(cpu, in, o, c);
    o->verify = verify;
    o->save_graph = graph_g;
    remove(graph_g);
    run_one(gpu, in, o, g);
}

static void compare(check_report *r, const char *what, gcut_context *cpu, gcut_context *gpu,
                    const seg_input *in, const gcut_segment_options *o, const char *graph_c,
                    const char *graph_g)
{
    gcut_segment_options oo = *o;
    seg_run c = {0}, g = {0};
    run_both(cpu, gpu, in, &oo, graph_c, graph_g, &c, &g);
    /* A synthetic box whose first cut leaves no foreground to fit a model to
     * fails on both paths, which then must fail alike; the sample must not. */
    const int may_fail = in->must_fail || strncmp(in->what, "synthetic", 9) == 0;
    char why[400] = "";
    if (in->must_fail || c.st || g.st) {
        if (!may_fail || (!in->must_fail && (!c.st || !g.st)))
            check_fail(r, "%s: cpu %s (%s), gpu %s (%s)", what, gcut_status_str(c.st), c.message,
                       gcut_status_str(g.st), g.message);
        else if (c.st == GCUT_OK || c.st != g.st || strcmp(c.message, g.message) != 0)
            check_fail(r, "%s: must fail alike: cpu %s '%s', gpu %s '%s'", what,
                       gcut_status_str(c.st), c.message, gcut_status_str(g.st), g.message);
        else
            r->passed++;
        goto done;
    }
    if (agree(in, &c, &g, graph_c, graph_g, why, sizeof why))
        r->passed++;
    else
        check_fail(r, "%s: %s", what, why);
done:
    free(c.mask);
    free(g.mask);
}

void check_segment_gpu_vs_cpu(check_report *r, int count, uint64_t seed)
{
    gcut_context *cpu = check_context(GCUT_DEVICE_CPU), *gpu = check_context(GCUT_DEVICE_GPU);
    int devices = 0;
    char dir[] = "/tmp/gcut-check-seg-XXXXXX";
    int have_dir = 0;
    if (!cpu || !gpu) {
        check_fail(r, "no context");
        goto done;
    }
    if (!gcut_cuda_built() || gcut_device_count(gpu, &devices) != GCUT_OK || devices == 0) {
        r->skipped += count; /* no usable GPU here */
        goto done;
    }
    if (!mkdtemp(dir)) {
        check_fail(r, "cannot make a temporary directory under /tmp");
        goto done;
    }
    have_dir = 1;
    char graph_c[64], graph_g[64];
    snprintf(graph_c, sizeof graph_c, "%s/cpu.max", dir);
    snprintf(graph_g, sizeof graph_g, "%s/gpu.max", dir);
    for (int index = 0; index < count; index++) {
        uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)index * 0xbf58476d1ce4e5b9ull + 7;
        for (int i = 0; i < 4; i++)
            check_mix(&s);
        seg_input in = {0};
        char err[300] = "out of memory";
        const int kind = index % 9;
        int ok = kind == 0   ? load_sample(&in, err, sizeof err)
                 : kind <= 5 ? make_synthetic(&in, kind - 1, &s)
                             : make_refused(&in, kind - 6, &s);
        if (!ok) {
            check_fail(r, "seed %llu index %d: no input: %s", (unsigned long long)seed, index, err);
            input_free(&in);
            continue;
        }
        static const double lambdas[] = {75, 0, 20, 400, 3000};
        gcut_segment_options o;
        gcut_segment_options_init(&o);
        o.connectivity = check_mix(&s) % 2 ? 8 : 4;
        o.model = check_mix(&s) % 4 == 0 ? GCUT_MODEL_HIST : GCUT_MODEL_GMM;
        o.components = 1 + (int)(check_mix(&s) % 6);
        o.iterations = 1 + (int)(check_mix(&s) % 5);
        o.lambda = lambdas[check_mix(&s) % 5];
        o.threads = 1 + (int)(check_mix(&s) % 3);
        o.verify = index % 2;
        char what[300];
        snprintf(what, sizeof what,
                 "seed %llu index %d (%s; %d-connected, %s, k %d, lambda %g, %d iterations%s)",
                 (unsigned long long)seed, index, in.what, o.connectivity,
                 o.model == GCUT_MODEL_HIST ? "hist" : "gmm", o.components, o.lambda, o.iterations,
                 o.verify ? ", verified" : "");
        compare(r, what, cpu, gpu, &in, &o, graph_c, graph_g);
        input_free(&in);
    }
done:
    if (have_dir) {
        char path[96];
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        remove(path);
        snprintf(path, sizeof path, "%s/gpu.max", dir);
        remove(path);
        rmdir(dir);
    }
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
}
