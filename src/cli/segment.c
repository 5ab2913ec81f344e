/* gcut segment: interactive segmentation of an image from seeds. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "cli_outputs.h"

static const char *const cmd = "segment";

static void usage(FILE *out)
{
    gcut_segment_options d;
    gcut_segment_options_init(&d);
    fprintf(out,
            "Usage: gcut segment [OPTIONS] IMAGE\n"
            "\n"
            "Cut IMAGE (PNG, JPEG, PNM) into foreground and background from seeds: the\n"
            "Boykov-Jolly energy with GrabCut's colour models, solved exactly by a minimum cut.\n"
            "\n"
            "Seeds (any combination; at least one background seed, or a box):\n"
            "  -s, --seeds PNG          scribbles: a palette PNG with index 1 = foreground and\n"
            "                           2 = background, or an RGB(A) image where pure red is\n"
            "                           foreground and pure blue background (see -F, -B)\n"
            "  -F, --fg-color R,G,B     scribble colour of foreground (default 255,0,0)\n"
            "  -B, --bg-color R,G,B     scribble colour of background (default 0,0,255)\n"
            "  -t, --trimap PNG         0 = background, 255 = foreground, else unknown\n"
            "  -b, --box X1,Y1,X2,Y2    GrabCut's rectangle (inclusive pixel coordinates):\n"
            "                           everything outside it is background\n"
            "  -S, --seeds-sequence A,B,...\n"
            "                           scribble files (as --seeds), each a later state of\n"
            "                           the same scribbles: one mask per state, each equal\n"
            "                           to a segmentation of that state alone, made in one\n"
            "                           session (the image prepared once, the cut warm);\n"
            "                           -o then names the masks with one %%d (1, 2, ...)\n"
            "\n"
            "Outputs:\n"
            "  -o, --output PNG         the mask, 8-bit grey: 255 foreground, 0 background\n"
            "  -M, --mask-values FG,BG  other mask values, e.g. 1,0\n"
            "  -O, --overlay FILE       the image with the foreground tinted green and the\n"
            "                           seeds drawn (red foreground, blue background):\n"
            "                           %s\n"
            "  -g, --save-graph FILE    the final cut's graph, DIMACS with a grid hint\n"
            "                           (solve it again with 'gcut grid')\n"
            "  -j, --json               print one JSON object on stdout\n"
            "\n"
            "Energy:\n"
            "  -m, --model NAME         colour model: gmm (default; Gaussian mixtures) or hist\n"
            "                           (smoothed colour histograms)\n"
            "  -k, --components K       Gaussians per mixture (default %d)\n"
            "  -i, --iterations N       at most N cuts, re-fitting the models to each result\n"
            "                           until the energy stops decreasing (default %d); the\n"
            "                           foreground not joined to a foreground seed is\n"
            "                           taken as background for the re-fit\n"
            "  -l, --lambda L           weight of the boundary term (default %g)\n"
            "  -N, --connectivity 4|8   neighbours per pixel (default %d)\n"
            "\n"
            "Solver:\n"
            "  -d, --device DEV         auto (default: the GPU when usable), cpu, gpu; on\n"
            "                           the GPU the graph is built there from the image\n"
            "                           and only the mask comes back (--verify and\n"
            "                           --save-graph copy the graph back too)\n"
            "  -a, --algo NAME          grid solver; this build has: %s\n"
            "  -c, --verify             check every cut's proof (flow = cut capacity)\n"
            "  -T, --threads N          CPU threads for the colour models, the graph and\n"
            "                           the cut ('pbk', the CPU's default solver)\n"
            "                           (default 0: one per CPU; the result is the same)\n"
            "  -q, --quiet              no notices on stderr\n"
            "  -X, --max-memory SIZE    refuse work estimated to need more host memory\n"
            "                           (e.g. 4G, 512M; default: the memory available)\n"
            "  -V, --version            print the version and exit\n"
            "  -h, --help               print this help and exit\n"
            "\n"
            "Exit status: 0 success, 1 runtime error (bad file, no GPU with --device gpu),\n"
            "2 usage error. On failure no output file is left behind.\n",
            gcut_image_stb_built() ? ".png, .ppm, .jpg or .bmp"
                                   : ".png or .ppm (this build has no stb_image_write\n"
                                     "                           for .jpg and .bmp)",
            d.components, d.iterations, d.lambda, d.connectivity, gcut_grid_algorithms());
}

typedef struct seg_args {
    gcut_device device;
    const char *input, *seeds, *trimap, *output, *overlay, *graph, *algo;
    const char *sequence; /* --seeds-sequence: comma-separated scribble files */
    int box[4], have_box;
    uint8_t fg_rgb[3], bg_rgb[3];
    int mask_fg, mask_bg;
    int json, quiet;
    gcut_segment_options opt;
    cli_outputs outs;
} seg_args;

