/* gcut flow: optical flow between two frames by assignment. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_outputs.h"

static const char *const cmd = "flow";

static void usage(FILE *out)
{
    gcut_flow_options d;
    gcut_flow_options_init(&d);
    fprintf(out,
            "Usage: gcut flow [OPTIONS] FRAME0 FRAME1\n"
            "\n"
            "Optical flow from FRAME0 to FRAME1 (PNG, JPEG, PNM; the same size): each pixel\n"
            "of FRAME0 is assigned to a distinct pixel of FRAME1 within a window by a\n"
            "minimum-cost assignment (or to an occlusion dummy), coarse to fine over a\n"
            "pyramid; the vectors are then refined to sub-pixel precision, densified and\n"
            "smoothed by an edge-aware variational refinement.\n"
            "\n"
            "Outputs:\n"
            "  -o, --output FLO         the flow, Middlebury .flo (u, v per pixel of FRAME0)\n"
            "  -z, --viz PNG            the flow as a colour-wheel picture (.png or .ppm)\n"
            "  -g, --gt FLO             ground truth: print the average endpoint error (EPE)\n"
            "                           and angular error (AAE) against it\n"
            "  -j, --json               print one JSON object on stdout\n"
            "\n"
            "Method:\n"
            "  -r, --radius R           search window (2R+1)^2 per level, 1..16 (default %d)\n"
            "  -L, --levels L           pyramid levels, 1..10 (default %d)\n"
            "  -p, --patch P            patch side of the matching cost, 3, 5 or 7 (default %d)\n"
            "  -C, --cost NAME          census (default; Hamming distance, %d a bit) or sad\n"
            "                           (mean absolute grey difference)\n"
            "  -k, --occlusion-cost C   the cost of leaving a pixel unmatched (default %d)\n"
            "  -m, --motion-penalty M   cost per pixel of motion away from the coarser\n"
            "                           level's flow (default %d)\n"
            "  -i, --iterations N       variational refinement iterations per level, 0..50\n"
            "                           (default %d; 0: none)\n"
            "  -s, --smoothness S       weight of the refinement's smoothness (default %g)\n"
            "\n"
            "Solver:\n"
            "  -d, --device DEV         auto (default: the GPU when one is usable, else the\n"
            "                           CPU, with a notice), cpu or gpu\n"
            "  -a, --algo NAME          the assignment solver: ssp, csa (CPU), gpu-csa\n"
            "                           (GPU assignment, the rest on the CPU) or\n"
            "                           gpu-auction (the whole flow on the GPU; default\n"
            "                           with --device gpu, ssp on the CPU)\n"
            "  -T, --threads N          CPU threads for the per-pixel stages (default 0: one\n"
            "                           per CPU; the result is the same)\n"
            "  -n, --repeat N           compute the flow N times in this process (a\n"
            "                           benchmark: the first run is a warm-up, time_ms\n"
            "                           the median of the others; default 1)\n"
            "  -q, --quiet              no notices on stderr\n"
            "  -X, --max-memory SIZE    memory budget (e.g. 8G; default: the memory available)\n"
            "  -V, --version            print the version and exit\n"
            "  -h, --help               print this help and exit\n"
            "\n"
            "Exit status: 0 success, 1 runtime error (bad file, no GPU with --device gpu),\n"
            "2 usage error. On failure no output file is left behind.\n",
            d.radius, d.levels, d.patch, GCUT_FLOW_CENSUS_BIT, d.occlusion_cost,
            d.motion_penalty, d.refine_iterations, d.smoothness);
}

typedef struct flow_args {
    gcut_device device;
    const char *frame[2], *output, *viz, *gt;
    int json, quiet, repeat;
    gcut_flow_options opt;
} flow_args;

static int parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return cli_usage_error(cmd, "%s must be an integer in %d..%d, not '%s'", opt, lo, hi, s);
    *out = (int)v;
    return 0;
}

static int ends_with(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) && !strcasecmp(dot + 1, ext);
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, flow_args *a)
{
    static const struct option longs[] = {
        {"output", required_argument, NULL, 'o'},   {"viz", required_argument, NULL, 'z'},
        {"gt", required_argument, NULL, 'g'},       {"json", no_argument, NULL, 'j'},
        {"radius", required_argument, NULL, 'r'},   {"levels", required_argument, NULL, 'L'},
        {"patch", required_argument, NULL, 'p'},    {"cost", required_argument, NULL, 'C'},
        {"occlusion-cost", required_argument, NULL, 'k'},
        {"motion-penalty", required_argument, NULL, 'm'},
        {"iterations", required_argument, NULL, 'i'},
        {"smoothness", required_argument, NULL, 's'},
        {"device", required_argument, NULL, 'd'},   {"algo", required_argument, NULL, 'a'},
        {"threads", required_argument, NULL, 'T'},  {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, 'V'},        {"help", no_argument, NULL, 'h'},
        {"max-memory", required_argument, NULL, 'X'},
        {"repeat", required_argument, NULL, 'n'},   {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->device = GCUT_DEVICE_AUTO;
    a->repeat = 1;
    gcut_flow_options_init(&a->opt);
    const char *shorts = ":o:z:g:jr:L:p:C:k:m:i:s:d:a:T:X:n:qVh";
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 'o': a->output = optarg; break;
        case 'z':
            if (!ends_with(optarg, "png") && !ends_with(optarg, "ppm"))
                return cli_usage_error(cmd, "--viz '%s': the name must end in .png or .ppm",
                                       optarg);
            a->viz = optarg;
            break;
        case 'g': a->gt = optarg; break;
        case 'j': a->json = 1; break;
        case 'q': a->quiet = 1; break;
        case 'r': rc = parse_int("--radius", optarg, 1, 16, &a->opt.radius); break;
        case 'L': rc = parse_int("--levels", optarg, 1, 10, &a->opt.levels); break;
        case 'p':
            rc = parse_int("--patch", optarg, 3, 7, &a->opt.patch);
            if (!rc && a->opt.patch % 2 == 0)
                return cli_usage_error(cmd, "--patch must be 3, 5 or 7, not '%s'", optarg);
            break;
        case 'C':
            if (!strcmp(optarg, "census"))
                a->opt.cost = GCUT_FLOW_CENSUS;
            else if (!strcmp(optarg, "sad"))
                a->opt.cost = GCUT_FLOW_SAD;
            else
                return cli_usage_error(cmd, "--cost must be census or sad, not '%s'", optarg);
            break;
        case 'k':
            rc = parse_int("--occlusion-cost", optarg, 1, 1000000, &a->opt.occlusion_cost);
            break;
        case 'm':
            rc = parse_int("--motion-penalty", optarg, 0, 10000, &a->opt.motion_penalty);
            break;
        case 'i': rc = parse_int("--iterations", optarg, 0, 50, &a->opt.refine_iterations); break;
        case 's': {
            char *end;
            errno = 0;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || errno || !(v > 0 && v <= 1e6))
                return cli_usage_error(cmd, "--smoothness must be a number in (0, 1e6], not '%s'",
                                       optarg);
            a->opt.smoothness = v;
            break;
        }
        case 'd': rc = cli_parse_device(cmd, optarg, &a->device); break;
        case 'a': a->opt.algo = optarg; break;
        case 'T': rc = parse_int("--threads", optarg, 0, 64, &a->opt.threads); break;
        case 'X': rc = cli_parse_max_memory(cmd, optarg); break;
        case 'n': rc = parse_int("--repeat", optarg, 1, 1000, &a->repeat); break;
        default: return cli_common_option(cmd, c, argv, shorts, usage);
        }
        if (rc)
            return rc;
    }
    if (argc - optind < 2)
        return cli_usage_error(cmd, "two frames needed, %d given", argc - optind);
    if (argc - optind > 2)
        return cli_usage_error(cmd, "two frames only, not also '%s'", argv[optind + 2]);
    a->frame[0] = argv[optind];
    a->frame[1] = argv[optind + 1];
    return -1;
}

static void print_json(const flow_args *a, int w, int h, const gcut_flow_info *info,
                       double time_ms, double first_ms, int have_gt, double epe, double aae,
                       int64_t known)
{
    printf("{\"frame0\": ");
    cli_json_string(stdout, a->frame[0]);
    printf(", \"frame1\": ");
    cli_json_string(stdout, a->frame[1]);
    printf(", \"width\": %d, \"height\": %d, \"time_ms\": %.3f, \"device\": ", w, h, time_ms);
    cli_json_string(stdout, info->device);
    printf(", \"algo\": ");
    cli_json_string(stdout, info->algo);
    printf(", \"radius\": %d, \"levels\": %d, \"patch\": %d, \"cost\": \"%s\", "
           "\"occlusion_cost\": %d, \"motion_penalty\": %d, \"iterations\": %d, "
           "\"smoothness\": %g, \"arcs\": %lld, \"occluded\": %lld, \"assign_cost\": %lld",
           a->opt.radius, info->levels, a->opt.patch,
           a->opt.cost == GCUT_FLOW_SAD ? "sad" : "census", a->opt.occlusion_cost,
           a->opt.motion_penalty, a->opt.refine_iterations, a->opt.smoothness,
           (long long)info->arcs, (long long)info->occluded, (long long)info->assign_cost);
    if (have_gt)
        printf(", \"epe\": %.6f, \"aae\": %.6f, \"known\": %lld", epe, aae, (long long)known);
    printf(", \"runs\": %d, \"first_ms\": %.3f", a->repeat, first_ms);
    printf(", \"time_split_ms\": {\"match\": %.3f, \"assign\": %.3f, \"refine\": %.3f, "
           "\"total\": %.3f}}\n",
           info->time_match_ms, info->time_assign_ms, info->time_refine_ms,
           info->time_total_ms);
}

static void print_text(const flow_args *a, int w, int h, const gcut_flow_info *info,
                       double time_ms, int have_gt, double epe, double aae)
{
    printf("frames: %s, %s, %dx%d\n", a->frame[0], a->frame[1], w, h);
    printf("assignment: %lld arcs over %d levels, %lld of %lld pixels occluded at the finest, "
           "%s on %s\n",
           (long long)info->arcs, info->levels, (long long)info->occluded,
           (long long)w * h, info->algo, info->device);
    printf("time: %.1f ms (match %.1f, assign %.1f, refine %.1f)\n", time_ms,
           info->time_match_ms, info->time_assign_ms, info->time_refine_ms);
    if (have_gt)
        printf("error: EPE %.4f, AAE %.4f degrees\n", epe, aae);
    if (a->output)
        printf("flow: %s\n", a->output);
    if (a->viz)
        printf("viz: %s\n", a->viz);
}

/* The median of n times (sorted in place; the upper middle for even n). */
static double median_ms(double *t, int n)
{
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && t[k - 1] > t[k]; k--) {
            double x = t[k];
            t[k] = t[k - 1], t[k - 1] = x;
        }
    return t[n / 2];
}

