/* gcut grid: solve a grid graph file (DIMACS with a grid hint). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_outputs.h"

static const char *const cmd = "grid";

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: gcut grid [OPTIONS] FILE\n"
            "\n"
            "Maximum flow / minimum cut of a grid graph given as a DIMACS max-flow file\n"
            "with a grid hint ('c grid W H CONN' before the 'p max' line; see README.md).\n"
            "\n"
            "Options:\n"
            "  -d, --device DEV   auto (default: the GPU when usable, else the CPU), cpu, gpu\n"
            "  -a, --algo NAME    the solver; this build has: %s\n"
            "  -T, --threads N    CPU threads of the parallel cut 'pbk', 0..64; 0 (default)\n"
            "                     = one per online CPU (the answer is the same for any N)\n"
            "  -l, --labels PNG   write the cut as an 8-bit grey PNG, W x H:\n"
            "                     255 = source side, 0 = sink side\n"
            "  -c, --verify       check the answer's proof (a feasible flow whose value\n"
            "                     equals the cut's capacity); exit 1 if it does not hold\n"
            "  -j, --json         print one JSON object on stdout\n"
            "  -q, --quiet        no notices on stderr (e.g. 'no GPU: solving on the CPU')\n"
            "  -X, --max-memory SIZE  refuse work estimated to need more host memory\n"
            "                     (e.g. 4G, 512M; default: the memory available)\n"
            "  -V, --version      print the version and exit\n"
            "  -h, --help         print this help and exit\n"
            "\n"
            "Exit status: 0 success, 1 runtime error (bad file, no GPU with --device gpu,\n"
            "failed proof), 2 usage error.\n",
            gcut_grid_algorithms());
}

/* Is `name` one of the comma-separated names in `list`? */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (end != NULL);
    }
    return 0;
}

