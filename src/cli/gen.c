/* gcut gen: write a graph of one of the benchmark families as DIMACS. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const cmd = "gen";

static void usage(FILE *out)
{
    fprintf(out, "Usage: gcut gen FAMILY [KEY=VALUE...] [--seed S] -o OUTPUT\n\n"
                 "Write a max-flow instance of a benchmark family as DIMACS (deterministic for a\n"
                 "given seed).\n\n"
                 "Families and their parameters (defaults in brackets):\n"
                 "  genrmf         a=FRAME_SIDE b=FRAMES [c1=100] [c2=10000]\n"
                 "                 n = a*a*b, m = 4a(a-1)b + a*a*(b-1)\n"
                 "  rlg            rows=NODES_PER_LEVEL cols=LEVELS [range=10000]\n"
                 "                 (Washington random level graph; alias washington)\n"
                 "                 n = rows*cols + 2, m = 2*rows + 3*rows*(cols-1)\n"
                 "  acyclic-dense  n=NODES                 m = n(n-1)/2\n"
                 "  vision         width=W height=H [connectivity=4] [density=1]\n"
                 "                 a segmentation-like grid; density = share of pixels with\n"
                 "                 terminal arcs; readable by 'gcut grid' too\n\n"
                 "Options:\n"
                 "  -o, --output PATH   the file to write (required)\n"
                 "  -s, --seed S        random seed, an unsigned integer (default 1)\n"
                 "  -j, --json          print what was written as one JSON object\n"
                 "  -h, --help          show this help\n"
                 "  -V, --version       show the version\n");
}

typedef struct param {
    const char *key;
    double value;
    int set;
    int integer; /* must be a whole number */
} param;

/* KEY=VALUE into the family's table; a usage error names what is wrong. */
static int parse_param(const char *family, const char *arg, param *params, int count)
{
    const char *eq = strchr(arg, '=');
    if (!eq)
        return cli_usage_error(cmd, "expected KEY=VALUE, not '%s'", arg);
    size_t klen = (size_t)(eq - arg);
    for (int i = 0; i < count; i++) {
        if (strlen(params[i].key) != klen || strncmp(params[i].key, arg, klen) != 0)
            continue;
        char *end = NULL;
        errno = 0;
        double v = strtod(eq + 1, &end);
        if (!eq[1] || *end || errno ||
            (params[i].integer &&
             (v != (double)(long long)v || v < -2147483648.0 || v > 2147483647.0)))
            return cli_usage_error(cmd, "%s: '%s' is not a valid %s", family, arg,
                                   params[i].integer ? "integer" : "number");
        params[i].value = v;
        params[i].set = 1;
        return CLI_EXIT_OK;
    }
    return cli_usage_error(cmd, "%s has no parameter '%.*s'", family, (int)klen, arg);
}

int cli_gen_main(int argc, char **argv)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'}, {"seed", required_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0}};
    const char *output = NULL;
    unsigned long long seed = 1;
    int json = 0, c;
    const char *shorts = ":o:s:jhV";
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 's': {
            char *end = NULL;
            errno = 0;
            seed = strtoull(optarg, &end, 10);
            if (!*optarg || *end || errno || optarg[0] == '-')
                return cli_usage_error(cmd, "--seed must be an unsigned integer, not '%s'", optarg);
            break;
        }
        case 'j':
            json = 1;
            break;
        default:
            return cli_common_option(cmd, c, argv, shorts, usage);
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "no family given (genrmf, rlg, acyclic-dense, vision)");
    const char *family = argv[optind++];

    param genrmf[] = {{"a", 0, 0, 1}, {"b", 0, 0, 1}, {"c1", 100, 0, 1}, {"c2", 10000, 0, 1}};
    param rlg[] = {{"rows", 0, 0, 1}, {"cols", 0, 0, 1}, {"range", 10000, 0, 1}};
    param dense[] = {{"n", 0, 0, 1}};
    param vision[] = {
        {"width", 0, 0, 1}, {"height", 0, 0, 1}, {"connectivity", 4, 0, 1}, {"density", 1.0, 0, 0}};
    param *params;
    int count, required;
    if (!strcmp(family, "genrmf"))
        params = genrmf, count = 4, required = 2;
    else if (!strcmp(family, "rlg") || !strcmp(family, "washington"))
        params = rlg, count = 3, required = 2;
    else if (!strcmp(family, "acyclic-dense"))
        params = dense, count = 1, required = 1;
    else if (!strcmp(family, "vision"))
        params = vision, count = 4, required = 2;
    else
        return cli_usage_error(cmd, "unknown family '%s' (genrmf, rlg, acyclic-dense, vision)",
                               family);
    for (; optind < argc; optind++)
        if (parse_param(family, argv[optind], params, count))
            return CLI_EXIT_USAGE;
    for (int i = 0; i < required; i++)
        if (!params[i].set)
            return cli_usage_error(cmd, "%s needs %s=VALUE", family, params[i].key);
    if (!output)
        return cli_usage_error(cmd, "no output file (-o PATH)");

    gcut_context *ctx = NULL;
    if (cli_context_create(cmd, GCUT_DEVICE_CPU, 1, 0, &ctx))
        return CLI_EXIT_RUNTIME;
    gcut_graph *g = NULL;
    gcut_status st;
    char comment[512];
    int len = 0;
    if (params == vision)
        len = snprintf(comment, sizeof comment, "grid %d %d %d\n", (int)vision[0].value,
                       (int)vision[1].value, (int)vision[2].value);
    len += snprintf(comment + len, sizeof comment - (size_t)len, "gcut gen %s", family);
    for (int i = 0; i < count; i++)
        len += snprintf(comment + len, sizeof comment - (size_t)len, " %s=%g", params[i].key,
                        params[i].value);
    snprintf(comment + len, sizeof comment - (size_t)len, " --seed %llu", seed);

    double values[4];
    for (int i = 0; i < count; i++)
        values[i] = params[i].value;
    st = gcut_graph_generate(ctx, params == rlg ? "rlg" : family, values, count, seed, &g);
    if (!st)
        st = gcut_graph_write_dimacs_commented(g, output, comment);
    int rc = CLI_EXIT_OK;
    if (st) {
        rc = cli_runtime_error(cmd, ctx, st);
    } else if (json) {
        printf("{\"family\": ");
        cli_json_string(stdout, family);
        printf(", \"nodes\": %d, \"arcs\": %d, \"seed\": %llu, \"output\": ", gcut_graph_nodes(g),
               gcut_graph_arcs(g), seed);
        cli_json_string(stdout, output);
        printf("}\n");
    } else {
        printf("%s: %d nodes, %d arcs -> %s\n", family, gcut_graph_nodes(g), gcut_graph_arcs(g),
               output);
    }
    gcut_graph_destroy(g);
    gcut_context_destroy(ctx);
    return rc;
}