/* Exactly `n` comma-separated integers in [lo, hi]; 0 on success. */
static int parse_ints(const char *s, int n, int lo, int hi, int *out)
{
    const char *p = s;
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < lo || v > hi)
            return -1;
        out[i] = (int)v;
        p = end;
        if (i + 1 < n) {
            if (*p != ',')
                return -1;
            p++;
        }
    }
    return *p ? -1 : 0;
}

static int parse_color(const char *opt, const char *s, uint8_t rgb[3])
{
    int v[3];
    if (parse_ints(s, 3, 0, 255, v))
        return cli_usage_error(cmd, "%s needs R,G,B with each in 0..255, not '%s'", opt, s);
    for (int i = 0; i < 3; i++)
        rgb[i] = (uint8_t)v[i];
    return 0;
}

static int parse_number(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        return cli_usage_error(cmd, "%s must be a number in %g..%g, not '%s'", opt, lo, hi, s);
    *out = v;
    return 0;
}

static int parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
    if (parse_ints(s, 1, lo, hi, out))
        return cli_usage_error(cmd, "%s must be an integer in %d..%d, not '%s'", opt, lo, hi, s);
    return 0;
}

/* The extension (lower-case compare) of an overlay path is one we write. */
static int overlay_ok(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && slash > dot))
        return 0;
    const char *ext = dot + 1;
    if (!strcasecmp(ext, "png") || !strcasecmp(ext, "ppm"))
        return 1;
    return gcut_image_stb_built() && (!strcasecmp(ext, "jpg") || !strcasecmp(ext, "jpeg") ||
                                      !strcasecmp(ext, "bmp"));
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, seg_args *a)
{
    static const struct option longs[] = {
        {"seeds", required_argument, NULL, 's'},      {"fg-color", required_argument, NULL, 'F'},
        {"bg-color", required_argument, NULL, 'B'},   {"trimap", required_argument, NULL, 't'},
        {"box", required_argument, NULL, 'b'},        {"output", required_argument, NULL, 'o'},
        {"mask-values", required_argument, NULL, 'M'}, {"overlay", required_argument, NULL, 'O'},
        {"save-graph", required_argument, NULL, 'g'}, {"json", no_argument, NULL, 'j'},
        {"model", required_argument, NULL, 'm'},      {"components", required_argument, NULL, 'k'},
        {"iterations", required_argument, NULL, 'i'}, {"lambda", required_argument, NULL, 'l'},
        {"connectivity", required_argument, NULL, 'N'}, {"device", required_argument, NULL, 'd'},
        {"algo", required_argument, NULL, 'a'},       {"verify", no_argument, NULL, 'c'},
        {"threads", required_argument, NULL, 'T'},
        {"seeds-sequence", required_argument, NULL, 'S'},
        {"quiet", no_argument, NULL, 'q'},            {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},             {"max-memory", required_argument, NULL, 'X'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->device = GCUT_DEVICE_AUTO;
    a->fg_rgb[0] = 255;
    a->bg_rgb[2] = 255;
    a->mask_fg = 255;
    a->mask_bg = 0;
    gcut_segment_options_init(&a->opt);
    const char *shorts = ":s:F:B:t:b:o:M:O:g:jm:k:i:l:N:d:a:cT:S:qVhX:";
    opterr = 0;
    int c, v[2], rc;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 's': a->seeds = optarg; break;
        case 'S': a->sequence = optarg; break;
        case 't': a->trimap = optarg; break;
        case 'o': a->output = optarg; break;
        case 'O':
            if (!overlay_ok(optarg))
                return cli_usage_error(cmd, "--overlay '%s': the name must end in %s", optarg,
                                       gcut_image_stb_built() ? ".png, .jpg, .jpeg, .bmp or .ppm"
                                                              : ".png or .ppm (no stb in this build)");
            a->overlay = optarg;
            break;
        case 'g': a->graph = optarg; break;
        case 'j': a->json = 1; break;
        case 'c': a->opt.verify = 1; break;
        case 'q': a->quiet = 1; break;
        case 'F': rc = parse_color("--fg-color", optarg, a->fg_rgb); break;
        case 'B': rc = parse_color("--bg-color", optarg, a->bg_rgb); break;
        case 'b':
            if (parse_ints(optarg, 4, 0, INT32_MAX, a->box))
                return cli_usage_error(cmd, "--box needs X1,Y1,X2,Y2 (non-negative integers), "
                                            "not '%s'",
                                       optarg);
            if (a->box[0] > a->box[2] || a->box[1] > a->box[3])
                return cli_usage_error(cmd, "--box %s: needs X1 <= X2 and Y1 <= Y2", optarg);
            a->have_box = 1;
            break;
        case 'M':
            if (parse_ints(optarg, 2, 0, 255, v) || v[0] == v[1])
                return cli_usage_error(cmd, "--mask-values needs FG,BG: two different values "
                                            "in 0..255, not '%s'",
                                       optarg);
            a->mask_fg = v[0], a->mask_bg = v[1];
            break;
        case 'm':
            if (!strcmp(optarg, "gmm"))
                a->opt.model = GCUT_MODEL_GMM;
            else if (!strcmp(optarg, "hist"))
                a->opt.model = GCUT_MODEL_HIST;
            else
                return cli_usage_error(cmd, "--model must be gmm or hist, not '%s'", optarg);
            break;
        case 'k': rc = parse_int("--components", optarg, 1, 32, &a->opt.components); break;
        case 'i': rc = parse_int("--iterations", optarg, 1, 1000, &a->opt.iterations); break;
        case 'T': rc = parse_int("--threads", optarg, 0, 64, &a->opt.threads); break;
        case 'l':
            rc = parse_number("--lambda", optarg, 0, GCUT_SEGMENT_MAX_LAMBDA, &a->opt.lambda);
            break;
        case 'N':
            if (strcmp(optarg, "4") && strcmp(optarg, "8"))
                return cli_usage_error(cmd, "--connectivity must be 4 or 8, not '%s'", optarg);
            a->opt.connectivity = atoi(optarg);
            break;
        case 'd': rc = cli_parse_device(cmd, optarg, &a->device); break;
        case 'a': a->algo = optarg; break;
        case 'X': rc = cli_parse_max_memory(cmd, optarg); break;
        default: return cli_common_option(cmd, c, argv, shorts, usage);
        }
        if (rc)
            return rc;
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "no image given");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "one image only, not also '%s'", argv[optind + 1]);
    a->input = argv[optind];
    if (!a->seeds && !a->trimap && !a->have_box && !a->sequence)
        return cli_usage_error(cmd, "no seeds given: use --seeds, --trimap or --box");
    if (a->sequence) {
        if (a->seeds)
            return cli_usage_error(cmd, "--seeds-sequence replaces --seeds: give one of them");
        if (a->overlay || a->graph)
            return cli_usage_error(cmd, "--seeds-sequence writes masks only (no %s)",
                                   a->overlay ? "--overlay" : "--save-graph");
        if (!*a->sequence || a->sequence[strlen(a->sequence) - 1] == ',' ||
            strstr(a->sequence, ",,") || a->sequence[0] == ',')
            return cli_usage_error(cmd, "--seeds-sequence needs files separated by commas, "
                                        "not '%s'",
                                   a->sequence);
        int states = 1;
        for (const char *p = a->sequence; *p; p++)
            states += *p == ',';
        if (states > CLI_SEQUENCE_MAX)
            return cli_usage_error(cmd, "--seeds-sequence takes at most %d states, not %d",
                                   CLI_SEQUENCE_MAX, states);
        const char *pct = a->output ? strchr(a->output, '%') : NULL;
        if (a->output && (!pct || pct[1] != 'd' || strchr(pct + 2, '%')))
            return cli_usage_error(cmd, "with --seeds-sequence, --output needs exactly one %%d "
                                        "for the state's number (e.g. mask-%%d.png), not '%s'",
                                   a->output);
    }
    if (!memcmp(a->fg_rgb, a->bg_rgb, 3))
        return cli_usage_error(cmd, "--fg-color and --bg-color are the same colour");
    a->opt.algo = a->algo;
    cli_outputs_init(&a->outs, cmd);
    cli_outputs_input(&a->outs, "the image", a->input);
    cli_outputs_input(&a->outs, "--seeds", a->seeds);
    cli_outputs_input(&a->outs, "--trimap", a->trimap);
    /* A sequence's masks are named per state (run_sequence adds them). */
    cli_outputs_add(&a->outs, "--output", a->sequence ? NULL : a->output);
    cli_outputs_add(&a->outs, "--overlay", a->overlay);
    cli_outputs_add(&a->outs, "--save-graph", a->graph);
    if ((rc = cli_outputs_check(&a->outs)) >= 0)
        return rc;
    a->opt.save_graph = cli_outputs_temp(&a->outs, a->graph);
    if (a->graph && !a->opt.save_graph)
        return cli_error(cmd, GCUT_E_NOMEM, "out of memory");
    return -1;
}

