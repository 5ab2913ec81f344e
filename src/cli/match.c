/* gcut match: maximum bipartite matching of a Matrix Market file or an
 * edge list, with its König cover as the proof. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_outputs.h"

static const char *const cmd = "match";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: gcut match [OPTIONS] FILE\n\n"
            "Maximum-cardinality matching of a bipartite graph: a Matrix Market coordinate\n"
            "file (its rows and columns are the two sides, its entries the edges) or an edge\n"
            "list (\"R C\" a line, 1-based).\n\n"
            "Options:\n"
            "  -a, --algo NAME     solver: %s (default: gpr on a GPU, pr on\n"
            "                      the CPU; pr = push-relabel, hk = Hopcroft-Karp)\n"
            "  -d, --device DEV    auto (default: the GPU when one is usable, else the CPU,\n"
            "                      with a notice), cpu or gpu (fails without a GPU)\n"
            "  -F, --format FMT    auto (default: *.mtx or a '%%%%' first line is Matrix\n"
            "                      Market, else an edge list), mtx or edges\n"
            "  -o, --output PATH   write the pairs, \"ROW COL\" a line (1-based)\n"
            "  -c, --cover PATH    write the König cover: \"r ROW\" and \"c COL\" lines\n"
            "  -v, --verify        check the proof: a valid matching and a cover of every\n"
            "                      edge with as many vertices as pairs; exit 1 if it fails\n"
            "  -j, --json          print the result as one JSON object\n"
            "  -q, --quiet         no notices on stderr\n"
            "  -X, --max-memory SIZE  memory budget (e.g. 8G; default: the memory available)\n"
            "  -h, --help          show this help\n"
            "  -V, --version       show the version\n\n"
            "Output files appear whole or not at all (both or neither), and never replace\n"
            "the input or each other.\n",
            gcut_match_algorithms());
}

int cli_match_main(int argc, char **argv)
{
    static const struct option options[] = {{"algo", required_argument, NULL, 'a'},
                                            {"device", required_argument, NULL, 'd'},
                                            {"format", required_argument, NULL, 'F'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"cover", required_argument, NULL, 'c'},
                                            {"verify", no_argument, NULL, 'v'},
                                            {"json", no_argument, NULL, 'j'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {"max-memory", required_argument, NULL, 'X'},
                                            {NULL, 0, NULL, 0}};
    const char *algo = NULL, *pairs_path = NULL, *cover_path = NULL;
    gcut_device device = GCUT_DEVICE_AUTO;
    unsigned format = GCUT_BIPARTITE_AUTO;
    cli_run_flags run = {0, 0, 1};
    int c;
    const char *shorts = ":a:d:F:o:c:X:vjqhV";
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
        case 'F':
            if (!strcmp(optarg, "auto"))
                format = GCUT_BIPARTITE_AUTO;
            else if (!strcmp(optarg, "mtx"))
                format = GCUT_BIPARTITE_MTX;
            else if (!strcmp(optarg, "edges"))
                format = GCUT_BIPARTITE_EDGES;
            else
                return cli_usage_error(cmd, "--format must be auto, mtx or edges, not '%s'",
                                       optarg);
            break;
        case 'o':
            pairs_path = optarg;
            break;
        case 'c':
            cover_path = optarg;
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
    cli_outputs_add(&outs, "--output", pairs_path);
    cli_outputs_add(&outs, "--cover", cover_path);
    int checked = cli_outputs_check(&outs);
    if (checked >= 0)
        return checked;

    gcut_context *ctx = NULL;
    if (cli_context_create(cmd, device, run.verbosity, 0, &ctx))
        return CLI_EXIT_RUNTIME;
    gcut_bipartite *b = NULL;
    int32_t *row_match = NULL, *col_match = NULL;
    uint8_t *row_cover = NULL, *col_cover = NULL;
    gcut_bipartite_stats stats;
    gcut_match_info info;
    int rc = CLI_EXIT_OK;
    const int want_cover = run.verify || cover_path;

    /* Reading time is reported apart from the solve. */
    double t0 = now_ms();
    gcut_status st = gcut_bipartite_read(ctx, path, format | GCUT_BIPARTITE_NO_COSTS, &b);
    double read_ms = now_ms() - t0;
    if (!st) {
        gcut_bipartite_get_stats(b, &stats);
        row_match = malloc(((size_t)stats.rows + 1) * sizeof *row_match);
        col_match = malloc(((size_t)stats.cols + 1) * sizeof *col_match);
        row_cover = malloc((size_t)stats.rows + 1);
        col_cover = malloc((size_t)stats.cols + 1);
        if (!row_match || !col_match || !row_cover || !col_cover) {
            fprintf(stderr, "gcut: %s: out of memory\n", cmd);
            rc = CLI_EXIT_RUNTIME;
            goto done;
        }
        st = gcut_match(b, algo, row_match, col_match, want_cover ? row_cover : NULL,
                        want_cover ? col_cover : NULL, &info);
    }
    if (!st && run.verify)
        st = gcut_match_verify(b, row_match, col_match, row_cover, col_cover, NULL);
    if (!st && pairs_path)
        st =
            gcut_match_write_pairs(ctx, cli_outputs_temp(&outs, pairs_path), stats.rows, row_match);
    if (!st && cover_path)
        st = gcut_match_write_cover(ctx, cli_outputs_temp(&outs, cover_path), stats.rows,
                                    stats.cols, row_cover, col_cover);
    if (st) {
        rc = cli_runtime_error(cmd, ctx, st);
        goto done;
    }
    if ((rc = cli_outputs_commit(&outs)))
        goto done;

    if (run.json) {
        printf("{\"matching_size\": %d, \"rows\": %d, \"cols\": %d, \"edges\": %d, "
               "\"time_ms\": %.3f, \"device\": ",
               info.size, stats.rows, stats.cols, stats.edges, info.time_ms);
        cli_json_string(stdout, info.device);
        printf(", \"algo\": ");
        cli_json_string(stdout, info.algo);
        printf(", \"verified\": %s, \"initial_size\": %d, \"total_ms\": %.3f, "
               "\"cover_ms\": %.3f, \"read_ms\": %.3f, \"iterations\": %lld, \"relabels\": %lld, "
               "\"entries\": %lld, \"duplicates_merged\": %lld, \"input\": ",
               run.verify ? "true" : "false", info.initial_size, info.total_ms, info.cover_ms,
               read_ms, (long long)info.iterations, (long long)info.relabels,
               (long long)stats.entries_in, (long long)stats.duplicates_merged);
        cli_json_string(stdout, path);
        printf("}\n");
    } else {
        printf("matching %d\n", info.size);
        printf("graph %d rows x %d columns, %d edges (%lld entries, %lld duplicates merged)\n",
               stats.rows, stats.cols, stats.edges, (long long)stats.entries_in,
               (long long)stats.duplicates_merged);
        printf("solve %s on %s: %.3f ms (greedy start %d pairs; read %.3f ms)\n", info.algo,
               info.device, info.time_ms, info.initial_size, read_ms);
        if (run.verify)
            printf("verified: a valid matching and a cover of every edge by %d vertices\n",
                   info.size);
    }
done:
    if (rc)
        cli_outputs_abort(&outs);
    free(row_match);
    free(col_match);
    free(row_cover);
    free(col_cover);
    gcut_bipartite_destroy(b);
    gcut_context_destroy(ctx);
    return rc;
}