/* Both frames in one layout (grey with colour becomes colour): px[k] is
 * the frame's own pixels or conv[k]. 0, or GCUT_E_NOMEM. */
static gcut_status same_layout(gcut_image *const im[2], int w, int h, const uint8_t *px[2],
                               uint8_t *conv[2], int *channels)
{
    int c0 = gcut_image_channels(im[0]), c1 = gcut_image_channels(im[1]);
    int ch = (c0 >= 3 || c1 >= 3) ? 3 : 1;
    *channels = ch;
    for (int k = 0; k < 2; k++) {
        int c = gcut_image_channels(im[k]);
        const uint8_t *src = gcut_image_pixels(im[k]);
        if (c == ch) {
            px[k] = src;
            continue;
        }
        if (!(conv[k] = malloc((size_t)w * h * ch)))
            return GCUT_E_NOMEM;
        for (size_t i = 0; i < (size_t)w * h; i++)
            for (int b = 0; b < ch; b++)
                conv[k][i * ch + b] = src[i * c + (ch == 1 || c < 3 ? 0 : b)];
        px[k] = conv[k];
    }
    return GCUT_OK;
}

int cli_flow_main(int argc, char **argv)
{
    flow_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    cli_outputs outs;
    cli_outputs_init(&outs, cmd);
    cli_outputs_input(&outs, "FRAME0", a.frame[0]);
    cli_outputs_input(&outs, "FRAME1", a.frame[1]);
    cli_outputs_input(&outs, "--gt", a.gt);
    cli_outputs_add(&outs, "--output", a.output);
    cli_outputs_add(&outs, "--viz", a.viz);
    if ((rc = cli_outputs_check(&outs)) >= 0)
        return rc;
    gcut_context *ctx = NULL;
    if ((rc = cli_context_create(cmd, a.device, a.quiet ? 0 : 1, a.opt.threads, &ctx)))
        return rc;
    gcut_image *im[2] = {NULL, NULL};
    float *flow = NULL, *truth = NULL;
    uint8_t *rgb = NULL, *conv[2] = {NULL, NULL};
    const uint8_t *px[2] = {NULL, NULL};
    int w = 0, h = 0, gw = 0, gh = 0, ch = 0, have_gt = 0;
    double epe = 0, aae = 0, time_ms = 0, first_ms = 0;
    int64_t known = 0;
    gcut_flow_info info;
    memset(&info, 0, sizeof info);
    gcut_status st = gcut_image_load(ctx, a.frame[0], &im[0]);
    if (!st)
        st = gcut_image_load(ctx, a.frame[1], &im[1]);
    if (!st) {
        w = gcut_image_width(im[0]), h = gcut_image_height(im[0]);
        if (gcut_image_width(im[1]) != w || gcut_image_height(im[1]) != h) {
            rc = cli_error(cmd, GCUT_E_INVALID, "%s is %dx%d but %s is %dx%d", a.frame[0], w, h,
                           a.frame[1], gcut_image_width(im[1]), gcut_image_height(im[1]));
            goto done;
        }
    }
    if (!st && a.gt) {
        st = gcut_flow_read(ctx, a.gt, &gw, &gh, &truth);
        if (!st && (gw != w || gh != h)) {
            rc = cli_error(cmd, GCUT_E_INVALID, "%s is %dx%d but the frames are %dx%d", a.gt, gw,
                           gh, w, h);
            goto done;
        }
    }
    if (!st && (same_layout(im, w, h, px, conv, &ch) ||
                !(flow = malloc((size_t)w * h * 2 * sizeof *flow)))) {
        rc = cli_error(cmd, GCUT_E_NOMEM, "out of memory for %dx%d pixels", w, h);
        goto done;
    }
    if (!st) {
        double times[1000] = {0};
        for (int run = 0; run < a.repeat && !st; run++) {
            double t0 = gcut_clock_ms();
            st = gcut_flow_frames(ctx, px[0], px[1], w, h, ch, (size_t)w * ch, &a.opt, flow,
                                  &info);
            times[run] = gcut_clock_ms() - t0;
        }
        first_ms = times[0];
        time_ms = a.repeat > 1 ? median_ms(times + 1, a.repeat - 1) : times[0];
    }
    if (!st && truth) {
        st = gcut_flow_error(ctx, flow, truth, w, h, &epe, &aae, &known);
        have_gt = !st;
    }
    if (!st && a.output)
        st = gcut_flow_write(ctx, cli_outputs_temp(&outs, a.output), flow, w, h);
    if (!st && a.viz) {
        if (!(rgb = malloc((size_t)w * h * 3))) {
            rc = cli_error(cmd, GCUT_E_NOMEM, "out of memory for the picture");
            goto done;
        }
        st = gcut_flow_colorize(ctx, flow, w, h, 0, rgb);
        if (!st)
            st = gcut_image_save(ctx, cli_outputs_temp(&outs, a.viz), rgb, w, h, 3,
                                 (size_t)w * 3);
    }
    if (st) {
        rc = cli_runtime_error(cmd, ctx, st);
    } else if (!(rc = cli_outputs_commit(&outs))) {
        if (a.json)
            print_json(&a, w, h, &info, time_ms, first_ms, have_gt, epe, aae, known);
        else
            print_text(&a, w, h, &info, time_ms, have_gt, epe, aae);
    }
done:
    if (rc)
        cli_outputs_abort(&outs);
    free(conv[0]), free(conv[1]);
    free(rgb);
    free(flow);
    gcut_flow_free(truth);
    gcut_image_destroy(im[0]);
    gcut_image_destroy(im[1]);
    gcut_context_destroy(ctx);
    return rc;
}
