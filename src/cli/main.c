/* gcut: the command. Dispatches to one file per subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"segment", "cut an image into foreground and background from seeds", cli_segment_main},
    {"grid", "solve a grid graph file (DIMACS with a grid hint)", cli_grid_main},
    {"maxflow", "maximum flow and minimum cut of a DIMACS graph", cli_maxflow_main},
    {"gen", "generate a benchmark graph (genrmf, rlg, acyclic-dense, vision)", cli_gen_main},
};
static const int n_commands = (int)(sizeof commands / sizeof commands[0]);

static void usage(FILE *out)
{
    fprintf(out, "Usage: gcut [--help] [--version] SUBCOMMAND [OPTIONS] ...\n\n"
                 "Exact minimum cut / maximum flow for computer vision.\n\nSubcommands:\n");
    for (int i = 0; i < n_commands; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'gcut SUBCOMMAND --help' for a subcommand's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
        return cli_print_version();
    for (int i = 0; i < n_commands; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].main(argc - 1, argv + 1);
    fprintf(stderr, "gcut: unknown subcommand '%s'\nTry 'gcut --help'.\n", argv[1]);
    return CLI_EXIT_USAGE;
}
