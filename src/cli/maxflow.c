/* gcut maxflow: maximum flow and minimum cut of a DIMACS max-flow file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_outputs.h"

static const char *const cmd = "maxflow";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* `name` is one of the comma-separated `list`. */
static int name_in_list(const char *name, const char *list)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: gcut maxflow [OPTIONS] FILE\n\n"
            "Maximum flow and minimum cut of a directed graph in DIMACS max-flow format\n"
            "(\"p max N M\", \"n ID s\", \"n ID t\", \"a U V CAP\"; capacities are int32 >= 0).\n\n"
            "Options:\n"
            "  -a, --algo NAME     solver: %s (default: worklist on a GPU,\n"
            "                      prf on the CPU)\n"
            "  -d, --device DEV    auto (default: the GPU when one is usable, else the CPU,\n"
            "                      with a notice), cpu or gpu (fails without a GPU)\n"
            "  -f, --flow PATH     write the flow: \"s VALUE\", then \"f U V X\" per arc\n"
            "  -c, --cut PATH      write the source side of a minimum cut, one node id a line\n"
            "  -v, --verify        check the proof: a feasible flow (capacities, conservation)\n"
            "                      and a cut of the same capacity; exit 1 if it fails\n"
            "  -u, --updates PATH  then apply the capacity batches in PATH (a 'b' line opens\n"
            "                      a batch, each 'U V CAP' line sets arc U -> V to CAP,\n"
            "                      1-based; 'c' comments) one by one, re-solving after\n"
            "                      each from the last flow (prf and bk; without --algo\n"
            "                      the CPU re-solves with bk; GPU solvers start from\n"
            "                      zero); prints the flow after each batch\n"
            "  -A, --add-arcs      with --updates: add arcs the graph does not have\n"
            "                      (else they are an error)\n"
            "  -S, --from-scratch  with --updates: re-solve every batch from zero\n"
            "  -j, --json          print the result as one JSON object\n"
            "  -q, --quiet         no notices on stderr\n"
            "  -X, --max-memory SIZE  refuse work estimated to need more host memory\n"
            "                      (e.g. 4G, 512M; default: the memory available)\n"
            "  -h, --help          show this help\n"
            "  -V, --version       show the version\n\n"
            "With --updates, --verify checks every solve, and --flow and --cut describe\n"
            "the last one.\n"
            "Output files appear whole or not at all, and all of them or none; an output\n"
            "that names the input or another output is refused before any work.\n",
            gcut_graph_algorithms());
}

typedef struct batch_result {
    int64_t flow;
    const char *algo; /* the solver that ran (static storage) */
    double time_ms;   /* the solve */
    double update_ms; /* gcut_graph_update() */
} batch_result;

static void print_batches_json(const batch_result *res, int32_t batches)
{
    printf("\"flows\": [");
    for (int32_t b = 0; b <= batches; b++)
        printf("%s%lld", b ? ", " : "", (long long)res[b].flow);
    printf("], \"times_ms\": [");
    for (int32_t b = 0; b <= batches; b++)
        printf("%s%.3f", b ? ", " : "", res[b].time_ms);
    printf("], \"algos\": [");
    for (int32_t b = 0; b <= batches; b++) {
        printf("%s", b ? ", " : "");
        cli_json_string(stdout, res[b].algo);
    }
    printf("], \"update_ms\": [");
    for (int32_t b = 1; b <= batches; b++)
        printf("%s%.3f", b > 1 ? ", " : "", res[b].update_ms);
    printf("], \"batches\": %d", batches);
}

