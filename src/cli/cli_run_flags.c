/* The options the solver commands (maxflow, match, assign) share: what to
 * check and how to report, parsed in one place so they mean the same
 * everywhere. */
#include <getopt.h>

#include "cli.h"

int cli_run_flag_option(const char *cmd, int c, char **argv, const char *optstring,
                        void (*usage)(FILE *out), cli_run_flags *flags)
{
    switch (c) {
    case 'v':
        flags->verify = 1;
        return -1;
    case 'j':
        flags->json = 1;
        return -1;
    case 'q':
        flags->verbosity = 0;
        return -1;
    case 'X':
        return cli_parse_max_memory(cmd, optarg) ? CLI_EXIT_USAGE : -1;
    default:
        return cli_common_option(cmd, c, argv, optstring, usage);
    }
}