/* GrabCut's boxes may reach the image's edge (x2 = width) or past it:
 * clipped to the pixels, with a notice; a box with no pixel inside is an
 * error, its message in box_error. */
static char box_error[512];

static gcut_status clip_box(seg_args *a, int w, int h)
{
    int *b = a->box;
    if (b[0] > w - 1 || b[1] > h - 1) {
        snprintf(box_error, sizeof box_error,
                 "box %d,%d,%d,%d: no pixel of the %dx%d image (x 0..%d, y 0..%d) is inside it",
                 b[0], b[1], b[2], b[3], w, h, w - 1, h - 1);
        return GCUT_E_INVALID;
    }
    if (b[2] <= w - 1 && b[3] <= h - 1)
        return GCUT_OK;
    int x2 = b[2] < w - 1 ? b[2] : w - 1, y2 = b[3] < h - 1 ? b[3] : h - 1;
    if (!a->quiet)
        fprintf(stderr, "gcut: %s: box %d,%d,%d,%d clipped to the %dx%d image: %d,%d,%d,%d\n",
                cmd, b[0], b[1], b[2], b[3], w, h, b[0], b[1], x2, y2);
    b[2] = x2;
    b[3] = y2;
    return GCUT_OK;
}

/* The library's overlay (the scribble and trimap seeds drawn, not the box's
 * background), with the box outlined in yellow. */
