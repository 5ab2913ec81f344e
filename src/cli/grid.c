/* gcut grid: placeholder until the DIMACS reader lands. */
#include <stdio.h>

#include "cli/cli.h"

int cli_grid_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gcut: grid: not yet\n");
    return CLI_EXIT_RUNTIME;
}