typedef struct grid_args {
    gcut_device device;
    const char *algo, *labels, *input;
    int verify, json, quiet;
    cli_outputs outs;
    int threads;
} grid_args;

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, grid_args *a)
{
    static const struct option longs[] = {
        {"device", required_argument, NULL, 'd'},
        {"algo", required_argument, NULL, 'a'},
        {"threads", required_argument, NULL, 'T'},
        {"labels", required_argument, NULL, 'l'},
        {"verify", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {"max-memory", required_argument, NULL, 'X'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->device = GCUT_DEVICE_AUTO;
    const char *shorts = ":d:a:T:l:cjqVhX:";
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        int rc;
        switch (c) {
        case 'd':
            if ((rc = cli_parse_device(cmd, optarg, &a->device)))
                return rc;
            break;
        case 'a':
            if (!in_list(gcut_grid_algorithms(), optarg))
                return cli_usage_error(cmd, "unknown algorithm '%s' (this build has: %s)", optarg,
                                       gcut_grid_algorithms());
            a->algo = optarg;
            break;
        case 'T': {
            char *end = NULL;
            long t = strtol(optarg, &end, 10);
            if (end == optarg || *end || t < 0 || t > 64)
                return cli_usage_error(
                    cmd, "--threads must be a whole number from 0 to 64, not '%s'", optarg);
            a->threads = (int)t;
            break;
        }
        case 'l':
            a->labels = optarg;
            break;
        case 'c':
            a->verify = 1;
            break;
        case 'j':
            a->json = 1;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'X':
            if ((rc = cli_parse_max_memory(cmd, optarg)))
                return rc;
            break;
        default:
            return cli_common_option(cmd, c, argv, shorts, usage);
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "no grid graph file given");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "one grid graph file only, not also '%s'", argv[optind + 1]);
    a->input = argv[optind];
    cli_outputs_init(&a->outs, cmd);
    cli_outputs_input(&a->outs, "the input", a->input);
    cli_outputs_add(&a->outs, "--labels", a->labels);
    return cli_outputs_check(&a->outs);
}

/* The cut as a grey PNG: 255 on the source side, 0 on the sink side. */
static gcut_status write_labels(gcut_context *ctx, gcut_grid *grid, const char *path)
{
    int w = gcut_grid_width(grid), h = gcut_grid_height(grid);
    size_t n = (size_t)w * (size_t)h;
    uint8_t *labels = malloc(n);
    if (!labels)
        return GCUT_E_NOMEM;
    gcut_status st = gcut_grid_labels(grid, labels);
    if (!st) {
        for (size_t i = 0; i < n; i++)
            labels[i] = labels[i] ? 255 : 0;
        st = gcut_image_save_png(ctx, path, labels, w, h, 1, (size_t)w);
    }
    free(labels);
    return st;
}

static void print_json(const gcut_context *ctx, const grid_args *a, gcut_grid *grid,
                       const gcut_solve_info *info, double read_ms, int verified)
{
    printf("{\"flow\": %lld, \"time_ms\": %.3f, \"device\": ", (long long)info->flow,
           info->time_ms);
    cli_json_string(stdout, info->device);
    printf(", \"algo\": ");
    cli_json_string(stdout, info->algo);
    double start_ms = 0, wait_ms = 0; /* CUDA's start-up beside the read, and the wait for it */
    gcut_context_device_times(ctx, &start_ms, &wait_ms);
    printf(", \"width\": %d, \"height\": %d, \"connectivity\": %d, \"iterations\": %lld, "
           "\"read_ms\": %.3f, \"device_start_ms\": %.3f, \"device_wait_ms\": %.3f",
           gcut_grid_width(grid), gcut_grid_height(grid), gcut_grid_connectivity(grid),
           (long long)info->iterations, read_ms, start_ms, wait_ms);
    if (a->verify)
        printf(", \"verified\": %s", verified ? "true" : "false");
    printf("}\n");
}

static void print_text(const grid_args *a, gcut_grid *grid, const gcut_solve_info *info,
                       double read_ms, int64_t cut)
{
    printf("graph: %s, %dx%d pixels, %d-connected (read in %.2f ms)\n", a->input,
           gcut_grid_width(grid), gcut_grid_height(grid), gcut_grid_connectivity(grid), read_ms);
    printf("max flow: %lld\n", (long long)info->flow);
    printf("solver: %s on %s, %.2f ms, %lld iterations\n", info->algo, info->device, info->time_ms,
           (long long)info->iterations);
    if (a->verify)
        printf("verified: flow = cut capacity = %lld\n", (long long)cut);
    if (a->labels)
        printf("labels: %s (255 = source side, 0 = sink side)\n", a->labels);
}

int cli_grid_main(int argc, char **argv)
{
    grid_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;

    cli_detach_start(a.device);
    gcut_context *ctx = NULL;
    if ((rc = cli_context_create(cmd, a.device, a.quiet ? 0 : 1, a.threads, &ctx)))
        return rc;
    /* CUDA's start-up runs while the file is read. */
    gcut_context_warm_device(ctx);
    gcut_grid *grid = NULL;
    gcut_solve_info info;
    int64_t cut = 0;
    double t0 = gcut_clock_ms();
    gcut_status st = gcut_grid_read_dimacs(ctx, a.input, &grid);
    double read_ms = gcut_clock_ms() - t0;
    if (!st)
        st = gcut_grid_solve(grid, a.algo, &info);
    if (st) {
        rc = cli_runtime_error(cmd, ctx, st);
        goto done;
    }
    if (a.verify && (st = gcut_grid_verify(grid, &cut))) {
        /* The answer is wrong: say so, and write nothing from it. */
        if (a.json)
            print_json(ctx, &a, grid, &info, read_ms, 0);
        rc = cli_runtime_error(cmd, ctx, st);
        goto done;
    }
    if (a.labels && (st = write_labels(ctx, grid, cli_outputs_temp(&a.outs, a.labels)))) {
        cli_outputs_abort(&a.outs);
        rc = cli_runtime_error(cmd, ctx, st);
        goto done;
    }
    if ((rc = cli_outputs_commit(&a.outs)))
        goto done;
    if (a.json)
        print_json(ctx, &a, grid, &info, read_ms, 1);
    else
        print_text(&a, grid, &info, read_ms, cut);
    cli_detach_done();
    rc = CLI_EXIT_OK;
done:
    gcut_grid_destroy(grid);
    gcut_context_destroy(ctx);
    return rc;
}