static gcut_status make_overlay(gcut_context *ctx, const gcut_image *im, const uint8_t *mask,
                                const uint8_t *marks, const seg_args *a, uint8_t *out)
{
    int w = gcut_image_width(im), c = gcut_image_channels(im);
    gcut_status st = gcut_segment_overlay(ctx, gcut_image_pixels(im), w, gcut_image_height(im),
                                          c, (size_t)w * (size_t)c, mask, marks, out);
    if (!st && a->have_box) {
        for (int y = a->box[1]; y <= a->box[3]; y++)
            for (int x = a->box[0]; x <= a->box[2]; x++) {
                if (x != a->box[0] && x != a->box[2] && y != a->box[1] && y != a->box[3])
                    continue;
                uint8_t *o = out + 3 * ((size_t)y * (size_t)w + (size_t)x);
                o[0] = 255, o[1] = 255, o[2] = 0;
            }
    }
    return st;
}

static void print_json(gcut_context *ctx, const seg_args *a, const gcut_image *im,
                       const gcut_segment_info *info, const double t[5])
{
    double start_ms = 0, wait_ms = 0; /* CUDA's start-up beside the load, and the wait for it */
    gcut_context_device_times(ctx, &start_ms, &wait_ms);
    printf("{\"image\": ");
    cli_json_string(stdout, a->input);
    printf(", \"width\": %d, \"height\": %d, \"flow\": %lld, \"energy\": %.6f, "
           "\"foreground\": %lld, \"pixels\": %lld, \"iterations\": %d, \"model\": \"%s\", "
           "\"components\": %d, \"lambda\": %g, \"beta\": %.9g, \"connectivity\": %d, "
           "\"hard_cap\": %d, \"scale\": %g, \"device\": ",
           gcut_image_width(im), gcut_image_height(im), (long long)info->flow, info->energy,
           (long long)info->foreground,
           (long long)gcut_image_width(im) * gcut_image_height(im), info->iterations,
           a->opt.model == GCUT_MODEL_HIST ? "hist" : "gmm", a->opt.components, a->opt.lambda,
           info->beta, a->opt.connectivity, info->hard_cap, GCUT_SEGMENT_SCALE);
    cli_json_string(stdout, info->device);
    printf(", \"algo\": ");
    cli_json_string(stdout, info->algo);
    if (a->opt.verify)
        printf(", \"verified\": true");
    printf(", \"outputs\": {");
    const char *names[3] = {"mask", "overlay", "graph"};
    const char *paths[3] = {a->output, a->overlay, a->graph};
    int first = 1;
    for (int i = 0; i < 3; i++) {
        if (!paths[i])
            continue;
        printf("%s\"%s\": ", first ? "" : ", ", names[i]);
        cli_json_string(stdout, paths[i]);
        first = 0;
    }
    printf("}, \"time_ms\": {\"load\": %.3f, \"model\": %.3f, \"graph\": %.3f, \"cut\": %.3f, "
           "\"write\": %.3f, \"total\": %.3f, \"device_start\": %.3f, \"device_wait\": %.3f}}\n",
           t[0], info->time_model_ms, info->time_graph_ms, info->time_cut_ms, t[3], t[4],
           start_ms, wait_ms);
}

