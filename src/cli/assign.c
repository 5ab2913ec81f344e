/* gcut assign: minimum-cost assignment of a Matrix Market file or a dense
 * cost matrix by cost scaling. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_outputs.h"

static const char *const cmd = "assign";

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: gcut assign [OPTIONS] FILE\n\n"
            "Minimum-cost assignment by cost scaling: every row gets a distinct column at the\n"
            "least total cost (rows <= cols), or with --partial the least cost among the\n"
            "assignments of the most rows.\n\n"
            "FILE: Matrix Market (\"%%%%MatrixMarket matrix coordinate integer general\": an\n"
            "entry \"I J C\" lets row I take column J at cost C; \"array\" files are dense), or\n"
            "a dense cost matrix: a line \"ROWS COLS\", then ROWS lines of COLS costs, '-' for\n"
            "a pair not allowed, '#' comments. Costs are int32 (negative allowed); real\n"
            "values need --scale.\n\n"
            "Options:\n"
            "  -a, --algo NAME     solver: %s (default: gpu-csa on a GPU;\n"
            "                      on the CPU csa when square, else ssp)\n"
            "  -d, --device DEV    auto (default: the GPU from 4 million arcs when one is\n"
            "                      usable, else the CPU), cpu or gpu (fails without a GPU)\n"
            "  -m, --maximize      the largest total cost instead\n"
            "  -p, --partial       when not every row can be assigned, the least-cost\n"
            "                      assignment of as many rows as possible (else an error\n"
            "                      naming rows that cannot all be assigned)\n"
            "  -s, --scale S       multiply every cost by S and round (real-valued files)\n"
            "  -o, --output PATH   write the pairs: \"ROW COL COST\" per line, 1-based\n"
            "  -v, --verify        check the proof (prices eps-optimal for eps < 1/n and the\n"
            "                      total the assignment's); exit 1 if it fails\n"
            "  -j, --json          print the result as one JSON object\n"
            "  -q, --quiet         no notices on stderr\n"
            "  -X, --max-memory SIZE  memory budget (e.g. 8G; default: the memory available)\n"
            "  -h, --help          show this help\n"
            "  -V, --version       show the version\n\n"
            "Output files appear whole or not at all, and never replace the input.\n",
            gcut_assign_algorithms());
}

int cli_assign_main(int argc, char **argv)
{
    static const struct option options[] = {{"algo", required_argument, NULL, 'a'},
                                            {"device", required_argument, NULL, 'd'},
                                            {"maximize", no_argument, NULL, 'm'},
                                            {"partial", no_argument, NULL, 'p'},
                                            {"scale", required_argument, NULL, 's'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"verify", no_argument, NULL, 'v'},
                                            {"json", no_argument, NULL, 'j'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {"max-memory", required_argument, NULL, 'X'},
                                            {NULL, 0, NULL, 0}};
    const char *algo = NULL, *out_path = NULL;
    gcut_device device = GCUT_DEVICE_AUTO;
    unsigned flags = 0;
    double scale = 0;
    cli_run_flags run = {0, 0, 1};
    int c;
    const char *shorts = ":a:d:mps:o:X:vjqhV";
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
        switch (c) {
        case 'a':
            algo = optarg;
            break;
        case 'd':
            if (cli_parse_device(cmd, optarg, &device))
                return CLI_EXIT_USAGE;
            break;
        case 'm':
            flags |= GCUT_ASSIGN_MAXIMIZE;
            break;
        case 'p':
            flags |= GCUT_ASSIGN_PARTIAL;
            break;
        case 's': {
            char *end = NULL;
            errno = 0;
            scale = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(scale > 0) || !isfinite(scale))
                return cli_usage_error(cmd, "--scale must be a number above 0, not '%s'", optarg);
            break;
        }
        case 'o':
            out_path = optarg;
            break;
        default: {
            int rc = cli_run_flag_option(cmd, c, argv, shorts, usage, &run);
            if (rc >= 0)
                return rc;
        }
        }
    }
    const char *path = NULL;
    int given = cli_single_input(cmd, argc, argv, &path);
    if (given >= 0)
        return given;
    cli_outputs outs;
    cli_outputs_init(&outs, cmd);
    cli_outputs_input(&outs, "the input", path);
    cli_outputs_add(&outs, "--output", out_path);
    int checked = cli_outputs_check(&outs);
    if (checked >= 0)
        return checked;

    gcut_context *ctx = NULL;
    if (cli_context_create(cmd, device, run.verbosity, 0, &ctx))
        return CLI_EXIT_RUNTIME;
    gcut_assign_input *in = NULL;
    int32_t *row_to_col = NULL;
    int64_t *prices = NULL;
    gcut_assign_info info;
    int64_t total = 0, gap = 0;
    int rc = CLI_EXIT_OK;

    gcut_status st = gcut_assign_read(ctx, path, scale, &in);
    if (!st) {
        row_to_col = malloc(((size_t)in->rows + 1) * sizeof *row_to_col);
        prices = malloc(((size_t)in->rows + in->cols + 1) * sizeof *prices);
        if (!row_to_col || !prices) {
            fprintf(stderr, "gcut: %s: out of memory\n", cmd);
            rc = CLI_EXIT_RUNTIME;
            goto done;
        }
        st = gcut_assign_csr_info(ctx, in->rows, in->cols, in->row_ptr, in->col_idx, in->cost,
                                  flags, algo, row_to_col, &total, prices, &info);
    }
    if (!st && run.verify)
        st = gcut_assign_verify(ctx, in->rows, in->cols, in->row_ptr, in->col_idx, in->cost, flags,
                                row_to_col, total, prices, &gap);
    if (!st && out_path)
        st = gcut_assign_write_pairs(ctx, cli_outputs_temp(&outs, out_path), in->rows, in->row_ptr,
                                     in->col_idx, in->cost, flags, row_to_col);
    if (st) {
        rc = cli_runtime_error(cmd, ctx, st);
        goto done;
    }
    if ((rc = cli_outputs_commit(&outs)))
        goto done;
    if (run.json) {
        printf("{\"cost\": %lld, \"rows\": %d, \"cols\": %d, \"edges\": %lld, \"assigned\": %d, "
               "\"time_ms\": %.3f, \"device\": ",
               (long long)total, in->rows, in->cols, (long long)in->arcs, info.assigned,
               info.time_ms);
        cli_json_string(stdout, info.device);
        printf(", \"algo\": ");
        cli_json_string(stdout, info.algo);
        printf(", \"verified\": %s, \"maximize\": %s, \"partial\": %s, \"phases\": %lld, "
               "\"pushes\": %lld, \"input\": ",
               run.verify ? "true" : "false", flags & GCUT_ASSIGN_MAXIMIZE ? "true" : "false",
               flags & GCUT_ASSIGN_PARTIAL ? "true" : "false", (long long)info.refines,
               (long long)info.pushes);
        cli_json_string(stdout, path);
        printf("}\n");
    } else {
        printf("cost %lld\n", (long long)total);
        printf("assigned %d of %d rows (%d columns, %lld arcs)\n", info.assigned, in->rows,
               in->cols, (long long)in->arcs);
        printf("solve %s on %s: %.3f ms (%lld phases)\n", info.algo, info.device, info.time_ms,
               (long long)info.refines);
        if (run.verify)
            printf("verified: prices leave a gap of %lld/%lld < 1, total cost checked\n",
                   (long long)gap, (long long)info.scale);
    }
done:
    if (rc)
        cli_outputs_abort(&outs);
    free(row_to_col);
    free(prices);
    gcut_assign_input_destroy(in);
    gcut_context_destroy(ctx);
    return rc;
}