int cli_maxflow_main(int argc, char **argv)
{
    static const struct option options[] = {{"algo", required_argument, NULL, 'a'},
                                            {"device", required_argument, NULL, 'd'},
                                            {"flow", required_argument, NULL, 'f'},
                                            {"cut", required_argument, NULL, 'c'},
                                            {"verify", no_argument, NULL, 'v'},
                                            {"json", no_argument, NULL, 'j'},
                                            {"updates", required_argument, NULL, 'u'},
                                            {"add-arcs", no_argument, NULL, 'A'},
                                            {"from-scratch", no_argument, NULL, 'S'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {"max-memory", required_argument, NULL, 'X'},
                                            {NULL, 0, NULL, 0}};
    const char *algo = NULL, *flow_path = NULL, *cut_path = NULL, *updates_path = NULL;
    gcut_device device = GCUT_DEVICE_AUTO;
    int add_arcs = 0, scratch = 0;
    cli_run_flags run = {0, 0, 1};
    int c;
    const char *shorts = ":a:d:f:c:vju:ASqhVX:";
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
        case 'f':
            flow_path = optarg;
            break;
        case 'c':
            cut_path = optarg;
            break;
        case 'u':
            updates_path = optarg;
            break;
        case 'A':
            add_arcs = 1;
            break;
        case 'S':
            scratch = 1;
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
    if ((add_arcs || scratch) && !updates_path)
        return cli_usage_error(cmd, "%s needs --updates",
                               add_arcs ? "--add-arcs" : "--from-scratch");
    if (algo && !name_in_list(algo, gcut_graph_algorithms()))
        return cli_usage_error(cmd, "--algo must be one of %s, not '%s'", gcut_graph_algorithms(),
                               algo);
    cli_outputs outs;
    cli_outputs_init(&outs, cmd);
    cli_outputs_input(&outs, "the input", path);
    cli_outputs_input(&outs, "--updates", updates_path);
    cli_outputs_add(&outs, "--flow", flow_path);
    cli_outputs_add(&outs, "--cut", cut_path);
    int checked = cli_outputs_check(&outs);
    if (checked >= 0)
        return checked;

    gcut_context *ctx = NULL;
    if (cli_context_create(cmd, device, run.verbosity, 0, &ctx))
        return CLI_EXIT_RUNTIME;
    gcut_graph *g = NULL;
    gcut_solve_info info;
    gcut_graph_stats stats;
    int64_t cut = 0;
    int rc = CLI_EXIT_OK;
    gcut_updates *updates = NULL;
    int32_t batches = 0;
    batch_result *results = NULL;

    /* Reading time is reported apart from the solve. */
    double t0 = now_ms();
    gcut_status st = gcut_graph_read_dimacs(ctx, path, &g);
    double read_ms = now_ms() - t0;
    unsigned flags = flow_path || run.verify ? GCUT_GRAPH_SOLVE_FLOW : 0;
    if (!st && updates_path)
        st = gcut_updates_read(ctx, updates_path, gcut_graph_nodes(g), &updates);
    batches = gcut_updates_batches(updates);
    if (!st)
        st = gcut_graph_solve(g, algo, flags, &info);
    if (!st && run.verify)
        st = gcut_graph_verify(g, &cut);
    if (!st && updates_path) {
        results = calloc((size_t)batches + 1, sizeof *results);
        if (!results) {
            fprintf(stderr, "gcut: %s: out of memory for %d batches\n", cmd, batches);
            rc = CLI_EXIT_RUNTIME;
            goto done;
        }
        results[0] = (batch_result){info.flow, info.algo, info.time_ms, 0.0};
        unsigned again = flags | (scratch ? GCUT_GRAPH_SOLVE_SCRATCH : 0);
        /* bk chosen here (no --algo): bounded, so that a batch too large
         * for a warm re-solve costs about a fresh prf solve. */
        if (!algo)
            again |= GCUT_GRAPH_SOLVE_BOUNDED;
        /* Without --algo: on the CPU, BK's warm re-solve (measured the
         * faster of the two warm solvers on small batches: the results in
         * bench/results/dynamic_maxflow_cpu_*.md); elsewhere the solver
         * the first solve settled on (and said so, once). */
        const char *again_algo = algo                                      ? algo
                                 : !scratch && !strcmp(info.device, "cpu") ? "bk"
                                                                           : info.algo;
        for (int32_t b = 0; !st && b < batches; b++) {
            double t1 = now_ms();
            st = gcut_updates_apply(updates, b, g, add_arcs ? GCUT_GRAPH_UPDATE_ADD : 0);
            results[b + 1].update_ms = now_ms() - t1;
            if (!st)
                st = gcut_graph_solve(g, again_algo, again, &info);
            if (!st && run.verify)
                st = gcut_graph_verify(g, &cut);
            results[b + 1].flow = info.flow;
            results[b + 1].algo = info.algo;
            results[b + 1].time_ms = info.time_ms;
        }
    }
    if (!st && flow_path)
        st = gcut_graph_write_flow(g, cli_outputs_temp(&outs, flow_path));
    if (!st && cut_path)
        st = gcut_graph_write_cut(g, cli_outputs_temp(&outs, cut_path));
    if (st) {
        cli_outputs_abort(&outs);
        rc = cli_runtime_error(cmd, ctx, st);
        goto done;
    }
    if ((rc = cli_outputs_commit(&outs)))
        goto done;
    gcut_graph_get_stats(g, &stats);

    if (run.json) {
        printf("{\"flow\": %lld, \"time_ms\": %.3f, ", (long long)info.flow, info.time_ms);
        if (updates_path) {
            int64_t total = 0, count = 0;
            for (int32_t b = 0; b < batches; b++)
                if (gcut_updates_batch(updates, b, &count, NULL, NULL, NULL, NULL) == GCUT_OK)
                    total += count;
            print_batches_json(results, batches);
            printf(", \"updates\": %lld, \"updates_input\": ", (long long)total);
            cli_json_string(stdout, updates_path);
            printf(", \"from_scratch\": %s, ", scratch ? "true" : "false");
        }
        printf("\"device\": ");
        cli_json_string(stdout, info.device);
        printf(", \"algo\": ");
        cli_json_string(stdout, info.algo);
        printf(", \"nodes\": %d, \"arcs\": %lld, \"arcs_distinct\": %d, \"parallel_merged\": %lld, "
               "\"self_loops\": %lld, \"read_ms\": %.3f, \"iterations\": %lld",
               stats.nodes, (long long)stats.arcs_in, stats.arcs, (long long)stats.parallel_merged,
               (long long)stats.self_loops, read_ms, (long long)info.iterations);
        if (run.verify)
            printf(", \"verified\": true, \"cut_capacity\": %lld", (long long)cut);
        printf(", \"input\": ");
        cli_json_string(stdout, path);
        printf("}\n");
    } else {
        printf("flow %lld\n", (long long)(updates_path ? results[0].flow : info.flow));
        printf("graph %d nodes, %lld arcs (%lld parallel merged, %lld self-loops dropped)\n",
               stats.nodes, (long long)stats.arcs_in, (long long)stats.parallel_merged,
               (long long)stats.self_loops);
        printf("solve %s on %s: %.3f ms (read %.3f ms)\n", info.algo, info.device,
               updates_path ? results[0].time_ms : info.time_ms, read_ms);
        for (int32_t b = 0; updates_path && b < batches; b++) {
            int64_t count = 0;
            gcut_updates_batch(updates, b, &count, NULL, NULL, NULL, NULL);
            printf("batch %d: flow %lld (%lld updates, applied in %.3f ms, %s by %s in %.3f ms)\n",
                   b + 1, (long long)results[b + 1].flow, (long long)count,
                   results[b + 1].update_ms, scratch ? "solved from zero" : "re-solved",
                   results[b + 1].algo, results[b + 1].time_ms);
        }
        if (run.verify)
            printf("verified: feasible flow, cut capacity %lld = flow%s\n", (long long)cut,
                   updates_path ? " (after every batch)" : "");
    }
done:
    free(results);
    gcut_updates_destroy(updates);
    gcut_graph_destroy(g);
    gcut_context_destroy(ctx);
    return rc;
}