static void print_text(const seg_args *a, const gcut_image *im, const gcut_segment_info *info,
                       const double t[5])
{
    int64_t n = (int64_t)gcut_image_width(im) * gcut_image_height(im);
    printf("image: %s, %dx%d\n", a->input, gcut_image_width(im), gcut_image_height(im));
    printf("foreground: %lld of %lld pixels (%.1f%%)\n", (long long)info->foreground,
           (long long)n, 100.0 * (double)info->foreground / (double)n);
    printf("energy: %.3f (flow %lld), %d cut%s, %s on %s%s\n", info->energy,
           (long long)info->flow, info->iterations, info->iterations == 1 ? "" : "s",
           info->algo, info->device, a->opt.verify ? ", verified" : "");
    printf("time: %.1f ms (load %.1f, model %.1f, graph %.1f, cut %.1f, write %.1f)\n", t[4],
           t[0], info->time_model_ms, info->time_graph_ms, info->time_cut_ms, t[3]);
    if (a->output)
        printf("mask: %s (%d foreground, %d background)\n", a->output, a->mask_fg, a->mask_bg);
    if (a->overlay)
        printf("overlay: %s\n", a->overlay);
    if (a->graph)
        printf("graph: %s\n", a->graph);
}

/* The seed files (scribbles, trimap), decoded on a thread of their own
 * while the image decodes: a 4-megapixel PNG takes as long as the JPEG.
 * Its own context, so that the two never write one error message. */
typedef struct seed_load {
    const char *path[2];
    gcut_image *img[2];
    gcut_context *ctx;
    gcut_status st;
} seed_load;

static void *load_seed_files(void *arg)
{
    seed_load *l = arg;
    for (int k = 0; k < 2 && !l->st; k++)
        if (l->path[k])
            l->st = gcut_image_load(l->ctx, l->path[k], &l->img[k]);
    return NULL;
}

/* One state of a --seeds-sequence run. */
typedef struct seq_state {
    char *scribbles; /* the file */
    char *mask_path; /* NULL without --output */
    gcut_segment_info info;
    double update_ms; /* seeds in, mask out */
} seq_state;

static void print_sequence(const seg_args *a, const gcut_image *im, const seq_state *st, int n,
                           double prepare_ms, double total_ms)
{
    int64_t pixels = (int64_t)gcut_image_width(im) * gcut_image_height(im);
    if (!a->json) {
        printf("image: %s, %dx%d, %d seed states in one session (%s on %s)\n", a->input,
               gcut_image_width(im), gcut_image_height(im), n, st[0].info.algo,
               st[0].info.device);
        for (int k = 0; k < n; k++) {
            printf("state %d (%s): foreground %lld of %lld pixels (%.1f%%), energy %.3f (flow "
                   "%lld), %d cut%s%s, update %.1f ms (cut %.1f)",
                   k + 1, st[k].scribbles, (long long)st[k].info.foreground, (long long)pixels,
                   100.0 * (double)st[k].info.foreground / (double)pixels, st[k].info.energy,
                   (long long)st[k].info.flow, st[k].info.iterations,
                   st[k].info.iterations == 1 ? "" : "s", a->opt.verify ? ", verified" : "",
                   st[k].update_ms, st[k].info.time_cut_ms);
            if (st[k].mask_path)
                printf(" -> %s", st[k].mask_path);
            printf("\n");
        }
        printf("time: %.1f ms (the first update includes preparing the image: %.1f ms)\n",
               total_ms, prepare_ms);
        return;
    }
    printf("{\"image\": ");
    cli_json_string(stdout, a->input);
    printf(", \"width\": %d, \"height\": %d, \"states\": %d, \"device\": ",
           gcut_image_width(im), gcut_image_height(im), n);
    cli_json_string(stdout, st[0].info.device);
    printf(", \"algo\": ");
    cli_json_string(stdout, st[0].info.algo);
    const char *keys[] = {"flows", "foreground", "iterations", "update_ms", "cut_ms"};
    for (int key = 0; key < 5; key++) {
        printf(", \"%s\": [", keys[key]);
        for (int k = 0; k < n; k++) {
            const gcut_segment_info *i = &st[k].info;
            if (key == 0)
                printf("%s%lld", k ? ", " : "", (long long)i->flow);
            else if (key == 1)
                printf("%s%lld", k ? ", " : "", (long long)i->foreground);
            else if (key == 2)
                printf("%s%d", k ? ", " : "", i->iterations);
            else
                printf("%s%.3f", k ? ", " : "", key == 3 ? st[k].update_ms : i->time_cut_ms);
        }
        printf("]");
    }
    printf(", \"masks\": [");
    for (int k = 0; k < n; k++) {
        printf("%s", k ? ", " : "");
        if (st[k].mask_path)
            cli_json_string(stdout, st[k].mask_path);
        else
            printf("null");
    }
    printf("], \"prepare_ms\": %.3f, \"total_ms\": %.3f%s}\n", prepare_ms, total_ms,
           a->opt.verify ? ", \"verified\": true" : "");
}

/* --seeds-sequence: one session, one mask per scribble state. Every mask
 * and scribble file joins the outputs check before any work, and the masks
 * are renamed into place together at the end: all or none. */
static int run_sequence(seg_args *a, gcut_context *ctx)
{
    double t0 = gcut_clock_ms();
    int n = 1;
    for (const char *p = a->sequence; *p; p++)
        n += *p == ',';
    seq_state *st = calloc((size_t)n, sizeof *st);
    gcut_image *im = NULL, *trimap = NULL;
    gcut_segment_session *session = NULL;
    uint8_t *seeds = NULL, *mask = NULL;
    const char *own_error = NULL;
    int rc = CLI_EXIT_OK;
    gcut_status s = st ? GCUT_OK : GCUT_E_NOMEM;
    if (!st)
        own_error = "out of memory";
    for (int k = 0, from = 0; !s && k < n; k++) {
        const char *begin = a->sequence + from, *comma = strchr(begin, ',');
        size_t len = comma ? (size_t)(comma - begin) : strlen(begin);
        from += (int)len + 1;
        st[k].scribbles = malloc(len + 1);
        st[k].mask_path = a->output ? malloc(strlen(a->output) + 16) : NULL;
        if (!st[k].scribbles || (a->output && !st[k].mask_path)) {
            s = GCUT_E_NOMEM, own_error = "out of memory";
            break;
        }
        memcpy(st[k].scribbles, begin, len);
        st[k].scribbles[len] = '\0';
        if (a->output)
            snprintf(st[k].mask_path, strlen(a->output) + 16, a->output, k + 1);
    }
    for (int k = 0; !s && k < n; k++) {
        cli_outputs_input(&a->outs, "--seeds-sequence", st[k].scribbles);
        cli_outputs_add(&a->outs, "--output", st[k].mask_path);
    }
    if (!s) {
        int checked = cli_outputs_check(&a->outs);
        if (checked >= 0) {
            rc = checked;
            goto done;
        }
    }
    if (!s)
        s = gcut_image_load(ctx, a->input, &im);
    if (!s && a->trimap)
        s = gcut_image_load(ctx, a->trimap, &trimap);
    int w = gcut_image_width(im), h = gcut_image_height(im), c = gcut_image_channels(im);
    size_t pixels = (size_t)w * (size_t)h;
    if (!s && (!(seeds = malloc(pixels)) || !(mask = malloc(pixels))))
        s = GCUT_E_NOMEM, own_error = "out of memory for the seeds and the mask";
    double t1 = gcut_clock_ms();
    if (!s)
        s = gcut_segment_session_create(ctx, gcut_image_pixels(im), w, h, c, (size_t)w * (size_t)c,
                                        &a->opt, &session);
    double prepare_ms = gcut_clock_ms() - t1;
    for (int k = 0; !s && k < n; k++) {
        gcut_image *scribbles = NULL;
        memset(seeds, 0, pixels);
        s = gcut_image_load(ctx, st[k].scribbles, &scribbles);
        if (!s)
            s = gcut_seeds_add_scribbles(ctx, seeds, w, h, scribbles, a->fg_rgb, a->bg_rgb);
        gcut_image_destroy(scribbles);
        if (!s && trimap)
            s = gcut_seeds_add_trimap(ctx, seeds, w, h, trimap);
        if (!s && a->have_box)
            s = gcut_seeds_add_box(ctx, seeds, w, h, a->box[0], a->box[1], a->box[2], a->box[3]);
        double t2 = gcut_clock_ms();
        if (!s)
            s = gcut_segment_session_update(session, seeds, mask, &st[k].info);
        st[k].update_ms = gcut_clock_ms() - t2;
        if (!s && st[k].mask_path) {
            for (size_t i = 0; i < pixels; i++)
                mask[i] = (uint8_t)(mask[i] ? a->mask_fg : a->mask_bg);
            s = gcut_image_save_png(ctx, cli_outputs_temp(&a->outs, st[k].mask_path), mask, w,
                                    h, 1, (size_t)w);
        }
    }
    if (s) {
        cli_outputs_abort(&a->outs);
        rc = own_error ? cli_error(cmd, s, "%s", own_error) : cli_runtime_error(cmd, ctx, s);
    } else if (!(rc = cli_outputs_commit(&a->outs))) {
        print_sequence(a, im, st, n, prepare_ms, gcut_clock_ms() - t0);
    }
done:
    for (int k = 0; st && k < n; k++) {
        free(st[k].scribbles);
        free(st[k].mask_path);
    }
    free(st);
    free(seeds);
    free(mask);
    gcut_segment_session_destroy(session);
    gcut_image_destroy(trimap);
    gcut_image_destroy(im);
    return rc;
}

int cli_segment_main(int argc, char **argv)
{
    seg_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    cli_detach_start(a.device);
    gcut_context *ctx = NULL;
    if ((rc = cli_context_create(cmd, a.device, a.quiet ? 0 : 1, a.opt.threads, &ctx)))
        return rc;
    /* CUDA's start-up runs while the files are read and decoded. */
    gcut_context_warm_device(ctx);
    if (a.sequence) {
        rc = run_sequence(&a, ctx);
        if (rc == CLI_EXIT_OK)
            cli_detach_done();
        gcut_context_destroy(ctx);
        return rc;
    }

    double t[5] = {0}; /* load, (model, graph, cut in info), write, total */
    double t0 = gcut_clock_ms();
    gcut_image *im = NULL;
    uint8_t *seeds = NULL, *mask = NULL, *overlay = NULL, *marks = NULL;
    gcut_segment_info info;
    seed_load sl = {{a.seeds, a.trimap}, {NULL, NULL}, NULL, GCUT_OK};
    int with_files = a.seeds || a.trimap, threaded = 0;
    gcut_status cst = with_files ? gcut_context_create(NULL, &sl.ctx) : GCUT_OK;
    pthread_t loader;
    if (with_files && !cst)
        threaded = pthread_create(&loader, NULL, load_seed_files, &sl) == 0;
    gcut_status st = gcut_image_load(ctx, a.input, &im);
    if (threaded)
        pthread_join(loader, NULL);
    else if (with_files && !cst)
        load_seed_files(&sl);
    /* The CLI's own failures: out of memory, or the seed files' error,
     * reported as the library's are. */
    const char *own_error = NULL;
    char seed_error[512];
    if (!st && cst) {
        st = cst;
        own_error = "out of memory for a context";
    }
    if (!st && sl.st) { /* the image's error first, as without the thread */
        st = sl.st;
        snprintf(seed_error, sizeof seed_error, "%s", gcut_last_error(sl.ctx));
        own_error = seed_error;
    }
    int w = gcut_image_width(im), h = gcut_image_height(im);
    size_t n = (size_t)w * (size_t)h;
    if (!st) {
        seeds = calloc(n, 1);
        mask = malloc(n);
        if (!seeds || !mask) {
            st = GCUT_E_NOMEM;
            own_error = "out of memory for the image's seeds and mask";
        }
    }
    if (!st && sl.img[0])
        st = gcut_seeds_add_scribbles(ctx, seeds, w, h, sl.img[0], a.fg_rgb, a.bg_rgb);
    if (!st && sl.img[1])
        st = gcut_seeds_add_trimap(ctx, seeds, w, h, sl.img[1]);
    gcut_image_destroy(sl.img[0]);
    gcut_image_destroy(sl.img[1]);
    gcut_context_destroy(sl.ctx);
    if (!st && a.overlay && (marks = malloc(n)))
        memcpy(marks, seeds, n); /* what to draw: the box is outlined instead */
    else if (!st && a.overlay)
        st = GCUT_E_NOMEM, own_error = "out of memory for the overlay";
    if (!st && a.have_box && (st = clip_box(&a, w, h)))
        own_error = box_error;
    if (!st && a.have_box)
        st = gcut_seeds_add_box(ctx, seeds, w, h, a.box[0], a.box[1], a.box[2], a.box[3]);
    t[0] = gcut_clock_ms() - t0;
    if (!st) {
        st = gcut_segment_image(ctx, gcut_image_pixels(im), w, h, gcut_image_channels(im),
                                (size_t)w * (size_t)gcut_image_channels(im), seeds, &a.opt, mask,
                                &info);
    }
    double t1 = gcut_clock_ms();
    if (!st && a.output) {
        for (size_t i = 0; i < n; i++)
            mask[i] = (uint8_t)(mask[i] ? a.mask_fg : a.mask_bg);
        st = gcut_image_save_png(ctx, cli_outputs_temp(&a.outs, a.output), mask, w, h, 1,
                                 (size_t)w);
        for (size_t i = 0; a.overlay && i < n; i++) /* back to 0/1 for the overlay */
            mask[i] = mask[i] == a.mask_fg;
    }
    if (!st && a.overlay) {
        if (!(overlay = malloc(n * 3)))
            st = GCUT_E_NOMEM, own_error = "out of memory for the overlay";
        if (!st)
            st = make_overlay(ctx, im, mask, marks, &a, overlay);
        if (!st)
            st = gcut_image_save(ctx, cli_outputs_temp(&a.outs, a.overlay), overlay, w, h, 3,
                                 (size_t)w * 3);
    }
    t[3] = gcut_clock_ms() - t1;
    t[4] = gcut_clock_ms() - t0;
    if (st) {
        /* All or nothing: no output is renamed into place. */
        cli_outputs_abort(&a.outs);
        rc = own_error ? cli_error(cmd, st, "%s", own_error) : cli_runtime_error(cmd, ctx, st);
    } else if ((rc = cli_outputs_commit(&a.outs))) {
        /* the message is out */
    } else {
        if (a.json)
            print_json(ctx, &a, im, &info, t);
        else
            print_text(&a, im, &info, t);
        cli_detach_done();
    }
    free(overlay);
    free(marks);
    free(mask);
    free(seeds);
    gcut_image_destroy(im);
    gcut_context_destroy(ctx);
    return rc;
}
